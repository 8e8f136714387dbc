/*
 * errors.h — raising errors with a detailed, per-thread message.
 *
 * bolt_err_set(code, fmt, ...) records "rank R on host H: <message>" as the
 * calling thread's last error message (bolt_error_message()) and returns
 * code, so a failing path reads `return bolt_err_set(BOLT_ERR_ARG, "...")`.
 */
#ifndef BOLT_ERRORS_H
#define BOLT_ERRORS_H

#include "bolt.h"

#if defined(__GNUC__)
#define BOLT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define BOLT_PRINTF(a, b)
#endif

int bolt_err_set(int code, const char *fmt, ...) BOLT_PRINTF(2, 3);
/* Identity used in messages; set by the runtime at init (and by tools). */
void bolt_err_set_identity(int rank, const char *host);
void bolt_err_clear(void);
/* Puts "what: " in front of the last error's detail (after the identity), so
 * an error from an inner call says which public call it happened in. */
int bolt_err_within(int code, const char *what);
/* For code that reports into a caller's buffer (parsers of files the tools
 * read): writes the message into err (cap bytes) and returns -1. */
int bolt_errbuf(char *err, size_t cap, const char *fmt, ...) BOLT_PRINTF(3, 4);

#endif
