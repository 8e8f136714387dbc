/*
 * err.h — the engine's error messages: a function that fails writes what
 * went wrong into the caller's buffer and returns -1.
 */
#ifndef INF_ERR_H
#define INF_ERR_H

#include <stddef.h>

/* fmt's message into err (if any room), -1. */
int inf_fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
