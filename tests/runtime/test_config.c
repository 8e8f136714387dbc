/* BOLT_* settings: every declared default parses, values are checked, and a
 * bad value is an error naming the variable. */
#include <check.h>
#include "tests/check_run.h"
#include <stdlib.h>
#include <string.h>

#include "bolt.h"
#include "runtime/config.h"

START_TEST(every_default_parses)
{
    for (int i = 0; i < BOLT_P_COUNT; i++) {
        long long iv;
        double dv;
        const struct bolt_param_info *p = bolt_param_info(i);
        ck_assert_ptr_nonnull(p);
        ck_assert_msg(strncmp(p->env, "BOLT_", 5) == 0, "%s", p->env);
        ck_assert_msg(strlen(p->help) > 20, "%s needs a real description", p->env);
        ck_assert_int_eq(bolt_param_parse(i, p->def, &iv, &dv), BOLT_OK);
    }
}
END_TEST

START_TEST(sizes_take_suffixes)
{
    long long v;
    double d;
    ck_assert_int_eq(bolt_param_parse(BOLT_P_TCP_EAGER_LIMIT, "64K", &v, &d), BOLT_OK);
    ck_assert_int_eq(v, 65536);
    ck_assert_int_eq(bolt_param_parse(BOLT_P_TCP_EAGER_LIMIT, "2MiB", &v, &d), BOLT_OK);
    ck_assert_int_eq(v, 2 << 20);
    ck_assert_int_eq(bolt_param_parse(BOLT_P_TCP_EAGER_LIMIT, "1g", &v, &d), BOLT_OK);
    ck_assert_int_eq(v, 1 << 30);
    ck_assert_int_eq(bolt_param_parse(BOLT_P_TCP_EAGER_LIMIT, "123", &v, &d), BOLT_OK);
    ck_assert_int_eq(v, 123);
    ck_assert_int_eq(bolt_param_parse(BOLT_P_TCP_EAGER_LIMIT, "12X", &v, &d), BOLT_ERR_CONFIG);
    ck_assert_int_eq(bolt_param_parse(BOLT_P_TCP_EAGER_LIMIT, "-4", &v, &d), BOLT_ERR_CONFIG);
    ck_assert_int_eq(bolt_param_parse(BOLT_P_TCP_EAGER_LIMIT, "", &v, &d), BOLT_ERR_CONFIG);
}
END_TEST

START_TEST(bad_values_name_the_variable)
{
    setenv("BOLT_TIMEOUT", "soon", 1);
    ck_assert_int_eq(bolt_config_load(), BOLT_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(bolt_error_message(), "BOLT_TIMEOUT='soon'"));
    setenv("BOLT_TIMEOUT", "2.5", 1);
    setenv("BOLT_TCP_CONNS", "three", 1);
    ck_assert_int_eq(bolt_config_load(), BOLT_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(bolt_error_message(), "BOLT_TCP_CONNS"));
    setenv("BOLT_TCP_CONNS", "3", 1);
    ck_assert_int_eq(bolt_config_load(), BOLT_OK);
    ck_assert(bolt_param_double(BOLT_P_TIMEOUT) == 2.5);
    ck_assert_int_eq(bolt_param_int(BOLT_P_TCP_CONNS), 3);
    unsetenv("BOLT_TIMEOUT");
    unsetenv("BOLT_TCP_CONNS");
    ck_assert_int_eq(bolt_config_load(), BOLT_OK);
    ck_assert(bolt_param_double(BOLT_P_TIMEOUT) == 30); /* the default */
}
END_TEST

/* bolt_param_set (the MPI tools interface's writes): checked like the
 * environment, and it stays over the environment through later loads. */
START_TEST(set_values_win_over_the_environment)
{
    setenv("BOLT_TCP_CONNS", "3", 1);
    ck_assert_int_eq(bolt_param_set(BOLT_P_TCP_CONNS, "many"), BOLT_ERR_CONFIG);
    ck_assert_int_eq(bolt_param_set(BOLT_P_TCP_CONNS, "5"), BOLT_OK);
    ck_assert_int_eq(bolt_param_int(BOLT_P_TCP_CONNS), 5);
    ck_assert_int_eq(bolt_config_load(), BOLT_OK);
    ck_assert_int_eq(bolt_param_int(BOLT_P_TCP_CONNS), 5);
    ck_assert_int_eq(bolt_param_set(BOLT_P_TRANSPORTS, ""), BOLT_OK); /* empty is a value too */
    ck_assert_int_eq(bolt_config_load(), BOLT_OK);
    ck_assert_str_eq(bolt_param_string(BOLT_P_TRANSPORTS), "");
    unsetenv("BOLT_TCP_CONNS");
}
END_TEST

START_TEST(every_error_code_has_a_name)
{
    for (int c = 0; c > BOLT_ERR_LAST; c--) {
        ck_assert_ptr_nonnull(bolt_strerror(c));
        ck_assert_str_ne(bolt_strerror(c), "unknown error code");
    }
    ck_assert_str_eq(bolt_strerror(BOLT_ERR_LAST), "unknown error code");
    ck_assert_str_eq(bolt_strerror(5), "unknown error code");
}
END_TEST

START_TEST(singleton_runs_without_boltrun)
{
    /* no BOLT_RANK: a job of one, self-sends work */
    unsetenv("BOLT_RANK");
    ck_assert_int_eq(bolt_init(NULL, NULL), BOLT_OK);
    int rank = -1, size = -1;
    ck_assert_int_eq(bolt_comm_rank(bolt_comm_world(), &rank), BOLT_OK);
    ck_assert_int_eq(bolt_comm_size(bolt_comm_world(), &size), BOLT_OK);
    ck_assert_int_eq(rank, 0);
    ck_assert_int_eq(size, 1);
    char big[200000], got[200000];
    memset(big, 7, sizeof big);
    bolt_request_t r;
    ck_assert_int_eq(bolt_isend(big, sizeof big, 0, 1, bolt_comm_world(), &r), BOLT_OK);
    bolt_status_t st;
    ck_assert_int_eq(bolt_recv(got, sizeof got, 0, 1, bolt_comm_world(), &st), BOLT_OK);
    ck_assert_int_eq(bolt_wait(&r, NULL), BOLT_OK);
    ck_assert_uint_eq(st.bytes, sizeof big);
    ck_assert_int_eq(memcmp(big, got, sizeof big), 0);
    ck_assert_int_eq(bolt_finalize(), BOLT_OK);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("config");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, every_default_parses);
    tcase_add_test(tc, sizes_take_suffixes);
    tcase_add_test(tc, bad_values_name_the_variable);
    tcase_add_test(tc, set_values_win_over_the_environment);
    tcase_add_test(tc, every_error_code_has_a_name);
    tcase_add_test(tc, singleton_runs_without_boltrun);
    suite_add_tcase(s, tc);
    return bolt_check_run(s);
}
