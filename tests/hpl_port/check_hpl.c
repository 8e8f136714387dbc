/*
 * check_hpl.c — unit tests of bolt-hpl's parts that need no job: the
 * generator's jumps land where stepping lands, every grid's blocks are the
 * same global matrix, the block-cyclic index arithmetic, HPL.dat's reading.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "hpl_port/hpl.h"
#include "tests/check_run.h"

#define SEED 100ULL

START_TEST(jump_ahead_matches_stepping)
{
    /* the stream by hand: X(k+1) = a X(k) + 1, entry idx = 0.5 - X(idx+1)/2^64 */
    uint64_t x = SEED;
    for (uint64_t idx = 0; idx < 200000; idx++) {
        x = 6364136223846793005ULL * x + 1;
        if (idx < 3000 || idx % 9973 == 0) {
            double want = 0.5 - (double)x * 0x1.0p-64;
            ck_assert_msg(hpl_rand_at(SEED, idx) == want, "entry %llu", (unsigned long long)idx);
        }
    }
}
END_TEST

START_TEST(entries_lie_in_half_interval)
{
    for (uint64_t idx = 0; idx < 100000; idx += 7) {
        double v = hpl_rand_at(SEED, idx);
        ck_assert(v >= -0.5 && v <= 0.5);
    }
}
END_TEST

/* Every process of a P x Q grid generates its blocks; together they must be
 * the column-major N x (N+1) stream, whatever P and Q. */
static void check_grid(int n, int nb, int P, int Q)
{
    for (int pr = 0; pr < P; pr++)
        for (int pc = 0; pc < Q; pc++) {
            hpl_grid_t g = {.in_grid = 1, .nprow = P, .npcol = Q, .myrow = pr, .mycol = pc};
            hpl_mat_t m = {.n = n, .nb = nb};
            m.mp = hpl_numroc(n, nb, pr, P);
            m.nq = hpl_numroc(n + 1, nb, pc, Q);
            m.lda = (size_t)(m.mp > 0 ? m.mp : 1) + 3;
            m.a = calloc(m.lda * (size_t)(m.nq > 0 ? m.nq : 1), sizeof(double));
            ck_assert_ptr_nonnull(m.a);
            hpl_matgen(&g, &m, SEED);
            for (int lj = 0; lj < m.nq; lj++)
                for (int li = 0; li < m.mp; li++) {
                    uint64_t gi = (uint64_t)hpl_global(li, nb, pr, P), gj = (uint64_t)hpl_global(lj, nb, pc, Q);
                    ck_assert_msg(m.a[(size_t)lj * m.lda + (size_t)li] == hpl_rand_at(SEED, gj * (uint64_t)n + gi),
                                  "%d x %d grid, process (%d,%d), entry (%llu,%llu)", P, Q, pr, pc,
                                  (unsigned long long)gi, (unsigned long long)gj);
                }
            free(m.a);
        }
}

START_TEST(every_grid_makes_the_same_matrix)
{
    static const int grids[][2] = {{1, 1}, {1, 2}, {2, 1}, {2, 3}, {3, 2}, {4, 1}, {1, 5}, {3, 3}};
    for (size_t i = 0; i < sizeof grids / sizeof grids[0]; i++) {
        check_grid(37, 4, grids[i][0], grids[i][1]);
        check_grid(40, 8, grids[i][0], grids[i][1]);
        check_grid(11, 16, grids[i][0], grids[i][1]); /* one block, not full */
    }
}
END_TEST

START_TEST(block_cyclic_indices)
{
    for (int n = 0; n < 90; n += 7)
        for (int nb = 1; nb < 12; nb += 3)
            for (int np = 1; np < 5; np++) {
                int total = 0;
                for (int p = 0; p < np; p++) {
                    int cnt = hpl_numroc(n, nb, p, np);
                    total += cnt;
                    for (int l = 0; l < cnt; l++) {
                        int gi = hpl_global(l, nb, p, np);
                        ck_assert(gi < n);
                        ck_assert_int_eq(hpl_owner(gi, nb, np), p);
                        /* numroc up to gi is gi's local index */
                        ck_assert_int_eq(hpl_numroc(gi, nb, p, np), l);
                    }
                }
                ck_assert_int_eq(total, n);
            }
}
END_TEST

static const char sample[] =
    "HPLinpack benchmark input file\n"
    "Innovative Computing Laboratory, University of Tennessee\n"
    "HPL.out      output file name (if any)\n"
    "6            device out (6=stdout,7=stderr,file)\n"
    "4            # of problems sizes (N)\n"
    "29 30 34 35  Ns\n"
    "4            # of NBs\n"
    "1 2 3 4      NBs\n"
    "0            PMAP process mapping (0=Row-,1=Column-major)\n"
    "3            # of process grids (P x Q)\n"
    "2 1 4        Ps\n"
    "2 4 1        Qs\n"
    "16.0         threshold\n"
    "3            # of panel fact\n"
    "0 1 2        PFACTs (0=left, 1=Crout, 2=Right)\n"
    "2            # of recursive stopping criterium\n"
    "2 4          NBMINs (>= 1)\n"
    "1            # of panels in recursion\n"
    "2            NDIVs\n"
    "3            # of recursive panel fact.\n"
    "0 1 2        RFACTs (0=left, 1=Crout, 2=Right)\n"
    "1            # of broadcast\n"
    "0            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)\n"
    "1            # of lookahead depth\n"
    "0            DEPTHs (>=0)\n"
    "2            SWAP (0=bin-exch,1=long,2=mix)\n"
    "64           swapping threshold\n"
    "0            L1 in (0=transposed,1=no-transposed) form\n"
    "0            U  in (0=transposed,1=no-transposed) form\n"
    "1            Equilibration (0=no,1=yes)\n"
    "8            memory alignment in double (> 0)\n"
    "##### hpcc's extra lines are not read #####\n";

START_TEST(hpl_dat_sample_reads)
{
    hpl_input_t in;
    char err[512];
    ck_assert_int_eq(hpl_dat_parse(sample, strlen(sample), "HPL.dat", 4, &in, err, sizeof err), 0);
    ck_assert_str_eq(in.outname, "HPL.out");
    ck_assert_int_eq(in.device, 6);
    ck_assert_int_eq(in.nn, 4);
    ck_assert_int_eq(in.n[3], 35);
    ck_assert_int_eq(in.nnb, 4);
    ck_assert_int_eq(in.nb[0], 1);
    ck_assert_int_eq(in.ngrid, 3);
    ck_assert_int_eq(in.p[2], 4);
    ck_assert_int_eq(in.q[1], 4);
    ck_assert(in.threshold == 16.0);
    ck_assert_int_eq(in.npfact, 3);
    ck_assert_int_eq(in.nbmin[1], 4);
    ck_assert_int_eq(in.ndiv[0], 2);
    ck_assert_int_eq(in.rfact[2], 2);
    ck_assert_int_eq(in.bcast[0], 0);
    ck_assert_int_eq(in.depth[0], 0);
    ck_assert_int_eq(in.swap, 2);
    ck_assert_int_eq(in.swap_threshold, 64);
    ck_assert_int_eq(in.equil, 1);
    ck_assert_int_eq(in.align, 8);
    /* CRLF line ends read the same */
    char crlf[sizeof sample * 2];
    size_t k = 0;
    for (size_t i = 0; sample[i]; i++) {
        if (sample[i] == '\n')
            crlf[k++] = '\r';
        crlf[k++] = sample[i];
    }
    ck_assert_int_eq(hpl_dat_parse(crlf, k, "HPL.dat", 4, &in, err, sizeof err), 0);
    ck_assert_int_eq(in.n[3], 35);
    /* the grids need 4 ranks */
    ck_assert_int_eq(hpl_dat_parse(sample, strlen(sample), "HPL.dat", 3, &in, err, sizeof err), -1);
    ck_assert_str_eq(err, "HPL.dat:11: grid 1 is 2 x 2 (lines 11-12): it needs 4 ranks, the job has 3 "
                          "(run with more ranks or a smaller grid)");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("hpl_port");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, jump_ahead_matches_stepping);
    tcase_add_test(tc, entries_lie_in_half_interval);
    tcase_add_test(tc, every_grid_makes_the_same_matrix);
    tcase_add_test(tc, block_cyclic_indices);
    tcase_add_test(tc, hpl_dat_sample_reads);
    suite_add_tcase(s, tc);
    return bolt_check_run(s);
}
