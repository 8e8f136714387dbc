/* pdeath_linux.c — PR_SET_PDEATHSIG (see pdeath.h). */
#include "launcher/pdeath.h"

#include <sys/prctl.h>
#include <unistd.h>

int boltrun_pdeath_arm(int sig, pid_t expected_parent)
{
    if (prctl(PR_SET_PDEATHSIG, sig) != 0)
        return 0; /* not fatal: the lifeline still works */
    return getppid() == expected_parent ? 0 : -1;
}
