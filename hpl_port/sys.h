/*
 * sys.h — the few facts of the host the benchmark asks for, behind a seam:
 * sys_linux.c, sys_darwin.c, and sys_posix.c (the fallback, built and
 * tested on Linux too).
 */
#ifndef HPL_SYS_H
#define HPL_SYS_H

#include <stdint.h>

/* Memory the host could give a new allocation now, in bytes (0 if unknown). */
uint64_t hpl_sys_mem_available(void);
/* CPUs this process may run on (its affinity mask where there is one). */
int hpl_sys_cpus(void);
/* The level-2 cache one core can count on, in bytes (its share where cores
 * share it); 0 if unknown. */
uint64_t hpl_sys_l2_bytes(void);
/* Backs a large allocation with huge pages where the system has them. */
void hpl_sys_advise_huge(void *p, uint64_t bytes);

#endif
