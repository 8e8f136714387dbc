/*
 * kvs_server.c — boltrun's key-value store: PUT, GET (deferred until the key
 * exists), FENCE (counted per round over the job's ranks) and ABORT.
 * Single-threaded and nonblocking; boltrun's event loop drives it.
 */
#include "launcher/kvs_server.h"

#include "launcher/iofwd.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "runtime/kvs_wire.h"

enum conn_state { C_AUTH, C_READY };

struct kvs_server;

struct conn {
    struct kvs_server *srv;
    int fd;
    enum conn_state state;
    double deadline;          /* for C_AUTH */
    uint8_t nonce[BOLT_KVS_NONCE_BYTES];
    char peer[64];            /* "ip:port" */
    int rank;                 /* once authenticated */
    int in_fence;
    uint8_t *in;
    size_t inlen, incap;
    uint8_t *out;
    size_t outoff, outlen, outcap;
    int dead;                 /* to be closed */
    unsigned id;
    /* virtual (fd -1): relayed from a host's daemon */
    void (*vsend)(void *ctx, unsigned tag, const uint8_t *data, size_t len);
    void *vctx;
    unsigned vtag;
    int announced;            /* relay mode: on_open was called */
};

struct entry {
    char *key;
    size_t klen;
    uint8_t *val;
    size_t vlen;
    struct entry *next;
};

struct pending_get {
    struct conn *c;
    char key[BOLT_KVS_MAX_KEY];
    size_t klen;
};

#define NBUCKETS 1024
/* Longest wait for a connection's proof, whatever BOLT_TIMEOUT says: a rank
 * answers at once. */
#define AUTH_WAIT_MAX_S 5.0
/* How long the listener rests when boltrun is out of descriptors. */
#define ACCEPT_PAUSE_S 0.1
/* Refusals logged one by one; after that, one line says they are not. */
#define MAX_REFUSALS_LOGGED 8

struct kvs_server {
    int lfd;
    int size;
    uint8_t secret[BOLT_SECRET_BYTES];
    double auth_timeout;
    struct kvs_events ev;
    struct conn **conns;
    int nconns, capconns;
    struct entry *buckets[NBUCKETS];
    struct pending_get *gets;
    size_t ngets, capgets;
    int fence_count;          /* distinct ranks in this round's fence */
    int *in_fence;            /* per rank: its connections in the fence */
    char *ended;              /* per rank: it has ended (the job told us) */
    int check_ended;          /* a connection in the fence closed: look again */
    char host[256];
    uint32_t fence_round;
    int quiet;
    int max_pending;          /* unauthenticated connections kept at once */
    double paused_until;      /* listener not polled before (out of descriptors) */
    int logged_cap, logged_emfile, nrefusals;
    unsigned next_id;
    char name[128];
};

static unsigned hash(const char *k, size_t n)
{
    unsigned h = 5381;
    for (size_t i = 0; i < n; i++)
        h = h * 33u ^ (unsigned char)k[i];
    return h % NBUCKETS;
}

static struct entry *lookup(struct kvs_server *s, const char *k, size_t n)
{
    for (struct entry *e = s->buckets[hash(k, n)]; e; e = e->next)
        if (e->klen == n && memcmp(e->key, k, n) == 0)
            return e;
    return NULL;
}

static void set_nonblock_cloexec(int fd)
{
    (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
    (void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

int kvs_server_start(struct kvs_server **out, int size, const uint8_t secret[BOLT_SECRET_BYTES],
                     double auth_timeout, const struct kvs_events *ev, char *addr, size_t addrcap,
                     char *err, size_t errcap)
{
    struct kvs_server *s = calloc(1, sizeof *s);
    if (s == NULL) {
        snprintf(err, errcap, "out of memory");
        return -1;
    }
    s->size = size;
    s->in_fence = calloc((size_t)size, sizeof *s->in_fence);
    s->ended = calloc((size_t)size, 1);
    if (s->in_fence == NULL || s->ended == NULL) {
        snprintf(err, errcap, "out of memory");
        free(s->in_fence);
        free(s->ended);
        free(s);
        return -1;
    }
    snprintf(s->host, sizeof s->host, "localhost");
    snprintf(s->name, sizeof s->name, "boltrun");
    memcpy(s->secret, secret, BOLT_SECRET_BYTES);
    s->auth_timeout = auth_timeout < AUTH_WAIT_MAX_S ? auth_timeout : AUTH_WAIT_MAX_S;
    s->max_pending = 2 * size + 16;
    s->ev = *ev;
    s->lfd = socket(AF_INET, SOCK_STREAM, 0);
    if (s->lfd < 0) {
        snprintf(err, errcap, "cannot create the key-value store's socket: %s", strerror(errno));
        free(s->in_fence);
        free(s->ended);
        free(s);
        return -1;
    }
    set_nonblock_cloexec(s->lfd);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = 0};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t sl = sizeof sa;
    if (bind(s->lfd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(s->lfd, SOMAXCONN) != 0 ||
        getsockname(s->lfd, (struct sockaddr *)&sa, &sl) != 0) {
        snprintf(err, errcap, "cannot listen on 127.0.0.1 for the key-value store: %s (is the loopback "
                 "interface up?)", strerror(errno));
        close(s->lfd);
        free(s->in_fence);
        free(s->ended);
        free(s);
        return -1;
    }
    snprintf(addr, addrcap, "127.0.0.1:%u", (unsigned)ntohs(sa.sin_port));
    *out = s;
    return 0;
}

int kvs_server_listen_fd(const struct kvs_server *s)
{
    return s->lfd;
}

int kvs_server_max_pollfds(const struct kvs_server *s)
{
    return 1 + s->nconns;
}

int kvs_server_fill(struct kvs_server *s, struct pollfd *p)
{
    int n = 0;
    int paused = s->paused_until > 0 && bolt_kvs_now() < s->paused_until;
    if (!paused)
        s->paused_until = 0;
    p[n++] = (struct pollfd){.fd = paused ? -1 : s->lfd, .events = POLLIN};
    for (int i = 0; i < s->nconns; i++) {
        struct conn *c = s->conns[i];
        short ev = POLLIN;
        if (c->outlen > c->outoff)
            ev |= POLLOUT;
        p[n++] = (struct pollfd){.fd = c->fd, .events = ev};
    }
    return n;
}

double kvs_server_deadline(const struct kvs_server *s)
{
    double d = s->paused_until > 0 ? s->paused_until : -1;
    for (int i = 0; i < s->nconns; i++) {
        const struct conn *c = s->conns[i];
        if (c->state == C_AUTH && (d < 0 || c->deadline < d))
            d = c->deadline;
    }
    return d;
}

static void refuse(struct conn *c, const char *why)
{
    struct kvs_server *s = c->srv;
    c->dead = 1;
    if (s->quiet || s->nrefusals > MAX_REFUSALS_LOGGED)
        return;
    if (++s->nrefusals > MAX_REFUSALS_LOGGED)
        iofwd_log("%s: (more bootstrap connections were refused; they are not logged)", s->name);
    else
        iofwd_log("%s: refused a bootstrap connection from %s: %s", s->name, c->peer, why);
}

static void drop(struct conn *c, const char *why)
{
    c->dead = 1;
    if (!c->srv->quiet)
        iofwd_log("%s: dropped the bootstrap connection of rank %d (%s): %s", c->srv->name, c->rank, c->peer,
                why);
}

static int queue(struct conn *c, const void *data, size_t len)
{
    if (c->outoff > 0 && c->outoff == c->outlen)
        c->outoff = c->outlen = 0;
    if (c->outlen + len > c->outcap) {
        size_t cap = c->outcap ? c->outcap : 256;
        while (cap < c->outlen + len)
            cap *= 2;
        uint8_t *n = realloc(c->out, cap);
        if (n == NULL)
            return -1;
        c->out = n;
        c->outcap = cap;
    }
    memcpy(c->out + c->outlen, data, len);
    c->outlen += len;
    return 0;
}

static int queue_msg(struct conn *c, const struct bolt_kvs_msg *m)
{
    size_t n = bolt_kvs_encoded_size(m), len;
    if (n == 0)
        return -1;
    uint8_t *buf = malloc(n);
    if (buf == NULL || bolt_kvs_encode(m, buf, n, &len, NULL) != 0 || queue(c, buf, len) != 0) {
        free(buf);
        drop(c, "out of memory");
        return -1;
    }
    free(buf);
    return 0;
}

static void flush_out(struct conn *c)
{
    if (c->fd < 0) {
        if (!c->dead && c->vsend && c->outlen > c->outoff)
            c->vsend(c->vctx, c->vtag, c->out + c->outoff, c->outlen - c->outoff);
        c->outoff = c->outlen = 0;
        return;
    }
    while (!c->dead && c->outoff < c->outlen) {
        ssize_t w = bolt_kvs_send_some(c->fd, c->out + c->outoff, c->outlen - c->outoff);
        if (w == 0)
            return;
        if (w < 0) {
            c->dead = 1; /* peer gone; its rank's exit is reported elsewhere */
            return;
        }
        c->outoff += (size_t)w;
    }
}

static void do_put(struct kvs_server *s, struct conn *c, const struct bolt_kvs_msg *m)
{
    struct entry *e = lookup(s, m->key, m->keylen);
    uint8_t *val = malloc(m->vallen ? m->vallen : 1);
    if (val == NULL) {
        drop(c, "out of memory storing a value");
        return;
    }
    memcpy(val, m->val, m->vallen);
    if (e == NULL) {
        e = calloc(1, sizeof *e);
        char *key = malloc(m->keylen);
        if (e == NULL || key == NULL) {
            free(e);
            free(key);
            free(val);
            drop(c, "out of memory storing a key");
            return;
        }
        memcpy(key, m->key, m->keylen);
        e->key = key;
        e->klen = m->keylen;
        unsigned h = hash(m->key, m->keylen);
        e->next = s->buckets[h];
        s->buckets[h] = e;
    } else {
        free(e->val);
    }
    e->val = val;
    e->vlen = m->vallen;
    /* Answer the gets that waited for this key. */
    size_t j = 0;
    for (size_t i = 0; i < s->ngets; i++) {
        struct pending_get *g = &s->gets[i];
        if (g->klen == e->klen && memcmp(g->key, e->key, e->klen) == 0) {
            struct bolt_kvs_msg r = {.op = BOLT_KVS_VALUE, .key = e->key, .keylen = e->klen, .val = e->val,
                                     .vallen = e->vlen};
            if (!g->c->dead)
                queue_msg(g->c, &r);
        } else {
            s->gets[j++] = *g;
        }
    }
    s->ngets = j;
}

static void do_get(struct kvs_server *s, struct conn *c, const struct bolt_kvs_msg *m)
{
    struct entry *e = lookup(s, m->key, m->keylen);
    if (e != NULL) {
        struct bolt_kvs_msg r = {.op = BOLT_KVS_VALUE, .key = e->key, .keylen = e->klen, .val = e->val,
                                 .vallen = e->vlen};
        queue_msg(c, &r);
        return;
    }
    if (s->ngets == s->capgets) {
        size_t cap = s->capgets ? 2 * s->capgets : 16;
        struct pending_get *n = realloc(s->gets, cap * sizeof *n);
        if (n == NULL) {
            drop(c, "out of memory queueing a get");
            return;
        }
        s->gets = n;
        s->capgets = cap;
    }
    struct pending_get *g = &s->gets[s->ngets++];
    g->c = c;
    g->klen = m->keylen;
    memcpy(g->key, m->key, m->keylen);
}

/* Ends this round's fence: every connection in it gets `r`. */
static void end_fence(struct kvs_server *s, const struct bolt_kvs_msg *r)
{
    for (int i = 0; i < s->nconns; i++) {
        struct conn *o = s->conns[i];
        if (o->in_fence) {
            o->in_fence = 0;
            if (!o->dead)
                queue_msg(o, r);
        }
    }
    memset(s->in_fence, 0, (size_t)s->size * sizeof *s->in_fence);
    s->fence_count = 0;
    s->fence_round++;
}

/* A fence that some rank can no longer enter fails at once rather than
 * leaving the others to wait out their timeout. */
static void check_fence(struct kvs_server *s)
{
    s->check_ended = 0;
    if (s->fence_count == 0)
        return;
    for (int r = 0; r < s->size; r++)
        if (s->ended[r] && s->in_fence[r] == 0) {
            char msg[384];
            int n = snprintf(msg, sizeof msg, "rank %d on %s ended before entering the fence", r, s->host);
            struct bolt_kvs_msg m = {.op = BOLT_KVS_FENCE_FAILED, .val = msg,
                                     .vallen = n > 0 && (size_t)n < sizeof msg ? (size_t)n : 0};
            end_fence(s, &m);
            return;
        }
}

static void do_fence(struct kvs_server *s, struct conn *c)
{
    if (c->in_fence) {
        drop(c, "entered a fence twice");
        return;
    }
    c->in_fence = 1;
    /* Ranks are counted, not connections: a second connection of a rank
     * (a forked child, say) cannot stand in for another rank. */
    if (s->in_fence[c->rank]++ == 0)
        s->fence_count++;
    if (s->fence_count < s->size) {
        check_fence(s);
        return;
    }
    struct bolt_kvs_msg r = {.op = BOLT_KVS_FENCE_DONE, .round = s->fence_round};
    end_fence(s, &r);
}

void kvs_server_rank_ended(struct kvs_server *s, int rank, const char *host)
{
    if (rank < 0 || rank >= s->size)
        return;
    snprintf(s->host, sizeof s->host, "%s", host);
    s->ended[rank] = 1;
    check_fence(s);
}

static void handle_auth(struct kvs_server *s, struct conn *c)
{
    if (c->inlen < BOLT_KVS_AUTH_BYTES)
        return;
    uint32_t rank;
    uint8_t mac[BOLT_HMAC_BYTES];
    bolt_kvs_auth_decode(c->in, &rank, mac);
    if (!bolt_kvs_auth_check(s->secret, c->nonce, rank, mac)) {
        refuse(c, "wrong job secret");
        return;
    }
    if (rank >= (uint32_t)s->size) {
        char why[96];
        snprintf(why, sizeof why, "it claims rank %u but the job has %d ranks", rank, s->size);
        refuse(c, why);
        return;
    }
    c->rank = (int)rank;
    c->state = C_READY;
    if (s->ev.on_open) {
        s->ev.on_open(s->ev.ctx, c->id, c->rank);
        c->announced = 1;
    }
    memmove(c->in, c->in + BOLT_KVS_AUTH_BYTES, c->inlen - BOLT_KVS_AUTH_BYTES);
    c->inlen -= BOLT_KVS_AUTH_BYTES;
    uint8_t ok = BOLT_KVS_AUTH_OK;
    queue(c, &ok, 1);
}

static void handle_frames(struct kvs_server *s, struct conn *c)
{
    size_t off = 0;
    while (!c->dead && c->state == C_READY) {
        size_t framelen = 0;
        const char *why = NULL;
        int r = bolt_kvs_frame_complete(c->in + off, c->inlen - off, &framelen, &why);
        if (r == 0)
            break;
        struct bolt_kvs_msg m;
        if (r < 0 || bolt_kvs_decode(c->in + off + 4, framelen - 4, &m, &why) != 0) {
            char buf[128];
            snprintf(buf, sizeof buf, "malformed message (%s)", why ? why : "?");
            drop(c, buf);
            break;
        }
        if (s->ev.on_frame) {
            if (m.op & 0x80) {
                char buf[96];
                snprintf(buf, sizeof buf, "sent %s, which only boltrun may send", bolt_kvs_op_name(m.op));
                drop(c, buf);
                break;
            }
            s->ev.on_frame(s->ev.ctx, c->id, c->in + off, framelen);
            off += framelen;
            continue;
        }
        switch (m.op) {
        case BOLT_KVS_PUT: do_put(s, c, &m); break;
        case BOLT_KVS_GET: do_get(s, c, &m); break;
        case BOLT_KVS_FENCE: do_fence(s, c); break;
        case BOLT_KVS_ABORT: {
            char msg[BOLT_KVS_MAX_ABORT_MSG + 1];
            size_t ml = m.vallen;
            memcpy(msg, m.val, ml);
            msg[ml] = '\0';
            for (size_t i = 0; i < ml; i++) /* one plain line: no control characters but tab */
                if (((unsigned char)msg[i] < 0x20 && msg[i] != '\t') || (unsigned char)msg[i] == 0x7f)
                    msg[i] = ' ';
            if (s->ev.on_abort)
                s->ev.on_abort(s->ev.ctx, c->rank, m.code, msg);
            break;
        }
        default: {
            char buf[96];
            snprintf(buf, sizeof buf, "sent %s, which only boltrun may send", bolt_kvs_op_name(m.op));
            drop(c, buf);
            break;
        }
        }
        off += framelen;
    }
    if (off > 0) {
        memmove(c->in, c->in + off, c->inlen - off);
        c->inlen -= off;
    }
}

static void read_conn(struct kvs_server *s, struct conn *c)
{
    for (int round = 0; round < 64 && !c->dead; round++) {
        size_t want = c->state == C_AUTH ? BOLT_KVS_AUTH_BYTES : 4 + BOLT_KVS_MAX_FRAME;
        if (c->incap < want) {
            size_t cap = c->incap ? c->incap : 4096;
            while (cap < want && cap < c->inlen + 65536)
                cap *= 2;
            uint8_t *n = realloc(c->in, cap);
            if (n == NULL) {
                drop(c, "out of memory");
                return;
            }
            c->in = n;
            c->incap = cap;
        }
        size_t room = c->incap - c->inlen;
        if (c->state == C_AUTH)
            room = BOLT_KVS_AUTH_BYTES - c->inlen; /* read no further than the proof */
        if (room == 0)
            break;
        ssize_t r = bolt_kvs_recv_some(c->fd, c->in + c->inlen, room);
        if (r == 0)
            return;
        if (r < 0) {
            if (c->state == C_AUTH)
                refuse(c, errno ? strerror(errno) : "it closed the connection before authenticating");
            else
                c->dead = 1; /* a rank closing its connection is normal */
            return;
        }
        c->inlen += (size_t)r;
        if (c->state == C_AUTH)
            handle_auth(s, c);
        if (c->state == C_READY)
            handle_frames(s, c);
    }
}

static void accept_all(struct kvs_server *s, double now)
{
    for (int i = 0; i < 64; i++) {
        struct sockaddr_in sa;
        socklen_t sl = sizeof sa;
        int fd = accept(s->lfd, (struct sockaddr *)&sa, &sl);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return;
            /* Out of descriptors (or worse): let the listener rest rather
             * than spin on it; the pending connections wait in the backlog. */
            s->paused_until = now + ACCEPT_PAUSE_S;
            if (!s->logged_emfile) {
                s->logged_emfile = 1;
                iofwd_log("boltrun: cannot accept a bootstrap connection: %s; retrying every %g s (not logged again)",
                          strerror(errno), ACCEPT_PAUSE_S);
            }
            return;
        }
        s->paused_until = 0;
        int pending = 0;
        struct conn *oldest = NULL;
        for (int k = 0; k < s->nconns; k++)
            if (!s->conns[k]->dead && s->conns[k]->state == C_AUTH) {
                pending++;
                if (oldest == NULL)
                    oldest = s->conns[k]; /* conns are in the order accepted */
            }
        if (pending >= s->max_pending && oldest != NULL) {
            oldest->dead = 1; /* a rank answers at once; something this slow is not one */
            if (!s->logged_cap && !s->quiet) {
                s->logged_cap = 1;
                iofwd_log("boltrun: more than %d bootstrap connections have not authenticated; closing the oldest "
                          "ones (not logged again)", s->max_pending);
            }
        }
        set_nonblock_cloexec(fd);
        bolt_kvs_nosigpipe(fd);
        int one = 1;
        (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        struct conn *c = calloc(1, sizeof *c);
        if (c == NULL || (s->nconns == s->capconns &&
                          !(s->conns = realloc(s->conns, (size_t)(s->capconns = s->capconns ? 2 * s->capconns : 16) *
                                                             sizeof *s->conns)))) {
            iofwd_log("boltrun: out of memory accepting a bootstrap connection");
            free(c);
            close(fd);
            return;
        }
        c->srv = s;
        c->fd = fd;
        c->id = ++s->next_id;
        c->state = C_AUTH;
        c->deadline = now + s->auth_timeout;
        c->rank = -1;
        char ip[INET_ADDRSTRLEN] = "?";
        inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof ip);
        snprintf(c->peer, sizeof c->peer, "%s:%u", ip, (unsigned)ntohs(sa.sin_port));
        s->conns[s->nconns++] = c;
        uint8_t hello[BOLT_KVS_HELLO_BYTES];
        if (bolt_random_bytes(c->nonce, sizeof c->nonce) != 0) {
            refuse(c, "cannot draw a random challenge");
            continue;
        }
        bolt_kvs_hello_encode(c->nonce, hello);
        queue(c, hello, sizeof hello);
        flush_out(c);
    }
}

static void free_conn(struct kvs_server *s, struct conn *c)
{
    size_t j = 0;
    for (size_t i = 0; i < s->ngets; i++)
        if (s->gets[i].c != c)
            s->gets[j++] = s->gets[i];
    s->ngets = j;
    if (c->in_fence && --s->in_fence[c->rank] == 0) {
        s->fence_count--;
        s->check_ended = 1; /* its rank may be gone for good */
    }
    if (c->announced && s->ev.on_close)
        s->ev.on_close(s->ev.ctx, c->id);
    if (c->fd >= 0)
        close(c->fd);
    free(c->in);
    free(c->out);
    free(c);
}

void kvs_server_handle(struct kvs_server *s, const struct pollfd *p, int n, double now)
{
    /* p[0] is the listener and p[1..] the connections in order, as filled. */
    int nc = s->nconns;
    for (int i = 1; i < n && i - 1 < nc; i++) {
        struct conn *c = s->conns[i - 1];
        if (c->fd != p[i].fd)
            continue;
        if (p[i].revents & (POLLIN | POLLHUP | POLLERR))
            read_conn(s, c);
        if (!c->dead && (p[i].revents & POLLOUT))
            flush_out(c);
    }
    if (n > 0 && (p[0].revents & POLLIN))
        accept_all(s, now);
    for (int i = 0; i < s->nconns; i++) {
        struct conn *c = s->conns[i];
        if (!c->dead && c->state == C_AUTH && now >= c->deadline) {
            char why[96];
            snprintf(why, sizeof why, "no answer to the challenge within %g s", s->auth_timeout);
            refuse(c, why);
        }
        if (!c->dead)
            flush_out(c);
    }
    int j = 0;
    for (int i = 0; i < s->nconns; i++) {
        if (s->conns[i]->dead)
            free_conn(s, s->conns[i]);
        else
            s->conns[j++] = s->conns[i];
    }
    s->nconns = j;
    if (s->check_ended)
        check_fence(s);
    for (int i = 0; i < s->nconns; i++)
        flush_out(s->conns[i]);
}

static struct conn *find_conn(struct kvs_server *s, unsigned id)
{
    for (int i = 0; i < s->nconns; i++)
        if (s->conns[i]->id == id && !s->conns[i]->dead)
            return s->conns[i];
    return NULL;
}

void kvs_server_conn_send(struct kvs_server *s, unsigned id, const void *data, size_t len)
{
    struct conn *c = find_conn(s, id);
    if (c == NULL)
        return; /* closed meanwhile: its answers have no reader */
    if (queue(c, data, len) != 0)
        drop(c, "out of memory");
    else
        flush_out(c);
}

unsigned kvs_server_attach(struct kvs_server *s, int rank, const char *peer,
                           void (*send)(void *ctx, unsigned tag, const uint8_t *data, size_t len), void *ctx,
                           unsigned tag)
{
    if (rank < 0 || rank >= s->size)
        return 0;
    struct conn *c = calloc(1, sizeof *c);
    if (c == NULL || (s->nconns == s->capconns &&
                      !(s->conns = realloc(s->conns, (size_t)(s->capconns = s->capconns ? 2 * s->capconns : 16) *
                                                         sizeof *s->conns)))) {
        free(c);
        return 0;
    }
    c->srv = s;
    c->fd = -1;
    c->id = ++s->next_id;
    c->state = C_READY;
    c->rank = rank;
    c->vsend = send;
    c->vctx = ctx;
    c->vtag = tag;
    snprintf(c->peer, sizeof c->peer, "%s", peer);
    s->conns[s->nconns++] = c;
    return c->id;
}

void kvs_server_feed(struct kvs_server *s, unsigned id, const uint8_t *data, size_t len)
{
    struct conn *c = find_conn(s, id);
    if (c == NULL)
        return;
    if (c->inlen + len > c->incap) {
        size_t cap = c->incap ? c->incap : 4096;
        while (cap < c->inlen + len)
            cap *= 2;
        uint8_t *n = realloc(c->in, cap);
        if (n == NULL) {
            drop(c, "out of memory");
            return;
        }
        c->in = n;
        c->incap = cap;
    }
    memcpy(c->in + c->inlen, data, len);
    c->inlen += len;
    handle_frames(s, c);
    if (s->check_ended)
        check_fence(s);
    for (int i = 0; i < s->nconns; i++)
        if (s->conns[i]->fd < 0)
            flush_out(s->conns[i]);
}

void kvs_server_detach(struct kvs_server *s, unsigned id)
{
    struct conn *c = find_conn(s, id);
    if (c != NULL)
        c->dead = 1; /* freed by the next kvs_server_handle */
}

void kvs_server_set_name(struct kvs_server *s, const char *name)
{
    snprintf(s->name, sizeof s->name, "%s", name);
}

void kvs_server_set_quiet(struct kvs_server *s)
{
    s->quiet = 1;
}

void kvs_server_destroy(struct kvs_server *s)
{
    if (s == NULL)
        return;
    for (int i = 0; i < s->nconns; i++)
        free_conn(s, s->conns[i]);
    free(s->conns);
    free(s->gets);
    free(s->in_fence);
    free(s->ended);
    for (int b = 0; b < NBUCKETS; b++)
        for (struct entry *e = s->buckets[b], *next; e; e = next) {
            next = e->next;
            free(e->key);
            free(e->val);
            free(e);
        }
    close(s->lfd);
    free(s);
}
