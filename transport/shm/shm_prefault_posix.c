/*
 * shm_prefault_posix.c — shm_prefault by reading one byte per page
 * (shm_prefault.h).
 */
#include "transport/shm/shm_prefault.h"

#include <unistd.h>

void shm_prefault(void *addr, size_t len)
{
    long page = sysconf(_SC_PAGESIZE);
    if (page > 0)
        shm_prefault_by_reads(addr, len, (size_t)page);
}
