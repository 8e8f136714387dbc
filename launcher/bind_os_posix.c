/* bind_os_posix.c — platforms without a binding call (see bind_os.h). */
#include "launcher/bind_os.h"

#include <errno.h>
#include <stddef.h>

int bind_os_set_cpus(const int *pus, int n)
{
    (void)pus;
    (void)n;
    return ENOTSUP;
}

int bind_os_hint(void)
{
    return 0;
}

const char *bind_os_hint_name(void)
{
    return NULL;
}
