/*
 * tcp_fake_kvs.c — a file-backed stand-in for runtime/bootstrap.c, so the TCP
 * transport's unit tests run without boltrun. Keys are files in
 * $BOLT_TEST_KVS_DIR, shared by the forked test processes. The test binaries
 * link the transport's sources and libboltcore, never libbolt, so these
 * definitions do not clash with the real client.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "runtime/bootstrap.h"
#include "runtime/config.h"
#include "runtime/errors.h"

static int g_rank, g_size = 1, g_fence;

static const char *kvs_dir(void)
{
    const char *d = getenv("BOLT_TEST_KVS_DIR");
    return d ? d : "/tmp";
}

static void nap(void)
{
    struct timespec ts = {0, 2000000};
    nanosleep(&ts, NULL);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int bolt_bootstrap_open(int rank, int size)
{
    g_rank = rank;
    g_size = size;
    g_fence = 0;
    return BOLT_OK;
}

int bolt_bootstrap_put(const char *key, const void *val, size_t len)
{
    char tmp[512], path[512];
    snprintf(path, sizeof path, "%s/%s", kvs_dir(), key);
    snprintf(tmp, sizeof tmp, "%s/.%s.%ld", kvs_dir(), key, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f || fwrite(val, 1, len, f) != len || fclose(f) != 0)
        return bolt_err_set(BOLT_ERR_BOOTSTRAP, "fake kvs: cannot write %s", tmp);
    if (rename(tmp, path) != 0)
        return bolt_err_set(BOLT_ERR_BOOTSTRAP, "fake kvs: cannot rename to %s", path);
    return BOLT_OK;
}

int bolt_bootstrap_get(const char *key, void *val, size_t cap, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", kvs_dir(), key);
    double deadline = now() + bolt_param_double(BOLT_P_TIMEOUT);
    for (;;) {
        FILE *f = fopen(path, "rb");
        if (f) {
            char buf[BOLT_KVS_MAX_VALUE > 65536 ? 65536 : BOLT_KVS_MAX_VALUE];
            size_t n = fread(buf, 1, sizeof buf, f);
            fclose(f);
            *len = n;
            memcpy(val, buf, n < cap ? n : cap);
            return BOLT_OK;
        }
        if (now() > deadline)
            return bolt_err_set(BOLT_ERR_TIMEOUT, "fake kvs: no key %s", key);
        nap();
    }
}

int bolt_bootstrap_fence(void)
{
    char path[512];
    int gen = g_fence++;
    snprintf(path, sizeof path, "%s/fence.%d.%d", kvs_dir(), gen, g_rank);
    int fd = open(path, O_CREAT | O_WRONLY, 0600);
    if (fd < 0)
        return bolt_err_set(BOLT_ERR_BOOTSTRAP, "fake kvs: cannot create %s", path);
    close(fd);
    double deadline = now() + bolt_param_double(BOLT_P_TIMEOUT);
    for (int r = 0; r < g_size; r++) {
        snprintf(path, sizeof path, "%s/fence.%d.%d", kvs_dir(), gen, r);
        struct stat st;
        while (stat(path, &st) != 0) {
            if (now() > deadline)
                return bolt_err_set(BOLT_ERR_TIMEOUT, "fake kvs: fence %d: rank %d absent", gen, r);
            nap();
        }
    }
    return BOLT_OK;
}

int bolt_bootstrap_abort(int code, const char *msg)
{
    fprintf(stderr, "fake kvs: abort %d: %s\n", code, msg ? msg : "");
    _exit(code ? code : 1);
}

void bolt_bootstrap_close(void)
{
}

int bolt_bootstrap_is_open(void)
{
    return 1;
}
