/* sys_test — the host facts of hpl_port/sys.h are sane: some memory is
 * available and no more than the host has, at least one CPU (no more
 * than configured), and an L2 size that is unknown or plausible. Built with the platform's file and with the POSIX
 * fallback (sys_posix.c), so the fallback is tested on Linux too. */
#include <stdio.h>
#include <unistd.h>

#include "hpl_port/sys.h"

int main(void)
{
    uint64_t avail = hpl_sys_mem_available();
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    uint64_t phys = pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;
    int cpus = hpl_sys_cpus();
    long conf = sysconf(_SC_NPROCESSORS_CONF);
    printf("available %.2f GiB of %.2f GiB, %d CPUs of %ld\n", (double)avail / 1073741824.0,
           (double)phys / 1073741824.0, cpus, conf);
    if (avail == 0 || (phys && avail > phys)) {
        printf("FAIL: available memory\n");
        return 1;
    }
    if (cpus < 1 || (conf > 0 && cpus > conf)) {
        printf("FAIL: CPUs\n");
        return 1;
    }
    uint64_t l2 = hpl_sys_l2_bytes(); /* 0: unknown (the fallback), else a real size */
    printf("L2 %llu bytes\n", (unsigned long long)l2);
    if (l2 != 0 && (l2 < 16384 || l2 > ((uint64_t)1 << 30))) {
        printf("FAIL: L2 size\n");
        return 1;
    }
    static double block[1 << 16];
    hpl_sys_advise_huge(block, sizeof block); /* must be harmless */
    return 0;
}
