! Every communicator constructor Trellis takes over, called from a Fortran
! program, with a non-blocking collective as the first call on each new
! communicator: Trellis must set the communicator up in the constructor (the
! bindings may call PMPI_* directly; Trellis defines their symbols), or that
! call goes to the MPI library (run_forced.sh fails on Trellis' word for it).
! What each constructor made is checked against the MPI standard alone: sizes,
! ranks, the topology read back (periods and remain_dims are LOGICALs, weights
! arrays or MPI_UNWEIGHTED / MPI_WEIGHTS_EMPTY), and each first MPI_Iallreduce's
! sum of world ranks + 1 over the members. One source for the three bindings
! (binding.inc); needs 2 ranks or more (an intercommunicator of evens and
! odds). Rank 0 ends with "fcomm <binding> ranks=P: N checks, F failed".
program fcomm
#include "binding.inc"

  integer :: ierr, p, r, n, checks, failures, neven
  COMM_T :: world, c, half, inter

  call start()
  n = 0
  neven = (p + 1) / 2

  call MPI_Comm_dup(world, c, ierr)
  call members(c, 'comm_dup', p, r, p * (p + 1) / 2)
  call MPI_Comm_dup_with_info(world, MPI_INFO_NULL, c, ierr)
  call members(c, 'comm_dup_with_info', p, r, p * (p + 1) / 2)
  ! Same parity, ranks backwards.
  call MPI_Comm_split(world, mod(r, 2), p - r, c, ierr)
  call members(c, 'comm_split', parity_count(r), parity_count(r) - 1 - r / 2, parity_sum(r))
  call MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, r, MPI_INFO_NULL, c, ierr)
  call members(c, 'comm_split_type', p, r, p * (p + 1) / 2)
  call groups()
  call carts()
  call graphs()
  call intercomms()

  call summary('fcomm')
  call MPI_Finalize(ierr)

contains

#include "report.inc"

  ! How many world ranks share r's parity, and the sum of their ranks + 1.
  integer function parity_count(q)
    integer, intent(in) :: q
    parity_count = (p - mod(q, 2) + 1) / 2
  end function

  integer function parity_sum(q)
    integer, intent(in) :: q
    integer :: s
    parity_sum = 0
    do s = mod(q, 2), p - 1, 2
      parity_sum = parity_sum + s + 1
    end do
  end function

  ! comm's size and this rank's rank in it, then a first MPI_Iallreduce on it
  ! (each member's world rank + 1) against want; then comm goes.
  subroutine members(comm, what, size_want, rank_want, want)
    COMM_T, intent(inout) :: comm
    character(len=*), intent(in) :: what
    integer, intent(in) :: size_want, rank_want, want
    integer :: s, me, mine, total
    REQUEST_T :: req
    call ok(ierr == MPI_SUCCESS, what)
    mine = r + 1
    total = -1
    call MPI_Iallreduce(mine, total, 1, MPI_INTEGER, MPI_SUM, comm, req, ierr)
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    call ok(total == want, what // ' iallreduce')
    call MPI_Comm_size(comm, s, ierr)
    call MPI_Comm_rank(comm, me, ierr)
    call ok(s == size_want, what // ' size')
    call ok(me == rank_want, what // ' rank')
    call MPI_Comm_free(comm, ierr)
  end subroutine

  ! MPI_Comm_create and MPI_Comm_create_group of the even world ranks.
  subroutine groups()
    GROUP_T :: all, evens
    integer :: ranks(neven), k
    call MPI_Comm_group(world, all, ierr)
    ranks = [(2 * k, k = 0, neven - 1)]
    call MPI_Group_incl(all, neven, ranks, evens, ierr)
    call MPI_Comm_create(world, evens, c, ierr)
    if (mod(r, 2) == 0) then
      call members(c, 'comm_create', neven, r / 2, parity_sum(0))
      call MPI_Comm_create_group(world, evens, 5, c, ierr)
      call members(c, 'comm_create_group', neven, r / 2, parity_sum(0))
    else
      call ok(c == MPI_COMM_NULL, 'comm_create outside the group')
    end if
    call MPI_Group_free(evens, ierr)
    call MPI_Group_free(all, ierr)
  end subroutine

  ! MPI_Cart_create periodic and not, its periods read back; MPI_Cart_sub keeping
  ! the first dimension of a 2D grid.
  subroutine carts()
    integer :: dims(2), got_dims(1), coords(1), status
    logical :: periods(1), got_periods(1)
    logical :: remain(2), cycle_periodic
    integer :: k
    do k = 0, 1
      cycle_periodic = k == 0
      periods = cycle_periodic
      call MPI_Cart_create(world, 1, [p], periods, .false., c, ierr)
      call MPI_Topo_test(c, status, ierr)
      call ok(status == MPI_CART, 'cart_create topology')
      call MPI_Cart_get(c, 1, got_dims, got_periods, coords, ierr)
      call ok(got_dims(1) == p .and. coords(1) == r, 'cart_create dims')
      call ok(got_periods(1) .eqv. cycle_periodic, 'cart_create periods')
      call members(c, 'cart_create', p, r, p * (p + 1) / 2)
    end do
    dims = 0
    call MPI_Dims_create(p, 2, dims, ierr)
    call MPI_Cart_create(world, 2, dims, [.true., .false.], .false., half, ierr)
    remain = [.true., .false.]
    call MPI_Cart_sub(half, remain, c, ierr)
    ! Row-major: the ranks sharing r's second coordinate, dims(2) apart.
    call members(c, 'cart_sub', dims(1), r / dims(2), cart_column_sum(dims(2)))
    call MPI_Comm_free(half, ierr)
  end subroutine

  integer function cart_column_sum(stride)
    integer, intent(in) :: stride
    integer :: s
    cart_column_sum = 0
    do s = mod(r, stride), p - 1, stride
      cart_column_sum = cart_column_sum + s + 1
    end do
  end function

  ! A ring as MPI_Graph_create, as MPI_Dist_graph_create (all edges given by
  ! rank 0 with weights, the others none: MPI_WEIGHTS_EMPTY) and as
  ! MPI_Dist_graph_create_adjacent (weighted, then MPI_UNWEIGHTED).
  subroutine graphs()
    integer :: index(p), edges(p), nb(1), k, status
    integer :: srcs(p), degs(p), dsts(p), wts(p), prev, next
    next = mod(r + 1, p)
    prev = mod(r + p - 1, p)
    index = [(k, k = 1, p)]
    edges = [(mod(k + 1, p), k = 0, p - 1)]
    call MPI_Graph_create(world, p, index, edges, .false., c, ierr)
    call MPI_Topo_test(c, status, ierr)
    call ok(status == MPI_GRAPH, 'graph_create topology')
    call MPI_Graph_neighbors(c, r, 1, nb, ierr)
    call ok(nb(1) == next, 'graph_create neighbours')
    call members(c, 'graph_create', p, r, p * (p + 1) / 2)

    if (r == 0) then
      srcs = [(k, k = 0, p - 1)]
      degs = 1
      dsts = [(mod(k + 1, p), k = 0, p - 1)]
      wts = [(k + 10, k = 0, p - 1)]
      call MPI_Dist_graph_create(world, p, srcs, degs, dsts, wts, MPI_INFO_NULL, .false., c, &
                                 ierr)
    else
      call MPI_Dist_graph_create(world, 0, srcs, degs, dsts, MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, &
                                 .false., c, ierr)
    end if
    call read_back('dist_graph_create', .true., prev + 10, r + 10)
    call members(c, 'dist_graph_create', p, r, p * (p + 1) / 2)

    call MPI_Dist_graph_create_adjacent(world, 1, [prev], [prev + 10], 1, [next], [r + 10], &
                                        MPI_INFO_NULL, .false., c, ierr)
    call read_back('dist_graph_create_adjacent', .true., prev + 10, r + 10)
    call members(c, 'dist_graph_create_adjacent', p, r, p * (p + 1) / 2)
    call MPI_Dist_graph_create_adjacent(world, 1, [prev], MPI_UNWEIGHTED, 1, [next], &
                                        MPI_UNWEIGHTED, MPI_INFO_NULL, .false., c, ierr)
    call read_back('dist_graph_create_adjacent unweighted', .false., 0, 0)
    call members(c, 'dist_graph_create_adjacent unweighted', p, r, p * (p + 1) / 2)
  end subroutine

  ! c's ring as MPI_Dist_graph_neighbors reads it: one edge in from prev and one
  ! out to next, with these weights where weighted.
  subroutine read_back(what, weighted_want, in_weight, out_weight)
    character(len=*), intent(in) :: what
    logical, intent(in) :: weighted_want
    integer, intent(in) :: in_weight, out_weight
    integer :: indeg, outdeg, got_src(1), got_sw(1), got_dst(1), got_dw(1)
    logical :: weighted
    call MPI_Dist_graph_neighbors_count(c, indeg, outdeg, weighted, ierr)
    call ok(indeg == 1 .and. outdeg == 1, what // ' degrees')
    call ok(weighted .eqv. weighted_want, what // ' weighted')
    if (indeg /= 1 .or. outdeg /= 1) return
    call MPI_Dist_graph_neighbors(c, 1, got_src, got_sw, 1, got_dst, got_dw, ierr)
    call ok(got_src(1) == mod(r + p - 1, p) .and. got_dst(1) == mod(r + 1, p), what // ' edges')
    if (weighted_want) call ok(got_sw(1) == in_weight .and. got_dw(1) == out_weight, &
                               what // ' weights')
  end subroutine

  ! Evens and odds as an intercommunicator (MPI_Intercomm_create), its first call
  ! a non-blocking allreduce (each side gets the other's sum), then merged
  ! (MPI_Intercomm_merge, the odds high: the evens first).
  subroutine intercomms()
    integer :: mine, total, merged_rank
    REQUEST_T :: req
    call MPI_Comm_split(world, mod(r, 2), r, half, ierr)
    call MPI_Intercomm_create(half, 0, world, 1 - mod(r, 2), 7, inter, ierr)
    call ok(ierr == MPI_SUCCESS, 'intercomm_create')
    mine = r + 1
    total = -1
    call MPI_Iallreduce(mine, total, 1, MPI_INTEGER, MPI_SUM, inter, req, ierr)
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    call ok(total == parity_sum(r + 1), 'intercomm_create iallreduce')
    call MPI_Intercomm_merge(inter, mod(r, 2) == 1, c, ierr)
    merged_rank = r / 2
    if (mod(r, 2) == 1) merged_rank = neven + r / 2
    call members(c, 'intercomm_merge', p, merged_rank, p * (p + 1) / 2)
    call MPI_Comm_free(inter, ierr)
    call MPI_Comm_free(half, ierr)
  end subroutine

end program
