/* test_rdma_devmap.c — bolt-cluster's device map as the rdma transport reads
 * it (transport/rdma/rdma_devmap.h): pairs found by either end's GID, bad
 * records named by file:line. No device needed. */
#include <arpa/inet.h>
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/check_run.h"
#include "transport/rdma/rdma_devmap.h"

static const char map[] =
    "# written by bolt-cluster check\n"
    "bolt-devmap 1\n"
    "\n"
    "pair h1 rxe_h1_h2 ::ffff:169.254.12.1 h2 rxe_h2_h1 ::ffff:169.254.12.2\n"
    "pair h1 rxe_h1_h3 ::ffff:169.254.13.1 h3 rxe_h3_h1 ::ffff:169.254.13.2  # a comment\n"
    "later-record whatever\n";

static void gid(const char *s, uint8_t out[16])
{
    ck_assert_int_eq(inet_pton(AF_INET6, s, out), 1);
}

START_TEST(test_pairs_found_from_either_end)
{
    struct rdma_devmap m;
    char err[256];
    uint8_t a[16], b[16], c[16];
    int side = -1;
    ck_assert_int_eq(rdma_devmap_parse(&m, map, "map", err, sizeof err), 0);
    ck_assert_int_eq(m.n, 2);
    gid("::ffff:169.254.13.1", a);
    gid("::ffff:169.254.13.2", b);
    gid("::ffff:169.254.12.2", c);
    const struct rdma_devmap_pair *p = rdma_devmap_find(&m, a, b, &side);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(side, 0);
    ck_assert_int_eq(p->line, 5);
    ck_assert_str_eq(p->dev[0], "rxe_h1_h3");
    p = rdma_devmap_find(&m, b, a, &side);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(side, 1);
    ck_assert_str_eq(p->dev[side], "rxe_h3_h1");
    /* h1's device toward h3 is not paired with h2's device. */
    ck_assert_ptr_null(rdma_devmap_find(&m, a, c, &side));
    rdma_devmap_free(&m);
}
END_TEST

START_TEST(test_bad_records_named)
{
    struct rdma_devmap m;
    char err[256];
    ck_assert_int_eq(rdma_devmap_parse(&m, "bolt-devmap 1\npair h1 d1 ::1 h2 d2\n", "f", err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "f:2: a pair record is"));
    ck_assert_int_eq(rdma_devmap_parse(&m, "bolt-devmap 1\npair h1 d1 nogid h2 d2 ::2\n", "f", err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "f:2: 'nogid' is not a GID"));
    ck_assert_int_eq(rdma_devmap_parse(&m, "bolt-calibration 1\n", "f", err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "f:1: not a device map"));
    ck_assert_int_eq(rdma_devmap_parse(&m, "# nothing\n", "f", err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "f: empty"));
    ck_assert_int_eq(rdma_devmap_load(&m, "/nonexistent/devmap", err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "/nonexistent/devmap: cannot read it"));
}
END_TEST

START_TEST(test_load_from_file)
{
    char path[] = "/tmp/devmapXXXXXX", err[256];
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, map, strlen(map)), (int)strlen(map));
    close(fd);
    struct rdma_devmap m;
    ck_assert_int_eq(rdma_devmap_load(&m, path, err, sizeof err), 0);
    ck_assert_int_eq(m.n, 2);
    ck_assert_str_eq(m.pair[0].host[1], "h2");
    rdma_devmap_free(&m);
    unlink(path);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("rdma_devmap");
    TCase *tc = tcase_create("devmap");
    tcase_add_test(tc, test_pairs_found_from_either_end);
    tcase_add_test(tc, test_bad_records_named);
    tcase_add_test(tc, test_load_from_file);
    suite_add_tcase(s, tc);
    return bolt_check_run(s);
}
