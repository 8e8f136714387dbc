/* profile.c — the MPI_ names: each calls its PMPI_ twin, so a profiling
 * tool that defines MPI_X itself (and calls PMPI_X) is called instead. */
#include "mpi.h"

#define BOLT_MPI_FN(name, params, args) \
    int MPI_##name params { return PMPI_##name args; }
#include "mpi_functions.h"
#undef BOLT_MPI_FN
