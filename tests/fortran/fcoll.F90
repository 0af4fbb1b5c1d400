! A Fortran MPI program that calls every collective Trellis takes over and
! checks each result against values it computes itself, knowing nothing of
! Trellis. One source for the three bindings, chosen when compiling
! (binding.inc: -DBINDING_MPIF_H, -DBINDING_MPI, -DBINDING_F08).
! It covers Fortran datatypes (MPI_INTEGER, MPI_DOUBLE_PRECISION, MPI_REAL8,
! MPI_LOGICAL, MPI_2INTEGER) and operations, MPI_IN_PLACE wherever MPI
! allows it, MPI_BOTTOM with absolute addresses, a strided datatype, a
! reordered communicator, and error codes returned in ierror; then every
! collective's non-blocking form (MPI_Ibcast ...), completed by MPI_Wait,
! MPI_Waitall, MPI_Waitany, MPI_Testall and MPI_Testsome, and with
! -DFCOLL_PERSISTENT (MPI-4 libraries) some persistent ones (MPI_Xxx_init,
! MPI_Start(all), MPI_Request_free). Rank 0 ends with "fcoll <binding>
! ranks=P: N checks, F failed" (the suite greps ", 0 failed$").
program fcoll
#include "binding.inc"

  integer, parameter :: sizes(3) = [1, 7, 1000]
  integer :: ierr, p, r, k, n, checks, failures
  COMM_T :: world, reversed

  call start()

  do k = 1, size(sizes)
    n = sizes(k)
    call rooted(world, n)
    call reductions(world, n)
    call movers(world, n)
    call vectors(world, n)
    call scans(world, n)
  end do
  call MPI_Barrier(world, ierr)
  call ok(ierr == MPI_SUCCESS, 'barrier')
  call special(world)
  ! The same on a communicator whose ranks run backwards.
  call MPI_Comm_split(world, 0, p - r, reversed, ierr)
  call reductions(reversed, 7)
  call movers(reversed, 7)
  call MPI_Comm_free(reversed, ierr)
  call errors(world)
  call nonblocking(world, 7)
#if defined(FCOLL_PERSISTENT)
  call persistent(world, 7)
#endif
  call summary('fcoll')
  call MPI_Finalize(ierr)

contains

#include "report.inc"

  ! The value rank q contributes at position i.
  integer function val(q, i)
    integer, intent(in) :: q, i
    val = 3 * q + mod(i * 7, 11)
  end function

  ! bcast, reduce, gather and scatter, each from a root that moves with n.
  subroutine rooted(comm, n)
    COMM_T, intent(in) :: comm
    integer, intent(in) :: n
    integer :: me, np, root, i, q
    double precision, allocatable :: d(:), dsum(:)
    integer, allocatable :: a(:), all(:)
    call MPI_Comm_size(comm, np, ierr)
    call MPI_Comm_rank(comm, me, ierr)
    root = mod(n, np)
    allocate (d(n), dsum(n), a(n), all(n * np))

    d = -1
    if (me == root) d = [(dble(val(root, i)), i = 1, n)]
    call MPI_Bcast(d, n, MPI_DOUBLE_PRECISION, root, comm, ierr)
    call ok(all_equal_d(d, [(dble(val(root, i)), i = 1, n)]) .and. ierr == 0, 'bcast')

    d = [(dble(val(me, i)), i = 1, n)]
    dsum = 0
    call MPI_Reduce(d, dsum, n, MPI_REAL8, MPI_SUM, root, comm, ierr)
    if (me == root) call ok(all_equal_d(dsum, [(dble(sum_val(np, i)), i = 1, n)]), 'reduce')
    ! In place at the root: its contribution is in the receive buffer.
    if (me == root) then
      call MPI_Reduce(MPI_IN_PLACE, d, n, MPI_DOUBLE_PRECISION, MPI_SUM, root, comm, ierr)
      call ok(all_equal_d(d, [(dble(sum_val(np, i)), i = 1, n)]), 'reduce in place')
    else
      call MPI_Reduce(d, dsum, n, MPI_DOUBLE_PRECISION, MPI_SUM, root, comm, ierr)
    end if

    a = [(val(me, i), i = 1, n)]
    all = -1
    call MPI_Gather(a, n, MPI_INTEGER, all, n, MPI_INTEGER, root, comm, ierr)
    if (me == root) call ok(all_equal(all, [((val(q, i), i = 1, n), q = 0, np - 1)]), 'gather')
    if (me == root) then
      all = -1
      all(root * n + 1:root * n + n) = a
      call MPI_Gather(MPI_IN_PLACE, n, MPI_INTEGER, all, n, MPI_INTEGER, root, comm, ierr)
      call ok(all_equal(all, [((val(q, i), i = 1, n), q = 0, np - 1)]), 'gather in place')
    else
      call MPI_Gather(a, n, MPI_INTEGER, all, n, MPI_INTEGER, root, comm, ierr)
    end if

    all = [((val(q, i), i = 1, n), q = 0, np - 1)]
    a = -1
    call MPI_Scatter(all, n, MPI_INTEGER, a, n, MPI_INTEGER, root, comm, ierr)
    call ok(all_equal(a, [(val(me, i), i = 1, n)]), 'scatter')
    if (me == root) then
      call MPI_Scatter(all, n, MPI_INTEGER, MPI_IN_PLACE, n, MPI_INTEGER, root, comm, ierr)
      call ok(all_equal(all, [((val(q, i), i = 1, n), q = 0, np - 1)]), 'scatter in place')
    else
      a = -1
      call MPI_Scatter(all, n, MPI_INTEGER, a, n, MPI_INTEGER, root, comm, ierr)
      call ok(all_equal(a, [(val(me, i), i = 1, n)]), 'scatter in place (leaf)')
    end if
    deallocate (d, dsum, a, all)
  end subroutine

  integer function sum_val(np, i)
    integer, intent(in) :: np, i
    integer :: q
    sum_val = 0
    do q = 0, np - 1
      sum_val = sum_val + val(q, i)
    end do
  end function

  ! allreduce over Fortran types and operations, and reduce_scatter(_block).
  subroutine reductions(comm, n)
    COMM_T, intent(in) :: comm
    integer, intent(in) :: n
    integer :: me, np, i, q, best, at
    integer, allocatable :: a(:), b(:), pairs(:, :), got(:, :), counts(:), part(:)
    double precision, allocatable :: x(:), y(:)
    logical, allocatable :: l(:), lo(:)
    call MPI_Comm_size(comm, np, ierr)
    call MPI_Comm_rank(comm, me, ierr)
    allocate (a(n), b(n), x(n), y(n), l(n), lo(n), pairs(2, n), got(2, n))

    a = [(val(me, i), i = 1, n)]
    call MPI_Allreduce(a, b, n, MPI_INTEGER, MPI_MAX, comm, ierr)
    call ok(all_equal(b, [(val(np - 1, i), i = 1, n)]), 'allreduce max')
    call MPI_Allreduce(MPI_IN_PLACE, a, n, MPI_INTEGER, MPI_SUM, comm, ierr)
    call ok(all_equal(a, [(sum_val(np, i), i = 1, n)]), 'allreduce in place')

    x = [(1 + mod(me + i, 2), i = 1, n)]
    call MPI_Allreduce(x, y, n, MPI_REAL8, MPI_PROD, comm, ierr)
    call ok(all_equal_d(y, [(2d0**count([(mod(q + i, 2) == 1, q = 0, np - 1)]), i = 1, n)]), &
            'allreduce prod')

    l = [(mod(i, np) == me, i = 1, n)]
    call MPI_Allreduce(l, lo, n, MPI_LOGICAL, MPI_LOR, comm, ierr)
    call ok(all(lo .eqv. [(mod(i, np) < np, i = 1, n)]), 'allreduce lor')

    pairs(1, :) = [(mod(me * 7 + i, 5), i = 1, n)]
    pairs(2, :) = me
    call MPI_Allreduce(pairs, got, n, MPI_2INTEGER, MPI_MINLOC, comm, ierr)
    do i = 1, n
      best = huge(best)
      at = -1
      do q = 0, np - 1
        if (mod(q * 7 + i, 5) < best) then
          best = mod(q * 7 + i, 5)
          at = q
        end if
      end do
      if (got(1, i) /= best .or. got(2, i) /= at) exit
    end do
    call ok(i > n, 'allreduce minloc')

    ! reduce_scatter: rank q gets q + 1 elements of the sum of np * (np + 1) / 2.
    allocate (counts(np), part(np + 1))
    counts = [(q + 1, q = 0, np - 1)]
    deallocate (a, b)
    allocate (a(np * (np + 1) / 2), b(np * (np + 1) / 2))
    a = [(val(me, i), i = 1, size(a))]
    part = -1
    call MPI_Reduce_scatter(a, part, counts, MPI_INTEGER, MPI_SUM, comm, ierr)
    at = me * (me + 1) / 2
    call ok(all_equal(part(1:me + 1), [(sum_val(np, at + i), i = 1, me + 1)]), 'reduce_scatter')
    call MPI_Reduce_scatter(MPI_IN_PLACE, a, counts, MPI_INTEGER, MPI_SUM, comm, ierr)
    call ok(all_equal(a(1:me + 1), [(sum_val(np, at + i), i = 1, me + 1)]), &
            'reduce_scatter in place')

    deallocate (x, y)
    allocate (x(n * np), y(n))
    x = [(dble(val(me, i)), i = 1, n * np)]
    call MPI_Reduce_scatter_block(x, y, n, MPI_DOUBLE_PRECISION, MPI_SUM, comm, ierr)
    call ok(all_equal_d(y, [(dble(sum_val(np, me * n + i)), i = 1, n)]), 'reduce_scatter_block')
    call MPI_Reduce_scatter_block(MPI_IN_PLACE, x, n, MPI_DOUBLE_PRECISION, MPI_SUM, comm, ierr)
    call ok(all_equal_d(x(1:n), [(dble(sum_val(np, me * n + i)), i = 1, n)]), &
            'reduce_scatter_block in place')
  end subroutine

  ! allgather and alltoall, plain and in place; alltoallw with byte displacements.
  subroutine movers(comm, n)
    COMM_T, intent(in) :: comm
    integer, intent(in) :: n
    integer :: me, np, i, q, isize
    integer, allocatable :: a(:), all(:), counts(:), displs(:), rdispls(:)
    TYPE_T, allocatable :: types(:)
    call MPI_Comm_size(comm, np, ierr)
    call MPI_Comm_rank(comm, me, ierr)
    allocate (a(n * np), all(n * np), counts(np), displs(np), rdispls(np), types(np))

    a(1:n) = [(val(me, i), i = 1, n)]
    call MPI_Allgather(a, n, MPI_INTEGER, all, n, MPI_INTEGER, comm, ierr)
    call ok(all_equal(all, [((val(q, i), i = 1, n), q = 0, np - 1)]), 'allgather')
    all = -1
    all(me * n + 1:me * n + n) = a(1:n)
    call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, n, MPI_INTEGER, comm, ierr)
    call ok(all_equal(all, [((val(q, i), i = 1, n), q = 0, np - 1)]), 'allgather in place')

    ! Block q goes to rank q: block value 1000 * sender + 10 * receiver + i.
    a = [((1000 * me + 10 * q + i, i = 1, n), q = 0, np - 1)]
    call MPI_Alltoall(a, n, MPI_INTEGER, all, n, MPI_INTEGER, comm, ierr)
    call ok(all_equal(all, [((1000 * q + 10 * me + i, i = 1, n), q = 0, np - 1)]), 'alltoall')
    call MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a, n, MPI_INTEGER, comm, ierr)
    call ok(all_equal(a, [((1000 * q + 10 * me + i, i = 1, n), q = 0, np - 1)]), &
            'alltoall in place')

    call MPI_Type_size(MPI_INTEGER, isize, ierr)
    a = [((1000 * me + 10 * q + i, i = 1, n), q = 0, np - 1)]
    counts = n
    types = MPI_INTEGER
    ! Send blocks in order, receive them in reverse order (byte displacements).
    displs = [(q * n * isize, q = 0, np - 1)]
    rdispls = [((np - 1 - q) * n * isize, q = 0, np - 1)]
    all = -1
    call MPI_Alltoallw(a, counts, displs, types, all, counts, rdispls, types, comm, ierr)
    call ok(all_equal(all, [((1000 * q + 10 * me + i, i = 1, n), q = np - 1, 0, -1)]), &
            'alltoallw')
    call MPI_Alltoallw(MPI_IN_PLACE, counts, displs, types, a, counts, displs, types, comm, ierr)
    call ok(all_equal(a, [((1000 * q + 10 * me + i, i = 1, n), q = 0, np - 1)]), &
            'alltoallw in place')
  end subroutine

  ! The v variants: rank q's block has vcount(q) elements, blocks stored in
  ! reverse rank order with a gap of one element before each.
  integer function vcount(q, n)
    integer, intent(in) :: q, n
    vcount = mod(q + n, 3) * (n / 3 + 1)
  end function

  subroutine layout(np, n, counts, displs, total)
    integer, intent(in) :: np, n
    integer, intent(out) :: counts(np), displs(np), total
    integer :: q
    total = 0
    do q = np - 1, 0, -1
      counts(q + 1) = vcount(q, n)
      displs(q + 1) = total + 1
      total = total + 1 + counts(q + 1)
    end do
  end subroutine

  subroutine vectors(comm, n)
    COMM_T, intent(in) :: comm
    integer, intent(in) :: n
    integer :: me, np, root, i, q, total, mine
    integer, allocatable :: a(:), all(:), expect(:), counts(:), displs(:), scounts(:), sdispls(:)
    call MPI_Comm_size(comm, np, ierr)
    call MPI_Comm_rank(comm, me, ierr)
    root = mod(n + 1, np)
    allocate (counts(np), displs(np), scounts(np), sdispls(np))
    call layout(np, n, counts, displs, total)
    mine = vcount(me, n)
    allocate (a(max(mine, 1)), all(total), expect(total))
    a(1:mine) = [(val(me, i), i = 1, mine)]
    expect = -1
    do q = 0, np - 1
      expect(displs(q + 1) + 1:displs(q + 1) + counts(q + 1)) = [(val(q, i), i = 1, counts(q + 1))]
    end do

    all = -1
    call MPI_Gatherv(a, mine, MPI_INTEGER, all, counts, displs, MPI_INTEGER, root, comm, ierr)
    if (me == root) call ok(all_equal(all, expect), 'gatherv')
    all = -1
    call MPI_Allgatherv(a, mine, MPI_INTEGER, all, counts, displs, MPI_INTEGER, comm, ierr)
    call ok(all_equal(all, expect), 'allgatherv')

    a = -1
    call MPI_Scatterv(expect, counts, displs, MPI_INTEGER, a, mine, MPI_INTEGER, root, comm, ierr)
    call ok(all_equal(a(1:mine), [(val(me, i), i = 1, mine)]), 'scatterv')

    ! alltoallv: to rank q this rank sends vcount(q) elements of its row.
    deallocate (a)
    allocate (a(total))
    do q = 0, np - 1
      a(displs(q + 1) + 1:displs(q + 1) + counts(q + 1)) = [(100 * me + q + i, i = 1, counts(q + 1))]
    end do
    scounts = counts
    sdispls = displs
    ! This rank receives vcount(me) elements from every rank, block q at q * mine.
    counts = mine
    displs = [(q * mine, q = 0, np - 1)]
    deallocate (all, expect)
    allocate (all(max(mine * np, 1)), expect(max(mine * np, 1)))
    all = -1
    expect = -1
    expect(1:mine * np) = [((100 * q + me + i, i = 1, mine), q = 0, np - 1)]
    call MPI_Alltoallv(a, scounts, sdispls, MPI_INTEGER, all, counts, displs, MPI_INTEGER, &
                       comm, ierr)
    call ok(all_equal(all, expect), 'alltoallv')
  end subroutine

  subroutine scans(comm, n)
    COMM_T, intent(in) :: comm
    integer, intent(in) :: n
    integer :: me, np, i
    integer, allocatable :: a(:), b(:)
    double precision, allocatable :: x(:), y(:)
    call MPI_Comm_size(comm, np, ierr)
    call MPI_Comm_rank(comm, me, ierr)
    allocate (a(n), b(n), x(n), y(n))
    a = [(val(me, i), i = 1, n)]
    call MPI_Scan(a, b, n, MPI_INTEGER, MPI_SUM, comm, ierr)
    call ok(all_equal(b, [(sum_val(me + 1, i), i = 1, n)]), 'scan')
    call MPI_Scan(MPI_IN_PLACE, a, n, MPI_INTEGER, MPI_SUM, comm, ierr)
    call ok(all_equal(a, [(sum_val(me + 1, i), i = 1, n)]), 'scan in place')
    x = [(dble(val(me, i)), i = 1, n)]
    y = -1
    call MPI_Exscan(x, y, n, MPI_DOUBLE_PRECISION, MPI_SUM, comm, ierr)
    if (me > 0) call ok(all_equal_d(y, [(dble(sum_val(me, i)), i = 1, n)]), 'exscan')
  end subroutine

  ! A strided datatype, and MPI_BOTTOM with a datatype of absolute addresses.
  subroutine special(comm)
    COMM_T, intent(in) :: comm
    integer :: i, me
    integer :: strided(14)
    double precision, volatile :: at(5)
    integer(kind=MPI_ADDRESS_KIND) :: address(1)
    TYPE_T :: vector, absolute
    call MPI_Comm_rank(comm, me, ierr)

    strided = -7
    if (me == 0) strided(1:13:2) = [(i, i = 1, 7)]
    call MPI_Type_vector(7, 1, 2, MPI_INTEGER, vector, ierr)
    call MPI_Type_commit(vector, ierr)
    call MPI_Bcast(strided, 1, vector, 0, comm, ierr)
    call ok(all_equal(strided(1:13:2), [(i, i = 1, 7)]) .and. all(strided(2:14:2) == -7), &
            'bcast strided')
    call MPI_Type_free(vector, ierr)

    at = -1
    if (me == 0) at = [(dble(i) / 4, i = 1, 5)]
    call MPI_Get_address(at, address(1), ierr)
    call MPI_Type_create_struct(1, [5], address, [MPI_DOUBLE_PRECISION], absolute, ierr)
    call MPI_Type_commit(absolute, ierr)
    call MPI_Bcast(MPI_BOTTOM, 1, absolute, 0, comm, ierr)
    call ok(all_equal_d(at, [(dble(i) / 4, i = 1, 5)]) .and. ierr == MPI_SUCCESS, &
            'bcast MPI_BOTTOM')
    call MPI_Type_free(absolute, ierr)
  end subroutine

  ! Erroneous calls on a communicator that returns errors: ierror says so.
  subroutine errors(comm)
    COMM_T, intent(in) :: comm
    COMM_T :: quiet
    integer :: a(1), b(1), np
    call MPI_Comm_size(comm, np, ierr)
    call MPI_Comm_dup(comm, quiet, ierr)
    call MPI_Comm_set_errhandler(quiet, MPI_ERRORS_RETURN, ierr)
    a = 1
    call MPI_Allreduce(a, b, 1, MPI_DATATYPE_NULL, MPI_SUM, quiet, ierr)
    call ok(ierr /= MPI_SUCCESS, 'allreduce of MPI_DATATYPE_NULL sets ierror')
    call MPI_Bcast(a, 1, MPI_INTEGER, np + 3, quiet, ierr)
    call ok(ierr /= MPI_SUCCESS, 'bcast bad root sets ierror')
    call MPI_Comm_free(quiet, ierr)
  end subroutine

  ! Every collective's non-blocking form, several outstanding at once.
  subroutine nonblocking(comm, n)
    COMM_T, intent(in) :: comm
    integer, intent(in) :: n
    integer :: me, np, i, q, root, k, done, total, mine, isize
    REQUEST_T :: reqs(8)
    STATUS_T status
    STATUSES_T(8)
    logical :: flag
    integer :: idx(8)
    ! ASYNCHRONOUS: the buffers change between a call and its completion,
    ! which the compiler must not reorder its own loads and stores across.
    integer, allocatable, asynchronous :: a(:), b(:), c(:), gathered(:), allv(:), expect(:)
    integer, allocatable, asynchronous :: counts(:), displs(:)
    integer, allocatable, asynchronous :: w(:), wout(:), wcounts(:), wdispls(:)
    TYPE_T, allocatable, asynchronous :: types(:)
    double precision, allocatable, asynchronous :: x(:), y(:), z(:)
    integer, allocatable, asynchronous :: sv(:), gv(:), uin(:), uout(:)
    TYPE_T :: strided
    OP_T :: isum
#if defined(BINDING_F08)
    procedure(MPI_User_function) :: int_sum
#else
    external int_sum
#endif
    call MPI_Comm_size(comm, np, ierr)
    call MPI_Comm_rank(comm, me, ierr)
    root = np - 1
    allocate (a(n), b(n), c(n), gathered(n * np), x(n), y(n), z(n * np), counts(np), displs(np))

    ! bcast, allreduce (in place), reduce, scan at once; one MPI_Waitall.
    a = -1
    if (me == root) a = [(val(root, i), i = 1, n)]
    b = [(val(me, i), i = 1, n)]
    x = [(dble(val(me, i)), i = 1, n)]
    y = 0
    c = 0
    call MPI_Ibcast(a, n, MPI_INTEGER, root, comm, reqs(1), ierr)
    call MPI_Iallreduce(MPI_IN_PLACE, b, n, MPI_INTEGER, MPI_SUM, comm, reqs(2), ierr)
    call MPI_Ireduce(x, y, n, MPI_DOUBLE_PRECISION, MPI_SUM, 0, comm, reqs(3), ierr)
    call MPI_Iscan(b, c, 0, MPI_INTEGER, MPI_SUM, comm, reqs(4), ierr)
    call MPI_Waitall(4, reqs, statuses, ierr)
    call ok(ierr == MPI_SUCCESS, 'waitall')
    call ok(all_equal(a, [(val(root, i), i = 1, n)]), 'ibcast')
    call ok(all_equal(b, [(sum_val(np, i), i = 1, n)]), 'iallreduce in place')
    if (me == 0) call ok(all_equal_d(y, [(dble(sum_val(np, i)), i = 1, n)]), 'ireduce')

    ! scan, exscan, reduce_scatter_block, barrier: MPI_Testall until done.
    a = [(val(me, i), i = 1, n)]
    c = -1
    x = [(dble(val(me, i)), i = 1, n)]
    y = -1
    deallocate (z)
    allocate (z(n * np))
    z = [(dble(val(me, i)), i = 1, n * np)]
    call MPI_Iscan(a, c, n, MPI_INTEGER, MPI_SUM, comm, reqs(1), ierr)
    call MPI_Iexscan(x, y, n, MPI_DOUBLE_PRECISION, MPI_SUM, comm, reqs(2), ierr)
    call MPI_Ireduce_scatter_block(MPI_IN_PLACE, z, n, MPI_DOUBLE_PRECISION, MPI_SUM, comm, &
                                   reqs(3), ierr)
    call MPI_Ibarrier(comm, reqs(4), ierr)
    flag = .false.
    do while (.not. flag)
      call MPI_Testall(4, reqs, flag, MPI_STATUSES_IGNORE, ierr)
    end do
    call ok(all_equal(c, [(sum_val(me + 1, i), i = 1, n)]), 'iscan')
    if (me > 0) call ok(all_equal_d(y, [(dble(sum_val(me, i)), i = 1, n)]), 'iexscan')
    call ok(all_equal_d(z(1:n), [(dble(sum_val(np, me * n + i)), i = 1, n)]), &
            'ireduce_scatter_block in place')

    ! A strided datatype and a user operation freed as soon as the calls that
    ! use them returned: MPI keeps both until the calls complete.
    allocate (sv(2 * n), gv(n * np), uin(n), uout(n))
    sv = [(merge(val(me, (i + 1) / 2), -5, mod(i, 2) == 1), i = 1, 2 * n)]
    gv = -1
    uin = [(val(me, i), i = 1, n)]
    uout = -1
    call MPI_Type_vector(n, 1, 2, MPI_INTEGER, strided, ierr)
    call MPI_Type_commit(strided, ierr)
    call MPI_Op_create(int_sum, .true., isum, ierr)
    call MPI_Iallgather(sv, 1, strided, gv, n, MPI_INTEGER, comm, reqs(1), ierr)
    call MPI_Iallreduce(uin, uout, n, MPI_INTEGER, isum, comm, reqs(2), ierr)
    call MPI_Type_free(strided, ierr)
    call ok(ierr == MPI_SUCCESS .and. strided == MPI_DATATYPE_NULL, 'type_free before the wait')
    call MPI_Op_free(isum, ierr)
    call ok(ierr == MPI_SUCCESS .and. isum == MPI_OP_NULL, 'op_free before the wait')
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
    call ok(all_equal(gv, [((val(q, i), i = 1, n), q = 0, np - 1)]), 'iallgather, type freed')
    call ok(all_equal(uout, [(sum_val(np, i), i = 1, n)]), 'iallreduce, op freed')

    ! gather, scatter, allgather, alltoall: MPI_Waitany, one at a time.
    deallocate (b, c)
    allocate (b(n * np), c(n * np))
    a = [(val(me, i), i = 1, n)]
    gathered = -1
    b = [((1000 * me + 10 * q + i, i = 1, n), q = 0, np - 1)]
    c = -1
    allocate (expect(n), allv(n * np))
    expect = -1
    allv = -1
    call MPI_Igather(a, n, MPI_INTEGER, gathered, n, MPI_INTEGER, root, comm, reqs(1), ierr)
    call MPI_Iallgather(a, n, MPI_INTEGER, allv, n, MPI_INTEGER, comm, reqs(2), ierr)
    call MPI_Ialltoall(b, n, MPI_INTEGER, c, n, MPI_INTEGER, comm, reqs(3), ierr)
    done = 0
    do k = 1, 3
      call MPI_Waitany(3, reqs, i, status, ierr)
      if (i >= 1 .and. i <= 3) done = done + 1
    end do
    call ok(done == 3, 'waitany indices')
    if (me == root) call ok(all_equal(gathered, [((val(q, i), i = 1, n), q = 0, np - 1)]), 'igather')
    call ok(all_equal(allv, [((val(q, i), i = 1, n), q = 0, np - 1)]), 'iallgather')
    call ok(all_equal(c, [((1000 * q + 10 * me + i, i = 1, n), q = 0, np - 1)]), 'ialltoall')
    call MPI_Iscatter(gathered, n, MPI_INTEGER, expect, n, MPI_INTEGER, root, comm, reqs(1), ierr)
    call MPI_Wait(reqs(1), status, ierr)
    call ok(all_equal(expect, [(val(me, i), i = 1, n)]), 'iscatter')

    ! The v and w variants: MPI_Testsome until all four are done.
    call layout(np, n, counts, displs, total)
    mine = vcount(me, n)
    deallocate (expect, allv, gathered)
    allocate (expect(total), allv(total), gathered(total))
    expect = -1
    do q = 0, np - 1
      expect(displs(q + 1) + 1:displs(q + 1) + counts(q + 1)) = [(val(q, i), i = 1, counts(q + 1))]
    end do
    deallocate (a)
    allocate (a(max(mine, 1)))
    a(1:mine) = [(val(me, i), i = 1, mine)]
    gathered = -1
    allv = -1
    call MPI_Igatherv(a, mine, MPI_INTEGER, gathered, counts, displs, MPI_INTEGER, root, comm, &
                      reqs(1), ierr)
    call MPI_Iallgatherv(a, mine, MPI_INTEGER, allv, counts, displs, MPI_INTEGER, comm, &
                         reqs(2), ierr)
    allocate (w(n * np), wout(n * np), wcounts(np), wdispls(np), types(np))
    call MPI_Type_size(MPI_INTEGER, isize, ierr)
    w = [((1000 * me + 10 * q + i, i = 1, n), q = 0, np - 1)]
    wout = -1
    wcounts = n
    wdispls = [(q * n * isize, q = 0, np - 1)]
    types = MPI_INTEGER
    call MPI_Ialltoallw(w, wcounts, wdispls, types, wout, wcounts, wdispls, types, comm, &
                        reqs(3), ierr)
    deallocate (x, y)
    allocate (x(np * (np + 1) / 2), y(me + 1))
    x = [(dble(val(me, i)), i = 1, size(x))]
    y = -1
    call MPI_Ireduce_scatter(x, y, [(q + 1, q = 0, np - 1)], MPI_DOUBLE_PRECISION, MPI_SUM, comm, &
                             reqs(4), ierr)
    done = 0
    do while (done < 4)
      call MPI_Testsome(4, reqs, k, idx, statuses, ierr)
      if (k /= MPI_UNDEFINED) done = done + k
      if (k > 0) call ok(all(idx(1:k) >= 1 .and. idx(1:k) <= 4), 'testsome indices')
    end do
    if (me == root) call ok(all_equal(gathered, expect), 'igatherv')
    call ok(all_equal(allv, expect), 'iallgatherv')
    call ok(all_equal(wout, [((1000 * q + 10 * me + i, i = 1, n), q = 0, np - 1)]), 'ialltoallw')
    call ok(all_equal_d(y, [(dble(sum_val(np, me * (me + 1) / 2 + i)), i = 1, me + 1)]), &
            'ireduce_scatter')

    ! scatterv and alltoallv, each with MPI_Wait.
    a = -1
    call MPI_Iscatterv(expect, counts, displs, MPI_INTEGER, a, mine, MPI_INTEGER, root, comm, &
                       reqs(1), ierr)
    call MPI_Wait(reqs(1), MPI_STATUS_IGNORE, ierr)
    call ok(all_equal(a(1:mine), [(val(me, i), i = 1, mine)]), 'iscatterv')
    wout = -1
    call MPI_Ialltoallv(w, wcounts, [(q * n, q = 0, np - 1)], MPI_INTEGER, wout, wcounts, &
                        [(q * n, q = 0, np - 1)], MPI_INTEGER, comm, reqs(1), ierr)
    call MPI_Wait(reqs(1), MPI_STATUS_IGNORE, ierr)
    call ok(all_equal(wout, [((1000 * q + 10 * me + i, i = 1, n), q = 0, np - 1)]), 'ialltoallv')
  end subroutine

#if defined(FCOLL_PERSISTENT)
  ! Persistent collectives, each started twice with other data; then freed.
  subroutine persistent(comm, n)
    COMM_T, intent(in) :: comm
    integer, intent(in) :: n
    integer :: me, np, i, round
    REQUEST_T :: reqs(3)
    integer, asynchronous :: a(n), b(n), c(n)
    call MPI_Comm_size(comm, np, ierr)
    call MPI_Comm_rank(comm, me, ierr)
    call MPI_Allreduce_init(a, b, n, MPI_INTEGER, MPI_SUM, comm, MPI_INFO_NULL, reqs(1), ierr)
    call MPI_Bcast_init(c, n, MPI_INTEGER, 0, comm, MPI_INFO_NULL, reqs(2), ierr)
    call MPI_Barrier_init(comm, MPI_INFO_NULL, reqs(3), ierr)
    do round = 1, 2
      a = [(val(me, i) * round, i = 1, n)]
      b = -1
      c = -1
      if (me == 0) c = [(val(round, i), i = 1, n)]
      call MPI_Start(reqs(1), ierr)
      call MPI_Startall(2, reqs(2:3), ierr)
      call MPI_Wait(reqs(1), MPI_STATUS_IGNORE, ierr)
      call MPI_Waitall(2, reqs(2:3), MPI_STATUSES_IGNORE, ierr)
      call ok(all_equal(b, [(sum_val(np, i) * round, i = 1, n)]), 'allreduce_init')
      call ok(all_equal(c, [(val(round, i), i = 1, n)]), 'bcast_init')
    end do
    do i = 1, 3
      call MPI_Request_free(reqs(i), ierr)
    end do
  end subroutine
#endif

  logical function all_equal(got, want)
    integer, intent(in) :: got(:), want(:)
    all_equal = size(got) == size(want)
    if (all_equal) all_equal = all(got == want)
  end function

  logical function all_equal_d(got, want)
    double precision, intent(in) :: got(:), want(:)
    all_equal_d = size(got) == size(want)
    if (all_equal_d) all_equal_d = all(got == want)
  end function
end program

! The user operation of nonblocking(): integer sums.
#if defined(BINDING_F08)
subroutine int_sum(invec, inoutvec, len, datatype)
  use mpi_f08
  use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer
  implicit none
  type(c_ptr), value :: invec, inoutvec
  integer :: len
  type(MPI_Datatype) :: datatype
  integer, pointer :: a(:), b(:)
  call c_f_pointer(invec, a, [len])
  call c_f_pointer(inoutvec, b, [len])
  b = b + a
end subroutine
#else
subroutine int_sum(invec, inoutvec, len, datatype)
  implicit none
  integer :: len, datatype
  integer :: invec(len), inoutvec(len)
  inoutvec = inoutvec + invec
end subroutine
#endif
