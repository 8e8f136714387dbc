/*
 * kvs_wire.h — the wire protocol between boltrun's key-value store (server,
 * launcher/kvs_server.c) and the ranks' bootstrap client (runtime/bootstrap.c).
 *
 * Handshake (raw bytes, no framing):
 *   server -> client  "BOLTKVS1" (8 bytes) + nonce (32 random bytes)
 *   client -> server  rank (u32 big-endian) + HMAC-SHA256(secret,
 *                     "bolt-kvs" || nonce || rank as u32 big-endian)  (32 bytes)
 *   server -> client  one byte 0x01 (OK), or it closes the connection.
 * secret is the 32 bytes that BOLT_JOB_SECRET spells in hex.
 *
 * Then framed messages both ways:
 *   u32 big-endian length L (bytes after this field, 1..BOLT_KVS_MAX_FRAME)
 *   u8  op
 *   fields, by op (key = u8 length + bytes, 1..255 bytes;
 *                  value = u32 big-endian length + bytes, 0..1 MiB):
 *     PUT   0x01  key, value        client -> server; no reply
 *     GET   0x02  key               client -> server; server replies VALUE
 *                                   once some rank has put the key
 *     FENCE 0x03  (none)            client -> server; FENCE_DONE once all
 *                                   `size` ranks entered this round's fence
 *     ABORT 0x04  i32 code (big-endian), u32 length + message (<= 4096 bytes)
 *                                   client -> server; boltrun ends the job
 *     VALUE 0x81  key, value        server -> client
 *     FENCE_DONE 0x82  u32 round    server -> client
 *     FENCE_FAILED 0x83  u32 length + message (<= 4096 bytes)
 *                                   server -> client, instead of FENCE_DONE,
 *                                   when the fence can no longer complete
 *                                   (a rank ended without entering it)
 * A frame whose fields do not fill exactly L bytes is malformed.
 */
#ifndef BOLT_KVS_WIRE_H
#define BOLT_KVS_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>

#include "runtime/bootstrap.h"
#include "runtime/crypto.h"

#define BOLT_KVS_MAGIC "BOLTKVS1"
#define BOLT_KVS_MAGIC_LEN 8
#define BOLT_KVS_NONCE_BYTES 32
#define BOLT_KVS_HELLO_BYTES (BOLT_KVS_MAGIC_LEN + BOLT_KVS_NONCE_BYTES)
#define BOLT_KVS_AUTH_BYTES (4 + BOLT_HMAC_BYTES)
#define BOLT_KVS_AUTH_OK 0x01
#define BOLT_KVS_AUTH_LABEL "bolt-kvs"
#define BOLT_KVS_MAX_ABORT_MSG 4096
/* Largest L: op + key + value fields. */
#define BOLT_KVS_MAX_FRAME (1 + 1 + BOLT_KVS_MAX_KEY + 4 + BOLT_KVS_MAX_VALUE)

enum bolt_kvs_op {
    BOLT_KVS_PUT = 0x01,
    BOLT_KVS_GET = 0x02,
    BOLT_KVS_FENCE = 0x03,
    BOLT_KVS_ABORT = 0x04,
    BOLT_KVS_VALUE = 0x81,
    BOLT_KVS_FENCE_DONE = 0x82,
    BOLT_KVS_FENCE_FAILED = 0x83
};

/* A decoded message. Pointers point into the decoded buffer (not copied, not
 * NUL-terminated). */
struct bolt_kvs_msg {
    uint8_t op;
    const char *key;      /* PUT, GET, VALUE */
    size_t keylen;
    const void *val;      /* PUT, VALUE: value; ABORT, FENCE_FAILED: message */
    size_t vallen;
    int32_t code;         /* ABORT */
    uint32_t round;       /* FENCE_DONE */
};

/* ---- Pure encoding and decoding (no I/O, unit-tested). ---- */

const char *bolt_kvs_op_name(int op);
/* Bytes the framed message takes, length prefix included; 0 if it is invalid. */
size_t bolt_kvs_encoded_size(const struct bolt_kvs_msg *m);
/* Writes the framed message into buf. Returns BOLT_OK and *outlen, or
 * BOLT_ERR_ARG (bad op, key or value size; cap too small) with *why set. */
int bolt_kvs_encode(const struct bolt_kvs_msg *m, uint8_t *buf, size_t cap, size_t *outlen,
                    const char **why);
/* Looks at the first `have` bytes of a stream. Returns 1 and the whole
 * frame's size (prefix included) in *framelen when it is complete, 0 when more
 * bytes are needed, BOLT_ERR_PROTO (with *why) when the length is impossible. */
int bolt_kvs_frame_complete(const uint8_t *buf, size_t have, size_t *framelen, const char **why);
/* Decodes one frame's body (the L bytes after the length prefix). */
int bolt_kvs_decode(const uint8_t *body, size_t len, struct bolt_kvs_msg *m, const char **why);

void bolt_kvs_hello_encode(const uint8_t nonce[BOLT_KVS_NONCE_BYTES], uint8_t out[BOLT_KVS_HELLO_BYTES]);
/* BOLT_OK with the nonce, or BOLT_ERR_PROTO when the magic is wrong. */
int bolt_kvs_hello_decode(const uint8_t in[BOLT_KVS_HELLO_BYTES], uint8_t nonce[BOLT_KVS_NONCE_BYTES]);
/* The HMAC a client with `secret` proves itself with, as rank `rank`. */
int bolt_kvs_auth_mac(const uint8_t secret[BOLT_SECRET_BYTES], const uint8_t nonce[BOLT_KVS_NONCE_BYTES],
                      uint32_t rank, uint8_t mac[BOLT_HMAC_BYTES]);
void bolt_kvs_auth_encode(uint32_t rank, const uint8_t mac[BOLT_HMAC_BYTES], uint8_t out[BOLT_KVS_AUTH_BYTES]);
void bolt_kvs_auth_decode(const uint8_t in[BOLT_KVS_AUTH_BYTES], uint32_t *rank, uint8_t mac[BOLT_HMAC_BYTES]);
/* 1 when `mac` is right for (secret, nonce, rank), compared in constant time. */
int bolt_kvs_auth_check(const uint8_t secret[BOLT_SECRET_BYTES], const uint8_t nonce[BOLT_KVS_NONCE_BYTES],
                        uint32_t rank, const uint8_t mac[BOLT_HMAC_BYTES]);

/* Parses "a.b.c.d:port" (IPv4 only). BOLT_OK or BOLT_ERR_ARG with *why. */
int bolt_kvs_parse_addr(const char *text, struct sockaddr_in *sa, const char **why);

void bolt_kvs_put_u32(uint8_t *p, uint32_t v);
uint32_t bolt_kvs_get_u32(const uint8_t *p);

/* ---- Blocking I/O with a deadline. ---- */

/* Seconds on a monotonic clock. */
double bolt_kvs_now(void);
/* Keeps a write to a closed socket from raising SIGPIPE where the platform
 * offers a per-socket switch (SO_NOSIGPIPE); sends use MSG_NOSIGNAL elsewhere. */
void bolt_kvs_nosigpipe(int fd);
/* Writes/reads exactly len bytes before `deadline` (bolt_kvs_now() time) on a
 * blocking or nonblocking fd, retrying on EINTR. Returns BOLT_OK,
 * BOLT_ERR_TIMEOUT, BOLT_ERR_PEER (peer closed: errno is 0 for a clean EOF,
 * else the error, e.g. ECONNRESET or EPIPE) or BOLT_ERR_SYS (errno set).
 * They do not call bolt_err_set: callers know what the bytes were for. */
int bolt_kvs_write_full(int fd, const void *buf, size_t len, double deadline);
int bolt_kvs_read_full(int fd, void *buf, size_t len, double deadline);
/* One nonblocking send/recv attempt for event loops: returns bytes moved, 0
 * when it would block, -1 on error (errno; EPIPE/ECONNRESET when closed).
 * bolt_kvs_recv_some returns -1 with errno 0 at EOF. */
ssize_t bolt_kvs_send_some(int fd, const void *buf, size_t len);
ssize_t bolt_kvs_recv_some(int fd, void *buf, size_t len);

#endif
