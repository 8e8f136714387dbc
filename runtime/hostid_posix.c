/* hostid_posix.c — host identity where no better one is known: the host
 * name and gethostid(). Weaker than boot_id or a hardware UUID. */
#include "runtime/hostid.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "runtime/errors.h"

int bolt_host_id(char *out, size_t cap)
{
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) != 0) {
        if (cap)
            out[0] = '\0';
        return bolt_err_set(BOLT_ERR_SYS, "gethostname failed: %s", strerror(errno));
    }
    snprintf(out, cap, "%s/%08lx", host, (unsigned long)gethostid() & 0xffffffffUL);
    return BOLT_OK;
}
