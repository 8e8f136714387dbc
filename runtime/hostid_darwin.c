/* hostid_darwin.c — host identity from the hardware UUID (gethostuuid). */
#include "runtime/hostid.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <uuid/uuid.h>

#include "runtime/errors.h"

int bolt_host_id(char *out, size_t cap)
{
    uuid_t id;
    uuid_string_t text;
    struct timespec wait = {1, 0};
    if (gethostuuid(id, &wait) != 0) {
        if (cap)
            out[0] = '\0';
        return bolt_err_set(BOLT_ERR_SYS, "gethostuuid failed: %s", strerror(errno));
    }
    uuid_unparse_lower(id, text);
    snprintf(out, cap, "%s", text);
    return BOLT_OK;
}
