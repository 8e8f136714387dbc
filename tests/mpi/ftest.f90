! ftest.f90 - helpers for the Fortran MPI tests. Standard MPI only: the
! same sources run on Bolt and on Open MPI (fortran.sh builds both).
module ftest
  use mpi
  implicit none
  integer :: ft_rank = 0, ft_size = 1, ft_fails = 0
  character(len=32) :: ft_name = 'test'
contains
  subroutine ft_init(name)
    character(len=*), intent(in) :: name
    integer :: ierr
    ft_name = name
    call MPI_Init(ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Init')
    call MPI_Comm_rank(MPI_COMM_WORLD, ft_rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, ft_size, ierr)
  end subroutine ft_init

  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    if (.not. cond) then
      write (0, '(A,A,I0,A,A)') trim(ft_name), ': rank ', ft_rank, ': check failed: ', what
      ft_fails = ft_fails + 1
    end if
  end subroutine check

  ! An integer result against the expected one, both shown on failure.
  subroutine check_int(got, want, what)
    integer, intent(in) :: got, want
    character(len=*), intent(in) :: what
    if (got /= want) then
      write (0, '(A,A,I0,A,A,A,I0,A,I0)') trim(ft_name), ': rank ', ft_rank, ': check failed: ', &
        what, ': got ', got, ', want ', want
      ft_fails = ft_fails + 1
    end if
  end subroutine check_int

  subroutine check_ok(ierr, what)
    integer, intent(in) :: ierr
    character(len=*), intent(in) :: what
    call check_int(ierr, MPI_SUCCESS, what)
  end subroutine check_ok

  ! Agrees on the outcome, prints "<name>: ok" on rank 0, finalizes; a
  ! failed test exits 1.
  subroutine ft_finish()
    integer :: total, ierr
    call MPI_Allreduce(ft_fails, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (ft_rank == 0) then
      if (total == 0) then
        write (*, '(A,A,I0,A)') trim(ft_name), ': ok (', ft_size, ' ranks)'
      else
        write (*, '(A,A,I0,A,I0,A)') trim(ft_name), ': FAILED (', total, ' checks) with ', ft_size, ' ranks'
      end if
    end if
    call MPI_Finalize(ierr)
    if (total /= 0) stop 1
  end subroutine ft_finish
end module ftest
