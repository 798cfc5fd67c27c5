! commfaults_f — Fortran twins of two commfaults.c scenarios for the recording layer, after a
! short healthy phase (MPI_ALLREDUCE and MPI_SENDRECV, PS_FAULT_AFTER seconds, default 1):
!   PS_COMM=cycle2  ranks 1 and 2 each MPI_RECV from the other; the rest wait in MPI_BARRIER
!   PS_COMM=bcast   rank 1 calls MPI_BCAST where the others call MPI_ALLREDUCE
!   PS_COMM=alltoall  rank 1 skips an MPI_ALLTOALL the others call
!   PS_COMM=waitany   rank 1 waits in MPI_WAITANY for a message rank 2 never sends
! Built twice: with `use mpi` (commfaults_f) and, with -DUSE_MPIF_H, with mpif.h
! (commfaults_fh). Each rank prints "rank R pid P" when PS_PRINT_PIDS is set.
program commfaults_f
#ifdef USE_MPIF_H
  implicit none
  include 'mpif.h'
#else
  use mpi
  implicit none
#endif
  integer :: ierr, rank, nprocs, x, total, stop_now
  double precision :: t0, after
  character(len=32) :: what, val
  integer :: status(MPI_STATUS_SIZE)
  integer :: sendbuf(64), recvbuf(64), reqs(2), idx

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  call get_environment_variable('PS_COMM', what)
  call get_environment_variable('PS_FAULT_AFTER', val)
  after = 1d0
  if (len_trim(val) > 0) read (val, *) after
  call get_environment_variable('PS_PRINT_PIDS', val)
  if (len_trim(val) > 0) then
    write (*, '(A,I0,A,I0)') 'rank ', rank, ' pid ', getpid()
    flush (6)
  end if
  t0 = MPI_WTIME()
  stop_now = 0
  do while (stop_now == 0)
    x = rank
    call MPI_ALLREDUCE(x, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call MPI_SENDRECV(x, 1, MPI_INTEGER, mod(rank + 1, nprocs), 1, total, 1, MPI_INTEGER, &
                      mod(rank + nprocs - 1, nprocs), 1, MPI_COMM_WORLD, status, ierr)
    if (MPI_WTIME() - t0 >= after) stop_now = 1
    call MPI_BCAST(stop_now, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  end do
  if (what == 'cycle2') then
    if (rank == 1 .or. rank == 2) then
      call MPI_RECV(x, 1, MPI_INTEGER, 3 - rank, 5, MPI_COMM_WORLD, status, ierr) ! site: f-recv
    else
      call MPI_BARRIER(MPI_COMM_WORLD, ierr)
    end if
  else if (what == 'bcast') then
    if (rank == 1) then
      call MPI_BCAST(x, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr) ! site: f-bcast-odd
    else
      call MPI_ALLREDUCE(x, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr) ! site: f-bcast-others
    end if
  else if (what == 'alltoall') then
    sendbuf = rank
    if (rank /= 1) then
      call MPI_ALLTOALL(sendbuf, 1, MPI_INTEGER, recvbuf, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr) ! site: f-alltoall-others
    end if
  else if (what == 'waitany') then
    if (rank == 1) then
      call MPI_IRECV(x, 1, MPI_INTEGER, 2, 12, MPI_COMM_WORLD, reqs(1), ierr) ! site: f-irecv
      reqs(2) = MPI_REQUEST_NULL
      call MPI_WAITANY(2, reqs, idx, status, ierr) ! site: f-waitany
    end if
  end if
  call MPI_BARRIER(MPI_COMM_WORLD, ierr) ! site: f-final-barrier
  call MPI_FINALIZE(ierr)
end program commfaults_f
! SPDX-License-Identifier: BSD-3-Clause
