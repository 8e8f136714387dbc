# tests/mpi/: MPI programs built with boltcc and with Open MPI mpicc.
