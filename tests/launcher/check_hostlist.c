/* Unit tests: --host / --hostfile parsing and placement (launcher/hostlist.c),
 * the multi-host options (launcher/args.c), and the boltrun <-> bolt-hostd
 * start message (launcher/chan_wire.c). */
#include <check.h>

#include "tests/check_run.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher/args.h"
#include "launcher/chan_wire.h"
#include "launcher/hostlist.h"
#include "runtime/kvs_wire.h"

static char err[512];

START_TEST(spec_forms)
{
    struct hostlist l;
    hostlist_init(&l);
    ck_assert_int_eq(hostlist_add_spec(&l, "h1:2,h2:2,node-3.lan,h1", err, sizeof err), 0);
    ck_assert_int_eq(l.n, 3);
    ck_assert_str_eq(l.h[0].name, "h1");
    ck_assert_int_eq(l.h[0].slots, 3); /* named twice: the sum */
    ck_assert_int_eq(l.h[2].slots, 1);
    ck_assert_int_eq(l.total_slots, 6);
    ck_assert_int_eq(hostlist_add_spec(&l, "h1:0", err, sizeof err), -1);
    ck_assert_str_eq(err, "--host: 'h1:0': the slot count after ':' must be a positive integer");
    ck_assert_int_eq(hostlist_add_spec(&l, "a,,b", err, sizeof err), -1);
    ck_assert_int_eq(hostlist_add_spec(&l, "a b", err, sizeof err), -1);
    ck_assert_int_eq(hostlist_add_spec(&l, "h:2x", err, sizeof err), -1);
    ck_assert_int_eq(hostlist_add_spec(&l, "", err, sizeof err), -1);
    hostlist_free(&l);
}
END_TEST

START_TEST(hostfile_text)
{
    struct hostlist l;
    hostlist_init(&l);
    const char *text = "# the cluster\n"
                       "\n"
                       "h1 slots=2\n"
                       "  h2\tslots=4   # big one\n"
                       "h3 slots=1 max_slots=8\r\n"
                       "h1 slots=1\n";
    ck_assert_int_eq(hostlist_add_text(&l, text, "hf", err, sizeof err), 0);
    ck_assert_int_eq(l.n, 3);
    ck_assert_int_eq(l.h[0].slots, 3);
    ck_assert_int_eq(l.h[1].slots, 4);
    ck_assert_int_eq(l.h[2].slots, 1);
    hostlist_free(&l);
    hostlist_init(&l);
    ck_assert_int_eq(hostlist_add_text(&l, "h1 slots=2\nh2 slots=x\n", "hf", err, sizeof err), -1);
    ck_assert_str_eq(err, "hf:2: slots= expects a positive integer, got 'x'");
    ck_assert_int_eq(hostlist_add_text(&l, "h1\n\n#\nh2 cpus=3\n", "hf", err, sizeof err), -1);
    ck_assert_str_eq(err, "hf:4: unknown field 'cpus=3' (expected slots=N)");
    ck_assert_int_eq(hostlist_add_text(&l, "h$1\n", "x", err, sizeof err), -1);
    ck_assert_str_eq(err, "x:1: 'h$1' is not a host name");
    hostlist_free(&l);
}
END_TEST

START_TEST(hostfile_file)
{
    struct hostlist l;
    hostlist_init(&l);
    char path[] = "/tmp/check_hostlist.XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, "a slots=2\nb\n", 12), 12);
    close(fd);
    ck_assert_int_eq(hostlist_add_file(&l, path, err, sizeof err), 0);
    ck_assert_int_eq(l.total_slots, 3);
    unlink(path);
    ck_assert_int_eq(hostlist_add_file(&l, path, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "cannot open hostfile"));
    hostlist_free(&l);
}
END_TEST

START_TEST(placement)
{
    struct hostlist l;
    hostlist_init(&l);
    ck_assert_int_eq(hostlist_add_spec(&l, "a:2,b:2,c:1", err, sizeof err), 0);
    ck_assert_int_eq(hostlist_place(&l, 0, 0, err, sizeof err), 0); /* one per slot */
    ck_assert_int_eq(l.np, 5);
    int by_slot[] = {0, 0, 1, 1, 2};
    for (int r = 0; r < 5; r++)
        ck_assert_int_eq(l.host_of[r], by_slot[r]);
    ck_assert_int_eq(hostlist_place(&l, 5, 1, err, sizeof err), 0);
    int by_node[] = {0, 1, 2, 0, 1};
    for (int r = 0; r < 5; r++)
        ck_assert_int_eq(l.host_of[r], by_node[r]);
    ck_assert_int_eq(l.h[0].nranks, 2);
    ck_assert_int_eq(l.h[0].ranks[1], 3);
    ck_assert_int_eq(hostlist_place(&l, 3, 0, err, sizeof err), 0);
    ck_assert_int_eq(l.h[2].nranks, 0);
    ck_assert_int_eq(hostlist_place(&l, 6, 0, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "more than the 5 slot(s)"));
    hostlist_free(&l);
}
END_TEST

START_TEST(args_multi)
{
    struct boltrun_args a;
    char *v1[] = {"boltrun", "--host", "h1:2,h2:2", "--map-by", "node", "--launch-agent", "ssh -p 2222",
                  "prog", NULL};
    ck_assert_int_eq(boltrun_parse_args(8, v1, &a, err, sizeof err), 0);
    ck_assert_str_eq(a.host_spec, "h1:2,h2:2");
    ck_assert_int_eq(a.map_by, MAP_BY_NODE);
    ck_assert_str_eq(a.launch_agent, "ssh -p 2222");
    ck_assert_int_eq(a.np_given, 0);
    boltrun_args_free(&a);
    char *v2[] = {"boltrun", "-H", "x", "--hostfile=hf", "--stdin", "3", "prog", NULL};
    ck_assert_int_eq(boltrun_parse_args(7, v2, &a, err, sizeof err), 0); /* rank 3 checked once placed */
    ck_assert_str_eq(a.hostfile, "hf");
    boltrun_args_free(&a);
    char *v3[] = {"boltrun", "--hostfile", "", "prog", NULL};
    ck_assert_int_eq(boltrun_parse_args(4, v3, &a, err, sizeof err), 2);
    boltrun_args_free(&a);
}
END_TEST

START_TEST(start_roundtrip)
{
    uint8_t ranks[8];
    bolt_kvs_put_u32(ranks, 1);
    bolt_kvs_put_u32(ranks + 4, 5);
    const char argv_blob[] = "prog\0a b\0it's \"quoted\"";
    const char env_blob[] = "X=1 2\0BOLT_TIMEOUT=5";
    struct chan_start s = {.host = "h2", .size = 8, .nlocal = 2, .ranks_be = ranks, .job_id = "j",
                           .cwd = "/tmp", .stdin_rank = UINT32_MAX, .argc = 3, .argv_blob = argv_blob,
                           .argv_len = sizeof argv_blob, .nenv = 2, .env_blob = env_blob,
                           .env_len = sizeof env_blob};
    memset(s.secret, 7, sizeof s.secret);
    struct chan_buf b = {0};
    chan_start_encode(&b, &s);
    struct chan_start d;
    const char *why = NULL;
    ck_assert_int_eq(chan_start_decode(b.p, b.len, &d, &why), 0);
    ck_assert_str_eq(d.host, "h2");
    ck_assert_int_eq(d.nlocal, 2);
    ck_assert_int_eq(bolt_kvs_get_u32(d.ranks_be + 4), 5);
    ck_assert_int_eq(d.argc, 3);
    ck_assert_mem_eq(d.argv_blob, argv_blob, sizeof argv_blob);
    ck_assert_int_eq(d.secret[31], 7);
    for (size_t cut = 0; cut < b.len; cut++) /* every truncation is refused */
        ck_assert_int_eq(chan_start_decode(b.p, cut, &d, &why), -1);
    b.p[b.len - 1] = 'x'; /* env blob no longer NUL-terminated */
    ck_assert_int_eq(chan_start_decode(b.p, b.len, &d, &why), -1);
    chan_buf_free(&b);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("boltrun hosts");
    TCase *tc = tcase_create("hostlist");
    tcase_add_test(tc, spec_forms);
    tcase_add_test(tc, hostfile_text);
    tcase_add_test(tc, hostfile_file);
    tcase_add_test(tc, placement);
    tcase_add_test(tc, args_multi);
    tcase_add_test(tc, start_roundtrip);
    suite_add_tcase(s, tc);
    return bolt_check_run(s);
}
