/*
 * mpit.h — the tools information interface's private parts (mpit.c,
 * mpit_cvar.c, mpit_pvar.c): its initialization count, its way with
 * strings, and the categories every variable belongs to.
 */
#ifndef BOLT_MPI_MPIT_H
#define BOLT_MPI_MPIT_H

#include "mpi/face.h"

#pragma GCC visibility push(hidden)

/* MPI_T_init_thread calls not yet matched by MPI_T_finalize. The interface
 * works outside MPI_Init/MPI_Finalize too, and never calls error handlers:
 * its functions return their codes. */
extern int mpit_inits;
static inline int mpit_check(void)
{
    return mpit_inits > 0 ? MPI_SUCCESS : MPI_T_ERR_NOT_INITIALIZED;
}

/* Copies src to dst as MPI_T returns strings (MPI 3.1, 14.3.3): with a NULL
 * dst or *len 0, only *len is set, to the length the string needs (with its
 * null); else at most *len - 1 characters and a null, and *len the number
 * written with the null. len NULL: nothing. */
void mpit_string(char *dst, int *len, const char *src);

/* Categories: "bolt" holds the others, which hold the variables. */
enum mpit_category {
    MPIT_CAT_BOLT,
    MPIT_CAT_RUNTIME,
    MPIT_CAT_SHM,
    MPIT_CAT_TCP,
    MPIT_CAT_RDMA,
    MPIT_CAT_COLL,
    MPIT_CAT_LAUNCHER,
    MPIT_CAT_MATCHING,
    MPIT_CAT_TRAFFIC,
    MPIT_NCATS
};
int mpit_ncvars(void);
int mpit_cvar_category(int index);
int mpit_npvars(void);
int mpit_pvar_category(int index);

/* At the last MPI_T_finalize: every handle and session goes. */
void mpit_cvars_finalize(void);
void mpit_pvars_finalize(void);

#pragma GCC visibility pop

#endif
