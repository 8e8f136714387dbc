/* The POSIX binding fallback (launcher/bind_os_posix.c), built and run on
 * every platform: binding is refused with ENOTSUP and the hint does nothing. */
#include <errno.h>
#include <stdio.h>

#include "launcher/bind_os.h"

int main(void)
{
    int pus[] = {0};
    int failed = 0;
    if (bind_os_set_cpus(pus, 1) != ENOTSUP) {
        fprintf(stderr, "FAIL: bind_os_set_cpus should return ENOTSUP\n");
        failed = 1;
    }
    if (bind_os_hint() != 0) {
        fprintf(stderr, "FAIL: bind_os_hint should succeed doing nothing\n");
        failed = 1;
    }
    if (bind_os_hint_name() != NULL) {
        fprintf(stderr, "FAIL: bind_os_hint_name should be NULL\n");
        failed = 1;
    }
    return failed;
}
