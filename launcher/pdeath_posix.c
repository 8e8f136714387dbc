/* pdeath_posix.c — no parent-death signal on this system (see pdeath.h). */
#include "launcher/pdeath.h"

#include <unistd.h>

int boltrun_pdeath_arm(int sig, pid_t expected_parent)
{
    (void)sig;
    return getppid() == expected_parent ? 0 : -1;
}
