/*
 * pdeath.h — optional extra safety: ask the kernel to signal the calling
 * process when its parent dies. Linux has prctl(PR_SET_PDEATHSIG)
 * (pdeath_linux.c); elsewhere this is a no-op (pdeath_posix.c) and the guard's
 * lifeline alone keeps ranks from outliving boltrun.
 */
#ifndef BOLTRUN_PDEATH_H
#define BOLTRUN_PDEATH_H

#include <sys/types.h>

/* Arms `sig` for the caller; if the parent (expected_parent) is already gone,
 * returns -1 so the caller can exit at once. 0 otherwise (or unsupported). */
int boltrun_pdeath_arm(int sig, pid_t expected_parent);

#endif
