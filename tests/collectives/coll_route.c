/* coll_route — what the collectives chose and whether their results hold,
 * for the tests of the per-link cost model (tests/cluster/coll_links.sh):
 *
 *   coll_route [MiB]
 *
 * Prints, on every rank, the algorithm of all-reduce, broadcast and
 * all-gather per size as bolt-info --coll lists them ("8 B rd binomial
 * rd"), then runs an all-gather of MiB MiB per rank (default 8), an
 * all-reduce and a broadcast of as much, checking every byte, and says
 * "coll_route ok". Settings (BOLT_ALLGATHER_ALGO=ring, ...) apply as usual. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/collectives/cutil.h"

static const size_t sizes[] = {8, 64, 1024, 8192, 65536, 262144, 1048576, 4194304, 16777216};

static void size_name(size_t b, char *out, size_t cap)
{
    if (b >= 1048576)
        snprintf(out, cap, "%zu MiB", b >> 20);
    else if (b >= 1024)
        snprintf(out, cap, "%zu KiB", b >> 10);
    else
        snprintf(out, cap, "%zu B", b);
}

int main(int argc, char **argv)
{
    OK(bolt_init(&argc, &argv));
    bolt_comm_t world = bolt_comm_world();
    OK(bolt_comm_rank(world, &crank));
    OK(bolt_comm_size(world, &csize));
    size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 8, block = mib << 20;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        char sz[32];
        size_name(sizes[i], sz, sizeof sz);
        printf("choice %-10s %-14s %-18s %s\n", sz, bolt_coll_algorithm("allreduce", sizes[i], world),
               bolt_coll_algorithm("bcast", sizes[i], world), bolt_coll_algorithm("allgather", sizes[i], world));
    }
    fflush(stdout);

    /* All-gather: rank r's block is r's pattern. */
    CASE("allgather %zu MiB per rank (%s)", mib, bolt_coll_algorithm("allgather", block, world));
    unsigned char *mine = xmalloc(block), *all = xmalloc(block * (size_t)csize);
    for (size_t i = 0; i < block; i++)
        mine[i] = (unsigned char)(i * 7 + (size_t)crank * 13);
    OK(bolt_allgather(mine, all, block, BOLT_BYTE, world));
    for (int r = 0; r < csize; r++)
        for (size_t i = 0; i < block; i++)
            EXPECT(all[(size_t)r * block + i] == (unsigned char)(i * 7 + (size_t)r * 13), "rank %d's byte %zu", r, i);
    free(all);

    /* All-reduce of int64 sums: exact, the same on every rank. */
    size_t n = block / 8;
    CASE("allreduce %zu MiB (%s)", mib, bolt_coll_algorithm("allreduce", block, world));
    int64_t *in = xmalloc(block), *out = xmalloc(block);
    for (size_t i = 0; i < n; i++)
        in[i] = (int64_t)i * (crank + 1);
    OK(bolt_allreduce(in, out, n, BOLT_INT64, BOLT_SUM, world));
    int64_t f = (int64_t)csize * (csize + 1) / 2;
    for (size_t i = 0; i < n; i++)
        EXPECT(out[i] == (int64_t)i * f, "element %zu is %lld, not %lld", i, (long long)out[i], (long long)(i * f));

    /* Broadcast from the last rank. */
    CASE("bcast %zu MiB from rank %d (%s)", mib, csize - 1, bolt_coll_algorithm("bcast", block, world));
    for (size_t i = 0; i < block; i++)
        mine[i] = crank == csize - 1 ? (unsigned char)(i * 3 + 1) : 0;
    OK(bolt_bcast(mine, block, BOLT_BYTE, csize - 1, world));
    for (size_t i = 0; i < block; i++)
        EXPECT(mine[i] == (unsigned char)(i * 3 + 1), "byte %zu", i);
    free(mine);
    free(in);
    free(out);
    OK(bolt_finalize());
    if (crank == 0)
        printf("coll_route ok\n");
    return 0;
}
