/* fsupport.c — libmpifort's own parts: the sentinels, strings, attribute
 * callback trampolines, the predefined Fortran callbacks and the routines
 * that are not in mpi_functions.h's table (Wtime, Wtick, Aint_add, ...). */
#include "fortran.h"

#include <dlfcn.h>
#include <stdio.h>

/* ---- sentinels ------------------------------------------------------------------ */
/* mpif.h's common blocks /BOLT_MPI_BOTTOM/, ... are these symbols (gfortran
 * names a common block in lower case with an underscore). On ELF the
 * program's commons and these definitions are one symbol, so defining them
 * here makes every object agree. macOS's linker would keep the program's
 * commons apart from a dylib's definition (or refuse the link): there the
 * program's own are found by name at start. */
#define F_SENTINELS(X)                                                           \
    X(bottom, bolt_mpi_bottom_, MPI_Fint, 1)                                     \
    X(in_place, bolt_mpi_in_place_, MPI_Fint, 1)                                 \
    X(status_ignore, bolt_mpi_status_ignore_, MPI_Fint, sizeof(MPI_Status) / sizeof(MPI_Fint)) \
    X(statuses_ignore, bolt_mpi_statuses_ignore_, MPI_Fint, sizeof(MPI_Status) / sizeof(MPI_Fint)) \
    X(errcodes_ignore, bolt_mpi_errcodes_ignore_, MPI_Fint, 1)                   \
    X(unweighted, bolt_mpi_unweighted_, MPI_Fint, 1)                             \
    X(weights_empty, bolt_mpi_weights_empty_, MPI_Fint, 1)                       \
    X(argv_null, bolt_mpi_argv_null_, char, 1)                                   \
    X(argvs_null, bolt_mpi_argvs_null_, char, 1)

#ifndef __APPLE__
#pragma GCC visibility push(default)
#define F_DEFINE(field, sym, type, n) type sym[n];
F_SENTINELS(F_DEFINE)
#pragma GCC visibility pop
#define F_OWN(field, sym, type, n) .field = sym,
struct f_sentinels f_sent = {F_SENTINELS(F_OWN)};
#else
struct f_sentinels f_sent;
#endif
int f_sent_ready;

void f_sentinels_init(void)
{
#define F_FIND(field, sym, type, n)                     \
    {                                                   \
        void *p = dlsym(RTLD_DEFAULT, #sym);            \
        if (p)                                          \
            f_sent.field = p;                           \
    }
    F_SENTINELS(F_FIND)
    f_sent_ready = 1;
}

/* ---- strings and errors ---------------------------------------------------------------- */
char *f_str_in(const char *s, size_t len, int strip_leading)
{
    while (len > 0 && s[len - 1] == ' ')
        len--;
    while (strip_leading && len > 0 && *s == ' ')
        s++, len--;
    char *c = malloc(len + 1);
    if (c) {
        memcpy(c, s, len);
        c[len] = 0;
    }
    return c;
}

void f_str_out(const char *c, char *f, size_t len)
{
    size_t n = strlen(c);
    if (n > len)
        n = len;
    memcpy(f, c, n);
    memset(f + n, ' ', len - n);
}

int f_nomem(const char *fn)
{
    fprintf(stderr, "%s (Fortran): out of memory for a copy of an argument\n", fn);
    PMPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
    return MPI_ERR_NO_MEM;
}

/* ---- attribute callbacks ------------------------------------------------------------- */
/* MPI 3.1's Fortran callbacks (INTEGER(KIND=MPI_ADDRESS_KIND) values) and
 * MPI-1's (INTEGER values, MPI_KEYVAL_CREATE). */
typedef void f_copy_fn(MPI_Fint *old, MPI_Fint *keyval, MPI_Aint *extra, MPI_Aint *in, MPI_Aint *out,
                       MPI_Fint *flag, MPI_Fint *ierr);
typedef void f_delete_fn(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *value, MPI_Aint *extra, MPI_Fint *ierr);
typedef void f_copy1_fn(MPI_Fint *old, MPI_Fint *keyval, MPI_Fint *extra, MPI_Fint *in, MPI_Fint *out,
                        MPI_Fint *flag, MPI_Fint *ierr);
typedef void f_delete1_fn(MPI_Fint *obj, MPI_Fint *keyval, MPI_Fint *value, MPI_Fint *extra, MPI_Fint *ierr);

/* The predefined Fortran callbacks (mpif.h's EXTERNALs): what the standard
 * says they do, should a program call them itself. */
#pragma GCC visibility push(default)
#define F_NULL_COPY(name, vt)                                                                  \
    void name(MPI_Fint *old, MPI_Fint *keyval, vt *extra, vt *in, vt *out, MPI_Fint *flag,     \
              MPI_Fint *ierr)                                                                  \
    {                                                                                          \
        *flag = F_FALSE;                                                                       \
        *ierr = MPI_SUCCESS;                                                                   \
    }
#define F_DUP(name, vt)                                                                        \
    void name(MPI_Fint *old, MPI_Fint *keyval, vt *extra, vt *in, vt *out, MPI_Fint *flag,     \
              MPI_Fint *ierr)                                                                  \
    {                                                                                          \
        *out = *in;                                                                            \
        *flag = F_TRUE;                                                                        \
        *ierr = MPI_SUCCESS;                                                                   \
    }
#define F_NULL_DELETE(name, vt)                                                                \
    void name(MPI_Fint *obj, MPI_Fint *keyval, vt *value, vt *extra, MPI_Fint *ierr)           \
    {                                                                                          \
        *ierr = MPI_SUCCESS;                                                                   \
    }
F_NULL_COPY(mpi_comm_null_copy_fn_, MPI_Aint)
F_NULL_COPY(mpi_type_null_copy_fn_, MPI_Aint)
F_NULL_COPY(mpi_win_null_copy_fn_, MPI_Aint)
F_NULL_COPY(mpi_null_copy_fn_, MPI_Fint)
F_DUP(mpi_comm_dup_fn_, MPI_Aint)
F_DUP(mpi_type_dup_fn_, MPI_Aint)
F_DUP(mpi_win_dup_fn_, MPI_Aint)
F_DUP(mpi_dup_fn_, MPI_Fint)
F_NULL_DELETE(mpi_comm_null_delete_fn_, MPI_Aint)
F_NULL_DELETE(mpi_type_null_delete_fn_, MPI_Aint)
F_NULL_DELETE(mpi_win_null_delete_fn_, MPI_Aint)
F_NULL_DELETE(mpi_null_delete_fn_, MPI_Fint)
#pragma GCC visibility pop

/* A Fortran keyval's callbacks: C's extra_state for its trampolines. Kept
 * until MPI_Finalize (attributes outlive a freed keyval). */
struct f_attr_rec {
    f_proc *copy, *del; /* NULL: C's predefined one is registered instead */
    MPI_Aint extra;
    int mpi1;
    struct f_attr_rec *next;
};
static struct f_attr_rec *f_attr_recs;

/* Handles of every kind are ints: one trampoline serves comms, types, windows. */
static int f_copy_tramp(MPI_Comm old, int keyval, void *extra, void *in, void *out, int *flag)
{
    struct f_attr_rec *r = extra;
    MPI_Fint fold = old, fkey = keyval, fflag = F_FALSE, ierr = MPI_SUCCESS;
    if (r->mpi1) {
        MPI_Fint fextra = (MPI_Fint)r->extra, fin = (MPI_Fint)(MPI_Aint)in, fout = 0;
        ((f_copy1_fn *)r->copy)(&fold, &fkey, &fextra, &fin, &fout, &fflag, &ierr);
        if (fflag != F_FALSE)
            *(void **)out = (void *)(MPI_Aint)fout;
    } else {
        MPI_Aint fin = (MPI_Aint)in, fout = 0;
        ((f_copy_fn *)r->copy)(&fold, &fkey, &r->extra, &fin, &fout, &fflag, &ierr);
        if (fflag != F_FALSE)
            *(void **)out = (void *)fout;
    }
    *flag = fflag != F_FALSE;
    return ierr;
}

static int f_delete_tramp(MPI_Comm obj, int keyval, void *value, void *extra)
{
    struct f_attr_rec *r = extra;
    MPI_Fint fobj = obj, fkey = keyval, ierr = MPI_SUCCESS;
    if (r->mpi1) {
        MPI_Fint fval = (MPI_Fint)(MPI_Aint)value, fextra = (MPI_Fint)r->extra;
        ((f_delete1_fn *)r->del)(&fobj, &fkey, &fval, &fextra, &ierr);
    } else {
        MPI_Aint fval = (MPI_Aint)value;
        ((f_delete_fn *)r->del)(&fobj, &fkey, &fval, &r->extra, &ierr);
    }
    return ierr;
}

#define F_IS(p, fn) ((p) == (f_proc *)(fn))

int f_attr_fns_make(f_proc *copy, f_proc *del, MPI_Aint extra, int mpi1, struct f_attr_fns *out)
{
    int rc = MPI_SUCCESS;
    /* The predefined procedures become C's own: nothing to call back. Any
     * kind's is taken (they do the same for every kind). */
    int null_copy = F_IS(copy, mpi_comm_null_copy_fn_) || F_IS(copy, mpi_type_null_copy_fn_) ||
                    F_IS(copy, mpi_win_null_copy_fn_) || F_IS(copy, mpi_null_copy_fn_);
    int dup = F_IS(copy, mpi_comm_dup_fn_) || F_IS(copy, mpi_type_dup_fn_) || F_IS(copy, mpi_win_dup_fn_) ||
              F_IS(copy, mpi_dup_fn_);
    int null_del = F_IS(del, mpi_comm_null_delete_fn_) || F_IS(del, mpi_type_null_delete_fn_) ||
                   F_IS(del, mpi_win_null_delete_fn_) || F_IS(del, mpi_null_delete_fn_);
    out->copy = null_copy ? MPI_COMM_NULL_COPY_FN : dup ? MPI_COMM_DUP_FN : f_copy_tramp;
    out->del = null_del ? MPI_COMM_NULL_DELETE_FN : f_delete_tramp;
    out->extra = (void *)extra;
    out->made = 0;
    if (out->copy == f_copy_tramp || out->del == f_delete_tramp) {
        struct f_attr_rec *r = malloc(sizeof *r);
        if (!r) {
            rc = MPI_ERR_NO_MEM;
        } else {
            *r = (struct f_attr_rec){copy, del, extra, mpi1, f_attr_recs};
            f_attr_recs = r;
            out->extra = r;
            out->made = 1;
        }
    }
    return rc;
}

void f_attr_fns_drop(struct f_attr_fns *fns)
{
    if (fns->made && fns->extra == f_attr_recs) { /* the last one made */
        struct f_attr_rec *r = f_attr_recs;
        f_attr_recs = r->next;
        free(r);
    }
}

void f_attr_fns_free_all(void)
{
    while (f_attr_recs) {
        struct f_attr_rec *r = f_attr_recs;
        f_attr_recs = r->next;
        free(r);
    }
}

MPI_Aint f_comm_attr_value(int keyval, void *v)
{
    switch (keyval) {
    case MPI_TAG_UB:
    case MPI_HOST:
    case MPI_IO:
    case MPI_WTIME_IS_GLOBAL:
    case MPI_UNIVERSE_SIZE:
    case MPI_APPNUM:
    case MPI_LASTUSEDCODE:
        return *(int *)v;
    default:
        return (MPI_Aint)v;
    }
}

/* ---- argument vectors ------------------------------------------------------------------ */
int f_argv_in(const char *a, size_t len, size_t stride, char ***out)
{
    size_t n = 0;
    int rc = MPI_SUCCESS;
    *out = NULL;
    if ((const void *)a == f_sentinels()->argv_null || (const void *)a == f_sent.argvs_null)
        return MPI_SUCCESS;
    for (;;) { /* entries up to the first blank one */
        const char *e = a + n * stride * len;
        size_t k = 0;
        while (k < len && e[k] == ' ')
            k++;
        if (k == len)
            break;
        n++;
    }
    char **argv = calloc(n + 1, sizeof *argv);
    for (size_t j = 0; argv && j < n; j++)
        if (!(argv[j] = f_str_in(a + j * stride * len, len, 1)))
            rc = MPI_ERR_NO_MEM;
    if (!argv)
        rc = MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS)
        f_argv_free(argv);
    else
        *out = argv;
    return rc;
}

void f_argv_free(char **argv)
{
    for (size_t j = 0; argv && argv[j]; j++)
        free(argv[j]);
    free(argv);
}

/* ---- routines outside mpi_functions.h ----------------------------------------------------- */
#pragma GCC visibility push(default)
double mpi_wtime_(void) { return MPI_Wtime(); }
double pmpi_wtime_(void) { return PMPI_Wtime(); }
double mpi_wtick_(void) { return MPI_Wtick(); }
double pmpi_wtick_(void) { return PMPI_Wtick(); }
MPI_Aint mpi_aint_add_(MPI_Aint *base, MPI_Aint *disp) { return MPI_Aint_add(*base, *disp); }
MPI_Aint pmpi_aint_add_(MPI_Aint *base, MPI_Aint *disp) { return PMPI_Aint_add(*base, *disp); }
MPI_Aint mpi_aint_diff_(MPI_Aint *a, MPI_Aint *b) { return MPI_Aint_diff(*a, *b); }
MPI_Aint pmpi_aint_diff_(MPI_Aint *a, MPI_Aint *b) { return PMPI_Aint_diff(*a, *b); }
/* MPI_PCONTROL(LEVEL): no IERROR in Fortran. */
void mpi_pcontrol_(MPI_Fint *level) { MPI_Pcontrol(*level); }
void pmpi_pcontrol_(MPI_Fint *level) { PMPI_Pcontrol(*level); }
/* MPI_SIZEOF(X, SIZE, IERROR), through the mpi module's generic interface:
 * x is a C descriptor (Fortran 2018's CFI_cdesc_t, whose first members are
 * the standard's: base_addr, then elem_len, the size of one element). */
struct f_cdesc {
    void *base_addr;
    size_t elem_len;
};
void bolt_mpi_sizeof(const struct f_cdesc *x, MPI_Fint *size, MPI_Fint *ierr)
{
    *size = (MPI_Fint)x->elem_len;
    *ierr = MPI_SUCCESS;
}
/* MPI_F_SYNC_REG(BUF): makes the compiler assume buf changed; the call
 * itself is that (MPI 3.1 section 17.1.8). */
void mpi_f_sync_reg_(void *buf) { (void)buf; }
void pmpi_f_sync_reg_(void *buf) { (void)buf; }
#pragma GCC visibility pop
