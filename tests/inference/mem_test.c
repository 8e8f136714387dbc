/* mem_test — the memory a model is read into (inference/mem.h): writable
 * and zeroed over every byte asked for, aligned to a page at least (to the
 * 2 MiB huge page on Linux), freed without a trace, and a size no host has
 * refused with an error rather than a crash; a mapped file's pages released
 * read back the file's bytes (and on Linux leave the resident memory, which
 * inf_mem_resident sees). Built with the platform's file
 * and with the POSIX fallback (mem_posix.c), so the fallback is tested on
 * Linux too. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
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

    /* a file of 16 MiB, mapped and read through, then its middle released */
    const size_t fl = (size_t)16 << 20;
    char path[] = "/tmp/mem_test.XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0)
        return bad("mkstemp");
    unlink(path);
    uint8_t *buf = malloc(fl);
    if (!buf)
        return bad("out of memory");
    for (size_t i = 0; i < fl; i++)
        buf[i] = (uint8_t)(i * 131u >> 7);
    if (write(fd, buf, fl) != (ssize_t)fl)
        return bad("writing the file");
    const uint8_t *map = mmap(NULL, fl, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED)
        return bad("mapping the file");
    unsigned sum = 0;
    for (size_t i = 0; i < fl; i += 512)
        sum += map[i];
    int peak = -1;
    const size_t before = inf_mem_resident(&peak);
    if (before == 0 || (peak != 0 && peak != 1))
        return bad("no resident memory told");
    inf_mem_release(map + 100, fl - 200); /* all but the first and last pages */
    const size_t after = inf_mem_resident(&peak);
#if defined(__linux__) && !defined(MEM_TEST_POSIX)
    if (peak || after + ((size_t)12 << 20) > before)
        return bad("16 MiB of a file released, but the resident memory did not drop by 12 MiB");
#endif
    if (memcmp(map, buf, fl))
        return bad("a released file's pages do not read back its bytes");
    printf("pass: a mapped file's pages released: resident %zu -> %zu KiB%s, its bytes read back (%u)\n", before >> 10,
           after >> 10, peak ? " (the peak)" : "", sum);
    munmap((void *)map, fl);
    close(fd);
    free(buf);
    return 0;
}
