/* textfile.c — see textfile.h. */
#include "runtime/textfile.h"
#include "runtime/errors.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int bolt_textfile_read(const char *path, size_t max, char **text)
{
    *text = NULL;
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return errno;
    size_t len = 0, have = 0;
    int rc = 0;
    char *t = NULL;
    for (;;) {
        if (have - len < 4096) {
            char *n = realloc(t, have + 65536);
            if (n == NULL) {
                rc = ENOMEM;
                break;
            }
            t = n;
            have += 65536;
        }
        size_t r = fread(t + len, 1, have - len - 1, f);
        len += r;
        if (len > max) {
            rc = EFBIG;
            break;
        }
        if (r == 0) {
            if (ferror(f))
                rc = errno ? errno : EIO;
            break;
        }
    }
    fclose(f);
    if (rc != 0) {
        free(t);
        return rc;
    }
    t[len] = '\0';
    *text = t;
    return 0;
}

int bolt_textfile_lines(const char *text, const char *fname, bolt_textfile_line_fn *fn, void *arg, char *err,
                        size_t cap)
{
    int line = 0, rc = 0;
    for (const char *p = text; *p && rc == 0;) {
        const char *nl = strchr(p, '\n');
        const size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char buf[4096], *w[64];
        int nw = 0;
        line++;
        if (len >= sizeof buf)
            return bolt_errbuf(err, cap, "%s:%d: line too long", fname, line);
        memcpy(buf, p, len);
        buf[len] = '\0';
        p += len + (nl != NULL);
        char *hash = strchr(buf, '#');
        if (hash)
            *hash = '\0';
        for (char *save = NULL, *t = strtok_r(buf, " \t\r", &save); t && nw < 64; t = strtok_r(NULL, " \t\r", &save))
            w[nw++] = t;
        if (nw > 0)
            rc = fn(arg, w, nw, line);
    }
    return rc;
}
