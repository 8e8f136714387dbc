/* errors.c — error codes, their names, and the per-thread detailed message. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime/errors.h"

static _Thread_local char err_message[1024];
static _Thread_local char err_detail[800]; /* err_message without the identity */
static int err_rank = -1;
static char err_host[128];

static const char *const err_names[] = {
    [0] = "success",
    [-BOLT_ERR_ARG] = "invalid argument",
    [-BOLT_ERR_NOMEM] = "out of memory",
    [-BOLT_ERR_TRUNCATE] = "message truncated: receive buffer too small",
    [-BOLT_ERR_PEER] = "peer process failed or its connection broke",
    [-BOLT_ERR_TIMEOUT] = "timed out",
    [-BOLT_ERR_BOOTSTRAP] = "bootstrap (job key-value store) failure",
    [-BOLT_ERR_AUTH] = "authentication with the job secret failed",
    [-BOLT_ERR_SYS] = "system call failed",
    [-BOLT_ERR_NOT_INIT] = "Bolt is not initialized",
    [-BOLT_ERR_UNSUPPORTED] = "operation not supported",
    [-BOLT_ERR_PROTO] = "protocol error on the wire",
    [-BOLT_ERR_CONFIG] = "bad configuration setting",
    [-BOLT_ERR_INTERNAL] = "internal error in Bolt",
    [-BOLT_ERR_PENDING] = "some requests failed (see their statuses)",
    [-BOLT_ERR_DEADLOCK] = "deadlock: waiting for a message only this rank could send",
};

const char *bolt_strerror(int code)
{
    if (code > 0 || code <= BOLT_ERR_LAST)
        return "unknown error code";
    return err_names[-code];
}

const char *bolt_error_message(void)
{
    return err_message[0] ? err_message : "no error";
}

void bolt_err_set_identity(int rank, const char *host)
{
    err_rank = rank;
    snprintf(err_host, sizeof err_host, "%s", host ? host : "");
}

void bolt_err_clear(void)
{
    err_message[0] = '\0';
    err_detail[0] = '\0';
}

int bolt_err_set(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err_detail, sizeof err_detail, fmt, ap);
    va_end(ap);
    if (err_rank >= 0)
        snprintf(err_message, sizeof err_message, "rank %d on %s: %s", err_rank, err_host,
                 err_detail);
    else
        snprintf(err_message, sizeof err_message, "%s", err_detail);
    return code;
}

int bolt_err_within(int code, const char *what)
{
    char detail[sizeof err_detail];
    snprintf(detail, sizeof detail, "%s", err_detail);
    return bolt_err_set(code, "%s: %.*s", what, (int)(sizeof detail - 64), detail);
}

int bolt_errbuf(char *err, size_t cap, const char *fmt, ...)
{
    /* cap 0: nothing written (err may be NULL) */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
    return -1;
}
