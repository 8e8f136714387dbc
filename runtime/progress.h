/*
 * progress.h — the progress engine: polls every open transport; waits spin
 * briefly, then sleep in poll() on the transports' descriptors so that more
 * ranks than cores still make progress.
 */
#ifndef BOLT_PROGRESS_H
#define BOLT_PROGRESS_H

/* Advances nonblocking collectives; set by the collectives layer (NULL until
 * the first one starts). Returns how many moved. */
extern int (*bolt_progress_hook)(void);

/* Further work done on every pass, beside the collectives' hook: the MPI
 * face's one-sided target side, which applies what arrives for its windows
 * whoever drives progress. At most BOLT_PROGRESS_HOOKS; returns BOLT_OK or
 * BOLT_ERR_INTERNAL. A hook may post sends and receives but never waits. */
#define BOLT_PROGRESS_HOOKS 4
int bolt_progress_hook_add(int (*fn)(void));
void bolt_progress_hook_remove(int (*fn)(void));
/* Sleeps in poll() on the transports' descriptors until something may have
 * arrived (or a short timeout), without spinning first: for a thread that
 * serves incoming work while the program computes. Holding the lock (if on). */
void bolt_progress_sleep(void);

/* Passes made so far by any thread (relaxed): moving, someone drives progress. */
#include <stdatomic.h>
extern atomic_ulong bolt_progress_passes;

/* One nonblocking pass over all transports; returns frames moved. */
int bolt_progress_poll(void);
/* Called by a wait loop after a pass that moved nothing. */
void bolt_progress_backoff(long *idle);
/* Drives progress until done(arg) is true; timeout <= 0 means no limit.
 * Returns BOLT_OK or BOLT_ERR_TIMEOUT. */
int bolt_progress_until(int (*done)(void *arg), void *arg, double timeout);
double bolt_now(void);

#endif
