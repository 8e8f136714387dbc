/* mpi_fatal.c MODE — makes one invalid call under the default handler
 * (MPI_ERRORS_ARE_FATAL): the job must end with a message naming the call,
 * the rank and the cause. MODE: rank | comm | type | unsupported | before-init
 * | init | init-thread (the last two are run where MPI_Init cannot succeed,
 * and must not return: the program does not check, as many do not) |
 * rma-range (a Put past the end of the target's window) | rma-dead (the
 * last rank dies holding an exclusive lock on rank 0's window while the
 * others wait for it: the job must end, not wait forever) | rma-dead-held
 * (the same, the others ignoring SIGTERM, as a program that saves its state
 * on it does: until the launcher's SIGKILL they go on, the window's target
 * side without its dead peer). */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "rank";
    int x = 0, rank, size;
    if (!strcmp(mode, "before-init")) {
        int rc = MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        printf("mpi_fatal: before-init returned %d\n", rc);
        return rc == MPI_SUCCESS ? 1 : 0;
    }
    if (!strcmp(mode, "init-thread")) {
        int provided;
        MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    } else {
        MPI_Init(&argc, &argv);
    }
    if (!strncmp(mode, "init", 4)) {
        printf("mpi_fatal: survived a failed %s\n", mode[4] ? "MPI_Init_thread" : "MPI_Init");
        return 0;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (!strncmp(mode, "rma-dead", 8)) {
        static int mem[4];
        MPI_Win win;
        MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        if (rank == size - 1)
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        if (rank == size - 1) {
            MPI_Put(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
            MPI_Win_flush(0, win); /* the lock is held at rank 0 now */
        }
        /* before the barrier: the launcher's SIGTERM may follow the death
         * at once, and must find the survivors ignoring it */
        if (!strcmp(mode, "rma-dead-held"))
            signal(SIGTERM, SIG_IGN);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == size - 1)
            raise(SIGKILL);
        usleep(100000);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Put(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
        printf("mpi_fatal: survived: got a lock a dead rank holds\n");
        MPI_Finalize();
        return 0;
    }
    if (rank == size - 1) {
        if (!strcmp(mode, "rank"))
            MPI_Send(&x, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD);
        else if (!strcmp(mode, "comm"))
            MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_NULL);
        else if (!strcmp(mode, "type"))
            MPI_Send(&x, 1, (MPI_Datatype)12345, 0, 0, MPI_COMM_WORLD);
        else if (!strcmp(mode, "unsupported")) {
            MPI_Comm child;
            MPI_Comm_spawn("true", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &child,
                           MPI_ERRCODES_IGNORE);
        } else if (!strcmp(mode, "rma-range")) {
            MPI_Win win;
            MPI_Win_create(&x, sizeof x, sizeof x, MPI_INFO_NULL, MPI_COMM_SELF, &win);
            MPI_Win_fence(0, win);
            MPI_Put(&x, 1, MPI_INT, 0, 1, 1, MPI_INT, win);
        }
        printf("mpi_fatal: survived an invalid call\n");
    } else {
        /* The others wait for a message that never comes: the job must end anyway. */
        MPI_Recv(&x, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
