! heat_mod — a Fortran code whose work lives in a module, as Quantum ESPRESSO's and CP2K's does:
! gfortran names its procedures __heat_MOD_relax, and a report must read heat::relax (the
! stripped copy's too). A Jacobi sweep, a halo exchange (MPI_SENDRECV) and a residual
! MPI_ALLREDUCE per iteration through `use mpi`. Faults from the environment as in faults.h:
! PS_FAULT=spin (rank PS_FAULT_RANK spins in heat::spin_forever after PS_FAULT_AFTER s),
! PS_ITERS, PS_PRINT_PIDS (each rank prints "rank R pid P").
module heat
  use mpi
  implicit none
  integer, parameter :: n = 20000
contains
  subroutine relax(u, v)
    double precision, intent(inout) :: u(0:n+1), v(0:n+1)
    integer :: i
    do i = 1, n
      v(i) = 0.5d0 * (u(i-1) + u(i+1))
    end do
    u(1:n) = v(1:n)
  end subroutine relax

  subroutine exchange(u, left, right)
    double precision, intent(inout) :: u(0:n+1)
    integer, intent(in) :: left, right
    integer :: ierr, status(MPI_STATUS_SIZE)
    call MPI_SENDRECV(u(n), 1, MPI_DOUBLE_PRECISION, right, 0, u(0), 1, MPI_DOUBLE_PRECISION, &
                      left, 0, MPI_COMM_WORLD, status, ierr)
    call MPI_SENDRECV(u(1), 1, MPI_DOUBLE_PRECISION, left, 1, u(n+1), 1, MPI_DOUBLE_PRECISION, &
                      right, 1, MPI_COMM_WORLD, status, ierr)
  end subroutine exchange

  subroutine spin_forever()
    integer, volatile :: k
    k = 0
    do
      k = k + 1
    end do
  end subroutine spin_forever
end module heat

program heat_main
  use heat
  implicit none
  double precision :: u(0:n+1), v(0:n+1), local, global, t0, after
  integer :: ierr, rank, nprocs, it, iters, fault_rank
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
  call get_environment_variable('PS_PRINT_PIDS', buf)
  if (len_trim(buf) > 0) then
    print '(a,i0,a,i0)', 'rank ', rank, ' pid ', getpid()
    flush(6)
  end if
  u = rank
  t0 = MPI_WTIME()
  it = 0
  do while (iters < 0 .or. it < iters)
    it = it + 1
    if (rank == fault_rank .and. trim(fault) == 'spin' .and. MPI_WTIME() - t0 >= after) call spin_forever()
    call relax(u, v)
    call exchange(u, mod(rank + nprocs - 1, nprocs), mod(rank + 1, nprocs))
    local = sum(u(1:n))
    call MPI_ALLREDUCE(local, global, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do
  call MPI_FINALIZE(ierr)
end program heat_main
! SPDX-License-Identifier: BSD-3-Clause
