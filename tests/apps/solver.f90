! solver — a Fortran Jacobi solver on a 1-D domain with halo exchange (MPI_SENDRECV) and a
! residual MPI_ALLREDUCE every iteration, through the Fortran MPI bindings. Faults from the
! environment as in faults.h: PS_FAULT=spin|sleep, PS_FAULT_RANK, PS_FAULT_AFTER, PS_ITERS.
program solver
  implicit none
  include 'mpif.h'
  integer, parameter :: n = 20000
  double precision :: u(0:n+1), v(0:n+1), local, global, t0
  integer :: ierr, rank, nprocs, left, right, it, iters, fault_rank, status(MPI_STATUS_SIZE)
  double precision :: after
  character(len=32) :: fault, buf

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  call get_environment_variable('PS_FAULT', fault)
  call get_environment_variable('PS_FAULT_RANK', buf)
  fault_rank = 1
  if (len_trim(buf) > 0) read (buf, *) fault_rank
  call get_environment_variable('PS_FAULT_AFTER', buf)
  after = 30
  if (len_trim(buf) > 0) read (buf, *) after
  call get_environment_variable('PS_ITERS', buf)
  iters = -1
  if (len_trim(buf) > 0) read (buf, *) iters
  left = mod(rank + nprocs - 1, nprocs)
  right = mod(rank + 1, nprocs)
  u = rank
  t0 = MPI_WTIME()
  it = 0
  do while (iters < 0 .or. it < iters)
    it = it + 1
    if (rank == fault_rank .and. MPI_WTIME() - t0 >= after) then
      if (trim(fault) == 'spin') call faulty_spin()
      if (trim(fault) == 'sleep') call faulty_sleep()
    end if
    call relax(u, v, n)
    call MPI_SENDRECV(u(n), 1, MPI_DOUBLE_PRECISION, right, 0, u(0), 1, MPI_DOUBLE_PRECISION, &
                      left, 0, MPI_COMM_WORLD, status, ierr)
    call MPI_SENDRECV(u(1), 1, MPI_DOUBLE_PRECISION, left, 1, u(n+1), 1, MPI_DOUBLE_PRECISION, &
                      right, 1, MPI_COMM_WORLD, status, ierr)
    local = sum(abs(v(1:n) - u(1:n)))
    call MPI_ALLREDUCE(local, global, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do
  call MPI_FINALIZE(ierr)
contains
  subroutine relax(a, b, m)
    integer, intent(in) :: m
    double precision, intent(inout) :: a(0:m+1), b(0:m+1)
    integer :: s, i
    do s = 1, 60
      do i = 1, m
        b(i) = 0.5d0 * (a(i-1) + a(i+1))
      end do
      a(1:m) = b(1:m) + 1d-12
    end do
  end subroutine relax

  subroutine faulty_spin()
    double precision, volatile :: x
    x = 0
    do
      x = x + 1
    end do
  end subroutine faulty_spin

  subroutine faulty_sleep()
    do
      call sleep(100)
    end do
  end subroutine faulty_sleep
end program solver
! SPDX-License-Identifier: BSD-3-Clause
