/* The collectives' scratch buffers (collectives/scratch.c): a buffer given
 * back is handed out again to a request it fits, the smallest that fits
 * first; what is kept never exceeds BOLT_COLL_SCRATCH bytes nor 8 buffers,
 * the least recently given back going first; a buffer larger than the
 * setting, or any with the setting 0, is freed at once; data is aligned to
 * a cache line; all is freed on release_all. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "tests/check_run.h"

#include "collectives/coll.h"
#include "runtime/config.h"

static void set_cap(const char *v)
{
    coll_scratch_release_all();
    ck_assert_int_eq(bolt_param_set(BOLT_P_COLL_SCRATCH, v), 0);
}

START_TEST(test_reused)
{
    set_cap("1M");
    char *a = coll_scratch_get(100000);
    ck_assert_ptr_nonnull(a);
    ck_assert_uint_eq((uintptr_t)a % 64, 0);
    memset(a, 7, 100000); /* all of it is ours */
    coll_scratch_put(a);
    ck_assert_uint_ge(coll_scratch_kept(), 100000);
    ck_assert_ptr_eq(coll_scratch_get(90000), a); /* a smaller request fits */
    ck_assert_uint_eq(coll_scratch_kept(), 0);
    char *c = coll_scratch_get(1000);
    ck_assert_ptr_ne(c, a); /* taken: a new one */
    coll_scratch_put(c);
    coll_scratch_put(a);
    char *b = coll_scratch_get(200000); /* too large for a: a new one */
    ck_assert_ptr_ne(b, a);
    coll_scratch_put(b);
    coll_scratch_put(NULL); /* nothing */
    coll_scratch_release_all();
    ck_assert_uint_eq(coll_scratch_kept(), 0);
}
END_TEST

START_TEST(test_smallest_fit)
{
    set_cap("8M");
    char *big = coll_scratch_get(1 << 20), *mid = coll_scratch_get(300000), *small = coll_scratch_get(70000);
    coll_scratch_put(big);
    coll_scratch_put(small);
    coll_scratch_put(mid);
    ck_assert_ptr_eq(coll_scratch_get(200000), mid);
    ck_assert_ptr_eq(coll_scratch_get(10), small);
    ck_assert_ptr_eq(coll_scratch_get(300001), big);
    coll_scratch_put(big);
    coll_scratch_put(small);
    coll_scratch_put(mid);
    coll_scratch_release_all();
}
END_TEST

START_TEST(test_bounded)
{
    set_cap("256K");
    char *a = coll_scratch_get(128 * 1024), *b = coll_scratch_get(128 * 1024), *c = coll_scratch_get(128 * 1024);
    coll_scratch_put(a);
    coll_scratch_put(b);
    ck_assert_uint_eq(coll_scratch_kept(), 256 * 1024);
    coll_scratch_put(c); /* a, the oldest, goes */
    ck_assert_uint_eq(coll_scratch_kept(), 256 * 1024);
    char *x = coll_scratch_get(1), *y = coll_scratch_get(1);
    ck_assert((x == b && y == c) || (x == c && y == b));
    coll_scratch_put(x);
    coll_scratch_put(y);
    char *huge = coll_scratch_get(300 * 1024); /* more than the setting: never kept */
    coll_scratch_put(huge);
    ck_assert_uint_eq(coll_scratch_kept(), 256 * 1024);
    /* at most 8 buffers however small */
    set_cap("64M");
    char *p[10];
    for (int i = 0; i < 10; i++)
        p[i] = coll_scratch_get(4096);
    for (int i = 0; i < 10; i++)
        coll_scratch_put(p[i]);
    ck_assert_uint_eq(coll_scratch_kept(), 8 * 4096);
    set_cap("0");
    char *z = coll_scratch_get(4096);
    ck_assert_ptr_nonnull(z);
    coll_scratch_put(z);
    ck_assert_uint_eq(coll_scratch_kept(), 0);
}
END_TEST

START_TEST(test_out_of_memory)
{
    set_cap("64M");
    ck_assert_ptr_null(coll_scratch_get(SIZE_MAX - 10)); /* its rounded size overflows */
}
END_TEST

static Suite *scratch_suite(void)
{
    Suite *s = suite_create("scratch");
    TCase *tc = tcase_create("scratch");
    tcase_add_test(tc, test_reused);
    tcase_add_test(tc, test_smallest_fit);
    tcase_add_test(tc, test_bounded);
    tcase_add_test(tc, test_out_of_memory);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return bolt_check_run(scratch_suite());
}
