/* Any-source and any-tag receives, probes, and status contents. */
#include "tutil.h"

int main(int argc, char **argv)
{
    int rank, size;
    bolt_comm_t w = tinit(&argc, &argv, &rank, &size);

    /* Everyone (rank 0 too, to itself) sends rank+1 ints with tag 100+rank. */
    int msg[64];
    for (int i = 0; i <= rank && i < 64; i++)
        msg[i] = rank * 1000 + i;
    int n = rank + 1 < 64 ? rank + 1 : 64;
    bolt_request_t sreq;
    CHECK_OK(bolt_isend(msg, (size_t)n * sizeof(int), 0, 100 + rank, w, &sreq));
    if (rank == 0) {
        int *seen = calloc((size_t)size, sizeof *seen);
        for (int k = 0; k < size; k++) {
            bolt_status_t st;
            int buf[64];
            /* probe first: size and envelope without receiving */
            CHECK_OK(bolt_probe(BOLT_ANY_SOURCE, BOLT_ANY_TAG, w, &st));
            int src = st.source;
            CHECK(src >= 0 && src < size, "probe source %d", src);
            CHECK(st.tag == 100 + src, "probe tag %d from %d", st.tag, src);
            int ni = src + 1 < 64 ? src + 1 : 64;
            CHECK(st.bytes == (size_t)ni * sizeof(int), "probe bytes %zu", st.bytes);
            /* receive exactly the probed message (specific source, any tag) */
            CHECK_OK(bolt_recv(buf, sizeof buf, src, BOLT_ANY_TAG, w, &st));
            CHECK(st.source == src && st.tag == 100 + src, "status %d/%d", st.source, st.tag);
            CHECK(st.bytes == (size_t)ni * sizeof(int), "bytes %zu", st.bytes);
            for (int i = 0; i < ni; i++)
                CHECK(buf[i] == src * 1000 + i, "payload from %d", src);
            CHECK(!seen[src]++, "two messages from rank %d", src);
        }
        int flag = 1;
        CHECK_OK(bolt_iprobe(BOLT_ANY_SOURCE, BOLT_ANY_TAG, w, &flag, NULL));
        CHECK(!flag, "a message too many");
        free(seen);
    }
    CHECK_OK(bolt_wait(&sreq, NULL));

    /* Second round, after rank 0 says go: pure any-source receives. */
    if (rank != 0) {
        int go;
        CHECK_OK(bolt_recv(&go, sizeof go, 0, 4, w, NULL));
        CHECK_OK(bolt_send(&rank, sizeof rank, 0, 5, w));
    } else {
        for (int r = 1; r < size; r++)
            CHECK_OK(bolt_send(&r, sizeof r, r, 4, w));
        int got = 0;
        for (int k = 1; k < size; k++) {
            int v;
            bolt_status_t st;
            CHECK_OK(bolt_recv(&v, sizeof v, BOLT_ANY_SOURCE, 5, w, &st));
            CHECK(v == st.source, "value %d from %d", v, st.source);
            got += v;
        }
        CHECK(got == size * (size - 1) / 2, "sum %d", got);
    }
    CHECK_OK(bolt_finalize());
    if (rank == 0)
        printf("anysource: %d ranks ok\n", size);
    return 0;
}
