/* errclass.c — error classes and codes added at run time (MPI 3.1, 8.5):
 * MPI_Add_error_class, MPI_Add_error_code and MPI_Add_error_string. They take
 * the values after MPI_ERR_LASTCODE, in order; MPI_Error_class and
 * MPI_Error_string answer for them, error handlers receive them like the
 * predefined ones, and the MPI_LASTUSEDCODE attribute follows the largest. */
#include <stdlib.h>
#include <string.h>

#include "mpi/face.h"

struct added {
    int cls;      /* a class is its own class */
    char *string; /* NULL until MPI_Add_error_string */
};
static struct added *added; /* added[i] is value MPI_ERR_LASTCODE + 1 + i */
static int nadded, cap_added;
int face_lastusedcode = MPI_ERR_LASTCODE;

static struct added *find(int code)
{
    int i = code - (MPI_ERR_LASTCODE + 1);
    return i >= 0 && i < nadded ? &added[i] : NULL;
}

int face_errcode_class(int code)
{
    struct added *a = find(code);
    return a ? a->cls : -1;
}

const char *face_errcode_string(int code)
{
    struct added *a = find(code);
    return a && a->string ? a->string : "";
}

void face_errcodes_finalize(void)
{
    for (int i = 0; i < nadded; i++)
        free(added[i].string);
    free(added);
    added = NULL;
    nadded = cap_added = 0;
    face_lastusedcode = MPI_ERR_LASTCODE;
}

/* A new value of class cls (-1: a new class, its own). */
static int add(int cls, int *out, const char *fn)
{
    if (nadded == cap_added) {
        int n = cap_added ? cap_added * 2 : 16;
        struct added *t = realloc(added, (size_t)n * sizeof *t);
        if (!t)
            return face_error(MPI_COMM_NULL, fn, MPI_ERR_NO_MEM, "out of memory for %d error codes",
                              nadded + 1);
        added = t;
        cap_added = n;
    }
    int value = MPI_ERR_LASTCODE + 1 + nadded;
    added[nadded++] = (struct added){cls < 0 ? value : cls, NULL};
    face_lastusedcode = value;
    *out = value;
    return MPI_SUCCESS;
}

int PMPI_Add_error_class(int *errorclass)
{
    const char *fn = "MPI_Add_error_class";
    int rc = face_check_init(fn);
    if (rc)
        return rc;
    if (!errorclass)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "errorclass pointer is NULL");
    return add(-1, errorclass, fn);
}

int PMPI_Add_error_code(int errorclass, int *errorcode)
{
    const char *fn = "MPI_Add_error_code";
    int rc = face_check_init(fn);
    if (rc)
        return rc;
    if (!errorcode)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "errorcode pointer is NULL");
    /* A predefined class other than MPI_SUCCESS, or a class the program added
     * (not a code: codes have classes, not codes of their own). */
    int ok = (errorclass > MPI_SUCCESS && errorclass < MPI_ERR_LASTCODE) ||
             face_errcode_class(errorclass) == errorclass;
    if (!ok)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG,
                          "%d is not an error class: use a predefined class (1..%d) or one made "
                          "by MPI_Add_error_class",
                          errorclass, MPI_ERR_LASTCODE - 1);
    return add(errorclass, errorcode, fn);
}

int PMPI_Add_error_string(int errorcode, const char *string)
{
    const char *fn = "MPI_Add_error_string";
    int rc = face_check_init(fn);
    if (rc)
        return rc;
    struct added *a = find(errorcode);
    if (!a)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG,
                          "%d is not an error class or code added by the program: only those "
                          "take strings (the predefined ones keep theirs)",
                          errorcode);
    if (!string || strlen(string) >= MPI_MAX_ERROR_STRING)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG,
                          string ? "the string is %zu characters: MPI_MAX_ERROR_STRING (%d) "
                                   "includes the terminating null"
                                 : "the string is NULL",
                          string ? strlen(string) : (size_t)0, MPI_MAX_ERROR_STRING);
    char *copy = strdup(string);
    if (!copy)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_NO_MEM, "out of memory");
    free(a->string); /* a later call replaces the string */
    a->string = copy;
    return MPI_SUCCESS;
}
