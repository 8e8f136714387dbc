/*
 * sys_linux.c — host facts on Linux: MemAvailable from /proc/meminfo (what
 * can be allocated without swapping: free memory plus reclaimable caches),
 * the affinity mask, transparent huge pages.
 */
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hpl_port/sys.h"

uint64_t hpl_sys_mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    if (kb)
        return (uint64_t)kb * 1024u;
    long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;
}

int hpl_sys_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

uint64_t hpl_sys_l2_bytes(void)
{
#ifdef _SC_LEVEL2_CACHE_SIZE
    long b = sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (b > 0)
        return (uint64_t)b;
#endif
    /* "1024K" */
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/cache/index2/size", "r");
    unsigned long v = 0;
    char unit = 0;
    int n = f ? fscanf(f, "%lu%c", &v, &unit) : 0;
    if (f)
        fclose(f);
    if (n < 1)
        return 0;
    return (uint64_t)v * (unit == 'K' ? 1024u : unit == 'M' ? 1048576u : 1u);
}

void hpl_sys_advise_huge(void *p, uint64_t bytes)
{
#ifdef MADV_HUGEPAGE
    /* whole pages inside the block only */
    uintptr_t a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095, e = ((uintptr_t)p + bytes) & ~(uintptr_t)4095;
    if (e > a)
        madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}
