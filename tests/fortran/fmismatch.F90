! An erroneous Fortran program for TRELLIS_CHECK (docs/check.md): rank 1
! broadcasts from another root than the others. Run by tests/check's
! run_mismatch.sh, which expects the report to name this file and the
! line of the call, through the binding's wrapper.
program fmismatch
  use mpi
  implicit none
  integer :: ierr, rank, root, buf(4)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  root = 0
  if (rank == 1) root = 1
  buf = rank
  call MPI_Bcast(buf, 4, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program fmismatch
