/* request.c — request allocation and the wire-id table. */
#include <stdlib.h>
#include <string.h>

#include "runtime/comm.h"
#include "runtime/memzero.h"
#include "runtime/request.h"
#include "runtime/sanitizer.h"

/* id = generation << 32 | (slot + 1): a slot reused for a new request gets a
 * new generation, so a late frame naming the old id finds nothing. */
struct id_slot {
    struct bolt_request *req;
    uint32_t gen;
    uint32_t next_free;
};

static struct id_slot *slots;
static uint32_t nslots, free_head = UINT32_MAX;

/* Released requests kept for reuse: a blocking send or receive then costs no
 * trip through malloc. (Not under AddressSanitizer, which should see every
 * request freed.) */
#ifdef BOLT_ASAN
#define REQ_CACHE_MAX 0
#else
#define REQ_CACHE_MAX 64
#endif
static struct bolt_request *req_cache; /* linked through ->next */
static int req_cached;

struct bolt_request *bolt_req_new(enum bolt_req_kind kind)
{
    struct bolt_request *req;
    if (req_cache) {
        req = req_cache;
        req_cache = req->next;
        req_cached--;
        bolt_mem_zero(req, sizeof *req);
    } else {
        req = calloc(1, sizeof *req);
        if (!req)
            return NULL;
    }
    req->kind = kind;
    req->env.req = req;
    req->status.source = BOLT_ANY_SOURCE;
    req->status.tag = BOLT_ANY_TAG;
    return req;
}

int bolt_req_register(struct bolt_request *req)
{
    if (req->id)
        return BOLT_OK;
    if (free_head == UINT32_MAX) {
        uint32_t n = nslots ? nslots * 2 : 256;
        struct id_slot *s = realloc(slots, n * sizeof *s);
        if (!s)
            return BOLT_ERR_NOMEM;
        for (uint32_t i = nslots; i < n; i++) {
            s[i].req = NULL;
            s[i].gen = 1;
            s[i].next_free = (i + 1 < n) ? i + 1 : UINT32_MAX;
        }
        free_head = nslots;
        slots = s;
        nslots = n;
    }
    uint32_t i = free_head;
    free_head = slots[i].next_free;
    slots[i].req = req;
    req->id = ((uint64_t)slots[i].gen << 32) | (uint64_t)(i + 1);
    return BOLT_OK;
}

struct bolt_request *bolt_req_lookup(uint64_t id)
{
    uint32_t i = (uint32_t)(id & 0xffffffffu);
    if (i == 0 || i > nslots)
        return NULL;
    struct id_slot *s = &slots[i - 1];
    if (!s->req || s->gen != (uint32_t)(id >> 32))
        return NULL;
    return s->req;
}

static void unregister(struct bolt_request *req)
{
    if (!req->id)
        return;
    uint32_t i = (uint32_t)(req->id & 0xffffffffu) - 1;
    slots[i].req = NULL;
    slots[i].gen++;
    slots[i].next_free = free_head;
    free_head = i;
    req->id = 0;
}

void bolt_req_foreach(void (*fn)(struct bolt_request *req, void *arg), void *arg)
{
    for (uint32_t i = 0; i < nslots; i++)
        if (slots[i].req)
            fn(slots[i].req, arg);
}

void bolt_req_complete(struct bolt_request *req, int err)
{
    if (req->done)
        return;
    req->done = 1;
    req->status.error = err;
    unregister(req);
    if (req->user_freed)
        bolt_req_release(req);
}

void bolt_req_release(struct bolt_request *req)
{
    if (!req)
        return;
    unregister(req);
    if (req->hooks)
        req->hooks->release(req);
    if (req->comm)
        bolt_comm_release(req->comm);
    free(req->trunc_tmp);
    free(req->data);
    free(req->data_tail);
    if (req_cached < REQ_CACHE_MAX) {
        req->next = req_cache;
        req_cache = req;
        req_cached++;
    } else {
        free(req);
    }
}

void bolt_req_table_free(void)
{
    while (req_cache) {
        struct bolt_request *next = req_cache->next;
        free(req_cache);
        req_cache = next;
    }
    req_cached = 0;
    free(slots);
    slots = NULL;
    nslots = 0;
    free_head = UINT32_MAX;
}
