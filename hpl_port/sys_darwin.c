/*
 * sys_darwin.c — host facts on macOS: free, inactive, purgeable and
 * speculative pages from the Mach VM statistics; the logical CPUs (macOS
 * binds nothing); no huge-page advice (the kernel decides).
 */
#include <mach/mach.h>
#include <sys/sysctl.h>
#include <unistd.h>

#include "hpl_port/sys.h"

uint64_t hpl_sys_mem_available(void)
{
    vm_statistics64_data_t vm;
    mach_msg_type_number_t count = HOST_VM_INFO64_COUNT;
    vm_size_t page = 0;
    if (host_page_size(mach_host_self(), &page) != KERN_SUCCESS ||
        host_statistics64(mach_host_self(), HOST_VM_INFO64, (host_info64_t)&vm, &count) != KERN_SUCCESS)
        return 0;
    uint64_t pages = (uint64_t)vm.free_count + vm.inactive_count + vm.purgeable_count + vm.speculative_count;
    return pages * (uint64_t)page;
}

int hpl_sys_cpus(void)
{
    int n = 0;
    size_t len = sizeof n;
    if (sysctlbyname("hw.logicalcpu", &n, &len, NULL, 0) == 0 && n > 0)
        return n;
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    return c > 0 ? (int)c : 1;
}

uint64_t hpl_sys_l2_bytes(void)
{
    /* Apple silicon: the performance cores' L2, shared by a cluster */
    uint64_t l2 = 0;
    int per = 0;
    size_t len = sizeof l2, plen = sizeof per;
    if (sysctlbyname("hw.perflevel0.l2cachesize", &l2, &len, NULL, 0) == 0 && l2 > 0) {
        if (sysctlbyname("hw.perflevel0.cpusperl2", &per, &plen, NULL, 0) == 0 && per > 1)
            l2 /= (uint64_t)per;
        return l2;
    }
    len = sizeof l2;
    return sysctlbyname("hw.l2cachesize", &l2, &len, NULL, 0) == 0 ? l2 : 0;
}

void hpl_sys_advise_huge(void *p, uint64_t bytes)
{
    (void)p;
    (void)bytes;
}
