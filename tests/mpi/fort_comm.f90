! fort_comm.f90 - communicators, groups, topologies and the environment from
! Fortran through `use mpi`: dup/split/compare/free, groups with
! Group_range_incl's (3, n) ranges, a periodic-by-one Cartesian grid
! (Dims_create, Cart_create with LOGICAL periods, coords, shift, get, sub)
! with a halo exchange, strings (Comm_set_name/get_name, Get_processor_name,
! Error_string, Info keys and values: blank-padded out, trimmed in),
! attributes (MPI_TAG_UB, keyvals with MPI_COMM_DUP_FN and with Fortran
! copy and delete callbacks), error handlers (MPI_ERRORS_RETURN and one
! written in Fortran), Wtime/Wtick, versions.
module fort_comm_cb
  use mpi
  implicit none
  integer :: copies = 0, deletes = 0, handled = 0, handled_code = 0
  integer(kind=MPI_ADDRESS_KIND) :: seen_extra = -1
contains
  subroutine my_copy(oldcomm, keyval, extra_state, attribute_val_in, attribute_val_out, flag, ierror)
    integer :: oldcomm, keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
    logical :: flag
    copies = copies + 1
    seen_extra = extra_state
    attribute_val_out = attribute_val_in + 1
    flag = .true.
    ierror = MPI_SUCCESS
  end subroutine my_copy

  subroutine my_delete(comm, keyval, attribute_val, extra_state, ierror)
    integer :: comm, keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    deletes = deletes + 1
    ierror = MPI_SUCCESS
  end subroutine my_delete

  subroutine my_handler(comm, code)
    integer :: comm, code
    handled = handled + 1
    handled_code = code
  end subroutine my_handler
end module fort_comm_cb

program fort_comm
  use ftest
  use fort_comm_cb
  implicit none
  integer :: ierr, dup, half, res, grp, rgrp, sgrp, i, n, cls, key, key2, key3, cart, sub, eh
  integer :: ver, subver, len, info, nkeys, src, dst, lo, hi, sz, rk
  integer :: dims(2), coords(2), cdims(2), ccoords(2), ranges(3, 1)
  integer, allocatable :: ranks(:), tr(:)
  logical :: periods(2), cperiods(2), flag, remain(2)
  integer(kind=MPI_ADDRESS_KIND) :: val
  character(len=MPI_MAX_OBJECT_NAME) :: name
  character(len=MPI_MAX_PROCESSOR_NAME) :: host
  character(len=MPI_MAX_ERROR_STRING) :: estr
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: lib
  character(len=40) :: value
  character(len=MPI_MAX_INFO_KEY) :: ikey
  double precision :: t0, t1, tick
  integer :: halo(2), mine

  call ft_init('fort_comm')

  ! Environment.
  call MPI_Initialized(flag, ierr)
  call check(flag, 'MPI_Initialized')
  call MPI_Finalized(flag, ierr)
  call check(.not. flag, 'MPI_Finalized before MPI_Finalize')
  call MPI_Get_version(ver, subver, ierr)
  call check(ver >= 3, 'MPI_Get_version')
  call MPI_Get_library_version(lib, len, ierr)
  call check(len > 0 .and. len <= MPI_MAX_LIBRARY_VERSION_STRING, 'Get_library_version length')
  t0 = MPI_Wtime()
  tick = MPI_Wtick()
  t1 = MPI_Wtime()
  call check(tick > 0 .and. tick < 1 .and. t1 >= t0, 'Wtime and Wtick')

  ! Strings out: the length of the text, the rest blank.
  call MPI_Get_processor_name(host, len, ierr)
  call check(len > 0 .and. len_trim(host) == len, 'Get_processor_name: blank-padded after its length')
  call MPI_Comm_get_name(MPI_COMM_WORLD, name, len, ierr)
  call check(name == 'MPI_COMM_WORLD' .and. len == 14, 'the world is named MPI_COMM_WORLD')
  call MPI_Error_string(MPI_ERR_RANK, estr, len, ierr)
  call check(len > 0 .and. len_trim(estr) == len, 'Error_string: blank-padded after its length')
  call MPI_Error_class(MPI_ERR_RANK, cls, ierr)
  call check_int(cls, MPI_ERR_RANK, 'Error_class of a class')

  ! Dup, names (trailing blanks of the name given do not count), compare.
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Comm_set_name(dup, 'fortran dup   ', ierr)
  name = 'garbage'
  call MPI_Comm_get_name(dup, name, len, ierr)
  call check(name == 'fortran dup' .and. len == 11, 'Comm_get_name after Comm_set_name')
  call MPI_Comm_compare(MPI_COMM_WORLD, dup, res, ierr)
  call check_int(res, MPI_CONGRUENT, 'Comm_compare of a dup')

  ! Split into even and odd ranks.
  call MPI_Comm_split(MPI_COMM_WORLD, mod(ft_rank, 2), -ft_rank, half, ierr)
  call MPI_Comm_size(half, sz, ierr)
  call MPI_Comm_rank(half, rk, ierr)
  call check_int(sz, (ft_size + 1 - mod(ft_rank, 2)) / 2, 'split size')
  call check_int(rk, sz - 1 - ft_rank / 2, 'split rank (key reverses)')
  call MPI_Comm_free(half, ierr)
  call check_int(half, MPI_COMM_NULL, 'Comm_free')

  ! Groups: every rank reversed; ranges (first, last, stride) in a (3, n) array.
  call MPI_Comm_group(MPI_COMM_WORLD, grp, ierr)
  allocate(ranks(ft_size), tr(ft_size))
  ranks = [(ft_size - 1 - i, i = 0, ft_size - 1)]
  call MPI_Group_incl(grp, ft_size, ranks, rgrp, ierr)
  call MPI_Group_rank(rgrp, rk, ierr)
  call check_int(rk, ft_size - 1 - ft_rank, 'Group_incl reversed rank')
  call MPI_Group_translate_ranks(rgrp, ft_size, [(i, i = 0, ft_size - 1)], grp, tr, ierr)
  call check(all(tr == ranks), 'Group_translate_ranks')
  ranges(:, 1) = [0, ft_size - 1, 2]
  call MPI_Group_range_incl(grp, 1, ranges, sgrp, ierr)
  call MPI_Group_size(sgrp, sz, ierr)
  call check_int(sz, (ft_size + 1) / 2, 'Group_range_incl size')
  call MPI_Comm_create(MPI_COMM_WORLD, sgrp, half, ierr)
  if (mod(ft_rank, 2) == 0) then
    call MPI_Comm_rank(half, rk, ierr)
    call check_int(rk, ft_rank / 2, 'Comm_create rank')
    call MPI_Comm_free(half, ierr)
  else
    call check_int(half, MPI_COMM_NULL, 'Comm_create outside the group')
  end if
  call MPI_Group_free(sgrp, ierr)
  call MPI_Group_free(rgrp, ierr)
  call MPI_Group_free(grp, ierr)
  call check_int(grp, MPI_GROUP_NULL, 'Group_free')
  deallocate(ranks, tr)

  ! A grid periodic in its first dimension only.
  dims = 0
  call MPI_Dims_create(ft_size, 2, dims, ierr)
  call check_int(dims(1) * dims(2), ft_size, 'Dims_create')
  periods = [.true., .false.]
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., cart, ierr)
  call check_ok(ierr, 'MPI_Cart_create')
  call MPI_Topo_test(cart, res, ierr)
  call check_int(res, MPI_CART, 'Topo_test')
  call MPI_Cartdim_get(cart, n, ierr)
  call check_int(n, 2, 'Cartdim_get')
  call MPI_Comm_rank(cart, rk, ierr)
  call MPI_Cart_coords(cart, rk, 2, coords, ierr)
  call MPI_Cart_rank(cart, coords, n, ierr)
  call check_int(n, rk, 'Cart_rank of Cart_coords')
  cperiods = [.false., .true.]
  call MPI_Cart_get(cart, 2, cdims, cperiods, ccoords, ierr)
  call check(all(cdims == dims) .and. all(ccoords == coords), 'Cart_get dims and coords')
  call check(cperiods(1) .and. .not. cperiods(2), 'Cart_get LOGICAL periods')
  call MPI_Cart_shift(cart, 1, 1, lo, hi, ierr)
  if (coords(2) == 0) call check_int(lo, MPI_PROC_NULL, 'Cart_shift off the open edge')
  if (coords(2) == dims(2) - 1) call check_int(hi, MPI_PROC_NULL, 'Cart_shift off the other edge')
  call MPI_Cart_shift(cart, 0, 1, src, dst, ierr)
  call check(src /= MPI_PROC_NULL .and. dst /= MPI_PROC_NULL, 'Cart_shift along the periodic dimension')
  ! Halo along dimension 0: receive the neighbours' coordinates.
  mine = coords(1)
  halo = -1
  call MPI_Sendrecv(mine, 1, MPI_INTEGER, dst, 1, halo(1), 1, MPI_INTEGER, src, 1, cart, MPI_STATUS_IGNORE, ierr)
  call MPI_Sendrecv(mine, 1, MPI_INTEGER, src, 2, halo(2), 1, MPI_INTEGER, dst, 2, cart, MPI_STATUS_IGNORE, ierr)
  call check_int(halo(1), mod(coords(1) - 1 + dims(1), dims(1)), 'halo from below')
  call check_int(halo(2), mod(coords(1) + 1, dims(1)), 'halo from above')
  remain = [.false., .true.]
  call MPI_Cart_sub(cart, remain, sub, ierr)
  call MPI_Comm_size(sub, sz, ierr)
  call check_int(sz, dims(2), 'Cart_sub size')
  call MPI_Comm_free(sub, ierr)
  call MPI_Comm_free(cart, ierr)

  ! Attributes: MPI_TAG_UB's value itself.
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, val, flag, ierr)
  call check(flag .and. val >= 32767, 'MPI_TAG_UB attribute')
  ! A keyval copied by MPI_COMM_DUP_FN, one by Fortran callbacks, one not copied.
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, key, 0_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_create_keyval(my_copy, my_delete, key2, 77_MPI_ADDRESS_KIND, ierr)
  call check_ok(ierr, 'Comm_create_keyval with Fortran callbacks')
  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, key3, 0_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_set_attr(dup, key, 42_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_set_attr(dup, key2, 5_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_set_attr(dup, key3, 9_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_get_attr(dup, key2, val, flag, ierr)
  call check(flag .and. val == 5, 'Comm_get_attr after Comm_set_attr')
  call MPI_Comm_dup(dup, half, ierr)
  call check_int(copies, 1, 'the Fortran copy callback ran once')
  call check(seen_extra == 77, 'the copy callback got the extra state')
  call MPI_Comm_get_attr(half, key, val, flag, ierr)
  call check(flag .and. val == 42, 'MPI_COMM_DUP_FN copied the value')
  call MPI_Comm_get_attr(half, key2, val, flag, ierr)
  call check(flag .and. val == 6, 'the Fortran copy callback set the value')
  call MPI_Comm_get_attr(half, key3, val, flag, ierr)
  call check(.not. flag, 'MPI_COMM_NULL_COPY_FN copied nothing')
  call MPI_Comm_free(half, ierr)
  call check_int(deletes, 1, 'the Fortran delete callback ran on Comm_free')
  call MPI_Comm_delete_attr(dup, key2, ierr)
  call check_int(deletes, 2, 'the Fortran delete callback ran on Comm_delete_attr')
  call MPI_Comm_free_keyval(key, ierr)
  call MPI_Comm_free_keyval(key2, ierr)
  call MPI_Comm_free_keyval(key3, ierr)
  call check_int(key2, MPI_KEYVAL_INVALID, 'Comm_free_keyval')

  ! Errors returned, then given to a handler written in Fortran.
  call MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN, ierr)
  call MPI_Send(mine, 1, MPI_INTEGER, ft_size, 0, dup, ierr)
  call check(ierr /= MPI_SUCCESS, 'a send to rank size fails')
  call MPI_Error_class(ierr, cls, ierr)
  call check_int(cls, MPI_ERR_RANK, 'its class')
  call MPI_Comm_create_errhandler(my_handler, eh, ierr)
  call check_ok(ierr, 'Comm_create_errhandler')
  call MPI_Comm_set_errhandler(dup, eh, ierr)
  call MPI_Errhandler_free(eh, ierr)
  call MPI_Send(mine, 1, MPI_INTEGER, ft_size, 0, dup, ierr)
  call check_int(handled, 1, 'the Fortran handler ran')
  call MPI_Error_class(handled_code, cls, ierr)
  call check_int(cls, MPI_ERR_RANK, 'the handler got the code')
  call MPI_Comm_free(dup, ierr)

  ! Info: keys and values lose their blanks going in.
  call MPI_Info_create(info, ierr)
  call MPI_Info_set(info, 'color ', 'deep blue   ', ierr)
  call MPI_Info_set(info, 'size', '10', ierr)
  call MPI_Info_get_nkeys(info, nkeys, ierr)
  call check_int(nkeys, 2, 'Info_get_nkeys')
  call MPI_Info_get(info, 'color', 40, value, flag, ierr)
  call check(flag .and. value == 'deep blue', 'Info_get value')
  call MPI_Info_get(info, 'color', 4, value, flag, ierr)
  call check(flag .and. value == 'deep', 'Info_get cut at valuelen')
  call MPI_Info_get_valuelen(info, 'color', len, flag, ierr)
  call check(flag .and. len == 9, 'Info_get_valuelen')
  call MPI_Info_get(info, 'shape', 40, value, flag, ierr)
  call check(.not. flag, 'Info_get of a missing key')
  call MPI_Info_get_nthkey(info, 0, ikey, ierr)
  call check(ikey == 'color', 'Info_get_nthkey')
  call MPI_Info_delete(info, 'size', ierr)
  call MPI_Info_get_nkeys(info, nkeys, ierr)
  call check_int(nkeys, 1, 'Info_delete')
  call MPI_Info_free(info, ierr)
  call check_int(info, MPI_INFO_NULL, 'Info_free')

  call ft_finish()
end program fort_comm
