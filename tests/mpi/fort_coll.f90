! fort_coll.f90 - collectives from Fortran through `use mpi`: Bcast,
! Allreduce and Reduce with MPI_IN_PLACE, MAXLOC on MPI_2INTEGER and
! MPI_2DOUBLE_PRECISION, LOGICAL reductions, the gathers, scatters and
! all-to-alls with their v-variants, Reduce_scatter_block, Scan, Exscan, a
! user operation written in Fortran (MPI_Op_create), and the nonblocking
! forms completed by Wait, Test and Waitall.
module fort_coll_ops
  implicit none
  integer :: calls = 0, seen_type = -1
contains
  ! inoutvec = invec + inoutvec, counting calls and noting the datatype.
  subroutine my_sum(invec, inoutvec, len, datatype)
    integer :: len, datatype
    integer :: invec(len), inoutvec(len)
    integer :: i
    calls = calls + 1
    seen_type = datatype
    do i = 1, len
      inoutvec(i) = invec(i) + inoutvec(i)
    end do
  end subroutine my_sum
end module fort_coll_ops

program fort_coll
  use ftest
  use fort_coll_ops
  implicit none
  integer, parameter :: n = 6
  integer :: ierr, i, r, root, total, myop, req, reqs(3), expect
  integer :: iv(n), ir(n)
  integer, allocatable :: gath(:), cnts(:), displs(:), a2a(:), a2b(:), scnt(:), sdis(:), rcnt(:), rdis(:)
  double precision :: dv(n), dr(n), dmax(2, 1)
  real :: rv(n)
  integer :: pairs(2, n), pres(2, n)
  logical :: lv(2), lr(2), flag, commute

  call ft_init('fort_coll')
  root = ft_size - 1
  total = ft_size * (ft_size - 1) / 2

  ! Bcast from the last rank.
  rv = 0
  if (ft_rank == root) rv = [(1.5 * i, i = 1, n)]
  call MPI_Bcast(rv, n, MPI_REAL, root, MPI_COMM_WORLD, ierr)
  call check_ok(ierr, 'MPI_Bcast')
  call check(all(rv == [(1.5 * i, i = 1, n)]), 'Bcast data')

  ! Allreduce in place: element i sums rank + i over the ranks.
  iv = [(ft_rank + i, i = 1, n)]
  call MPI_Allreduce(MPI_IN_PLACE, iv, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check_ok(ierr, 'MPI_Allreduce(MPI_IN_PLACE)')
  call check(all(iv == [(total + ft_size * i, i = 1, n)]), 'Allreduce in place data')

  ! MPI_MAX on double precision, out of place.
  dv = [(dble(ft_rank) * i, i = 1, n)]
  call MPI_Allreduce(dv, dr, n, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  call check(all(dr == [(dble(ft_size - 1) * i, i = 1, n)]), 'Allreduce MPI_MAX')

  ! Reduce to root, in place at the root only.
  iv = [(ft_rank * i, i = 1, n)]
  if (ft_rank == root) then
    call MPI_Reduce(MPI_IN_PLACE, iv, n, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, ierr)
    call check(all(iv == [(total * i, i = 1, n)]), 'Reduce in place at the root')
  else
    call MPI_Reduce(iv, ir, n, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, ierr)
  end if
  call check_ok(ierr, 'MPI_Reduce')

  ! MAXLOC on Fortran pairs (value, index), the largest value at the last rank.
  do i = 1, n
    pairs(1, i) = ft_rank * 10 + i
    pairs(2, i) = ft_rank
  end do
  call MPI_Allreduce(pairs, pres, n, MPI_2INTEGER, MPI_MAXLOC, MPI_COMM_WORLD, ierr)
  call check_ok(ierr, 'MPI_Allreduce(MPI_MAXLOC)')
  call check(all(pres(2, :) == ft_size - 1), 'MAXLOC index')
  call check(all(pres(1, :) == [((ft_size - 1) * 10 + i, i = 1, n)]), 'MAXLOC value')
  dmax(1, 1) = -abs(ft_rank - 1.0d0)
  dmax(2, 1) = ft_rank
  call MPI_Allreduce(MPI_IN_PLACE, dmax, 1, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, MPI_COMM_WORLD, ierr)
  expect = min(1, ft_size - 1)
  call check(dmax(2, 1) == expect, 'MAXLOC on MPI_2DOUBLE_PRECISION')

  ! LOGICAL reductions.
  lv = [.true., ft_rank == 0]
  call MPI_Allreduce(lv, lr, 2, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
  call check(lr(1) .and. (lr(2) .eqv. (ft_size == 1)), 'MPI_LAND on MPI_LOGICAL')
  call MPI_Allreduce(lv, lr, 2, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD, ierr)
  call check(lr(1) .and. lr(2), 'MPI_LOR on MPI_LOGICAL')

  ! Gather, Allgather, Scatter.
  allocate(gath(2 * ft_size), cnts(ft_size), displs(ft_size))
  iv(1:2) = [ft_rank, -ft_rank]
  gath = -99
  call MPI_Gather(iv, 2, MPI_INTEGER, gath, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  if (ft_rank == 0) call check(all(gath == [((r / 2) * (1 - 2 * mod(r, 2)), r = 0, 2 * ft_size - 1)]), &
                               'Gather data')
  gath = -99
  call MPI_Allgather(iv, 2, MPI_INTEGER, gath, 2, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call check(all(gath == [((r / 2) * (1 - 2 * mod(r, 2)), r = 0, 2 * ft_size - 1)]), 'Allgather data')
  if (ft_rank == root) gath = [(3 * r, r = 1, 2 * ft_size)]
  call MPI_Scatter(gath, 2, MPI_INTEGER, ir, 2, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
  call check(ir(1) == 3 * (2 * ft_rank + 1) .and. ir(2) == 3 * (2 * ft_rank + 2), 'Scatter data')

  ! Gatherv / Allgatherv / Scatterv: rank r contributes r + 1 elements.
  deallocate(gath)
  allocate(gath(ft_size * (ft_size + 1) / 2))
  do r = 1, ft_size
    cnts(r) = r
    displs(r) = (r - 1) * r / 2
  end do
  iv = ft_rank
  gath = -1
  call MPI_Allgatherv(iv, ft_rank + 1, MPI_INTEGER, gath, cnts, displs, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call check_ok(ierr, 'MPI_Allgatherv')
  do r = 1, ft_size
    call check(all(gath(displs(r) + 1:displs(r) + cnts(r)) == r - 1), 'Allgatherv block')
  end do
  gath = -1
  call MPI_Gatherv(iv, ft_rank + 1, MPI_INTEGER, gath, cnts, displs, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
  if (ft_rank == root) then
    do r = 1, ft_size
      call check(all(gath(displs(r) + 1:displs(r) + cnts(r)) == r - 1), 'Gatherv block')
    end do
  end if
  ir = -1
  call MPI_Scatterv(gath, cnts, displs, MPI_INTEGER, ir, ft_rank + 1, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
  call check(all(ir(1:ft_rank + 1) == ft_rank), 'Scatterv data')

  ! Alltoall and Alltoallv (rank r sends r + 1 elements to everyone).
  allocate(a2a(ft_size), a2b(ft_size * (ft_size + 1) / 2))
  allocate(scnt(ft_size), sdis(ft_size), rcnt(ft_size), rdis(ft_size))
  a2a = [(100 * ft_rank + r, r = 0, ft_size - 1)]
  call MPI_Alltoall(MPI_IN_PLACE, 1, MPI_INTEGER, a2a, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call check(all(a2a == [(100 * r + ft_rank, r = 0, ft_size - 1)]), 'Alltoall in place')
  deallocate(a2a)
  allocate(a2a(ft_size * (ft_rank + 1)))
  a2a = ft_rank
  do r = 1, ft_size
    scnt(r) = ft_rank + 1
    sdis(r) = (r - 1) * (ft_rank + 1)
    rcnt(r) = r
    rdis(r) = (r - 1) * r / 2
  end do
  a2b = -1
  call MPI_Alltoallv(a2a, scnt, sdis, MPI_INTEGER, a2b, rcnt, rdis, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call check_ok(ierr, 'MPI_Alltoallv')
  do r = 1, ft_size
    call check(all(a2b(rdis(r) + 1:rdis(r) + r) == r - 1), 'Alltoallv block')
  end do

  ! Reduce_scatter_block, Scan, Exscan.
  deallocate(gath)
  allocate(gath(2 * ft_size))
  gath = [(ft_rank + r, r = 1, 2 * ft_size)]
  call MPI_Reduce_scatter_block(gath, ir, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(ir(1) == total + ft_size * (2 * ft_rank + 1) .and. ir(2) == total + ft_size * (2 * ft_rank + 2), &
             'Reduce_scatter_block data')
  iv(1) = ft_rank + 1
  call MPI_Scan(iv, ir, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check_int(ir(1), (ft_rank + 1) * (ft_rank + 2) / 2, 'Scan')
  ir(1) = -5
  call MPI_Exscan(iv, ir, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (ft_rank > 0) call check_int(ir(1), ft_rank * (ft_rank + 1) / 2, 'Exscan')

  ! A Fortran user operation.
  call MPI_Op_create(my_sum, .true., myop, ierr)
  call check_ok(ierr, 'MPI_Op_create')
  call MPI_Op_commutative(myop, commute, ierr)
  call check(commute, 'Op_commutative')
  iv = [(ft_rank * i, i = 1, n)]
  call MPI_Allreduce(iv, ir, n, MPI_INTEGER, myop, MPI_COMM_WORLD, ierr)
  call check(all(ir == [(total * i, i = 1, n)]), 'Allreduce with a Fortran operation')
  call MPI_Allreduce(calls, r, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (ft_size > 1) call check(r > 0, 'the Fortran operation was called')
  if (calls > 0) call check_int(seen_type, MPI_INTEGER, 'the Fortran operation saw MPI_INTEGER')
  call MPI_Op_free(myop, ierr)
  call check_int(myop, MPI_OP_NULL, 'Op_free')

  ! Nonblocking: Iallreduce in place with Wait, Ibcast with Test, Ibarrier
  ! and Iallgather with Waitall.
  iv = [(ft_rank + i, i = 1, n)]
  call MPI_Iallreduce(MPI_IN_PLACE, iv, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call check(all(iv == [(total + ft_size * i, i = 1, n)]), 'Iallreduce in place')
  dv = 0
  if (ft_rank == root) dv = [(0.25d0 * i, i = 1, n)]
  call MPI_Ibcast(dv, n, MPI_DOUBLE_PRECISION, root, MPI_COMM_WORLD, req, ierr)
  flag = .false.
  do while (.not. flag)
    call MPI_Test(req, flag, MPI_STATUS_IGNORE, ierr)
  end do
  call check(all(dv == [(0.25d0 * i, i = 1, n)]), 'Ibcast data')
  call MPI_Ibarrier(MPI_COMM_WORLD, reqs(1), ierr)
  iv(1) = 7 * ft_rank
  gath = -1
  call MPI_Iallgather(iv, 1, MPI_INTEGER, gath, 1, MPI_INTEGER, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Ireduce(iv, ir, 1, MPI_INTEGER, MPI_MAX, 0, MPI_COMM_WORLD, reqs(3), ierr)
  call MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE, ierr)
  call check_ok(ierr, 'Waitall of nonblocking collectives')
  call check(all(gath(1:ft_size) == [(7 * r, r = 0, ft_size - 1)]), 'Iallgather data')
  if (ft_rank == 0) call check_int(ir(1), 7 * (ft_size - 1), 'Ireduce MPI_MAX')

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call check_ok(ierr, 'MPI_Barrier')
  deallocate(gath, cnts, displs, a2a, a2b, scnt, sdis, rcnt, rdis)
  call ft_finish()
end program fort_coll
