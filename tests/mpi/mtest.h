/* mtest.h — helpers for the MPI compatibility tests. These programs use
 * only standard MPI, so the same source runs on Bolt and on Open MPI. */
#ifndef MTEST_H
#define MTEST_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int mt_rank, mt_size, mt_fails;
static const char *mt_name = "test";

#define CHECK(cond, ...)                                                              \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "%s: rank %d: %s:%d: check failed: %s: ", mt_name,       \
                    mt_rank, __FILE__, __LINE__, #cond);                              \
            fprintf(stderr, __VA_ARGS__);                                             \
            fprintf(stderr, "\n");                                                    \
            mt_fails++;                                                               \
        }                                                                             \
    } while (0)

#define CHECK_MPI(call)                                                               \
    do {                                                                              \
        int mt_rc_ = (call);                                                          \
        CHECK(mt_rc_ == MPI_SUCCESS, "%s returned %d", #call, mt_rc_);               \
    } while (0)

/* The thread level Bolt grants to a program asking for MPI_THREAD_MULTIPLE:
 * MULTIPLE, unless BOLT_THREAD_MULTIPLE says no (0, no, false, off: then
 * SERIALIZED at most). */
static inline int mt_bolt_multiple(void)
{
    const char *v = getenv("BOLT_THREAD_MULTIPLE");
    int off = v && (!strcmp(v, "0") || !strcmp(v, "no") || !strcmp(v, "false") ||
                    !strcmp(v, "off"));
    return off ? MPI_THREAD_SERIALIZED : MPI_THREAD_MULTIPLE;
}

static inline void mt_init(int *argc, char ***argv, const char *name)
{
    mt_name = name;
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mt_size);
}

/* Agrees on the outcome (without collectives: they are tested elsewhere),
 * prints "<name>: ok" on rank 0 and finalizes. Returns the exit code. */
static inline int mt_finish(void)
{
    int total = mt_fails;
    if (mt_rank == 0) {
        for (int r = 1; r < mt_size; r++) {
            int f;
            MPI_Recv(&f, 1, MPI_INT, r, 999, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            total += f;
        }
        for (int r = 1; r < mt_size; r++)
            MPI_Send(&total, 1, MPI_INT, r, 998, MPI_COMM_WORLD);
    } else {
        MPI_Send(&mt_fails, 1, MPI_INT, 0, 999, MPI_COMM_WORLD);
        MPI_Recv(&total, 1, MPI_INT, 0, 998, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (mt_rank == 0) {
        if (total)
            printf("%s: FAILED (%d checks) with %d ranks\n", mt_name, total, mt_size);
        else
            printf("%s: ok (%d ranks)\n", mt_name, mt_size);
    }
    MPI_Finalize();
    return total ? 1 : 0;
}

#endif
