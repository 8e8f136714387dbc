/* mem_test — the memory a model is read into (inference/mem.h): writable
 * and zeroed over every byte asked for, aligned to a page at least (to the
 * 2 MiB huge page on Linux), freed without a trace, and a size no host has
 * refused with an error rather than a crash. Built with the platform's file
 * and with the POSIX fallback (mem_posix.c), so the fallback is tested on
 * Linux too. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "inference/mem.h"

static int bad(const char *what)
{
    printf("FAIL: %s\n", what);
    return 1;
}

int main(void)
{
    const long page = sysconf(_SC_PAGESIZE);
    const size_t sizes[] = {0, 1, 4095, 4097, (size_t)3 << 20, ((size_t)5 << 20) + 123};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        inf_region_t r;
        if (inf_region_alloc(&r, sizes[k]))
            return bad("a small region was refused");
        if (!r.p || !r.base || r.size != sizes[k] || r.len < sizes[k])
            return bad("the region's fields");
        if ((uintptr_t)r.p % (uintptr_t)page)
            return bad("not page-aligned");
#if defined(__linux__) && !defined(MEM_TEST_POSIX)
        if ((uintptr_t)r.p % (2u << 20))
            return bad("not aligned to the 2 MiB huge page");
#endif
        if ((uint8_t *)r.p < (uint8_t *)r.base || (uint8_t *)r.p + sizes[k] > (uint8_t *)r.base + r.len)
            return bad("the usable bytes leave the mapping");
        uint8_t *b = r.p;
        for (size_t i = 0; i < sizes[k]; i++)
            if (b[i])
                return bad("not zeroed");
        memset(b, 0xa5, sizes[k]);
        inf_region_free(&r);
        if (r.base || r.p)
            return bad("a freed region keeps its pointers");
        inf_region_free(&r); /* twice is harmless */
    }
    inf_region_t r;
    errno = 0;
    if (inf_region_alloc(&r, SIZE_MAX - 4096) == 0 || r.base)
        return bad("SIZE_MAX - 4096 bytes were granted");
    printf("pass: regions of 0 B to 5 MiB, the impossible one refused (errno %d)\n", errno);
    return 0;
}
