/*
 * rdma_devmap.c — reading bolt-cluster's device map (see rdma_devmap.h).
 * Unknown record kinds are skipped (later versions may add some); a bad
 * pair record is an error naming file:line.
 */
#include "transport/rdma/rdma_devmap.h"
#include "runtime/errors.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAP_MAX (1 << 20)

void rdma_devmap_free(struct rdma_devmap *m)
{
    free(m->pair);
    memset(m, 0, sizeof *m);
}

/* One "pair" record's six words after the keyword. */
static int pair_line(struct rdma_devmap *m, char **w, int nw, const char *fname, int line, char *err, size_t cap)
{
    if (nw != 7)
        return bolt_errbuf(err, cap, "%s:%d: a pair record is 'pair HOST_A DEV_A GID_A HOST_B DEV_B GID_B' (%d words "
                    "found, not 7)", fname, line, nw);
    struct rdma_devmap_pair p = {.line = line};
    for (int s = 0; s < 2; s++) {
        const char *gid = w[3 + 3 * s];
        if (inet_pton(AF_INET6, gid, p.gid[s]) != 1)
            return bolt_errbuf(err, cap, "%s:%d: '%s' is not a GID (IPv6 text, e.g. ::ffff:169.254.12.1)", fname, line, gid);
        snprintf(p.host[s], sizeof p.host[s], "%s", w[1 + 3 * s]);
        snprintf(p.dev[s], sizeof p.dev[s], "%s", w[2 + 3 * s]);
    }
    struct rdma_devmap_pair *np = realloc(m->pair, (size_t)(m->n + 1) * sizeof *np);
    if (np == NULL)
        return bolt_errbuf(err, cap, "%s: out of memory", fname);
    m->pair = np;
    m->pair[m->n++] = p;
    return 0;
}

int rdma_devmap_parse(struct rdma_devmap *m, const char *text, const char *fname, char *err, size_t cap)
{
    memset(m, 0, sizeof *m);
    int line = 0, header = 0, rc = 0;
    const char *p = text;
    while (rc == 0 && *p) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char buf[1024], *w[16], *save = NULL;
        int nw = 0;
        line++;
        if (len >= sizeof buf) {
            rc = bolt_errbuf(err, cap, "%s:%d: line too long", fname, line);
            break;
        }
        memcpy(buf, p, len);
        buf[len] = '\0';
        p = e ? e + 1 : p + len;
        char *hash = strchr(buf, '#');
        if (hash)
            *hash = '\0';
        for (char *t = strtok_r(buf, " \t\r", &save); t && nw < 16; t = strtok_r(NULL, " \t\r", &save))
            w[nw++] = t;
        if (nw == 0)
            continue;
        if (!header) {
            if (nw != 2 || strcmp(w[0], "bolt-devmap") != 0 || strcmp(w[1], "1") != 0)
                rc = bolt_errbuf(err, cap, "%s:%d: not a device map of this Bolt (it starts 'bolt-devmap 1'; "
                          "bolt-cluster check --write-devmap writes one)", fname, line);
            header = 1;
        } else if (strcmp(w[0], "pair") == 0) {
            rc = pair_line(m, w, nw, fname, line, err, cap);
        }
    }
    if (rc == 0 && !header)
        rc = bolt_errbuf(err, cap, "%s: empty: not a device map (bolt-cluster check --write-devmap writes one)", fname);
    if (rc != 0)
        rdma_devmap_free(m);
    return rc;
}

int rdma_devmap_load(struct rdma_devmap *m, const char *path, char *err, size_t cap)
{
    memset(m, 0, sizeof *m);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return bolt_errbuf(err, cap, "%s: cannot read it: %s", path, strerror(errno));
    char *text = malloc(MAP_MAX + 1);
    size_t n = text ? fread(text, 1, MAP_MAX + 1, f) : 0;
    int bad = ferror(f);
    fclose(f);
    int rc;
    if (text == NULL)
        rc = bolt_errbuf(err, cap, "%s: out of memory", path);
    else if (bad)
        rc = bolt_errbuf(err, cap, "%s: read error", path);
    else if (n > MAP_MAX)
        rc = bolt_errbuf(err, cap, "%s: larger than %d bytes: not a device map", path, MAP_MAX);
    else {
        text[n] = '\0';
        rc = rdma_devmap_parse(m, text, path, err, cap);
    }
    free(text);
    return rc;
}

const struct rdma_devmap_pair *rdma_devmap_find(const struct rdma_devmap *m, const uint8_t mine[16],
                                                const uint8_t theirs[16], int *side)
{
    for (int i = 0; i < m->n; i++)
        for (int s = 0; s < 2; s++)
            if (memcmp(m->pair[i].gid[s], mine, 16) == 0 && memcmp(m->pair[i].gid[1 - s], theirs, 16) == 0) {
                *side = s;
                return &m->pair[i];
            }
    return NULL;
}
