/*
 * shm_ctx.c — the shared-memory transport's ops (transport/transport.h):
 * settings, attaching to the segment boltrun created (BOLT_SHM_FD,
 * BOLT_SHM_INDEX, BOLT_SHM_BELLS), reachability, wire-up with the
 * single-copy probe, progress, peer liveness, finalize.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runtime/config.h"
#include "runtime/errors.h"
#include "runtime/log.h"
#include "transport/tl_util.h"
#include "transport/shm/shm.h"
#include "transport/shm/shm_cma.h"
#include "transport/shm/shm_fence.h"
#include "transport/shm/shm_prefault.h"

void shm_peer_fail(struct bolt_tl_ctx *ctx, int peer, const char *fmt, ...)
{
    struct shm_peer *p = &ctx->peers[peer];
    if (p->failed)
        return;
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    p->failed = 1;
    p->rx_pipe = 0;
    struct bolt_tl_send *left = shm_xfer_take_sends(p);
    if (!ctx->finalizing) {
        bolt_log(BOLT_LOG_INFO, "shm: rank %d: %s", peer, why);
        ctx->up->peer_failed(ctx->up->rt, peer, BOLT_ERR_PEER, why);
    }
    bolt_tl_complete_list(left, BOLT_ERR_PEER);
}

/* ---- attaching to the segment ---- */

static int parse_int(const char *s, int *out, char **end)
{
    errno = 0;
    long v = strtol(s, end, 10);
    if (*end == s || errno || v < 0 || v > 1 << 30)
        return -1;
    *out = (int)v;
    return 0;
}

/* BOLT_SHM_BELLS = "r0:w0,r1:w1,..." (one pipe per local rank). */
static int parse_bells(struct bolt_tl_ctx *ctx, const char *text, int **rd, int **wr)
{
    int n = 1;
    for (const char *c = text; *c; c++)
        n += *c == ',';
    *rd = calloc((size_t)n, sizeof **rd);
    *wr = calloc((size_t)n, sizeof **wr);
    if (!*rd || !*wr)
        return -1;
    const char *s = text;
    for (int i = 0; i < n; i++) {
        char *end;
        if (parse_int(s, &(*rd)[i], &end) || *end != ':' || parse_int(end + 1, &(*wr)[i], &end) ||
            (*end != ',' && *end != '\0'))
            return -1;
        s = end + 1;
    }
    (void)ctx;
    return n;
}

static int cma_mode(int *mode)
{
    const char *v = bolt_param_string(BOLT_P_SHM_CMA);
    if (!strcmp(v, "auto"))
        *mode = -1;
    else if (!strcmp(v, "0") || !strcmp(v, "no") || !strcmp(v, "off"))
        *mode = 0;
    else if (!strcmp(v, "1") || !strcmp(v, "yes") || !strcmp(v, "on"))
        *mode = 1;
    else
        return bolt_err_set(BOLT_ERR_CONFIG, "BOLT_SHM_CMA='%s': use auto, 0 or 1", v);
    return BOLT_OK;
}

static int attach(struct bolt_tl_ctx *ctx, const char *fdenv)
{
    const char *ienv = getenv("BOLT_SHM_INDEX"), *benv = getenv("BOLT_SHM_BELLS");
    int fd, index, *rd = NULL, *wr = NULL, n, rc = BOLT_OK;
    char *end, err[256];
    if (parse_int(fdenv, &fd, &end) || *end || !ienv || parse_int(ienv, &index, &end) || *end ||
        !benv || (n = parse_bells(ctx, benv, &rd, &wr)) < 1) {
        rc = bolt_err_set(BOLT_ERR_CONFIG,
                          "shm: BOLT_SHM_FD='%s', BOLT_SHM_INDEX='%s', BOLT_SHM_BELLS='%s' are "
                          "not what boltrun sets; start the job with boltrun (or set "
                          "BOLT_TRANSPORTS=tcp)",
                          fdenv, ienv ? ienv : "(unset)", benv ? benv : "(unset)");
        goto out;
    }
    ctx->seg = shm_seg_map(fd, err, sizeof err);
    if (!ctx->seg) {
        rc = bolt_err_set(BOLT_ERR_SYS, "shm: cannot use the shared segment boltrun made: %s; "
                                        "set BOLT_TRANSPORTS=tcp to run without it", err);
        goto out;
    }
    if ((int)ctx->seg->nlocal != n || index >= n) {
        rc = bolt_err_set(BOLT_ERR_CONFIG, "shm: segment for %u ranks, %d doorbells, index %d: "
                                           "the environment does not match the segment",
                          ctx->seg->nlocal, n, index);
        goto out;
    }
    ctx->nlocal = n;
    ctx->index = index;
    ctx->fds = malloc((size_t)(2 * n + 1) * sizeof *ctx->fds);
    if (!ctx->fds) {
        rc = bolt_err_set(BOLT_ERR_NOMEM, "shm: out of memory");
        goto out;
    }
    ctx->fds[ctx->nfds++] = fd;
    for (int i = 0; i < n; i++) {
        ctx->fds[ctx->nfds++] = rd[i];
        ctx->fds[ctx->nfds++] = wr[i];
    }
    /* Programs this rank starts must not inherit them. The read ends of the
     * peers' bells stay open here: a pipe with a reader never raises SIGPIPE. */
    for (int i = 0; i < ctx->nfds; i++)
        (void)fcntl(ctx->fds[i], F_SETFD, FD_CLOEXEC);
    ctx->bell_r = rd[index];
    (void)fcntl(ctx->bell_r, F_SETFL, fcntl(ctx->bell_r, F_GETFL) | O_NONBLOCK);
    for (int i = 0; i < n; i++)
        (void)fcntl(wr[i], F_SETFL, fcntl(wr[i], F_GETFL) | O_NONBLOCK);
    ctx->me = shm_seg_slot(ctx->seg, index);
    if (atomic_load_explicit(&ctx->me->state, memory_order_acquire) != SHM_STATE_EMPTY) {
        rc = bolt_err_set(BOLT_ERR_CONFIG, "shm: slot %d of the segment is already taken by "
                                           "world rank %d; two ranks got BOLT_SHM_INDEX=%d",
                          index, ctx->me->world_rank, index);
        goto out;
    }
    for (int i = 0; i < ctx->size; i++) {
        ctx->peers[i].local = -1;
        ctx->peers[i].bell_w = -1;
    }
    ctx->bell_w_all = wr;
    wr = NULL;
    memcpy(ctx->probe, ctx->seg->id, SHM_ID_BYTES);
    if (ctx->cma_mode != 0)
        (void)shm_cma_allow_peers();
    ctx->fence_light = shm_fence_setup();
    ctx->me->world_rank = ctx->rank;
    ctx->me->pid = (int64_t)getpid();
    ctx->me->probe_addr = (uint64_t)(uintptr_t)ctx->probe;
    /* Release: a peer that sees ALIVE sees the fields above. */
    atomic_store_explicit(&ctx->me->state, SHM_STATE_ALIVE, memory_order_release);
    ctx->enabled = 1;
out:
    free(rd);
    free(wr);
    return rc;
}

/* ---- ops ---- */

static void destroy(struct bolt_tl_ctx *ctx)
{
    if (ctx->seg)
        shm_seg_unmap(ctx->seg);
    for (int i = 0; i < ctx->nfds; i++)
        close(ctx->fds[i]);
    free(ctx->fds);
    free(ctx->bell_w_all);
    free(ctx->peers);
    free(ctx->wired);
    free(ctx);
}

static int shm_init(struct bolt_tl_ctx **out, const struct bolt_tl_init_args *args)
{
    *out = NULL;
    if (!args || !args->up || args->size < 1 || args->rank < 0 || args->rank >= args->size)
        return bolt_err_set(BOLT_ERR_ARG, "shm: init with a bad rank/size");
    struct bolt_tl_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return bolt_err_set(BOLT_ERR_NOMEM, "shm: out of memory");
    ctx->rank = args->rank;
    ctx->size = args->size;
    ctx->up = args->up;
    ctx->bell_r = -1;
    long long v = bolt_param_int(BOLT_P_SHM_EAGER_LIMIT);
    ctx->eager_limit = v > 0 ? (size_t)v : 0;
    ctx->timeout = bolt_param_double(BOLT_P_TIMEOUT);
    if (!(ctx->timeout > 0))
        ctx->timeout = 60;
    int rc = cma_mode(&ctx->cma_mode);
    if (rc)
        goto fail;
    v = bolt_param_int(BOLT_P_SHM_CMA_MAX);
    ctx->cma_max = v > 0 ? (uint64_t)v : 0;
    v = bolt_param_int(BOLT_P_SHM_CMA_MIN);
    ctx->cma_min = v > 0 ? (size_t)v : 0;
    v = bolt_param_int(BOLT_P_SHM_SPLIT_MIN);
    ctx->split_min = v > 0 ? (uint64_t)v : 0;
    ctx->peers = calloc((size_t)ctx->size, sizeof *ctx->peers);
    ctx->wired = calloc((size_t)ctx->size, sizeof *ctx->wired);
    if (!ctx->peers || !ctx->wired) {
        rc = bolt_err_set(BOLT_ERR_NOMEM, "shm: out of memory");
        goto fail;
    }
    const char *fdenv = getenv("BOLT_SHM_FD");
    if (fdenv && *fdenv && ctx->size > 1) {
        rc = attach(ctx, fdenv);
        if (rc)
            goto fail;
        /* Inline records must leave room for more than one in the ring. */
        if (ctx->eager_limit > ctx->seg->ring_bytes / 4)
            ctx->eager_limit = (size_t)ctx->seg->ring_bytes / 4;
        /* More ranks here than cores: a single-copy send waits until its
         * receiver gets a core to read it (shm_peer_eager_limit, shm_xfer.c). */
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        ctx->crowded = cores > 0 && (long)ctx->nlocal > cores;
    }
    /* Otherwise (no boltrun, or a job of one): present but reaching nobody. */
    bolt_log(BOLT_LOG_DEBUG, "shm: %s, eager limit %zu", ctx->enabled ? "attached" : "no segment",
             ctx->eager_limit);
    *out = ctx;
    return BOLT_OK;
fail:
    destroy(ctx);
    return rc;
}

static int shm_reachable(struct bolt_tl_ctx *ctx, int peer)
{
    if (!ctx || !ctx->enabled || peer < 0 || peer >= ctx->size || peer == ctx->rank)
        return 0;
    if (ctx->peers[peer].local >= 0)
        return 1;
    /* Registered in our segment before the init fence: same host, same job.
     * (One that already closed is still reached: it departs like a TCP peer.) */
    for (int i = 0; i < ctx->nlocal; i++) {
        struct shm_slot *s = shm_seg_slot(ctx->seg, i);
        if (i != ctx->index &&
            atomic_load_explicit(&s->state, memory_order_acquire) != SHM_STATE_EMPTY &&
            s->world_rank == peer) {
            ctx->peers[peer].local = i;
            return 1;
        }
    }
    return 0;
}

/* Can we read the peer's memory? A real read of its probe bytes. */
static int probe_cma(struct bolt_tl_ctx *ctx, struct shm_peer *p, char *why, size_t cap)
{
    uint8_t got[SHM_ID_BYTES];
    int e = shm_cma_read(p->pid, got, p->slot->probe_addr, sizeof got);
    if (e) {
        snprintf(why, cap, "%s", e == ENOSYS ? "not supported on this system" : strerror(e));
        return 0;
    }
    if (memcmp(got, ctx->seg->id, SHM_ID_BYTES) != 0) {
        snprintf(why, cap, "the bytes read differ from the segment id");
        return 0;
    }
    return 1;
}

static int shm_connect(struct bolt_tl_ctx *ctx, const int *peers, int npeers)
{
    if (!ctx || npeers < 0 || (npeers > 0 && !peers))
        return bolt_err_set(BOLT_ERR_ARG, "shm: connect with a bad peer list");
    for (int k = 0; k < npeers; k++) {
        int r = peers[k];
        if (!shm_reachable(ctx, r))
            return bolt_err_set(BOLT_ERR_ARG, "shm: rank %d is not on this host's segment", r);
        struct shm_peer *p = &ctx->peers[r];
        if (p->wired)
            continue;
        p->slot = shm_seg_slot(ctx->seg, p->local);
        p->pid = (pid_t)p->slot->pid;
        p->bell_w = ctx->bell_w_all[p->local];
        struct shm_chan *out = shm_seg_chan(ctx->seg, ctx->index, p->local);
        struct shm_chan *in = shm_seg_chan(ctx->seg, p->local, ctx->index);
        shm_tx_ring_init(&p->tx, out, ctx->seg->ring_bytes);
        shm_rx_ring_init(&p->rx, in, ctx->seg->ring_bytes);
        p->tx_stage = shm_chan_stage(ctx->seg, out);
        p->rx_stage = shm_chan_stage(ctx->seg, in);
        /* Now, not one page fault per 64 small messages in the first laps
         * (shm_prefault.h). The rings only: the staging chunks (4x the
         * ring) are touched only by large messages. And only on hosts of up
         * to SHM_PREFAULT_RANKS ranks: every pair's rings would take memory
         * (n(n-1) x 132 KiB: 30 MiB for 16 ranks), which a job whose ranks
         * talk to few others never used before. */
        if (ctx->nlocal <= SHM_PREFAULT_RANKS) {
            size_t ring_span = sizeof *out + (size_t)ctx->seg->ring_bytes;
            shm_prefault(out, ring_span);
            shm_prefault(in, ring_span);
        }
        p->chunks_put = atomic_load_explicit(&out->prod.chunks_put, memory_order_relaxed);
        p->chunks_got = atomic_load_explicit(&in->cons.chunks_got, memory_order_relaxed);
        p->cma_done = atomic_load_explicit(&in->cons.cma_done, memory_order_relaxed);
        p->cma_completed = atomic_load_explicit(&out->cons.cma_done, memory_order_relaxed);
        /* The receiver decides: we probe the peer we read from, and leave
         * the answer on its channel to us (1 yes, 2 no), which it reads
         * before its first large DATA (that follows our CTS, written after
         * this). BOLT_SHM_CMA=1 requires it; auto takes it where it works. */
        uint32_t ok = 2;
        if (ctx->cma_mode != 0) {
            char why[160];
            if (probe_cma(ctx, p, why, sizeof why)) {
                ok = 1;
            } else if (ctx->cma_mode == 1) {
                return bolt_err_set(BOLT_ERR_UNSUPPORTED,
                                    "shm: BOLT_SHM_CMA=1, but rank %d cannot read the memory of "
                                    "rank %d (pid %ld) on this host: %s; set BOLT_SHM_CMA=auto "
                                    "to copy through shared memory instead",
                                    ctx->rank, r, (long)p->pid, why);
            } else {
                bolt_log(BOLT_LOG_DEBUG, "shm: single-copy reads from rank %d: %s; pipelining", r,
                         why);
            }
        }
        atomic_store_explicit(&in->cons.cma_ok, ok, memory_order_release);
        p->can_write = ok == 1; /* the same permission as reading it */
        p->wired = 1;
        ctx->wired[ctx->nwired++] = r;
    }
    ctx->next_live_check = bolt_tl_now() + SHM_LIVENESS_S;
    return BOLT_OK;
}

static int shm_send(struct bolt_tl_ctx *ctx, int peer, struct bolt_tl_send *s)
{
    if (!ctx || !s || peer < 0 || peer >= ctx->size)
        return bolt_err_set(BOLT_ERR_ARG, "shm: send to rank %d: no such rank", peer);
    if (s->hdr.len > 0 && !s->payload)
        return bolt_err_set(BOLT_ERR_ARG, "shm: send of %llu bytes without a payload",
                            (unsigned long long)s->hdr.len);
    struct shm_peer *p = &ctx->peers[peer];
    if (p->failed) {
        s->tl_next = NULL;
        s->complete(s, BOLT_ERR_PEER);
        return BOLT_OK;
    }
    if (!p->wired)
        return bolt_err_set(BOLT_ERR_ARG, "shm: send to rank %d, which is not wired", peer);
    shm_xfer_send(ctx, peer, s);
    return BOLT_OK;
}

static int shm_send_now(struct bolt_tl_ctx *ctx, int peer, const struct bolt_frame_hdr *h,
                        const void *payload)
{
    if (!ctx || peer < 0 || peer >= ctx->size || (h->len > 0 && !payload))
        return 0; /* send() reports it */
    return shm_xfer_send_now(ctx, peer, h, payload);
}

static int shm_send_many_now(struct bolt_tl_ctx *ctx, const int *peers, int n,
                             const struct bolt_frame_hdr *h, const void *payload)
{
    if (!ctx || !peers || (h->len > 0 && !payload))
        return 0;
    return shm_mcast_send_now(ctx, peers, n, h, payload);
}

static int shm_take_now(struct bolt_tl_ctx *ctx, int peer, const struct bolt_frame_hdr *want,
                        void *buf)
{
    if (!ctx || peer < 0 || peer >= ctx->size || (want->len > 0 && !buf))
        return 0;
    return shm_xfer_take_now(ctx, peer, want, buf);
}

/* Rendezvous reads (BOLT_FRAME_F_GET): the same choice as for single-copy
 * DATA, made before the RTS; the receiver then reads on its match, with no
 * CTS -> DATA round trip in between. */
static int shm_local_reads(struct bolt_tl_ctx *ctx)
{
    /* enabled: boltrun gave every rank a segment (or none) */
    return shm_cma_built && ctx && ctx->enabled && ctx->cma_mode != 0;
}

static int shm_get_ok(struct bolt_tl_ctx *ctx, int peer, size_t len, unsigned hints)
{
    struct shm_peer *p = shm_live_peer(ctx, peer);
    return p ? shm_xfer_use_cma(ctx, p, len, hints) : 0;
}

/* Split copies: with a core for each side, two half copies in parallel
 * beat one whole (2 ranks / 2 cores, 1 MiB: 17 against 49 us in a bare
 * process_vm_readv/writev loop). Only for a sender waiting in the library
 * (a receiver must not wait for an isend's sender to come back from its
 * computation), and not for a busy one (its core is taken), nor for a
 * fan-out on a crowded host (its receivers copy in parallel, it would write
 * to them in turn).
 * On a crowded host too, from twice the size: one copy per byte as
 * single-copy, and whichever side has a core moves more pieces (4 ranks on 2
 * cores, MPI_Bcast of 128 KiB 21-26 us split against 24-43 unsplit, 512 KiB
 * 52-76 against 64-98), but at 64 KiB the extra round trip waits for the
 * sender to get a core (15-18 us against 12-16). */
static int shm_put_ok(struct bolt_tl_ctx *ctx, int peer, size_t len, unsigned hints)
{
    struct shm_peer *p = shm_live_peer(ctx, peer);
    if (!p)
        return 0;
    uint64_t min = ctx->crowded ? 2 * ctx->split_min : ctx->split_min;
    if (!ctx->split_min || len < min || !(hints & BOLT_TL_HINT_SENDER_WAITS) ||
        (hints & (BOLT_TL_HINT_SENDER_BUSY | BOLT_TL_HINT_NO_READ)) || !p->can_write ||
        (ctx->crowded && (hints & BOLT_TL_HINT_FAN_OUT)))
        return 0;
    return shm_peer_cma(ctx, p);
}

/* One single-copy read (get) or write (put) of a peer's memory; a failure
 * is not the peer's: the runtime falls back to DATA. */
static int cma_peer(struct bolt_tl_ctx *ctx, int peer, void *local, uint64_t raddr, size_t len,
                    int write)
{
    struct shm_peer *p = shm_live_peer(ctx, peer);
    if (!p)
        return BOLT_ERR_ARG;
    pid_t pid = p->pid;
    int e = write ? shm_cma_write(pid, local, raddr, len) : shm_cma_read(pid, local, raddr, len);
    if (e) {
        bolt_log(BOLT_LOG_DEBUG, "shm: single-copy %s rank %d failed (%s): DATA instead",
                 write ? "write to" : "read from", peer, strerror(e));
        return BOLT_ERR_SYS;
    }
    return BOLT_OK;
}

static int shm_put(struct bolt_tl_ctx *ctx, int peer, const void *src, uint64_t raddr, size_t len)
{
    return cma_peer(ctx, peer, (void *)src, raddr, len, 1);
}

static int shm_get(struct bolt_tl_ctx *ctx, int peer, void *dst, uint64_t raddr, size_t len)
{
    return cma_peer(ctx, peer, dst, raddr, len, 0);
}

/* A peer whose process is gone, or that closed its side, has nothing more
 * to say once its ring is drained: report it like TCP reports EOF. */
static void check_liveness(struct bolt_tl_ctx *ctx)
{
    for (int i = 0; i < ctx->nwired; i++) {
        int r = ctx->wired[i];
        struct shm_peer *p = &ctx->peers[r];
        if (p->failed)
            continue;
        uint32_t st = atomic_load_explicit(&p->slot->state, memory_order_acquire);
        int gone = kill(p->pid, 0) != 0 && errno == ESRCH;
        if (!gone && st != SHM_STATE_CLOSED)
            continue;
        /* What it sent before it went: all of it (a pass delivers at most
         * SHM_READ_BATCH frames; the ring holds a finite number). */
        while (shm_xfer_peer(ctx, r) > 0 && !p->failed)
            ;
        if (p->failed)
            continue;
        if (st == SHM_STATE_CLOSED)
            shm_peer_fail(ctx, r, "closed the connection");
        else
            shm_peer_fail(ctx, r, "exited without finalizing (process %ld is gone)",
                          (long)p->pid);
    }
}

static int shm_progress(struct bolt_tl_ctx *ctx)
{
    if (!ctx || !ctx->enabled || ctx->nwired == 0)
        return 0;
    int frames = 0;
    for (int i = 0; i < ctx->nwired; i++)
        frames += shm_xfer_peer(ctx, ctx->wired[i]);
    /* The clock only every 64 passes: a pass is a few loads when idle. */
    if ((++ctx->polls & 63u) == 0) {
        double t = bolt_tl_now();
        if (t >= ctx->next_live_check) {
            ctx->next_live_check = t + SHM_LIVENESS_S;
            check_liveness(ctx);
        }
    }
    return frames;
}

static int shm_pollfds(struct bolt_tl_ctx *ctx, struct pollfd *fds, int max)
{
    if (!ctx || !ctx->enabled || ctx->nwired == 0 || max <= 0)
        return 0;
    fds[0].fd = ctx->bell_r;
    fds[0].events = POLLIN;
    fds[0].revents = 0;
    return 1;
}

static size_t shm_eager_limit(struct bolt_tl_ctx *ctx, int peer)
{
    if (!ctx || peer < 0 || peer >= ctx->size || !ctx->peers[peer].wired)
        return ctx ? ctx->eager_limit : 0;
    return shm_peer_eager_limit(ctx, &ctx->peers[peer]);
}

static int shm_data_stripes(struct bolt_tl_ctx *ctx, int peer, size_t bytes)
{
    (void)ctx;
    (void)peer;
    (void)bytes;
    return 1; /* one channel: the pipeline overlaps the copies already */
}

static int any_outgoing(struct bolt_tl_ctx *ctx)
{
    for (int i = 0; i < ctx->nwired; i++) {
        const struct shm_peer *p = &ctx->peers[ctx->wired[i]];
        if (!p->failed && shm_xfer_outgoing(p))
            return 1;
    }
    return 0;
}

static void shm_finalize(struct bolt_tl_ctx *ctx)
{
    if (!ctx)
        return;
    ctx->finalizing = 1;
    if (ctx->enabled && ctx->nwired > 0) {
        /* What is in the ring stays readable after we go; what is not (queued
         * frames, staged or single-copy payloads) needs the peer, for at most
         * BOLT_TIMEOUT, and a dead peer ends the wait through liveness. */
        double deadline = bolt_tl_now() + ctx->timeout;
        while (any_outgoing(ctx) && bolt_tl_now() < deadline) {
            ctx->polls |= 63u;
            if (shm_progress(ctx) > 0 || !any_outgoing(ctx))
                continue;
            if (shm_bell_sleep_prepare(ctx) == 0) {
                struct pollfd pf = {.fd = ctx->bell_r, .events = POLLIN};
                poll(&pf, 1, 10);
            }
            shm_bell_sleep_done(ctx);
        }
        if (any_outgoing(ctx))
            bolt_log(BOLT_LOG_WARN, "shm: finalize: sends still pending after %g s "
                                    "(BOLT_TIMEOUT); they fail with BOLT_ERR_PEER",
                     ctx->timeout);
        struct bolt_tl_send *left = NULL, **tail = &left;
        for (int i = 0; i < ctx->nwired; i++) {
            *tail = shm_xfer_take_sends(&ctx->peers[ctx->wired[i]]);
            while (*tail)
                tail = &(*tail)->tl_next;
        }
        bolt_tl_complete_list(left, BOLT_ERR_PEER);
    }
    if (ctx->enabled) {
        atomic_store_explicit(&ctx->me->asleep, 0, memory_order_relaxed);
        atomic_store_explicit(&ctx->me->state, SHM_STATE_CLOSED, memory_order_release);
        /* Peers asleep waiting on us look at us now rather than at the next
         * liveness tick. */
        for (int i = 0; i < ctx->nwired; i++)
            shm_bell_wake(ctx, &ctx->peers[ctx->wired[i]], 0);
    }
    destroy(ctx);
}

static int shm_sleep_prepare(struct bolt_tl_ctx *ctx)
{
    return shm_bell_sleep_prepare(ctx);
}

static void shm_sleep_done(struct bolt_tl_ctx *ctx)
{
    shm_bell_sleep_done(ctx);
}

const struct bolt_transport bolt_transport_shm = {
    .name = "shm",
    .init = shm_init,
    .reachable = shm_reachable,
    .connect = shm_connect,
    .send = shm_send,
    .send_now = shm_send_now,
    .send_many_now = shm_send_many_now,
    .take_now = shm_take_now,
    .get_ok = shm_get_ok,
    .local_reads = shm_local_reads,
    .get = shm_get,
    .put_ok = shm_put_ok,
    .put = shm_put,
    .claim_open = shm_claim_open,
    .claim = shm_claim,
    .claim_close = shm_claim_close,
    .progress = shm_progress,
    .pollfds = shm_pollfds,
    .eager_limit = shm_eager_limit,
    .data_stripes = shm_data_stripes,
    .finalize = shm_finalize,
    .sleep_prepare = shm_sleep_prepare,
    .sleep_done = shm_sleep_done,
};
