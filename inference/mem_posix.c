/*
 * mem_posix.c — the model's memory on any POSIX host: one anonymous
 * private mapping, page-aligned, no advice.
 */
#include "inference/mem.h"

#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#ifndef MAP_ANONYMOUS
#define MAP_ANONYMOUS MAP_ANON
#endif

int inf_region_alloc(inf_region_t *r, size_t size)
{
    *r = (inf_region_t){0};
    size_t len = size ? size : 1;
    void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return -1;
    *r = (inf_region_t){.p = m, .size = size, .base = m, .len = len};
    return 0;
}

void inf_region_free(inf_region_t *r)
{
    if (r->base)
        munmap(r->base, r->len);
    *r = (inf_region_t){0};
}

void inf_mem_release(const void *p, size_t len)
{
    const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), a = ((uintptr_t)p + page - 1) & ~(page - 1),
                    b = ((uintptr_t)p + len) & ~(page - 1);
    /* advice: the pages stay the file's (some systems ignore it) */
    if (b > a)
        (void)posix_madvise((void *)a, b - a, POSIX_MADV_DONTNEED);
}

size_t inf_mem_resident(int *peak)
{
    struct rusage u;
    *peak = 1;
    if (getrusage(RUSAGE_SELF, &u) != 0)
        return 0;
#ifdef __APPLE__
    return (size_t)u.ru_maxrss; /* bytes there */
#else
    return (size_t)u.ru_maxrss * 1024; /* KiB */
#endif
}
