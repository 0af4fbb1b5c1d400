! The neighbourhood collectives from a Fortran program: MPI_Neighbor_allgather(v),
! MPI_Neighbor_alltoall(v,w), each blocking and non-blocking (MPI_Ineighbor_*,
! completed by MPI_Wait), checked against values computed here from the MPI
! standard alone, knowing nothing of Trellis. One source for the three
! bindings (binding.inc). The graphs:
!   - a periodic 2D Cartesian communicator, dims from MPI_Dims_create (on 3
!     ranks an extent of 1, a rank its own neighbour both ways, and 4
!     neighbours, more than the ranks; on 4 an extent of 2, one neighbour
!     both ways);
!   - a non-periodic 1D one, whose border ranks have MPI_PROC_NULL
!     neighbours: the receive blocks from those must stay untouched;
!   - a distributed graph (MPI_Dist_graph_create_adjacent): a ring, each rank
!     sending to the next twice and to itself once, its sources given in
!     another order than its destinations.
! Pairing (the standard): Cartesian receive block 2d comes from the negative
! neighbour's send block 2d+1, block 2d+1 from the positive neighbour's
! block 2d; a graph's k-th edge s -> r in s's destinations meets the k-th
! occurrence of s in r's sources.
! The v forms have counts per edge and gaps between blocks (which must stay
! untouched); the w form a datatype per edge (alternately MPI_INTEGER and a
! pair of them, differently on the two sides) and byte displacements, its
! arrays as long as the degrees (4 > 3 ranks on the 2D grid: Open MPI 4.1's
! own binding reads as many datatypes as ranks, and crashes there; Trellis'
! reads the degrees). MPICH 4.0's mpi_f08 MPI_Neighbor_alltoallw asks every
! communicator for its distributed graph's degrees, and fails on a Cartesian
! one: there only the distributed graph has it. Rank 0 ends
! with "fnbr <binding> ranks=P: N checks, F failed" (the suite greps
! ", 0 failed$"; run_forced.sh checks that Trellis ran each call).
program fnbr
#include "binding.inc"

  integer, parameter :: sizes(3) = [1, 7, 300], SENTINEL = -7, GAP = 2
  integer :: ierr, p, r, k, n, checks, failures, me, indeg, outdeg
  logical :: cartesian, f08_mpich
  ! In-block j's sender (MPI_PROC_NULL: none) and the sender's out-block of it (from 0).
  integer, allocatable :: src(:), ksrc(:)
  character(len=12) :: gname
  COMM_T :: world, comm

  call start()
  f08_mpich = BINDING == 'mpi_f08' .and. library_is('MPICH')

  call cart(2, .true., 'cart2d')
  call every_call()
  call cart(1, .false., 'cart1d')
  call every_call()
  call ring()
  call every_call()
  call summary('fnbr')
  call MPI_Finalize(ierr)

contains

#include "report.inc"

  ! No blocking call first: Trellis sets the communicator up in its constructor,
  ! which each binding reaches through Trellis' own symbols (run_forced.sh fails
  ! where a non-blocking call found it not set up).
  subroutine set_up()
    call MPI_Comm_rank(comm, me, ierr)
  end subroutine

  ! An ndims-dimensional grid over every rank: in-blocks 2d and 2d+1 come from the
  ! negative and the positive neighbour along dimension d.
  subroutine cart(ndims, periodic, name)
    integer, intent(in) :: ndims
    logical, intent(in) :: periodic
    character(len=*), intent(in) :: name
    integer :: dims(ndims), d, lo, hi
    logical :: periods(ndims)
    gname = name
    cartesian = .true.
    dims = 0
    periods = periodic
    call MPI_Dims_create(p, ndims, dims, ierr)
    call MPI_Cart_create(world, ndims, dims, periods, .false., comm, ierr)
    call set_up()
    indeg = 2 * ndims
    outdeg = 2 * ndims
    allocate (src(indeg), ksrc(indeg))
    do d = 0, ndims - 1
      call MPI_Cart_shift(comm, d, 1, lo, hi, ierr)
      src(2 * d + 1) = lo
      ksrc(2 * d + 1) = 2 * d + 1
      src(2 * d + 2) = hi
      ksrc(2 * d + 2) = 2 * d
    end do
  end subroutine

  ! Every rank sends to the next one, to itself, then to the next one again, and
  ! lists its sources as itself, the previous one, the previous one.
  subroutine ring()
    integer :: next, prev, dests(3), sources(3)
    gname = 'dist_graph'
    cartesian = .false.
    next = mod(r + 1, p)
    prev = mod(r + p - 1, p)
    dests = [next, r, next]
    sources = [r, prev, prev]
    call MPI_Dist_graph_create_adjacent(world, 3, sources, MPI_UNWEIGHTED, 3, dests, &
                                        MPI_UNWEIGHTED, MPI_INFO_NULL, .false., comm, ierr)
    call set_up()
    indeg = 3
    outdeg = 3
    allocate (src(indeg), ksrc(indeg))
    src = sources
    ksrc = [1, 0, 2]
  end subroutine

  ! Every collective on comm, non-blocking and blocking (the first call on a new
  ! communicator non-blocking), for each size; then comm goes.
  subroutine every_call()
    logical :: nb
    integer :: form
    do k = 1, size(sizes)
      n = sizes(k)
      do form = 1, 0, -1
        nb = form == 1
        call fixed_count(nb, .false.)
        call allgatherv(nb)
        call fixed_count(nb, .true.)
        call alltoallv(nb)
        if (.not. (cartesian .and. f08_mpich)) call alltoallw(nb)
      end do
    end do
    call MPI_Comm_free(comm, ierr)
    deallocate (src, ksrc)
  end subroutine

  logical function library_is(name)
    character(len=*), intent(in) :: name
    character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: version
    integer :: length
    call MPI_Get_library_version(version, length, ierr)
    library_is = index(version(1:length), name) > 0
  end function

  logical function from(j)
    integer, intent(in) :: j
    from = src(j) /= MPI_PROC_NULL
  end function

  ! Element i of rank s's allgather block; of its send block k (from 0) otherwise.
  integer function gval(s, i)
    integer, intent(in) :: s, i
    gval = 100000 * s + 7 * i + 1
  end function

  integer function val(s, kk, i)
    integer, intent(in) :: s, kk, i
    val = 100000 * s + 1000 * kk + i
  end function

  ! Rank s's allgatherv count; the count of its send block k (from 0).
  integer function gcount(s)
    integer, intent(in) :: s
    gcount = n + mod(s, 3)
  end function

  integer function ecount(s, kk)
    integer, intent(in) :: s, kk
    ecount = n + mod(s + kk, 3)
  end function

  ! Where each of m blocks of the given lengths starts (from 0), GAP apart, and
  ! the length of the whole.
  subroutine lay_out(lens, displs, total)
    integer, intent(in) :: lens(:)
    integer, intent(out) :: displs(:), total
    integer :: j
    total = GAP
    do j = 1, size(lens)
      displs(j) = total
      total = total + lens(j) + GAP
    end do
  end subroutine

  ! This rank's in-block lengths for the sizes of the edges' blocks, scale elements
  ! each (0 from MPI_PROC_NULL), per edge (ecount) or per sender (gcount).
  subroutine in_lengths(per_edge, scale, lens)
    logical, intent(in) :: per_edge
    integer, intent(in) :: scale
    integer, intent(out) :: lens(:)
    integer :: j
    do j = 1, indeg
      lens(j) = 0
      if (.not. from(j)) cycle
      if (per_edge) then
        lens(j) = scale * ecount(src(j), ksrc(j))
      else
        lens(j) = scale * gcount(src(j))
      end if
    end do
  end subroutine

  ! The receive buffer expected: each sender's block at displs, SENTINEL elsewhere.
  subroutine expect(per_edge, lens, displs, want)
    logical, intent(in) :: per_edge
    integer, intent(in) :: lens(:), displs(:)
    integer, intent(out) :: want(:)
    integer :: j, i
    want = SENTINEL
    do j = 1, indeg
      if (.not. from(j)) cycle
      do i = 1, lens(j)
        if (per_edge) then
          want(displs(j) + i) = val(src(j), ksrc(j), i)
        else
          want(displs(j) + i) = gval(src(j), i)
        end if
      end do
    end do
  end subroutine

  subroutine finish(nb, req, rb, want, what)
    logical, intent(in) :: nb
    REQUEST_T, intent(inout) :: req
    integer, intent(in) :: rb(:), want(:)
    character(len=*), intent(in) :: what
    if (nb) then
      call ok(ierr == MPI_SUCCESS, trim(gname) // ' i' // what // ' call')
      call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
      call ok(ierr == MPI_SUCCESS .and. all(rb == want), trim(gname) // ' i' // what)
    else
      call ok(ierr == MPI_SUCCESS .and. all(rb == want), trim(gname) // ' ' // what)
    end if
  end subroutine

  ! neighbor_allgather (the same block to every out-neighbour) or neighbor_alltoall
  ! (a block each), n elements a block.
  subroutine fixed_count(nb, alltoall)
    logical, intent(in) :: nb, alltoall
    integer :: rb(n * indeg), want(n * indeg), lens(indeg), displs(indeg), i, j
    integer, allocatable :: sb(:)
    REQUEST_T :: req
    if (alltoall) then
      sb = [((val(me, j, i), i = 1, n), j = 0, outdeg - 1)]
    else
      sb = [(gval(me, i), i = 1, n)]
    end if
    lens = 0
    where (src /= MPI_PROC_NULL) lens = n
    displs = [(n * (j - 1), j = 1, indeg)]
    call expect(alltoall, lens, displs, want)
    rb = SENTINEL
    req = MPI_REQUEST_NULL
    if (alltoall .and. nb) then
      call MPI_Ineighbor_alltoall(sb, n, MPI_INTEGER, rb, n, MPI_INTEGER, comm, req, ierr)
    else if (alltoall) then
      call MPI_Neighbor_alltoall(sb, n, MPI_INTEGER, rb, n, MPI_INTEGER, comm, ierr)
    else if (nb) then
      call MPI_Ineighbor_allgather(sb, n, MPI_INTEGER, rb, n, MPI_INTEGER, comm, req, ierr)
    else
      call MPI_Neighbor_allgather(sb, n, MPI_INTEGER, rb, n, MPI_INTEGER, comm, ierr)
    end if
    call finish(nb, req, rb, want, trim(merge('neighbor_alltoall ', 'neighbor_allgather', alltoall)))
  end subroutine

  subroutine allgatherv(nb)
    logical, intent(in) :: nb
    integer :: lens(indeg), displs(indeg), total, j
    integer, allocatable :: sb(:), rb(:), want(:)
    REQUEST_T :: req
    call in_lengths(.false., 1, lens)
    call lay_out(lens, displs, total)
    allocate (sb(gcount(me)), rb(total), want(total))
    sb = [(gval(me, j), j = 1, gcount(me))]
    call expect(.false., lens, displs, want)
    rb = SENTINEL
    req = MPI_REQUEST_NULL
    if (nb) then
      call MPI_Ineighbor_allgatherv(sb, gcount(me), MPI_INTEGER, rb, lens, displs, MPI_INTEGER, &
                                    comm, req, ierr)
    else
      call MPI_Neighbor_allgatherv(sb, gcount(me), MPI_INTEGER, rb, lens, displs, MPI_INTEGER, &
                                   comm, ierr)
    end if
    call finish(nb, req, rb, want, 'neighbor_allgatherv')
  end subroutine

  ! This rank's send blocks, scale elements of ecount each, laid out with gaps.
  subroutine send_blocks(scale, counts, displs, sb)
    integer, intent(in) :: scale
    integer, intent(out) :: counts(:), displs(:)
    integer, allocatable, intent(out) :: sb(:)
    integer :: kk, i, total
    counts = [(scale * ecount(me, kk), kk = 0, outdeg - 1)]
    call lay_out(counts, displs, total)
    allocate (sb(total))
    sb = SENTINEL
    do kk = 0, outdeg - 1
      sb(displs(kk + 1) + 1:displs(kk + 1) + counts(kk + 1)) = &
        [(val(me, kk, i), i = 1, counts(kk + 1))]
    end do
  end subroutine

  subroutine alltoallv(nb)
    logical, intent(in) :: nb
    integer :: scounts(outdeg), sdispls(outdeg), lens(indeg), rdispls(indeg), total
    integer, allocatable :: sb(:), rb(:), want(:)
    REQUEST_T :: req
    call send_blocks(1, scounts, sdispls, sb)
    call in_lengths(.true., 1, lens)
    call lay_out(lens, rdispls, total)
    allocate (rb(total), want(total))
    call expect(.true., lens, rdispls, want)
    rb = SENTINEL
    req = MPI_REQUEST_NULL
    if (nb) then
      call MPI_Ineighbor_alltoallv(sb, scounts, sdispls, MPI_INTEGER, rb, lens, rdispls, &
                                   MPI_INTEGER, comm, req, ierr)
    else
      call MPI_Neighbor_alltoallv(sb, scounts, sdispls, MPI_INTEGER, rb, lens, rdispls, &
                                  MPI_INTEGER, comm, ierr)
    end if
    call finish(nb, req, rb, want, 'neighbor_alltoallv')
  end subroutine

  ! Datatypes for blocks of lens integers: MPI_INTEGER, but for every other block
  ! (those with mod(j - 1, 2) == parity) pairs, half as many.
  subroutine pair_up(lens, parity, pair, counts, types)
    integer, intent(in) :: lens(:), parity
    TYPE_T, intent(in) :: pair
    integer, intent(out) :: counts(:)
    TYPE_T, intent(out) :: types(:)
    integer :: j
    do j = 1, size(lens)
      counts(j) = lens(j)
      types(j) = MPI_INTEGER
      if (mod(j - 1, 2) == parity) then
        counts(j) = lens(j) / 2
        types(j) = pair
      end if
    end do
  end subroutine

  ! Blocks of 2 * ecount integers: odd send blocks as pairs, even receive blocks.
  subroutine alltoallw(nb)
    logical, intent(in) :: nb
    integer :: slens(outdeg), scounts(outdeg), sd(outdeg), lens(indeg), rd(indeg), rcounts(indeg)
    integer :: total, isz
    integer(kind=MPI_ADDRESS_KIND) :: sdispls(outdeg), rdispls(indeg)
    integer, allocatable :: sb(:), rb(:), want(:)
    TYPE_T :: pair, stypes(outdeg), rtypes(indeg)
    REQUEST_T :: req
    call MPI_Type_contiguous(2, MPI_INTEGER, pair, ierr)
    call MPI_Type_commit(pair, ierr)
    call MPI_Type_size(MPI_INTEGER, isz, ierr)
    call send_blocks(2, slens, sd, sb)
    sdispls = int(sd, MPI_ADDRESS_KIND) * isz
    call pair_up(slens, 1, pair, scounts, stypes)
    call in_lengths(.true., 2, lens)
    call lay_out(lens, rd, total)
    rdispls = int(rd, MPI_ADDRESS_KIND) * isz
    call pair_up(lens, 0, pair, rcounts, rtypes)
    allocate (rb(total), want(total))
    call expect(.true., lens, rd, want)
    rb = SENTINEL
    req = MPI_REQUEST_NULL
    if (nb) then
      call MPI_Ineighbor_alltoallw(sb, scounts, sdispls, stypes, rb, rcounts, rdispls, rtypes, &
                                   comm, req, ierr)
    else
      call MPI_Neighbor_alltoallw(sb, scounts, sdispls, stypes, rb, rcounts, rdispls, rtypes, &
                                  comm, ierr)
    end if
    call finish(nb, req, rb, want, 'neighbor_alltoallw')
    call MPI_Type_free(pair, ierr)
  end subroutine
end program
