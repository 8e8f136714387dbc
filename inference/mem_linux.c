/*
 * mem_linux.c — the model's memory on Linux: an anonymous mapping aligned
 * to the 2 MiB huge page and advised to use huge pages, so that a weight
 * matrix streams without a TLB miss or a stalled prefetcher every 4 KiB.
 * (Read into such memory, a 2.4 GB F32 model generated 2.5x faster on one
 * thread here than from its file mapping: bench/README.)
 */
#include "inference/mem.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

enum { HUGE_PAGE = 2u << 20 };

int inf_region_alloc(inf_region_t *r, size_t size)
{
    *r = (inf_region_t){0};
    size_t used = (size + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
    if (used < size || used + HUGE_PAGE < used) {
        errno = ENOMEM;
        return -1;
    }
    if (!used)
        used = HUGE_PAGE;
    size_t len = used + HUGE_PAGE;
    void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return -1;
    uintptr_t a = ((uintptr_t)m + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
#ifdef MADV_HUGEPAGE
    /* advice only: without it the bytes are the same, only slower to stream */
    (void)madvise((void *)a, used, MADV_HUGEPAGE);
#endif
    *r = (inf_region_t){.p = (void *)a, .size = size, .base = m, .len = len};
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
    if (b > a)
        (void)madvise((void *)a, b - a, MADV_DONTNEED); /* a file's private pages: read back from the file */
}

size_t inf_mem_resident(int *peak)
{
    *peak = 0;
    unsigned long size = 0, res = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f)
        return 0;
    if (fscanf(f, "%lu %lu", &size, &res) != 2)
        res = 0;
    fclose(f);
    return (size_t)res * (size_t)sysconf(_SC_PAGESIZE);
}
