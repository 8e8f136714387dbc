/* tl_util.c — see tl_util.h. */
#include <stddef.h>
#include <time.h>

#include "transport/tl_util.h"

double bolt_tl_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void bolt_tl_complete_list(struct bolt_tl_send *s, int error)
{
    while (s) {
        struct bolt_tl_send *next = s->tl_next;
        s->tl_next = NULL;
        s->complete(s, error);
        s = next;
    }
}
