/* mpit_cvar.c — control variables (MPI 3.1, 14.3.6): one per Bolt setting
 * (runtime/params.def), named as its environment variable, its help as the
 * description. Each is readable; writes go through bolt_param_set and are
 * allowed while the runtime can still honour them: settings read when
 * MPI_Init starts the runtime, between MPI_T_init_thread and MPI_Init
 * (later: MPI_T_ERR_CVAR_SET_NEVER, the process never reads them again);
 * BOLT_LOG_LEVEL, read at each message, at any time; boltrun's own
 * settings never (they act in the launcher). Settings with named values
 * are MPI_INTs with an enum. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "collectives/coll.h"
#include "mpi/mpit.h"
#include "runtime/config.h"

struct bolt_mpit_enum {
    const char *name;
    int n;
    const char *items[8]; /* item i has value i */
};

static struct bolt_mpit_enum e_evloop = {"bolt_tcp_evloop", 3, {"auto", "poll", "epoll"}},
                             e_auto01 = {"bolt_auto_0_1", 3, {"auto", "0", "1"}},
                             e_qp = {"bolt_rdma_qp", 2, {"uc", "rc"}},
                             /* "auto", then the collectives' own names (at first use) */
    e_allreduce = {"bolt_allreduce_algo", 0, {0}}, e_bcast = {"bolt_bcast_algo", 0, {0}},
                             e_allgather = {"bolt_allgather_algo", 0, {0}},
                             e_barrier = {"bolt_barrier_algo", 0, {0}};

enum when { NEVER = 1, BEFORE_INIT, ANYTIME };
struct cvar {
    int cat, verbosity, scope;
    enum when when;
    struct bolt_mpit_enum *e;
};
#define RT MPIT_CAT_RUNTIME
#define SHM MPIT_CAT_SHM
#define TCP MPIT_CAT_TCP
#define RDMA MPIT_CAT_RDMA
#define COLL MPIT_CAT_COLL
#define LAUNCH MPIT_CAT_LAUNCHER
#define UB MPI_T_VERBOSITY_USER_BASIC
#define TB MPI_T_VERBOSITY_TUNER_BASIC
#define TD MPI_T_VERBOSITY_TUNER_DETAIL
#define DEV MPI_T_VERBOSITY_MPIDEV_DETAIL
#define LOCAL MPI_T_SCOPE_LOCAL
#define ALL MPI_T_SCOPE_ALL
#define ALL_EQ MPI_T_SCOPE_ALL_EQ
#define CONST MPI_T_SCOPE_CONSTANT
/* Every setting needs an entry (a missing one would sit in category "bolt"
 * as read-only: tests/mpi/mpi_tools_bolt.c checks there is none). Scopes: ALL
 * for transport thresholds both ends of a link use, ALL_EQ where params.def
 * says every rank must agree (or the algorithms would not match up). */
static const struct cvar cvars[BOLT_P_COUNT] = {
    [BOLT_P_TIMEOUT] = {RT, UB, LOCAL, BEFORE_INIT, NULL},
    [BOLT_P_TRANSPORTS] = {RT, UB, ALL_EQ, BEFORE_INIT, NULL},
    [BOLT_P_LOG_LEVEL] = {RT, UB, LOCAL, ANYTIME, NULL},
    [BOLT_P_SPIN_COUNT] = {RT, TB, LOCAL, BEFORE_INIT, NULL},
    [BOLT_P_YIELD_COUNT] = {RT, TD, LOCAL, BEFORE_INIT, NULL},
    [BOLT_P_THREAD_MULTIPLE] = {RT, UB, LOCAL, BEFORE_INIT, NULL},
    [BOLT_P_TCP_EAGER_LIMIT] = {TCP, TB, ALL, BEFORE_INIT, NULL},
    [BOLT_P_TCP_CONNS] = {TCP, TB, ALL_EQ, BEFORE_INIT, NULL},
    [BOLT_P_TCP_STRIPE_MIN] = {TCP, TD, ALL, BEFORE_INIT, NULL},
    [BOLT_P_TCP_CONGESTION] = {TCP, TD, LOCAL, BEFORE_INIT, NULL},
    [BOLT_P_TCP_DIRECT_PEERS] = {TCP, TD, LOCAL, BEFORE_INIT, NULL},
    [BOLT_P_TCP_EVLOOP] = {TCP, TD, LOCAL, BEFORE_INIT, &e_evloop},
    [BOLT_P_TCP_BUF] = {TCP, TD, LOCAL, BEFORE_INIT, NULL},
    [BOLT_P_TCP_IF_ADDR] = {TCP, UB, LOCAL, BEFORE_INIT, NULL},
    [BOLT_P_IF_INCLUDE] = {TCP, UB, LOCAL, BEFORE_INIT, NULL},
    [BOLT_P_TCP_CONNECT_TIMEOUT] = {TCP, TD, LOCAL, BEFORE_INIT, NULL},
    [BOLT_P_TCP_FAILOVER] = {TCP, TB, ALL, BEFORE_INIT, &e_auto01},
    [BOLT_P_RSH] = {LAUNCH, UB, CONST, NEVER, NULL},
    [BOLT_P_HOSTD] = {LAUNCH, UB, CONST, NEVER, NULL},
    [BOLT_P_LAUNCH_TIMEOUT] = {LAUNCH, UB, CONST, NEVER, NULL},
    [BOLT_P_SHM_EAGER_LIMIT] = {SHM, TB, ALL, BEFORE_INIT, NULL},
    [BOLT_P_SHM_CMA] = {SHM, TB, ALL, BEFORE_INIT, &e_auto01},
    [BOLT_P_SHM_CMA_MIN] = {SHM, TD, ALL, BEFORE_INIT, NULL},
    [BOLT_P_SHM_SPLIT_MIN] = {SHM, TD, ALL, BEFORE_INIT, NULL},
    [BOLT_P_SHM_CMA_MAX] = {SHM, TD, ALL, BEFORE_INIT, NULL},
    [BOLT_P_KILL_GRACE] = {LAUNCH, UB, CONST, NEVER, NULL},
    [BOLT_P_COLL_ALPHA_US] = {COLL, TD, ALL_EQ, BEFORE_INIT, NULL},
    [BOLT_P_COLL_BETA_NS_PER_KB] = {COLL, TD, ALL_EQ, BEFORE_INIT, NULL},
    [BOLT_P_COLL_MSG_US] = {COLL, TD, ALL_EQ, BEFORE_INIT, NULL},
    [BOLT_P_COLL_GAMMA_NS_PER_KB] = {COLL, TD, ALL_EQ, BEFORE_INIT, NULL},
    [BOLT_P_COLL_BETA_MEM_NS_PER_KB] = {COLL, TD, ALL_EQ, BEFORE_INIT, NULL},
    [BOLT_P_COLL_CACHE] = {COLL, TD, ALL_EQ, BEFORE_INIT, NULL},
    [BOLT_P_COLL_SCRATCH] = {COLL, TD, LOCAL, BEFORE_INIT, NULL},
    [BOLT_P_COLL_SEGMENT] = {COLL, TD, ALL_EQ, BEFORE_INIT, NULL},
    [BOLT_P_COLL_LINKS] = {COLL, TD, ALL_EQ, BEFORE_INIT, NULL},
    [BOLT_P_ALLREDUCE_ALGO] = {COLL, TB, ALL_EQ, BEFORE_INIT, &e_allreduce},
    [BOLT_P_BCAST_ALGO] = {COLL, TB, ALL_EQ, BEFORE_INIT, &e_bcast},
    [BOLT_P_ALLGATHER_ALGO] = {COLL, TB, ALL_EQ, BEFORE_INIT, &e_allgather},
    [BOLT_P_BARRIER_ALGO] = {COLL, TB, ALL_EQ, BEFORE_INIT, &e_barrier},
    [BOLT_P_BIND_TO] = {LAUNCH, UB, CONST, NEVER, NULL},
    [BOLT_P_MAP_BY] = {LAUNCH, UB, CONST, NEVER, NULL},
    [BOLT_P_RDMA_DEVICES] = {RDMA, UB, LOCAL, BEFORE_INIT, NULL},
    [BOLT_P_RDMA_DEVMAP] = {RDMA, UB, LOCAL, BEFORE_INIT, NULL},
    [BOLT_P_RDMA_QP] = {RDMA, TB, ALL_EQ, BEFORE_INIT, &e_qp},
    [BOLT_P_RDMA_EAGER_LIMIT] = {RDMA, TB, ALL, BEFORE_INIT, NULL},
    [BOLT_P_RDMA_SLOT] = {RDMA, TD, ALL_EQ, BEFORE_INIT, NULL},
    [BOLT_P_RDMA_BULK_DEPTH] = {RDMA, TD, ALL_EQ, BEFORE_INIT, NULL},
    [BOLT_P_RDMA_CTL_DEPTH] = {RDMA, TD, ALL_EQ, BEFORE_INIT, NULL},
    [BOLT_P_RDMA_MAX_QP] = {RDMA, DEV, LOCAL, BEFORE_INIT, NULL},
    [BOLT_P_RDMA_MAX_MR] = {RDMA, DEV, LOCAL, BEFORE_INIT, NULL},
    [BOLT_P_RDMA_GID_INDEX] = {RDMA, DEV, LOCAL, BEFORE_INIT, NULL},
    [BOLT_P_RDMA_LOOPBACK] = {RDMA, TD, ALL_EQ, BEFORE_INIT, NULL},
    [BOLT_P_RDMA_ACK_TIMEOUT] = {RDMA, TD, LOCAL, BEFORE_INIT, NULL},
    [BOLT_P_RMA_SHARED] = {RT, TD, ALL_EQ, BEFORE_INIT, NULL},
    [BOLT_P_RMA_MAIL_WAIT] = {RT, TD, ALL_EQ, BEFORE_INIT, NULL},
};

/* A string's room in a handle: what a read fills and a write may take. */
#define STRING_COUNT MPI_MAX_INFO_VAL

int mpit_ncvars(void) { return BOLT_P_COUNT; }
int mpit_cvar_category(int i) { return cvars[i].when ? cvars[i].cat : MPIT_CAT_BOLT; }

static int check_index(int i)
{
    int rc = mpit_check();
    if (rc)
        return rc;
    return i >= 0 && i < BOLT_P_COUNT ? MPI_SUCCESS : MPI_T_ERR_INVALID_INDEX;
}

/* The algorithm enums: "auto", then the names the collectives know. */
static void algo_enum(struct bolt_mpit_enum *e, enum bolt_param_id id)
{
    const char *name;
    if (e->n)
        return;
    e->items[e->n++] = "auto";
    for (int i = 0; e->n < 8 && (name = coll_algo_choice(id, i)); i++)
        e->items[e->n++] = name;
}

static struct bolt_mpit_enum *enum_of(int i)
{
    struct bolt_mpit_enum *e = cvars[i].e;
    if (e && !e->n)
        algo_enum(e, (enum bolt_param_id)i);
    return e;
}

static MPI_Datatype datatype_of(int i)
{
    switch (bolt_param_info(i)->type) {
    case BOLT_PT_SIZE: return MPI_UNSIGNED_LONG_LONG;
    case BOLT_PT_DOUBLE: return MPI_DOUBLE;
    case BOLT_PT_STRING: return cvars[i].e ? MPI_INT : MPI_CHAR;
    default: return MPI_INT; /* INT, BOOL */
    }
}

int PMPI_T_cvar_get_num(int *num_cvar)
{
    int rc = mpit_check();
    if (rc)
        return rc;
    if (!num_cvar)
        return MPI_T_ERR_INVALID;
    *num_cvar = BOLT_P_COUNT;
    return MPI_SUCCESS;
}

int PMPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                         int *bind, int *scope)
{
    int rc = check_index(cvar_index);
    if (rc)
        return rc;
    const struct bolt_param_info *p = bolt_param_info(cvar_index);
    const struct cvar *v = &cvars[cvar_index];
    mpit_string(name, name_len, p->env);
    mpit_string(desc, desc_len, p->help);
    if (verbosity)
        *verbosity = v->when ? v->verbosity : MPI_T_VERBOSITY_MPIDEV_ALL;
    if (datatype)
        *datatype = datatype_of(cvar_index);
    if (enumtype)
        *enumtype = enum_of(cvar_index);
    if (bind)
        *bind = MPI_T_BIND_NO_OBJECT;
    if (scope)
        *scope = v->when ? v->scope : MPI_T_SCOPE_READONLY;
    return MPI_SUCCESS;
}

int PMPI_T_cvar_get_index(const char *name, int *cvar_index)
{
    int rc = mpit_check();
    if (rc)
        return rc;
    if (!name || !cvar_index)
        return MPI_T_ERR_INVALID;
    for (int i = 0; i < BOLT_P_COUNT; i++)
        if (!strcmp(name, bolt_param_info(i)->env)) {
            *cvar_index = i;
            return MPI_SUCCESS;
        }
    return MPI_T_ERR_INVALID_NAME;
}

int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
{
    int rc = mpit_check();
    if (rc)
        return rc;
    if (!enumtype)
        return MPI_T_ERR_INVALID_HANDLE;
    if (num)
        *num = enumtype->n;
    mpit_string(name, name_len, enumtype->name);
    return MPI_SUCCESS;
}

int PMPI_T_enum_get_item(MPI_T_enum enumtype, int index, int *value, char *name, int *name_len)
{
    int rc = mpit_check();
    if (rc)
        return rc;
    if (!enumtype)
        return MPI_T_ERR_INVALID_HANDLE;
    if (index < 0 || index >= enumtype->n)
        return MPI_T_ERR_INVALID_ITEM;
    if (value)
        *value = index;
    mpit_string(name, name_len, enumtype->items[index]);
    return MPI_SUCCESS;
}

/* ---- handles ----------------------------------------------------------------------------------
 */
struct bolt_mpit_cvar_handle {
    int index;
    struct bolt_mpit_cvar_handle *next;
};
static struct bolt_mpit_cvar_handle *handles; /* the live ones, to tell them from others */

static int live(MPI_T_cvar_handle h)
{
    for (struct bolt_mpit_cvar_handle *p = handles; p; p = p->next)
        if (p == h)
            return 1;
    return 0;
}

void mpit_cvars_finalize(void)
{
    while (handles) {
        struct bolt_mpit_cvar_handle *h = handles;
        handles = h->next;
        free(h);
    }
}

int PMPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle,
                             int *count)
{
    int rc = check_index(cvar_index);
    (void)obj_handle; /* bound to no object */
    if (rc)
        return rc;
    if (!handle || !count)
        return MPI_T_ERR_INVALID;
    struct bolt_mpit_cvar_handle *h = malloc(sizeof *h);
    if (!h)
        return MPI_T_ERR_MEMORY;
    *h = (struct bolt_mpit_cvar_handle){cvar_index, handles};
    handles = h;
    *handle = h;
    *count = datatype_of(cvar_index) == MPI_CHAR ? STRING_COUNT : 1;
    return MPI_SUCCESS;
}

int PMPI_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    int rc = mpit_check();
    if (rc)
        return rc;
    if (!handle || !live(*handle))
        return MPI_T_ERR_INVALID_HANDLE;
    for (struct bolt_mpit_cvar_handle **p = &handles; *p; p = &(*p)->next)
        if (*p == *handle) {
            *p = (*handle)->next;
            break;
        }
    free(*handle);
    *handle = MPI_T_CVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}

/* The item of enum e a setting's text names: aliases the settings take too
 * (upper case, no/off, yes/on, empty for auto); -1 for none. */
static int enum_value(const struct bolt_mpit_enum *e, const char *text)
{
    static const char *const alias[][2] = {
        {"", "auto"}, {"no", "0"}, {"off", "0"}, {"yes", "1"}, {"on", "1"}};
    for (size_t a = 0; a < sizeof alias / sizeof alias[0]; a++)
        if (!strcasecmp(text, alias[a][0]))
            text = alias[a][1];
    for (int i = 0; i < e->n; i++)
        if (!strcasecmp(text, e->items[i]))
            return i;
    return -1;
}

int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
    int rc = mpit_check();
    if (rc)
        return rc;
    if (!live(handle))
        return MPI_T_ERR_INVALID_HANDLE;
    if (!buf)
        return MPI_T_ERR_INVALID;
    int i = handle->index;
    const struct bolt_mpit_enum *e = enum_of(i);
    switch (bolt_param_info(i)->type) {
    case BOLT_PT_SIZE: *(unsigned long long *)buf = (unsigned long long)bolt_param_int(i); break;
    case BOLT_PT_DOUBLE: *(double *)buf = bolt_param_double(i); break;
    case BOLT_PT_STRING:
        if (e)
            *(int *)buf = enum_value(e, bolt_param_string(i));
        else
            snprintf(buf, STRING_COUNT, "%s", bolt_param_string(i));
        break;
    default: *(int *)buf = (int)bolt_param_int(i); break;
    }
    return MPI_SUCCESS;
}

int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
    int rc = mpit_check();
    if (rc)
        return rc;
    if (!live(handle))
        return MPI_T_ERR_INVALID_HANDLE;
    if (!buf)
        return MPI_T_ERR_INVALID;
    int i = handle->index;
    switch (cvars[i].when) {
    case ANYTIME: break;
    case BEFORE_INIT:
        if (face_initialized || face_finalized) /* read at MPI_Init: never again */
            return MPI_T_ERR_CVAR_SET_NEVER;
        break;
    default: return MPI_T_ERR_CVAR_SET_NEVER;
    }
    char text[STRING_COUNT];
    const struct bolt_mpit_enum *e = enum_of(i);
    switch (bolt_param_info(i)->type) {
    case BOLT_PT_SIZE: snprintf(text, sizeof text, "%llu", *(const unsigned long long *)buf); break;
    case BOLT_PT_DOUBLE: snprintf(text, sizeof text, "%.17g", *(const double *)buf); break;
    case BOLT_PT_STRING:
        if (e) {
            int v = *(const int *)buf;
            if (v < 0 || v >= e->n)
                return MPI_T_ERR_INVALID;
            snprintf(text, sizeof text, "%s", e->items[v]);
        } else if (strnlen(buf, STRING_COUNT) == STRING_COUNT) {
            return MPI_T_ERR_INVALID; /* no null within the handle's count */
        } else {
            snprintf(text, sizeof text, "%s", (const char *)buf);
        }
        break;
    default: snprintf(text, sizeof text, "%d", *(const int *)buf); break;
    }
    /* A value the setting does not take is refused, as BOLT_* would be. */
    return bolt_param_set(i, text) ? MPI_T_ERR_INVALID : MPI_SUCCESS;
}
