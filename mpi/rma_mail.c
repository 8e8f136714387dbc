/* rma_mail.c — Puts, Gets and accumulates on a sibling's window
 * (MPI_Win_create, MPI_Win_create_dynamic on one host) applied by the
 * sibling itself while it polls, through a box in the window's host
 * segment, with the kernel (rma_cma.c) as the way when it does not pick
 * them up in time. Accumulates are applied under the target's accumulate
 * lock, the one origins take on the kernel path, so both kinds mix.
 *
 * Why: a call into the kernel costs 1-3 us here (process_vm_writev of one
 * byte 2.2 us, getppid alone 1.1 us in this VM), so a Put and its flush
 * took 2.3-2.5 us where Open MPI, whose active messages the polling target
 * applies, takes 1.4-1.5. A target that polls (in a barrier, a wait, any
 * blocking call) sees its box in one cache miss and copies the pieces
 * itself; a target that computes never does, so the origin takes its
 * pieces back after a few microseconds and calls the kernel, as before.
 *
 * The box's state word is the whole protocol: the origin takes an empty box
 * (EMPTY -> FILLING), fills it and posts it (POSTED); the target takes a
 * posted one (POSTED -> TAKEN), checks every piece against its window,
 * copies, and answers (DONE, or REFUSED: the origin then goes through the
 * kernel, which reports what is wrong); the origin copies a Get's bytes out
 * and empties the box. An origin that waited long enough takes the box back
 * (POSTED -> EMPTY) only if the target has not taken it: both are
 * compare-and-swaps, so a piece is applied exactly once, by one of the two.
 * One box per target: an origin that finds it busy (another origin's) goes
 * through the kernel. */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>

#include "mpi/rma.h"
#include "runtime/progress.h"

enum { MAIL_EMPTY = 0, MAIL_FILLING, MAIL_POSTED, MAIL_TAKEN, MAIL_DONE, MAIL_REFUSED };

/* Windows whose box this process serves: the progress hook runs while any. */
static int serving;
uint64_t rma_box_moves, rma_kernel_moves;

int rma_mail_serving(void) { return serving; }

/* Whether [lo, lo + len) is window memory of this rank. */
static int mine(const struct face_win *w, uint64_t lo, uint64_t len)
{
    uint64_t hi = lo + len;
    if (hi < lo)
        return 0;
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        return rma_region_of(w, lo, hi) != NULL;
    return rma_within(lo, hi, (uint64_t)(uintptr_t)w->base, (uint64_t)w->size_bytes);
}

/* The bytes of the box's data an item takes: its operand (CAS: the new
 * value and the comparand), or what a Get or a fetch gives back. */
static uint64_t item_data(const struct rma_mail_item *it)
{
    if (it->kind == RMA_MAIL_PULL || it->kind == RMA_MAIL_PUSH)
        return sizeof(struct rma_mail_far);
    return it->kind == RMA_CAS ? 2 * (uint64_t)it->len : it->len;
}

/* A shared move's tail (every item of the box, all of one kind, checked):
 * the origin's memory read or written through the kernel in one call. 0, or
 * the kernel's errno (the origin then moves the tail itself: moving it
 * twice writes the same bytes). */
static int apply_far(struct face_win *w, const struct rma_mail_item *item, int n, const char *data)
{
    struct shm_cma_piece piece[RMA_MAIL_ITEMS];
    struct rma_mail_far far;
    int64_t origin = -1;
    for (int k = 0; k < n; k++) {
        memcpy(&far, data + (size_t)k * sizeof far, sizeof far);
        if (far.origin < 0 || far.origin >= w->size || !w->peers[far.origin].cma ||
            (k && far.origin != origin) || item[k].kind != item[0].kind)
            return EINVAL;
        origin = far.origin;
        piece[k] = (struct shm_cma_piece){(void *)(uintptr_t)item[k].addr, far.local, item[k].len};
    }
    return shm_cma_movev((pid_t)w->peers[origin].pid, piece, n, item[0].kind == RMA_MAIL_PUSH);
}

/* Applies one accumulate-like item at at (checked) with data in the box
 * (the old values replace it); under this rank's accumulate lock. */
static int apply_atomic(struct face_win *w, struct rma_mail_item *it, char *at, char *data)
{
    char old[RMA_MAIL_ATOMIC_MAX];
    int rc = MPI_SUCCESS;
    rma_acc_lock(w->ctrl);
    if (it->kind == RMA_CAS) {
        rma_cas(at, data, data + it->len, old, it->len);
        memcpy(data, old, it->len);
    } else {
        struct rma_block whole = {0, (int64_t)it->len};
        struct rma_layout flat = {1, (int64_t)it->len, 1, &whole};
        rc = rma_layout_acc(&flat, at, data, (MPI_Datatype)it->basic, (MPI_Op)it->op,
                            it->kind == RMA_GACC ? old : NULL);
        if (rc == MPI_SUCCESS && it->kind == RMA_GACC)
            memcpy(data, old, it->len);
    }
    rma_acc_unlock(w->ctrl);
    return rc;
}

/* Applies what an origin posted in this rank's box, if anything. */
static int serve(struct face_win *w)
{
    struct rma_mail *m = w->peers[w->rank].mail;
    if (atomic_load_explicit(&m->state, memory_order_relaxed) != MAIL_POSTED)
        return 0;
    unsigned s = MAIL_POSTED;
    if (!atomic_compare_exchange_strong_explicit(&m->state, &s, MAIL_TAKEN, memory_order_acquire,
                                                 memory_order_relaxed))
        return 0; /* taken back meanwhile */
    /* The box is shared memory another process wrote: every field is
     * checked before the first byte moves. */
    int n = m->n, ok = n > 0 && n <= RMA_MAIL_ITEMS;
    struct rma_mail_item *item = (struct rma_mail_item *)m->body;
    char *data = m->body + (size_t)(ok ? n : 0) * sizeof *item;
    uint64_t off = 0;
    int far = 0;
    for (int k = 0; k < n && ok; k++) {
        struct rma_mail_item *it = &item[k];
        ok = item_data(it) <= RMA_MAIL_DATA - off && mine(w, it->addr, it->len) &&
             (it->kind == RMA_PUT || it->kind == RMA_GET ||
              ((it->kind == RMA_ACC || it->kind == RMA_GACC || it->kind == RMA_CAS) &&
               it->len <= RMA_MAIL_ATOMIC_MAX) ||
              it->kind == RMA_MAIL_PULL || it->kind == RMA_MAIL_PUSH);
        far += it->kind == RMA_MAIL_PULL || it->kind == RMA_MAIL_PUSH;
        off += item_data(it);
    }
    ok = ok && (far == 0 || far == n); /* a shared tail fills a box alone */
    if (ok && far)
        ok = apply_far(w, item, n, data) == 0;
    off = 0;
    for (int k = 0; k < n && ok && !far; k++) {
        struct rma_mail_item *it = &item[k];
        char *at = (char *)(uintptr_t)it->addr;
        if (it->kind == RMA_PUT)
            memcpy(at, data + off, it->len);
        else if (it->kind == RMA_GET)
            memcpy(data + off, at, it->len);
        else
            it->rc = apply_atomic(w, it, at, data + off);
        off += item_data(it);
    }
    atomic_store_explicit(&m->state, ok ? MAIL_DONE : MAIL_REFUSED, memory_order_release);
    return 1;
}

static int mail_hook(void)
{
    int n = 0;
    for (int i = 1; i < face_nwins; i++) {
        struct face_win *w = face_wins[i];
        if (w && w->mail_on)
            n += serve(w);
    }
    return n;
}

int rma_mail_start(struct face_win *w)
{
    if (serving++ == 0 && bolt_progress_hook_add(mail_hook) != BOLT_OK) {
        serving--;
        return MPI_ERR_OTHER;
    }
    w->mail_on = 1;
    return MPI_SUCCESS;
}

void rma_mail_stop(struct face_win *w)
{
    if (!w->mail_on)
        return;
    w->mail_on = 0;
    if (--serving == 0)
        bolt_progress_hook_remove(mail_hook);
}

/* An origin that waited in vain skips the box for this many drains to that
 * target next time, doubling up to this (a target that computes). */
#define MAIL_BACKOFF_MAX 1024

/* Takes target's box for this origin, or NULL (skipping it after a miss,
 * or another origin's). */
static struct rma_mail *box_take(struct win_peer *peer)
{
    struct rma_mail *m = peer->mail;
    if (peer->mail_skip) {
        peer->mail_skip--;
        return NULL;
    }
    unsigned s = MAIL_EMPTY;
    if (!atomic_compare_exchange_strong_explicit(&m->state, &s, MAIL_FILLING, memory_order_acquire,
                                                 memory_order_relaxed))
        return NULL;
    return m;
}

/* Waits for the target's answer to a posted box and returns the state it
 * ends in: DONE or REFUSED; EMPTY when take_back and the target left it
 * POSTED past w->mail_wait (taken back: the target will not apply it);
 * TAKEN when the target died holding it (the kernel path then says so,
 * ESRCH). Our own progress runs now and then, our box among it: two ranks
 * that post to each other at once both get served (every pass would delay
 * seeing the answer by a pass). */
static unsigned box_wait(struct face_win *w, struct win_peer *peer, struct rma_mail *m,
                         int take_back)
{
    double posted = 0;
    for (long spin = 0;; spin++) {
        unsigned s = atomic_load_explicit(&m->state, memory_order_acquire);
        if (s >= MAIL_DONE)
            return s;
        if ((spin & 7) == 7)
            bolt_progress_poll();
        if (s == MAIL_POSTED && take_back && (spin & 63) == 63) {
            double now = bolt_now();
            if (posted == 0) {
                posted = now;
            } else if (now - posted > w->mail_wait) {
                unsigned was = MAIL_POSTED;
                if (atomic_compare_exchange_strong_explicit(&m->state, &was, MAIL_EMPTY,
                                                            memory_order_acquire,
                                                            memory_order_relaxed))
                    return MAIL_EMPTY;
            }
        } else if (s == MAIL_TAKEN && spin > 4096) {
            sched_yield(); /* the target was descheduled mid-copy: let it run */
            if ((spin & 4095) == 0 && kill((pid_t)peer->pid, 0) != 0 && errno == ESRCH)
                return MAIL_TAKEN; /* ... or died there */
        }
    }
}

/* Posts the filled box and waits for its answer: 1 applied (the caller
 * copies what comes back, then box_empty), 0 taken back or refused (the
 * box is empty again then). */
static int box_post(struct face_win *w, struct win_peer *peer, struct rma_mail *m, int n)
{
    m->n = n;
    atomic_store_explicit(&m->state, MAIL_POSTED, memory_order_release);
    unsigned s = box_wait(w, peer, m, 1);
    if (s == MAIL_EMPTY) { /* a target that computes: skip its box for a while */
        peer->mail_backoff = peer->mail_backoff ? peer->mail_backoff * 2 : 1;
        if (peer->mail_backoff > MAIL_BACKOFF_MAX)
            peer->mail_backoff = MAIL_BACKOFF_MAX;
        peer->mail_skip = peer->mail_backoff;
        return 0;
    }
    if (s != MAIL_DONE) {
        atomic_store_explicit(&m->state, MAIL_EMPTY, memory_order_release);
        return 0;
    }
    peer->mail_backoff = 0;
    rma_box_moves++;
    return 1;
}

static void box_empty(struct rma_mail *m)
{
    atomic_store_explicit(&m->state, MAIL_EMPTY, memory_order_release);
}

int rma_mail_try(struct face_win *w, int target, const struct shm_cma_piece *p,
                 const char *write, int n)
{
    struct win_peer *peer = &w->peers[target];
    struct rma_mail *m = box_take(peer);
    if (!m)
        return 0;
    struct rma_mail_item *item = (struct rma_mail_item *)m->body;
    char *data = m->body + (size_t)n * sizeof *item;
    size_t off = 0;
    for (int k = 0; k < n; k++) {
        item[k] = (struct rma_mail_item){.addr = p[k].raddr,
                                         .len = (uint32_t)p[k].len,
                                         .kind = write[k] ? RMA_PUT : RMA_GET};
        if (write[k])
            memcpy(data + off, p[k].local, p[k].len);
        off += p[k].len;
    }
    if (!box_post(w, peer, m, n))
        return 0;
    off = 0;
    for (int k = 0; k < n; k++) {
        if (!write[k])
            memcpy(p[k].local, data + off, p[k].len);
        off += p[k].len;
    }
    box_empty(m);
    return 1;
}

int rma_mail_share(struct face_win *w, int target, const struct shm_cma_piece *p, int n,
                   int write)
{
    struct win_peer *peer = &w->peers[target];
    pid_t pid = (pid_t)peer->pid;
    struct rma_mail *m = NULL;
    uint64_t total = 0;
    for (int k = 0; k < n; k++)
        total += p[k].len;
    /* The head: whole pieces up to the middle byte, and the piece that holds
     * it cut at a page of the target's (the two sides pin different pages). */
    int c = 0;
    uint64_t before = 0;
    while (c < n && before + p[c].len <= total / 2)
        before += p[c++].len;
    size_t cut = c < n ? (size_t)(((p[c].raddr + (total / 2 - before)) & ~(uint64_t)4095) - p[c].raddr) : 0;
    if (c < n && cut > p[c].len) /* the page starts before the piece */
        cut = 0;
    int fits = total >= RMA_SPLIT_MIN && c < n && n <= RMA_MAIL_ITEMS;
    for (int k = c; k < n && fits; k++)
        fits = p[k].len - (k == c ? cut : 0) <= UINT32_MAX;
    unsigned s = MAIL_EMPTY;
    /* Not to a target that is moving data of its own (OSU's put_bibw: two
     * ranks that take each other's halves read each other's buffers from
     * the other's cache, 15-25% slower than each moving its own): both
     * say so first and then look, so that at most one of two shares. Not
     * skipped after a miss (box_take): a miss here costs no wait, the origin
     * moves the head meanwhile. */
    struct rma_mail *self = fits ? w->peers[w->rank].mail : NULL;
    if (self)
        atomic_store(&self->moving, 1);
    if (fits && peer->mail && !atomic_load(&peer->mail->moving) &&
        atomic_compare_exchange_strong_explicit(&peer->mail->state, &s, MAIL_FILLING,
                                                memory_order_acquire, memory_order_relaxed))
        m = peer->mail;
    int err;
    if (!m) {
        rma_kernel_moves++;
        err = shm_cma_movev(pid, (struct shm_cma_piece *)p, n, write);
        goto out;
    }
    struct shm_cma_piece head[RMA_MAIL_ITEMS + 1], tail[RMA_MAIL_ITEMS];
    int nh = 0, nt = 0;
    for (int k = 0; k < c; k++)
        head[nh++] = p[k];
    if (cut)
        head[nh++] = (struct shm_cma_piece){p[c].local, p[c].raddr, cut};
    tail[nt++] = (struct shm_cma_piece){(char *)p[c].local + cut, p[c].raddr + cut, p[c].len - cut};
    for (int k = c + 1; k < n; k++)
        tail[nt++] = p[k];
    struct rma_mail_item *item = (struct rma_mail_item *)m->body;
    struct rma_mail_far *far = (struct rma_mail_far *)(m->body + (size_t)nt * sizeof *item);
    for (int k = 0; k < nt; k++) {
        item[k] = (struct rma_mail_item){.addr = tail[k].raddr,
                                         .len = (uint32_t)tail[k].len,
                                         .kind = write ? RMA_MAIL_PULL : RMA_MAIL_PUSH};
        far[k] = (struct rma_mail_far){(uint64_t)(uintptr_t)tail[k].local, w->rank};
    }
    m->n = nt;
    atomic_store_explicit(&m->state, MAIL_POSTED, memory_order_release);
    err = shm_cma_movev(pid, head, nh, write);
    /* The tail: ours if the target has not taken it yet, else its answer. */
    s = MAIL_POSTED;
    if (atomic_compare_exchange_strong_explicit(&m->state, &s, MAIL_EMPTY, memory_order_acquire,
                                                memory_order_relaxed)) {
        rma_kernel_moves++;
    } else {
        s = box_wait(w, peer, m, 0);
        box_empty(m);
        if (s == MAIL_DONE) {
            rma_box_moves++;
            goto out;
        }
    }
    if (!err)
        err = shm_cma_movev(pid, tail, nt, write);
out:
    if (self)
        atomic_store(&self->moving, 0);
    return err;
}

int rma_mail_atomic(struct face_win *w, int target, int kind, uint64_t addr, size_t bytes,
                    MPI_Op op, MPI_Datatype basic, const char *src, const char *compare, char *old,
                    int *rc)
{
    struct win_peer *peer = &w->peers[target];
    struct rma_mail *m;
    if (bytes == 0 || bytes > RMA_MAIL_ATOMIC_MAX || !(m = box_take(peer)))
        return 0;
    struct rma_mail_item *it = (struct rma_mail_item *)m->body;
    char *data = m->body + sizeof *it;
    *it = (struct rma_mail_item){.addr = addr,
                                 .len = (uint32_t)bytes,
                                 .kind = (uint8_t)kind,
                                 .op = (int16_t)op,
                                 .basic = (int32_t)basic};
    if (src) /* MPI_NO_OP's operand is not read */
        memcpy(data, src, bytes);
    if (kind == RMA_CAS)
        memcpy(data + bytes, compare, bytes);
    if (!box_post(w, peer, m, 1))
        return 0;
    *rc = it->rc;
    if (old && *rc == MPI_SUCCESS)
        memcpy(old, data, bytes);
    box_empty(m);
    return 1;
}
