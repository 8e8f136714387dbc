/* check_run.h — runs a Check suite and turns its result into an exit code. */
#ifndef BOLT_CHECK_RUN_H
#define BOLT_CHECK_RUN_H

#include <check.h>

static inline int bolt_check_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

/* ck_assert_msg for a check made on every element of a loop: Check records
 * each passing assertion's place with a write(2) on its channel, which made
 * the kernels' tests spend most of their time in the kernel (millions of
 * checks); this one costs a comparison until it fails, and reports the same
 * file, line and message then. */
#define BOLT_CHECK_EACH(cond, ...)     \
    do {                               \
        if (!(cond))                   \
            ck_abort_msg(__VA_ARGS__); \
    } while (0)

#endif
