"""Exact assignment on the CPU (numba.njit): shortest augmenting paths.

The solver is Jonker and Volgenant's (1987): an *augmenting row reduction*
(an auction with exact second-best prices, ε = 0) gives most rows a column
cheaply, then every row still free is assigned along a shortest augmenting
path found by Dijkstra's algorithm on reduced costs.  The sparse search uses
an indexed binary heap and resets only what it touched, so a search costs
what it explores (LAPJVsp's, which SciPy ports, clears and scans arrays of
all ``nc`` columns for every free row).

Notation.  Rows ``0..nr-1`` (the side processed one by one), columns
``0..nc-1``, costs to minimise.  ``v[j]`` is column ``j``'s potential; a
matched row's potential is implicit, ``u[i] = match_cost[i] - v[col4row[i]]``.
Invariants between searches (exact arithmetic):

* every reduced cost ``c[i,j] - u[i] - v[j]`` of a matched row is >= 0, and
  0 on its matched edge;
* every free column keeps ``v[j] = 0``, the largest potential (potentials
  only decrease): what makes rectangular problems (``nr < nc``) exact, as in
  the dual of "each column at most once".

``col4row[i]``: the row's column, ``FREE`` (-1) or ``DUMMY`` (-2, matched to
its private zero-cost option, i.e. left unmatched by choice).

Modes (what a row may do besides taking a real column):

* ``PERFECT`` (0): nothing; a row that cannot be assigned makes the problem
  infeasible.
* ``DUMMY_EXIT`` (1): every row has a private column of cost 0 (never stored):
  the maximum-weight matching, any cardinality, as a row-perfect problem.
* ``MAX_CARDINALITY`` (2): the cheapest matching among those of maximum
  cardinality.  Row ``r`` is processed once: if an augmenting path exists,
  the shortest one is taken (the cheapest matching one larger); otherwise the
  cheapest even alternating path from ``r`` to a matched row ``r'`` is taken
  when it saves cost (``r`` in, ``r'`` out).  Both steps keep the matching the
  cheapest of maximum cardinality among the rows processed so far (a flow
  argument: the difference of two optimal flows is one path or one cycle
  through the new row's source arc; see the README, "Exact assignment").
"""

from __future__ import annotations

import numpy as np
from numba import njit

FREE = -1
DUMMY = -2
PERFECT, DUMMY_EXIT, MAX_CARDINALITY = 0, 1, 2


# --------------------------------------------------------------------------
# compressed rows
# --------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def rows_from_pairs(rows, cols, cost, nr, nc):
    """CSR of (row, col, cost) triples, columns ascending within each row and
    each (row, col) pair once with its smallest cost (the first such row on a tie).

    Two counting-sort passes (by column, then stably by row): linear, no
    comparison sort.  Returns ``(indptr, indices, cost, origin)``: int64
    offsets and columns, the costs, and each entry's input position.
    """
    m = rows.shape[0]
    # pass 1: by column
    count = np.zeros(nc + 1, dtype=np.int64)
    for t in range(m):
        count[cols[t] + 1] += 1
    for j in range(nc):
        count[j + 1] += count[j]
    by_col = np.empty(m, dtype=np.int64)
    for t in range(m):
        j = cols[t]
        by_col[count[j]] = t
        count[j] += 1
    # pass 2: stably by row
    indptr = np.zeros(nr + 1, dtype=np.int64)
    for t in range(m):
        indptr[rows[t] + 1] += 1
    for i in range(nr):
        indptr[i + 1] += indptr[i]
    fill = indptr[:-1].copy()
    order = np.empty(m, dtype=np.int64)
    for s in range(m):
        t = by_col[s]
        i = rows[t]
        order[fill[i]] = t
        fill[i] += 1
    # keep the cheapest of each (row, col); rows are sorted by column now
    indices = np.empty(m, dtype=np.int64)
    out_cost = np.empty(m, dtype=cost.dtype)
    origin = np.empty(m, dtype=np.int64)
    new_ptr = np.zeros(nr + 1, dtype=np.int64)
    k = 0
    for i in range(nr):
        last = -1
        for s in range(indptr[i], indptr[i + 1]):
            t = order[s]
            j = cols[t]
            if j == last:
                if cost[t] < out_cost[k - 1]:
                    out_cost[k - 1] = cost[t]
                    origin[k - 1] = t
            else:
                indices[k] = j
                out_cost[k] = cost[t]
                origin[k] = t
                k += 1
                last = j
        new_ptr[i + 1] = k
    if k == m:
        return new_ptr, indices, out_cost, origin
    return new_ptr, indices[:k].copy(), out_cost[:k].copy(), origin[:k].copy()


@njit(cache=True, nogil=True)
def chosen_origins(indptr, indices, origin, col4row):
    """Input positions of the matched entries (rows in ascending order)."""
    nr = col4row.shape[0]
    count = 0
    for i in range(nr):
        if col4row[i] >= 0:
            count += 1
    out = np.empty(count, dtype=np.int64)
    k = 0
    for i in range(nr):
        j = col4row[i]
        if j >= 0:
            for t in range(indptr[i], indptr[i + 1]):
                if indices[t] == j:
                    out[k] = origin[t]
                    k += 1
                    break
    return out


# --------------------------------------------------------------------------
# initialisation
# --------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def column_reduction(indptr, indices, cost, nr, nc, v, col4row, row4col, match_cost, inf):
    """JV's column reduction and reduction transfer (square, perfect problems).

    ``v[j] = min_i c[i,j]`` (reduced costs >= 0 with ``u = 0``); each column's
    cheapest row takes it when still free; a row taken exactly once then moves
    its potential to its column (``v[j] -= min_{k != j} (c[i,k] - v[k])``), which
    keeps its edge tight and lowers other rows' claim on ``j``.  Returns False
    when a column has no entry (no perfect matching).
    """
    argmin = np.full(nc, -1, dtype=np.int64)
    argpos = np.full(nc, -1, dtype=np.int64)
    for j in range(nc):
        v[j] = inf
    for i in range(nr):
        for t in range(indptr[i], indptr[i + 1]):
            j = indices[t]
            if cost[t] < v[j]:
                v[j] = cost[t]
                argmin[j] = i
                argpos[j] = t
    for j in range(nc):
        if argmin[j] < 0:
            return False
    times = np.zeros(nr, dtype=np.int64)
    for j in range(nc - 1, -1, -1):
        i = argmin[j]
        times[i] += 1
        if col4row[i] == FREE:
            col4row[i] = j
            row4col[j] = i
            match_cost[i] = cost[argpos[j]]
    for i in range(nr):
        if times[i] != 1:
            # a row several columns chose keeps the last of them, tight with
            # u = 0; only a row chosen once moves its potential (JV)
            continue
        j1 = col4row[i]
        best = inf
        for t in range(indptr[i], indptr[i + 1]):
            j = indices[t]
            if j != j1:
                val = cost[t] - v[j]
                if val < best:
                    best = val
        if best < inf:
            v[j1] = match_cost[i] - best
    return True


@njit(cache=True, nogil=True)
def augmenting_row_reduction(indptr, indices, cost, mode, v, col4row, row4col, match_cost,
                             free_rows, n_free, inf, passes, budget):
    """JV's augmenting row reduction over ``free_rows[:n_free]``.

    A free row takes its cheapest column (reduced cost ``v0``) at the price
    that makes it indifferent to its second cheapest (``v1``): ``v[j0] -= v1 -
    v0``, so its edge is tight with ``u = v1`` and every other reduced cost
    stays >= 0.  The displaced owner bids again at once when the price rose,
    else after the pass (JV).  Ties (``v0 == v1``) give no price rise; the
    ``budget`` of bids bounds price wars.  Returns the number of rows still
    free, packed at the front of ``free_rows``.
    """
    zero = np.zeros(1, dtype=cost.dtype)[0]
    for _ in range(passes):
        k = 0
        n_next = 0
        limit = n_free
        while k < limit:
            i = free_rows[k]
            k += 1
            budget -= 1
            if budget < 0:
                # out of bids: keep every row not yet handled
                free_rows[n_next] = i
                n_next += 1
                while k < limit:
                    free_rows[n_next] = free_rows[k]
                    n_next += 1
                    k += 1
                break
            v0 = inf
            v1 = inf
            j0 = FREE
            j1 = FREE
            t0 = -1
            t1 = -1
            for t in range(indptr[i], indptr[i + 1]):
                j = indices[t]
                val = cost[t] - v[j]
                if val < v1:
                    if val >= v0:
                        v1 = val
                        j1 = j
                        t1 = t
                    else:
                        v1 = v0
                        j1 = j0
                        t1 = t0
                        v0 = val
                        j0 = j
                        t0 = t
            if mode == DUMMY_EXIT:
                val = zero  # the private option: cost 0, potential 0
                if val < v1:
                    if val >= v0:
                        v1 = val
                        j1 = DUMMY
                    else:
                        v1 = v0
                        j1 = j0
                        t1 = t0
                        v0 = val
                        j0 = DUMMY
            if j0 == FREE:
                # no column at all: the row stays free (the search reports it)
                free_rows[n_next] = i
                n_next += 1
                continue
            if j0 == DUMMY:
                col4row[i] = DUMMY
                match_cost[i] = 0
                continue
            if j1 == FREE:
                v1 = v0  # a single option: take it without a price rise
            i0 = row4col[j0]
            rise = v0 < v1
            if rise:
                v[j0] -= v1 - v0
            elif i0 != FREE and j1 != FREE:
                # tie: the second-cheapest column is as good; try it instead
                j0 = j1
                t0 = t1
                if j0 == DUMMY:
                    col4row[i] = DUMMY
                    match_cost[i] = 0
                    continue
                i0 = row4col[j0]
            col4row[i] = j0
            row4col[j0] = i
            match_cost[i] = cost[t0]
            if i0 != FREE:
                col4row[i0] = FREE
                if rise:
                    k -= 1
                    free_rows[k] = i0
                else:
                    # the pass must not overwrite rows it has yet to read:
                    # k > n_next always holds here (i was read, not kept)
                    free_rows[n_next] = i0
                    n_next += 1
        n_free = n_next
        if n_free == 0 or budget < 0:
            break
    return n_free


@njit(cache=True, nogil=True)
def auction_prices(indptr, indices, cost, nr, v, col4row, row4col, eps_start, eps_end, theta,
                   budget):
    """ε-scaling forward auction (Bertsekas), Gauss-Seidel, for a square problem:
    near-optimal column potentials ``v`` (float64) and an assignment, as a
    warm start for the exact phases.

    A free row takes its cheapest column ``j0`` (reduced cost ``w0``) and
    lowers ``v[j0]`` by ``w1 - w0 + eps`` (``w1``: its second cheapest), so it
    stays within ``eps`` of its best (ε-complementary slackness); the row it
    displaces bids again.  Each phase keeps the rows still within the new
    ``eps`` of their best and divides ``eps`` by ``theta``.  Returns the number
    of bids, or -1 when ``budget`` bids did not suffice (an infeasible or
    pathological problem; the state is still ε-complementary and usable).
    """
    queue = np.empty(nr, dtype=np.int64)
    eps = eps_start
    bids = 0
    while True:
        n_queue = 0
        for i in range(nr):
            j = col4row[i]
            if j >= 0:
                best = np.inf
                own = np.inf
                for t in range(indptr[i], indptr[i + 1]):
                    k = indices[t]
                    val = cost[t] - v[k]
                    if val < best:
                        best = val
                    if k == j:
                        own = val
                if own - best > eps:
                    col4row[i] = FREE
                    row4col[j] = FREE
            if col4row[i] == FREE:
                queue[n_queue] = i
                n_queue += 1
        head = 0
        count = n_queue
        while count > 0:
            i = queue[head]
            head += 1
            if head == nr:
                head = 0
            count -= 1
            bids += 1
            if bids > budget:
                return -1
            w0 = np.inf
            w1 = np.inf
            j0 = -1
            for t in range(indptr[i], indptr[i + 1]):
                k = indices[t]
                val = cost[t] - v[k]
                if val < w1:
                    if val >= w0:
                        w1 = val
                    else:
                        w1 = w0
                        w0 = val
                        j0 = k
            if j0 < 0:
                return -1  # a row without columns: no perfect assignment
            if w1 == np.inf:
                w1 = w0
            v[j0] -= (w1 - w0) + eps
            prev = row4col[j0]
            row4col[j0] = i
            col4row[i] = j0
            if prev >= 0:
                col4row[prev] = FREE
                tail = head + count
                if tail >= nr:
                    tail -= nr
                queue[tail] = prev
                count += 1
        if eps <= eps_end:
            return bids
        eps = max(eps / theta, eps_end)


@njit(cache=True, nogil=True)
def exact_state(indptr, indices, cost, nr, v, col4row, row4col, match_cost, mode):
    """Turn a warm start into the exact phases' invariants: keep a row's column
    only when it is exactly its cheapest (reduced cost equal to the row's
    minimum, the private option's 0 included in ``DUMMY_EXIT`` mode, so ``u``
    and every reduced cost are exact), free the others.  Returns the free rows
    (ascending) and their count."""
    free_rows = np.empty(nr, dtype=np.int64)
    n_free = 0
    zero = np.zeros(1, dtype=cost.dtype)[0]
    for i in range(nr):
        j = col4row[i]
        if j != FREE:
            best = zero
            own = zero  # the private option's value, when that is the row's choice
            first = mode != DUMMY_EXIT
            for t in range(indptr[i], indptr[i + 1]):
                val = cost[t] - v[indices[t]]
                if first or val < best:
                    best = val
                    first = False
                if indices[t] == j:
                    own = val
                    match_cost[i] = cost[t]
            if own > best:
                col4row[i] = FREE
                if j >= 0:
                    row4col[j] = FREE
            elif j == DUMMY:
                match_cost[i] = zero
        if col4row[i] == FREE:
            free_rows[n_free] = i
            n_free += 1
    return free_rows, n_free


# --------------------------------------------------------------------------
# Dijkstra's search with an indexed binary heap
# --------------------------------------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def _less(d, a, b):
    # ties go to the smaller node id: deterministic searches
    return d[a] < d[b] or (d[a] == d[b] and a < b)


@njit(cache=True, nogil=True)
def _sift_up(heap, pos, d, k):
    node = heap[k]
    while k > 0:
        parent = (k - 1) >> 1
        other = heap[parent]
        if _less(d, node, other):
            heap[k] = other
            pos[other] = k
            k = parent
        else:
            break
    heap[k] = node
    pos[node] = k


@njit(cache=True, nogil=True)
def _pop(heap, pos, d, size):
    """Remove and return the heap's minimum; ``size`` is the size before."""
    top = heap[0]
    pos[top] = -1
    size -= 1
    if size > 0:
        node = heap[size]
        k = 0
        while True:
            child = 2 * k + 1
            if child >= size:
                break
            if child + 1 < size and _less(d, heap[child + 1], heap[child]):
                child += 1
            if _less(d, heap[child], node):
                heap[k] = heap[child]
                pos[heap[k]] = k
                k = child
            else:
                break
        heap[k] = node
        pos[node] = k
    return top


@njit(cache=True, nogil=True)
def shortest_augmenting_paths(indptr, indices, cost, nr, nc, mode, v, col4row, row4col,
                              match_cost, free_rows, n_free, inf):
    """Assign ``free_rows[:n_free]`` one by one along shortest augmenting paths.

    Returns the first row that cannot be assigned in ``PERFECT`` mode (the
    problem is infeasible; the state is then partial), else -1.  Nodes
    ``nc + i`` stand for row ``i``'s private option in ``DUMMY_EXIT`` mode.
    """
    n_nodes = nc + nr if mode == DUMMY_EXIT else nc
    d = np.full(n_nodes, inf, dtype=cost.dtype)
    pred = np.empty(n_nodes, dtype=np.int64)
    pred_cost = np.empty(n_nodes, dtype=cost.dtype)
    state = np.zeros(n_nodes, dtype=np.int8)  # 0 unseen, 1 in the heap, 2 settled
    heap = np.empty(n_nodes, dtype=np.int64)
    pos = np.full(n_nodes, -1, dtype=np.int64)
    touched = np.empty(n_nodes, dtype=np.int64)
    settled = np.empty(nc, dtype=np.int64)
    zero = np.zeros(1, dtype=cost.dtype)[0]
    for q in range(n_free):
        r = free_rows[q]
        if col4row[r] != FREE:
            continue
        size = 0
        n_touched = 0
        n_settled = 0
        endpoint = -1
        mu = zero
        # the root's own labels (its potential taken as 0: labels may be < 0)
        for t in range(indptr[r], indptr[r + 1]):
            j = indices[t]
            nd = cost[t] - v[j]
            if nd < d[j]:
                if state[j] == 0:
                    state[j] = 1
                    touched[n_touched] = j
                    n_touched += 1
                    heap[size] = j
                    size += 1
                d[j] = nd
                pred[j] = r
                pred_cost[j] = cost[t]
                _sift_up(heap, pos, d, pos[j] if pos[j] >= 0 else size - 1)
        if mode == DUMMY_EXIT:
            node = nc + r
            state[node] = 1
            touched[n_touched] = node
            n_touched += 1
            d[node] = zero
            pred[node] = r
            pred_cost[node] = zero
            heap[size] = node
            size += 1
            _sift_up(heap, pos, d, size - 1)
        exit_row = -1
        exit_gain = zero  # MAX_CARDINALITY: the cheapest swap found, if < 0
        while size > 0:
            k = _pop(heap, pos, d, size)
            size -= 1
            dk = d[k]
            if k >= nc:  # a private option: the row it belongs to leaves
                endpoint = k
                mu = dk
                break
            state[k] = 2
            settled[n_settled] = k
            n_settled += 1
            i = row4col[k]
            if i == FREE:
                endpoint = k
                mu = dk
                break
            h = dk - (match_cost[i] - v[k])  # dk - u[i]
            if mode == MAX_CARDINALITY and h < exit_gain:
                exit_gain = h
                exit_row = i
            for t in range(indptr[i], indptr[i + 1]):
                j = indices[t]
                if state[j] == 2:
                    continue
                nd = h + cost[t] - v[j]
                if nd < d[j]:
                    d[j] = nd
                    pred[j] = i
                    pred_cost[j] = cost[t]
                    if state[j] == 0:
                        state[j] = 1
                        touched[n_touched] = j
                        n_touched += 1
                        heap[size] = j
                        size += 1
                        _sift_up(heap, pos, d, size - 1)
                    else:
                        _sift_up(heap, pos, d, pos[j])
                    if row4col[j] == FREE and nd <= dk:
                        # a free column as close as the one just settled: a
                        # shortest path ends there (no need to pop it)
                        endpoint = j
                        break
            if endpoint >= 0:
                d[endpoint] = dk
                mu = dk
                break
            if mode == DUMMY_EXIT:
                node = nc + i
                state[node] = 1
                touched[n_touched] = node
                n_touched += 1
                d[node] = h
                pred[node] = i
                pred_cost[node] = zero
                heap[size] = node
                size += 1
                _sift_up(heap, pos, d, size - 1)
                if h <= dk:
                    endpoint = node
                    d[node] = dk
                    mu = dk
                    break
        leaving = -1  # a row that ends unmatched: by its private option or a swap
        if endpoint < 0:
            if mode == MAX_CARDINALITY and exit_row >= 0:
                leaving = exit_row
                mu = d[col4row[exit_row]]
            else:
                for s in range(n_touched):
                    node = touched[s]
                    d[node] = inf
                    state[node] = 0
                    pos[node] = -1
                if mode == PERFECT:
                    return r
                continue  # MAX_CARDINALITY: r stays unmatched, nothing changed
        # potentials: settled columns closer than mu move by d - mu (<= 0)
        for s in range(n_settled):
            j = settled[s]
            if d[j] < mu:
                v[j] += d[j] - mu
        # flip the path, from its far end back to r
        if leaving >= 0 or endpoint >= nc:
            if leaving < 0:
                leaving = endpoint - nc
            j = col4row[leaving]
            if leaving == r:
                j = -1
            col4row[leaving] = DUMMY if endpoint >= nc else FREE
            match_cost[leaving] = zero
        else:
            j = endpoint
        while j >= 0:
            i = pred[j]
            nxt = col4row[i]
            row4col[j] = i
            col4row[i] = j
            match_cost[i] = pred_cost[j]
            if i == r:
                break
            j = nxt
        for s in range(n_touched):
            node = touched[s]
            d[node] = inf
            state[node] = 0
            pos[node] = -1
    return -1


AUCTION_THETA = 8.0  # ε divided by this per phase (Bertsekas suggests 4-10)


def solve_sparse(indptr, indices, cost, nr: int, nc: int, mode: int, inf, warm_start: bool = True,
                 arr_passes: int = 2):
    """Run the whole solver on a CSR.  Returns ``(col4row, bad_row)``:
    ``bad_row >= 0`` names a row no perfect assignment can serve (``PERFECT``).

    Square ``PERFECT`` problems start from an ε-scaling auction: its prices,
    then only the rows at an exact minimum kept.  A square ``MAX_CARDINALITY``
    problem is first tried as a perfect one (the same answer when a perfect
    matching exists; when none does, the failed try costs at most the
    auction's bid budget and one search).  The others start from zero
    potentials, which they need: a free column must keep the largest
    potential, and auction prices carried across ε phases break that (the
    rows the conversion frees leave priced columns free; lifting those to 0
    cascaded through nearly every row of a 10⁵ maximum-weight instance, and
    rectangular perfect instances were faster cold: 0.01-0.1 s against
    0.07-0.54 s, measured).  Then JV's augmenting row reduction and the
    shortest augmenting paths, which alone decide exactness.
    """
    m = int(indices.shape[0])
    square = nr == nc
    if mode == MAX_CARDINALITY and square and warm_start and m > 0 \
            and np.diff(indptr).min() > 0 and np.bincount(indices, minlength=nc).min() > 0:
        # when a perfect matching exists, the matchings of maximum cardinality
        # are the perfect ones: try the (warm-started) perfect problem first
        col4row, bad = solve_sparse(indptr, indices, cost, nr, nc, PERFECT, inf, True,
                                    arr_passes)
        if bad < 0:
            return col4row, bad
    v = np.zeros(nc, dtype=cost.dtype)
    col4row = np.full(nr, FREE, dtype=np.int64)
    row4col = np.full(nc, FREE, dtype=np.int64)
    match_cost = np.zeros(nr, dtype=cost.dtype)
    if mode == PERFECT and nr > 0 and m > 0 and np.diff(indptr).min() == 0:
        return col4row, int(np.argmin(np.diff(indptr)))
    if mode == PERFECT and square and nr > 0 and m > 0 and not warm_start:
        column_reduction(indptr, indices, cost, nr, nc, v, col4row, row4col, match_cost, inf)
        free_rows = np.flatnonzero(col4row == FREE).astype(np.int64)
        n_free = free_rows.shape[0]
    elif mode == PERFECT and square and nr > 0 and m > 0:
        low, high = cost.min(), cost.max()
        spread = float(high) - float(low)
        if not spread > 0:
            spread = 1.0
        vf = np.zeros(nc, dtype=np.float64)
        auction_prices(indptr, indices, cost, nr, vf, col4row, row4col, spread / 4,
                       spread / max(nr, 1), AUCTION_THETA, 10 * m + 10 * nr)
        if cost.dtype.kind == "f":
            v = vf.astype(cost.dtype)
        else:
            v = np.rint(vf).astype(np.int64)
        free_rows, n_free = exact_state(indptr, indices, cost, nr, v, col4row, row4col,
                                        match_cost, mode)
    else:
        free_rows = np.arange(nr, dtype=np.int64)
        n_free = nr
    if arr_passes > 0 and n_free > 0:
        n_free = augmenting_row_reduction(indptr, indices, cost, mode, v, col4row, row4col,
                                          match_cost, free_rows, n_free, inf, arr_passes,
                                          4 * nr + m)
        free_rows[:n_free].sort()  # the searches take rows in ascending order
    bad = shortest_augmenting_paths(indptr, indices, cost, nr, nc, mode, v, col4row, row4col,
                                    match_cost, free_rows, n_free, inf)
    return col4row, bad


# --------------------------------------------------------------------------
# dense matrices (SciPy's linear_sum_assignment semantics)
# --------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _dense_column_reduction(c, v, col4row, row4col, inf):
    n = c.shape[0]
    argmin = np.full(n, -1, dtype=np.int64)
    for j in range(n):
        v[j] = inf
    for i in range(n):
        for j in range(n):
            if c[i, j] < v[j]:
                v[j] = c[i, j]
                argmin[j] = i
    for j in range(n):
        if argmin[j] < 0:
            return False
    times = np.zeros(n, dtype=np.int64)
    for j in range(n - 1, -1, -1):
        i = argmin[j]
        times[i] += 1
        if col4row[i] == FREE:
            col4row[i] = j
            row4col[j] = i
    for i in range(n):
        if times[i] != 1:
            continue
        j1 = col4row[i]
        best = inf
        for j in range(n):
            if j != j1:
                val = c[i, j] - v[j]
                if val < best:
                    best = val
        if best < inf:
            v[j1] = c[i, j1] - best
    return True


@njit(cache=True, nogil=True)
def _dense_row_reduction(c, v, col4row, row4col, free_rows, n_free, inf, passes, budget):
    """:func:`augmenting_row_reduction` on a dense matrix (``PERFECT`` mode)."""
    nc = c.shape[1]
    for _ in range(passes):
        k = 0
        n_next = 0
        limit = n_free
        while k < limit:
            i = free_rows[k]
            k += 1
            budget -= 1
            if budget < 0:
                free_rows[n_next] = i
                n_next += 1
                while k < limit:
                    free_rows[n_next] = free_rows[k]
                    n_next += 1
                    k += 1
                break
            v0 = inf
            v1 = inf
            j0 = -1
            j1 = -1
            for j in range(nc):
                val = c[i, j] - v[j]
                if val < v1:
                    if val >= v0:
                        v1 = val
                        j1 = j
                    else:
                        v1 = v0
                        j1 = j0
                        v0 = val
                        j0 = j
            if j0 < 0:
                free_rows[n_next] = i
                n_next += 1
                continue
            if j1 < 0:
                v1 = v0
            i0 = row4col[j0]
            rise = v0 < v1
            if rise:
                v[j0] -= v1 - v0
            elif i0 != FREE and j1 >= 0:
                j0 = j1
                i0 = row4col[j0]
            col4row[i] = j0
            row4col[j0] = i
            if i0 != FREE:
                col4row[i0] = FREE
                if rise:
                    k -= 1
                    free_rows[k] = i0
                else:
                    free_rows[n_next] = i0
                    n_next += 1
        n_free = n_next
        if n_free == 0 or budget < 0:
            break
    return n_free


@njit(cache=True, nogil=True)
def solve_dense(c, inf, arr_passes):
    """SciPy's ``linear_sum_assignment`` problem on a dense ``nr x nc`` matrix
    with ``nr <= nc`` (``inf`` entries forbidden).  Returns ``(col4row, bad)``,
    ``bad >= 0`` when infeasible."""
    nr, nc = c.shape
    v = np.zeros(nc, dtype=c.dtype)
    col4row = np.full(nr, FREE, dtype=np.int64)
    row4col = np.full(nc, FREE, dtype=np.int64)
    if nr == 0:
        return col4row, -1
    if nr == nc:
        if not _dense_column_reduction(c, v, col4row, row4col, inf):
            return col4row, 0
    free_rows = np.empty(nr, dtype=np.int64)
    n_free = 0
    for i in range(nr):
        if col4row[i] == FREE:
            free_rows[n_free] = i
            n_free += 1
    if arr_passes > 0 and n_free > 0:
        n_free = _dense_row_reduction(c, v, col4row, row4col, free_rows, n_free, inf,
                                      arr_passes, 4 * nr + nr * nc)
        free_rows[:n_free].sort()
    d = np.empty(nc, dtype=c.dtype)
    pred = np.empty(nc, dtype=np.int64)
    cols = np.empty(nc, dtype=np.int64)
    for q in range(n_free):
        r = free_rows[q]
        end = _dense_path(c, r, v, col4row, row4col, d, pred, cols, inf)
        if end < 0:
            return col4row, r
    return col4row, -1


@njit(cache=True, nogil=True)
def _dense_path(c, r, v, col4row, row4col, d, pred, cols, inf):
    """One shortest augmenting path from free row ``r`` on a dense matrix (JV's
    search): ``cols`` keeps the columns in three groups, settled ``[0, lo)``,
    at the current smallest distance ``[lo, hi)`` and the rest ``[hi, nc)``,
    so a step costs one pass over the unsettled columns and no heap.  Updates
    ``v``, flips the path and returns the free column reached, or -1 when
    none is reachable (infeasible)."""
    nc = c.shape[1]
    for j in range(nc):
        cols[j] = j
        d[j] = c[r, j] - v[j]
        pred[j] = r
    lo = 0
    hi = 0
    end = -1
    mind = inf
    while end < 0:
        if lo == hi:
            mind = inf
            for k in range(hi, nc):
                j = cols[k]
                if d[j] <= mind:
                    if d[j] < mind:
                        hi = lo
                        mind = d[j]
                    cols[k] = cols[hi]
                    cols[hi] = j
                    hi += 1
            if not mind < inf:
                return -1
            for k in range(lo, hi):
                if row4col[cols[k]] == FREE:
                    end = cols[k]
                    break
            if end >= 0:
                break
        j = cols[lo]
        lo += 1
        i = row4col[j]
        h = mind - (c[i, j] - v[j])
        for k in range(hi, nc):
            jj = cols[k]
            nd = h + c[i, jj] - v[jj]
            if nd < d[jj]:
                d[jj] = nd
                pred[jj] = i
                if nd <= mind:
                    if row4col[jj] == FREE:
                        end = jj
                        break
                    cols[k] = cols[hi]
                    cols[hi] = jj
                    hi += 1
    for k in range(lo):
        j = cols[k]
        if d[j] < mind:
            v[j] += d[j] - mind
    j = end
    while True:
        i = pred[j]
        row4col[j] = i
        nxt = col4row[i]
        col4row[i] = j
        if i == r:
            break
        j = nxt
    return end


# --------------------------------------------------------------------------
# the record named when no perfect matching exists
# --------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def first_unmatchable_row(indptr, indices, nr, nc, budget):
    """The first row ``r`` such that rows ``0..r`` have no matching covering
    them all (where Hall's condition first fails, in row order): Kuhn's
    augmenting paths, row by row in ascending order, each a depth-first
    search that visits a column once.  The solvers' failing row is the
    first their own order (warm starts, reductions) could not serve, which
    need not be that one.  Returns -1 when every row is matched, -2 when
    ``budget`` edge visits did not settle it (the searches are O(rows x
    entries) at worst)."""
    row4col = np.full(nc, -1, dtype=np.int64)
    seen = np.full(nc, -1, dtype=np.int64)  # the search (row) that visited the column
    stack_row = np.empty(nr, dtype=np.int64)
    stack_at = np.empty(nr, dtype=np.int64)
    via = np.empty(nr, dtype=np.int64)  # the column each level of the stack went through
    work = 0
    for r in range(nr):
        top = 0
        stack_row[0] = r
        stack_at[0] = indptr[r]
        found = False
        while top >= 0 and not found:
            i = stack_row[top]
            t = stack_at[top]
            if t == indptr[i + 1]:
                top -= 1
                continue
            stack_at[top] = t + 1
            work += 1
            if work > budget:
                return -2
            j = indices[t]
            if seen[j] == r:
                continue
            seen[j] = r
            via[top] = j
            owner = row4col[j]
            if owner < 0:  # a free column: every row on the stack moves one column on
                for level in range(top, -1, -1):
                    row4col[via[level]] = stack_row[level]
                found = True
            else:  # a row holds one column, so it is on the stack at most once
                top += 1
                stack_row[top] = owner
                stack_at[top] = indptr[owner]
        if not found:
            return r
    return -1
