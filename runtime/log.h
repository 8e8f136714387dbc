/*
 * log.h — diagnostics on stderr, filtered by BOLT_LOG_LEVEL.
 * Lines look like "bolt: rank 2 on host1: <message>".
 */
#ifndef BOLT_LOG_H
#define BOLT_LOG_H

#include "runtime/errors.h"

enum bolt_log_level { BOLT_LOG_ERROR = 0, BOLT_LOG_WARN = 1, BOLT_LOG_INFO = 2, BOLT_LOG_DEBUG = 3 };

void bolt_log(int level, const char *fmt, ...) BOLT_PRINTF(2, 3);
int bolt_log_enabled(int level);

#endif
