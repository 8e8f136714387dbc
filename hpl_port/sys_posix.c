/*
 * sys_posix.c — host facts from POSIX alone: sysconf's available pages (free
 * memory only, so --auto sizes N cautiously) and online CPUs.
 */
#include <unistd.h>

#include "hpl_port/sys.h"

uint64_t hpl_sys_mem_available(void)
{
#ifdef _SC_AVPHYS_PAGES
    long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;
#else
    return 0;
#endif
}

int hpl_sys_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

uint64_t hpl_sys_l2_bytes(void)
{
    return 0;
}

void hpl_sys_advise_huge(void *p, uint64_t bytes)
{
    (void)p;
    (void)bytes;
}
