/* tl_util.h — small pieces every transport needs: the clock its timeouts
 * read, and completing a list of sends that will not go (a failed peer,
 * finalize). */
#ifndef BOLT_TL_UTIL_H
#define BOLT_TL_UTIL_H

#include "transport/transport.h"

/* Seconds on the monotonic clock. */
double bolt_tl_now(void);
/* Completes every send of the list (linked by tl_next) with `error`. */
void bolt_tl_complete_list(struct bolt_tl_send *s, int error);

#endif
