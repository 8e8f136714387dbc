! fort_legacy.f - an old-style program: fixed form, INCLUDE 'mpif.h', no
! module, buffers of several types passed to the same routines (boltfort
! lets gfortran 10 and later take that, as codes of this kind need). A
! ring, a relaxation step of a 1-D field split across the ranks (halo
! cells, a vector type for a matrix row, an in-place all-reduce of the
! residual), nonblocking exchanges with MPI_STATUSES_IGNORE, a split
! communicator, MPI_WTIME, CHARACTER strings.
      PROGRAM LEGACY
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER N
      PARAMETER (N = 8)
      INTEGER IERR, RANK, NPROCS, LEFT, RIGHT, I, J, ICOUNT, NFAIL
      INTEGER ITOK, ISTAT(MPI_STATUS_SIZE), IREQ(4), IROW, ISUB
      INTEGER ISIZE, ILEN, NTOTAL
      DOUBLE PRECISION U(0:N+1), UNEW(N), RES, T0, T1, A(3,4), ROW(4)
      CHARACTER*(MPI_MAX_PROCESSOR_NAME) HOST
      LOGICAL FLAG
      NFAIL = 0
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROCS, IERR)
      T0 = MPI_WTIME()
      RIGHT = MOD(RANK + 1, NPROCS)
      LEFT = MOD(RANK - 1 + NPROCS, NPROCS)
!     An integer token around the ring.
      ITOK = 1000 + RANK
      IF (RANK .EQ. 0) THEN
         CALL MPI_SEND(ITOK, 1, MPI_INTEGER, RIGHT, 1, MPI_COMM_WORLD,
     &                 IERR)
         CALL MPI_RECV(ITOK, 1, MPI_INTEGER, LEFT, 1, MPI_COMM_WORLD,
     &                 ISTAT, IERR)
      ELSE
         CALL MPI_RECV(ITOK, 1, MPI_INTEGER, LEFT, 1, MPI_COMM_WORLD,
     &                 ISTAT, IERR)
         ITOK = ITOK + 1
         CALL MPI_SEND(ITOK, 1, MPI_INTEGER, RIGHT, 1, MPI_COMM_WORLD,
     &                 IERR)
      END IF
      IF (RANK .EQ. 0 .AND. ITOK .NE. 1000 + NPROCS - 1) THEN
         PRINT *, 'legacy: token ', ITOK
         NFAIL = NFAIL + 1
      END IF
      IF (ISTAT(MPI_SOURCE) .NE. LEFT .OR. ISTAT(MPI_TAG) .NE. 1) THEN
         PRINT *, 'legacy: status ', ISTAT(MPI_SOURCE), ISTAT(MPI_TAG)
         NFAIL = NFAIL + 1
      END IF
      CALL MPI_GET_COUNT(ISTAT, MPI_INTEGER, ICOUNT, IERR)
      IF (ICOUNT .NE. 1) NFAIL = NFAIL + 1
!     A Jacobi step on a periodic field: the halo cells come from the
!     neighbours, the same routines now move DOUBLE PRECISION.
      DO I = 1, N
         U(I) = DBLE(RANK * N + I)
      END DO
      CALL MPI_IRECV(U(0), 1, MPI_DOUBLE_PRECISION, LEFT, 2,
     &               MPI_COMM_WORLD, IREQ(1), IERR)
      CALL MPI_IRECV(U(N+1), 1, MPI_DOUBLE_PRECISION, RIGHT, 3,
     &               MPI_COMM_WORLD, IREQ(2), IERR)
      CALL MPI_ISEND(U(N), 1, MPI_DOUBLE_PRECISION, RIGHT, 2,
     &               MPI_COMM_WORLD, IREQ(3), IERR)
      CALL MPI_ISEND(U(1), 1, MPI_DOUBLE_PRECISION, LEFT, 3,
     &               MPI_COMM_WORLD, IREQ(4), IERR)
      CALL MPI_WAITALL(4, IREQ, MPI_STATUSES_IGNORE, IERR)
      IF (U(0) .NE. DBLE(MOD(RANK * N + NPROCS * N - 1, NPROCS * N)
     &    + 1)) NFAIL = NFAIL + 1
      IF (U(N+1) .NE. DBLE(MOD((RANK + 1) * N, NPROCS * N) + 1))
     &    NFAIL = NFAIL + 1
      RES = 0
      DO I = 1, N
         UNEW(I) = 0.5D0 * (U(I-1) + U(I+1))
         RES = RES + (UNEW(I) - U(I))**2
      END DO
      CALL MPI_ALLREDUCE(MPI_IN_PLACE, RES, 1, MPI_DOUBLE_PRECISION,
     &                   MPI_SUM, MPI_COMM_WORLD, IERR)
!     U is the global index, wrapped: only the two ends of the whole
!     field move, by N*P/2 each.
      NTOTAL = NPROCS * N
      IF (ABS(RES - DBLE(NTOTAL)**2 / 2.0D0) .GT. 1.0D-9) THEN
         PRINT *, 'legacy: residual ', RES
         NFAIL = NFAIL + 1
      END IF
!     A row of A(3,4) as a vector type, broadcast from the last rank.
      DO J = 1, 4
         DO I = 1, 3
            A(I, J) = 0
            IF (RANK .EQ. NPROCS - 1) A(I, J) = 10 * I + J
         END DO
      END DO
      CALL MPI_TYPE_VECTOR(4, 1, 3, MPI_DOUBLE_PRECISION, IROW, IERR)
      CALL MPI_TYPE_COMMIT(IROW, IERR)
      CALL MPI_BCAST(A(2, 1), 1, IROW, NPROCS - 1, MPI_COMM_WORLD,
     &               IERR)
      CALL MPI_TYPE_FREE(IROW, IERR)
      DO J = 1, 4
         ROW(J) = A(2, J)
         IF (ROW(J) .NE. 20 + J) NFAIL = NFAIL + 1
         IF (RANK .NE. NPROCS - 1 .AND. A(1, J) .NE. 0) NFAIL = NFAIL+1
      END DO
!     A communicator of the even ranks and one of the odd ones.
      CALL MPI_COMM_SPLIT(MPI_COMM_WORLD, MOD(RANK, 2), RANK, ISUB,
     &                    IERR)
      CALL MPI_COMM_SIZE(ISUB, ISIZE, IERR)
      IF (ISIZE .NE. (NPROCS + 1 - MOD(RANK, 2)) / 2)
     &    NFAIL = NFAIL + 1
      CALL MPI_COMM_FREE(ISUB, IERR)
!     A processor name: its length, then blanks.
      CALL MPI_GET_PROCESSOR_NAME(HOST, ILEN, IERR)
      IF (ILEN .LE. 0 .OR. LEN_TRIM(HOST) .NE. ILEN) NFAIL = NFAIL + 1
      CALL MPI_INITIALIZED(FLAG, IERR)
      IF (.NOT. FLAG) NFAIL = NFAIL + 1
      T1 = MPI_WTIME()
      IF (T1 .LT. T0) NFAIL = NFAIL + 1
      CALL MPI_ALLREDUCE(MPI_IN_PLACE, NFAIL, 1, MPI_INTEGER, MPI_SUM,
     &                   MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0) THEN
         IF (NFAIL .EQ. 0) THEN
            WRITE (*, '(A,I0,A)') 'fort_legacy: ok (', NPROCS,
     &                            ' ranks)'
         ELSE
            WRITE (*, '(A,I0,A)') 'fort_legacy: FAILED (', NFAIL,
     &                            ' checks)'
         END IF
      END IF
      CALL MPI_FINALIZE(IERR)
      IF (NFAIL .NE. 0) STOP 1
      END
