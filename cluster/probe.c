/*
 * probe.c — proving and measuring a path between two hosts (see probe.h).
 */
#include "cluster/probe.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bolt.h"
#include "runtime/kvs_wire.h"

/* A path that does not connect within this long does not count: on a cable
 * the answer takes microseconds, and an address that nothing answers (ARP
 * unanswered) would otherwise hold the check for the system's timeout. */
#define CONNECT_S 1.0
#define EXCHANGE_S 3.0
/* Measuring one path: its whole budget, and what the sized round aims at. */
#define MEASURE_S 6.0
#define WARM_BYTES (256u * 1024)
#define ROUND_S 0.1
#define ROUNDS 3
#define MAX_PINGS 1000u
#define LAT_BATCHES 4u

static const char *io_why(int rc)
{
    if (rc == BOLT_ERR_TIMEOUT)
        return "no answer in time";
    if (rc == BOLT_ERR_PEER)
        return errno ? strerror(errno) : "the other end closed the connection";
    return strerror(errno);
}

int probe_listen(int *fd, uint32_t *port, char *err, size_t cap)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
    socklen_t sl = sizeof sa;
    if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(s, 128) != 0 ||
        getsockname(s, (struct sockaddr *)&sa, &sl) != 0) {
        snprintf(err, cap, "cannot listen for the probes on a TCP port: %s", strerror(errno));
        if (s >= 0)
            close(s);
        return -1;
    }
    (void)fcntl(s, F_SETFD, FD_CLOEXEC);
    *fd = s;
    *port = ntohs(sa.sin_port);
    return 0;
}

static void addr_text(int fd, int peer, char *out, size_t cap)
{
    struct sockaddr_in sa;
    socklen_t sl = sizeof sa;
    int rc = peer ? getpeername(fd, (struct sockaddr *)&sa, &sl) : getsockname(fd, (struct sockaddr *)&sa, &sl);
    if (rc != 0 || inet_ntop(AF_INET, &sa.sin_addr, out, (socklen_t)cap) == NULL)
        snprintf(out, cap, "?");
}

/* Moves n bytes each way at once. Returns 0 with the seconds receiving took,
 * or a BOLT_ERR_* code. (Both ends may run in one process: buffers are the
 * call's own.) */
static int duplex(int fd, uint32_t n, double deadline, double *rx_s)
{
    enum { CHUNK = 65536 };
    uint8_t *out = calloc(1, CHUNK), *in = malloc(CHUNK);
    size_t sent = 0, got = 0;
    double t0 = bolt_kvs_now();
    int rc = out && in ? BOLT_OK : BOLT_ERR_SYS;
    while (rc == BOLT_OK && (sent < n || got < n)) {
        struct pollfd p = {.fd = fd, .events = (short)((sent < n ? POLLOUT : 0) | (got < n ? POLLIN : 0))};
        double left = deadline - bolt_kvs_now();
        if (left <= 0) {
            rc = BOLT_ERR_TIMEOUT;
            break;
        }
        if (poll(&p, 1, (int)(left * 1000) + 1) < 0 && errno != EINTR) {
            rc = BOLT_ERR_SYS;
            break;
        }
        if (p.revents & (POLLIN | POLLHUP | POLLERR) && got < n) {
            size_t want = n - got < CHUNK ? n - got : CHUNK;
            ssize_t r = bolt_kvs_recv_some(fd, in, want);
            if (r < 0)
                rc = BOLT_ERR_PEER;
            got += r > 0 ? (size_t)r : 0;
            if (got == n)
                *rx_s = bolt_kvs_now() - t0;
        }
        if (rc == BOLT_OK && p.revents & POLLOUT && sent < n) {
            size_t want = n - sent < CHUNK ? n - sent : CHUNK;
            ssize_t w = bolt_kvs_send_some(fd, out, want);
            if (w < 0)
                rc = BOLT_ERR_PEER;
            sent += w > 0 ? (size_t)w : 0;
        }
    }
    free(out);
    free(in);
    return rc;
}

/* L's side of a measurement. */
static void serve_measure(int fd, double deadline)
{
    uint8_t b[8];
    if (bolt_kvs_read_full(fd, b, 4, deadline) != BOLT_OK)
        return;
    uint32_t pings = bolt_kvs_get_u32(b);
    for (uint32_t i = 0; i < pings && i < MAX_PINGS; i++)
        if (bolt_kvs_read_full(fd, b, 8, deadline) != BOLT_OK || bolt_kvs_write_full(fd, b, 8, deadline) != BOLT_OK)
            return;
    for (int round = 0; round < ROUNDS; round++) {
        double rx = 0;
        if (bolt_kvs_read_full(fd, b, 4, deadline) != BOLT_OK)
            return;
        uint32_t n = bolt_kvs_get_u32(b);
        if (n > (64u << 20) || duplex(fd, n, deadline, &rx) != BOLT_OK)
            return;
        bolt_kvs_put_u32(b, (uint32_t)(rx * 1e6));
        if (bolt_kvs_write_full(fd, b, 4, deadline) != BOLT_OK)
            return;
    }
}

void probe_serve(const struct probe_self *me, int fd)
{
    double deadline = bolt_kvs_now() + EXCHANGE_S;
    uint8_t nl[BOLT_KVS_NONCE_BYTES], hello[BOLT_KVS_HELLO_BYTES], in[BOLT_KVS_AUTH_BYTES + BOLT_KVS_HELLO_BYTES + 1];
    uint8_t mac[BOLT_HMAC_BYTES], np[BOLT_KVS_NONCE_BYTES], out[BOLT_KVS_AUTH_BYTES];
    uint32_t who;
    bolt_kvs_nosigpipe(fd);
    if (bolt_random_bytes(nl, sizeof nl) != 0)
        goto out;
    bolt_kvs_hello_encode(nl, hello);
    if (bolt_kvs_write_full(fd, hello, sizeof hello, deadline) != BOLT_OK ||
        bolt_kvs_read_full(fd, in, sizeof in, deadline) != BOLT_OK)
        goto out;
    bolt_kvs_auth_decode(in, &who, mac);
    if (!bolt_kvs_auth_check(me->secret, nl, who, mac) ||
        bolt_kvs_hello_decode(in + BOLT_KVS_AUTH_BYTES, np) != BOLT_OK)
        goto out; /* not this check's: it learns nothing */
    if (bolt_kvs_auth_mac(me->secret, np, me->index, mac) != 0)
        goto out;
    bolt_kvs_auth_encode(me->index, mac, out);
    if (bolt_kvs_write_full(fd, out, sizeof out, deadline) != BOLT_OK)
        goto out;
    if (in[sizeof in - 1] == 1)
        serve_measure(fd, bolt_kvs_now() + MEASURE_S);
    else if (in[sizeof in - 1] == 2)
        probe_rdma_serve(me, fd, who);
out:
    close(fd);
}

int probe_open_proven(const struct probe_self *me, const char *src, const char *dst, uint32_t port, int mode,
                      uint32_t *who, char *err, size_t cap)
{
    struct sockaddr_in s = {.sin_family = AF_INET}, d = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    if (inet_pton(AF_INET, src, &s.sin_addr) != 1 || inet_pton(AF_INET, dst, &d.sin_addr) != 1) {
        snprintf(err, cap, "not an IPv4 address pair: %s -> %s", src, dst);
        return -1;
    }
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) {
        snprintf(err, cap, "socket: %s", strerror(errno));
        return -1;
    }
    (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
    (void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    bolt_kvs_nosigpipe(fd);
    int one = 1;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    int rc = -1;
    if (bind(fd, (struct sockaddr *)&s, sizeof s) != 0) {
        snprintf(err, cap, "cannot use %s as the source: %s", src, strerror(errno));
        goto out;
    }
    if (connect(fd, (struct sockaddr *)&d, sizeof d) != 0 && errno != EINPROGRESS) {
        snprintf(err, cap, "%s", strerror(errno));
        goto out;
    }
    struct pollfd p = {.fd = fd, .events = POLLOUT};
    int e = 0;
    socklen_t el = sizeof e;
    int pr = poll(&p, 1, (int)(CONNECT_S * 1000));
    if (pr == 0) {
        snprintf(err, cap, "no answer within %g s", CONNECT_S);
        goto out;
    }
    if (pr < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) != 0 || e != 0) {
        snprintf(err, cap, "%s", strerror(pr < 0 ? errno : e));
        goto out;
    }
    double deadline = bolt_kvs_now() + EXCHANGE_S;
    uint8_t hello[BOLT_KVS_HELLO_BYTES], nl[BOLT_KVS_NONCE_BYTES], np[BOLT_KVS_NONCE_BYTES];
    uint8_t mac[BOLT_HMAC_BYTES], out[BOLT_KVS_AUTH_BYTES + BOLT_KVS_HELLO_BYTES + 1], in[BOLT_KVS_AUTH_BYTES];
    int io = bolt_kvs_read_full(fd, hello, sizeof hello, deadline);
    if (io != BOLT_OK || bolt_kvs_hello_decode(hello, nl) != BOLT_OK) {
        snprintf(err, cap, "connected, but no Bolt check answered there (%s)",
                 io != BOLT_OK ? io_why(io) : "wrong greeting");
        goto out;
    }
    if (bolt_random_bytes(np, sizeof np) != 0 || bolt_kvs_auth_mac(me->secret, nl, me->index, mac) != 0) {
        snprintf(err, cap, "no random bytes or HMAC from the crypto library");
        goto out;
    }
    bolt_kvs_auth_encode(me->index, mac, out);
    bolt_kvs_hello_encode(np, out + BOLT_KVS_AUTH_BYTES);
    out[sizeof out - 1] = (uint8_t)mode;
    io = bolt_kvs_write_full(fd, out, sizeof out, deadline);
    if (io == BOLT_OK)
        io = bolt_kvs_read_full(fd, in, sizeof in, deadline);
    if (io != BOLT_OK) {
        snprintf(err, cap, "the other end did not prove itself (%s): another check's, or not Bolt's",
                 io_why(io));
        goto out;
    }
    bolt_kvs_auth_decode(in, who, mac);
    if (!bolt_kvs_auth_check(me->secret, np, *who, mac)) {
        snprintf(err, cap, "the other end answered with a wrong proof: not this check's");
        goto out;
    }
    rc = 0;
out:
    if (rc != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

void probe_connect(const struct probe_self *me, const struct ck_probe *p, struct ck_probed *out)
{
    memset(out, 0, sizeof *out);
    out->id = p->id;
    double t0 = bolt_kvs_now();
    int fd = probe_open_proven(me, p->src, p->dst, p->port, 0, &out->who, out->err, sizeof out->err);
    if (fd < 0)
        return;
    out->ok = 1;
    out->us = (uint32_t)((bolt_kvs_now() - t0) * 1e6);
    addr_text(fd, 0, out->local, sizeof out->local);
    addr_text(fd, 1, out->remote, sizeof out->remote);
    close(fd);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static uint32_t kbs(uint32_t bytes, double s)
{
    double v = s > 0 ? bytes / s / 1000.0 : 0;
    return v > 4e9 ? 4000000000u : (uint32_t)v;
}

void probe_measure(const struct probe_self *me, const struct ck_measure *m, struct ck_measured *out)
{
    memset(out, 0, sizeof *out);
    out->id = m->id;
    uint32_t who;
    int fd = probe_open_proven(me, m->src, m->dst, m->port, 1, &who, out->err, sizeof out->err);
    if (fd < 0)
        return;
    double deadline = bolt_kvs_now() + MEASURE_S;
    uint32_t pings = m->pings < 1 ? 1 : m->pings > MAX_PINGS ? MAX_PINGS : m->pings;
    double *rt = calloc(pings, sizeof *rt);
    uint8_t b[8] = {0};
    int io = rt ? BOLT_OK : BOLT_ERR_SYS;
    const char *stage = "latency";
    bolt_kvs_put_u32(b, pings);
    if (io == BOLT_OK)
        io = bolt_kvs_write_full(fd, b, 4, deadline);
    for (uint32_t i = 0; io == BOLT_OK && i < pings; i++) {
        double t = bolt_kvs_now();
        io = bolt_kvs_write_full(fd, b, 8, deadline);
        if (io == BOLT_OK)
            io = bolt_kvs_read_full(fd, b, 8, deadline);
        rt[i] = bolt_kvs_now() - t;
    }
    if (io == BOLT_OK) {
        /* The median of each quarter of the round trips, the lowest
         * counting: a burst of load elsewhere on a host (which slows a run
         * of consecutive round trips) does not make the link look slow. */
        uint32_t q = pings >= LAT_BATCHES ? pings / LAT_BATCHES : pings;
        double best = 0;
        for (uint32_t k = 0; k + q <= pings; k += q) {
            qsort(rt + k, q, sizeof *rt, cmp_double);
            if (k == 0 || rt[k + q / 2] < best)
                best = rt[k + q / 2];
        }
        out->lat_ns = (uint32_t)(best / 2 * 1e9);
    }
    /* A warm-up round tells the size of a round of about ROUND_S; the best
     * of the sized rounds counts (a busy host only ever slows a round). */
    uint32_t n = WARM_BYTES;
    for (int round = 0; io == BOLT_OK && round < ROUNDS; round++) {
        double rx = 0;
        stage = "bandwidth";
        bolt_kvs_put_u32(b, n);
        io = bolt_kvs_write_full(fd, b, 4, deadline);
        if (io == BOLT_OK)
            io = duplex(fd, n, deadline, &rx);
        if (io == BOLT_OK)
            io = bolt_kvs_read_full(fd, b, 4, deadline);
        if (io != BOLT_OK)
            break;
        double peer_rx = bolt_kvs_get_u32(b) / 1e6;
        uint32_t tx_kbs = kbs(n, peer_rx), rx_kbs = kbs(n, rx);
        if (round == 1 || tx_kbs > out->tx_kbs)
            out->tx_kbs = tx_kbs;
        if (round == 1 || rx_kbs > out->rx_kbs)
            out->rx_kbs = rx_kbs;
        double slow = rx > peer_rx ? rx : peer_rx;
        double want = slow > 0 ? n * ROUND_S / slow : (double)m->bytes;
        n = want > m->bytes ? m->bytes : want < WARM_BYTES ? WARM_BYTES : (uint32_t)want;
    }
    if (io == BOLT_OK)
        out->ok = 1;
    else
        snprintf(out->err, sizeof out->err, "%s measurement failed: %s", stage, rt ? io_why(io) : "out of memory");
    free(rt);
    close(fd);
}
