/*
 * bootstrap.c — the ranks' client of boltrun's key-value store.
 *
 * One blocking connection per process, opened by bolt_bootstrap_open(). Every
 * call is bounded by BOLT_TIMEOUT seconds. Protocol: runtime/kvs_wire.h.
 */
#include "runtime/bootstrap.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "runtime/config.h"
#include "runtime/crypto.h"
#include "runtime/errors.h"
#include "runtime/kvs_wire.h"

static struct {
    int fd;            /* -1 when closed */
    int rank, size;
    double timeout;    /* seconds */
    char addr[64];     /* "ip:port", for messages */
    uint8_t *buf;      /* reply buffer, BOLT_KVS_MAX_FRAME bytes */
} bs = {.fd = -1};

int bolt_bootstrap_is_open(void)
{
    return bs.fd >= 0;
}

void bolt_bootstrap_close(void)
{
    if (bs.fd >= 0)
        close(bs.fd);
    bs.fd = -1;
    free(bs.buf);
    bs.buf = NULL;
}

/* Turns an I/O result into an error naming the store and what was under way
 * (`doing` reads after "while": "waiting for boltrun's greeting"). */
static int io_error(int rc, const char *doing)
{
    int e = errno;
    bolt_bootstrap_close();
    if (rc == BOLT_ERR_TIMEOUT)
        return bolt_err_set(BOLT_ERR_TIMEOUT,
                            "timed out after %g s while %s (boltrun's key-value store at %s); "
                            "BOLT_TIMEOUT sets the limit",
                            bs.timeout, doing, bs.addr);
    if (rc == BOLT_ERR_PEER)
        return bolt_err_set(BOLT_ERR_BOOTSTRAP,
                            "boltrun's key-value store at %s closed the connection while %s (%s); "
                            "boltrun has probably ended the job",
                            bs.addr, doing, e ? strerror(e) : "end of file");
    return bolt_err_set(BOLT_ERR_BOOTSTRAP, "I/O error while %s with boltrun's key-value store at %s: %s",
                        doing, bs.addr, strerror(e));
}

static int connect_deadline(const struct sockaddr_in *sa, double deadline, int *out)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return bolt_err_set(BOLT_ERR_SYS, "cannot create a socket for boltrun's key-value store: %s",
                            strerror(errno));
    (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
    (void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    bolt_kvs_nosigpipe(fd);
    int one = 1;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    int err = 0;
    if (connect(fd, (const struct sockaddr *)sa, sizeof *sa) != 0) {
        if (errno != EINPROGRESS && errno != EINTR) {
            err = errno;
        } else {
            for (;;) {
                double left = deadline - bolt_kvs_now();
                if (left <= 0) {
                    close(fd);
                    return bolt_err_set(BOLT_ERR_TIMEOUT,
                                        "timed out after %g s connecting to boltrun's key-value store at %s; "
                                        "is boltrun still running? (BOLT_TIMEOUT sets the limit)",
                                        bs.timeout, bs.addr);
                }
                struct pollfd p = {.fd = fd, .events = POLLOUT};
                int r = poll(&p, 1, (int)(left * 1000) + 1);
                if (r < 0 && errno == EINTR)
                    continue;
                if (r < 0) {
                    err = errno;
                    break;
                }
                if (r == 0)
                    continue;
                socklen_t l = sizeof err;
                if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &l) != 0)
                    err = errno;
                break;
            }
        }
    }
    if (err != 0) {
        close(fd);
        return bolt_err_set(BOLT_ERR_BOOTSTRAP,
                            "cannot reach boltrun's key-value store at %s (%s); was this program started by boltrun?",
                            bs.addr, strerror(err));
    }
    *out = fd;
    return BOLT_OK;
}

int bolt_bootstrap_open(int rank, int size)
{
    if (bs.fd >= 0)
        return BOLT_OK;
    int rc = bolt_config_load();
    if (rc != BOLT_OK)
        return rc;
    if (rank < 0 || size <= 0 || rank >= size)
        return bolt_err_set(BOLT_ERR_ARG, "bootstrap: rank %d is not in a job of %d ranks", rank, size);
    bs.rank = rank;
    bs.size = size;
    bs.timeout = bolt_param_double(BOLT_P_TIMEOUT);
    if (!(bs.timeout > 0))
        bs.timeout = 60;

    const char *addr = getenv("BOLT_KVS_ADDR");
    const char *secret_hex = getenv("BOLT_JOB_SECRET");
    if (addr == NULL || *addr == '\0')
        return bolt_err_set(BOLT_ERR_BOOTSTRAP,
                            "BOLT_KVS_ADDR is not set, so there is no key-value store to join; "
                            "start this program with boltrun (e.g. boltrun -np 2 ./prog)");
    snprintf(bs.addr, sizeof bs.addr, "%s", addr);
    struct sockaddr_in sa;
    const char *why = NULL;
    if (bolt_kvs_parse_addr(addr, &sa, &why) != BOLT_OK)
        return bolt_err_set(BOLT_ERR_BOOTSTRAP, "BOLT_KVS_ADDR='%s' is malformed (%s); it is set by boltrun, "
                            "do not change it", addr, why);
    uint8_t secret[BOLT_SECRET_BYTES];
    if (secret_hex == NULL || bolt_hex_decode(secret_hex, secret, sizeof secret) != BOLT_OK)
        return bolt_err_set(BOLT_ERR_AUTH,
                            "BOLT_JOB_SECRET is %s; it must be the %d hex digits boltrun sets for the job "
                            "(start this program with boltrun)",
                            secret_hex ? "malformed" : "not set", 2 * BOLT_SECRET_BYTES);

    double deadline = bolt_kvs_now() + bs.timeout;
    int fd = -1;
    rc = connect_deadline(&sa, deadline, &fd);
    if (rc != BOLT_OK)
        return rc;
    bs.fd = fd;

    uint8_t hello[BOLT_KVS_HELLO_BYTES], nonce[BOLT_KVS_NONCE_BYTES], mac[BOLT_HMAC_BYTES];
    uint8_t auth[BOLT_KVS_AUTH_BYTES], ok = 0;
    rc = bolt_kvs_read_full(fd, hello, sizeof hello, deadline);
    if (rc != BOLT_OK)
        return io_error(rc, "waiting for boltrun's greeting");
    if (bolt_kvs_hello_decode(hello, nonce) != BOLT_OK) {
        bolt_bootstrap_close();
        return bolt_err_set(BOLT_ERR_PROTO,
                            "%s does not speak Bolt's key-value protocol (bad greeting); "
                            "BOLT_KVS_ADDR points to something other than this job's boltrun", addr);
    }
    rc = bolt_kvs_auth_mac(secret, nonce, (uint32_t)rank, mac);
    if (rc != BOLT_OK) {
        bolt_bootstrap_close();
        return rc;
    }
    bolt_kvs_auth_encode((uint32_t)rank, mac, auth);
    rc = bolt_kvs_write_full(fd, auth, sizeof auth, deadline);
    if (rc != BOLT_OK)
        return io_error(rc, "authenticating");
    rc = bolt_kvs_read_full(fd, &ok, 1, deadline);
    if (rc == BOLT_ERR_PEER || (rc == BOLT_OK && ok != BOLT_KVS_AUTH_OK)) {
        bolt_bootstrap_close();
        return bolt_err_set(BOLT_ERR_AUTH,
                            "boltrun's key-value store at %s refused rank %d: BOLT_JOB_SECRET is not this job's "
                            "secret (was it changed, or is BOLT_KVS_ADDR from another job?)",
                            addr, rank);
    }
    if (rc != BOLT_OK)
        return io_error(rc, "authenticating");
    bs.buf = malloc(4 + BOLT_KVS_MAX_FRAME);
    if (bs.buf == NULL) {
        bolt_bootstrap_close();
        return bolt_err_set(BOLT_ERR_NOMEM, "out of memory for the bootstrap buffer (%d bytes)",
                            4 + BOLT_KVS_MAX_FRAME);
    }
    return BOLT_OK;
}

static int send_msg(const struct bolt_kvs_msg *m, double deadline, const char *doing)
{
    size_t n = bolt_kvs_encoded_size(m), len;
    const char *why = NULL;
    if (n == 0 || bolt_kvs_encode(m, bs.buf, 4 + BOLT_KVS_MAX_FRAME, &len, &why) != BOLT_OK)
        return bolt_err_set(BOLT_ERR_ARG, "bootstrap %s: %s", bolt_kvs_op_name(m->op), why ? why : "invalid");
    int rc = bolt_kvs_write_full(bs.fd, bs.buf, len, deadline);
    return rc == BOLT_OK ? BOLT_OK : io_error(rc, doing);
}

/* Reads one frame into bs.buf and decodes it; expects op `want`. */
static int recv_msg(int want, struct bolt_kvs_msg *m, double deadline, const char *doing)
{
    int rc = bolt_kvs_read_full(bs.fd, bs.buf, 4, deadline);
    if (rc == BOLT_OK) {
        size_t framelen = 0;
        const char *why = NULL;
        if (bolt_kvs_frame_complete(bs.buf, 4, &framelen, &why) < 0 ||
            (rc = bolt_kvs_read_full(bs.fd, bs.buf + 4, bolt_kvs_get_u32(bs.buf), deadline)) != BOLT_OK) {
            if (rc != BOLT_OK)
                return io_error(rc, doing);
            bolt_bootstrap_close();
            return bolt_err_set(BOLT_ERR_PROTO, "malformed reply from boltrun's key-value store at %s: %s",
                                bs.addr, why);
        }
        if (bolt_kvs_decode(bs.buf + 4, bolt_kvs_get_u32(bs.buf), m, &why) != BOLT_OK) {
            bolt_bootstrap_close();
            return bolt_err_set(BOLT_ERR_PROTO, "malformed reply from boltrun's key-value store at %s: %s",
                                bs.addr, why);
        }
        if (m->op == BOLT_KVS_FENCE_FAILED && want == BOLT_KVS_FENCE_DONE) /* the connection stays usable */
            return bolt_err_set(BOLT_ERR_BOOTSTRAP, "fence failed: %.*s", (int)m->vallen, (const char *)m->val);
        if (m->op != want) {
            bolt_bootstrap_close();
            return bolt_err_set(BOLT_ERR_PROTO,
                                "boltrun's key-value store at %s answered %s where %s was expected",
                                bs.addr, bolt_kvs_op_name(m->op), bolt_kvs_op_name(want));
        }
        return BOLT_OK;
    }
    return io_error(rc, doing);
}

static int check_open(const char *what)
{
    if (bs.fd < 0)
        return bolt_err_set(BOLT_ERR_NOT_INIT,
                            "bootstrap %s: not connected to boltrun's key-value store "
                            "(bolt_bootstrap_open was not called, or the connection failed earlier)",
                            what);
    return BOLT_OK;
}

static int check_key(const char *key, const char *what)
{
    size_t kl = key ? strlen(key) : 0;
    if (kl == 0 || kl > BOLT_KVS_MAX_KEY)
        return bolt_err_set(BOLT_ERR_ARG, "bootstrap %s: key must be 1 to %d bytes long (got %zu)", what,
                            BOLT_KVS_MAX_KEY, kl);
    return BOLT_OK;
}

int bolt_bootstrap_put(const char *key, const void *val, size_t len)
{
    int rc;
    if ((rc = check_open("put")) != BOLT_OK || (rc = check_key(key, "put")) != BOLT_OK)
        return rc;
    if (len > BOLT_KVS_MAX_VALUE)
        return bolt_err_set(BOLT_ERR_ARG, "bootstrap put of '%s': value of %zu bytes exceeds the %u-byte limit",
                            key, len, BOLT_KVS_MAX_VALUE);
    if (len > 0 && val == NULL)
        return bolt_err_set(BOLT_ERR_ARG, "bootstrap put of '%s': NULL value with length %zu", key, len);
    struct bolt_kvs_msg m = {.op = BOLT_KVS_PUT, .key = key, .keylen = strlen(key), .val = val, .vallen = len};
    return send_msg(&m, bolt_kvs_now() + bs.timeout, "sending a put");
}

int bolt_bootstrap_get(const char *key, void *val, size_t cap, size_t *len)
{
    int rc;
    if ((rc = check_open("get")) != BOLT_OK || (rc = check_key(key, "get")) != BOLT_OK)
        return rc;
    double deadline = bolt_kvs_now() + bs.timeout;
    size_t kl = strlen(key);
    struct bolt_kvs_msg m = {.op = BOLT_KVS_GET, .key = key, .keylen = kl};
    if ((rc = send_msg(&m, deadline, "sending a get")) != BOLT_OK)
        return rc;
    char doing[BOLT_KVS_MAX_KEY + 64];
    snprintf(doing, sizeof doing, "waiting for key '%s' (no rank has put it yet)", key);
    if ((rc = recv_msg(BOLT_KVS_VALUE, &m, deadline, doing)) != BOLT_OK)
        return rc;
    if (m.keylen != kl || memcmp(m.key, key, kl) != 0) {
        bolt_bootstrap_close();
        return bolt_err_set(BOLT_ERR_PROTO, "boltrun's key-value store at %s answered a get of '%s' with "
                            "another key", bs.addr, key);
    }
    if (len)
        *len = m.vallen;
    if (val && m.vallen)
        memcpy(val, m.val, m.vallen < cap ? m.vallen : cap);
    return BOLT_OK;
}

int bolt_bootstrap_fence(void)
{
    int rc;
    if ((rc = check_open("fence")) != BOLT_OK)
        return rc;
    double deadline = bolt_kvs_now() + bs.timeout;
    struct bolt_kvs_msg m = {.op = BOLT_KVS_FENCE};
    if ((rc = send_msg(&m, deadline, "entering a fence")) != BOLT_OK)
        return rc;
    return recv_msg(BOLT_KVS_FENCE_DONE, &m, deadline,
                    "waiting for the other ranks to enter the fence (some rank is late or stuck)");
}

int bolt_bootstrap_abort(int code, const char *msg)
{
    int rc;
    if ((rc = check_open("abort")) != BOLT_OK)
        return rc;
    if (msg == NULL)
        msg = "";
    size_t ml = strlen(msg);
    if (ml > BOLT_KVS_MAX_ABORT_MSG)
        ml = BOLT_KVS_MAX_ABORT_MSG;
    struct bolt_kvs_msg m = {.op = BOLT_KVS_ABORT, .code = code, .val = msg, .vallen = ml};
    return send_msg(&m, bolt_kvs_now() + bs.timeout, "sending an abort");
}
