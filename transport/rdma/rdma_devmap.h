/*
 * rdma_devmap.h — the device map bolt-cluster writes (--write-devmap; format
 * in cluster/outfiles.h): RDMA device pairs proven to reach each other, by
 * the GID each end sends from. The rdma transport reads it at start-up
 * (BOLT_RDMA_DEVMAP) and reaches a peer through the device the map pairs
 * with one of the peer's, before matching addresses (ambiguous when every
 * Thunderbolt port sits in one link-local /16). Pure: no verbs, no runtime.
 */
#ifndef BOLT_RDMA_DEVMAP_H
#define BOLT_RDMA_DEVMAP_H

#include <stddef.h>
#include <stdint.h>

struct rdma_devmap_pair {
    uint8_t gid[2][16];
    char host[2][64], dev[2][64];
    int line;
};

struct rdma_devmap {
    struct rdma_devmap_pair *pair;
    int n;
};

/* Parses the text of file `fname`. 0, or -1 with err naming fname:line. */
int rdma_devmap_parse(struct rdma_devmap *m, const char *text, const char *fname, char *err, size_t cap);
/* Reads and parses `path`. 0, or -1 with err. */
int rdma_devmap_load(struct rdma_devmap *m, const char *path, char *err, size_t cap);
/* The pair of `mine` (a GID of ours) and `theirs` (a peer's), or NULL;
 * *side is the index of our end in it. */
const struct rdma_devmap_pair *rdma_devmap_find(const struct rdma_devmap *m, const uint8_t mine[16],
                                                const uint8_t theirs[16], int *side);
void rdma_devmap_free(struct rdma_devmap *m);

#endif
