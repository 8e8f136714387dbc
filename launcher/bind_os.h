/*
 * bind_os.h — the seam between placement and the OS. One file per platform:
 *   bind_os_linux.c   sched_setaffinity;
 *   bind_os_darwin.c  no affinity API; a QoS class keeps ranks on P-cores;
 *   bind_os_posix.c   nothing (binding unsupported).
 */
#ifndef BOLTRUN_BIND_OS_H
#define BOLTRUN_BIND_OS_H

/* Restricts the calling process to the PUs with these OS indexes.
 * Returns 0, or an errno value (ENOTSUP where the platform cannot). */
int bind_os_set_cpus(const int *pus, int n);
/* The platform's hint for a rank that asked to be bound; 0 or an errno value. */
int bind_os_hint(void);
/* What bind_os_hint does, for reports; NULL when it does nothing. */
const char *bind_os_hint_name(void);

#endif
