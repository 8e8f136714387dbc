/*
 * tcp.h — private state of the TCP transport (transport/tcp/).
 *
 *   tcp_ctx.c     the ops struct: init, reachable, connect, send, progress,
 *                 pollfds, eager_limit, data_stripes, finalize; peer failure
 *   tcp_conn.c    one connection: send queue (gathered writev), receive
 *                 state machine (staging buffer + readv into the user buffer)
 *   tcp_wireup.c  the authenticated wire-up handshake; arming for failover
 *   tcp_addr.c    listen, publish, address choice
 *   tcp_retain.c  path failover: what an armed connection keeps of what it sent
 *   tcp_stream.c  path failover: an armed connection's writes (retention,
 *                 resending, acknowledgements) and its transport frames
 *   tcp_resume.c  path failover: a broken connection is drained, closed and
 *                 dialled again over the peer's next address (RESUME)
 *   tcp_answer.c  path failover: the listener during the run, RESUME answers
 *   tcp_evloop_*  poll / epoll backends (tcp_evloop.h)
 *   tcp_os_*      platform seam (tcp_os.h)
 */
#ifndef BOLT_TCP_H
#define BOLT_TCP_H

#include <limits.h>
#include <netinet/in.h>
#include <sys/uio.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/crypto.h"
#include "transport/tcp/tcp_evloop.h"
#include "transport/tcp/tcp_retain.h"
#include "transport/transport.h"

#define TCP_HDR_BYTES ((unsigned)sizeof(struct bolt_frame_hdr))
#define TCP_STAGE_BYTES (64u * 1024u)
#define TCP_MAX_ADDRS 16
#define TCP_HOST_ID_MAX 360
#if defined(IOV_MAX) && IOV_MAX < 256
#define TCP_IOV IOV_MAX
#else
#define TCP_IOV 256
#endif
/* About the most one writev gathers: BOLT_TCP_BUF's default, about what a
 * socket takes at once anyway. Smaller caps cost a gap in the stream per
 * write, once the pacing of BBR was out of the way (BOLT_TCP_CONGESTION):
 * broadcasts over loopback in writes of at most 512 KiB against 4 MiB, 1 MiB
 * on 2 ranks 132 against 120 us, 16 MiB 1950 against 1834, 4 MiB on 4 ranks
 * 1744 against 1509 (under BBR, 512 KiB writes had looked faster). */
#define TCP_WRITE_CAP ((uint64_t)4 << 20)
/* A write that would leave at most this much of a frame takes it too: left
 * for a writev of its own, a frame's tail costs a system call and the peer a
 * read, after a gap (with writes of 512 KiB, each 512 KiB stripe behind its
 * 48-byte header ended in a 48-byte write: 2 ranks, 1 MiB broadcasts, the
 * receiver idle 8 us per stripe). */
#define TCP_WRITE_TAIL (TCP_WRITE_CAP / 8)
/* The most one readv asks for (macOS refuses more than INT_MAX): reads
 * capped at 256 KiB or 1 MiB were no faster than these. */
#define TCP_READ_CAP ((uint64_t)1 << 30)
/* Longest congestion control name, with its NUL (Linux's TCP_CA_NAME_MAX). */
#define TCP_CONGESTION_MAX 16
/* Direct reads (tcp_direct.c): at most this many peers (BOLT_TCP_DIRECT_PEERS);
 * the event loop every TCP_DIRECT_EVERY-th progress call; a peer stays direct
 * while heard from within TCP_DIRECT_QUIET event-loop passes. */
#define TCP_DIRECT_MAX 8
#define TCP_DIRECT_EVERY 8u
#define TCP_DIRECT_QUIET 256u

/* ---- wire-up handshake (host byte order, checked by magic/order) ----
 * acceptor  -> connector : struct tcp_hs_challenge (nonce)
 * connector -> acceptor  : struct tcp_hs_hello (rank, index, HMAC)
 * acceptor  -> connector : struct tcp_hs_ack (HMAC over both nonces) */
#define TCP_HS_MAGIC 0x424f4c54u /* "BOLT" */
#define TCP_HS_VERSION 3u
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
    uint32_t flags; /* TCP_HS_F_* the connector asks for */
    uint8_t cnonce[TCP_NONCE_BYTES];
    uint8_t mac[BOLT_HMAC_BYTES]; /* HMAC(secret, "bolt-tcp" nonce rank index target flags) */
};
_Static_assert(sizeof(struct tcp_hs_hello) == 88, "hello layout");

/* The connection's streams are kept for resuming over another path (both
 * ends must want it: the acceptor's ack says what was agreed). */
#define TCP_HS_F_RESUME 1u

struct tcp_hs_ack {
    uint8_t mac[BOLT_HMAC_BYTES]; /* HMAC(secret, "bolt-tcp-ack" cnonce nonce ... flags) */
    uint32_t flags;               /* TCP_HS_F_* agreed */
    uint32_t reserved;
};
_Static_assert(sizeof(struct tcp_hs_ack) == 40, "ack layout");

/* MACs of the handshake (ranks, index and flags encoded big-endian). */
int tcp_hs_hello_mac(const uint8_t *secret, const uint8_t nonce[TCP_NONCE_BYTES],
                     int32_t target, int32_t rank, int32_t index, uint32_t flags,
                     uint8_t out[BOLT_HMAC_BYTES]);
int tcp_hs_ack_mac(const uint8_t *secret, const uint8_t cnonce[TCP_NONCE_BYTES],
                   const uint8_t nonce[TCP_NONCE_BYTES], int32_t acceptor,
                   int32_t rank, int32_t index, uint32_t flags, uint8_t out[BOLT_HMAC_BYTES]);

/* ---- RESUME handshake (path failover), on the listener during the run ----
 * acceptor  -> connector : struct tcp_hs_challenge (as at wire-up)
 * connector -> acceptor  : struct tcp_hs_resume (in place of a hello)
 * acceptor  -> connector : struct tcp_hs_resume_ack
 * The MACs have labels of their own, so neither message can stand in for a
 * wire-up one. Either end may dial; when both do, the lower rank's wins. */
#define TCP_HS_RESUME_MAGIC 0x424f4c52u /* "BOLR" */

struct tcp_hs_resume {
    uint32_t magic;
    uint16_t version;
    uint16_t order;
    int32_t rank, index, target;
    uint32_t gen;      /* resumes the connection had, as the connector counts them */
    uint64_t consumed; /* bytes of the acceptor's stream the connector consumed */
    uint8_t cnonce[TCP_NONCE_BYTES];
    uint8_t mac[BOLT_HMAC_BYTES]; /* HMAC(secret, "bolt-tcp-resume" nonce rank index target gen consumed) */
};
_Static_assert(sizeof(struct tcp_hs_resume) == 96, "resume layout");

enum tcp_resume_status {
    TCP_RESUME_OK = 0,      /* resumed: consumed is the acceptor's */
    TCP_RESUME_BUSY = 1,    /* the acceptor's own dial wins: wait for it */
    TCP_RESUME_STALE = 2,   /* the acceptor already resumed this connection */
    TCP_RESUME_REFUSED = 3  /* the acceptor failed us, or is finalizing */
};

struct tcp_hs_resume_ack {
    uint32_t status;
    uint32_t gen;
    uint64_t consumed; /* bytes of the connector's stream the acceptor consumed */
    uint8_t mac[BOLT_HMAC_BYTES]; /* HMAC(secret, "bolt-tcp-resume-ack" cnonce nonce ... consumed) */
};
_Static_assert(sizeof(struct tcp_hs_resume_ack) == 48, "resume ack layout");

int tcp_hs_resume_mac(const uint8_t *secret, const uint8_t nonce[TCP_NONCE_BYTES],
                      const struct tcp_hs_resume *m, uint8_t out[BOLT_HMAC_BYTES]);
int tcp_hs_resume_ack_mac(const uint8_t *secret, const uint8_t cnonce[TCP_NONCE_BYTES],
                          const uint8_t nonce[TCP_NONCE_BYTES], int32_t acceptor, int32_t rank,
                          int32_t index, const struct tcp_hs_resume_ack *a,
                          uint8_t out[BOLT_HMAC_BYTES]);

/* A fixed-size handshake message moving through a nonblocking socket. */
struct tcp_hsbuf {
    int fd;
    size_t off, len;
    unsigned char buf[sizeof(struct tcp_hs_resume)];
};
/* Moves bytes buf[*off..len) to or from fd: 1 done, 0 would block, -1
 * error (errno), -2 EOF. (Handshakes at wire-up and during the run.) */
int tcp_fd_io(int fd, unsigned char *buf, size_t *off, size_t len, int reading);
int tcp_hsbuf_io(struct tcp_hsbuf *b, int reading);

/* ---- path failover: an armed connection's extra state ---- */

/* What an event-loop registration belongs to (the first member of each). */
enum { TCP_SRC_CONN = 0, TCP_SRC_LISTEN, TCP_SRC_DIAL, TCP_SRC_ANSWER };

/* Transport frames (type BOLT_FRAME_TYPE_TRANSPORT, no payload, kind in
 * flags) travel only on armed connections, between frames, outside the
 * stream's count; the runtime never sees them. */
#define TCP_CTL_ACK 1u     /* msg_size: bytes of the stream its sender consumed */
#define TCP_CTL_GOODBYE 2u /* nothing more comes: the EOF after it is a clean close */
#define TCP_CTL_SYNC 3u    /* a finalizing sender asks: confirm what you consumed now */

enum tcp_fo_state {
    TCP_FO_UP,       /* the socket carries the streams */
    TCP_FO_DRAIN,    /* reading what the dead socket still holds */
    TCP_FO_BREAKING, /* broke; drained and closed at the next progress() */
    TCP_FO_BROKEN,   /* no socket: dialling, or waiting for the peer's dial */
    TCP_FO_DEAD      /* the peer failed */
};

struct tcp_conn;

/* A connection's own RESUME attempt (tcp_resume.c). */
struct tcp_dial {
    int kind; /* TCP_SRC_DIAL */
    struct tcp_conn *c;
    int state;
    struct tcp_hsbuf io;
    uint8_t nonce[TCP_NONCE_BYTES], cnonce[TCP_NONCE_BYTES];
    struct sockaddr_in sa;
    int ev;              /* TCP_EV_* registered */
    int tries;           /* attempts in this resume (fo->order[tries % norder] next) */
    int refused;         /* addresses that refused us in this round */
    double attempt_end;  /* this connect() is given up then */
    double retry_at;
};

/* An incoming connection on the listener during the run (tcp_answer.c). */
struct tcp_answer {
    int kind; /* TCP_SRC_ANSWER */
    int state;
    struct tcp_hsbuf io;
    uint8_t nonce[TCP_NONCE_BYTES];
    struct sockaddr_in sa;
    double expires;      /* a stranger that stays silent is dropped then */
    int ev;              /* TCP_EV_* registered */
    struct tcp_conn *c;  /* answered OK: resumed once the answer is written */
    uint64_t their_consumed;
};
#define TCP_ANSWERS 16

struct tcp_fo {
    int state;               /* enum tcp_fo_state */
    unsigned gen;            /* resumes so far (both ends count alike) */
    /* sending */
    struct tcp_retain rt;    /* [confirmed, end) of our stream */
    uint64_t rs_pos;         /* after a resume: resend from here up to rt.end */
    int ring_wait;           /* the queue's next frame waits for ring room */
    int tx_free;             /* the peer said goodbye: nothing is retained any more */
    int lost;                /* retention failed (memory): a break fails the peer */
    struct bolt_frame_hdr ctl; /* transport frame being written */
    unsigned ctl_done, ctl_len;
    uint64_t ack_sent;       /* last consumed count the peer was told */
    uint64_t ack_want;       /* to tell it next */
    int bye_want, bye_sent;
    int sync_want;           /* finalize: a SYNC is to go after the queue */
    uint64_t sync_at;        /* our stream's end when the last SYNC went (0: none) */
    /* receiving */
    uint64_t rx_done;        /* stream bytes of the whole frames consumed */
    int peer_bye;            /* its goodbye came */
    int kick;                /* flush after this read (an ack owed, ring room freed) */
    /* breaking and resuming */
    int drained;
    double broke_at, deadline;
    char why[160];
    struct sockaddr_in raddr;      /* the peer's end of the current socket */
    struct sockaddr_in broke_addr; /* ... of the socket that broke */
    struct sockaddr_in order[TCP_MAX_ADDRS]; /* addresses to dial, in turn */
    int tried_err[TCP_MAX_ADDRS]; /* how each last failed (errno; 0 not yet tried) */
    int norder;
    struct tcp_dial dial;
    struct tcp_answer *answering; /* an incoming RESUME is being answered */
};

/* ---- connections ---- */
struct tcp_conn {
    int kind; /* TCP_SRC_CONN (0) */
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
    int draining; /* read everything: the socket is being abandoned */
    struct tcp_fo *fo; /* armed for path failover, else NULL */
    unsigned heard; /* the event-loop pass of the last frame read (tcp_direct.c) */
};

struct tcp_peer {
    int nconns;             /* 0 until wired */
    struct tcp_conn *conns; /* nconns entries */
    int failed;
    int fail_deferred;      /* broke inside send(): reported by the next progress() */
    char fail_why[256];
    int wired;              /* every connection is authenticated and open */
    unsigned rr;
    /* its addresses (tcp_addr.c), kept for resuming */
    struct sockaddr_in *cand;
    int ncand;              /* addresses to try, best first */
    int nresume;            /* the first ones, usable for resuming */
    int can_resume;         /* this end would arm its connections */
    char host[64];          /* its host name, for messages */
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
    char congestion[TCP_CONGESTION_MAX]; /* what connections use; "" the system's */
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
    /* path failover */
    int failover;           /* BOLT_TCP_FAILOVER: -1 auto, 0 off, 1 every peer */
    struct { int kind; } lsrc; /* the listener's event-loop tag */
    int listening;          /* lfd stays open and registered after the wire-up */
    struct tcp_answer *answers; /* TCP_ANSWERS */
    int fo_watch;           /* something to service: breaks, dials, answers */
    int halfclosed;         /* finalize shut our sides: no more resumes */
    double accept_pause;    /* out of descriptors: accept again after this */
    char host[64];
    /* direct reads (tcp_direct.c) */
    int direct_max;            /* BOLT_TCP_DIRECT_PEERS */
    int ndirect;               /* peers read directly; 0: all through the event loop */
    int direct[TCP_DIRECT_MAX]; /* their ranks */
    unsigned polls;            /* progress calls */
    unsigned passes;           /* event-loop passes */
    unsigned long direct_frames; /* frames read directly (for tests) */
};

/* tcp_direct.c */
/* Peers read without the event loop, from those heard from lately. */
void tcp_direct_refresh(struct bolt_tl_ctx *ctx);
/* Reads the direct peers' connections. Returns frames completed. */
int tcp_direct_read(struct bolt_tl_ctx *ctx);
/* tcp_conn_read through here: it notes when the connection was heard. */
int tcp_direct_conn_read(struct tcp_conn *c);

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
/* Adds what is left to write of s (header, payload) to iov[n...], within
 * TCP_WRITE_CAP bytes in all (TCP_WRITE_TAIL more to finish the frame);
 * *whole says whether all of it went in.
 * Returns the new count. */
int tcp_iov_add(const struct bolt_tl_send *s, struct iovec *iov, int n, uint64_t *total,
                int *whole);
/* One writev: bytes written, -2 interrupted (try again), -1 full or broken
 * (then the connection is marked broken). */
ssize_t tcp_conn_writev(struct tcp_conn *c, const struct iovec *iov, int n);
/* `left` bytes of the queue were written: advances the head frames, handing
 * each one written whole to `written` (which may re-enter send()). Returns
 * the frames done. */
int tcp_conn_written(struct tcp_conn *c, uint64_t left,
                     void (*written)(struct tcp_conn *c, struct bolt_tl_send *s));
int tcp_conn_flush(struct tcp_conn *c);
/* Reads what is available, delivering frames. Returns frames delivered. */
int tcp_conn_read(struct tcp_conn *c);
/* An error on the socket: an armed connection resumes, else the peer fails. */
void tcp_conn_broken(struct tcp_conn *c, int err, const char *what);
/* Detaches the queue (for failing it). */
struct bolt_tl_send *tcp_conn_take_queue(struct tcp_conn *c);
void tcp_conn_update_interest(struct tcp_conn *c);

/* tcp_wireup.c, tcp_addr.c */
int tcp_sock_prepare(const struct bolt_tl_ctx *ctx, int fd);
/* Picks ctx->congestion from BOLT_TCP_CONGESTION: the first name in it the
 * system lets us set ("" for "system"). BOLT_ERR_CONFIG for a malformed
 * list, or a list given by the user with no name the system accepts. */
int tcp_congestion_choose(struct bolt_tl_ctx *ctx);
int tcp_wireup_listen(struct bolt_tl_ctx *ctx);
int tcp_wireup_publish(struct bolt_tl_ctx *ctx);
/* What tcp_fetch_remote learns of a peer. */
struct tcp_remote_info {
    int n;          /* addresses to try, best first (>= 1) */
    int nshared;    /* the first ones on a subnet we share (after 127.0.0.1) */
    int same_host;  /* 127.0.0.1 (or its bind address) comes first */
    char host[64];  /* its host name */
};
/* Reads `peer`'s published value (waiting for it) and lists the addresses
 * to try, best first (tcp_addr.c). */
int tcp_fetch_remote(struct bolt_tl_ctx *ctx, int peer, struct sockaddr_in *sa,
                     struct tcp_remote_info *info);
int tcp_wireup_connect(struct bolt_tl_ctx *ctx, const int *peers, int npeers);
/* "a.b.c.d" of an address (no port). */
const char *tcp_addr_name(const struct sockaddr_in *sa, char *buf, size_t cap);

/* tcp_stream.c: an armed connection */
int tcp_fo_arm(struct tcp_conn *c);
/* Frees its state; the sends it held by reference are appended at *tail. */
void tcp_fo_free(struct tcp_conn *c, struct bolt_tl_send ***tail);
int tcp_stream_flush(struct tcp_conn *c);
/* A transport frame arrived: 0, or -1 after failing the peer. */
int tcp_stream_ctl_in(struct tcp_conn *c, const struct bolt_frame_hdr *h);
/* A stream frame of `len` payload bytes was consumed whole. */
void tcp_stream_frame_done(struct tcp_conn *c, uint64_t len);
/* Bytes of the peer's stream consumed (a partial header does not count). */
uint64_t tcp_stream_consumed(const struct tcp_conn *c);
/* Whether the peer may have consumed `from` bytes of our stream. */
int tcp_stream_valid(const struct tcp_conn *c, uint64_t from);
/* After a resume: resend from `from`; returns the bytes that go out again. */
uint64_t tcp_stream_rewind(struct tcp_conn *c, uint64_t from);
int tcp_stream_wants_out(const struct tcp_conn *c);
/* Finalize: whether the peer has yet to confirm part of our stream (or the
 * connection is resuming); once everything is written, asks it (SYNC). */
int tcp_stream_unsettled(struct tcp_conn *c);

/* tcp_resume.c */
/* The armed connection broke: noted, handled from the next progress(). */
void tcp_fo_broken(struct tcp_conn *c, const char *why);
/* Handles noted breaks, dial timers, deadlines, silent strangers. */
void tcp_fo_service(struct bolt_tl_ctx *ctx);
/* An event on a registration that is not a connection. */
void tcp_fo_event(struct bolt_tl_ctx *ctx, void *src, int events);
/* Drains and closes the broken socket; dials the peer again if `dial`. */
void tcp_fo_abandon(struct tcp_conn *c, int dial);
/* The new socket is authenticated and both consumed counts known. */
void tcp_fo_resumed(struct tcp_conn *c, int fd, uint64_t their_consumed);
/* Gives up the dial (its socket closed), e.g. when the peer's dial wins. */
void tcp_fo_dial_stop(struct tcp_conn *c);
/* Whether its own dial is under way (not idle, not waiting for the peer's). */
int tcp_fo_dialling(const struct tcp_conn *c);
/* Starts (again) dialling after a failed answer. */
void tcp_fo_dial_again(struct tcp_conn *c);
/* The peer failed: dial and answer closed, resumes forgotten; returns the
 * sends retention held by reference (linked by tl_next). */
struct bolt_tl_send *tcp_fo_cancel(struct tcp_conn *c);

/* tcp_answer.c */
/* After the wire-up: the listener stays open for RESUME (when armed). */
int tcp_fo_listen(struct bolt_tl_ctx *ctx);
void tcp_answer_accept(struct bolt_tl_ctx *ctx);
void tcp_answer_step(struct bolt_tl_ctx *ctx, struct tcp_answer *a);
void tcp_answer_close(struct bolt_tl_ctx *ctx, struct tcp_answer *a);
/* Drops strangers that stayed silent; returns how many answers are open. */
int tcp_answer_expire(struct bolt_tl_ctx *ctx, double now);
/* Finalize: the listener and every answer closed. */
void tcp_fo_unlisten(struct bolt_tl_ctx *ctx);

#endif
