/* attr.c — attributes and their keyvals, for every kind of object that
 * carries them (communicators, datatypes; windows' keyvals, for no window
 * exists yet): one table of keyvals, each made
 * for one kind, and the lists of values on the objects. The callbacks of
 * each kind have the same C signature (handles are ints), so one table
 * holds them all. Errors that callbacks return come back to the caller, as
 * MPI 3.1 (6.7.2) asks. */
#include <stdlib.h>
#include <string.h>

#include "mpi/face.h"

/* Keyvals below this are predefined (MPI_TAG_UB, ..., the window ones). */
#define FIRST_USER_KEYVAL 100

struct keyval {
    int live;
    int kind;
    face_attr_copy_fn *copy_fn;
    face_attr_delete_fn *delete_fn;
    void *extra;
};
static struct keyval *keyvals;
static int nkeyvals = FIRST_USER_KEYVAL, cap_keyvals;

static const char *const KIND_NAMES[] = {[FACE_ATTR_COMM] = "communicators",
                                         [FACE_ATTR_TYPE] = "datatypes",
                                         [FACE_ATTR_WIN] = "windows"};
static const char *const CREATORS[] = {[FACE_ATTR_COMM] = "MPI_Comm_create_keyval",
                                       [FACE_ATTR_TYPE] = "MPI_Type_create_keyval",
                                       [FACE_ATTR_WIN] = "MPI_Win_create_keyval"};

int face_keyval_create(int kind, face_attr_copy_fn *copy_fn, face_attr_delete_fn *delete_fn,
                       void *extra, int *keyval, const char *fn)
{
    int rc = face_check_init(fn);
    if (rc)
        return rc;
    if (!keyval)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "keyval pointer is NULL");
    if (nkeyvals >= cap_keyvals) {
        int n = nkeyvals * 2;
        struct keyval *k = realloc(keyvals, (size_t)n * sizeof *k);
        if (!k)
            return face_error(MPI_COMM_NULL, fn, MPI_ERR_NO_MEM, "out of memory");
        memset(k + cap_keyvals, 0, (size_t)(n - cap_keyvals) * sizeof *k);
        keyvals = k;
        cap_keyvals = n;
    }
    keyvals[nkeyvals] = (struct keyval){1, kind, copy_fn, delete_fn, extra};
    *keyval = nkeyvals++;
    return MPI_SUCCESS;
}

static int user_keyval(int kind, int keyval)
{
    return keyval >= FIRST_USER_KEYVAL && keyval < nkeyvals && keyvals[keyval].kind == kind;
}

int face_keyval_free(int kind, int *keyval, const char *fn)
{
    if (!keyval || !user_keyval(kind, *keyval) || !keyvals[*keyval].live)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_KEYVAL,
                          "keyval %d was not created by %s (or is freed)", keyval ? *keyval : -1,
                          CREATORS[kind]);
    /* Attributes already set keep their keyval's functions; only new uses are refused. */
    keyvals[*keyval].live = 0;
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

/* keyval is not a user keyval of `kind`: says what it is instead. */
static int bad_keyval(int kind, int keyval, MPI_Comm errcomm, const char *fn)
{
    if (keyval >= FIRST_USER_KEYVAL && keyval < nkeyvals && keyvals[keyval].kind != kind)
        return face_error(errcomm, fn, MPI_ERR_KEYVAL,
                          "keyval %d was made for %s by %s, not for %s", keyval,
                          KIND_NAMES[keyvals[keyval].kind], CREATORS[keyvals[keyval].kind],
                          KIND_NAMES[kind]);
    return face_error(errcomm, fn, MPI_ERR_KEYVAL,
                      kind == FACE_ATTR_COMM && keyval >= MPI_TAG_UB && keyval <= MPI_LASTUSEDCODE
                          ? "keyval %d is predefined and read-only"
                          : "keyval %d was not created by %s",
                      keyval, CREATORS[kind]);
}

/* A keyval that may be set or deleted: a live user one of this kind. */
static int check_settable(int kind, int keyval, MPI_Comm errcomm, const char *fn)
{
    if (user_keyval(kind, keyval) && keyvals[keyval].live)
        return MPI_SUCCESS;
    if (user_keyval(kind, keyval))
        return face_error(errcomm, fn, MPI_ERR_KEYVAL, "keyval %d is freed", keyval);
    return bad_keyval(kind, keyval, errcomm, fn);
}

static int call_delete(int h, const struct face_attr *a)
{
    const struct keyval *k = &keyvals[a->keyval];
    return k->delete_fn ? k->delete_fn(h, a->keyval, a->value, k->extra) : MPI_SUCCESS;
}

int face_attr_set(int kind, int h, struct face_attr **list, int keyval, void *value,
                  MPI_Comm errcomm, const char *fn)
{
    int rc = check_settable(kind, keyval, errcomm, fn);
    if (rc)
        return rc;
    for (struct face_attr *a = *list; a; a = a->next)
        if (a->keyval == keyval) {
            /* The old value goes first; if its delete callback fails, it stays. */
            if ((rc = call_delete(h, a)))
                return face_error(errcomm, fn, rc,
                                  "the delete callback of the value replaced failed (it returned "
                                  "%d)", rc);
            a->value = value;
            return MPI_SUCCESS;
        }
    struct face_attr *a = malloc(sizeof *a);
    if (!a)
        return face_error(errcomm, fn, MPI_ERR_NO_MEM, "out of memory");
    *a = (struct face_attr){keyval, value, *list};
    *list = a;
    return MPI_SUCCESS;
}

int face_attr_get(int kind, const struct face_attr *list, int keyval, void *value, int *flag,
                  MPI_Comm errcomm, const char *fn)
{
    if (!value || !flag)
        return face_error(errcomm, fn, MPI_ERR_ARG, "value or flag pointer is NULL");
    /* A freed keyval may still be asked about: attributes set with it stay. */
    if (!user_keyval(kind, keyval))
        return bad_keyval(kind, keyval, errcomm, fn);
    *flag = 0;
    for (const struct face_attr *a = list; a; a = a->next)
        if (a->keyval == keyval) {
            *flag = 1;
            memcpy(value, &a->value, sizeof a->value); /* value points at a void * */
        }
    return MPI_SUCCESS;
}

int face_attr_delete(int kind, int h, struct face_attr **list, int keyval, MPI_Comm errcomm,
                     const char *fn)
{
    int rc = check_settable(kind, keyval, errcomm, fn);
    if (rc)
        return rc;
    for (struct face_attr **p = list; *p; p = &(*p)->next)
        if ((*p)->keyval == keyval) {
            struct face_attr *a = *p;
            if ((rc = call_delete(h, a)))
                return face_error(errcomm, fn, rc, "the delete callback failed (it returned %d)",
                                  rc);
            *p = a->next;
            free(a);
            return MPI_SUCCESS;
        }
    return face_error(errcomm, fn, MPI_ERR_KEYVAL, "keyval %d has no attribute on this object",
                      keyval);
}

int face_attrs_copy(int from, const struct face_attr *src, struct face_attr **dst)
{
    for (const struct face_attr *a = src; a; a = a->next) {
        const struct keyval *k = &keyvals[a->keyval];
        void *out = NULL;
        int flag = 0;
        if (k->copy_fn) { /* none: the NULL_COPY_FN, not copied */
            int rc = k->copy_fn(from, a->keyval, k->extra, a->value, &out, &flag);
            if (rc)
                return rc;
        }
        if (!flag)
            continue;
        struct face_attr *n = malloc(sizeof *n);
        if (!n)
            return MPI_ERR_NO_MEM;
        *n = (struct face_attr){a->keyval, out, *dst};
        *dst = n;
    }
    return MPI_SUCCESS;
}

int face_attrs_delete(int h, struct face_attr **list, int force)
{
    int first = MPI_SUCCESS;
    while (*list) {
        struct face_attr *a = *list;
        int rc = call_delete(h, a);
        if (rc && !first)
            first = rc;
        if (rc && !force)
            break;
        *list = a->next;
        free(a);
    }
    return first;
}

void face_attrs_free(struct face_attr **list)
{
    while (*list) {
        struct face_attr *a = *list;
        *list = a->next;
        free(a);
    }
}
