/*
 * mem_posix.c — the model's memory on any POSIX host: one anonymous
 * private mapping, page-aligned, no advice.
 */
#include "inference/mem.h"

#include <sys/mman.h>

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
