/*
 * kvs_wire.c — encoding, decoding and deadline-bounded I/O for the key-value
 * store protocol (described in kvs_wire.h).
 */
#include "runtime/kvs_wire.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bolt.h"

#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0 /* macOS: SO_NOSIGPIPE on the socket instead */
#endif

void bolt_kvs_put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

uint32_t bolt_kvs_get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

const char *bolt_kvs_op_name(int op)
{
    switch (op) {
    case BOLT_KVS_PUT: return "PUT";
    case BOLT_KVS_GET: return "GET";
    case BOLT_KVS_FENCE: return "FENCE";
    case BOLT_KVS_ABORT: return "ABORT";
    case BOLT_KVS_VALUE: return "VALUE";
    case BOLT_KVS_FENCE_DONE: return "FENCE_DONE";
    case BOLT_KVS_FENCE_FAILED: return "FENCE_FAILED";
    default: return "unknown";
    }
}

static int has_key(int op) { return op == BOLT_KVS_PUT || op == BOLT_KVS_GET || op == BOLT_KVS_VALUE; }
static int has_value(int op) { return op == BOLT_KVS_PUT || op == BOLT_KVS_VALUE; }
/* A message (u32 length + text), up to BOLT_KVS_MAX_ABORT_MSG bytes. */
static int has_text(int op) { return op == BOLT_KVS_ABORT || op == BOLT_KVS_FENCE_FAILED; }

static const char *check_msg(const struct bolt_kvs_msg *m)
{
    switch (m->op) {
    case BOLT_KVS_PUT: case BOLT_KVS_GET: case BOLT_KVS_FENCE: case BOLT_KVS_ABORT:
    case BOLT_KVS_VALUE: case BOLT_KVS_FENCE_DONE: case BOLT_KVS_FENCE_FAILED:
        break;
    default:
        return "unknown operation";
    }
    if (has_key(m->op)) {
        if (m->keylen == 0 || m->keylen > BOLT_KVS_MAX_KEY)
            return "key must be 1 to 255 bytes";
        if (m->key == NULL)
            return "key is NULL";
    }
    if (has_value(m->op) && m->vallen > BOLT_KVS_MAX_VALUE)
        return "value is larger than 1 MiB";
    if (has_text(m->op) && m->vallen > BOLT_KVS_MAX_ABORT_MSG)
        return "message is longer than 4096 bytes";
    if ((has_value(m->op) || has_text(m->op)) && m->vallen > 0 && m->val == NULL)
        return "value is NULL";
    return NULL;
}

size_t bolt_kvs_encoded_size(const struct bolt_kvs_msg *m)
{
    if (check_msg(m) != NULL)
        return 0;
    size_t n = 4 + 1;
    if (has_key(m->op))
        n += 1 + m->keylen;
    if (has_value(m->op))
        n += 4 + m->vallen;
    if (m->op == BOLT_KVS_ABORT)
        n += 4;
    if (has_text(m->op))
        n += 4 + m->vallen;
    if (m->op == BOLT_KVS_FENCE_DONE)
        n += 4;
    return n;
}

int bolt_kvs_encode(const struct bolt_kvs_msg *m, uint8_t *buf, size_t cap, size_t *outlen,
                    const char **why)
{
    const char *bad = check_msg(m);
    if (bad != NULL) {
        if (why) *why = bad;
        return BOLT_ERR_ARG;
    }
    size_t n = bolt_kvs_encoded_size(m);
    if (n > cap) {
        if (why) *why = "buffer too small";
        return BOLT_ERR_ARG;
    }
    uint8_t *p = buf;
    bolt_kvs_put_u32(p, (uint32_t)(n - 4));
    p += 4;
    *p++ = m->op;
    if (has_key(m->op)) {
        *p++ = (uint8_t)m->keylen;
        memcpy(p, m->key, m->keylen);
        p += m->keylen;
    }
    if (m->op == BOLT_KVS_ABORT) {
        bolt_kvs_put_u32(p, (uint32_t)m->code);
        p += 4;
    }
    if (has_value(m->op) || has_text(m->op)) {
        bolt_kvs_put_u32(p, (uint32_t)m->vallen);
        p += 4;
        if (m->vallen)
            memcpy(p, m->val, m->vallen);
        p += m->vallen;
    }
    if (m->op == BOLT_KVS_FENCE_DONE) {
        bolt_kvs_put_u32(p, m->round);
        p += 4;
    }
    *outlen = (size_t)(p - buf);
    return BOLT_OK;
}

int bolt_kvs_frame_complete(const uint8_t *buf, size_t have, size_t *framelen, const char **why)
{
    if (have < 4)
        return 0;
    uint32_t len = bolt_kvs_get_u32(buf);
    if (len == 0 || len > BOLT_KVS_MAX_FRAME) {
        if (why) *why = len == 0 ? "empty frame" : "frame longer than the protocol allows";
        return BOLT_ERR_PROTO;
    }
    if (have < 4 + (size_t)len)
        return 0;
    *framelen = 4 + (size_t)len;
    return 1;
}

int bolt_kvs_decode(const uint8_t *body, size_t len, struct bolt_kvs_msg *m, const char **why)
{
    const uint8_t *p = body, *end = body + len;
    const char *bad = NULL;
    memset(m, 0, sizeof *m);
    if (len < 1) {
        bad = "empty frame";
        goto fail;
    }
    m->op = *p++;
    switch (m->op) {
    case BOLT_KVS_PUT: case BOLT_KVS_GET: case BOLT_KVS_FENCE: case BOLT_KVS_ABORT:
    case BOLT_KVS_VALUE: case BOLT_KVS_FENCE_DONE: case BOLT_KVS_FENCE_FAILED:
        break;
    default:
        bad = "unknown operation";
        goto fail;
    }
    if (has_key(m->op)) {
        if (end - p < 1) { bad = "truncated key"; goto fail; }
        m->keylen = *p++;
        if (m->keylen == 0) { bad = "empty key"; goto fail; }
        if ((size_t)(end - p) < m->keylen) { bad = "truncated key"; goto fail; }
        m->key = (const char *)p;
        p += m->keylen;
    }
    if (m->op == BOLT_KVS_ABORT) {
        if (end - p < 4) { bad = "truncated abort code"; goto fail; }
        m->code = (int32_t)bolt_kvs_get_u32(p);
        p += 4;
    }
    if (has_value(m->op) || has_text(m->op)) {
        if (end - p < 4) { bad = "truncated value length"; goto fail; }
        m->vallen = bolt_kvs_get_u32(p);
        p += 4;
        size_t max = has_text(m->op) ? BOLT_KVS_MAX_ABORT_MSG : BOLT_KVS_MAX_VALUE;
        if (m->vallen > max) { bad = "value too long"; goto fail; }
        if ((size_t)(end - p) < m->vallen) { bad = "truncated value"; goto fail; }
        m->val = p;
        p += m->vallen;
    }
    if (m->op == BOLT_KVS_FENCE_DONE) {
        if (end - p < 4) { bad = "truncated fence round"; goto fail; }
        m->round = bolt_kvs_get_u32(p);
        p += 4;
    }
    if (p != end) {
        bad = "trailing bytes after the message";
        goto fail;
    }
    return BOLT_OK;
fail:
    if (why) *why = bad;
    return BOLT_ERR_PROTO;
}

void bolt_kvs_hello_encode(const uint8_t nonce[BOLT_KVS_NONCE_BYTES], uint8_t out[BOLT_KVS_HELLO_BYTES])
{
    memcpy(out, BOLT_KVS_MAGIC, BOLT_KVS_MAGIC_LEN);
    memcpy(out + BOLT_KVS_MAGIC_LEN, nonce, BOLT_KVS_NONCE_BYTES);
}

int bolt_kvs_hello_decode(const uint8_t in[BOLT_KVS_HELLO_BYTES], uint8_t nonce[BOLT_KVS_NONCE_BYTES])
{
    if (memcmp(in, BOLT_KVS_MAGIC, BOLT_KVS_MAGIC_LEN) != 0)
        return BOLT_ERR_PROTO;
    memcpy(nonce, in + BOLT_KVS_MAGIC_LEN, BOLT_KVS_NONCE_BYTES);
    return BOLT_OK;
}

int bolt_kvs_auth_mac(const uint8_t secret[BOLT_SECRET_BYTES], const uint8_t nonce[BOLT_KVS_NONCE_BYTES],
                      uint32_t rank, uint8_t mac[BOLT_HMAC_BYTES])
{
    uint8_t data[sizeof BOLT_KVS_AUTH_LABEL - 1 + BOLT_KVS_NONCE_BYTES + 4];
    size_t l = sizeof BOLT_KVS_AUTH_LABEL - 1;
    memcpy(data, BOLT_KVS_AUTH_LABEL, l);
    memcpy(data + l, nonce, BOLT_KVS_NONCE_BYTES);
    bolt_kvs_put_u32(data + l + BOLT_KVS_NONCE_BYTES, rank);
    return bolt_hmac_sha256(secret, BOLT_SECRET_BYTES, data, sizeof data, mac);
}

void bolt_kvs_auth_encode(uint32_t rank, const uint8_t mac[BOLT_HMAC_BYTES], uint8_t out[BOLT_KVS_AUTH_BYTES])
{
    bolt_kvs_put_u32(out, rank);
    memcpy(out + 4, mac, BOLT_HMAC_BYTES);
}

void bolt_kvs_auth_decode(const uint8_t in[BOLT_KVS_AUTH_BYTES], uint32_t *rank, uint8_t mac[BOLT_HMAC_BYTES])
{
    *rank = bolt_kvs_get_u32(in);
    memcpy(mac, in + 4, BOLT_HMAC_BYTES);
}

int bolt_kvs_auth_check(const uint8_t secret[BOLT_SECRET_BYTES], const uint8_t nonce[BOLT_KVS_NONCE_BYTES],
                        uint32_t rank, const uint8_t mac[BOLT_HMAC_BYTES])
{
    uint8_t want[BOLT_HMAC_BYTES];
    if (bolt_kvs_auth_mac(secret, nonce, rank, want) != BOLT_OK)
        return 0;
    return bolt_secure_equal(want, mac, BOLT_HMAC_BYTES);
}

int bolt_kvs_parse_addr(const char *text, struct sockaddr_in *sa, const char **why)
{
    char host[64];
    const char *colon = text ? strrchr(text, ':') : NULL;
    if (colon == NULL || colon == text) {
        if (why) *why = "expected IPv4-ADDRESS:PORT";
        return BOLT_ERR_ARG;
    }
    size_t hl = (size_t)(colon - text);
    if (hl >= sizeof host) {
        if (why) *why = "address too long";
        return BOLT_ERR_ARG;
    }
    memcpy(host, text, hl);
    host[hl] = '\0';
    char *end;
    errno = 0;
    unsigned long port = strtoul(colon + 1, &end, 10);
    if (colon[1] < '0' || colon[1] > '9' || *end != '\0' || errno != 0 || port == 0 || port > 65535) {
        if (why) *why = "port must be a number from 1 to 65535";
        return BOLT_ERR_ARG;
    }
    memset(sa, 0, sizeof *sa);
    sa->sin_family = AF_INET;
    sa->sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, host, &sa->sin_addr) != 1) {
        if (why) *why = "not an IPv4 address";
        return BOLT_ERR_ARG;
    }
    return BOLT_OK;
}

double bolt_kvs_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void bolt_kvs_nosigpipe(int fd)
{
#ifdef SO_NOSIGPIPE
    int one = 1;
    (void)setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof one);
#else
    (void)fd;
#endif
}

/* Waits for `events` on fd until deadline: 1 ready, 0 timed out, -1 error. */
static int wait_fd(int fd, short events, double deadline)
{
    for (;;) {
        double left = deadline - bolt_kvs_now();
        if (left <= 0)
            return 0;
        int ms = left > 1e6 ? 1000000000 : (int)(left * 1000.0) + 1;
        struct pollfd p = {.fd = fd, .events = events, .revents = 0};
        int r = poll(&p, 1, ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r > 0)
            return 1; /* ready, or POLLERR/POLLHUP: the next call says which */
    }
}

ssize_t bolt_kvs_send_some(int fd, const void *buf, size_t len)
{
    for (;;) {
        ssize_t w = send(fd, buf, len, MSG_NOSIGNAL);
        if (w < 0 && errno == ENOTSOCK)
            w = write(fd, buf, len);
        if (w >= 0)
            return w;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return 0;
        return -1;
    }
}

ssize_t bolt_kvs_recv_some(int fd, void *buf, size_t len)
{
    for (;;) {
        ssize_t r = read(fd, buf, len);
        if (r > 0)
            return r;
        if (r == 0) {
            errno = 0;
            return -1;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return 0;
        return -1;
    }
}

static int closed_errno(int e)
{
    return e == 0 || e == EPIPE || e == ECONNRESET || e == ENOTCONN || e == ECONNABORTED;
}

int bolt_kvs_write_full(int fd, const void *buf, size_t len, double deadline)
{
    const uint8_t *p = buf;
    while (len > 0) {
        ssize_t w = bolt_kvs_send_some(fd, p, len);
        if (w < 0)
            return closed_errno(errno) ? BOLT_ERR_PEER : BOLT_ERR_SYS;
        if (w == 0) {
            int r = wait_fd(fd, POLLOUT, deadline);
            if (r == 0)
                return BOLT_ERR_TIMEOUT;
            if (r < 0)
                return BOLT_ERR_SYS;
            continue;
        }
        p += w;
        len -= (size_t)w;
    }
    return BOLT_OK;
}

int bolt_kvs_read_full(int fd, void *buf, size_t len, double deadline)
{
    uint8_t *p = buf;
    while (len > 0) {
        ssize_t r = bolt_kvs_recv_some(fd, p, len);
        if (r < 0)
            return closed_errno(errno) ? BOLT_ERR_PEER : BOLT_ERR_SYS;
        if (r == 0) {
            int w = wait_fd(fd, POLLIN, deadline);
            if (w == 0)
                return BOLT_ERR_TIMEOUT;
            if (w < 0)
                return BOLT_ERR_SYS;
            continue;
        }
        p += r;
        len -= (size_t)r;
    }
    return BOLT_OK;
}
