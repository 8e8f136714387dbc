/*
 * hostinfo.c — the host's identity and interfaces (see hostinfo.h), through
 * POSIX calls that Linux and macOS both have (uname, sysconf, getifaddrs), and
 * the runtime's topology (runtime/topo.h) for cores and caches.
 */
#include "cluster/hostinfo.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bolt.h"
#include "runtime/topo.h"

static uint32_t prefix_len(const struct sockaddr_in *mask)
{
    uint32_t m = mask ? ntohl(mask->sin_addr.s_addr) : 0, n = 0;
    while (m & 0x80000000u) {
        n++;
        m <<= 1;
    }
    return n;
}

/* IPv4 addresses only: the tcp transport's (and the probes') family. */
static void interfaces(struct ck_info *in)
{
    struct ifaddrs *all = NULL;
    if (getifaddrs(&all) != 0)
        return;
    for (struct ifaddrs *a = all; a && in->nifs < CK_MAX_IFS; a = a->ifa_next) {
        if (a->ifa_addr == NULL || a->ifa_addr->sa_family != AF_INET)
            continue;
        struct ck_if *f = &in->ifs[in->nifs++];
        snprintf(f->name, sizeof f->name, "%s", a->ifa_name);
        inet_ntop(AF_INET, &((const struct sockaddr_in *)a->ifa_addr)->sin_addr, f->addr, sizeof f->addr);
        f->prefix = prefix_len((const struct sockaddr_in *)a->ifa_netmask);
        f->flags = (a->ifa_flags & IFF_UP ? CK_IF_UP : 0) | (a->ifa_flags & IFF_LOOPBACK ? CK_IF_LOOPBACK : 0) |
                   (a->ifa_flags & IFF_POINTOPOINT ? CK_IF_P2P : 0);
    }
    freeifaddrs(all);
}

void hostinfo_collect(struct ck_info *in)
{
    memset(in, 0, sizeof *in);
    snprintf(in->version, sizeof in->version, "%s", PACKAGE_VERSION);
    if (gethostname(in->hostname, sizeof in->hostname - 1) != 0)
        snprintf(in->hostname, sizeof in->hostname, "unknown");
    struct utsname u;
    if (uname(&u) == 0) {
        snprintf(in->os, sizeof in->os, "%.*s", (int)sizeof in->os - 1, u.sysname);
        snprintf(in->os_release, sizeof in->os_release, "%.*s", (int)sizeof in->os_release - 1, u.release);
        snprintf(in->machine, sizeof in->machine, "%.*s", (int)sizeof in->machine - 1, u.machine);
    }
    /* Cores and caches as boltrun and bolt-info see them (hwloc where built). */
    struct bolt_topo t;
    if (bolt_topo_load(&t) == BOLT_OK) {
        in->cores = t.cores > 0 ? (uint32_t)t.cores : 0;
        in->pus = t.pus > 0 ? (uint32_t)t.pus : 0;
        for (int k = 0; k < 3 && k < BOLT_TOPO_CACHE_LEVELS; k++)
            in->cache[k] = t.cache_bytes[k];
    }
    bolt_topo_free(&t);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (in->cores == 0)
        in->cores = n > 0 ? (uint32_t)n : 1;
    if (in->pus == 0)
        in->pus = in->cores;
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    if (pages > 0 && psize > 0)
        in->mem = (uint64_t)pages * (uint64_t)psize;
    interfaces(in);
    hostinfo_rdma(in);
}
