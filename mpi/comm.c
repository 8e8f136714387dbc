/* comm.c — communicators of the MPI face: the handle table, creation,
 * comparison, names and attributes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi/face.h"

struct face_comm **face_comms;
int face_ncomms;
static int cap_comms;

static int attr_tag_ub = BOLT_TAG_UB, attr_host = MPI_PROC_NULL, attr_io = MPI_ANY_SOURCE,
           attr_wtime_global = 0, attr_universe, attr_appnum = 0;

int face_comm_check(MPI_Comm comm, const char *fn, struct face_comm **out)
{
    int rc = face_check_init(fn);
    if (rc)
        return rc;
    struct face_comm *c = face_comm_get(comm);
    if (!c)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_COMM,
                          comm == MPI_COMM_NULL ? "the communicator is MPI_COMM_NULL"
                                                : "communicator handle %d is not a live communicator",
                          comm);
    *out = c;
    return MPI_SUCCESS;
}

int face_check_rank(MPI_Comm comm, struct face_comm *c, int rank, int any_ok, const char *fn)
{
    if (rank == MPI_PROC_NULL || (any_ok && rank == MPI_ANY_SOURCE))
        return MPI_SUCCESS;
    if (rank >= 0 && rank < c->peers)
        return MPI_SUCCESS;
    return face_error(comm, fn, MPI_ERR_RANK, "rank %d is out of range: %s has %d rank%s (0..%d)%s",
                      rank, c->inter ? "the remote group of the intercommunicator" : "the communicator",
                      c->peers, c->peers == 1 ? "" : "s", c->peers - 1,
                      any_ok ? ", MPI_ANY_SOURCE or MPI_PROC_NULL" : " or MPI_PROC_NULL");
}

int face_check_tag(MPI_Comm comm, int tag, int any_ok, const char *fn)
{
    if ((any_ok && tag == MPI_ANY_TAG) || (tag >= 0 && tag <= BOLT_TAG_UB))
        return MPI_SUCCESS;
    return face_error(comm, fn, MPI_ERR_TAG, "tag %d is invalid: tags run from 0 to MPI_TAG_UB (%d)%s",
                      tag, BOLT_TAG_UB, any_ok ? " or are MPI_ANY_TAG" : "");
}

int face_comm_insert(struct face_comm *c, MPI_Comm *out)
{
    /* Reuse a freed slot (past the predefined ones) before growing. */
    int slot = -1;
    for (int i = 3; i < face_ncomms; i++)
        if (!face_comms[i]) {
            slot = i;
            break;
        }
    if (slot < 0) {
        if (face_ncomms == cap_comms) {
            int n = cap_comms ? cap_comms * 2 : 16;
            struct face_comm **t = realloc(face_comms, (size_t)n * sizeof *t);
            if (!t)
                return MPI_ERR_NO_MEM;
            face_comms = t;
            cap_comms = n;
        }
        slot = face_ncomms++;
    }
    face_comms[slot] = c;
    *out = slot;
    return MPI_SUCCESS;
}

int face_comm_add(bolt_comm_t native, MPI_Comm *out)
{
    struct face_comm *c = calloc(1, sizeof *c);
    if (!c)
        return MPI_ERR_NO_MEM;
    c->native = native;
    c->errh = MPI_ERRORS_ARE_FATAL;
    bolt_comm_rank(native, &c->rank);
    bolt_comm_size(native, &c->size);
    c->peers = c->size;
    c->world_ranks = malloc((size_t)c->size * sizeof *c->world_ranks);
    if (!c->world_ranks) {
        free(c);
        return MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < c->size; i++)
        bolt_comm_world_rank(native, i, &c->world_ranks[i]);
    if (face_comm_insert(c, out)) {
        free(c->world_ranks);
        free(c);
        return MPI_ERR_NO_MEM;
    }
    return MPI_SUCCESS;
}

int face_comms_init(void)
{
    MPI_Comm h;
    int rc;
    face_ncomms = 1; /* slot 0 is MPI_COMM_NULL */
    if (!face_comms && !(face_comms = calloc(16, sizeof *face_comms)))
        return MPI_ERR_NO_MEM;
    cap_comms = cap_comms ? cap_comms : 16;
    face_comms[0] = NULL;
    if ((rc = face_comm_add(bolt_comm_world(), &h)) || (rc = face_comm_add(bolt_comm_self(), &h)))
        return rc;
    snprintf(face_comms[MPI_COMM_WORLD]->name, MPI_MAX_OBJECT_NAME, "MPI_COMM_WORLD");
    snprintf(face_comms[MPI_COMM_SELF]->name, MPI_MAX_OBJECT_NAME, "MPI_COMM_SELF");
    attr_universe = face_comms[MPI_COMM_WORLD]->size;
    return MPI_SUCCESS;
}

void face_comm_destroy(MPI_Comm h)
{
    struct face_comm *c = face_comms[h];
    face_attrs_delete(h, &c->attrs, 1);
    face_comm_set_errh(c, MPI_ERRORS_ARE_FATAL); /* lets its handler go */
    if (h > MPI_COMM_SELF && c->native) /* none yet: an MPI_Comm_idup not complete */
        bolt_comm_free(&c->native);
    face_topo_free(c);
    free(c->world_ranks);
    free(c->remote_world);
    free(c);
    face_comms[h] = NULL;
}

void face_comms_finalize(void)
{
    /* MPI deletes MPI_COMM_SELF's attributes first, so codes can hook finalize. */
    for (int i = MPI_COMM_SELF; i >= 1; i--)
        if (face_comms[i])
            face_attrs_delete(i, &face_comms[i]->attrs, 1);
    for (int i = face_ncomms - 1; i >= 1; i--)
        if (face_comms[i])
            face_comm_destroy(i);
    face_ncomms = 1;
}

int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    struct face_comm *c = NULL;
    int rc = face_comm_check(comm, "MPI_Comm_rank", &c);
    if (rc)
        return rc;
    if (!rank)
        return face_error(comm, "MPI_Comm_rank", MPI_ERR_ARG, "rank pointer is NULL");
    *rank = c->rank;
    return MPI_SUCCESS;
}

int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    struct face_comm *c = NULL;
    int rc = face_comm_check(comm, "MPI_Comm_size", &c);
    if (rc)
        return rc;
    if (!size)
        return face_error(comm, "MPI_Comm_size", MPI_ERR_ARG, "size pointer is NULL");
    *size = c->size;
    return MPI_SUCCESS;
}

int face_comm_copy_into(MPI_Comm comm, struct face_comm *c, MPI_Comm *newcomm, int with_nbr,
                        const char *fn)
{
    struct face_comm *d = face_comms[*newcomm];
    int rc;
    face_comm_set_errh(d, c->errh);
    if ((rc = face_topo_copy(c, d, with_nbr))) {
        face_comm_destroy(*newcomm);
        *newcomm = MPI_COMM_NULL;
        return face_error(comm, fn, rc, "cannot copy the topology: %s",
                          rc == MPI_ERR_NO_MEM ? "out of memory" : bolt_error_message());
    }
    if ((rc = face_attrs_copy(comm, c->attrs, &d->attrs))) {
        /* No communicator, then: what was copied into it is deleted with it. */
        face_comm_destroy(*newcomm);
        *newcomm = MPI_COMM_NULL;
        return face_error(comm, fn, rc,
                          rc == MPI_ERR_NO_MEM ? "out of memory copying the attributes"
                                               : "an attribute copy callback failed (it returned %d)",
                          rc);
    }
    return MPI_SUCCESS;
}

int face_comm_dup(MPI_Comm comm, MPI_Comm *newcomm, const char *fn)
{
    struct face_comm *c = NULL;
    bolt_comm_t n;
    int rc = face_comm_check(comm, fn, &c);
    if (rc)
        return rc;
    if (!newcomm)
        return face_error(comm, fn, MPI_ERR_ARG, "newcomm pointer is NULL");
    if (c->inter) {
        if ((rc = face_inter_dup(comm, c, newcomm, fn)))
            return rc;
    } else if ((rc = bolt_comm_dup(c->native, &n))) {
        return face_native_error(comm, fn, rc);
    } else if ((rc = face_comm_add(n, newcomm))) {
        bolt_comm_free(&n);
        return face_error(comm, fn, rc, "out of memory");
    }
    return face_comm_copy_into(comm, c, newcomm, 1, fn);
}

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    return face_comm_dup(comm, newcomm, "MPI_Comm_dup");
}

int face_comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm, const char *fn)
{
    struct face_comm *c = NULL;
    bolt_comm_t n = BOLT_COMM_NULL;
    int rc = face_comm_check(comm, fn, &c);
    if (rc)
        return rc;
    if (!newcomm)
        return face_error(comm, fn, MPI_ERR_ARG, "newcomm pointer is NULL");
    if (color < 0 && color != MPI_UNDEFINED)
        return face_error(comm, fn, MPI_ERR_ARG,
                          "color %d is invalid: colors are >= 0 or MPI_UNDEFINED", color);
    if (c->inter)
        return face_inter_split(comm, c, color, key, newcomm, fn);
    if ((rc = bolt_comm_split(c->native, color == MPI_UNDEFINED ? BOLT_UNDEFINED : color, key, &n)))
        return face_native_error(comm, fn, rc);
    *newcomm = MPI_COMM_NULL;
    if (n == BOLT_COMM_NULL)
        return MPI_SUCCESS;
    if ((rc = face_comm_add(n, newcomm))) {
        bolt_comm_free(&n);
        return face_error(comm, fn, rc, "out of memory");
    }
    face_comm_set_errh(face_comms[*newcomm], c->errh);
    return MPI_SUCCESS;
}

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    return face_comm_split(comm, color, key, newcomm, "MPI_Comm_split");
}

/* Ranks sharing memory are those of one host; the host is named by its
 * hostname and, on Linux, the kernel's boot id, hashed into a color. */
int face_host_color(void)
{
    char id[512];
    snprintf(id, sizeof id, "%s", bolt_hostname());
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        size_t n = strlen(id);
        if (fgets(id + n, (int)(sizeof id - n), f) == NULL)
            id[n] = 0;
        fclose(f);
    }
    uint32_t h = 2166136261u; /* FNV-1a */
    for (const char *p = id; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    return (int)(h & 0x3fffffff);
}

int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    (void)info;
    if (split_type == MPI_UNDEFINED)
        return face_comm_split(comm, MPI_UNDEFINED, key, newcomm, "MPI_Comm_split_type");
    if (split_type != MPI_COMM_TYPE_SHARED) {
        struct face_comm *c = NULL;
        int rc = face_comm_check(comm, "MPI_Comm_split_type", &c);
        return rc ? rc
                  : face_error(comm, "MPI_Comm_split_type", MPI_ERR_ARG,
                               "split_type %d is unknown: use MPI_COMM_TYPE_SHARED or MPI_UNDEFINED",
                               split_type);
    }
    return face_comm_split(comm, face_host_color(), key, newcomm, "MPI_Comm_split_type");
}

int PMPI_Comm_free(MPI_Comm *comm)
{
    struct face_comm *c = NULL;
    if (!comm)
        return face_error(MPI_COMM_NULL, "MPI_Comm_free", MPI_ERR_ARG, "comm pointer is NULL");
    int rc = face_comm_check(*comm, "MPI_Comm_free", &c);
    if (rc)
        return rc;
    if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
        return face_error(*comm, "MPI_Comm_free", MPI_ERR_COMM,
                          "%s is predefined and cannot be freed", c->name);
    /* A failing delete callback fails the free: the communicator stays. */
    if ((rc = face_attrs_delete(*comm, &c->attrs, 0)))
        return face_error(*comm, "MPI_Comm_free", rc,
                          "an attribute delete callback failed (it returned %d)", rc);
    face_comm_destroy(*comm);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

int PMPI_Comm_compare(MPI_Comm a, MPI_Comm b, int *result)
{
    struct face_comm *ca = NULL, *cb = NULL;
    int rc;
    if ((rc = face_comm_check(a, "MPI_Comm_compare", &ca)) ||
        (rc = face_comm_check(b, "MPI_Comm_compare", &cb)))
        return rc;
    if (!result)
        return face_error(a, "MPI_Comm_compare", MPI_ERR_ARG, "result pointer is NULL");
    if (a == b) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    if (ca->inter || cb->inter) {
        *result = face_inter_compare(ca, cb);
        return MPI_SUCCESS;
    }
    if (ca->size != cb->size) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    if (!memcmp(ca->world_ranks, cb->world_ranks, (size_t)ca->size * sizeof(int))) {
        *result = MPI_CONGRUENT;
        return MPI_SUCCESS;
    }
    *result = MPI_SIMILAR;
    for (int i = 0; i < ca->size && *result == MPI_SIMILAR; i++) {
        int found = 0;
        for (int j = 0; j < cb->size && !found; j++)
            found = ca->world_ranks[i] == cb->world_ranks[j];
        if (!found)
            *result = MPI_UNEQUAL;
    }
    return MPI_SUCCESS;
}

int PMPI_Comm_set_name(MPI_Comm comm, const char *name)
{
    struct face_comm *c = NULL;
    int rc = face_comm_check(comm, "MPI_Comm_set_name", &c);
    if (rc)
        return rc;
    if (!name)
        return face_error(comm, "MPI_Comm_set_name", MPI_ERR_ARG, "name is NULL");
    snprintf(c->name, sizeof c->name, "%s", name);
    return MPI_SUCCESS;
}

int PMPI_Comm_get_name(MPI_Comm comm, char *name, int *resultlen)
{
    struct face_comm *c = NULL;
    int rc = face_comm_check(comm, "MPI_Comm_get_name", &c);
    if (rc)
        return rc;
    if (!name || !resultlen)
        return face_error(comm, "MPI_Comm_get_name", MPI_ERR_ARG, "name or length pointer is NULL");
    snprintf(name, MPI_MAX_OBJECT_NAME, "%s", c->name);
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}

/* ---- attributes (the machinery is attr.c's) ---------------------------------------- */
int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy_fn,
                            MPI_Comm_delete_attr_function *delete_fn, int *keyval,
                            void *extra_state)
{
    return face_keyval_create(FACE_ATTR_COMM, copy_fn, delete_fn, extra_state, keyval,
                              "MPI_Comm_create_keyval");
}

int PMPI_Comm_free_keyval(int *keyval)
{
    return face_keyval_free(FACE_ATTR_COMM, keyval, "MPI_Comm_free_keyval");
}

int PMPI_Comm_set_attr(MPI_Comm comm, int keyval, void *value)
{
    struct face_comm *c = NULL;
    int rc = face_comm_check(comm, "MPI_Comm_set_attr", &c);
    return rc ? rc
              : face_attr_set(FACE_ATTR_COMM, comm, &c->attrs, keyval, value, comm,
                              "MPI_Comm_set_attr");
}

int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void *value, int *flag)
{
    struct face_comm *c = NULL;
    int rc = face_comm_check(comm, "MPI_Comm_get_attr", &c);
    if (rc)
        return rc;
    if (!value || !flag)
        return face_error(comm, "MPI_Comm_get_attr", MPI_ERR_ARG, "value or flag pointer is NULL");
    int *pre = NULL;
    switch (keyval) {
    case MPI_TAG_UB: pre = &attr_tag_ub; break;
    case MPI_HOST: pre = &attr_host; break;
    case MPI_IO: pre = &attr_io; break;
    case MPI_WTIME_IS_GLOBAL: pre = &attr_wtime_global; break;
    case MPI_UNIVERSE_SIZE: pre = &attr_universe; break;
    case MPI_APPNUM: pre = &attr_appnum; break;
    case MPI_LASTUSEDCODE: pre = &face_lastusedcode; break;
    default: break;
    }
    if (pre) {
        *flag = 1;
        memcpy(value, &pre, sizeof pre);
        return MPI_SUCCESS;
    }
    return face_attr_get(FACE_ATTR_COMM, c->attrs, keyval, value, flag, comm, "MPI_Comm_get_attr");
}

int PMPI_Comm_delete_attr(MPI_Comm comm, int keyval)
{
    struct face_comm *c = NULL;
    int rc = face_comm_check(comm, "MPI_Comm_delete_attr", &c);
    return rc ? rc
              : face_attr_delete(FACE_ATTR_COMM, comm, &c->attrs, keyval, comm,
                                 "MPI_Comm_delete_attr");
}
