! fort_pmpi_tool.f - a minimal Fortran profiling tool: its own MPI_SEND
! and MPI_FINALIZE, forwarding to PMPI_SEND and PMPI_FINALIZE as real tools
! do; fortran.sh links it in front of fort_legacy and checks it saw sends.
      SUBROUTINE MPI_SEND(BUF, COUNT, DATATYPE, DEST, TAG, COMM, IERROR)
      IMPLICIT NONE
      INTEGER BUF(*), COUNT, DATATYPE, DEST, TAG, COMM, IERROR
      INTEGER NSENDS
      COMMON /FTOOL/ NSENDS
      NSENDS = NSENDS + 1
      CALL PMPI_SEND(BUF, COUNT, DATATYPE, DEST, TAG, COMM, IERROR)
      END

      SUBROUTINE MPI_FINALIZE(IERROR)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERROR, RANK, IERR
      INTEGER NSENDS
      COMMON /FTOOL/ NSENDS
      CALL PMPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      WRITE (*, '(A,I0,A,I0,A)') 'fort_pmpi_tool: rank ', RANK,
     &    ' intercepted ', NSENDS, ' MPI_SEND calls'
      CALL PMPI_FINALIZE(IERROR)
      END
