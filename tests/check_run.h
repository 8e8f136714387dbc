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

#endif
