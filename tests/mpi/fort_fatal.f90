! fort_fatal.f90 - an invalid call from Fortran under MPI_ERRORS_ARE_FATAL
! (the default): fortran.sh expects the job to end with the message that
! names the call, the rank and the cause, as from C.
program fort_fatal
  use mpi
  implicit none
  integer :: ierr, rank, size, x
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  x = rank
  if (rank == size - 1) call MPI_Send(x, 1, MPI_INTEGER, size + 3, 0, MPI_COMM_WORLD, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  print *, 'fort_fatal: survived'
  call MPI_Finalize(ierr)
end program fort_fatal
