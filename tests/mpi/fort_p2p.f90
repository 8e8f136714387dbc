! fort_p2p.f90 - point-to-point from Fortran through `use mpi`: a ring with
! statuses (MPI_SOURCE, MPI_TAG, Get_count), MPI_STATUS_IGNORE and
! MPI_STATUSES_IGNORE, nonblocking exchanges completed by Waitall (statuses
! array), Waitany and Waitsome (indices from 1), Testall and Iprobe
! (LOGICAL flags), probes, synchronous, buffered and persistent sends,
! MPI_PROC_NULL, cancelled receives, matched probes.
program fort_p2p
  use ftest
  implicit none
  integer, parameter :: n = 5
  integer :: left, right, ierr, i, k, cnt, idx, outcount, msg, val, got
  integer :: sbuf(n), rbuf(n), lbuf(n), st(MPI_STATUS_SIZE)
  integer :: reqs(4), sts(MPI_STATUS_SIZE, 4), indices(4)
  double precision :: dbuf(n), dget(n)
  logical :: flag, seen(2)
  integer, allocatable :: bsbuf(:)
  integer :: bsize, psize

  call ft_init('fort_p2p')
  right = mod(ft_rank + 1, ft_size)
  left = mod(ft_rank - 1 + ft_size, ft_size)

  ! A ring: the status says who sent, with which tag, how much.
  sbuf = [(100 * ft_rank + i, i = 1, n)]
  rbuf = -1
  if (mod(ft_rank, 2) == 0) then
    call MPI_Send(sbuf, n, MPI_INTEGER, right, 11, MPI_COMM_WORLD, ierr)
    call MPI_Recv(rbuf, n, MPI_INTEGER, left, 11, MPI_COMM_WORLD, st, ierr)
  else
    call MPI_Recv(rbuf, n, MPI_INTEGER, left, 11, MPI_COMM_WORLD, st, ierr)
    call MPI_Send(sbuf, n, MPI_INTEGER, right, 11, MPI_COMM_WORLD, ierr)
  end if
  call check_ok(ierr, 'ring MPI_Recv')
  call check(all(rbuf == [(100 * left + i, i = 1, n)]), 'ring data')
  call check_int(st(MPI_SOURCE), left, 'status(MPI_SOURCE)')
  call check_int(st(MPI_TAG), 11, 'status(MPI_TAG)')
  call MPI_Get_count(st, MPI_INTEGER, cnt, ierr)
  call check_int(cnt, n, 'MPI_Get_count')

  ! Sendrecv with MPI_STATUS_IGNORE, double precision.
  dbuf = [(ft_rank + 0.5d0 * i, i = 1, n)]
  dget = 0
  call MPI_Sendrecv(dbuf, n, MPI_DOUBLE_PRECISION, right, 12, dget, n, MPI_DOUBLE_PRECISION, left, 12, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call check_ok(ierr, 'MPI_Sendrecv')
  call check(all(dget == [(left + 0.5d0 * i, i = 1, n)]), 'Sendrecv data')

  ! Both neighbours at once, completed by Waitall with an array of statuses.
  rbuf = -1
  lbuf = -1
  call MPI_Irecv(rbuf, n, MPI_INTEGER, left, 21, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Irecv(lbuf, n, MPI_INTEGER, right, 22, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Isend(sbuf, n, MPI_INTEGER, right, 21, MPI_COMM_WORLD, reqs(3), ierr)
  call MPI_Isend(sbuf, n, MPI_INTEGER, left, 22, MPI_COMM_WORLD, reqs(4), ierr)
  sts = -7
  call MPI_Waitall(4, reqs, sts, ierr)
  call check_ok(ierr, 'MPI_Waitall')
  call check(all(reqs == MPI_REQUEST_NULL), 'Waitall frees the requests')
  call check(all(rbuf == [(100 * left + i, i = 1, n)]), 'Waitall data from the left')
  call check(all(lbuf == [(100 * right + i, i = 1, n)]), 'Waitall data from the right')
  call check_int(sts(MPI_SOURCE, 1), left, 'statuses(MPI_SOURCE, 1)')
  call check_int(sts(MPI_TAG, 1), 21, 'statuses(MPI_TAG, 1)')
  call check_int(sts(MPI_SOURCE, 2), right, 'statuses(MPI_SOURCE, 2)')
  call check_int(sts(MPI_TAG, 2), 22, 'statuses(MPI_TAG, 2)')
  call MPI_Get_count(sts(:, 2), MPI_INTEGER, cnt, ierr)
  call check_int(cnt, n, 'Get_count of statuses(:, 2)')

  ! The same with MPI_STATUSES_IGNORE.
  call MPI_Irecv(rbuf, n, MPI_INTEGER, left, 23, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(sbuf, n, MPI_INTEGER, right, 23, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  call check_ok(ierr, 'MPI_Waitall(MPI_STATUSES_IGNORE)')

  ! Waitany gives indices from 1; MPI_UNDEFINED once all are done.
  call MPI_Irecv(rbuf, n, MPI_INTEGER, left, 31, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Irecv(lbuf, n, MPI_INTEGER, right, 32, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Send(sbuf, n, MPI_INTEGER, right, 31, MPI_COMM_WORLD, ierr)
  call MPI_Send(sbuf, n, MPI_INTEGER, left, 32, MPI_COMM_WORLD, ierr)
  seen = .false.
  do k = 1, 2
    call MPI_Waitany(2, reqs, idx, st, ierr)
    call check(idx == 1 .or. idx == 2, 'Waitany index in 1..2')
    if (idx == 1 .or. idx == 2) then
      seen(idx) = .true.
      call check_int(st(MPI_TAG), 30 + idx, 'Waitany status(MPI_TAG)')
    end if
  end do
  call check(all(seen), 'Waitany completed both')
  call MPI_Waitany(2, reqs, idx, st, ierr)
  call check_int(idx, MPI_UNDEFINED, 'Waitany on null requests')

  ! Waitsome: indices from 1, statuses in the order of the indices.
  call MPI_Irecv(rbuf, n, MPI_INTEGER, left, 41, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Irecv(lbuf, n, MPI_INTEGER, right, 42, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Send(sbuf, n, MPI_INTEGER, right, 41, MPI_COMM_WORLD, ierr)
  call MPI_Send(sbuf, n, MPI_INTEGER, left, 42, MPI_COMM_WORLD, ierr)
  seen = .false.
  k = 0
  do while (k < 2)
    call MPI_Waitsome(2, reqs, outcount, indices, sts, ierr)
    call check(outcount >= 1 .and. outcount <= 2 - k, 'Waitsome outcount')
    do i = 1, outcount
      call check(indices(i) == 1 .or. indices(i) == 2, 'Waitsome index in 1..2')
      if (indices(i) == 1 .or. indices(i) == 2) then
        seen(indices(i)) = .true.
        call check_int(sts(MPI_TAG, i), 40 + indices(i), 'Waitsome statuses(MPI_TAG, i)')
      end if
    end do
    k = k + max(outcount, 1)
  end do
  call check(all(seen), 'Waitsome completed both')
  call MPI_Waitsome(2, reqs, outcount, indices, sts, ierr)
  call check_int(outcount, MPI_UNDEFINED, 'Waitsome on null requests')

  ! Testall and Iprobe: LOGICAL flags.
  call MPI_Irecv(rbuf, n, MPI_INTEGER, left, 51, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(sbuf, n, MPI_INTEGER, right, 51, MPI_COMM_WORLD, reqs(2), ierr)
  flag = .false.
  do while (.not. flag)
    call MPI_Testall(2, reqs, flag, sts, ierr)
  end do
  call check(flag, 'Testall flag')
  call check_int(sts(MPI_SOURCE, 1), left, 'Testall statuses(MPI_SOURCE, 1)')
  call MPI_Send(sbuf, 3, MPI_INTEGER, right, 52, MPI_COMM_WORLD, ierr)
  flag = .false.
  do while (.not. flag)
    call MPI_Iprobe(MPI_ANY_SOURCE, 52, MPI_COMM_WORLD, flag, st, ierr)
  end do
  call check_int(st(MPI_SOURCE), left, 'Iprobe status(MPI_SOURCE)')
  call MPI_Get_count(st, MPI_INTEGER, cnt, ierr)
  call check_int(cnt, 3, 'Iprobe count')
  call MPI_Recv(rbuf, n, MPI_INTEGER, st(MPI_SOURCE), st(MPI_TAG), MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Iprobe(MPI_ANY_SOURCE, 52, MPI_COMM_WORLD, flag, st, ierr)
  call check(.not. flag, 'Iprobe finds nothing once received')

  ! Probe, then a receive of the size it tells.
  call MPI_Send(sbuf, 4, MPI_INTEGER, right, 53, MPI_COMM_WORLD, ierr)
  call MPI_Probe(left, 53, MPI_COMM_WORLD, st, ierr)
  call MPI_Get_count(st, MPI_INTEGER, cnt, ierr)
  call check_int(cnt, 4, 'Probe count')
  call MPI_Recv(rbuf, cnt, MPI_INTEGER, left, 53, MPI_COMM_WORLD, st, ierr)
  call check(all(rbuf(1:4) == [(100 * left + i, i = 1, 4)]), 'data after Probe')

  ! Synchronous send (the receive is posted first) and Test's flag.
  call MPI_Irecv(rbuf, n, MPI_INTEGER, left, 61, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Ssend(sbuf, n, MPI_INTEGER, right, 61, MPI_COMM_WORLD, ierr)
  call check_ok(ierr, 'MPI_Ssend')
  flag = .false.
  do while (.not. flag)
    call MPI_Test(reqs(1), flag, st, ierr)
  end do
  call check_int(reqs(1), MPI_REQUEST_NULL, 'Test frees the request')
  call check_int(st(MPI_TAG), 61, 'Test status(MPI_TAG)')

  ! Buffered send from a buffer Fortran attached.
  call MPI_Pack_size(n, MPI_INTEGER, MPI_COMM_WORLD, psize, ierr)
  bsize = psize + MPI_BSEND_OVERHEAD
  allocate(bsbuf((bsize + 3) / 4))
  call MPI_Buffer_attach(bsbuf, 4 * size(bsbuf), ierr)
  call check_ok(ierr, 'MPI_Buffer_attach')
  call MPI_Bsend(sbuf, n, MPI_INTEGER, right, 62, MPI_COMM_WORLD, ierr)
  call check_ok(ierr, 'MPI_Bsend')
  call MPI_Recv(rbuf, n, MPI_INTEGER, left, 62, MPI_COMM_WORLD, st, ierr)
  call check(all(rbuf == [(100 * left + i, i = 1, n)]), 'Bsend data')
  call MPI_Buffer_detach(bsbuf, bsize, ierr)
  call check_ok(ierr, 'MPI_Buffer_detach')
  call check_int(bsize, 4 * size(bsbuf), 'Buffer_detach size')
  deallocate(bsbuf)

  ! Persistent requests, started three times.
  call MPI_Recv_init(got, 1, MPI_INTEGER, left, 71, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Send_init(val, 1, MPI_INTEGER, right, 71, MPI_COMM_WORLD, reqs(2), ierr)
  do k = 1, 3
    got = -1
    val = 10 * k
    call MPI_Startall(2, reqs, ierr)
    call MPI_Waitall(2, reqs, sts, ierr)
    call check_int(got, 10 * k, 'persistent round')
    call check(reqs(1) /= MPI_REQUEST_NULL, 'persistent requests stay')
  end do
  call MPI_Request_free(reqs(1), ierr)
  call MPI_Request_free(reqs(2), ierr)
  call check_int(reqs(1), MPI_REQUEST_NULL, 'Request_free')

  ! MPI_PROC_NULL: an empty status from MPI_PROC_NULL with MPI_ANY_TAG.
  call MPI_Recv(rbuf, n, MPI_INTEGER, MPI_PROC_NULL, 5, MPI_COMM_WORLD, st, ierr)
  call check_int(st(MPI_SOURCE), MPI_PROC_NULL, 'PROC_NULL status(MPI_SOURCE)')
  call check_int(st(MPI_TAG), MPI_ANY_TAG, 'PROC_NULL status(MPI_TAG)')
  call MPI_Get_count(st, MPI_INTEGER, cnt, ierr)
  call check_int(cnt, 0, 'PROC_NULL count')

  ! A receive nobody matches, cancelled.
  call MPI_Irecv(rbuf, n, MPI_INTEGER, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Cancel(reqs(1), ierr)
  call MPI_Wait(reqs(1), st, ierr)
  call MPI_Test_cancelled(st, flag, ierr)
  call check(flag, 'Test_cancelled')

  ! Matched probe and receive.
  call MPI_Send(sbuf, 2, MPI_INTEGER, right, 81, MPI_COMM_WORLD, ierr)
  call MPI_Mprobe(left, 81, MPI_COMM_WORLD, msg, st, ierr)
  call check_ok(ierr, 'MPI_Mprobe')
  call MPI_Get_count(st, MPI_INTEGER, cnt, ierr)
  call check_int(cnt, 2, 'Mprobe count')
  rbuf = -1
  call MPI_Mrecv(rbuf, cnt, MPI_INTEGER, msg, st, ierr)
  call check_int(msg, MPI_MESSAGE_NULL, 'Mrecv consumes the message')
  call check(all(rbuf(1:2) == [100 * left + 1, 100 * left + 2]), 'Mrecv data')

  call ft_finish()
end program fort_p2p
