/*
 * shm_prefault_posix.c — shm_prefault by reading one byte per page (a read
 * fault on a shared mapping of shared memory maps the page writable).
 */
#include "transport/shm/shm_prefault.h"

#include <stdint.h>
#include <unistd.h>

void shm_prefault(void *addr, size_t len)
{
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0 || len == 0)
        return;
    /* volatile: the read must happen; a peer may write the byte meanwhile,
     * and whichever value we read is thrown away. */
    const volatile unsigned char *p = addr;
    uintptr_t first = (uintptr_t)addr & ~(uintptr_t)(page - 1);
    for (uintptr_t a = first; a < (uintptr_t)addr + len; a += (uintptr_t)page) {
        const volatile unsigned char *q = a < (uintptr_t)addr ? p : p + (a - (uintptr_t)addr);
        (void)*q;
    }
}
