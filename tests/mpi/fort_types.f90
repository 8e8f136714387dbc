! fort_types.f90 - derived datatypes from Fortran through `use mpi`: a row
! of a column-major array as an MPI_Type_vector, a subarray in
! MPI_ORDER_FORTRAN, indexed and hvector types (INTEGER(KIND=MPI_ADDRESS_KIND)
! strides), a struct type over a SEQUENCE derived type from MPI_Get_address,
! absolute addresses sent from MPI_BOTTOM, resized types, extents and sizes,
! Pack/Unpack, Get_elements, names, MPI_Sizeof.
program fort_types
  use ftest
  implicit none
  integer, parameter :: nr = 4, nc = 5
  type particle
    sequence
    integer :: id
    double precision :: pos(3)
    integer :: tag
  end type particle
  double precision :: a(nr, nc), row(nc), blk(2, 3)
  integer :: ierr, i, j, left, right, rowtype, subtype, idxtype, hvtype, structtype, abstype, restype
  integer :: cnt, psize, pos, name_len
  integer(kind=MPI_ADDRESS_KIND) :: lb, extent, base, addrs(3), disps(3), stride
  integer :: blens(3), types(3), iv(10), ibuf(10), st(MPI_STATUS_SIZE)
  type(particle) :: p, q
  character(len=1) :: packed(200)
  character(len=MPI_MAX_OBJECT_NAME) :: tname
  double precision :: x, y

  call ft_init('fort_types')
  right = mod(ft_rank + 1, ft_size)
  left = mod(ft_rank - 1 + ft_size, ft_size)
  do j = 1, nc
    do i = 1, nr
      a(i, j) = 1000 * ft_rank + 10 * i + j
    end do
  end do

  ! A row of a(nr, nc): nc elements nr apart.
  call MPI_Type_vector(nc, 1, nr, MPI_DOUBLE_PRECISION, rowtype, ierr)
  call MPI_Type_commit(rowtype, ierr)
  call MPI_Type_size(rowtype, cnt, ierr)
  call check_int(cnt, 8 * nc, 'Type_size of the row')
  call MPI_Type_get_extent(rowtype, lb, extent, ierr)
  call check(lb == 0 .and. extent == 8 * ((nc - 1) * nr + 1), 'Type_get_extent of the row')
  row = -1
  call MPI_Sendrecv(a(3, 1), 1, rowtype, right, 1, row, nc, MPI_DOUBLE_PRECISION, left, 1, &
                    MPI_COMM_WORLD, st, ierr)
  call check(all(row == [(1000 * left + 30 + j, j = 1, nc)]), 'row 3 received')
  call MPI_Get_elements(st, MPI_DOUBLE_PRECISION, cnt, ierr)
  call check_int(cnt, nc, 'Get_elements')
  call MPI_Type_set_name(rowtype, 'row of a', ierr)
  call MPI_Type_get_name(rowtype, tname, name_len, ierr)
  call check(tname == 'row of a' .and. name_len == 8, 'Type_get_name')
  call MPI_Type_free(rowtype, ierr)
  call check_int(rowtype, MPI_DATATYPE_NULL, 'Type_free')

  ! The block a(2:3, 2:4) as a Fortran-order subarray, into a contiguous one.
  call MPI_Type_create_subarray(2, [nr, nc], [2, 3], [1, 1], MPI_ORDER_FORTRAN, MPI_DOUBLE_PRECISION, &
                                subtype, ierr)
  call check_ok(ierr, 'MPI_Type_create_subarray')
  call MPI_Type_commit(subtype, ierr)
  blk = -1
  call MPI_Sendrecv(a, 1, subtype, right, 2, blk, 6, MPI_DOUBLE_PRECISION, left, 2, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call check(all(blk == reshape([((1000 * left + 10 * i + j, i = 2, 3), j = 2, 4)], [2, 3])), &
             'subarray received')
  call MPI_Type_free(subtype, ierr)

  ! Indexed: elements 1, 2 and 6..8 of iv.
  iv = [(ft_rank * 100 + i, i = 1, 10)]
  call MPI_Type_indexed(2, [2, 3], [0, 5], MPI_INTEGER, idxtype, ierr)
  call MPI_Type_commit(idxtype, ierr)
  ibuf = -1
  call MPI_Sendrecv(iv, 1, idxtype, right, 3, ibuf, 5, MPI_INTEGER, left, 3, MPI_COMM_WORLD, st, ierr)
  call check(all(ibuf(1:5) == left * 100 + [1, 2, 6, 7, 8]), 'indexed received')
  call MPI_Type_free(idxtype, ierr)

  ! Hvector: every other integer by a byte stride of INTEGER(KIND=MPI_ADDRESS_KIND).
  stride = 8
  call MPI_Type_create_hvector(5, 1, stride, MPI_INTEGER, hvtype, ierr)
  call MPI_Type_commit(hvtype, ierr)
  ibuf = -1
  call MPI_Sendrecv(iv, 1, hvtype, right, 4, ibuf, 5, MPI_INTEGER, left, 4, MPI_COMM_WORLD, st, ierr)
  call check(all(ibuf(1:5) == left * 100 + [1, 3, 5, 7, 9]), 'hvector received')

  ! Resized to 2 integers: two of them cover iv(1), iv(3).
  call MPI_Type_create_resized(MPI_INTEGER, 0_MPI_ADDRESS_KIND, 8_MPI_ADDRESS_KIND, restype, ierr)
  call MPI_Type_commit(restype, ierr)
  call MPI_Type_get_extent(restype, lb, extent, ierr)
  call check(extent == 8, 'resized extent')
  ibuf = -1
  call MPI_Sendrecv(iv, 3, restype, right, 5, ibuf, 3, MPI_INTEGER, left, 5, MPI_COMM_WORLD, st, ierr)
  call check(all(ibuf(1:3) == left * 100 + [1, 3, 5]), 'resized received')
  call MPI_Type_free(restype, ierr)
  call MPI_Type_free(hvtype, ierr)

  ! A struct over the derived type, displacements from MPI_Get_address.
  p%id = ft_rank
  p%pos = [1.0d0, 2.0d0, 3.0d0] * ft_rank
  p%tag = -ft_rank
  call MPI_Get_address(p%id, addrs(1), ierr)
  call MPI_Get_address(p%pos, addrs(2), ierr)
  call MPI_Get_address(p%tag, addrs(3), ierr)
  call MPI_Get_address(p, base, ierr)
  disps = addrs - base
  blens = [1, 3, 1]
  types = [MPI_INTEGER, MPI_DOUBLE_PRECISION, MPI_INTEGER]
  call MPI_Type_create_struct(3, blens, disps, types, structtype, ierr)
  call check_ok(ierr, 'MPI_Type_create_struct')
  call MPI_Type_commit(structtype, ierr)
  call MPI_Type_size(structtype, cnt, ierr)
  call check_int(cnt, 4 + 24 + 4, 'Type_size of the struct')
  q%id = -1
  q%pos = -1
  q%tag = -1
  call MPI_Sendrecv(p, 1, structtype, right, 6, q, 1, structtype, left, 6, MPI_COMM_WORLD, st, ierr)
  call check(q%id == left .and. all(q%pos == [1.0d0, 2.0d0, 3.0d0] * left) .and. q%tag == -left, &
             'struct received')

  ! The same with absolute addresses, from and to MPI_BOTTOM: each rank sends
  ! its p to the right, then the q it got, which lands in p two ranks on.
  call MPI_Type_create_struct(3, blens, addrs, types, abstype, ierr)
  call MPI_Type_commit(abstype, ierr)
  q%id = -1
  call MPI_F_sync_reg(p)
  call MPI_Sendrecv(MPI_BOTTOM, 1, abstype, right, 7, q, 1, structtype, left, 7, MPI_COMM_WORLD, st, ierr)
  call check_ok(ierr, 'send from MPI_BOTTOM')
  call check(q%id == left .and. all(q%pos == [1.0d0, 2.0d0, 3.0d0] * left) .and. q%tag == -left, &
             'struct sent from MPI_BOTTOM')
  p%id = -1
  p%pos = -1
  p%tag = -1
  ! p changes behind the compiler's back (it is no argument): MPI_F_sync_reg
  ! says so (MPI 3.1 section 17.1.17).
  call MPI_F_sync_reg(p)
  call MPI_Sendrecv(q, 1, structtype, right, 8, MPI_BOTTOM, 1, abstype, left, 8, MPI_COMM_WORLD, st, ierr)
  call MPI_F_sync_reg(p)
  call check_ok(ierr, 'receive to MPI_BOTTOM')
  i = mod(ft_rank - 2 + 2 * ft_size, ft_size)
  call check(p%id == i .and. all(p%pos == [1.0d0, 2.0d0, 3.0d0] * i) .and. p%tag == -i, &
             'struct received at MPI_BOTTOM')
  call MPI_Type_free(abstype, ierr)
  call MPI_Type_free(structtype, ierr)

  ! Pack an integer and a double precision, unpack them elsewhere.
  call MPI_Pack_size(1, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, psize, ierr)
  call check(psize >= 8, 'Pack_size')
  pos = 0
  call MPI_Pack(ft_rank, 1, MPI_INTEGER, packed, 200, pos, MPI_COMM_WORLD, ierr)
  x = 2.5d0 * ft_rank
  call MPI_Pack(x, 1, MPI_DOUBLE_PRECISION, packed, 200, pos, MPI_COMM_WORLD, ierr)
  call check_int(pos, 12, 'Pack position')
  call MPI_Sendrecv_replace(packed, pos, MPI_PACKED, right, 8, left, 8, MPI_COMM_WORLD, st, ierr)
  pos = 0
  call MPI_Unpack(packed, 200, pos, cnt, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call MPI_Unpack(packed, 200, pos, y, 1, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
  call check(cnt == left .and. y == 2.5d0 * left, 'Unpack data')

  ! MPI_Sizeof (the module's generic): the bytes of one element.
  call MPI_Sizeof(cnt, psize, ierr)
  call check_int(psize, 4, 'MPI_Sizeof of an INTEGER')
  call MPI_Sizeof(a, psize, ierr)
  call check_int(psize, 8, 'MPI_Sizeof of a DOUBLE PRECISION array')
  call MPI_Sizeof(p%pos(2), psize, ierr)
  call check_int(psize, 8, 'MPI_Sizeof of an array element')
  call MPI_Sizeof((1.0, 2.0), psize, ierr)
  call check_int(psize, 8, 'MPI_Sizeof of a COMPLEX')

  call ft_finish()
end program fort_types
