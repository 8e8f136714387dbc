/* profile.c — the entry points. MPI_X calls its PMPI_ twin, so a profiling
 * tool that defines MPI_X itself (and calls PMPI_X) is called instead; PMPI_X
 * calls the face's face_impl_X, under the runtime lock once MPI_Init_thread
 * has granted MPI_THREAD_MULTIPLE (one relaxed load otherwise). */
#include "mpi.h"
#include "runtime/thread.h"

#pragma GCC visibility push(hidden)
#define BOLT_MPI_FN(name, params, args) int face_impl_##name params;
#include "mpi_functions.h"
#undef BOLT_MPI_FN
#pragma GCC visibility pop

#define BOLT_MPI_FN(name, params, args)                                  \
    int PMPI_##name params                                               \
    {                                                                    \
        if (!atomic_load_explicit(&bolt_lock_on, memory_order_relaxed)) \
            return face_impl_##name args;                                \
        bolt_lock_take();                                                \
        int rc = face_impl_##name args;                                  \
        bolt_lock_release();                                             \
        return rc;                                                       \
    }                                                                    \
    int MPI_##name params { return PMPI_##name args; }
#include "mpi_functions.h"
#undef BOLT_MPI_FN
