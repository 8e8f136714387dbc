/*
 * chan_wire.c — encoding and decoding of boltrun <-> bolt-hostd messages
 * (see chan_wire.h). Pure: no I/O. Every read is bounds-checked because the
 * bytes come from another machine.
 */
#include "launcher/chan_wire.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/kvs_wire.h"

static int grow(struct chan_buf *b, size_t more)
{
    if (b->failed)
        return -1;
    if (b->len + more <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + more)
        cap *= 2;
    uint8_t *p = realloc(b->p, cap);
    if (p == NULL) {
        b->failed = 1;
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

void chan_buf_raw(struct chan_buf *b, const void *data, size_t n)
{
    if (n == 0 || grow(b, n) != 0)
        return;
    memcpy(b->p + b->len, data, n);
    b->len += n;
}

void chan_buf_u8(struct chan_buf *b, uint8_t v)
{
    chan_buf_raw(b, &v, 1);
}

void chan_buf_u32(struct chan_buf *b, uint32_t v)
{
    uint8_t x[4];
    bolt_kvs_put_u32(x, v);
    chan_buf_raw(b, x, 4);
}

void chan_buf_bytes(struct chan_buf *b, const void *data, size_t n)
{
    chan_buf_u32(b, (uint32_t)n);
    chan_buf_raw(b, data, n);
}

void chan_buf_free(struct chan_buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

uint8_t chan_rd_u8(struct chan_rd *r)
{
    if (r->bad || r->end - r->p < 1) {
        r->bad = 1;
        return 0;
    }
    return *r->p++;
}

uint32_t chan_rd_u32(struct chan_rd *r)
{
    if (r->bad || r->end - r->p < 4) {
        r->bad = 1;
        return 0;
    }
    uint32_t v = bolt_kvs_get_u32(r->p);
    r->p += 4;
    return v;
}

const uint8_t *chan_rd_bytes(struct chan_rd *r, size_t *len)
{
    uint32_t n = chan_rd_u32(r);
    if (r->bad || (size_t)(r->end - r->p) < n) {
        r->bad = 1;
        *len = 0;
        return NULL;
    }
    const uint8_t *p = r->p;
    r->p += n;
    *len = n;
    return p;
}

void chan_frame(struct chan_buf *out, uint8_t type, const void *body, size_t len)
{
    chan_buf_u32(out, (uint32_t)(len + 1));
    chan_buf_u8(out, type);
    chan_buf_raw(out, body, len);
}

int chan_frame_complete(const uint8_t *buf, size_t have, size_t *framelen, const char **why)
{
    if (have < 4)
        return 0;
    uint32_t l = bolt_kvs_get_u32(buf);
    if (l == 0 || l > CHAN_MAX_FRAME) {
        if (why)
            *why = l == 0 ? "empty frame" : "frame longer than the protocol allows";
        return -1;
    }
    if (have - 4 < l)
        return 0;
    *framelen = 4 + (size_t)l;
    return 1;
}

void chan_buf_str(struct chan_buf *b, const char *s)
{
    chan_buf_bytes(b, s, strlen(s) + 1);
}

const char *chan_rd_str(struct chan_rd *r)
{
    size_t n;
    const uint8_t *p = chan_rd_bytes(r, &n);
    if (p == NULL || n == 0 || p[n - 1] != '\0' || memchr(p, '\0', n) != p + n - 1) {
        r->bad = 1;
        return NULL;
    }
    return (const char *)p;
}

/* A blob of exactly `count` NUL-terminated strings. */
static int blob_ok(const uint8_t *p, size_t n, uint32_t count)
{
    uint32_t seen = 0;
    for (size_t i = 0; i < n; i++)
        if (p[i] == '\0')
            seen++;
    return seen == count && (n == 0 || p[n - 1] == '\0');
}

void chan_start_encode(struct chan_buf *b, const struct chan_start *s)
{
    chan_buf_raw(b, CHAN_MAGIC, sizeof CHAN_MAGIC); /* with its NUL: 8 bytes */
    chan_buf_str(b, s->host);
    chan_buf_u32(b, s->size);
    chan_buf_u32(b, s->nlocal);
    chan_buf_raw(b, s->ranks_be, (size_t)s->nlocal * 4);
    chan_buf_raw(b, s->secret, BOLT_SECRET_BYTES);
    chan_buf_str(b, s->job_id);
    chan_buf_str(b, s->cwd);
    chan_buf_u32(b, s->stdin_rank);
    chan_buf_u32(b, s->bind_to);
    chan_buf_u32(b, s->map_by);
    chan_buf_u32(b, s->report_bindings);
    chan_buf_u32(b, s->grace_ms);
    chan_buf_u32(b, s->timeout_ms);
    chan_buf_u32(b, s->argc);
    chan_buf_bytes(b, s->argv_blob, s->argv_len);
    chan_buf_u32(b, s->nenv);
    chan_buf_bytes(b, s->env_blob, s->env_len);
}

int chan_start_decode(const uint8_t *body, size_t len, struct chan_start *s, const char **why)
{
    struct chan_rd r = {body, body + len, 0};
    memset(s, 0, sizeof *s);
    if (len < sizeof CHAN_MAGIC || memcmp(body, CHAN_MAGIC, sizeof CHAN_MAGIC) != 0) {
        *why = "not a bolt-hostd start message (a different Bolt version?)";
        return -1;
    }
    r.p += sizeof CHAN_MAGIC;
    s->host = chan_rd_str(&r);
    s->size = chan_rd_u32(&r);
    s->nlocal = chan_rd_u32(&r);
    if (!r.bad && (s->nlocal == 0 || s->nlocal > s->size || (size_t)(r.end - r.p) / 4 < s->nlocal)) {
        *why = "bad rank list";
        return -1;
    }
    if (r.bad) {
        *why = "truncated start message";
        return -1;
    }
    s->ranks_be = r.p;
    for (uint32_t i = 0; i < s->nlocal; i++)
        if (bolt_kvs_get_u32(r.p + 4 * i) >= s->size) {
            *why = "a rank outside the job";
            return -1;
        }
    r.p += (size_t)s->nlocal * 4;
    if (r.end - r.p < BOLT_SECRET_BYTES) {
        *why = "truncated start message";
        return -1;
    }
    memcpy(s->secret, r.p, BOLT_SECRET_BYTES);
    r.p += BOLT_SECRET_BYTES;
    s->job_id = chan_rd_str(&r);
    s->cwd = chan_rd_str(&r);
    s->stdin_rank = chan_rd_u32(&r);
    s->bind_to = chan_rd_u32(&r);
    s->map_by = chan_rd_u32(&r);
    s->report_bindings = chan_rd_u32(&r);
    s->grace_ms = chan_rd_u32(&r);
    s->timeout_ms = chan_rd_u32(&r);
    s->argc = chan_rd_u32(&r);
    s->argv_blob = (const char *)chan_rd_bytes(&r, &s->argv_len);
    s->nenv = chan_rd_u32(&r);
    s->env_blob = (const char *)chan_rd_bytes(&r, &s->env_len);
    if (r.bad || r.p != r.end) {
        *why = r.bad ? "truncated start message" : "trailing bytes after the start message";
        return -1;
    }
    if (s->argc == 0 || !blob_ok((const uint8_t *)s->argv_blob, s->argv_len, s->argc) ||
        !blob_ok((const uint8_t *)s->env_blob, s->env_len, s->nenv)) {
        *why = "malformed program arguments or environment";
        return -1;
    }
    return 0;
}
