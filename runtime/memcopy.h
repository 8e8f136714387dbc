/*
 * memcopy.h — a large copy through the C library in pieces of 256 KiB.
 *
 * glibc (2.33 on) copies with `rep movsb` on CPUs with fast strings, but on
 * AMD ones only below the L2 size (its rep_movsb_stop_threshold), and with
 * vector loops above it; on the Zen 5 here those loops are the slower way:
 * 1 MiB takes 24.2 us whole and 20.6 us in pieces of 256 KiB, 4 MiB 110
 * against 90, 16 MiB 960 against 770 (sizes at and below 512 KiB alike).
 * Pieces below every AMD L2 (512 KiB on Zen 3) keep each call on the fast
 * path; elsewhere they cost one call each 256 KiB. For copies between
 * distinct buffers (memcpy's contract).
 */
#ifndef BOLT_MEMCOPY_H
#define BOLT_MEMCOPY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define BOLT_COPY_PIECE ((size_t)256 << 10)

static inline void bolt_mem_copy(void *dst, const void *src, size_t n)
{
    char *d = dst;
    const char *s = src;
    while (n > BOLT_COPY_PIECE) {
        memcpy(d, s, BOLT_COPY_PIECE);
        d += BOLT_COPY_PIECE;
        s += BOLT_COPY_PIECE;
        n -= BOLT_COPY_PIECE;
    }
    memcpy(d, s, n);
}

/* memmove's contract: pieces when the two do not overlap, else one memmove. */
static inline void bolt_mem_move(void *dst, const void *src, size_t n)
{
    uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
    if (n > BOLT_COPY_PIECE && (d + n <= s || s + n <= d))
        bolt_mem_copy(dst, src, n);
    else
        memmove(dst, src, n);
}

#endif
