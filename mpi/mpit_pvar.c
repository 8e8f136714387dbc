/* mpit_pvar.c — performance variables (MPI 3.1, 14.3.7): what Bolt's
 * runtime counts, read where the runtime keeps it.
 *   levels (continuous, read-only): the unexpected and posted queues'
 *     lengths and the unexpected messages' bytes, peers per transport,
 *     peers failed over to a standby transport, peers gone;
 *   a size: the unexpected-message buffers kept for reuse;
 *   counters: messages and bytes this process handed to each transport.
 * A counter's handle counts while started: started, it reads what was sent
 * since its start (plus what it held at the last stop, or what was written
 * to it); stopped, what it held; reset sets it to 0. Sessions keep their
 * handles apart, as the standard asks. */
#include <stdlib.h>
#include <string.h>

#include "mpi/mpit.h"
#include "mpi/rma.h"
#include "runtime/match.h"
#include "runtime/runtime.h"

/* ---- where the values come from ----------------------------------------------------------- */
static uint64_t unexp_length(int arg)
{
    uint64_t n = 0;
    (void)arg;
    for (const struct bolt_unexp *u = bolt_rt.match.unexp_head; u; u = u->next)
        n += !u->claimed; /* claimed: matched, its payload still arriving */
    return n;
}

static uint64_t unexp_bytes(int arg)
{
    uint64_t n = 0;
    (void)arg;
    for (const struct bolt_unexp *u = bolt_rt.match.unexp_head; u; u = u->next)
        n += u->claimed ? 0 : u->size;
    return n;
}

static uint64_t posted_length(int arg)
{
    uint64_t n = 0;
    (void)arg;
    for (const struct bolt_request *r = bolt_rt.match.posted_head; r; r = r->next)
        n++;
    return n;
}

static uint64_t unexp_cache(int arg) { return (void)arg, bolt_unexp_cache_bytes(); }
static uint64_t tunnels(int arg) { return (void)arg, (uint64_t)bolt_rt.tunnels; }
static uint64_t gone(int arg) { return (void)arg, (uint64_t)bolt_rt.gone; }
static uint64_t box_moves(int arg) { return (void)arg, rma_box_moves; }
static uint64_t kernel_moves(int arg) { return (void)arg, rma_kernel_moves; }
static uint64_t boxes(int arg) { return (void)arg, (uint64_t)rma_mail_serving(); }

static const char *const tl_names[] = {"shm", "tcp", "rdma"};

/* The runtime's index of the transport named tl_names[arg], or -1 (not
 * built, not chosen, or the runtime not started). */
static int tl_index(int arg)
{
    for (int t = 0; t < bolt_rt.ntls; t++)
        if (!strcmp(bolt_rt.tls[t]->name, tl_names[arg]))
            return t;
    return -1;
}

static uint64_t tl_peers(int arg)
{
    int t = tl_index(arg);
    uint64_t n = 0;
    for (int p = 0; t >= 0 && bolt_rt.peers && p < bolt_rt.size; p++)
        n += p != bolt_rt.rank && bolt_rt.peers[p].tl == t;
    return n;
}

static uint64_t tl_msgs(int arg)
{
    int t = tl_index(arg);
    return t < 0 ? 0 : bolt_rt.sent_msgs[t];
}

static uint64_t tl_bytes(int arg)
{
    int t = tl_index(arg);
    return t < 0 ? 0 : bolt_rt.sent_bytes[t];
}

/* ---- the variables ------------------------------------------------------------------------- */
struct pvar {
    const char *name, *desc;
    int cls, cat, verbosity;
    uint64_t (*read)(int arg);
    int arg;
};
#define LEVEL MPI_T_PVAR_CLASS_LEVEL
#define COUNTER MPI_T_PVAR_CLASS_COUNTER
#define MATCHING MPIT_CAT_MATCHING
#define TRAFFIC MPIT_CAT_TRAFFIC
#define TB MPI_T_VERBOSITY_TUNER_BASIC
#define TD MPI_T_VERBOSITY_TUNER_DETAIL
#define TRANSPORT_PVARS(i, tl)                                                                     \
    {"bolt_" tl "_peers",                                                                          \
     "Peers this process reaches over the " tl " transport (0 where it is "                        \
     "not built or not chosen for any)",                                                           \
     LEVEL,                                                                                        \
     TRAFFIC,                                                                                      \
     TB,                                                                                           \
     tl_peers,                                                                                     \
     i},                                                                                           \
        {"bolt_" tl "_messages_sent",                                                              \
         "Messages this process handed to the " tl " transport: point-to-point and collectives' "  \
         "own, to peers it was chosen for (sends to oneself use none)",                            \
         COUNTER,                                                                                  \
         TRAFFIC,                                                                                  \
         TB,                                                                                       \
         tl_msgs,                                                                                  \
         i},                                                                                       \
    {                                                                                              \
        "bolt_" tl "_bytes_sent", "Payload bytes of those messages", COUNTER, TRAFFIC, TB,         \
            tl_bytes, i                                                                            \
    }
static const struct pvar pvars[] = {
    {"bolt_unexpected_queue_length",
     "Messages arrived that no receive has matched yet (the unexpected queue)", LEVEL, MATCHING, TB,
     unexp_length, 0},
    {"bolt_unexpected_queue_bytes",
     "The sizes of those messages, in bytes (the payload of a large one waits at its sender "
     "until it is matched)",
     LEVEL, MATCHING, TD, unexp_bytes, 0},
    {"bolt_posted_queue_length", "Receives posted that no message has matched yet", LEVEL, MATCHING,
     TB, posted_length, 0},
    {"bolt_unexpected_buffer_cache_bytes",
     "Bytes of unexpected-message payload buffers kept for reuse (not returned to malloc)",
     MPI_T_PVAR_CLASS_SIZE, MATCHING, TD, unexp_cache, 0},
    TRANSPORT_PVARS(0, "shm"),
    TRANSPORT_PVARS(1, "tcp"),
    TRANSPORT_PVARS(2, "rdma"),
    {"bolt_peers_failed_over",
     "Peers whose traffic moved to their standby transport after a link failed", LEVEL, TRAFFIC, TB,
     tunnels, 0},
    {"bolt_peers_gone", "Peers that finalized or failed", LEVEL, TRAFFIC, TD, gone, 0},
    {"bolt_rma_boxes",
     "Windows (MPI_Win_create, MPI_Win_create_dynamic) whose box this process serves: its "
     "siblings hand it Puts, Gets and accumulates to apply while it polls (0 where ranks "
     "outnumber cores, or BOLT_RMA_MAIL_WAIT is 0)",
     LEVEL, TRAFFIC, TD, boxes, 0},
    {"bolt_rma_box_moves",
     "Runs of Puts and Gets, and accumulates, on a rank of this host's MPI_Win_create or "
     "MPI_Win_create_dynamic window that the rank applied itself, from its box, while it polled",
     COUNTER, TRAFFIC, TD, box_moves, 0},
    {"bolt_rma_kernel_moves",
     "Runs of queued Puts and Gets, and accumulates, to such a rank moved through the kernel "
     "instead (process_vm_writev/readv): it did not pick them up in time, its box was busy or "
     "not used, or they did not fit",
     COUNTER, TRAFFIC, TD, kernel_moves, 0},
};
#define NPVARS ((int)(sizeof pvars / sizeof pvars[0]))

int mpit_npvars(void) { return NPVARS; }
int mpit_pvar_category(int i) { return pvars[i].cat; }

/* Counters start and stop; the rest are always on and read-only. */
static int continuous(int i) { return pvars[i].cls != COUNTER; }

int PMPI_T_pvar_get_num(int *num_pvar)
{
    int rc = mpit_check();
    if (rc)
        return rc;
    if (!num_pvar)
        return MPI_T_ERR_INVALID;
    *num_pvar = NPVARS;
    return MPI_SUCCESS;
}

int PMPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity, int *var_class,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                         int *bind, int *readonly, int *is_continuous, int *atomic)
{
    int rc = mpit_check();
    if (rc)
        return rc;
    if (pvar_index < 0 || pvar_index >= NPVARS)
        return MPI_T_ERR_INVALID_INDEX;
    const struct pvar *v = &pvars[pvar_index];
    mpit_string(name, name_len, v->name);
    mpit_string(desc, desc_len, v->desc);
    if (verbosity)
        *verbosity = v->verbosity;
    if (var_class)
        *var_class = v->cls;
    if (datatype)
        *datatype = MPI_UNSIGNED_LONG_LONG;
    if (enumtype)
        *enumtype = MPI_T_ENUM_NULL;
    if (bind)
        *bind = MPI_T_BIND_NO_OBJECT;
    if (readonly)
        *readonly = continuous(pvar_index);
    if (is_continuous)
        *is_continuous = continuous(pvar_index);
    if (atomic)
        *atomic = 1; /* one thread at a time: a readreset is never interleaved */
    return MPI_SUCCESS;
}

int PMPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
    int rc = mpit_check();
    if (rc)
        return rc;
    if (!name || !pvar_index)
        return MPI_T_ERR_INVALID;
    for (int i = 0; i < NPVARS; i++)
        if (pvars[i].cls == var_class && !strcmp(name, pvars[i].name)) {
            *pvar_index = i;
            return MPI_SUCCESS;
        }
    return MPI_T_ERR_INVALID_NAME;
}

/* ---- sessions and handles ------------------------------------------------------------------ */
struct bolt_mpit_pvar_handle {
    int index;
    int started;
    uint64_t held; /* a counter's value, up to `base` when started */
    uint64_t base; /* the source's value at the start */
    struct bolt_mpit_pvar_handle *next;
};

struct bolt_mpit_session {
    struct bolt_mpit_pvar_handle *handles;
    struct bolt_mpit_session *next;
};
static struct bolt_mpit_session *sessions;

static void session_destroy(struct bolt_mpit_session *s)
{
    while (s->handles) {
        struct bolt_mpit_pvar_handle *h = s->handles;
        s->handles = h->next;
        free(h);
    }
    free(s);
}

void mpit_pvars_finalize(void)
{
    while (sessions) {
        struct bolt_mpit_session *s = sessions;
        sessions = s->next;
        session_destroy(s);
    }
}

static int check_session(MPI_T_pvar_session s)
{
    int rc = mpit_check();
    if (rc)
        return rc;
    for (struct bolt_mpit_session *p = sessions; p; p = p->next)
        if (p == s)
            return MPI_SUCCESS;
    return MPI_T_ERR_INVALID_SESSION;
}

/* A handle of session s (all_ok: or MPI_T_PVAR_ALL_HANDLES). */
static int check_handle(MPI_T_pvar_session s, MPI_T_pvar_handle h, int all_ok)
{
    int rc = check_session(s);
    if (rc)
        return rc;
    if (h == MPI_T_PVAR_ALL_HANDLES)
        return all_ok ? MPI_SUCCESS : MPI_T_ERR_INVALID_HANDLE;
    for (struct bolt_mpit_pvar_handle *p = s->handles; p; p = p->next)
        if (p == h)
            return MPI_SUCCESS;
    return MPI_T_ERR_INVALID_HANDLE;
}

int PMPI_T_pvar_session_create(MPI_T_pvar_session *session)
{
    int rc = mpit_check();
    if (rc)
        return rc;
    if (!session)
        return MPI_T_ERR_INVALID;
    struct bolt_mpit_session *s = calloc(1, sizeof *s);
    if (!s)
        return MPI_T_ERR_MEMORY;
    s->next = sessions;
    sessions = s;
    *session = s;
    return MPI_SUCCESS;
}

int PMPI_T_pvar_session_free(MPI_T_pvar_session *session)
{
    int rc = session ? check_session(*session) : MPI_T_ERR_INVALID;
    if (rc)
        return rc;
    for (struct bolt_mpit_session **p = &sessions; *p; p = &(*p)->next)
        if (*p == *session) {
            *p = (*session)->next;
            break;
        }
    session_destroy(*session);
    *session = MPI_T_PVAR_SESSION_NULL;
    return MPI_SUCCESS;
}

int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                             MPI_T_pvar_handle *handle, int *count)
{
    int rc = check_session(session);
    (void)obj_handle; /* bound to no object */
    if (rc)
        return rc;
    if (pvar_index < 0 || pvar_index >= NPVARS)
        return MPI_T_ERR_INVALID_INDEX;
    if (!handle || !count)
        return MPI_T_ERR_INVALID;
    struct bolt_mpit_pvar_handle *h = calloc(1, sizeof *h);
    if (!h)
        return MPI_T_ERR_MEMORY;
    h->index = pvar_index;
    h->started = continuous(pvar_index); /* a counter starts stopped, at 0 */
    h->next = session->handles;
    session->handles = h;
    *handle = h;
    *count = 1;
    return MPI_SUCCESS;
}

int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    int rc = handle ? check_handle(session, *handle, 0) : MPI_T_ERR_INVALID;
    if (rc)
        return rc;
    for (struct bolt_mpit_pvar_handle **p = &session->handles; *p; p = &(*p)->next)
        if (*p == *handle) {
            *p = (*handle)->next;
            break;
        }
    free(*handle);
    *handle = MPI_T_PVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}

static uint64_t source(const struct bolt_mpit_pvar_handle *h)
{
    return pvars[h->index].read(pvars[h->index].arg);
}

static uint64_t value(const struct bolt_mpit_pvar_handle *h)
{
    if (continuous(h->index))
        return source(h);
    return h->started ? h->held + (source(h) - h->base) : h->held;
}

/* Starts (on 1) or stops (0) h, or with MPI_T_PVAR_ALL_HANDLES every handle
 * of the session that can be. */
static int start_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle, int on)
{
    int rc = check_handle(session, handle, 1);
    if (rc)
        return rc;
    for (struct bolt_mpit_pvar_handle *h = session->handles; h; h = h->next) {
        if (handle != MPI_T_PVAR_ALL_HANDLES && h != handle)
            continue;
        if (continuous(h->index)) {
            if (handle != MPI_T_PVAR_ALL_HANDLES)
                return MPI_T_ERR_PVAR_NO_STARTSTOP;
            continue;
        }
        if (on && !h->started)
            h->base = source(h);
        else if (!on && h->started)
            h->held += source(h) - h->base;
        h->started = on;
    }
    return MPI_SUCCESS;
}

int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return start_stop(session, handle, 1);
}

int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return start_stop(session, handle, 0);
}

int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    int rc = check_handle(session, handle, 0);
    if (rc)
        return rc;
    if (!buf)
        return MPI_T_ERR_INVALID;
    *(unsigned long long *)buf = value(handle);
    return MPI_SUCCESS;
}

/* Sets h's value to v (a counter, writable). */
static void set_value(struct bolt_mpit_pvar_handle *h, uint64_t v)
{
    h->held = v;
    if (h->started)
        h->base = source(h);
}

int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
    int rc = check_handle(session, handle, 0);
    if (rc)
        return rc;
    if (!buf)
        return MPI_T_ERR_INVALID;
    if (continuous(handle->index))
        return MPI_T_ERR_PVAR_NO_WRITE;
    set_value(handle, *(const unsigned long long *)buf);
    return MPI_SUCCESS;
}

int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    int rc = check_handle(session, handle, 1);
    if (rc)
        return rc;
    if (handle != MPI_T_PVAR_ALL_HANDLES && continuous(handle->index))
        return MPI_T_ERR_PVAR_NO_WRITE;
    for (struct bolt_mpit_pvar_handle *h = session->handles; h; h = h->next)
        if ((handle == MPI_T_PVAR_ALL_HANDLES || h == handle) && !continuous(h->index))
            set_value(h, 0);
    return MPI_SUCCESS;
}

int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    int rc = check_handle(session, handle, 0);
    if (rc)
        return rc;
    if (!buf)
        return MPI_T_ERR_INVALID;
    if (continuous(handle->index))
        return MPI_T_ERR_PVAR_NO_WRITE;
    *(unsigned long long *)buf = value(handle);
    set_value(handle, 0);
    return MPI_SUCCESS;
}
