/* small_flood.c — small collectives in a loop, the way an application's
 * residual checks or token counts go: the ranks that only send run ahead of
 * the root, which now and then sleeps, so their messages queue up until the
 * transport cannot take the next one at once (the reduce then finishes as a
 * schedule) and the root takes a backlog. Every result is checked at the
 * root: a sum of int32 triples to root 0, then a non-commutative operation
 * (2x2 integer matrix products, which must come in rank order) to a root that
 * moves every call, a sum to the last rank of 1 KiB + 4 bytes (over the
 * size reduced without a schedule), scans (rank 0 only sends, the last
 * rank only receives and sleeps now and then), and scatters from a root
 * that only sends while a receiver sleeps now and then, and broadcasts
 * likewise (a root ahead by more than a ring holds).
 *
 *   small_flood [ITERS]      (default 20000)
 */
#include <time.h>

#include "cutil.h"

/* inout = in * inout for one 2x2 matrix of uint32 (row-major), as cutil's
 * cmatmul does. */
static void mul2(const uint32_t a[4], uint32_t b[4])
{
    uint32_t r[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                     a[2] * b[1] + a[3] * b[3]};
    memcpy(b, r, sizeof r);
}

/* Rank k's matrix in call i, [[k + 1, 0], [k + i % 3, 1]]: the lower-left
 * corner of a product of such depends on the order of its factors. */
static void mat_of(int k, long i, uint32_t m[4])
{
    m[0] = (uint32_t)k + 1;
    m[1] = 0;
    m[2] = (uint32_t)(i % 3) + (uint32_t)k;
    m[3] = 1;
}

static void nap(void)
{
    struct timespec t = {0, 2000000}; /* 2 ms: the senders fill what the transport holds */
    nanosleep(&t, NULL);
}

int main(int argc, char **argv)
{
    OK(bolt_init(&argc, &argv));
    bolt_comm_t w = bolt_comm_world();
    OK(bolt_comm_rank(w, &crank));
    OK(bolt_comm_size(w, &csize));
    long iters = argc > 1 ? atol(argv[1]) : 20000;

    CASE("%ld sums of 3 int32 to rank 0, which sleeps every 1000th call", iters);
    for (long i = 0; i < iters; i++) {
        int32_t v[3] = {crank, (int32_t)i, crank * (int32_t)(i % 5)}, s[3] = {-1, -1, -1};
        if (crank == 0 && i % 1000 == 999)
            nap();
        OK(bolt_reduce(v, crank == 0 ? s : NULL, 3, BOLT_INT32, BOLT_SUM, 0, w));
        if (crank == 0) {
            int32_t want[3] = {csize * (csize - 1) / 2, (int32_t)(i * csize), (int32_t)(i % 5) * csize * (csize - 1) / 2};
            if (memcmp(s, want, sizeof s)) {
                EXPECT(0, "call %ld: got %d %d %d, want %d %d %d", i, s[0], s[1], s[2], want[0], want[1], want[2]);
                break;
            }
        }
    }

    cmatmul_create();
    CASE("%ld non-commutative products, the root moving, each root sleeping now and then", iters / 4);
    for (long i = 0; i < iters / 4; i++) {
        int root = (int)(i % csize);
        uint32_t m[4], got[4] = {0, 0, 0, 0}, want[4] = {1, 0, 0, 1};
        mat_of(crank, i, m);
        if (crank == root && i % 500 == 499)
            nap();
        OK(bolt_reduce(m, crank == root ? got : NULL, 1, cmat_type(), cmatmul, root, w));
        if (crank != root)
            continue;
        for (int k = csize - 1; k >= 0; k--) { /* want = m_0 * m_1 * ... * m_{n-1} */
            uint32_t mk[4];
            mat_of(k, i, mk);
            mul2(mk, want);
        }
        if (memcmp(got, want, sizeof got)) {
            EXPECT(0, "call %ld to root %d: got [[%u %u] [%u %u]], want [[%u %u] [%u %u]]", i, root, got[0],
                   got[1], got[2], got[3], want[0], want[1], want[2], want[3]);
            break;
        }
    }

    enum { N = 1024 / 4 + 1 };
    CASE("%ld sums of %d int32 to the last rank", iters / 20, N);
    int32_t big[N], sum[N];
    for (long i = 0; i < iters / 20; i++) {
        for (int k = 0; k < N; k++)
            big[k] = crank + k + (int32_t)i;
        OK(bolt_reduce(big, crank == csize - 1 ? sum : NULL, N, BOLT_INT32, BOLT_SUM, csize - 1, w));
        if (crank == csize - 1)
            for (int k = 0; k < N; k++)
                if (sum[k] != csize * (csize - 1) / 2 + csize * (k + (int32_t)i)) {
                    EXPECT(0, "call %ld: element %d is %d", i, k, sum[k]);
                    i = iters;
                    break;
                }
    }
    CASE("%ld scans, inclusive and exclusive in turn, the last rank sleeping now and then", iters / 2);
    for (long i = 0; i < iters / 2; i++) {
        int32_t v = crank + (int32_t)i, got = -7;
        const int ex = (int)(i & 1);
        if (crank == csize - 1 && i % 1000 == 999)
            nap();
        if (ex)
            OK(bolt_exscan(&v, &got, 1, BOLT_INT32, BOLT_SUM, w));
        else
            OK(bolt_scan(&v, &got, 1, BOLT_INT32, BOLT_SUM, w));
        const int upto = ex ? crank : crank + 1; /* ranks summed */
        const int32_t want = ex && crank == 0 ? -7 : upto * (upto - 1) / 2 + upto * (int32_t)i;
        if (got != want) {
            EXPECT(0, "%sscan call %ld: got %d, want %d", ex ? "ex" : "", i, got, want);
            break;
        }
    }
    CASE("%ld scatters of 2 int32 a rank, the root moving every 1000 calls", iters / 2);
    int32_t *all = malloc((size_t)csize * 2 * sizeof *all);
    EXPECT(all != NULL, "out of memory");
    for (long i = 0; all && i < iters / 2; i++) {
        const int root = (int)(i / 1000 % csize);
        int32_t mine[2] = {-1, -1};
        if (crank == root)
            for (int k = 0; k < csize; k++) {
                all[2 * k] = k * 3 + (int32_t)i;
                all[2 * k + 1] = -k - (int32_t)i;
            }
        if (crank == (root + 1) % csize && i % 700 == 699)
            nap();
        OK(bolt_scatter(all, mine, 2, BOLT_INT32, root, w));
        if (mine[0] != crank * 3 + (int32_t)i || mine[1] != -crank - (int32_t)i) {
            EXPECT(0, "scatter call %ld from root %d: got %d %d", i, root, mine[0], mine[1]);
            break;
        }
    }
    free(all);
    /* broadcasts the same way (flat, one copy for all, on 4 or more ranks
     * crowding the cores): the root runs ahead of a receiver that naps early
     * in each root's 5000 calls, more than its ring holds (4096 cells) */
    CASE("%ld broadcasts of 3 int32, the root moving every 5000 calls", iters / 2);
    for (long i = 0; i < iters / 2; i++) {
        const int root = (int)(i / 5000 % csize);
        int32_t b[3] = {-1, -1, -1};
        if (crank == root) {
            b[0] = (int32_t)i;
            b[1] = root;
            b[2] = -(int32_t)i;
        }
        if (crank == (root + 1) % csize && i % 5000 == 100)
            nap();
        OK(bolt_bcast(b, 3, BOLT_INT32, root, w));
        if (b[0] != (int32_t)i || b[1] != root || b[2] != -(int32_t)i) {
            EXPECT(0, "broadcast call %ld from root %d: got %d %d %d", i, root, b[0], b[1], b[2]);
            break;
        }
    }
    if (crank == 0)
        printf("small_flood: %d ranks, %ld small reduces and %ld of %d bytes, %ld scans, %ld scatters, %ld "
               "broadcasts, every result checked: ok\n",
               csize, iters + iters / 4, iters / 20, N * 4, iters / 2, iters / 2, iters / 2);
    OK(bolt_finalize());
    return 0;
}
