# mpi/: the MPI face (mpi.h, libmpi, boltcc) over the native API.
