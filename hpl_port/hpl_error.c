/*
 * hpl_error.c — one message per failure, naming the rank and host, kept until
 * the driver reports it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hpl_port/hpl.h"

static char last[1024];

static int vfail(int code, int from_bolt, const char *fmt, va_list ap)
{
    int rank = 0;
    bolt_comm_rank(bolt_comm_world(), &rank);
    size_t n = (size_t)snprintf(last, sizeof last, "rank %d on %s: ", rank, bolt_hostname());
    if (n < sizeof last)
        n += (size_t)vsnprintf(last + n, sizeof last - n, fmt, ap);
    /* a Bolt error carries its own details (which peer, which host) */
    if (from_bolt && n < sizeof last)
        snprintf(last + n, sizeof last - n, ": %s (%s)", bolt_strerror(code), bolt_error_message());
    return code ? code : BOLT_ERR_INTERNAL;
}

int hpl_fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vfail(code, 1, fmt, ap);
    va_end(ap);
    return rc;
}

int hpl_error(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vfail(code, 0, fmt, ap);
    va_end(ap);
    return rc;
}

const char *hpl_last_error(void)
{
    return last;
}
