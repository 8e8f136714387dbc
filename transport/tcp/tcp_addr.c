/*
 * tcp_addr.c — the listening socket, what a rank publishes about itself
 * (host identity, port, IPv4 addresses with their masks) and how a peer's
 * published value becomes the addresses to try, in order: 127.0.0.1 on the
 * same host; else the peer's addresses on a subnet we share (in a
 * Thunderbolt mesh each cable is its own small subnet, so this is the cable
 * to that peer), then its other addresses. BOLT_IF_INCLUDE limits what we
 * publish and use to some interfaces (names or IPv4 subnets), as Open MPI's
 * btl_tcp_if_include.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "runtime/bootstrap.h"
#include "runtime/config.h"
#include "runtime/errors.h"
#include "runtime/hostid.h"
#include "runtime/log.h"
#include "transport/tcp/tcp.h"
#include "transport/tcp/tcp_os.h"

#define TCP_VALUE_MAX 2048

/* ---- sockets ---- */

static int set_nonblock_cloexec(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
        return -1;
    int fdf = fcntl(fd, F_GETFD);
    if (fdf < 0 || fcntl(fd, F_SETFD, fdf | FD_CLOEXEC) < 0)
        return -1;
    return 0;
}

int tcp_congestion_choose(struct bolt_tl_ctx *ctx)
{
    const char *list = bolt_param_string(BOLT_P_TCP_CONGESTION);
    ctx->congestion[0] = '\0';
    if (!list || !*list || strcmp(list, "system") == 0)
        return BOLT_OK;
    /* The default ends with reno, which Linux always has and lets anyone set. */
    int given = strcmp(list, bolt_param_info(BOLT_P_TCP_CONGESTION)->def) != 0;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return bolt_err_set(BOLT_ERR_SYS, "tcp: socket() failed: %s", strerror(errno));
    int rc = BOLT_OK, err = 0, unsupported = 0;
    for (const char *p = list; *p && !ctx->congestion[0] && !unsupported;) {
        size_t n = strcspn(p, ",");
        char name[TCP_CONGESTION_MAX];
        if (n == 0 || n >= sizeof name || strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789_") < n) {
            rc = bolt_err_set(BOLT_ERR_CONFIG,
                              "BOLT_TCP_CONGESTION=%s: '%.*s' is not a congestion control name "
                              "(a comma-separated list such as cubic,reno, or system to keep "
                              "the system's)",
                              list, (int)n, p);
            break;
        }
        memcpy(name, p, n);
        name[n] = '\0';
        if (tcp_os_congestion_set(fd, name) == 0)
            memcpy(ctx->congestion, name, n + 1);
        else if (errno == ENOPROTOOPT)
            unsupported = 1; /* no per-connection choice here (macOS): the system's */
        else
            err = errno;
        p += n + (p[n] == ',');
    }
    close(fd);
    if (rc == BOLT_OK && !ctx->congestion[0] && !unsupported && given)
        rc = bolt_err_set(BOLT_ERR_CONFIG,
                          "BOLT_TCP_CONGESTION=%s: the system lets this process set none of "
                          "these (%s); use one listed in "
                          "/proc/sys/net/ipv4/tcp_allowed_congestion_control, or system to "
                          "keep the system's",
                          list, strerror(err));
    return rc;
}

int tcp_sock_prepare(const struct bolt_tl_ctx *ctx, int fd)
{
    if (set_nonblock_cloexec(fd) != 0)
        return -1;
    if (tcp_os_sock_setup(fd) != 0)
        return -1;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    double t = bolt_param_double(BOLT_P_TIMEOUT);
    tcp_os_dead_link_after(fd, t > 0 ? t : 60);
    if (ctx->congestion[0])
        (void)tcp_os_congestion_set(fd, ctx->congestion); /* accepted when chosen */
    if (ctx->bufsz > 0) {
        int b = ctx->bufsz > (size_t)(1 << 30) ? (1 << 30) : (int)ctx->bufsz;
        /* Best effort: the kernel clamps to its limits. */
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &b, sizeof b);
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &b, sizeof b);
    }
    return 0;
}

int tcp_wireup_listen(struct bolt_tl_ctx *ctx)
{
    const char *ifaddr = bolt_param_string(BOLT_P_TCP_IF_ADDR);
    ctx->bind_any = 1;
    ctx->bind_addr.s_addr = htonl(INADDR_ANY);
    if (ifaddr && *ifaddr) {
        if (inet_pton(AF_INET, ifaddr, &ctx->bind_addr) != 1)
            return bolt_err_set(BOLT_ERR_CONFIG,
                                "BOLT_TCP_IF_ADDR=%s is not an IPv4 address (like 192.168.1.5)",
                                ifaddr);
        ctx->bind_any = 0;
    }
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return bolt_err_set(BOLT_ERR_SYS, "tcp: socket() failed: %s", strerror(errno));
    if (tcp_sock_prepare(ctx, fd) != 0) {
        int e = errno;
        close(fd);
        return bolt_err_set(BOLT_ERR_SYS, "tcp: cannot set up the listening socket: %s",
                            strerror(e));
    }
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr = ctx->bind_addr;
    sa.sin_port = 0;
    socklen_t sl = sizeof sa;
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(fd, SOMAXCONN) != 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &sl) != 0) {
        int e = errno;
        close(fd);
        char a[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &ctx->bind_addr, a, sizeof a);
        return bolt_err_set(BOLT_ERR_SYS, "tcp: cannot listen on %s: %s%s", a, strerror(e),
                            ctx->bind_any ? "" : " (check BOLT_TCP_IF_ADDR)");
    }
    ctx->lfd = fd;
    ctx->port = ntohs(sa.sin_port);
    return BOLT_OK;
}

/* One BOLT_IF_INCLUDE entry matches an interface: by name, or by subnet
 * ("169.254.0.0/16"). Returns 1 on a match, 0 if not, -1 if malformed. */
static int if_match(const char *entry, const char *ifname, struct in_addr addr)
{
    const char *slash = strchr(entry, '/');
    if (slash == NULL)
        return strcmp(entry, ifname) == 0;
    char net[INET_ADDRSTRLEN];
    size_t nl = (size_t)(slash - entry);
    char *end;
    long bits = strtol(slash + 1, &end, 10);
    struct in_addr a;
    if (nl >= sizeof net || *end != '\0' || slash[1] == '\0' || bits < 0 || bits > 32)
        return -1;
    memcpy(net, entry, nl);
    net[nl] = '\0';
    if (inet_pton(AF_INET, net, &a) != 1)
        return -1;
    uint32_t mask = bits == 0 ? 0 : htonl(0xffffffffu << (32 - bits));
    return (addr.s_addr & mask) == (a.s_addr & mask);
}

/* Whether BOLT_IF_INCLUDE (comma-separated) lets interface `ifname` with
 * `addr` be used; -1 with a message when an entry is malformed. */
static int if_included(const char *list, const char *ifname, struct in_addr addr)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", list);
    char *save = NULL;
    for (char *e = strtok_r(buf, ", ", &save); e; e = strtok_r(NULL, ", ", &save)) {
        int m = if_match(e, ifname, addr);
        if (m < 0)
            return bolt_err_set(BOLT_ERR_CONFIG,
                                "BOLT_IF_INCLUDE: '%s' is neither an interface name nor an IPv4 subnet "
                                "(like tb1 or 169.254.0.0/16)", e);
        if (m)
            return 1;
    }
    return 0;
}

/* This host's IPv4 addresses: BOLT_TCP_IF_ADDR alone if set, else every up
 * interface BOLT_IF_INCLUDE lets through (default: every one but loopback;
 * 127.0.0.1 if there is none). */
static int gather_addrs(struct bolt_tl_ctx *ctx)
{
    struct ifaddrs *ifs = NULL;
    const char *incl = bolt_param_string(BOLT_P_IF_INCLUDE);
    int have_incl = incl && *incl;
    ctx->naddrs = 0;
    if (getifaddrs(&ifs) != 0)
        ifs = NULL;
    if (!ctx->bind_any) {
        ctx->addrs[0].addr = ctx->bind_addr;
        ctx->addrs[0].mask.s_addr = htonl(0xffffffffu);
        for (struct ifaddrs *i = ifs; i; i = i->ifa_next)
            if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && i->ifa_netmask &&
                ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr == ctx->bind_addr.s_addr)
                ctx->addrs[0].mask = ((struct sockaddr_in *)i->ifa_netmask)->sin_addr;
        ctx->naddrs = 1;
    } else {
        for (struct ifaddrs *i = ifs; i && ctx->naddrs < TCP_MAX_ADDRS; i = i->ifa_next) {
            if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP))
                continue;
            struct in_addr a = ((struct sockaddr_in *)i->ifa_addr)->sin_addr;
            if (have_incl) {
                int m = if_included(incl, i->ifa_name, a);
                if (m < 0) {
                    freeifaddrs(ifs);
                    return m;
                }
                if (!m)
                    continue;
            } else if (i->ifa_flags & IFF_LOOPBACK) {
                continue;
            }
            struct tcp_ifaddr *x = &ctx->addrs[ctx->naddrs++];
            x->addr = a;
            x->mask.s_addr = i->ifa_netmask ? ((struct sockaddr_in *)i->ifa_netmask)->sin_addr.s_addr
                                            : htonl(0xffffffffu);
        }
        if (ctx->naddrs == 0 && have_incl) {
            if (ifs)
                freeifaddrs(ifs);
            return bolt_err_set(BOLT_ERR_CONFIG,
                                "BOLT_IF_INCLUDE=%s matches no interface that is up on %s; list this host's "
                                "with 'ip -4 addr' and name one of them (or a subnet they are on)",
                                incl, ctx->host_id);
        }
        if (ctx->naddrs == 0) {
            ctx->addrs[0].addr.s_addr = htonl(INADDR_LOOPBACK);
            ctx->addrs[0].mask.s_addr = htonl(0xff000000u);
            ctx->naddrs = 1;
        }
    }
    if (ifs)
        freeifaddrs(ifs);
    return BOLT_OK;
}

int tcp_wireup_publish(struct bolt_tl_ctx *ctx)
{
    /* Same value: same kernel and network namespace, so 127.0.0.1 reaches it. */
    if (bolt_host_id(ctx->host_id, sizeof ctx->host_id) != BOLT_OK)
        snprintf(ctx->host_id, sizeof ctx->host_id, "unknown/%ld", (long)getpid()); /* match nobody */
    for (char *p = ctx->host_id; *p; p++)
        if (*p == ' ' || *p == '\t' || *p == '\n')
            *p = '_';
    snprintf(ctx->host, sizeof ctx->host, "%.*s", (int)strcspn(ctx->host_id, "/"), ctx->host_id);
    int grc = gather_addrs(ctx);
    if (grc != BOLT_OK)
        return grc;
    char val[TCP_VALUE_MAX], a[INET_ADDRSTRLEN], m[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &ctx->bind_addr, a, sizeof a);
    int n = snprintf(val, sizeof val, "bolt-tcp/1 host=%s port=%u bind=%s addrs=", ctx->host_id,
                     (unsigned)ctx->port, ctx->bind_any ? "any" : a);
    for (int i = 0; i < ctx->naddrs && n > 0 && (size_t)n < sizeof val; i++) {
        inet_ntop(AF_INET, &ctx->addrs[i].addr, a, sizeof a);
        inet_ntop(AF_INET, &ctx->addrs[i].mask, m, sizeof m);
        n += snprintf(val + n, sizeof val - (size_t)n, "%s%s/%s", i ? "," : "", a, m);
    }
    if (n < 0 || (size_t)n >= sizeof val)
        return bolt_err_set(BOLT_ERR_INTERNAL, "tcp: address record too long");
    char key[32];
    snprintf(key, sizeof key, "tcp.%d", ctx->rank);
    int rc = bolt_bootstrap_put(key, val, (size_t)n + 1);
    if (rc != BOLT_OK)
        return rc;
    bolt_log(BOLT_LOG_DEBUG, "tcp: published %s", val);
    return BOLT_OK;
}

/* ---- a peer's record ---- */

struct tcp_remote {
    char host[TCP_HOST_ID_MAX];
    unsigned port;
    int bind_any;
    struct in_addr bind;
    struct tcp_ifaddr addrs[TCP_MAX_ADDRS];
    int naddrs;
};

static int parse_remote(const char *val, struct tcp_remote *r)
{
    memset(r, 0, sizeof *r);
    char buf[TCP_VALUE_MAX];
    snprintf(buf, sizeof buf, "%s", val);
    char *save = NULL;
    char *tok = strtok_r(buf, " ", &save);
    if (!tok || strcmp(tok, "bolt-tcp/1") != 0)
        return -1;
    int have_port = 0, have_addrs = 0;
    while ((tok = strtok_r(NULL, " ", &save))) {
        if (strncmp(tok, "host=", 5) == 0) {
            snprintf(r->host, sizeof r->host, "%s", tok + 5);
        } else if (strncmp(tok, "port=", 5) == 0) {
            char *end;
            unsigned long p = strtoul(tok + 5, &end, 10);
            if (*end || p == 0 || p > 65535)
                return -1;
            r->port = (unsigned)p;
            have_port = 1;
        } else if (strncmp(tok, "bind=", 5) == 0) {
            r->bind_any = strcmp(tok + 5, "any") == 0;
            if (!r->bind_any && inet_pton(AF_INET, tok + 5, &r->bind) != 1)
                return -1;
        } else if (strncmp(tok, "addrs=", 6) == 0) {
            char *s2 = NULL;
            for (char *a = strtok_r(tok + 6, ",", &s2); a && r->naddrs < TCP_MAX_ADDRS;
                 a = strtok_r(NULL, ",", &s2)) {
                char *slash = strchr(a, '/');
                if (!slash)
                    return -1;
                *slash = '\0';
                struct tcp_ifaddr *x = &r->addrs[r->naddrs];
                if (inet_pton(AF_INET, a, &x->addr) != 1 ||
                    inet_pton(AF_INET, slash + 1, &x->mask) != 1)
                    return -1;
                r->naddrs++;
            }
            have_addrs = r->naddrs > 0;
        }
    }
    return have_port && have_addrs ? 0 : -1;
}

static int prefix_len(struct in_addr mask)
{
    return __builtin_popcount(ntohl(mask.s_addr));
}

/* The addresses to try for peer r, best first (see the top of this file).
 * Among the shared subnets the narrowest comes first: a /30 is a cable to
 * that very peer, a /24 a LAN that reaches it too (the path failover moves
 * to when the cable breaks). */
static int choose_addrs(const struct bolt_tl_ctx *ctx, const struct tcp_remote *r,
                        struct in_addr *out, struct tcp_remote_info *info)
{
    int n = 0;
    info->same_host = strcmp(r->host, ctx->host_id) == 0;
    info->nshared = 0;
    if (info->same_host) {
        if (!r->bind_any) {
            out[n++] = r->bind;
            return n;
        }
        out[n++].s_addr = htonl(INADDR_LOOPBACK);
    }
    unsigned char used[TCP_MAX_ADDRS] = {0};
    int plen[TCP_MAX_ADDRS];
    int first = n;
    for (int i = 0; i < r->naddrs; i++) {
        if (first && r->addrs[i].addr.s_addr == out[0].s_addr)
            used[i] = 1; /* its loopback address, listed first already */
        for (int j = 0; j < ctx->naddrs && !used[i] && n < TCP_MAX_ADDRS; j++) {
            uint32_t m = ctx->addrs[j].mask.s_addr;
            if ((r->addrs[i].addr.s_addr & m) == (ctx->addrs[j].addr.s_addr & m)) {
                used[i] = 1;
                /* stable insertion by prefix length, longest first */
                int p = prefix_len(ctx->addrs[j].mask), k = n++;
                while (k > first && plen[k - 1] < p) {
                    out[k] = out[k - 1];
                    plen[k] = plen[k - 1];
                    k--;
                }
                out[k] = r->addrs[i].addr;
                plen[k] = p;
            }
        }
    }
    info->nshared = n - first;
    for (int i = 0; i < r->naddrs && n < TCP_MAX_ADDRS; i++)
        if (!used[i])
            out[n++] = r->addrs[i].addr;
    return n;
}

const char *tcp_addr_name(const struct sockaddr_in *sa, char *buf, size_t cap)
{
    if (!inet_ntop(AF_INET, &sa->sin_addr, buf, (socklen_t)cap))
        snprintf(buf, cap, "?");
    return buf;
}

int tcp_fetch_remote(struct bolt_tl_ctx *ctx, int peer, struct sockaddr_in *sa,
                     struct tcp_remote_info *info)
{
    char key[32], val[TCP_VALUE_MAX];
    size_t len = 0;
    snprintf(key, sizeof key, "tcp.%d", peer);
    int rc = bolt_bootstrap_get(key, val, sizeof val - 1, &len);
    if (rc != BOLT_OK)
        return rc;
    val[len < sizeof val ? len : sizeof val - 1] = '\0';
    struct tcp_remote r;
    if (len >= sizeof val || parse_remote(val, &r) != 0)
        return bolt_err_set(BOLT_ERR_PROTO, "tcp: rank %d published a malformed address (%.80s)",
                            peer, val);
    struct in_addr a[TCP_MAX_ADDRS];
    int n = choose_addrs(ctx, &r, a, info);
    for (int i = 0; i < n; i++) {
        memset(&sa[i], 0, sizeof sa[i]);
        sa[i].sin_family = AF_INET;
        sa[i].sin_port = htons((uint16_t)r.port);
        sa[i].sin_addr = a[i];
    }
    info->n = n;
    /* The host identity is "name/boot id/namespace": the name is enough here. */
    snprintf(info->host, sizeof info->host, "%.*s", (int)strcspn(r.host, "/"), r.host);
    return BOLT_OK;
}
