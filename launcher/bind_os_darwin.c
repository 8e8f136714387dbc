/* bind_os_darwin.c — macOS has no process affinity; the user-interactive
 * QoS class is what keeps a thread on the performance cores (see bind_os.h). */
#include "launcher/bind_os.h"

#include <errno.h>
#include <stddef.h>
#include <pthread.h>
#include <pthread/qos.h>

int bind_os_set_cpus(const int *pus, int n)
{
    (void)pus;
    (void)n;
    return ENOTSUP;
}

int bind_os_hint(void)
{
    return pthread_set_qos_class_self_np(QOS_CLASS_USER_INTERACTIVE, 0);
}

const char *bind_os_hint_name(void)
{
    return "QoS class user-interactive";
}
