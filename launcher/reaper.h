/*
 * reaper.h — catching the processes a rank leaves behind outside its process
 * group (a daemon that called setsid). On Linux the guard becomes a "child
 * subreaper" (prctl PR_SET_CHILD_SUBREAPER): such orphans are re-parented to
 * it instead of to init, and reaper_kill_all() finds and kills them
 * (reaper_linux.c). Elsewhere both are no-ops (reaper_posix.c) and cleanup
 * rests on killing the rank's process group.
 */
#ifndef BOLTRUN_REAPER_H
#define BOLTRUN_REAPER_H

/* Makes the caller the reaper of its future orphaned descendants. */
void reaper_become(void);
/* SIGKILLs and reaps every child of the caller, repeatedly, until none is
 * left or about two seconds have passed. */
void reaper_kill_all(void);

#endif
