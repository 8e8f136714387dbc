/* The matching engine keeps MPI's order: the first posted receive that fits
 * an arriving envelope takes it, and a new receive takes the oldest fitting
 * unexpected message; wildcards match anything of their field. */
#include <check.h>
#include "tests/check_run.h"
#include <stdlib.h>
#include <string.h>

#include "runtime/match.h"

static struct bolt_request *recv_req(uint32_t ctx, int src, int tag)
{
    struct bolt_request *r = bolt_req_new(BOLT_REQ_RECV);
    r->ctx = ctx;
    r->peer = src;
    r->tag = tag;
    return r;
}

static struct bolt_unexp *msg(uint32_t ctx, int src, int tag)
{
    struct bolt_unexp *u = calloc(1, sizeof *u);
    u->kind = BOLT_UNEXP_EAGER;
    u->ctx = ctx;
    u->src = src;
    u->tag = tag;
    u->arrived = 1;
    return u;
}

START_TEST(posted_receives_match_in_post_order)
{
    struct bolt_match m = {0};
    struct bolt_request *a = recv_req(0, BOLT_ANY_SOURCE, 5), *b = recv_req(0, 1, 5),
                        *c = recv_req(0, 1, BOLT_ANY_TAG);
    bolt_match_post(&m, a);
    bolt_match_post(&m, b);
    bolt_match_post(&m, c);
    ck_assert_ptr_eq(bolt_match_take_posted(&m, 0, 1, 5), a);
    ck_assert_ptr_eq(bolt_match_take_posted(&m, 0, 1, 5), b);
    ck_assert_ptr_eq(bolt_match_take_posted(&m, 0, 1, 5), c);
    ck_assert_ptr_null(bolt_match_take_posted(&m, 0, 1, 5));
    bolt_req_release(a);
    bolt_req_release(b);
    bolt_req_release(c);
}
END_TEST

START_TEST(context_separates_communicators)
{
    struct bolt_match m = {0};
    struct bolt_request *a = recv_req(4, BOLT_ANY_SOURCE, BOLT_ANY_TAG);
    bolt_match_post(&m, a);
    ck_assert_ptr_null(bolt_match_take_posted(&m, 0, 0, 0));
    ck_assert_ptr_null(bolt_match_take_posted(&m, 5, 0, 0));
    ck_assert_ptr_eq(bolt_match_take_posted(&m, 4, 0, 0), a);
    bolt_req_release(a);
}
END_TEST

START_TEST(unexpected_messages_match_oldest_first)
{
    struct bolt_match m = {0};
    struct bolt_unexp *x = msg(0, 2, 7), *y = msg(0, 3, 7), *z = msg(0, 2, 8);
    bolt_match_add_unexp(&m, x);
    bolt_match_add_unexp(&m, y);
    bolt_match_add_unexp(&m, z);
    ck_assert_ptr_eq(bolt_match_find_unexp(&m, 0, BOLT_ANY_SOURCE, BOLT_ANY_TAG), x);
    ck_assert_ptr_eq(bolt_match_find_unexp(&m, 0, 3, BOLT_ANY_TAG), y);
    ck_assert_ptr_eq(bolt_match_find_unexp(&m, 0, BOLT_ANY_SOURCE, 8), z);
    ck_assert_ptr_null(bolt_match_find_unexp(&m, 0, 4, BOLT_ANY_TAG));
    bolt_match_remove_unexp(&m, x);
    ck_assert_ptr_eq(bolt_match_find_unexp(&m, 0, 2, BOLT_ANY_TAG), z);
    free(x);
    bolt_match_free_all(&m);
}
END_TEST

START_TEST(each_source_finds_its_oldest_past_other_sources_backlog)
{
    /* A rank running ahead leaves a backlog from source 0; receives from 1
     * and 2 find theirs in order, removals from the middle of either
     * source's run keep the rest in order, wildcards still take the oldest
     * of all. */
    struct bolt_match m = {0};
    struct bolt_unexp *z[300], *one[3], *two = msg(0, 2, 9);
    for (int i = 0; i < 300; i++) {
        z[i] = msg(0, 0, 100 + i);
        bolt_match_add_unexp(&m, z[i]);
        if (i == 10 || i == 150 || i == 299) {
            one[i == 10 ? 0 : i == 150 ? 1 : 2] = msg(i == 150 ? 1 : 0, 1, 7);
            bolt_match_add_unexp(&m, one[i == 10 ? 0 : i == 150 ? 1 : 2]);
        }
    }
    bolt_match_add_unexp(&m, two);
    ck_assert_ptr_eq(bolt_match_find_unexp(&m, 0, 1, 7), one[0]);
    ck_assert_ptr_eq(bolt_match_find_unexp(&m, 1, 1, BOLT_ANY_TAG), one[1]); /* its context */
    ck_assert_ptr_eq(bolt_match_find_unexp(&m, 0, 2, BOLT_ANY_TAG), two);
    ck_assert_ptr_eq(bolt_match_find_unexp(&m, 0, 0, 250), z[150]);
    ck_assert_ptr_null(bolt_match_find_unexp(&m, 0, 3, BOLT_ANY_TAG)); /* never sent */
    ck_assert_ptr_null(bolt_match_find_unexp(&m, 0, 1000, BOLT_ANY_TAG));
    bolt_match_remove_unexp(&m, one[0]);
    free(one[0]);
    ck_assert_ptr_eq(bolt_match_find_unexp(&m, 0, 1, 7), one[2]);
    bolt_match_remove_unexp(&m, z[150]);
    free(z[150]);
    ck_assert_ptr_eq(bolt_match_find_unexp(&m, 0, 0, BOLT_ANY_TAG), z[0]);
    ck_assert_ptr_null(bolt_match_find_unexp(&m, 0, 0, 250));
    ck_assert_ptr_eq(bolt_match_find_unexp(&m, 0, 0, 251), z[151]);
    bolt_match_remove_unexp(&m, z[0]);
    free(z[0]);
    ck_assert_ptr_eq(bolt_match_find_unexp(&m, 0, BOLT_ANY_SOURCE, BOLT_ANY_TAG), z[1]);
    ck_assert_ptr_eq(bolt_match_find_unexp(&m, 0, 0, BOLT_ANY_TAG), z[1]);
    bolt_match_remove_unexp(&m, two);
    free(two);
    ck_assert_ptr_null(bolt_match_find_unexp(&m, 0, 2, BOLT_ANY_TAG));
    ck_assert_ptr_eq(bolt_match_find_unexp(&m, 0, BOLT_ANY_SOURCE, 9), NULL);
    bolt_match_free_all(&m);
}
END_TEST

START_TEST(a_source_beyond_the_index_is_still_found)
{
    /* a malformed frame's huge source rank: no index grown for it, and
     * every source still matches (by walking the whole queue) */
    struct bolt_match m = {0};
    struct bolt_unexp *a = msg(0, 3, 1), *b = msg(0, 1 << 28, 1), *c = msg(0, 3, 2);
    bolt_match_add_unexp(&m, a);
    bolt_match_add_unexp(&m, b);
    bolt_match_add_unexp(&m, c);
    ck_assert_ptr_eq(bolt_match_find_unexp(&m, 0, 1 << 28, 1), b);
    ck_assert_ptr_eq(bolt_match_find_unexp(&m, 0, 3, 2), c);
    bolt_match_remove_unexp(&m, a);
    free(a);
    ck_assert_ptr_eq(bolt_match_find_unexp(&m, 0, 3, BOLT_ANY_TAG), c);
    bolt_match_free_all(&m);
    /* and the index is back once the queue was freed */
    struct bolt_unexp *d = msg(0, 5, 1);
    bolt_match_add_unexp(&m, d);
    ck_assert_int_eq(m.by_src_off, 0);
    ck_assert_ptr_eq(bolt_match_find_unexp(&m, 0, 5, 1), d);
    bolt_match_free_all(&m);
}
END_TEST

START_TEST(claimed_messages_are_skipped)
{
    /* a receive already waits for this message's payload: the next receive
     * must take the next message, not the same one */
    struct bolt_match m = {0};
    struct bolt_unexp *x = msg(0, 1, 1), *y = msg(0, 1, 1);
    struct bolt_request *r = recv_req(0, 1, 1);
    bolt_match_add_unexp(&m, x);
    bolt_match_add_unexp(&m, y);
    x->claimed = r;
    ck_assert_ptr_eq(bolt_match_find_unexp(&m, 0, 1, 1), y);
    bolt_match_free_all(&m);
    bolt_req_release(r);
}
END_TEST

START_TEST(removing_from_the_middle_keeps_the_rest_in_order)
{
    struct bolt_match m = {0};
    struct bolt_request *r[5];
    for (int i = 0; i < 5; i++) {
        r[i] = recv_req(0, 0, i);
        bolt_match_post(&m, r[i]);
    }
    bolt_match_remove_posted(&m, r[2]);
    bolt_match_remove_posted(&m, r[4]);
    bolt_match_remove_posted(&m, r[0]);
    ck_assert_ptr_eq(m.posted_head, r[1]);
    ck_assert_ptr_eq(m.posted_head->next, r[3]);
    ck_assert_ptr_eq(m.posted_tail, r[3]);
    for (int i = 0; i < 5; i++)
        bolt_req_release(r[i]);
}
END_TEST

/* Payloads too large to live inline are recycled by size class: a burst of
 * unexpected messages reuses the memory of the last burst instead of
 * faulting fresh pages in, and what is cached stays bounded. */
START_TEST(unexpected_payload_buffers_are_recycled_by_size_class)
{
    struct bolt_unexp *a = bolt_unexp_new(0), *b = bolt_unexp_new(0);
    ck_assert_int_eq(bolt_unexp_data_new(a, 10000), BOLT_OK); /* 16 KiB class */
    ck_assert_int_eq(bolt_unexp_data_new(b, 20000), BOLT_OK); /* 32 KiB class */
    void *a_data = a->data, *b_data = b->data;
    memset(a->data, 1, 10000);
    memset(b->data, 2, 20000);
    bolt_unexp_free(a);
    bolt_unexp_free(b);
    struct bolt_unexp *c = bolt_unexp_new(0), *d = bolt_unexp_new(0);
    ck_assert_int_eq(bolt_unexp_data_new(c, 16384), BOLT_OK);
    ck_assert_ptr_eq(c->data, a_data);
    ck_assert_int_eq(bolt_unexp_data_new(d, 16385), BOLT_OK);
    ck_assert_ptr_eq(d->data, b_data);
    memset(d->data, 3, 16385);
    bolt_unexp_free(c);
    bolt_unexp_free(d);
    /* 48 MiB in flight at once: all of it usable, at most 16 MiB kept. */
    enum { N = 48 };
    struct bolt_unexp *many[N];
    for (int i = 0; i < N; i++) {
        many[i] = bolt_unexp_new(0);
        ck_assert_int_eq(bolt_unexp_data_new(many[i], (size_t)1 << 20), BOLT_OK);
        memset(many[i]->data, i, (size_t)1 << 20);
    }
    for (int i = 0; i < N; i++)
        bolt_unexp_free(many[i]);
    ck_assert_uint_le(bolt_unexp_cache_bytes(), (size_t)16 << 20);
    ck_assert_uint_gt(bolt_unexp_cache_bytes(), (size_t)15 << 20);
    /* Beyond 1 MiB a payload is malloc'd and freed plainly. */
    struct bolt_unexp *e = bolt_unexp_new(0);
    ck_assert_int_eq(bolt_unexp_data_new(e, (size_t)3 << 20), BOLT_OK);
    memset(e->data, 4, (size_t)3 << 20);
    bolt_unexp_free(e);
    ck_assert_uint_le(bolt_unexp_cache_bytes(), (size_t)16 << 20);
    ck_assert_uint_gt(bolt_unexp_cache_bytes(), (size_t)15 << 20);
    bolt_unexp_cache_release();
    ck_assert_uint_eq(bolt_unexp_cache_bytes(), 0);
}
END_TEST

START_TEST(request_ids_are_not_reused_while_stale)
{
    struct bolt_request *a = bolt_req_new(BOLT_REQ_SEND);
    ck_assert_int_eq(bolt_req_register(a), BOLT_OK);
    uint64_t id = a->id;
    ck_assert_ptr_eq(bolt_req_lookup(id), a);
    bolt_req_complete(a, BOLT_OK);
    ck_assert_ptr_null(bolt_req_lookup(id));
    struct bolt_request *b = bolt_req_new(BOLT_REQ_SEND);
    ck_assert_int_eq(bolt_req_register(b), BOLT_OK);
    ck_assert_uint_ne(b->id, id); /* same slot, new generation */
    ck_assert_ptr_null(bolt_req_lookup(id));
    ck_assert_ptr_null(bolt_req_lookup(0));
    ck_assert_ptr_null(bolt_req_lookup(0xffffffffffffull));
    bolt_req_release(a);
    bolt_req_release(b);
    /* many at once: the table grows */
    struct bolt_request *many[3000];
    for (int i = 0; i < 3000; i++) {
        many[i] = bolt_req_new(BOLT_REQ_RECV);
        ck_assert_int_eq(bolt_req_register(many[i]), BOLT_OK);
    }
    for (int i = 0; i < 3000; i++)
        ck_assert_ptr_eq(bolt_req_lookup(many[i]->id), many[i]);
    for (int i = 0; i < 3000; i++)
        bolt_req_release(many[i]);
    bolt_req_table_free();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("match");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, posted_receives_match_in_post_order);
    tcase_add_test(tc, context_separates_communicators);
    tcase_add_test(tc, unexpected_messages_match_oldest_first);
    tcase_add_test(tc, claimed_messages_are_skipped);
    tcase_add_test(tc, each_source_finds_its_oldest_past_other_sources_backlog);
    tcase_add_test(tc, a_source_beyond_the_index_is_still_found);
    tcase_add_test(tc, removing_from_the_middle_keeps_the_rest_in_order);
    tcase_add_test(tc, request_ids_are_not_reused_while_stale);
    tcase_add_test(tc, unexpected_payload_buffers_are_recycled_by_size_class);
    suite_add_tcase(s, tc);
    return bolt_check_run(s);
}
