! commfaults_f08 — a communication fault in a `use mpi_f08` program (Open MPI's
! libmpi_usempif08: the mpi_*_f08_ entry points), after a short healthy phase (PS_FAULT_AFTER
! seconds, default 1): rank 1 skips an MPI_Allreduce the others call and goes on to the final
! MPI_Barrier. Each rank prints "rank R pid P" when PS_PRINT_PIDS is set.
program commfaults_f08
  use mpi_f08
  implicit none
  integer :: rank, nprocs, x, total, stop_now
  double precision :: t0, after
  character(len=32) :: val

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  call get_environment_variable('PS_FAULT_AFTER', val)
  after = 1d0
  if (len_trim(val) > 0) read (val, *) after
  call get_environment_variable('PS_PRINT_PIDS', val)
  if (len_trim(val) > 0) then
    write (*, '(A,I0,A,I0)') 'rank ', rank, ' pid ', getpid()
    flush (6)
  end if
  t0 = MPI_Wtime()
  stop_now = 0
  do while (stop_now == 0)
    x = rank
    call MPI_Allreduce(x, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    if (MPI_Wtime() - t0 >= after) stop_now = 1
    call MPI_Bcast(stop_now, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
  end do
  if (rank /= 1) then
    call MPI_Allreduce(x, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD) ! site: f08-allreduce-others
  end if
  call MPI_Barrier(MPI_COMM_WORLD) ! site: f08-barrier
  call MPI_Finalize()
end program commfaults_f08
! SPDX-License-Identifier: BSD-3-Clause
