/* test_rdma_flow.c — the RDMA transport's credits and sequence numbers
 * (transport/rdma/rdma_flow.h): what may be sent, when acknowledgements are
 * owed, and which arrivals are errors. No device needed. */
#include <check.h>
#include <stdint.h>

#include "tests/check_run.h"
#include "transport/rdma/rdma_flow.h"

START_TEST(test_window_keeps_one_credit_for_acks)
{
    struct rdma_flow f;
    rdma_flow_init(&f, 8);
    ck_assert_uint_eq(rdma_flow_credits(&f), 8);
    for (int i = 0; i < 7; i++) {
        ck_assert(rdma_flow_may_send(&f, 0));
        ck_assert_uint_eq(rdma_flow_sent(&f), (uint32_t)i); /* sequence numbers from 0 */
    }
    /* One receive left at the peer: only an acknowledgement may take it. */
    ck_assert(!rdma_flow_may_send(&f, 0));
    ck_assert(rdma_flow_may_send(&f, 1));
    rdma_flow_sent(&f);
    ck_assert(!rdma_flow_may_send(&f, 1));
    ck_assert_uint_eq(rdma_flow_credits(&f), 0);
    ck_assert_uint_eq(rdma_flow_unacked(&f), 8);
}
END_TEST

START_TEST(test_acks_are_cumulative_and_idempotent)
{
    struct rdma_flow f;
    rdma_flow_init(&f, 4);
    for (int i = 0; i < 4; i++)
        rdma_flow_sent(&f);
    ck_assert_int_eq(rdma_flow_ack(&f, 3), 0);
    ck_assert_uint_eq(rdma_flow_credits(&f), 3);
    /* The same count again, or an older one read late from the other queue
     * pair, changes nothing. */
    ck_assert_int_eq(rdma_flow_ack(&f, 3), 0);
    ck_assert_int_eq(rdma_flow_ack(&f, 1), 0);
    ck_assert_uint_eq(rdma_flow_credits(&f), 3);
    /* Acknowledging more than was sent is a protocol error. */
    ck_assert_int_eq(rdma_flow_ack(&f, 5), -1);
    ck_assert_int_eq(rdma_flow_ack(&f, 4), 0);
    ck_assert_uint_eq(rdma_flow_credits(&f), 4);
}
END_TEST

START_TEST(test_counters_wrap)
{
    struct rdma_flow f;
    rdma_flow_init(&f, 16);
    f.sent = f.acked = f.expect = f.consumed = f.advertised = UINT32_MAX - 2;
    for (int i = 0; i < 6; i++)
        rdma_flow_sent(&f);
    ck_assert_uint_eq(rdma_flow_unacked(&f), 6);
    ck_assert_int_eq(rdma_flow_ack(&f, 2), 0); /* past the wrap: 5 of 6 */
    ck_assert_uint_eq(rdma_flow_unacked(&f), 1);
    uint32_t lost;
    ck_assert_int_eq(rdma_flow_received(&f, UINT32_MAX - 2, &lost), 0);
    ck_assert_int_eq(rdma_flow_received(&f, UINT32_MAX - 1, &lost), 0);
    ck_assert_int_eq(rdma_flow_received(&f, UINT32_MAX, &lost), 0);
    ck_assert_int_eq(rdma_flow_received(&f, 0, &lost), 0);
}
END_TEST

START_TEST(test_a_gap_is_a_loss)
{
    struct rdma_flow f;
    rdma_flow_init(&f, 8);
    uint32_t lost = 99;
    ck_assert_int_eq(rdma_flow_received(&f, 0, &lost), 0);
    ck_assert_uint_eq(lost, 0);
    /* UC dropped messages 1 and 2. */
    ck_assert_int_eq(rdma_flow_received(&f, 3, &lost), -1);
    ck_assert_uint_eq(lost, 2);
    ck_assert_uint_eq(f.expect, 1);
}
END_TEST

START_TEST(test_acks_owed_after_half_the_window)
{
    struct rdma_flow f;
    rdma_flow_init(&f, 8);
    for (int i = 0; i < 3; i++)
        rdma_flow_consumed(&f);
    ck_assert(!rdma_flow_ack_due(&f));
    ck_assert_uint_eq(rdma_flow_unadvertised(&f), 3);
    rdma_flow_consumed(&f);
    ck_assert(rdma_flow_ack_due(&f));
    ck_assert_uint_eq(rdma_flow_advertise(&f), 4);
    ck_assert_uint_eq(rdma_flow_unadvertised(&f), 0);
    ck_assert(!rdma_flow_ack_due(&f));
}
END_TEST

/* Two sides that only ever exchange acknowledgements do not ping-pong them
 * forever: an acknowledgement-only message is owed only after half a window. */
START_TEST(test_ack_only_traffic_settles)
{
    struct rdma_flow a, b; /* a's and b's view of the a<->b control pair */
    rdma_flow_init(&a, 8);
    rdma_flow_init(&b, 8);
    int msgs = 0;
    /* b consumed 4 of a's messages: it owes an acknowledgement. */
    for (int i = 0; i < 4; i++) {
        rdma_flow_sent(&a);
        rdma_flow_consumed(&b);
    }
    for (int round = 0; round < 100; round++) {
        int moved = 0;
        if (rdma_flow_ack_due(&b) && rdma_flow_may_send(&b, 1)) {
            rdma_flow_sent(&b);
            ck_assert_int_eq(rdma_flow_ack(&a, rdma_flow_advertise(&b)), 0);
            rdma_flow_consumed(&a);
            moved = 1, msgs++;
        }
        if (rdma_flow_ack_due(&a) && rdma_flow_may_send(&a, 1)) {
            rdma_flow_sent(&a);
            ck_assert_int_eq(rdma_flow_ack(&b, rdma_flow_advertise(&a)), 0);
            rdma_flow_consumed(&b);
            moved = 1, msgs++;
        }
        if (!moved)
            break;
    }
    ck_assert_int_eq(msgs, 1);
    ck_assert_uint_eq(rdma_flow_credits(&a), 8);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("rdma_flow");
    TCase *tc = tcase_create("flow");
    tcase_add_test(tc, test_window_keeps_one_credit_for_acks);
    tcase_add_test(tc, test_acks_are_cumulative_and_idempotent);
    tcase_add_test(tc, test_counters_wrap);
    tcase_add_test(tc, test_a_gap_is_a_loss);
    tcase_add_test(tc, test_acks_owed_after_half_the_window);
    tcase_add_test(tc, test_ack_only_traffic_settles);
    suite_add_tcase(s, tc);
    return bolt_check_run(s);
}
