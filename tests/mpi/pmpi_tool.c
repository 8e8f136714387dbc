/* pmpi_tool.c — a minimal profiling tool: it defines MPI_Send itself and
 * forwards to PMPI_Send, as real tools do; boltcc.sh links it in front of
 * mpi_p2p and checks that it saw the sends. */
#include <mpi.h>
#include <stdio.h>

static long sends;

int MPI_Send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    sends++;
    return PMPI_Send(buf, count, dt, dest, tag, comm);
}

int MPI_Finalize(void)
{
    int rank;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("pmpi_tool: rank %d intercepted %ld MPI_Send calls\n", rank, sends);
    return PMPI_Finalize();
}
