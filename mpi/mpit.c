/* mpit.c — the tools information interface (MPI 3.1, 14.3): initialization,
 * and the categories that group the variables. Control variables are
 * Bolt's settings (mpit_cvar.c), performance variables what its runtime
 * counts (mpit_pvar.c). */
#include <string.h>

#include "mpi/mpit.h"
#include "runtime/config.h"
#include "runtime/thread.h"

int mpit_inits;

void mpit_string(char *dst, int *len, const char *src)
{
    if (!len)
        return;
    int need = (int)strlen(src) + 1;
    if (!dst || *len <= 0) {
        *len = need;
        return;
    }
    if (need < *len)
        *len = need;
    memcpy(dst, src, (size_t)*len - 1);
    dst[*len - 1] = 0;
}

int face_thread_grant(int required)
{
    int top = bolt_param_int(BOLT_P_THREAD_MULTIPLE) ? MPI_THREAD_MULTIPLE : MPI_THREAD_SERIALIZED;
    return required < MPI_THREAD_SINGLE ? MPI_THREAD_SINGLE : required > top ? top : required;
}

/* As MPI_Init_thread: MULTIPLE (unless BOLT_THREAD_MULTIPLE=0) turns the
 * runtime lock on (runtime/thread.h), so the tools calls of several threads
 * run one at a time. */
int PMPI_T_init_thread(int required, int *provided)
{
    if (!provided)
        return MPI_T_ERR_INVALID;
    *provided = face_thread_grant(required);
    if (*provided == MPI_THREAD_MULTIPLE)
        bolt_lock_enable();
    mpit_inits++;
    return MPI_SUCCESS;
}

int PMPI_T_finalize(void)
{
    int rc = mpit_check();
    if (rc)
        return rc;
    if (--mpit_inits == 0) {
        mpit_cvars_finalize();
        mpit_pvars_finalize();
    }
    return MPI_SUCCESS;
}

/* ---- categories ---------------------------------------------------------------------------- */
static const struct {
    const char *name, *desc;
} cats[MPIT_NCATS] = {
    [MPIT_CAT_BOLT] = {"bolt", "Bolt: its settings (the BOLT_* environment variables) as control "
                               "variables and what its runtime counts as performance variables, "
                               "in the categories below"},
    [MPIT_CAT_RUNTIME] = {"bolt_runtime", "The runtime: transports, timeouts, diagnostics, how "
                                          "blocking calls wait"},
    [MPIT_CAT_SHM] = {"bolt_shm", "The shared-memory transport (ranks on one host)"},
    [MPIT_CAT_TCP] = {"bolt_tcp", "The TCP transport"},
    [MPIT_CAT_RDMA] = {"bolt_rdma", "The RDMA transport (ibverbs; Thunderbolt on macOS)"},
    [MPIT_CAT_COLL] = {"bolt_collectives", "Collectives: the cost model that picks algorithms, "
                                           "and the algorithms forced"},
    [MPIT_CAT_LAUNCHER] = {"bolt_launcher", "boltrun's settings: they act in the launcher, so a "
                                            "rank can read but not change them"},
    [MPIT_CAT_MATCHING] = {"bolt_matching", "Matching messages to receives: the posted and "
                                            "unexpected queues"},
    [MPIT_CAT_TRAFFIC] = {"bolt_traffic", "Peers by transport, and what this process sent over "
                                          "each"},
};

static int check_cat(int cat_index)
{
    int rc = mpit_check();
    if (rc)
        return rc;
    return cat_index >= 0 && cat_index < MPIT_NCATS ? MPI_SUCCESS : MPI_T_ERR_INVALID_INDEX;
}

/* The members of category cat: cvars (kind 0), pvars (1) or categories (2);
 * their count, and the first len of them in indices (may be NULL). */
static int members(int cat, int kind, int len, int indices[])
{
    int n = 0, total = kind == 0 ? mpit_ncvars() : kind == 1 ? mpit_npvars() : MPIT_NCATS;
    for (int i = 0; i < total; i++) {
        int in = kind == 0   ? mpit_cvar_category(i) == cat
                 : kind == 1 ? mpit_pvar_category(i) == cat
                             : cat == MPIT_CAT_BOLT && i != MPIT_CAT_BOLT;
        if (!in)
            continue;
        if (indices && n < len)
            indices[n] = i;
        n++;
    }
    return n;
}

int PMPI_T_category_get_num(int *num_cat)
{
    int rc = mpit_check();
    if (rc)
        return rc;
    if (!num_cat)
        return MPI_T_ERR_INVALID;
    *num_cat = MPIT_NCATS;
    return MPI_SUCCESS;
}

int PMPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len,
                             int *num_cvars, int *num_pvars, int *num_categories)
{
    int rc = check_cat(cat_index);
    if (rc)
        return rc;
    mpit_string(name, name_len, cats[cat_index].name);
    mpit_string(desc, desc_len, cats[cat_index].desc);
    if (num_cvars)
        *num_cvars = members(cat_index, 0, 0, NULL);
    if (num_pvars)
        *num_pvars = members(cat_index, 1, 0, NULL);
    if (num_categories)
        *num_categories = members(cat_index, 2, 0, NULL);
    return MPI_SUCCESS;
}

int PMPI_T_category_get_index(const char *name, int *cat_index)
{
    int rc = mpit_check();
    if (rc)
        return rc;
    if (!name || !cat_index)
        return MPI_T_ERR_INVALID;
    for (int i = 0; i < MPIT_NCATS; i++)
        if (!strcmp(name, cats[i].name)) {
            *cat_index = i;
            return MPI_SUCCESS;
        }
    return MPI_T_ERR_INVALID_NAME;
}

static int get_members(int cat_index, int len, int indices[], int kind)
{
    int rc = check_cat(cat_index);
    if (rc)
        return rc;
    if (len < 0 || (len > 0 && !indices))
        return MPI_T_ERR_INVALID;
    members(cat_index, kind, len, indices);
    return MPI_SUCCESS;
}

int PMPI_T_category_get_cvars(int cat_index, int len, int indices[])
{
    return get_members(cat_index, len, indices, 0);
}

int PMPI_T_category_get_pvars(int cat_index, int len, int indices[])
{
    return get_members(cat_index, len, indices, 1);
}

int PMPI_T_category_get_categories(int cat_index, int len, int indices[])
{
    return get_members(cat_index, len, indices, 2);
}

/* The categories never change while a process runs. */
int PMPI_T_category_changed(int *stamp)
{
    int rc = mpit_check();
    if (rc)
        return rc;
    if (!stamp)
        return MPI_T_ERR_INVALID;
    *stamp = 0;
    return MPI_SUCCESS;
}
