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

/* One nonblocking pass over all transports; returns frames moved. */
int bolt_progress_poll(void);
/* Called by a wait loop after a pass that moved nothing. */
void bolt_progress_backoff(long *idle);
/* Drives progress until done(arg) is true; timeout <= 0 means no limit.
 * Returns BOLT_OK or BOLT_ERR_TIMEOUT. */
int bolt_progress_until(int (*done)(void *arg), void *arg, double timeout);
double bolt_now(void);

#endif
