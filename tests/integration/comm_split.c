/* Communicator split, dup and join: groups, ordering by key, isolation of
 * contexts, two groups joined through their leaders. */
#include "tutil.h"

int main(int argc, char **argv)
{
    int rank, size;
    bolt_comm_t w = tinit(&argc, &argv, &rank, &size);

    /* color by parity, key reverses the order */
    bolt_comm_t half;
    CHECK_OK(bolt_comm_split(w, rank % 2, -rank, &half));
    CHECK(half != BOLT_COMM_NULL, "split gave NULL");
    int hr, hs;
    CHECK_OK(bolt_comm_rank(half, &hr));
    CHECK_OK(bolt_comm_size(half, &hs));
    int expect_size = (size + 1 - rank % 2) / 2;
    CHECK(hs == expect_size, "half size %d, expected %d", hs, expect_size);
    /* highest world rank of my color gets rank 0 */
    int highest = (size - 1) - ((size - 1 - rank % 2) % 2);
    CHECK(hr == (highest - rank) / 2, "half rank %d", hr);
    int wr;
    CHECK_OK(bolt_comm_world_rank(half, hr, &wr));
    CHECK(wr == rank, "world rank of myself %d", wr);

    /* ring inside each half; sum of world ranks of the group */
    int sum = rank, token = rank;
    for (int step = 1; step < hs; step++) {
        int in;
        CHECK_OK(bolt_sendrecv(&token, sizeof token, (hr + 1) % hs, 0, &in, sizeof in,
                               (hr + hs - 1) % hs, 0, half, NULL));
        token = in;
        sum += in;
    }
    int expect = 0;
    for (int r = rank % 2; r < size; r += 2)
        expect += r;
    CHECK(sum == expect, "sum in half %d, expected %d", sum, expect);

    /* a dup does not see messages sent on its parent */
    bolt_comm_t dup;
    CHECK_OK(bolt_comm_dup(w, &dup));
    int dr;
    CHECK_OK(bolt_comm_rank(dup, &dr));
    CHECK(dr == rank, "dup rank");
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int a = 1000 + rank, b = 2000 + rank, ra = 0, rb = 0;
    bolt_request_t r[4];
    CHECK_OK(bolt_irecv(&rb, sizeof rb, left, 9, dup, &r[0]));
    CHECK_OK(bolt_irecv(&ra, sizeof ra, left, 9, w, &r[1]));
    CHECK_OK(bolt_isend(&a, sizeof a, right, 9, w, &r[2]));
    CHECK_OK(bolt_isend(&b, sizeof b, right, 9, dup, &r[3]));
    CHECK_OK(bolt_waitall(4, r, NULL));
    CHECK(ra == 1000 + left && rb == 2000 + left, "context mix-up: %d %d", ra, rb);

    /* BOLT_UNDEFINED leaves a rank out */
    bolt_comm_t some;
    CHECK_OK(bolt_comm_split(w, rank == 0 ? BOLT_UNDEFINED : 1, 0, &some));
    CHECK((rank == 0) == (some == BOLT_COMM_NULL), "undefined color");
    if (some) {
        int ss;
        CHECK_OK(bolt_comm_size(some, &ss));
        CHECK(ss == size - 1, "size without rank 0: %d", ss);
        CHECK_OK(bolt_comm_free(&some));
    }
    /* The halves joined through their leaders (rank 0 of each, its highest
     * world rank): the half led by world rank size - 2 comes first, each in
     * its order; a remote leader that is no rank fails the whole group. */
    if (size > 1) {
        int other = (size - 1) - ((size - 1 - (1 - rank % 2)) % 2), cf = (size - 2) % 2;
        int nf = (size + 1 - cf) / 2, br, bs;
        bolt_comm_t both, none = BOLT_COMM_NULL;
        CHECK_OK(bolt_comm_join(half, 0, w, other, &both));
        CHECK_OK(bolt_comm_rank(both, &br));
        CHECK_OK(bolt_comm_size(both, &bs));
        CHECK(bs == size && br == (rank % 2 == cf ? 0 : nf) + hr, "joined: size %d rank %d", bs, br);
        for (int i = 0; i < bs; i++) {
            int wi;
            CHECK_OK(bolt_comm_world_rank(both, i, &wi));
            CHECK(wi == (i < nf ? size - 2 - 2 * i : size - 1 - 2 * (i - nf)),
                  "joined rank %d is world rank %d", i, wi);
        }
        int total = 0;
        CHECK_OK(bolt_allreduce(&rank, &total, 1, BOLT_INT32, BOLT_SUM, both));
        CHECK(total == size * (size - 1) / 2, "sum over the joined groups %d", total);
        CHECK(bolt_comm_join(half, 0, w, size, &none) == BOLT_ERR_ARG && none == BOLT_COMM_NULL,
              "a remote leader out of range was accepted");
        CHECK_OK(bolt_comm_free(&both));
    }
    /* a split of a split */
    bolt_comm_t quarter;
    CHECK_OK(bolt_comm_split(half, hr % 2, hr, &quarter));
    int qs;
    CHECK_OK(bolt_comm_size(quarter, &qs));
    CHECK(qs == (hs + 1 - hr % 2) / 2, "quarter size %d", qs);
    CHECK_OK(bolt_comm_free(&quarter));
    CHECK_OK(bolt_comm_free(&half));
    CHECK_OK(bolt_comm_free(&dup));
    CHECK(bolt_comm_free(&w) == BOLT_ERR_ARG, "world must not be freeable");
    CHECK_OK(bolt_finalize());
    if (rank == 0)
        printf("comm_split: %d ranks ok\n", size);
    return 0;
}
