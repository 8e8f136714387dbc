/*
 * tcp.h — private state of the TCP transport (transport/tcp/).
 *
 *   tcp_ctx.c     the ops struct: init, reachable, connect, send, progress,
 *                 pollfds, eager_limit, data_stripes, finalize; peer failure
 *   tcp_conn.c    one connection: send queue (gathered writev), receive
 *                 state machine (staging buffer + readv into the user buffer)
 *   tcp_wireup.c  listen, publish, address choice, authenticated handshake
 *   tcp_evloop_*  poll / epoll backends (tcp_evloop.h)
 *   tcp_os_*      platform seam (tcp_os.h)
 */
#ifndef BOLT_TCP_H
#define BOLT_TCP_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/crypto.h"
#include "transport/tcp/tcp_evloop.h"
#include "transport/transport.h"

#define TCP_HDR_BYTES ((unsigned)sizeof(struct bolt_frame_hdr))
#define TCP_STAGE_BYTES (64u * 1024u)
#define TCP_MAX_ADDRS 16
#define TCP_HOST_ID_MAX 360

/* ---- wire-up handshake (host byte order, checked by magic/order) ----
 * acceptor  -> connector : struct tcp_hs_challenge (nonce)
 * connector -> acceptor  : struct tcp_hs_hello (rank, index, HMAC)
 * acceptor  -> connector : struct tcp_hs_ack (HMAC over both nonces) */
#define TCP_HS_MAGIC 0x424f4c54u /* "BOLT" */
#define TCP_HS_VERSION 1u
#define TCP_HS_ORDER 0x0102u
#define TCP_NONCE_BYTES 32

struct tcp_hs_challenge {
    uint32_t magic;
    uint16_t version;
    uint16_t order;
    int32_t rank; /* acceptor's world rank */
    uint32_t reserved;
    uint8_t nonce[TCP_NONCE_BYTES];
};
_Static_assert(sizeof(struct tcp_hs_challenge) == 48, "challenge layout");

struct tcp_hs_hello {
    uint32_t magic;
    uint16_t version;
    uint16_t order;
    int32_t rank;   /* connector's world rank */
    int32_t index;  /* connection index, 0 .. BOLT_TCP_CONNS-1 */
    int32_t target; /* rank the connector meant to reach */
    uint32_t reserved;
    uint8_t cnonce[TCP_NONCE_BYTES];
    uint8_t mac[BOLT_HMAC_BYTES]; /* HMAC(secret, "bolt-tcp" nonce rank index) */
};
_Static_assert(sizeof(struct tcp_hs_hello) == 88, "hello layout");

struct tcp_hs_ack {
    uint8_t mac[BOLT_HMAC_BYTES]; /* HMAC(secret, "bolt-tcp-ack" cnonce nonce ...) */
};

/* MACs of the handshake (ranks and index encoded big-endian). */
int tcp_hs_hello_mac(const uint8_t *secret, const uint8_t nonce[TCP_NONCE_BYTES],
                     int32_t target, int32_t rank, int32_t index, uint8_t out[BOLT_HMAC_BYTES]);
int tcp_hs_ack_mac(const uint8_t *secret, const uint8_t cnonce[TCP_NONCE_BYTES],
                   const uint8_t nonce[TCP_NONCE_BYTES], int32_t acceptor,
                   int32_t rank, int32_t index, uint8_t out[BOLT_HMAC_BYTES]);

/* ---- connections ---- */
struct tcp_conn {
    struct bolt_tl_ctx *ctx;
    int fd;        /* -1 once closed */
    int peer;
    int index;     /* 0 carries every ordered frame */
    int dead;      /* closed; the struct lives until finalize */
    int flushing;  /* inside tcp_conn_flush (completions may re-enter send) */
    int interest;  /* TCP_EV_* registered with the event loop */
    /* send queue */
    struct bolt_tl_send *sq_head, *sq_tail;
    uint64_t sq_bytes; /* bytes queued and not yet written */
    /* receive state machine */
    int in_payload;
    unsigned hgot;
    unsigned char hbuf[sizeof(struct bolt_frame_hdr)];
    struct bolt_frame_hdr rhdr;
    unsigned char *rdst;
    uint64_t rgot;
    void *rcookie;
    int rd_eof; /* the peer shut its side: we may still write (it drains) */
};

struct tcp_peer {
    int nconns;             /* 0 until wired */
    struct tcp_conn *conns; /* nconns entries */
    int failed;
    int fail_deferred;      /* broke inside send(): reported by the next progress() */
    char fail_why[256];
    int wired;              /* every connection is authenticated and open */
    unsigned rr;
};

struct tcp_ifaddr {
    struct in_addr addr, mask;
};

struct bolt_tl_ctx {
    int rank, size;
    const struct bolt_tl_upcalls *up;
    /* settings */
    int nconns;
    size_t eager_limit, stripe_min, bufsz;
    double timeout;
    uint8_t secret[BOLT_SECRET_BYTES];
    int have_secret;
    /* listening side */
    int lfd;
    uint16_t port;
    int bind_any;
    struct in_addr bind_addr;
    char host_id[TCP_HOST_ID_MAX];
    struct tcp_ifaddr addrs[TCP_MAX_ADDRS];
    int naddrs;
    /* peers, indexed by world rank */
    struct tcp_peer *peers;
    /* event loop */
    const struct tcp_evloop_ops *evops;
    struct tcp_evloop *ev;
    unsigned char *stage; /* TCP_STAGE_BYTES, shared by every connection */
    int finalizing;
    /* Inside send(): a broken peer is only noted, and reported to the runtime
     * from the next progress(), because the runtime may be in the middle of
     * using a request that peer_failed would complete and free. */
    int in_send;
    int deferred_fails;
};

/* tcp_ctx.c */
/* The link to `peer` broke: peer_failed upcall (once), close its connections,
 * complete its queued sends with BOLT_ERR_PEER. */
void tcp_peer_fail(struct bolt_tl_ctx *ctx, int peer, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* After an EOF: once every connection of `peer` has seen EOF and nothing is
 * left to send to it, the peer is gone ("closed the connection"). */
void tcp_peer_check_closed(struct bolt_tl_ctx *ctx, int peer);

/* tcp_conn.c */
int tcp_conn_open(struct bolt_tl_ctx *ctx, struct tcp_conn *c, int fd, int peer, int index);
void tcp_conn_close(struct tcp_conn *c);
/* Appends s; writes at once if the queue was empty. */
void tcp_conn_enqueue(struct tcp_conn *c, struct bolt_tl_send *s);
/* Writes what the socket takes. Returns frames completed. */
int tcp_conn_flush(struct tcp_conn *c);
/* Reads what is available, delivering frames. Returns frames delivered. */
int tcp_conn_read(struct tcp_conn *c);
/* Detaches the queue (for failing it). */
struct bolt_tl_send *tcp_conn_take_queue(struct tcp_conn *c);
void tcp_conn_update_interest(struct tcp_conn *c);

/* tcp_wireup.c */
int tcp_sock_prepare(int fd, size_t bufsz);
int tcp_wireup_listen(struct bolt_tl_ctx *ctx);
int tcp_wireup_publish(struct bolt_tl_ctx *ctx);
/* Reads `peer`'s published value (waiting for it) and lists the addresses
 * to try, best first (tcp_addr.c). Returns the count in *n (>= 1). */
int tcp_fetch_remote(struct bolt_tl_ctx *ctx, int peer, struct sockaddr_in *sa, int *n);
int tcp_wireup_connect(struct bolt_tl_ctx *ctx, const int *peers, int npeers);

#endif
