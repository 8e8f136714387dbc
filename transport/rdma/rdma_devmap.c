/*
 * rdma_devmap.c — reading bolt-cluster's device map (see rdma_devmap.h).
 * Unknown record kinds are skipped (later versions may add some); a bad
 * pair record is an error naming file:line.
 */
#include "transport/rdma/rdma_devmap.h"
#include "runtime/errors.h"
#include "runtime/textfile.h"

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

struct devmap_walk {
    struct rdma_devmap *m;
    const char *fname;
    char *err;
    size_t cap;
    int header;
};

static int devmap_line(void *arg, char **w, int nw, int line)
{
    struct devmap_walk *k = arg;
    if (!k->header) {
        k->header = 1;
        if (nw != 2 || strcmp(w[0], "bolt-devmap") != 0 || strcmp(w[1], "1") != 0)
            return bolt_errbuf(k->err, k->cap, "%s:%d: not a device map of this Bolt (it starts 'bolt-devmap 1'; "
                               "bolt-cluster check --write-devmap writes one)", k->fname, line);
        return 0;
    }
    return strcmp(w[0], "pair") == 0 ? pair_line(k->m, w, nw, k->fname, line, k->err, k->cap) : 0;
}

int rdma_devmap_parse(struct rdma_devmap *m, const char *text, const char *fname, char *err, size_t cap)
{
    memset(m, 0, sizeof *m);
    struct devmap_walk k = {m, fname, err, cap, 0};
    int rc = bolt_textfile_lines(text, fname, devmap_line, &k, err, cap);
    if (rc == 0 && !k.header)
        rc = bolt_errbuf(err, cap, "%s: empty: not a device map (bolt-cluster check --write-devmap writes one)", fname);
    if (rc != 0)
        rdma_devmap_free(m);
    return rc;
}

int rdma_devmap_load(struct rdma_devmap *m, const char *path, char *err, size_t cap)
{
    char *text;
    const int e = bolt_textfile_read(path, MAP_MAX, &text);
    if (e != 0) {
        memset(m, 0, sizeof *m);
        return e == EFBIG ? bolt_errbuf(err, cap, "%s: larger than %d bytes: not a device map", path, MAP_MAX)
                          : bolt_errbuf(err, cap, "%s: cannot read it: %s", path, strerror(e));
    }
    const int rc = rdma_devmap_parse(m, text, path, err, cap);
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
