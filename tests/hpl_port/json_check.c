/* json_check FILE COUNT — bolt-hpl's --json records: COUNT lines, each one
 * JSON object with the test's fields of the right types, PASSED. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        printf("cannot open %s\n", argv[1]);
        return 1;
    }
    char line[8192];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        json_error_t e;
        json_t *o = json_loads(line, 0, &e);
        n++;
        if (!json_is_object(o)) {
            printf("line %d: not a JSON object: %s\n", n, e.text);
            return 1;
        }
        const char *tv, *status, *pmap;
        int nn, nb, p, q, depth;
        double t, gf, resid, update;
        if (json_unpack_ex(o, &e, 0, "{s:s, s:i, s:i, s:i, s:i, s:s, s:F, s:F, s:s, s:F, s:{s:i}, s:{s:F}}",
                           "tv", &tv, "n", &nn, "nb", &nb, "p", &p, "q", &q, "pmap", &pmap, "time_s", &t,
                           "gflops", &gf, "status", &status, "resid", &resid, "algo", "depth", &depth,
                           "phases_s", "update", &update)) {
            printf("line %d: %s\n", n, e.text);
            return 1;
        }
        if (strcmp(status, "PASSED") || strncmp(tv, "WR", 2) || nn <= 0 || !(resid >= 0) || !(gf > 0)) {
            printf("line %d: unexpected values (tv %s, status %s, n %d)\n", n, tv, status, nn);
            return 1;
        }
        json_decref(o);
    }
    fclose(f);
    if (n != atoi(argv[2])) {
        printf("%d records, expected %s\n", n, argv[2]);
        return 1;
    }
    return 0;
}
