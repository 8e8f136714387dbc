/* hostid_linux.c — host identity from the kernel's boot id and the host
 * name: the boot id is random per boot, so two cloned machines differ. */
#include "runtime/hostid.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/errors.h"

int bolt_host_id(char *out, size_t cap)
{
    char host[256] = "", boot[64] = "";
    int rc = BOLT_OK;
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f == NULL) {
        rc = bolt_err_set(BOLT_ERR_SYS, "cannot read /proc/sys/kernel/random/boot_id: %s (is /proc mounted?)",
                          strerror(errno));
    } else {
        if (fgets(boot, sizeof boot, f) == NULL)
            rc = bolt_err_set(BOLT_ERR_SYS, "/proc/sys/kernel/random/boot_id is empty");
        fclose(f);
    }
    boot[strcspn(boot, "\r\n")] = '\0';
    if (rc == BOLT_OK && gethostname(host, sizeof host - 1) != 0)
        rc = bolt_err_set(BOLT_ERR_SYS, "gethostname failed: %s", strerror(errno));
    /* Network namespaces sharing a kernel are hosts of their own (test
     * clusters; containers): they share no addresses and no devices' ports. */
    struct stat st;
    unsigned long long netns = stat("/proc/self/ns/net", &st) == 0 ? (unsigned long long)st.st_ino : 0;
    if (rc == BOLT_OK)
        snprintf(out, cap, "%s/%s/net:%llu", host, boot, netns);
    else if (cap)
        out[0] = '\0';
    return rc;
}
