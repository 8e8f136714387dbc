/*
 * chan_wire.h — the messages between boltrun and a host's bolt-hostd, carried
 * over the remote shell's stdin (boltrun -> hostd) and stdout (hostd ->
 * boltrun). Nothing else crosses between the hosts and boltrun's machine,
 * so a job runs even when the hosts cannot connect back to it.
 *
 * Frame: u32 big-endian L (1..CHAN_MAX_FRAME), then L bytes: u8 type, fields.
 * Fields: u32 big-endian integers, and byte strings (u32 length + bytes).
 *
 * boltrun -> hostd
 *   START   magic "BOLTHD1\0", the whole job description (struct chan_start);
 *           the job secret travels here, never on a command line
 *   KVS     u32 conn, bytes   key-value store frames for a local connection
 *   SIGNAL  u32 sig           signal every rank's process group
 *   STDIN   bytes             for the rank fed stdin (empty: end of input)
 * hostd -> boltrun
 *   READY   u32 pid           every rank started
 *   ERROR   text              could not start; hostd exits after it
 *   OPEN    u32 conn, u32 rank  a rank's bootstrap connection authenticated
 *   KVS     u32 conn, bytes   its frames
 *   CLOSE   u32 conn          it closed
 *   OUT     u32 rank, u32 fd (1|2), bytes
 *   EXIT    u32 rank, u32 wait status (after the rank's last OUT)
 */
#ifndef BOLTRUN_CHAN_WIRE_H
#define BOLTRUN_CHAN_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/crypto.h"

#define CHAN_MAX_FRAME (8u << 20)
#define CHAN_MAGIC "BOLTHD1"

enum chan_type {
    CHAN_START = 1,
    CHAN_KVS = 2,
    CHAN_SIGNAL = 3,
    CHAN_STDIN = 4,
    CHAN_READY = 0x81,
    CHAN_ERROR = 0x82,
    CHAN_OPEN = 0x83,
    CHAN_KVS_UP = 0x84,
    CHAN_CLOSE = 0x85,
    CHAN_OUT = 0x86,
    CHAN_EXIT = 0x87
};

/* The job, as one host's daemon needs it. Strings point into the decoded
 * frame (NUL-terminated there: the encoder adds the NUL). */
struct chan_start {
    const char *host;        /* the name boltrun knows the host by */
    uint32_t size;           /* ranks in the job */
    uint32_t nlocal;
    const uint8_t *ranks_be; /* nlocal world ranks, big-endian u32 each */
    uint8_t secret[BOLT_SECRET_BYTES];
    const char *job_id;
    const char *cwd;
    uint32_t stdin_rank;     /* world rank fed stdin here, or UINT32_MAX */
    uint32_t bind_to, map_by, report_bindings;
    uint32_t grace_ms, timeout_ms;
    uint32_t argc;           /* argv[0] is the program as given */
    const char *argv_blob;   /* argc NUL-terminated strings back to back */
    size_t argv_len;
    uint32_t nenv;           /* "NAME=VALUE" strings back to back */
    const char *env_blob;
    size_t env_len;
};

/* A growing output buffer; after an allocation failure every call is a no-op
 * and `failed` stays set. */
struct chan_buf {
    uint8_t *p;
    size_t len, cap;
    int failed;
};

void chan_buf_u8(struct chan_buf *b, uint8_t v);
void chan_buf_u32(struct chan_buf *b, uint32_t v);
void chan_buf_raw(struct chan_buf *b, const void *data, size_t n);
void chan_buf_bytes(struct chan_buf *b, const void *data, size_t n); /* u32 length + bytes */
/* A string field: u32 length + bytes ending in exactly one NUL, none inside. */
void chan_buf_str(struct chan_buf *b, const char *s);
void chan_buf_free(struct chan_buf *b);

/* A reader over one frame's body; any read past the end sets `bad`. */
struct chan_rd {
    const uint8_t *p, *end;
    int bad;
};

uint8_t chan_rd_u8(struct chan_rd *r);
uint32_t chan_rd_u32(struct chan_rd *r);
/* A byte string: pointer into the frame and its length (NULL, 0 when bad). */
const uint8_t *chan_rd_bytes(struct chan_rd *r, size_t *len);
/* A string field (chan_buf_str), pointing into the body; NULL and r->bad when malformed. */
const char *chan_rd_str(struct chan_rd *r);

/* Appends one framed message of `type` whose body is `body` (len bytes). */
void chan_frame(struct chan_buf *out, uint8_t type, const void *body, size_t len);
/* Looks at a stream: 1 with *framelen (prefix included) when a whole frame
 * is there, 0 when more is needed, -1 with *why when the length is impossible. */
int chan_frame_complete(const uint8_t *buf, size_t have, size_t *framelen, const char **why);

/* START: encodes the body; decodes it (0, or -1 with *why). The argv and env
 * blobs must hold argc / nenv NUL-terminated strings exactly. */
void chan_start_encode(struct chan_buf *b, const struct chan_start *s);
int chan_start_decode(const uint8_t *body, size_t len, struct chan_start *s, const char **why);

#endif
