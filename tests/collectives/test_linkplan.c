/* The collectives' plan from the job's measured links (linkplan.c) and the
 * text that carries them (runtime/linkmap.c): the ring avoids a slow or a
 * missing link when a cycle without it exists, the mesh algorithms are left
 * out unless every link is good, the model takes the slowest link each kind
 * of algorithm uses, and without links nothing changes. */
#include <check.h>
#include <stdlib.h>
#include "tests/check_run.h"

#include "collectives/coll.h"
#include "runtime/config.h"
#include "runtime/linkmap.h"

static struct coll_plan *plan_of(const char *text, int n)
{
    struct linkmap L;
    char err[512];
    int world[64];
    struct coll_plan *p;
    ck_assert_msg(linkmap_parse(&L, text, "BOLT_COLL_LINKS", err, sizeof err) == 0, "%s", err);
    ck_assert_int_le(n, 64);
    for (int r = 0; r < n; r++)
        world[r] = r;
    ck_assert_int_eq(coll_plan_build(&L, world, n, &p), BOLT_OK);
    linkmap_free(&L);
    return p;
}

static void ring_is(const struct coll_plan *p, const int *want)
{
    for (int i = 0; i < p->n; i++) {
        ck_assert_msg(p->order[i] == want[i], "ring position %d: rank %d, not %d", i, p->order[i], want[i]);
        ck_assert_int_eq(p->pos[p->order[i]], i);
    }
}

#define GOOD "30/0.8"
START_TEST(ring_avoids_slow_link)
{
    /* 4 hosts, 2 ranks each; h2-h3 (pair 1,2) slow: rank order would use it. */
    struct coll_plan *p = plan_of("1 hosts=h1,h2,h3,h4 ranks=0*2,1*2,2*2,3*2 links=" GOOD "," GOOD "," GOOD
                                  ",90/8/slow," GOOD "," GOOD, 8);
    ck_assert_ptr_nonnull(p);
    static const int want[] = {0, 1, 2, 3, 6, 7, 4, 5}; /* h1 h2 h4 h3 */
    ring_is(p, want);
    ck_assert_int_eq(p->mesh_ok, 0);
    ck_assert_int_eq(p->ring_complete, 1);
    ck_assert_double_eq(p->beta_ring_ns, 0.8);
    ck_assert_double_eq(p->alpha_all_us, 90);
    ck_assert_double_eq(p->beta_all_ns, 8);
    /* The mesh algorithms are left out at every size. */
    for (size_t b = 8; b <= (16u << 20); b *= 8) {
        int ar = coll_select_model(COLL_ALLREDUCE, b, 8, 1, p), bc = coll_select_model(COLL_BCAST, b, 8, 1, p);
        ck_assert_str_ne(coll_algo_name(COLL_ALLREDUCE, ar), "oneshot");
        ck_assert_str_ne(coll_algo_name(COLL_ALLREDUCE, ar), "mesh");
        ck_assert_str_ne(coll_algo_name(COLL_BCAST, bc), "flat");
    }
    /* Recursive doubling's partners never cross h2-h3 (two ranks a host
     * in rank order): costed on the good links, so its all-reduce and
     * all-gather and Rabenseifner's stay candidates at every size. */
    ck_assert_double_eq(p->alpha_rd_us, 30);
    ck_assert_double_eq(p->beta_rd_ns, 0.8);
    ck_assert_str_eq(coll_algo_name(COLL_ALLREDUCE, coll_select_model(COLL_ALLREDUCE, 8, 8, 1, p)), "rd");
    ck_assert_str_eq(coll_algo_name(COLL_ALLGATHER, coll_select_model(COLL_ALLGATHER, 1u << 20, 8, 1, p)), "rd");
    ck_assert_str_eq(coll_algo_name(COLL_ALLREDUCE, coll_select_model(COLL_ALLREDUCE, 16u << 20, 8, 1, p)),
                     "rabenseifner");
    free(p);
    /* One rank a host: partners 0-1 and 0-2 cross h1-h2 and h1-h3; h1-h2
     * slow then slows recursive doubling, and the ring (h1 h3 h2 h4 ...
     * without it) takes the large all-gathers. */
    p = plan_of("1 hosts=h1,h2,h3,h4 ranks=0,1,2,3 links=90/8/slow," GOOD "," GOOD "," GOOD "," GOOD "," GOOD, 4);
    ck_assert_double_eq(p->alpha_rd_us, 90);
    ck_assert_double_eq(p->beta_rd_ns, 8);
    ck_assert_double_eq(p->beta_ring_ns, 0.8);
    ck_assert_str_eq(coll_algo_name(COLL_ALLGATHER, coll_select_model(COLL_ALLGATHER, 1u << 20, 4, 1, p)), "ring");
    free(p);
    /* All good: rank order, the mesh on. A further message costs its share
     * of the measured step (o scaled by alpha, 30 us against the fitted 4):
     * small all-reduces by recursive doubling, as without a calibration,
     * the mesh all-reduce where its bytes win. */
    p = plan_of("1 hosts=h1,h2,h3,h4 ranks=0*2,1*2,2*2,3*2 links=" GOOD "," GOOD "," GOOD "," GOOD "," GOOD "," GOOD,
                8);
    static const int ident[] = {0, 1, 2, 3, 4, 5, 6, 7};
    ring_is(p, ident);
    ck_assert_int_eq(p->mesh_ok, 1);
    ck_assert_str_eq(coll_algo_name(COLL_ALLREDUCE, coll_select_model(COLL_ALLREDUCE, 8, 8, 1, p)), "rd");
    ck_assert_str_eq(coll_algo_name(COLL_BCAST, coll_select_model(COLL_BCAST, 8, 8, 1, p)), "binomial");
    ck_assert_str_eq(coll_algo_name(COLL_ALLREDUCE, coll_select_model(COLL_ALLREDUCE, 16u << 20, 8, 1, p)), "mesh");
    free(p);
}
END_TEST

START_TEST(alike_links_alike)
{
    /* Six good cables measured apart (0.3-0.9 ns/B, 9-15 us, as identical
     * veth pairs measure on a busy machine): each counts as the slowest
     * good one, so the ring, recursive doubling and any pair cost the same
     * and recursive doubling's fewer steps win, as without a calibration. */
    struct coll_plan *p = plan_of("1 hosts=h1,h2,h3,h4 ranks=0*2,1*2,2*2,3*2 links=9/0.38,9/0.39,15/0.42,9/0.87,"
                                  "15/0.4,9/0.51",
                                  8);
    ck_assert_int_eq(p->mesh_ok, 1);
    ck_assert_double_eq(p->alpha_ring_us, 15);
    ck_assert_double_eq(p->beta_ring_ns, 0.87);
    ck_assert_double_eq(p->alpha_rd_us, 15);
    ck_assert_double_eq(p->beta_rd_ns, 0.87);
    ck_assert_double_eq(p->alpha_all_us, 15);
    ck_assert_double_eq(p->beta_all_ns, 0.87);
    ck_assert_str_eq(coll_algo_name(COLL_ALLGATHER, coll_select_model(COLL_ALLGATHER, 256u << 10, 8, 1, p)), "rd");
    free(p);
}
END_TEST

START_TEST(ring_wiring)
{
    /* Cabled as a ring h1-h3-h2-h4-h1: the diagonals h1-h2 and h3-h4 have
     * no link. Ranks placed round-robin (h1 h2 h3 h4 h1 ...). */
    struct coll_plan *p = plan_of("1 hosts=h1,h2,h3,h4 ranks=0,1,2,3,0,1,2,3 links=none," GOOD "," GOOD "," GOOD
                                  "," GOOD ",none", 8);
    static const int want[] = {0, 4, 2, 6, 1, 5, 3, 7}; /* h1 h3 h2 h4 */
    ring_is(p, want);
    ck_assert_int_eq(p->mesh_ok, 0);
    ck_assert_int_eq(p->ring_complete, 1);
    free(p);
    /* No cycle avoids the missing link of 3 hosts: the ring is incomplete
     * and costed at the slowest link. */
    p = plan_of("1 hosts=a,b,c ranks=0,1,2 links=none,10/1,10/2", 3);
    ck_assert_int_eq(p->ring_complete, 0);
    ck_assert_double_eq(p->beta_ring_ns, 2);
    free(p);
    /* No link measured at all: the settings' alpha and beta (4 us, 350 ns per KiB). */
    p = plan_of("1 hosts=a,b ranks=0,1 links=none", 2);
    ck_assert_int_eq(p->mesh_ok, 0);
    ck_assert_double_eq(p->alpha_all_us, 4);
    ck_assert_double_eq(p->beta_all_ns, 350.0 / 1024);
    ck_assert_double_eq(p->beta_ring_ns, 350.0 / 1024);
    free(p);
}
END_TEST

START_TEST(no_plan)
{
    struct coll_plan *p = (struct coll_plan *)1;
    int world[4] = {0, 1, 2, 3};
    ck_assert_int_eq(coll_plan_build(NULL, world, 4, &p), BOLT_OK);
    ck_assert_ptr_null(p); /* without links: rank order, the settings' model */
    p = plan_of("1 hosts=h1,h2 ranks=0*2,1*2 links=30/0.8", 2); /* ranks 0 and 1: one host */
    ck_assert_ptr_null(p);
}
END_TEST

START_TEST(text_errors)
{
    struct linkmap L;
    char e[512];
    ck_assert_int_eq(linkmap_parse(&L, "2 hosts=a", "V", e, sizeof e), -1);
    ck_assert_str_eq(e, "V: not a link map of format 1 (boltrun --calibration sets it; unset it or run through boltrun)");
    ck_assert_int_eq(linkmap_parse(&L, "1 hosts=a,b ranks=0,1", "V", e, sizeof e), -1);
    ck_assert_str_eq(e, "V: needs hosts=, ranks= and links=");
    ck_assert_int_eq(linkmap_parse(&L, "1 hosts=a,b ranks=0,2 links=none", "V", e, sizeof e), -1);
    ck_assert_str_eq(e, "V: ranks= item '2' is not HOST or HOST*COUNT with HOST below 2");
    ck_assert_int_eq(linkmap_parse(&L, "1 hosts=a,b,c ranks=0,1,2 links=1/2,none", "V", e, sizeof e), -1);
    ck_assert_str_eq(e, "V: links= has no item for hosts 1 and 2 (it needs 3)");
    ck_assert_int_eq(linkmap_parse(&L, "1 hosts=a,b ranks=0,1 links=1/fast", "V", e, sizeof e), -1);
    ck_assert_str_eq(e, "V: links= item 1 (hosts 0 and 1) is not ALPHA_US/BETA_NS[/slow] or none");
    ck_assert_int_eq(linkmap_parse(&L, "1 hosts=a,b ranks=0,1 links=1/2,3/4", "V", e, sizeof e), -1);
    ck_assert_str_eq(e, "V: links= has more items than the 1 pairs of 2 hosts");
    ck_assert_int_eq(linkmap_parse(&L, "1 hosts=a,b ranks=0*3,1 links=1/2/slow future=1", "V", e, sizeof e), 0);
    ck_assert_int_eq(L.nrank, 4);
    ck_assert_int_eq(L.host_of[2], 0);
    ck_assert_int_eq(L.state[1], LINK_SLOW);
    char *t;
    ck_assert_int_eq(linkmap_format(&L, &t), 0);
    ck_assert_str_eq(t, "1 hosts=a,b ranks=0*3,1 links=1/2/slow");
    free(t);
    linkmap_free(&L);
}
END_TEST

int main(void)
{
    /* the defaults: the expectations are computed from them */
    unsetenv("BOLT_COLL_ALPHA_US");
    unsetenv("BOLT_COLL_BETA_NS_PER_KB");
    unsetenv("BOLT_COLL_SEGMENT");
    unsetenv("BOLT_ALLREDUCE_ALGO");
    bolt_config_load();
    Suite *s = suite_create("link plan");
    TCase *tc = tcase_create("plan");
    tcase_add_test(tc, ring_avoids_slow_link);
    tcase_add_test(tc, alike_links_alike);
    tcase_add_test(tc, ring_wiring);
    tcase_add_test(tc, no_plan);
    tcase_add_test(tc, text_errors);
    suite_add_tcase(s, tc);
    return bolt_check_run(s);
}
