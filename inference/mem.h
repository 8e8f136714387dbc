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

/* Drops the pages wholly inside [p, p + len) of a private read-only file
 * mapping from this process's memory: read again, they come back from the
 * file (a rank copies its shard of a mapped model, then lets the rest go).
 * Advice only where the platform does not drop them (POSIX fallback). */
void inf_mem_release(const void *p, size_t len);
/* This process's resident memory in bytes; where the platform tells only
 * its peak (POSIX fallback: getrusage), that. *peak says which. */
size_t inf_mem_resident(int *peak);

#endif
