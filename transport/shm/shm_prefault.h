/*
 * shm_prefault.h — mapping a peer's channels into our page tables at wire-up.
 *
 * Each rank maps the segment itself, so each takes one page fault per 4 KiB
 * page it first touches: on a ring of 64-byte cells, one every 64 small
 * messages until the first lap ends (2 ranks: 17 stalls of 8-10 thousand
 * cycles in the first 1 100 all-reduces, which made the first ~ms of every
 * job 1.4x slower). Platform seam: shm_prefault_linux.c populates the range
 * with madvise(MADV_POPULATE_WRITE), then reads one byte per page (a
 * hypervisor still traps each page's first access otherwise);
 * shm_prefault_posix.c (also built and tested here) reads one byte per page.
 */
#ifndef BOLT_SHM_PREFAULT_H
#define BOLT_SHM_PREFAULT_H

#include <stddef.h>
#include <stdint.h>

/* Faults in the pages of [addr, addr + len) (addr page-aligned or not) without
 * changing a byte: peers may be writing there. Best effort: no error. */
void shm_prefault(void *addr, size_t len);

/* The portable way, and Linux's where madvise cannot: one read per page (a
 * read fault on a shared mapping of shared memory maps the page writable).
 * volatile: the read must happen; a peer may write the byte meanwhile, and
 * whichever value is read is thrown away. */
static inline void shm_prefault_by_reads(void *addr, size_t len, size_t page)
{
    const volatile unsigned char *p = addr;
    size_t off = 0;
    while (off < len) {
        (void)p[off];
        off += page - ((uintptr_t)(p + off) % page); /* the next page's start */
    }
}

#endif
