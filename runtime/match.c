/* match.c — ordered posted and unexpected queues. */
#include <stdlib.h>
#include <string.h>

#include "bolt.h"
#include "runtime/match.h"

void bolt_match_post(struct bolt_match *m, struct bolt_request *req)
{
    req->next = NULL;
    req->prev = m->posted_tail;
    if (m->posted_tail)
        m->posted_tail->next = req;
    else
        m->posted_head = req;
    m->posted_tail = req;
}

void bolt_match_remove_posted(struct bolt_match *m, struct bolt_request *req)
{
    if (req->prev)
        req->prev->next = req->next;
    else
        m->posted_head = req->next;
    if (req->next)
        req->next->prev = req->prev;
    else
        m->posted_tail = req->prev;
    req->next = req->prev = NULL;
}

int bolt_match_has_posted(const struct bolt_match *m, uint32_t ctx, int src, int tag)
{
    for (const struct bolt_request *r = m->posted_head; r; r = r->next)
        if (r->ctx == ctx && bolt_match_hits(r->peer, r->tag, src, tag))
            return 1;
    return 0;
}

struct bolt_request *bolt_match_take_posted(struct bolt_match *m, uint32_t ctx, int src, int tag)
{
    for (struct bolt_request *r = m->posted_head; r; r = r->next) {
        if (r->ctx == ctx && bolt_match_hits(r->peer, r->tag, src, tag)) {
            bolt_match_remove_posted(m, r);
            return r;
        }
    }
    return NULL;
}

/* Beyond any real job: a source rank above it (a malformed frame) turns
 * the index off rather than grow it without bound. */
#define SRC_INDEX_MAX (1 << 16)

/* The source's list, grown to hold src; NULL when it cannot be (then the
 * index is off: a search by source must see every entry of its source). */
static struct bolt_unexp_src *src_list(struct bolt_match *m, int src)
{
    if (src < 0 || m->by_src_off)
        return NULL; /* a negative source matches no receive by source */
    if (src >= SRC_INDEX_MAX) {
        m->by_src_off = 1;
        return NULL;
    }
    if (src >= m->nsrc) {
        int n = m->nsrc ? m->nsrc : 16;
        while (n <= src)
            n *= 2;
        struct bolt_unexp_src *t = realloc(m->by_src, (size_t)n * sizeof *t);
        if (!t) {
            m->by_src_off = 1; /* entries already indexed stay so until removed */
            return NULL;
        }
        memset(t + m->nsrc, 0, (size_t)(n - m->nsrc) * sizeof *t);
        m->by_src = t;
        m->nsrc = n;
    }
    return &m->by_src[src];
}

void bolt_match_add_unexp(struct bolt_match *m, struct bolt_unexp *u)
{
    u->next = NULL;
    u->prev = m->unexp_tail;
    if (m->unexp_tail)
        m->unexp_tail->next = u;
    else
        m->unexp_head = u;
    m->unexp_tail = u;
    struct bolt_unexp_src *l = src_list(m, u->src);
    u->in_src = l != NULL;
    if (!l)
        return;
    u->snext = NULL;
    u->sprev = l->tail;
    if (l->tail)
        l->tail->snext = u;
    else
        l->head = u;
    l->tail = u;
}

static int unexp_hits(const struct bolt_unexp *u, uint32_t ctx, int src, int tag)
{
    return !u->claimed && !u->reserved && u->ctx == ctx && bolt_match_hits(src, tag, u->src, u->tag);
}

struct bolt_unexp *bolt_match_find_unexp(struct bolt_match *m, uint32_t ctx, int src, int tag)
{
    /* One source's entries are in its list in arrival order, so its first
     * hit there is its first in the whole queue. */
    if (src >= 0 && !m->by_src_off) {
        if (src >= m->nsrc)
            return NULL; /* nothing ever came from it */
        for (struct bolt_unexp *u = m->by_src[src].head; u; u = u->snext)
            if (unexp_hits(u, ctx, src, tag))
                return u;
        return NULL;
    }
    for (struct bolt_unexp *u = m->unexp_head; u; u = u->next)
        if (unexp_hits(u, ctx, src, tag))
            return u;
    return NULL;
}

void bolt_match_remove_unexp(struct bolt_match *m, struct bolt_unexp *u)
{
    if (u->prev)
        u->prev->next = u->next;
    else
        m->unexp_head = u->next;
    if (u->next)
        u->next->prev = u->prev;
    else
        m->unexp_tail = u->prev;
    u->next = u->prev = NULL;
    if (!u->in_src)
        return;
    struct bolt_unexp_src *l = &m->by_src[u->src];
    if (u->sprev)
        u->sprev->snext = u->snext;
    else
        l->head = u->snext;
    if (u->snext)
        u->snext->sprev = u->sprev;
    else
        l->tail = u->sprev;
    u->snext = u->sprev = NULL;
    u->in_src = 0;
}

#define POOL_PAYLOAD BOLT_UNEXP_INLINE /* payload room of a pooled entry */
#define POOL_MAX 4096    /* entries kept for reuse */

static struct bolt_unexp *pool;
static int npool;

struct bolt_unexp *bolt_unexp_new(size_t inline_bytes)
{
    struct bolt_unexp *u;
    int pooled = inline_bytes <= POOL_PAYLOAD;
    if (pooled && pool) {
        u = pool;
        pool = u->next;
        npool--;
    } else {
        u = malloc(sizeof *u + (pooled ? POOL_PAYLOAD : inline_bytes));
        if (!u)
            return NULL;
    }
    memset(u, 0, sizeof *u);
    u->pooled = pooled;
    return u;
}

/* Payload buffers by power-of-two size class, 512 B (the smallest payload
 * not inline) to 1 MiB (beyond: a raised eager limit, rare; malloc). */
#define DATA_MIN_CLASS 9
#define DATA_MAX_CLASS 20
#define DATA_CACHE_BYTES ((size_t)16 << 20) /* kept at most, all classes */

static void *data_free[DATA_MAX_CLASS + 1]; /* lists linked through their first word */
static size_t data_cached;

int bolt_unexp_data_new(struct bolt_unexp *u, size_t n)
{
    int c = DATA_MIN_CLASS;
    while (c <= DATA_MAX_CLASS && ((size_t)1 << c) < n)
        c++;
    if (c > DATA_MAX_CLASS) {
        u->data = malloc(n);
        u->data_class = 0;
    } else if (data_free[c]) {
        u->data = data_free[c];
        data_free[c] = *(void **)u->data;
        data_cached -= (size_t)1 << c;
        u->data_class = c;
    } else {
        u->data = malloc((size_t)1 << c);
        u->data_class = c;
    }
    return u->data ? BOLT_OK : BOLT_ERR_NOMEM;
}

static void data_put(void *d, int c)
{
    if (c == 0 || data_cached + ((size_t)1 << c) > DATA_CACHE_BYTES) {
        free(d);
        return;
    }
    *(void **)d = data_free[c];
    data_free[c] = d;
    data_cached += (size_t)1 << c;
}

void bolt_unexp_free(struct bolt_unexp *u)
{
    if (u->data && u->data != (void *)u->inline_data)
        data_put(u->data, u->data_class);
    if (u->pooled && npool < POOL_MAX) {
        u->next = pool;
        pool = u;
        npool++;
        return;
    }
    free(u);
}

size_t bolt_unexp_cache_bytes(void)
{
    return data_cached;
}

void bolt_unexp_cache_release(void)
{
    while (pool) {
        struct bolt_unexp *u = pool;
        pool = u->next;
        free(u);
    }
    npool = 0;
    for (int c = DATA_MIN_CLASS; c <= DATA_MAX_CLASS; c++)
        while (data_free[c]) {
            void *d = data_free[c];
            data_free[c] = *(void **)d;
            free(d);
        }
    data_cached = 0;
}

void bolt_match_free_all(struct bolt_match *m)
{
    struct bolt_unexp *u = m->unexp_head;
    while (u) {
        struct bolt_unexp *n = u->next;
        bolt_unexp_free(u);
        u = n;
    }
    m->unexp_head = m->unexp_tail = NULL;
    m->posted_head = m->posted_tail = NULL;
    free(m->by_src);
    m->by_src = NULL;
    m->nsrc = m->by_src_off = 0;
}
