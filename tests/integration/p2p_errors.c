/* Bad arguments and truncation give clear errors, never a crash, and the
 * job carries on afterwards. */
#include "tutil.h"

static void expect_err(int rc, int code, const char *needle, int line)
{
    if (rc != code || !strstr(bolt_error_message(), needle)) {
        fprintf(stderr, "FAIL line %d: got %s (%s), expected %s mentioning '%s'\n", line,
                bolt_strerror(rc), bolt_error_message(), bolt_strerror(code), needle);
        exit(1);
    }
}
#define EXPECT_ERR(call, code, needle) expect_err((call), (code), (needle), __LINE__)

int main(int argc, char **argv)
{
    int rank, size, x = 0;
    bolt_request_t req;
    bolt_status_t st;
    EXPECT_ERR(bolt_send(&x, sizeof x, 0, 0, bolt_comm_world()), BOLT_ERR_NOT_INIT, "before bolt_init");
    bolt_comm_t w = tinit(&argc, &argv, &rank, &size);

    EXPECT_ERR(bolt_send(&x, sizeof x, size, 0, w), BOLT_ERR_ARG, "out of range");
    EXPECT_ERR(bolt_send(&x, sizeof x, -1, 0, w), BOLT_ERR_ARG, "out of range");
    EXPECT_ERR(bolt_send(&x, sizeof x, 0, -5, w), BOLT_ERR_ARG, "tag -5 is invalid");
    EXPECT_ERR(bolt_send(&x, sizeof x, 0, BOLT_TAG_UB + 1, w), BOLT_ERR_ARG, "invalid");
    EXPECT_ERR(bolt_send(NULL, 4, 0, 0, w), BOLT_ERR_ARG, "NULL");
    EXPECT_ERR(bolt_recv(&x, sizeof x, size + 3, 0, w, NULL), BOLT_ERR_ARG, "out of range");
    EXPECT_ERR(bolt_irecv(&x, sizeof x, 0, 0, BOLT_COMM_NULL, &req), BOLT_ERR_ARG, "COMM_NULL");
    EXPECT_ERR(bolt_comm_split(w, -7, 0, NULL), BOLT_ERR_ARG, "");
    /* the message names this rank */
    char me[32];
    snprintf(me, sizeof me, "rank %d on ", rank);
    EXPECT_ERR(bolt_send(&x, sizeof x, size, 0, w), BOLT_ERR_ARG, me);

    /* truncation, eager and rendezvous: an error, and the next message is fine */
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    size_t sizes[2] = {100, 1 << 20};
    for (int k = 0; k < 2; k++) {
        size_t n = sizes[k];
        char *big = malloc(n), *small = malloc(n / 2);
        tfill(big, n, 42);
        bolt_request_t sr;
        CHECK_OK(bolt_isend(big, n, right, 1, w, &sr));
        int rc = bolt_recv(small, n / 2, left, 1, w, &st);
        EXPECT_ERR(rc, BOLT_ERR_TRUNCATE, "does not fit");
        CHECK(st.bytes == n / 2 && st.error == BOLT_ERR_TRUNCATE, "truncated status %zu", st.bytes);
        CHECK(tverify(small, n / 2, 42) < 0, "truncated prefix wrong");
        CHECK_OK(bolt_wait(&sr, NULL));
        /* and the link still works */
        CHECK_OK(bolt_sendrecv(big, n, right, 2, big, n, left, 2, w, &st));
        CHECK(st.bytes == n && tverify(big, n, 42) < 0, "after truncation");
        free(big);
        free(small);
    }
    /* cancel of an unmatched receive (from oneself: never finalized yet) */
    CHECK_OK(bolt_irecv(&x, sizeof x, rank, 77, w, &req));
    CHECK_OK(bolt_cancel(&req));
    CHECK_OK(bolt_wait(&req, &st));
    CHECK(st.bytes == 0, "cancelled receive got data");

    CHECK_OK(bolt_finalize());
    EXPECT_ERR(bolt_finalize(), BOLT_ERR_NOT_INIT, "twice");
    if (rank == 0)
        printf("errors: %d ranks ok\n", size);
    return 0;
}
