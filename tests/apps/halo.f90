! halo — a ring halo exchange written as stencil codes write it (the shape of NPB BT's
! copy_faces): each iteration posts MPI_IRECV from both neighbours and MPI_ISEND to both, waits
! in MPI_WAITALL, computes, and every 10 iterations reduces the residual with MPI_ALLREDUCE.
! Runs PS_ITERS iterations (unset: until ended). Healthy by itself: its faults come from
! outside (tests/fixtures/psinject.c, preloaded), as they would in a program nobody here wrote.
program halo
  use mpi
  implicit none
  integer, parameter :: n = 512
  double precision :: u(0:n+1), unew(n), res, gres
  integer :: rank, nranks, left, right, ierr, it, iters, i, k
  character(len=32) :: env

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  left = mod(rank + nranks - 1, nranks)
  right = mod(rank + 1, nranks)
  iters = -1
  call get_environment_variable("PS_ITERS", env)
  if (len_trim(env) > 0) read (env, *) iters
  u = rank
  it = 0
  do while (iters < 0 .or. it < iters)
    it = it + 1
    call exchange(u, n, left, right)
    do k = 1, 400
      do i = 1, n
        unew(i) = 0.5d0*u(i) + 0.25d0*(u(i - 1) + u(i + 1))
      end do
      u(1:n) = unew
    end do
    if (mod(it, 10) == 0) then
      res = sum(u(1:n))
      call MPI_Allreduce(res, gres, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr) ! site: halo-allreduce
    end if
  end do
  if (rank == 0) print '(a, i0, a)', 'halo: ', it, ' iterations'
  call MPI_Finalize(ierr)

contains

  subroutine exchange(u, n, left, right)
    integer, intent(in) :: n, left, right
    double precision, intent(inout) :: u(0:n+1)
    integer :: reqs(4), ierr

    call MPI_Irecv(u(0), 1, MPI_DOUBLE_PRECISION, left, 5, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Irecv(u(n + 1), 1, MPI_DOUBLE_PRECISION, right, 6, MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_Isend(u(1), 1, MPI_DOUBLE_PRECISION, left, 6, MPI_COMM_WORLD, reqs(3), ierr)
    call MPI_Isend(u(n), 1, MPI_DOUBLE_PRECISION, right, 5, MPI_COMM_WORLD, reqs(4), ierr)
    call MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE, ierr) ! site: halo-waitall
  end subroutine exchange
end program halo
! SPDX-License-Identifier: BSD-3-Clause
