/* tcp_retain.c — see tcp_retain.h. */
#include <stdlib.h>
#include <string.h>

#include "transport/tcp/tcp_retain.h"

#define HDR ((uint64_t)sizeof(struct bolt_frame_hdr))

void tcp_retain_init(struct tcp_retain *r, uint64_t cap)
{
    memset(r, 0, sizeof *r);
    r->cap = cap;
}

void tcp_retain_free(struct tcp_retain *r)
{
    free(r->ring);
    free(r->seg);
    uint64_t cap = r->cap;
    memset(r, 0, sizeof *r);
    r->cap = cap;
}

uint64_t tcp_retain_room(const struct tcp_retain *r)
{
    return r->cap - (r->rhead - r->rtail);
}

static struct tcp_rseg *seg_at(const struct tcp_retain *r, uint32_t i)
{
    return &r->seg[(r->sfirst + i) & (r->scap - 1)];
}

/* Room for one more segment: the FIFO doubles, straightened. */
static int seg_reserve(struct tcp_retain *r)
{
    if (r->nseg < r->scap)
        return 0;
    uint32_t nc = r->scap ? r->scap * 2 : 64;
    struct tcp_rseg *n = malloc((size_t)nc * sizeof *n);
    if (!n)
        return -1;
    for (uint32_t i = 0; i < r->nseg; i++)
        n[i] = *seg_at(r, i);
    free(r->seg);
    r->seg = n;
    r->scap = nc;
    r->sfirst = 0;
    return 0;
}

static void ring_put(struct tcp_retain *r, const void *p, uint64_t n)
{
    const unsigned char *src = p;
    while (n > 0) {
        uint64_t at = r->rhead & (r->cap - 1);
        uint64_t k = r->cap - at < n ? r->cap - at : n;
        memcpy(r->ring + at, src, (size_t)k);
        r->rhead += k;
        src += k;
        n -= k;
    }
}

int tcp_retain_copy(struct tcp_retain *r, const struct bolt_frame_hdr *h, const void *payload)
{
    uint64_t len = HDR + h->len;
    if (len > tcp_retain_room(r))
        return -1;
    if (!r->ring && !(r->ring = malloc((size_t)r->cap)))
        return -1;
    struct tcp_rseg *last = r->nseg ? seg_at(r, r->nseg - 1) : NULL;
    if (!last || last->s) {
        if (seg_reserve(r) != 0)
            return -1;
        last = seg_at(r, r->nseg++);
        last->off = r->end;
        last->len = 0;
        last->ring = r->rhead;
        last->s = NULL;
    }
    ring_put(r, h, HDR);
    if (h->len)
        ring_put(r, payload, h->len);
    last->len += len;
    r->end += len;
    return 0;
}

int tcp_retain_ref(struct tcp_retain *r, struct bolt_tl_send *s)
{
    if (seg_reserve(r) != 0)
        return -1;
    struct tcp_rseg *g = seg_at(r, r->nseg++);
    g->off = r->end;
    g->len = HDR + s->hdr.len;
    g->ring = r->rhead;
    g->s = s;
    r->nrefs++;
    r->end += g->len;
    return 0;
}

int tcp_retain_confirm(struct tcp_retain *r, uint64_t upto, struct bolt_tl_send **done)
{
    struct bolt_tl_send **tail = done;
    *done = NULL;
    if (upto > r->end)
        return -1;
    if (upto <= r->confirmed)
        return 0;
    while (r->nseg) {
        struct tcp_rseg *g = seg_at(r, 0);
        if (g->off + g->len <= upto) {
            if (g->s) {
                g->s->tl_next = NULL;
                *tail = g->s;
                tail = &g->s->tl_next;
                r->nrefs--;
            } else {
                r->rtail = g->ring + g->len;
            }
            r->sfirst = (r->sfirst + 1) & (r->scap - 1);
            r->nseg--;
            continue;
        }
        if (!g->s && upto > g->off) {
            /* Confirmed bytes are never sent again, even mid-frame. */
            uint64_t k = upto - g->off;
            g->off += k;
            g->ring += k;
            g->len -= k;
            r->rtail = g->ring;
        }
        break;
    }
    r->confirmed = upto;
    return 0;
}

/* Appends one iovec, cut to what `cap` allows; 0 when all of it went in. */
static int add_iov(struct iovec *iov, int *n, int max, const void *p, uint64_t len, uint64_t cap,
                   uint64_t *total)
{
    if (*n >= max || *total >= cap)
        return -1;
    uint64_t k = len < cap - *total ? len : cap - *total;
    iov[*n].iov_base = (void *)p;
    iov[*n].iov_len = (size_t)k;
    (*n)++;
    *total += k;
    return k == len ? 0 : -1;
}

int tcp_retain_iov(const struct tcp_retain *r, uint64_t from, struct iovec *iov, int max,
                   uint64_t cap, uint64_t *bytes)
{
    int n = 0, full = 0;
    uint64_t total = 0;
    *bytes = 0;
    if (from < r->confirmed || from > r->end)
        return -1;
    for (uint32_t i = 0; i < r->nseg && !full; i++) {
        const struct tcp_rseg *g = seg_at(r, i);
        if (g->off + g->len <= from)
            continue;
        uint64_t skip = from > g->off ? from - g->off : 0;
        if (g->s) {
            uint64_t pskip = skip > HDR ? skip - HDR : 0;
            if (skip < HDR)
                full = add_iov(iov, &n, max, (const char *)&g->s->hdr + skip, HDR - skip, cap,
                               &total);
            if (!full && g->s->hdr.len > pskip)
                full = add_iov(iov, &n, max, (const char *)g->s->payload + pskip,
                               g->s->hdr.len - pskip, cap, &total);
            continue;
        }
        uint64_t pos = g->ring + skip, left = g->len - skip;
        while (left > 0 && !full) {
            uint64_t at = pos & (r->cap - 1);
            uint64_t k = r->cap - at < left ? r->cap - at : left;
            full = add_iov(iov, &n, max, r->ring + at, k, cap, &total);
            pos += k;
            left -= k;
        }
    }
    *bytes = total;
    return n;
}

struct bolt_tl_send *tcp_retain_take_refs(struct tcp_retain *r)
{
    struct bolt_tl_send *head = NULL, **tail = &head;
    for (uint32_t i = 0; i < r->nseg; i++) {
        struct tcp_rseg *g = seg_at(r, i);
        if (g->s) {
            g->s->tl_next = NULL;
            *tail = g->s;
            tail = &g->s->tl_next;
        }
    }
    r->nseg = 0;
    r->nrefs = 0;
    r->sfirst = 0;
    r->rtail = r->rhead;
    r->confirmed = r->end;
    return head;
}
