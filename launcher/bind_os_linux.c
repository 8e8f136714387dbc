/* bind_os_linux.c — binding with sched_setaffinity (see bind_os.h). */
#include "launcher/bind_os.h"

#include <errno.h>
#include <stddef.h>
#include <sched.h>

int bind_os_set_cpus(const int *pus, int n)
{
    int max = 0, rc = 0;
    for (int i = 0; i < n; i++)
        if (pus[i] > max)
            max = pus[i];
    /* Sized by the largest index: hosts may have more than CPU_SETSIZE PUs. */
    cpu_set_t *set = CPU_ALLOC((size_t)max + 1);
    if (set == NULL)
        return ENOMEM;
    size_t size = CPU_ALLOC_SIZE((size_t)max + 1);
    CPU_ZERO_S(size, set);
    for (int i = 0; i < n; i++)
        if (pus[i] >= 0)
            CPU_SET_S((size_t)pus[i], size, set);
    if (sched_setaffinity(0, size, set) != 0)
        rc = errno;
    CPU_FREE(set);
    return rc;
}

int bind_os_hint(void)
{
    return 0;
}

const char *bind_os_hint_name(void)
{
    return NULL;
}
