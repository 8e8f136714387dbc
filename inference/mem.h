/*
 * mem.h — anonymous memory for a model read in whole (bolt-llm --no-mmap),
 * behind a seam: mem_linux.c (huge pages advised: a long weight stream
 * then crosses no 4 KiB page boundary) and mem_posix.c (the fallback, used
 * on macOS and built and tested on Linux too).
 */
#ifndef INF_MEM_H
#define INF_MEM_H

#include <stddef.h>

typedef struct inf_region {
    void *p;     /* bytes usable from here, aligned to the huge page where there is one */
    size_t size; /* as asked */
    void *base;  /* the mapping, for inf_region_free */
    size_t len;
} inf_region_t;

/* Maps size bytes of zeroed private memory. Returns 0, or -1 with errno. */
int inf_region_alloc(inf_region_t *r, size_t size);
void inf_region_free(inf_region_t *r);

#endif
