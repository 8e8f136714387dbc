/* info.c — MPI_Info objects: ordered (key, value) string pairs behind int
 * handles. MPI_INFO_ENV is predefined and read-only; it says how the job was
 * started (command, maxprocs, host, wdir). Bolt reads no hints yet, so infos
 * passed to other calls are accepted and ignored. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi/face.h"

struct face_info {
    int live;
    int readonly;
    int n, cap;
    char **keys, **vals; /* in the order keys were first set */
};

static struct face_info **infos; /* [0] NULL, [1] ENV, then user infos */
static int ninfos, cap_infos;

static void info_destroy(struct face_info *f)
{
    if (!f)
        return;
    for (int i = 0; i < f->n; i++) {
        free(f->keys[i]);
        free(f->vals[i]);
    }
    free(f->keys);
    free(f->vals);
    free(f);
}

void face_infos_finalize(void)
{
    for (int i = 1; i < ninfos; i++)
        info_destroy(infos[i]);
    free(infos);
    infos = NULL;
    ninfos = cap_infos = 0;
}

static int find(const struct face_info *f, const char *key)
{
    for (int i = 0; i < f->n; i++)
        if (!strcmp(f->keys[i], key))
            return i;
    return -1;
}

static int put(struct face_info *f, const char *key, const char *val)
{
    int i = find(f, key);
    char *v = strdup(val);
    if (!v)
        return MPI_ERR_NO_MEM;
    if (i >= 0) {
        free(f->vals[i]);
        f->vals[i] = v;
        return MPI_SUCCESS;
    }
    if (f->n == f->cap) {
        int c = f->cap ? f->cap * 2 : 8;
        char **k = realloc(f->keys, (size_t)c * sizeof *k);
        if (k)
            f->keys = k;
        char **vv = k ? realloc(f->vals, (size_t)c * sizeof *vv) : NULL;
        if (!vv) {
            free(v);
            return MPI_ERR_NO_MEM;
        }
        f->vals = vv;
        f->cap = c;
    }
    if (!(f->keys[f->n] = strdup(key))) {
        free(v);
        return MPI_ERR_NO_MEM;
    }
    f->vals[f->n++] = v;
    return MPI_SUCCESS;
}

/* Room for one more slot past the predefined ones. */
static int grow(void)
{
    if (ninfos < MPI_INFO_ENV + 1)
        ninfos = MPI_INFO_ENV + 1;
    if (ninfos < cap_infos)
        return MPI_SUCCESS;
    int c = cap_infos ? cap_infos * 2 : 16;
    struct face_info **t = realloc(infos, (size_t)c * sizeof *t);
    if (!t)
        return MPI_ERR_NO_MEM;
    memset(t + cap_infos, 0, (size_t)(c - cap_infos) * sizeof *t);
    infos = t;
    cap_infos = c;
    return MPI_SUCCESS;
}

static int add(struct face_info *f, MPI_Info *out)
{
    int slot = -1;
    for (int i = MPI_INFO_ENV + 1; i < ninfos && slot < 0; i++)
        if (!infos[i])
            slot = i;
    if (slot < 0) {
        if (grow())
            return MPI_ERR_NO_MEM;
        slot = ninfos++;
    }
    infos[slot] = f;
    *out = slot;
    return MPI_SUCCESS;
}

/* MPI_INFO_ENV, made at first use. */
static struct face_info *env_info(void)
{
    if (cap_infos > MPI_INFO_ENV && infos[MPI_INFO_ENV])
        return infos[MPI_INFO_ENV];
    struct face_info *f = calloc(1, sizeof *f);
    if (!f || grow()) {
        free(f);
        return NULL;
    }
    infos[MPI_INFO_ENV] = f;
    char buf[4096];
    int size = 1;
    FILE *cmd = fopen("/proc/self/cmdline", "r");
    if (cmd) {
        size_t n = fread(buf, 1, sizeof buf - 1, cmd);
        buf[n] = 0;
        fclose(cmd);
        if (buf[0])
            put(f, "command", buf);
    }
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    snprintf(buf, sizeof buf, "%d", size);
    put(f, "maxprocs", buf);
    put(f, "host", bolt_hostname());
    if (getcwd(buf, sizeof buf))
        put(f, "wdir", buf);
    f->live = f->readonly = 1;
    return f;
}

int face_info_live(MPI_Info info)
{
    return info == MPI_INFO_ENV || (info > MPI_INFO_ENV && info < ninfos && infos[info] &&
                                    infos[info]->live);
}

/* Checks an info handle; writable asks for a user-made one. */
static int info_check(MPI_Info info, int writable, const char *fn, struct face_info **out)
{
    int rc = face_check_init(fn);
    if (rc)
        return rc;
    struct face_info *f = NULL;
    if (info == MPI_INFO_ENV)
        f = env_info();
    else if (info > MPI_INFO_ENV && info < ninfos && infos[info] && infos[info]->live)
        f = infos[info];
    if (!f)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_INFO,
                          info == MPI_INFO_NULL ? "the info is MPI_INFO_NULL"
                                                : "info handle %d is not a live info object (freed?)",
                          info);
    if (writable && f->readonly)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_INFO,
                          "MPI_INFO_ENV is read-only: MPI_Info_dup it to get a copy to change");
    *out = f;
    return MPI_SUCCESS;
}

static int check_key(const char *key, const char *fn)
{
    if (!key)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_INFO_KEY, "key is NULL");
    size_t n = strlen(key);
    if (n == 0 || n > MPI_MAX_INFO_KEY)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_INFO_KEY,
                          "key of %zu characters: keys have 1 to MPI_MAX_INFO_KEY (%d)", n,
                          MPI_MAX_INFO_KEY);
    return MPI_SUCCESS;
}

int PMPI_Info_create(MPI_Info *info)
{
    int rc = face_check_init("MPI_Info_create");
    if (rc)
        return rc;
    if (!info)
        return face_error(MPI_COMM_NULL, "MPI_Info_create", MPI_ERR_ARG, "info pointer is NULL");
    if (!env_info())
        return face_error(MPI_COMM_NULL, "MPI_Info_create", MPI_ERR_NO_MEM, "out of memory");
    struct face_info *f = calloc(1, sizeof *f);
    if (!f || add(f, info)) {
        free(f);
        return face_error(MPI_COMM_NULL, "MPI_Info_create", MPI_ERR_NO_MEM, "out of memory");
    }
    f->live = 1;
    return MPI_SUCCESS;
}

int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    const char *fn = "MPI_Info_set";
    struct face_info *f;
    int rc = info_check(info, 1, fn, &f);
    if (rc || (rc = check_key(key, fn)))
        return rc;
    if (!value)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_INFO_VALUE, "value is NULL");
    size_t n = strlen(value);
    if (n == 0 || n > MPI_MAX_INFO_VAL)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_INFO_VALUE,
                          "value of %zu characters for key '%s': values have 1 to "
                          "MPI_MAX_INFO_VAL (%d)", n, key, MPI_MAX_INFO_VAL);
    if (put(f, key, value))
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_NO_MEM, "out of memory");
    return MPI_SUCCESS;
}

int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    const char *fn = "MPI_Info_get";
    struct face_info *f;
    int rc = info_check(info, 0, fn, &f);
    if (rc || (rc = check_key(key, fn)))
        return rc;
    if (valuelen < 0 || !value || !flag)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG,
                          "valuelen = %d is negative, or value or flag is NULL", valuelen);
    int i = find(f, key);
    *flag = i >= 0;
    if (i >= 0) {
        /* value has room for valuelen characters and the terminating NUL. */
        size_t n = strlen(f->vals[i]);
        if (n > (size_t)valuelen)
            n = (size_t)valuelen;
        memcpy(value, f->vals[i], n);
        value[n] = 0;
    }
    return MPI_SUCCESS;
}

int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    const char *fn = "MPI_Info_get_valuelen";
    struct face_info *f;
    int rc = info_check(info, 0, fn, &f);
    if (rc || (rc = check_key(key, fn)))
        return rc;
    if (!valuelen || !flag)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "valuelen or flag pointer is NULL");
    int i = find(f, key);
    *flag = i >= 0;
    if (i >= 0)
        *valuelen = (int)strlen(f->vals[i]);
    return MPI_SUCCESS;
}

int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    struct face_info *f;
    int rc = info_check(info, 0, "MPI_Info_get_nkeys", &f);
    if (rc)
        return rc;
    if (!nkeys)
        return face_error(MPI_COMM_NULL, "MPI_Info_get_nkeys", MPI_ERR_ARG, "nkeys pointer is NULL");
    *nkeys = f->n;
    return MPI_SUCCESS;
}

int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    const char *fn = "MPI_Info_get_nthkey";
    struct face_info *f;
    int rc = info_check(info, 0, fn, &f);
    if (rc)
        return rc;
    if (n < 0 || n >= f->n)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG,
                          "n = %d is out of range: the info has %d key%s (0..%d)", n, f->n,
                          f->n == 1 ? "" : "s", f->n - 1);
    if (!key)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "key pointer is NULL");
    snprintf(key, MPI_MAX_INFO_KEY + 1, "%s", f->keys[n]);
    return MPI_SUCCESS;
}

int PMPI_Info_delete(MPI_Info info, const char *key)
{
    const char *fn = "MPI_Info_delete";
    struct face_info *f;
    int rc = info_check(info, 1, fn, &f);
    if (rc || (rc = check_key(key, fn)))
        return rc;
    int i = find(f, key);
    if (i < 0)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_INFO_NOKEY, "the info has no key '%s'", key);
    free(f->keys[i]);
    free(f->vals[i]);
    memmove(f->keys + i, f->keys + i + 1, (size_t)(f->n - i - 1) * sizeof *f->keys);
    memmove(f->vals + i, f->vals + i + 1, (size_t)(f->n - i - 1) * sizeof *f->vals);
    f->n--;
    return MPI_SUCCESS;
}

int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    const char *fn = "MPI_Info_dup";
    struct face_info *f;
    int rc = info_check(info, 0, fn, &f);
    if (rc)
        return rc;
    if (!newinfo)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "newinfo pointer is NULL");
    struct face_info *d = calloc(1, sizeof *d);
    rc = d ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    for (int i = 0; i < f->n && !rc; i++)
        rc = put(d, f->keys[i], f->vals[i]);
    if (!rc)
        rc = add(d, newinfo);
    if (rc) {
        info_destroy(d);
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_NO_MEM, "out of memory");
    }
    d->live = 1;
    return MPI_SUCCESS;
}

int PMPI_Info_free(MPI_Info *info)
{
    struct face_info *f;
    if (!info)
        return face_error(MPI_COMM_NULL, "MPI_Info_free", MPI_ERR_ARG, "info pointer is NULL");
    int rc = info_check(*info, 1, "MPI_Info_free", &f);
    if (rc)
        return rc;
    info_destroy(f);
    infos[*info] = NULL;
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}
