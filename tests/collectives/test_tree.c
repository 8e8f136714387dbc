/* Binomial trees, both layouts: every rank below the root has one parent,
 * which lists it once among its children; the tree spans the ranks in
 * ceil(log2 n) levels. Far first crosses once between two blocks of
 * consecutive ranks; near first, the same tree with the bits of the ranks
 * reversed, crosses once between ranks placed round-robin on two cores. */
#include <check.h>
#include "tests/check_run.h"

#include "collectives/coll.h"

static int ceil_log2(int n)
{
    int k = 0;
    while ((1 << k) < n)
        k++;
    return k;
}

static void check_tree(int n, int near_first)
{
    struct coll_tree t[300];
    int listed[300] = {0}, depth[300];
    ck_assert_int_le(n, 300);
    for (int v = 0; v < n; v++)
        coll_tree_binomial(&t[v], v, n, near_first);
    ck_assert_int_eq(t[0].parent, -1);
    for (int v = 0; v < n; v++)
        for (int i = 0; i < t[v].nkids; i++) {
            int k = t[v].kid[i];
            ck_assert_msg(k > v && k < n, "n %d: %d lists %d", n, v, k);
            ck_assert_msg(t[k].parent == v, "n %d: %d lists %d, whose parent is %d", n, v, k,
                          t[k].parent);
            listed[k]++;
        }
    depth[0] = 0;
    for (int v = 1; v < n; v++) {
        ck_assert_msg(listed[v] == 1, "n %d: %d listed %d times", n, v, listed[v]);
        /* parents are smaller: their depth is known */
        ck_assert_int_lt(t[v].parent, v);
        depth[v] = depth[t[v].parent] + 1;
        ck_assert_msg(depth[v] <= ceil_log2(n), "n %d: %d at depth %d", n, v, depth[v]);
    }
}

START_TEST(both_layouts_span_every_rank_count_in_log2_levels)
{
    for (int n = 1; n <= 300; n++) {
        check_tree(n, 0);
        check_tree(n, 1);
    }
}
END_TEST

static int edges_crossing(int n, int near_first, int (*place)(int v, int n))
{
    int crossing = 0;
    for (int v = 0; v < n; v++) {
        struct coll_tree t;
        coll_tree_binomial(&t, v, n, near_first);
        for (int i = 0; i < t.nkids; i++)
            crossing += place(v, n) != place(t.kid[i], n);
    }
    return crossing;
}

static int in_blocks(int v, int n) { return v >= n / 2; }
static int round_robin(int v, int n) { (void)n; return v % 2; }

START_TEST(each_layout_crosses_once_between_halves_of_its_placement)
{
    for (int n = 2; n <= 256; n *= 2) {
        ck_assert_int_eq(edges_crossing(n, 0, in_blocks), 1);
        ck_assert_int_eq(edges_crossing(n, 1, round_robin), 1);
        /* the other way round, every level but the last crosses */
        if (n >= 4) {
            ck_assert_int_ge(edges_crossing(n, 0, round_robin), n / 2);
            ck_assert_int_ge(edges_crossing(n, 1, in_blocks), n / 2);
        }
    }
}
END_TEST

static int reverse_bits(int v, int bits)
{
    int r = 0;
    for (int i = 0; i < bits; i++)
        r |= ((v >> i) & 1) << (bits - 1 - i);
    return r;
}

START_TEST(near_first_is_far_first_with_the_bits_reversed)
{
    for (int bits = 1; bits <= 8; bits++) {
        int n = 1 << bits;
        for (int v = 0; v < n; v++) {
            struct coll_tree near, far;
            coll_tree_binomial(&near, v, n, 1);
            coll_tree_binomial(&far, reverse_bits(v, bits), n, 0);
            ck_assert_int_eq(near.parent, v ? reverse_bits(far.parent, bits) : -1);
            ck_assert_int_eq(near.nkids, far.nkids);
            for (int i = 0; i < near.nkids; i++)
                ck_assert_int_eq(near.kid[i], reverse_bits(far.kid[i], bits));
        }
    }
}
END_TEST

START_TEST(the_root_sends_first_to_the_largest_subtree_near_first)
{
    struct coll_tree t;
    coll_tree_binomial(&t, 0, 4, 1);
    ck_assert_int_eq(t.nkids, 2);
    ck_assert_int_eq(t.kid[0], 1); /* which forwards to 3 */
    ck_assert_int_eq(t.kid[1], 2);
    coll_tree_binomial(&t, 0, 4, 0);
    ck_assert_int_eq(t.kid[0], 2); /* which forwards to 3 */
    ck_assert_int_eq(t.kid[1], 1);
    coll_tree_binomial(&t, 1, 7, 1);
    ck_assert_int_eq(t.nkids, 2); /* 3 (with 7) and 5 */
    ck_assert_int_eq(t.kid[0], 3);
    ck_assert_int_eq(t.kid[1], 5);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("tree");
    TCase *tc = tcase_create("binomial");
    tcase_add_test(tc, both_layouts_span_every_rank_count_in_log2_levels);
    tcase_add_test(tc, each_layout_crosses_once_between_halves_of_its_placement);
    tcase_add_test(tc, near_first_is_far_first_with_the_bits_reversed);
    tcase_add_test(tc, the_root_sends_first_to_the_largest_subtree_near_first);
    suite_add_tcase(s, tc);
    return bolt_check_run(s);
}
