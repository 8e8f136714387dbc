/* Unit tests: boltrun's argument parsing (launcher/args.c). */
#include <check.h>

#include "tests/check_run.h"
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/args.h"

static struct boltrun_args a;
static char err[512];

static char *argv_[32];

/* Parses "boltrun" followed by the given words (NULL-terminated). */
static int parse_words(const char *first, ...)
{
    va_list ap;
    int n = 0;
    argv_[n++] = "boltrun";
    va_start(ap, first);
    for (const char *w = first; w != NULL && n < 31; w = va_arg(ap, const char *))
        argv_[n++] = (char *)w;
    va_end(ap);
    argv_[n] = NULL;
    boltrun_args_free(&a);
    return boltrun_parse_args(n, argv_, &a, err, sizeof err);
}
#define PARSE(...) parse_words(__VA_ARGS__, (const char *)NULL)

static void teardown(void) { boltrun_args_free(&a); }

START_TEST(np_forms)
{
    ck_assert_int_eq(PARSE("-np", "4", "hostname"), 0);
    ck_assert_int_eq(a.np, 4);
    ck_assert_str_eq(a.prog_argv[0], "hostname");
    ck_assert_int_eq(a.prog_argc, 1);
    ck_assert_int_eq(PARSE("-n", "3", "prog"), 0);
    ck_assert_int_eq(a.np, 3);
    ck_assert_int_eq(PARSE("--np", "7", "prog"), 0);
    ck_assert_int_eq(a.np, 7);
    ck_assert_int_eq(PARSE("--np=5", "prog"), 0);
    ck_assert_int_eq(a.np, 5);
    ck_assert_int_eq(PARSE("-np=2", "prog"), 0);
    ck_assert_int_eq(a.np, 2);
    ck_assert_int_eq(PARSE("prog"), 0);
    ck_assert_int_eq(a.np, 1);
}
END_TEST

START_TEST(np_bad)
{
    ck_assert_int_eq(PARSE("-np", "abc", "prog"), 2);
    ck_assert_str_eq(err, "boltrun: -np expects a positive integer, got 'abc'");
    ck_assert_int_eq(PARSE("-np", "0", "prog"), 2);
    ck_assert_int_eq(PARSE("-np", "-3", "prog"), 2);
    ck_assert_int_eq(PARSE("-np", "4x", "prog"), 2);
    ck_assert_int_eq(PARSE("-np", "", "prog"), 2);
    ck_assert_int_eq(PARSE("-np", "99999999999999999999", "prog"), 2);
    ck_assert_int_eq(PARSE("-np", "1000000", "prog"), 2);
    ck_assert_ptr_nonnull(strstr(err, "at most"));
    ck_assert_int_eq(PARSE("-np"), 2);
    ck_assert_str_eq(err, "boltrun: -np needs a value");
}
END_TEST

START_TEST(exports)
{
    ck_assert_int_eq(PARSE("-x", "FOO", "-x", "BAR=1=2", "-x", "EMPTY=", "prog"), 0);
    ck_assert_int_eq(a.nexports, 3);
    ck_assert_str_eq(a.exports[0], "FOO");
    ck_assert_str_eq(a.exports[1], "BAR=1=2");
    ck_assert_str_eq(a.exports[2], "EMPTY=");
    ck_assert_int_eq(PARSE("-x", "1BAD", "prog"), 2);
    ck_assert_str_eq(err, "boltrun: -x expects VAR or VAR=VALUE with VAR a variable name, got '1BAD'");
    ck_assert_int_eq(PARSE("-x", "=v", "prog"), 2);
    ck_assert_int_eq(PARSE("-x", "A-B=1", "prog"), 2);
    ck_assert_int_eq(PARSE("-x"), 2);
    ck_assert_str_eq(err, "boltrun: -x needs a value");
}
END_TEST

START_TEST(tag_and_timeout)
{
    ck_assert_int_eq(PARSE("--tag-output", "--timeout", "2.5", "prog"), 0);
    ck_assert_int_eq(a.tag_output, 1);
    ck_assert(a.timeout == 2.5);
    ck_assert_str_eq(a.timeout_text, "2.5");
    ck_assert_int_eq(PARSE("--timeout=10", "prog"), 0);
    ck_assert(a.timeout == 10);
    ck_assert_int_eq(PARSE("-tag-output", "prog"), 0);
    ck_assert_int_eq(a.tag_output, 1);
    ck_assert_int_eq(PARSE("--timeout", "0", "prog"), 2);
    ck_assert_str_eq(err, "boltrun: --timeout expects a positive number of seconds, got '0'");
    ck_assert_int_eq(PARSE("--timeout", "x", "prog"), 2);
    ck_assert_int_eq(PARSE("--timeout", "-1", "prog"), 2);
    ck_assert_int_eq(PARSE("--timeout", "nan", "prog"), 2);
    ck_assert_int_eq(PARSE("--timeout", "inf", "prog"), 2);
    ck_assert_int_eq(PARSE("--tag-output=yes", "prog"), 2);
}
END_TEST

START_TEST(stdin_rank)
{
    ck_assert_int_eq(PARSE("-np", "4", "prog"), 0);
    ck_assert_int_eq(a.stdin_rank, 0);
    ck_assert_int_eq(PARSE("--stdin", "3", "-np", "4", "prog"), 0); /* checked against -np given later */
    ck_assert_int_eq(a.stdin_rank, 3);
    ck_assert_int_eq(PARSE("-np", "4", "--stdin=none", "prog"), 0);
    ck_assert_int_eq(a.stdin_rank, -1);
    ck_assert_int_eq(PARSE("-stdin", "0", "prog"), 0);
    ck_assert_int_eq(a.stdin_rank, 0);
    ck_assert_int_eq(PARSE("--stdin", "4", "-np", "4", "prog"), 2);
    ck_assert_str_eq(err, "boltrun: --stdin 4: the job has no such rank (-np 4: ranks 0 to 3)");
    ck_assert_int_eq(PARSE("--stdin", "1", "prog"), 2);
    ck_assert_int_eq(PARSE("--stdin", "-1", "prog"), 2);
    ck_assert_str_eq(err, "boltrun: --stdin expects a rank number or 'none', got '-1'");
    ck_assert_int_eq(PARSE("--stdin", "", "prog"), 2);
    ck_assert_int_eq(PARSE("--stdin", "1x", "-np", "4", "prog"), 2);
    ck_assert_int_eq(PARSE("--stdin", " 1", "-np", "4", "prog"), 2);
    ck_assert_int_eq(PARSE("--stdin", "all", "prog"), 2);
    ck_assert_int_eq(PARSE("--stdin", "99999999999999999999", "prog"), 2);
    ck_assert_int_eq(PARSE("--stdin"), 2);
    ck_assert_str_eq(err, "boltrun: --stdin needs a value");
    ck_assert_ptr_nonnull(strstr(boltrun_usage(), "--stdin none"));
}
END_TEST

START_TEST(program_args_untouched)
{
    ck_assert_int_eq(PARSE("-np", "2", "prog", "-np", "9", "--help", "-x", "--"), 0);
    ck_assert_int_eq(a.np, 2);
    ck_assert_int_eq(a.prog_argc, 6);
    ck_assert_str_eq(a.prog_argv[1], "-np");
    ck_assert_str_eq(a.prog_argv[5], "--");
    ck_assert_ptr_null(a.prog_argv[6]);
    ck_assert_int_eq(PARSE("--", "-weird-prog", "x"), 0);
    ck_assert_str_eq(a.prog_argv[0], "-weird-prog");
    ck_assert_int_eq(a.prog_argc, 2);
}
END_TEST

START_TEST(bad_input)
{
    ck_assert_int_eq(PARSE("--foo", "prog"), 2);
    ck_assert_str_eq(err, "boltrun: unknown option '--foo' (see boltrun --help)");
    ck_assert_int_eq(PARSE("-np", "2"), 2);
    ck_assert_str_eq(err, "boltrun: no program given (usage: boltrun -np N PROGRAM [ARGS...])");
    ck_assert_int_eq(PARSE("--"), 2);
    ck_assert_int_eq(PARSE("--x", "A", "prog"), 2); /* -x is single-dash only */
    ck_assert_int_eq(PARSE("-npx", "prog"), 2);
}
END_TEST

START_TEST(help_version)
{
    ck_assert_int_eq(PARSE("--help"), 0);
    ck_assert_int_eq(a.help, 1);
    ck_assert_int_eq(PARSE("-h"), 0);
    ck_assert_int_eq(a.help, 1);
    ck_assert_int_eq(PARSE("--version"), 0);
    ck_assert_int_eq(a.version, 1);
    ck_assert_ptr_nonnull(strstr(boltrun_usage(), "--tag-output"));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("boltrun args");
    TCase *tc = tcase_create("parse");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, np_forms);
    tcase_add_test(tc, np_bad);
    tcase_add_test(tc, exports);
    tcase_add_test(tc, tag_and_timeout);
    tcase_add_test(tc, stdin_rank);
    tcase_add_test(tc, program_args_untouched);
    tcase_add_test(tc, bad_input);
    tcase_add_test(tc, help_version);
    suite_add_tcase(s, tc);
    return bolt_check_run(s);
}
