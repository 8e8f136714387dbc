/* env.c — MPI environment management: init, finalize, versions, clocks. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpi/coll.h"
#include "mpi/rma.h"
#include "runtime/config.h"
#include "runtime/thread.h"

int face_initialized, face_finalized;
static int thread_level;
static pthread_t main_thread;

int face_check_init_slow(const char *fn)
{
    if (face_initialized && !face_finalized)
        return MPI_SUCCESS;
    /* No communicator, no handler: the standard says such calls are erroneous;
     * say so clearly rather than crash. */
    fprintf(stderr, "%s: called %s MPI_Init: every MPI call but a few must come between "
                    "MPI_Init and MPI_Finalize\n",
            fn, face_finalized ? "after MPI_Finalize, outside" : "before");
    return MPI_ERR_OTHER;
}

/* MPI_Init failed. No communicator exists yet to carry another handler, so
 * MPI_ERRORS_ARE_FATAL, the default, applies: the job ends here with the
 * cause, as in Open MPI and MPICH, instead of the program carrying on
 * without MPI (and dying later of something unrelated). */
static int init_failed(const char *fn, int cls, const char *why)
{
    char msg[1024];
    snprintf(msg, sizeof msg, "%s: %s", fn, why);
    fprintf(stderr, "%s\n%s: MPI_ERRORS_ARE_FATAL (the default) applies: ending the job\n", msg,
            fn);
    fflush(stderr);
    bolt_abort(cls, msg);
    return cls; /* not reached */
}

static int do_init(int *argc, char ***argv, const char *fn)
{
    if (face_initialized || face_finalized) {
        /* Before MPI_Finalize, the world's handler decides. */
        if (face_initialized && !face_finalized)
            return face_error(MPI_COMM_NULL, fn, MPI_ERR_OTHER,
                              "MPI is already initialized: it can be initialized once per process");
        return init_failed(fn, MPI_ERR_OTHER,
                           "MPI is already finalized: it can be initialized once per process");
    }
    int rc = bolt_init(argc, argv);
    if (rc)
        return init_failed(fn, face_class_of_native(rc), bolt_error_message());
    main_thread = pthread_self();
    if ((rc = face_types_init()) || (rc = face_comms_init()))
        return init_failed(fn, MPI_ERR_NO_MEM, "out of memory setting up MPI's predefined objects");
    face_initialized = 1;
    return MPI_SUCCESS;
}

int PMPI_Init(int *argc, char ***argv)
{
    thread_level = MPI_THREAD_SINGLE;
    return do_init(argc, argv, "MPI_Init");
}

int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    if (!provided)
        return init_failed("MPI_Init_thread", MPI_ERR_ARG, "provided is NULL");
    /* MULTIPLE turns on the runtime lock (see runtime/thread.h): each call
     * then runs under it, and blocking waits hand it over, so threads may
     * call at once. BOLT_THREAD_MULTIPLE=0 caps the grant at SERIALIZED,
     * and the lock then stays off. */
    thread_level = face_thread_grant(required);
    *provided = thread_level;
    int rc = do_init(argc, argv, "MPI_Init_thread");
    if (rc == MPI_SUCCESS && thread_level == MPI_THREAD_MULTIPLE)
        bolt_lock_enable();
    return rc;
}

int PMPI_Initialized(int *flag)
{
    if (!flag)
        return MPI_ERR_ARG;
    *flag = face_initialized;
    return MPI_SUCCESS;
}

int PMPI_Finalized(int *flag)
{
    if (!flag)
        return MPI_ERR_ARG;
    *flag = face_finalized;
    return MPI_SUCCESS;
}

int PMPI_Finalize(void)
{
    int rc = face_check_init("MPI_Finalize");
    if (rc)
        return rc;
    face_bsend_progress();
    void *buf;
    int size;
    PMPI_Buffer_detach(&buf, &size); /* delivers buffered sends still in flight */
    face_wins_finalize(); /* windows hold communicators, and perhaps the agent thread */
    face_comms_finalize();
    face_types_finalize();
    face_groups_finalize();
    face_infos_finalize();
    face_errcodes_finalize();
    face_messages_finalize();
    face_op_extra_finalize();
    face_finalized = 1;
    rc = bolt_finalize();
    if (rc) {
        fprintf(stderr, "MPI_Finalize: %s\n", bolt_error_message());
        return face_class_of_native(rc);
    }
    return MPI_SUCCESS;
}

int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    char why[128];
    snprintf(why, sizeof why, "MPI_Abort was called with error code %d", errorcode);
    (void)comm; /* Bolt ends the whole job, as Open MPI and MPICH do */
    bolt_abort(errorcode, why);
    return MPI_SUCCESS;
}

int PMPI_Query_thread(int *provided)
{
    if (!provided)
        return MPI_ERR_ARG;
    *provided = thread_level;
    return MPI_SUCCESS;
}

int PMPI_Is_thread_main(int *flag)
{
    if (!flag)
        return MPI_ERR_ARG;
    *flag = face_initialized && pthread_equal(pthread_self(), main_thread);
    return MPI_SUCCESS;
}

int PMPI_Get_processor_name(char *name, int *resultlen)
{
    if (!name || !resultlen)
        return face_error(MPI_COMM_NULL, "MPI_Get_processor_name", MPI_ERR_ARG,
                          "name or length pointer is NULL");
    snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s", bolt_hostname());
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}

int PMPI_Get_version(int *version, int *subversion)
{
    if (!version || !subversion)
        return MPI_ERR_ARG;
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}

int PMPI_Get_library_version(char *version, int *resultlen)
{
    if (!version || !resultlen)
        return MPI_ERR_ARG;
    snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING, "Bolt %d.%d.%d (MPI %d.%d face)",
             BOLT_VERSION_MAJOR, BOLT_VERSION_MINOR, BOLT_VERSION_PATCH, MPI_VERSION,
             MPI_SUBVERSION);
    *resultlen = (int)strlen(version);
    return MPI_SUCCESS;
}

double PMPI_Wtime(void) { return bolt_wtime(); }

double PMPI_Wtick(void)
{
    struct timespec res;
    if (clock_getres(CLOCK_MONOTONIC, &res) == 0)
        return (double)res.tv_sec + (double)res.tv_nsec * 1e-9;
    return 1e-9;
}

int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    (void)info;
    if (size < 0 || !baseptr)
        return face_error(MPI_COMM_NULL, "MPI_Alloc_mem", MPI_ERR_ARG,
                          size < 0 ? "size %ld is negative" : "baseptr is NULL (size %ld)",
                          (long)size);
    void *p = NULL;
    /* Page-aligned memory is what a registering transport would want. */
    if (posix_memalign(&p, 4096, size ? (size_t)size : 1))
        return face_error(MPI_COMM_NULL, "MPI_Alloc_mem", MPI_ERR_NO_MEM,
                          "cannot allocate %ld bytes", (long)size);
    memcpy(baseptr, &p, sizeof p);
    return MPI_SUCCESS;
}

int PMPI_Free_mem(void *base)
{
    free(base);
    return MPI_SUCCESS;
}

int PMPI_Pcontrol(const int level, ...)
{
    (void)level; /* no profiling levels: a no-op, as the standard allows */
    return MPI_SUCCESS;
}

int MPI_Pcontrol(const int level, ...) { return PMPI_Pcontrol(level); }
double MPI_Wtime(void) { return PMPI_Wtime(); }
double MPI_Wtick(void) { return PMPI_Wtick(); }
MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp) { return base + disp; }
MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp) { return PMPI_Aint_add(base, disp); }
MPI_Aint PMPI_Aint_diff(MPI_Aint a, MPI_Aint b) { return a - b; }
MPI_Aint MPI_Aint_diff(MPI_Aint a, MPI_Aint b) { return PMPI_Aint_diff(a, b); }
