/* log.c — diagnostics on stderr, one whole line per write so ranks don't splice. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/config.h"
#include "runtime/log.h"

int bolt_log_enabled(int level)
{
    return level <= bolt_param_int(BOLT_P_LOG_LEVEL);
}

void bolt_log(int level, const char *fmt, ...)
{
    static const char *const names[] = {"error", "warning", "info", "debug"};
    char line[2048];
    if (!bolt_log_enabled(level))
        return;
    const char *rank = getenv("BOLT_RANK");
    int n = snprintf(line, sizeof line, "bolt[%s] %s: ", rank ? rank : "-",
                     names[level < 0 ? 0 : level > 3 ? 3 : level]);
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof line)
        n += vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof line - 1)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    /* One write() so that lines from several ranks never interleave. */
    ssize_t w = write(STDERR_FILENO, line, (size_t)n);
    (void)w;
}
