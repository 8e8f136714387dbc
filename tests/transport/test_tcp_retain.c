/* test_tcp_retain.c — the TCP transport's retention of sent bytes for path
 * failover (transport/tcp/tcp_retain.h): copies wrapping around a small
 * ring, resending from any offset (mid-frame too) byte for byte, a full ring
 * refusing copies until confirmations free it, and confirmations releasing
 * the sends held by reference, in order. No sockets: every check compares
 * with a model of the stream kept by the test. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check_run.h"
#include "transport/tcp/tcp_retain.h"

#define HDR ((uint64_t)sizeof(struct bolt_frame_hdr))

/* The stream as the receiver must see it, and the frames sent so far. */
struct model {
    unsigned char *bytes;
    uint64_t len, cap;
};

struct fsend {
    struct bolt_tl_send s;
    int done;
    unsigned char *payload;
};

static void model_add(struct model *m, const void *p, uint64_t n)
{
    if (m->len + n > m->cap) {
        m->cap = (m->len + n) * 2 + 1024;
        m->bytes = realloc(m->bytes, (size_t)m->cap);
    }
    memcpy(m->bytes + m->len, p, (size_t)n);
    m->len += n;
}

static void frame_init(struct fsend *f, uint64_t seq, uint64_t len)
{
    memset(f, 0, sizeof *f);
    f->s.hdr.magic = BOLT_FRAME_MAGIC;
    f->s.hdr.type = BOLT_FRAME_EAGER;
    f->s.hdr.len = len;
    f->s.hdr.sreq = seq;
    f->payload = malloc(len ? (size_t)len : 1);
    for (uint64_t i = 0; i < len; i++)
        f->payload[i] = (unsigned char)(seq * 31u + i * 7u + (i >> 8));
    f->s.payload = f->payload;
}

/* A written frame enters retention (copied, or by reference) and the model. */
static int retain(struct tcp_retain *r, struct model *m, struct fsend *f, int by_ref)
{
    int rc = by_ref ? tcp_retain_ref(r, &f->s) : tcp_retain_copy(r, &f->s.hdr, f->payload);
    if (rc == 0) {
        model_add(m, &f->s.hdr, HDR);
        model_add(m, f->payload, f->s.hdr.len);
    }
    return rc;
}

/* Resending from `from` reproduces the model's bytes up to the end, whatever
 * the limits on iovecs and bytes per write (gathered in pieces, as a writer
 * would after short writes). */
static void check_resend(const struct tcp_retain *r, const struct model *m, uint64_t from, int max,
                         uint64_t cap)
{
    ck_assert_uint_eq(r->end, m->len);
    uint64_t pos = from;
    while (pos < r->end) {
        struct iovec iov[64];
        uint64_t bytes = 0;
        int n = tcp_retain_iov(r, pos, iov, max, cap, &bytes);
        ck_assert_int_gt(n, 0);
        ck_assert_int_le(n, max);
        ck_assert_uint_le(bytes, cap);
        ck_assert_uint_gt(bytes, 0);
        uint64_t sum = 0;
        for (int i = 0; i < n; i++) {
            ck_assert_uint_gt(iov[i].iov_len, 0);
            ck_assert_msg(memcmp(iov[i].iov_base, m->bytes + pos + sum, iov[i].iov_len) == 0,
                          "resend from %llu: iov %d differs from the stream",
                          (unsigned long long)from, i);
            sum += iov[i].iov_len;
        }
        ck_assert_uint_eq(sum, bytes);
        pos += bytes;
    }
    ck_assert_uint_eq(pos, r->end);
    uint64_t bytes = 1;
    struct iovec iov[2];
    ck_assert_int_eq(tcp_retain_iov(r, r->end, iov, 2, 1000, &bytes), 0);
    ck_assert_uint_eq(bytes, 0);
}

static void fsend_complete(struct bolt_tl_send *s, int err)
{
    (void)err;
    ((struct fsend *)s)->done++;
}

START_TEST(test_copies_wrap_around)
{
    struct tcp_retain r;
    struct model m = {0};
    tcp_retain_init(&r, 512);
    enum { NF = 200 };
    static struct fsend f[NF];
    int k = 0;
    /* Fill, confirm part, fill again: positions wrap several times. */
    for (int round = 0; round < 12; round++) {
        for (;;) {
            ck_assert_int_lt(k, NF);
            frame_init(&f[k], (uint64_t)k, (uint64_t)(k * 13 % 90));
            if (retain(&r, &m, &f[k], 0) != 0) {
                free(f[k].payload);
                break;
            }
            k++;
        }
        ck_assert_uint_lt(tcp_retain_room(&r), HDR + 90);
        /* From every offset still held, byte by byte through the wrap. */
        for (uint64_t from = r.confirmed; from <= r.end; from += 7)
            check_resend(&r, &m, from, 64, 1u << 20);
        check_resend(&r, &m, r.confirmed, 3, 1u << 20);
        check_resend(&r, &m, r.confirmed, 64, 50);
        struct bolt_tl_send *done;
        uint64_t upto = r.confirmed + (r.end - r.confirmed) * 2 / 3 + 5; /* mid-frame */
        ck_assert_int_eq(tcp_retain_confirm(&r, upto, &done), 0);
        ck_assert_ptr_null(done);
        ck_assert_uint_eq(r.confirmed, upto);
        ck_assert_uint_eq(tcp_retain_room(&r), 512 - (r.end - upto));
        check_resend(&r, &m, upto, 64, 1u << 20);
    }
    ck_assert_uint_gt(r.rhead, 4 * 512);
    for (int i = 0; i < k; i++)
        free(f[i].payload);
    tcp_retain_free(&r);
    free(m.bytes);
}
END_TEST

START_TEST(test_resend_mid_frame_mixed)
{
    struct tcp_retain r;
    struct model m = {0};
    tcp_retain_init(&r, 1u << 16);
    static struct fsend f[12];
    /* copied, copied, by reference, copied, by reference, by reference, ... */
    const int by_ref[12] = {0, 0, 1, 0, 1, 1, 0, 0, 0, 1, 0, 1};
    for (int i = 0; i < 12; i++) {
        frame_init(&f[i], (uint64_t)i, by_ref[i] ? 3000 + (uint64_t)i : (uint64_t)(i * 11));
        ck_assert_int_eq(retain(&r, &m, &f[i], by_ref[i]), 0);
    }
    ck_assert_uint_eq(r.nseg, 9); /* runs of copies are one segment */
    /* Every offset: in headers, in payloads, at boundaries. */
    for (uint64_t from = 0; from <= r.end; from++)
        check_resend(&r, &m, from, 64, 1u << 20);
    check_resend(&r, &m, 0, 1, 1u << 20);
    check_resend(&r, &m, 100, 2, 97);
    /* Outside [confirmed, end]: refused. */
    struct iovec iov[4];
    uint64_t bytes;
    ck_assert_int_eq(tcp_retain_iov(&r, r.end + 1, iov, 4, 100, &bytes), -1);
    struct bolt_tl_send *done;
    ck_assert_int_eq(tcp_retain_confirm(&r, 60, &done), 0);
    ck_assert_int_eq(tcp_retain_iov(&r, 59, iov, 4, 100, &bytes), -1);
    check_resend(&r, &m, 60, 64, 1u << 20);
    for (int i = 0; i < 12; i++)
        free(f[i].payload);
    tcp_retain_free(&r);
    free(m.bytes);
}
END_TEST

START_TEST(test_full_ring_backpressure)
{
    struct tcp_retain r;
    struct model m = {0};
    tcp_retain_init(&r, 1024);
    ck_assert_uint_eq(tcp_retain_room(&r), 1024);
    ck_assert_ptr_null(r.ring); /* allocated at the first copy only */
    struct fsend f[8];
    for (int i = 0; i < 8; i++)
        frame_init(&f[i], (uint64_t)i, 200); /* 248 bytes each: 4 fit */
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(retain(&r, &m, &f[i], 0), 0);
    ck_assert_uint_eq(tcp_retain_room(&r), 1024 - 4 * 248);
    /* Full: refused, nothing changed. */
    ck_assert_int_eq(retain(&r, &m, &f[4], 0), -1);
    ck_assert_uint_eq(r.end, 4 * 248);
    check_resend(&r, &m, 0, 64, 1u << 20);
    /* Confirming part of a frame frees those bytes only. */
    struct bolt_tl_send *done;
    ck_assert_int_eq(tcp_retain_confirm(&r, 100, &done), 0);
    ck_assert_uint_eq(tcp_retain_room(&r), 1024 - 4 * 248 + 100);
    ck_assert_int_eq(retain(&r, &m, &f[4], 0), -1);
    ck_assert_int_eq(tcp_retain_confirm(&r, 248 + 100, &done), 0);
    ck_assert_int_eq(retain(&r, &m, &f[4], 0), 0); /* wraps */
    ck_assert_int_eq(retain(&r, &m, &f[5], 0), -1);
    check_resend(&r, &m, 248 + 100, 64, 1u << 20);
    /* A frame held by reference needs no ring room. */
    ck_assert_int_eq(retain(&r, &m, &f[5], 1), 0);
    ck_assert_uint_eq(tcp_retain_room(&r), 1024 - 4 * 248 + 248 + 100 - 248);
    check_resend(&r, &m, 248 + 100, 64, 1u << 20);
    /* Everything confirmed: the whole ring is free again. */
    ck_assert_int_eq(tcp_retain_confirm(&r, r.end, &done), 0);
    ck_assert_ptr_eq(done, &f[5].s);
    ck_assert_uint_eq(tcp_retain_room(&r), 1024);
    ck_assert_uint_eq(r.nseg, 0);
    for (int i = 0; i < 8; i++)
        free(f[i].payload);
    tcp_retain_free(&r);
    free(m.bytes);
}
END_TEST

START_TEST(test_confirm_releases_deferred_in_order)
{
    struct tcp_retain r;
    struct model m = {0};
    tcp_retain_init(&r, 4096);
    static struct fsend f[6];
    const int by_ref[6] = {1, 0, 1, 1, 0, 1};
    uint64_t ends[6];
    for (int i = 0; i < 6; i++) {
        frame_init(&f[i], (uint64_t)i, by_ref[i] ? 70000 : 10);
        f[i].s.complete = fsend_complete;
        ck_assert_int_eq(retain(&r, &m, &f[i], by_ref[i]), 0);
        ends[i] = r.end;
    }
    struct bolt_tl_send *done;
    /* Up to the middle of the first frame: nothing released. */
    ck_assert_int_eq(tcp_retain_confirm(&r, 20000, &done), 0);
    ck_assert_ptr_null(done);
    /* A held frame is retransmitted whole-or-from-the-offset, never below. */
    check_resend(&r, &m, 20000, 64, 1u << 20);
    /* One byte short of its end: still held. */
    ck_assert_int_eq(tcp_retain_confirm(&r, ends[0] - 1, &done), 0);
    ck_assert_ptr_null(done);
    ck_assert_int_eq(tcp_retain_confirm(&r, ends[0], &done), 0);
    ck_assert_ptr_eq(done, &f[0].s);
    ck_assert_ptr_null(done->tl_next);
    for (struct bolt_tl_send *s = done, *n; s; s = n) {
        n = s->tl_next;
        s->complete(s, 0);
    }
    ck_assert_int_eq(f[0].done, 1);
    /* An older confirmation (read late) changes nothing. */
    ck_assert_int_eq(tcp_retain_confirm(&r, 5, &done), 0);
    ck_assert_ptr_null(done);
    ck_assert_uint_eq(r.confirmed, ends[0]);
    /* Beyond what was sent: a protocol error, nothing changed. */
    ck_assert_int_eq(tcp_retain_confirm(&r, r.end + 1, &done), -1);
    ck_assert_uint_eq(r.confirmed, ends[0]);
    /* Three held frames at once, in stream order. */
    ck_assert_int_eq(tcp_retain_confirm(&r, ends[4] + 3, &done), 0);
    ck_assert_ptr_eq(done, &f[2].s);
    ck_assert_ptr_eq(done->tl_next, &f[3].s);
    ck_assert_ptr_null(done->tl_next->tl_next);
    check_resend(&r, &m, ends[4] + 3, 64, 1u << 20);
    /* What is left goes back to the caller (a failed peer). */
    done = tcp_retain_take_refs(&r);
    ck_assert_ptr_eq(done, &f[5].s);
    ck_assert_ptr_null(done->tl_next);
    ck_assert_uint_eq(r.nseg, 0);
    ck_assert_uint_eq(tcp_retain_room(&r), 4096);
    for (int i = 0; i < 6; i++)
        free(f[i].payload);
    tcp_retain_free(&r);
    free(m.bytes);
}
END_TEST

START_TEST(test_many_segments)
{
    /* More segments than the FIFO's first allocation, confirmed in pieces. */
    struct tcp_retain r;
    struct model m = {0};
    tcp_retain_init(&r, 1u << 16);
    enum { N = 301 };
    static struct fsend f[N];
    for (int i = 0; i < N; i++) {
        frame_init(&f[i], (uint64_t)i, i % 2 ? 66000 : (uint64_t)(i % 50));
        ck_assert_int_eq(retain(&r, &m, &f[i], i % 2), 0);
    }
    ck_assert_uint_eq(r.nseg, N);
    int released = 0;
    for (uint64_t upto = 0; upto <= r.end; upto += 40000) {
        struct bolt_tl_send *done;
        ck_assert_int_eq(tcp_retain_confirm(&r, upto, &done), 0);
        for (; done; done = done->tl_next) {
            ck_assert_ptr_eq(done, &f[2 * released + 1].s);
            released++;
        }
        if (upto % 400000 == 0)
            check_resend(&r, &m, upto, 64, 1u << 22);
    }
    struct bolt_tl_send *done;
    ck_assert_int_eq(tcp_retain_confirm(&r, r.end, &done), 0);
    for (; done; done = done->tl_next)
        released++;
    ck_assert_int_eq(released, N / 2);
    for (int i = 0; i < N; i++)
        free(f[i].payload);
    tcp_retain_free(&r);
    free(m.bytes);
}
END_TEST

static Suite *retain_suite(void)
{
    Suite *s = suite_create("tcp_retain");
    TCase *tc = tcase_create("retain");
    tcase_set_timeout(tc, 60); /* byte-by-byte resend checks: slow under ASan on a busy host */
    tcase_add_test(tc, test_copies_wrap_around);
    tcase_add_test(tc, test_resend_mid_frame_mixed);
    tcase_add_test(tc, test_full_ring_backpressure);
    tcase_add_test(tc, test_confirm_releases_deferred_in_order);
    tcase_add_test(tc, test_many_segments);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return bolt_check_run(retain_suite());
}
