/*
 * shm_ring.c — the SPSC ring of 64-byte cells (see shm_ring.h).
 */
#include "transport/shm/shm_ring.h"

#include <string.h>

#define seq_word shm_ring_seq_word

void shm_tx_ring_init(struct shm_tx_ring *t, struct shm_chan *c, uint64_t cap)
{
    t->c = c;
    t->ring = shm_chan_ring(c);
    t->cap = cap;
    /* Both ends start at 0 in a fresh segment (cells all zero). */
    t->tail_cache = atomic_load_explicit(&c->cons.tail, memory_order_acquire);
    t->head = t->tail_cache;
    /* A channel nothing was ever published on (its consumer at 0 and no
     * sequence in the first cell: a record at 0 would be the first one
     * written, and stays until consumed) is all zeros, as ftruncate made it:
     * no cell needs clearing. Otherwise what the cells hold is not known, and
     * the first lap clears as it goes, one more cache-line transfer per small
     * message (2 ranks: the first 2048 messages of every job, 4-byte
     * all-reduce ~950 instead of ~750 cycles). */
    int fresh = t->head == 0 && atomic_load_explicit(seq_word(t->ring, 0), memory_order_relaxed) == 0;
    memset(t->dirty, fresh ? 0 : 0xff, sizeof t->dirty);
}

void shm_rx_ring_init(struct shm_rx_ring *r, struct shm_chan *c, uint64_t cap)
{
    r->c = c;
    r->ring = shm_chan_ring(c);
    r->cap = cap;
    r->tail = atomic_load_explicit(&c->cons.tail, memory_order_relaxed);
    r->small = 0;
    r->prefetch_next = 0;
}

int shm_ring_has_room(struct shm_tx_ring *t, uint64_t inline_len)
{
    uint64_t need = shm_rec_bytes(inline_len);
    if (t->head + need - t->tail_cache <= t->cap)
        return 1;
    /* Acquire: the consumer finished reading the cells it gave back. */
    t->tail_cache = atomic_load_explicit(&t->c->cons.tail, memory_order_acquire);
    return t->head + need - t->tail_cache <= t->cap;
}

/* Copies len bytes into the ring at running position pos, wrapping. */
static void ring_write(struct shm_tx_ring *t, uint64_t pos, const void *src, uint64_t len)
{
    uint64_t off = pos & (t->cap - 1), first = t->cap - off;
    if (first >= len) {
        memcpy(t->ring + off, src, len);
    } else {
        memcpy(t->ring + off, src, first);
        memcpy(t->ring, (const char *)src + first, len - first);
    }
}

static int cell_dirty(const struct shm_tx_ring *t, uint64_t pos)
{
    uint64_t cell = (pos & (t->cap - 1)) / SHM_LINE;
    return (t->dirty[cell / 64] >> (cell % 64)) & 1;
}

static void cell_mark(struct shm_tx_ring *t, uint64_t pos, int dirty)
{
    uint64_t cell = (pos & (t->cap - 1)) / SHM_LINE, bit = (uint64_t)1 << (cell % 64);
    if (dirty)
        t->dirty[cell / 64] |= bit;
    else
        t->dirty[cell / 64] &= ~bit;
}

/* Marks the n cells from running position pos dirty, a bitmap word at a
 * time: a bit at a time, a 4 KiB record's 64 payload cells were a chain of
 * read-modify-writes of one word, a quarter of a small broadcast root's time. */
static void cells_mark_dirty(struct shm_tx_ring *t, uint64_t pos, uint64_t n)
{
    uint64_t ncells = t->cap / SHM_LINE, cell = (pos & (t->cap - 1)) / SHM_LINE;
    while (n) {
        uint64_t bit = cell % 64, take = 64 - bit;
        if (take > n)
            take = n;
        if (take > ncells - cell)
            take = ncells - cell; /* the ring ends: go on at cell 0 */
        uint64_t mask = take == 64 ? ~(uint64_t)0 : (((uint64_t)1 << take) - 1) << bit;
        t->dirty[cell / 64] |= mask;
        n -= take;
        cell = (cell + take) % ncells;
    }
}

static int packable(uint32_t kind, const struct bolt_frame_hdr *h, uint64_t inline_len)
{
    return kind == SHM_REC_FRAME && inline_len <= SHM_SMALL_MAX && h->len == inline_len &&
           h->msg_size == h->len && h->rreq == 0 && h->magic == BOLT_FRAME_MAGIC;
}

int shm_ring_put(struct shm_tx_ring *t, uint32_t kind, uint64_t aux,
                 const struct bolt_frame_hdr *h, const void *payload, uint64_t inline_len)
{
    int small = packable(kind, h, inline_len);
    uint64_t cell_len = small ? 0 : inline_len;
    if (!shm_ring_has_room(t, cell_len))
        return 0;
    uint64_t off = t->head & (t->cap - 1), need = shm_rec_bytes(cell_len);
    /* The next record's header cell, if free and its word may hold anything
     * (struct shm_tx_ring), must not look published. Done first, so that the
     * stores to this record's cell follow each other: a store to another line
     * between them let the spinning consumer take the cell back half-written,
     * and the producer had to fetch it again. (Not free, it is the header of
     * the oldest unconsumed record: another lap's sequence.) */
    if (t->head + need - t->tail_cache < t->cap && cell_dirty(t, t->head + need)) {
        atomic_store_explicit(seq_word(t->ring, (t->head + need) & (t->cap - 1)), 0,
                              memory_order_relaxed);
        cell_mark(t, t->head + need, 0);
    }
    cell_mark(t, t->head, 0);
    if (need > SHM_LINE)
        cells_mark_dirty(t, t->head + SHM_LINE, need / SHM_LINE - 1);
    if (small) {
        struct shm_small *sm = (struct shm_small *)(void *)(t->ring + off);
        sm->kind = SHM_REC_SMALL;
        sm->type = h->type;
        sm->flags = h->flags;
        sm->len = (uint16_t)inline_len;
        sm->ctx = h->ctx;
        sm->src = h->src;
        sm->tag = h->tag;
        sm->sreq = h->sreq;
        if (inline_len)
            memcpy(sm->data, payload, inline_len);
    } else {
        struct shm_rec *rec = (struct shm_rec *)(void *)(t->ring + off);
        rec->kind = kind;
        rec->aux = aux;
        rec->hdr = *h;
        if (inline_len)
            ring_write(t, t->head + SHM_LINE, payload, inline_len);
    }
    /* Release: the record's bytes (and the cleared word) before its sequence. */
    atomic_store_explicit(seq_word(t->ring, off), shm_rec_seq(t->head), memory_order_release);
    t->head += need;
    return 1;
}

int shm_ring_peek(struct shm_rx_ring *r, struct shm_rec *rec)
{
    uint64_t off = r->tail & (r->cap - 1);
    /* Acquire: pairs with the producer's release of the sequence word. */
    if (atomic_load_explicit(seq_word(r->ring, off), memory_order_acquire) !=
        shm_rec_seq(r->tail))
        return 0;
    memcpy(rec, r->ring + off, sizeof *rec);
    r->small = rec->kind == SHM_REC_SMALL;
    if (r->small) {
        struct shm_small sm;
        memcpy(&sm, rec, sizeof sm);
        if (sm.len > SHM_SMALL_MAX)
            return 1; /* kind SHM_REC_SMALL: the caller refuses it as malformed */
        memset(rec, 0, sizeof *rec);
        rec->kind = SHM_REC_FRAME;
        rec->seq = sm.seq;
        rec->hdr.magic = BOLT_FRAME_MAGIC;
        rec->hdr.type = sm.type;
        rec->hdr.flags = sm.flags;
        rec->hdr.ctx = sm.ctx;
        rec->hdr.src = sm.src;
        rec->hdr.tag = sm.tag;
        rec->hdr.len = rec->hdr.msg_size = sm.len;
        rec->hdr.sreq = sm.sreq;
        memcpy(r->small_data, sm.data, SHM_SMALL_MAX);
    }
    return 1;
}

void shm_ring_read_payload(struct shm_rx_ring *r, void *dst, uint64_t len)
{
    if (r->small) {
        memcpy(dst, r->small_data, len < SHM_SMALL_MAX ? len : SHM_SMALL_MAX);
        return;
    }
    uint64_t off = (r->tail + SHM_LINE) & (r->cap - 1), first = r->cap - off;
    if (first >= len) {
        memcpy(dst, r->ring + off, len);
    } else {
        memcpy(dst, r->ring + off, first);
        memcpy((char *)dst + first, r->ring, len - first);
    }
}

void shm_ring_pop(struct shm_rx_ring *r, uint64_t inline_len)
{
    if (!r->small && inline_len)
        r->prefetch_next = inline_len <= SHM_LINE;
    r->tail += shm_rec_bytes(r->small ? 0 : inline_len);
    r->small = 0;
    /* Release: our reads of the cells are done before the producer reuses them. */
    atomic_store_explicit(&r->c->cons.tail, r->tail, memory_order_release);
}
