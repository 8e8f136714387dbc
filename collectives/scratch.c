/*
 * scratch.c — the collectives' scratch buffers, kept for the next call.
 *
 * A large reduce, scan or reduce-scatter needs buffers as large as the
 * message for what its children send, every call. From malloc, each call
 * can get freshly mapped pages: glibc gives memory back to the kernel once
 * more than its trim threshold (twice the largest block it mapped on its
 * own, so 2 MiB after a 1 MiB one) lies free at the top of the heap, and a
 * reduce's two 1 MiB buffers are exactly that. Every page of them then
 * faults again on first touch: ~10 us a page in this VM (shadow paging),
 * 1-2 us on bare metal. 4 ranks on 2 cores, MPI_Reduce of 1 MiB: 4.3 ms a
 * call from malloc, 0.3 ms with the pages kept (Open MPI: 0.28, as it
 * reduces in small segments).
 *
 * So released buffers stay here, touched, up to BOLT_COLL_SCRATCH bytes in
 * all (least recently used go first), and a request takes the smallest one
 * that fits. Calls are serialized (the runtime lock under
 * MPI_THREAD_MULTIPLE), like the schedules'. Under AddressSanitizer a kept
 * buffer is poisoned, so a use after its collective still reports.
 */
#include <stdint.h>
#include <stdlib.h>

#include "collectives/coll.h"
#include "runtime/config.h"
#include "runtime/runtime.h"
#include "runtime/sanitizer.h"

/* The header before the data: its size, and a cache line so that the
 * data starts on one (the reduction kernels' vectors). */
#define HDR 64
#define SLOTS 8         /* kept buffers at most */
#define ROUND (64 * 1024) /* sizes above it rounded up: a request a little larger reuses */

struct kept {
    unsigned char *base; /* the allocation; its size at base */
    size_t size;         /* data bytes */
};

static struct kept kept[SLOTS]; /* most recently released last */
static int nkept;
static int registered;

static size_t cap(void)
{
    long long v = bolt_param_int(BOLT_P_COLL_SCRATCH);
    return v > 0 ? (size_t)v : 0;
}

size_t coll_scratch_kept(void)
{
    size_t n = 0;
    for (int i = 0; i < nkept; i++)
        n += kept[i].size;
    return n;
}

/* Takes kept buffer i out of the list (its memory unpoisoned: the caller's now). */
static unsigned char *take(int i)
{
    unsigned char *base = kept[i].base;
    BOLT_UNPOISON(base, HDR + kept[i].size);
    for (int j = i; j + 1 < nkept; j++)
        kept[j] = kept[j + 1];
    nkept--;
    return base;
}

void coll_scratch_release_all(void)
{
    while (nkept)
        free(take(0));
}

void *coll_scratch_get(size_t bytes)
{
    int best = -1;
    for (int i = 0; i < nkept; i++)
        if (kept[i].size >= bytes && (best < 0 || kept[i].size < kept[best].size))
            best = i;
    if (best >= 0)
        return take(best) + HDR;
    size_t size = bytes > ROUND ? (bytes + ROUND - 1) / ROUND * ROUND : bytes;
    if (size < bytes || size > SIZE_MAX - HDR)
        return NULL;
    void *base = NULL;
    if (posix_memalign(&base, HDR, HDR + size))
        return NULL;
    *(size_t *)base = size;
    return (unsigned char *)base + HDR;
}

void coll_scratch_put(void *p)
{
    if (!p)
        return;
    unsigned char *base = (unsigned char *)p - HDR;
    size_t size = *(size_t *)base, limit = cap();
    if (size > limit) {
        free(base);
        return;
    }
    while (nkept && (nkept == SLOTS || coll_scratch_kept() + size > limit))
        free(take(0)); /* the least recently released */
    if (!registered)
        registered = bolt_rt_on_teardown(coll_scratch_release_all) == BOLT_OK;
    kept[nkept].base = base;
    kept[nkept].size = size;
    nkept++;
    BOLT_POISON(base, HDR + size);
}
