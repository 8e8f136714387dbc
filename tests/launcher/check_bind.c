/* Unit tests: placing ranks (launcher/bind.c) on made-up machines, and the
 * CPU lists of runtime/topo.c. */
#include <check.h>

#include "tests/check_run.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/bind.h"

static struct bolt_topo t;
static struct bolt_topo_core cores[4];
static int pus[8];
static struct bind_plan p;
static char warn[512], err[256];

/* 2 NUMA nodes x 2 cores x 2 hyperthreads; core c has PUs c and c + 4. */
static void setup(void)
{
    memset(&t, 0, sizeof t);
    memset(&p, 0, sizeof p);
    t.from_hwloc = t.can_bind = 1;
    t.packages = 1;
    t.numa_nodes = 2;
    t.cores = t.cores_avail = 4;
    t.pus = t.pus_avail = 8;
    for (int c = 0; c < 4; c++) {
        cores[c] = (struct bolt_topo_core){.index = c, .numa = c / 2, .first_pu = 2 * c, .npus = 2};
        pus[2 * c] = c;
        pus[2 * c + 1] = c + 4;
    }
    t.core = cores;
    t.ncore = 4;
    t.pu = pus;
    t.npu = 8;
    snprintf(t.host, sizeof t.host, "testhost");
}

static void teardown(void)
{
    bind_plan_free(&p);
}

static const char *cpus(int rank)
{
    static char buf[128];
    return bolt_topo_cpulist(p.pus + p.slot[rank].first, p.slot[rank].npus, buf, sizeof buf);
}

static int make(int np, enum bind_to b, enum map_by m)
{
    bind_plan_free(&p);
    return bind_plan_make(&p, &t, np, b, m, warn, sizeof warn, err, sizeof err);
}

START_TEST(default_binds_cores_when_they_suffice)
{
    ck_assert_int_eq(make(4, BIND_TO_DEFAULT, MAP_BY_SLOT), 0);
    ck_assert_str_eq(warn, "");
    ck_assert_int_eq(p.bind_to, BIND_TO_CORE);
    for (int r = 0; r < 4; r++) {
        char want[32], what[32];
        snprintf(want, sizeof want, "%d,%d", r, r + 4);
        snprintf(what, sizeof what, "core %d", r);
        ck_assert_int_eq(p.slot[r].bound, 1);
        ck_assert_str_eq(cpus(r), want);
        ck_assert_str_eq(p.slot[r].what, what);
    }
}
END_TEST

START_TEST(default_leaves_oversubscribed_unbound)
{
    ck_assert_int_eq(make(5, BIND_TO_DEFAULT, MAP_BY_SLOT), 0);
    ck_assert_str_eq(warn, "");
    ck_assert_int_eq(p.bind_to, BIND_TO_NONE);
    for (int r = 0; r < 5; r++) {
        ck_assert_int_eq(p.slot[r].bound, 0);
        ck_assert_str_eq(cpus(r), "0-7");
    }
}
END_TEST

START_TEST(core_oversubscribed_warns_and_wraps)
{
    ck_assert_int_eq(make(6, BIND_TO_CORE, MAP_BY_CORE), 0);
    ck_assert_ptr_nonnull(strstr(warn, "6 ranks on the 4 cores of testhost"));
    ck_assert_str_eq(cpus(4), "0,4");
    ck_assert_str_eq(cpus(5), "1,5");
}
END_TEST

START_TEST(map_by_numa_round_robins)
{
    ck_assert_int_eq(make(4, BIND_TO_CORE, MAP_BY_NUMA), 0);
    ck_assert_str_eq(p.slot[0].what, "core 0");
    ck_assert_str_eq(p.slot[1].what, "core 2");
    ck_assert_str_eq(p.slot[2].what, "core 1");
    ck_assert_str_eq(p.slot[3].what, "core 3");
}
END_TEST

START_TEST(bind_to_numa)
{
    ck_assert_int_eq(make(2, BIND_TO_NUMA, MAP_BY_SLOT), 0);
    ck_assert_str_eq(p.slot[0].what, "NUMA node 0");
    ck_assert_str_eq(p.slot[1].what, "NUMA node 0"); /* core 1 is on node 0 */
    ck_assert_str_eq(cpus(1), "0-1,4-5");
    ck_assert_int_eq(make(2, BIND_TO_NUMA, MAP_BY_NUMA), 0);
    ck_assert_str_eq(p.slot[1].what, "NUMA node 1");
    ck_assert_str_eq(cpus(1), "2-3,6-7");
}
END_TEST

START_TEST(no_hwloc_warns_once_and_runs_unbound)
{
    t.from_hwloc = t.can_bind = 0;
    t.ncore = t.npu = 0;
    t.core = NULL;
    t.pu = NULL;
    ck_assert_int_eq(make(2, BIND_TO_CORE, MAP_BY_SLOT), 0);
    ck_assert_ptr_nonnull(strstr(warn, "boltrun: warning: --bind-to core: this Bolt was built without hwloc"));
    ck_assert_ptr_nonnull(strstr(warn, "the ranks run unbound"));
    ck_assert_int_eq(p.bind_to, BIND_TO_NONE);
    ck_assert_int_eq(p.slot[1].bound, 0);
    ck_assert_int_eq(make(2, BIND_TO_DEFAULT, MAP_BY_SLOT), 0);
    ck_assert_str_eq(warn, "");
    ck_assert_int_eq(make(2, BIND_TO_NONE, MAP_BY_SLOT), 0);
    ck_assert_str_eq(warn, "");
}
END_TEST

START_TEST(binding_unsupported_warns)
{
    t.can_bind = 0; /* macOS: hwloc has the topology, the OS has no binding */
    ck_assert_int_eq(make(2, BIND_TO_NUMA, MAP_BY_SLOT), 0);
    ck_assert_ptr_nonnull(strstr(warn, "--bind-to numa: this host does not let processes bind"));
    ck_assert_int_eq(p.slot[0].bound, 0);
    ck_assert_int_eq(p.slot[0].hint, 1);
    ck_assert_int_eq(make(2, BIND_TO_NONE, MAP_BY_SLOT), 0);
    ck_assert_int_eq(p.slot[0].hint, 0);
}
END_TEST

START_TEST(report_lines)
{
    char buf[1024] = "";
    FILE *f = fmemopen(buf, sizeof buf, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(make(2, BIND_TO_CORE, MAP_BY_SLOT), 0);
    bind_plan_report(f, &p, "testhost");
    ck_assert_int_eq(make(1, BIND_TO_NONE, MAP_BY_SLOT), 0);
    bind_plan_report(f, &p, "testhost");
    fclose(f);
    ck_assert_str_eq(buf, "boltrun: rank 0 on testhost bound to core 0 (PUs 0,4)\n"
                          "boltrun: rank 1 on testhost bound to core 1 (PUs 1,5)\n"
                          "boltrun: rank 0 on testhost not bound (PUs 0-7)\n");
}
END_TEST

START_TEST(cpulists)
{
    char buf[64];
    int a[] = {9, 0, 3, 2, 4};
    ck_assert_str_eq(bolt_topo_cpulist(a, 5, buf, sizeof buf), "0,2-4,9");
    ck_assert_str_eq(bolt_topo_cpulist(a, 1, buf, sizeof buf), "9");
    ck_assert_str_eq(bolt_topo_cpulist(a, 0, buf, sizeof buf), "");
    ck_assert_str_eq(bolt_topo_cpulist(a, 5, buf, 4), "0,2"); /* truncated, terminated */
}
END_TEST

int main(void)
{
    Suite *s = suite_create("boltrun binding");
    TCase *tc = tcase_create("plan");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, default_binds_cores_when_they_suffice);
    tcase_add_test(tc, default_leaves_oversubscribed_unbound);
    tcase_add_test(tc, core_oversubscribed_warns_and_wraps);
    tcase_add_test(tc, map_by_numa_round_robins);
    tcase_add_test(tc, bind_to_numa);
    tcase_add_test(tc, no_hwloc_warns_once_and_runs_unbound);
    tcase_add_test(tc, binding_unsupported_warns);
    tcase_add_test(tc, report_lines);
    tcase_add_test(tc, cpulists);
    suite_add_tcase(s, tc);
    return bolt_check_run(s);
}
