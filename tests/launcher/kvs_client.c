/*
 * kvs_client.c — ranks exercise boltrun's key-value store through the
 * bootstrap client: each puts a value, fences, and reads every other rank's.
 *   kvs_client            the exchange (two rounds, a deferred get, big values)
 *   kvs_client abort      rank 1 (or 0 alone) calls bolt_bootstrap_abort(7, ...)
 *   kvs_client abort0     the same with code 0 and control characters in the message
 *   kvs_client badsecret  overwrites BOLT_JOB_SECRET first: open must fail with BOLT_ERR_AUTH
 *   kvs_client dupfence   (2 ranks) rank 0 enters a fence on two connections,
 *                         rank 1 only after 2 s: the fence must wait for it
 *   kvs_client earlyexit  (2 ranks) rank 1 exits 0 without fencing: rank 0's
 *                         fences fail at once with BOLT_ERR_BOOTSTRAP
 */
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bolt.h"
#include "runtime/bootstrap.h"

#define CHECK(call)                                                                          \
    do {                                                                                     \
        int rc_ = (call);                                                                    \
        if (rc_ != BOLT_OK) {                                                                \
            fprintf(stderr, "kvs_client rank %d: %s failed (%d): %s\n", rank, #call, rc_,     \
                    bolt_error_message());                                                   \
            return 1;                                                                        \
        }                                                                                    \
    } while (0)

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Where rank 1 leaves a mark just before it enters the fence: one per job. */
static void mark_path(char *p, size_t n)
{
    const char *addr = getenv("BOLT_KVS_ADDR");
    unsigned h = 5381;
    for (; addr && *addr; addr++)
        h = h * 33 + (unsigned char)*addr;
    snprintf(p, n, "/tmp/bolt-dupfence-%u", h);
}

/* Rank 0 (and a forked child, also rank 0) fence; rank 1 joins late. The
 * fence must not complete before rank 1 entered it, which its mark shows
 * (a file, not a clock: under load rank 0 may itself start late). */
static int dupfence(int rank, int size)
{
    char mark[64];
    mark_path(mark, sizeof mark);
    if (rank == 1) {
        sleep(2);
        CHECK(bolt_bootstrap_open(rank, size));
        FILE *f = fopen(mark, "w");
        if (f)
            fclose(f);
        CHECK(bolt_bootstrap_fence());
        printf("rank 1 fenced\n");
        return 0;
    }
    pid_t child = fork();
    if (child < 0)
        return 1;
    CHECK(bolt_bootstrap_open(rank, size));
    double t0 = now_s();
    CHECK(bolt_bootstrap_fence());
    double took = now_s() - t0;
    if (access(mark, F_OK) != 0) {
        fprintf(stderr, "kvs_client rank 0%s: fence completed after %.2f s, before rank 1 entered it\n",
                child == 0 ? " (child)" : "", took);
        return 1;
    }
    if (child == 0)
        _exit(0);
    int st;
    int ok = waitpid(child, &st, 0) == child && WIFEXITED(st) && WEXITSTATUS(st) == 0;
    unlink(mark);
    if (!ok)
        return 1;
    printf("rank 0 fenced twice, after rank 1\n");
    return 0;
}

/* Rank 1 leaves without fencing; rank 0's fences fail quickly. */
static int earlyexit(int rank, int size)
{
    CHECK(bolt_bootstrap_open(rank, size));
    if (rank == 1) {
        usleep(300000);
        return 0;
    }
    for (int k = 0; k < 2; k++) { /* entered before rank 1 ends, then after */
        double t0 = now_s();
        int rc = bolt_bootstrap_fence();
        if (rc != BOLT_ERR_BOOTSTRAP || now_s() - t0 > 5) {
            fprintf(stderr, "kvs_client rank 0: fence %d gave %d after %.1f s: %s\n", k, rc, now_s() - t0,
                    bolt_error_message());
            return 1;
        }
        printf("fence %d: %s\n", k, bolt_error_message());
    }
    return 0;
}

static size_t value_len(int r) { return 1 + (size_t)(r % 8) * 40000; } /* up to ~280 KB */

static void make_value(int r, int round, unsigned char *buf, size_t n)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = (unsigned char)(r * 31 + round * 7 + i);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "exchange";
    const char *rs = getenv("BOLT_RANK"), *ss = getenv("BOLT_SIZE");
    if (rs == NULL || ss == NULL) {
        fprintf(stderr, "kvs_client: run me under boltrun\n");
        return 1;
    }
    int rank = atoi(rs), size = atoi(ss);
    if (strcmp(mode, "badsecret") == 0) {
        setenv("BOLT_JOB_SECRET", "00000000000000000000000000000000000000000000000000000000000000ff", 1);
        int rc = bolt_bootstrap_open(rank, size);
        if (rc != BOLT_ERR_AUTH) {
            fprintf(stderr, "kvs_client rank %d: open with a wrong secret gave %d, not BOLT_ERR_AUTH\n", rank, rc);
            return 1;
        }
        printf("refused as expected: %s\n", bolt_error_message());
        return 0;
    }
    if (strcmp(mode, "dupfence") == 0)
        return dupfence(rank, size);
    if (strcmp(mode, "earlyexit") == 0)
        return earlyexit(rank, size);
    CHECK(bolt_bootstrap_open(rank, size));
    if (strcmp(mode, "abort") == 0 || strcmp(mode, "abort0") == 0) {
        if (rank == (size > 1 ? 1 : 0)) {
            if (strcmp(mode, "abort") == 0)
                CHECK(bolt_bootstrap_abort(7, "test abort\nwith a newline"));
            else
                CHECK(bolt_bootstrap_abort(0, "zero\033[2J\001\177code\tend\r"));
        }
        sleep(30); /* boltrun stops us */
        return 0;
    }
    size_t maxlen = value_len(size - 1);
    unsigned char *mine = malloc(maxlen), *got = malloc(maxlen), *want = malloc(maxlen);
    char key[64];
    for (int round = 0; round < 2; round++) {
        snprintf(key, sizeof key, "value-%d-%d", round, rank);
        make_value(rank, round, mine, value_len(rank));
        CHECK(bolt_bootstrap_put(key, mine, value_len(rank)));
        CHECK(bolt_bootstrap_fence());
        for (int r = 0; r < size; r++) {
            size_t len = 0;
            snprintf(key, sizeof key, "value-%d-%d", round, r);
            CHECK(bolt_bootstrap_get(key, got, maxlen, &len));
            make_value(r, round, want, value_len(r));
            if (len != value_len(r) || memcmp(got, want, len) != 0) {
                fprintf(stderr, "kvs_client rank %d: wrong value for %s (%zu bytes)\n", rank, key, len);
                return 1;
            }
        }
    }
    /* A get that waits: the last rank puts "late" only after a short nap. */
    if (rank == size - 1) {
        usleep(200000);
        CHECK(bolt_bootstrap_put("late", "ok", 2));
    }
    char late[8];
    size_t len = 0;
    CHECK(bolt_bootstrap_get("late", late, 1, &len)); /* cap 1: len says 2 */
    if (len != 2 || late[0] != 'o') {
        fprintf(stderr, "kvs_client rank %d: bad deferred get (%zu)\n", rank, len);
        return 1;
    }
    CHECK(bolt_bootstrap_fence());
    bolt_bootstrap_close();
    free(mine);
    free(got);
    free(want);
    printf("rank %d ok\n", rank);
    return 0;
}
