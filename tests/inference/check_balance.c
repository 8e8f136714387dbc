/*
 * check_balance.c — a balanced split of tensor parallel (balance.h): the
 * window a margin gives (whole blocks, half on each side of a rank between
 * two others); ranks whose cost a unit differs end at boundaries where the
 * slowest rank's time is least among every block-aligned split within the
 * windows (found by trying them all); windows and blocks always hold; equal
 * ranks, or a difference under 3%, move nothing; a rank known to be slow
 * still gets what its window leaves it; the same numbers give the same
 * boundaries.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "inference/balance.h"
#include "tests/check_run.h"

/* The even split's boundaries of `units` in blocks over n ranks. */
static void even_split(int units, int block, int n, int *even)
{
    const int blocks = units / block;
    for (int r = 0; r < n; r++)
        even[r] = blocks * r / n * block;
    even[n] = units;
}

/* The slowest rank's time at boundaries b for costs a unit `cost`. */
static int64_t slowest(const int *b, const int64_t *cost, int n)
{
    int64_t most = 0;
    for (int r = 0; r < n; r++) {
        const int64_t t = cost[r] * (b[r + 1] - b[r]);
        most = t > most ? t : most;
    }
    return most;
}

/* The least slowest time over every block-aligned split in the windows
 * (k: the boundary being chosen). */
static int64_t best_of_all(const inf_bal_t *bal, const int64_t *cost, int *b, int k)
{
    if (k == bal->n)
        return slowest(b, cost, bal->n);
    int64_t best = INT64_MAX;
    for (int x = bal->lo[k]; x <= bal->hi[k]; x += bal->block) {
        if (x < b[k - 1])
            continue;
        b[k] = x;
        const int64_t t = best_of_all(bal, cost, b, k + 1);
        best = t < best ? t : best;
    }
    return best;
}

/* Periods where rank r's part takes cost[r] a unit of what it holds now. */
static void run_periods(inf_bal_t *bal, const int64_t *cost, int periods)
{
    int64_t ps[16];
    for (int p = 0; p < periods; p++) {
        for (int r = 0; r < bal->n; r++)
            ps[r] = cost[r] * (bal->b[r + 1] - bal->b[r]);
        inf_bal_update(bal, ps, 1);
    }
}

/* Two ranks sharing 2048 units evenly, in blocks of `block`, boundary
 * windows of 128. */
static void two_ranks(inf_bal_t *bal, int block)
{
    int even[3];
    even_split(2048, block, 2, even);
    ck_assert_int_eq(inf_bal_init(bal, 2, 2048, block, even, 128), 0);
}

START_TEST(window_is_whole_blocks_half_a_side_between_two_others)
{
    ck_assert_int_eq(inf_bal_window(2048, 32, 2, 0.125), 128); /* 1024 a rank, 1/8 of it */
    ck_assert_int_eq(inf_bal_window(2048, 32, 4, 0.25), 64);   /* 512 a rank, 1/4 of it, half a side */
    ck_assert_int_eq(inf_bal_window(2048, 256, 2, 0.125), 0);  /* under a block */
    ck_assert_int_eq(inf_bal_window(32000, 1, 2, 0.125), 2000);
    ck_assert_int_eq(inf_bal_window(2048, 32, 1, 0.125), 0);   /* one rank: nothing to balance */
    ck_assert_int_eq(inf_bal_window(2048, 32, 2, 0), 0);
    ck_assert_int_eq(inf_bal_window(2048, 32, 2, 0.9), 480);   /* held under half a share: 0.49 of 32 blocks */
}
END_TEST

START_TEST(uneven_ranks_end_where_the_slowest_is_least)
{
    /* 2, 3 and 4 ranks, blocks of 32 and of 1, costs a unit apart by up
     * to 3x, in both directions */
    const int64_t costs[][4] = {{1000, 1150, 0, 0}, {1300, 1000, 0, 0}, {1000, 3000, 0, 0}, {1000, 1100, 1300, 0},
                                {1200, 1000, 1000, 1400}, {1000, 1000, 1000, 1000}};
    const int ns[] = {2, 2, 2, 3, 4, 4};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        for (int block = 1; block <= 32; block += 31) {
            const int n = ns[i], units = 2048;
            int even[5], b[5];
            even_split(units, block, n, even);
            inf_bal_t bal;
            ck_assert_int_eq(inf_bal_init(&bal, n, units, block, even, inf_bal_window(units, block, n, 0.25)), 0);
            run_periods(&bal, costs[i], 6);
            b[0] = 0;
            b[n] = units;
            const int64_t best = best_of_all(&bal, costs[i], b, 1), got = slowest(bal.b, costs[i], n),
                          at_even = slowest(even, costs[i], n);
            /* within the 3% a move must gain to be made */
            ck_assert_msg(got * 100 <= best * 103, "case %zu, block %d: slowest %lld, best %lld", i, block, (long long)got,
                          (long long)best);
            ck_assert(got <= at_even);
            for (int k = 0; k <= n; k++) {
                ck_assert_int_ge(bal.b[k], bal.lo[k]);
                ck_assert_int_le(bal.b[k], bal.hi[k]);
                if (k > 0 && k < n)
                    ck_assert_int_eq(bal.b[k] % block, 0);
            }
            ck_assert_int_eq(bal.b[0], 0);
            ck_assert_int_eq(bal.b[n], units);
            if (costs[i][0] == costs[i][1] && n == 4) /* equal ranks stay even */
                ck_assert_int_eq(bal.moves, 0);
            else if (at_even * 100 > best * 103)
                ck_assert_int_gt(bal.moves, 0);
            inf_bal_free(&bal);
        }
}
END_TEST

START_TEST(a_gain_under_three_percent_moves_nothing)
{
    inf_bal_t bal;
    two_ranks(&bal, 1);
    /* ranks 4% apart: moving 20 units would gain 2% */
    const int64_t cost[2] = {1000, 1040};
    run_periods(&bal, cost, 20);
    ck_assert_int_eq(bal.moves, 0);
    ck_assert_int_eq(bal.b[1], 1024);
    inf_bal_free(&bal);
}
END_TEST

START_TEST(a_slow_rank_keeps_what_its_window_leaves)
{
    inf_bal_t bal;
    two_ranks(&bal, 32);
    const int64_t cost[2] = {1000, 10000};
    run_periods(&bal, cost, 4);
    ck_assert_int_eq(bal.b[1], 1024 + 128);
    /* and back when the other slows down, a quarter of the way each period */
    const int64_t later[2] = {10000, 1000};
    run_periods(&bal, later, 6);
    ck_assert_int_eq(bal.b[1], 1024 - 128);
    inf_bal_free(&bal);
}
END_TEST

START_TEST(the_same_numbers_give_the_same_boundaries)
{
    int even[4];
    even_split(3000, 32, 3, even);
    inf_bal_t a, b;
    const int w = inf_bal_window(3000, 32, 3, 0.4);
    ck_assert_int_eq(inf_bal_init(&a, 3, 3000, 32, even, w), 0);
    ck_assert_int_eq(inf_bal_init(&b, 3, 3000, 32, even, w), 0);
    const int64_t ps[][3] = {{900000, 1100000, 1000000}, {950000, 1200000, 990000}, {1000000, 1000000, 1300000}};
    for (int p = 0; p < 3; p++) {
        ck_assert_int_eq(inf_bal_update(&a, ps[p], 1), inf_bal_update(&b, ps[p], 1));
        for (int k = 0; k <= 3; k++)
            ck_assert_int_eq(a.b[k], b.b[k]);
    }
    inf_bal_free(&a);
    inf_bal_free(&b);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("inference balanced split");
    TCase *tc = tcase_create("balance");
    tcase_add_test(tc, window_is_whole_blocks_half_a_side_between_two_others);
    tcase_add_test(tc, uneven_ranks_end_where_the_slowest_is_least);
    tcase_add_test(tc, a_gain_under_three_percent_moves_nothing);
    tcase_add_test(tc, a_slow_rank_keeps_what_its_window_leaves);
    tcase_add_test(tc, the_same_numbers_give_the_same_boundaries);
    suite_add_tcase(s, tc);
    return bolt_check_run(s);
}
