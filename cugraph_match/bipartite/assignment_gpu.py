"""Exact assignment on the GPU (numba.cuda + CuPy): data-parallel auction
bidding, then the host's exact finish.

The bulk of the work is bidding, and bids are independent: in a *Jacobi*
round every free row bids at once (one warp per row: the lanes stride over
its candidates and a butterfly shuffle reduction finds the cheapest column
``j0`` at reduced cost ``w0`` and the second cheapest ``w1``), each column
keeps its best bid (``atomic.min`` on the new potential, then ``atomic.min``
on the bidder among equal bids: ties to the smallest row, deterministic), and
one thread per bid installs the winners.  No lock, no retry; a round is three
launches and one host read of the number of free rows.

* **Square perfect problems**: Bertsekas' ε-scaling auction (a bid lowers
  ``v[j0]`` by ``w1 - w0 + ε``), ε divided by 8 per phase down to
  ``spread / n``.  The result is ε-optimal, not exact: the host keeps the
  rows at an exact minimum and finishes with JV's augmenting row reduction and
  shortest augmenting paths (``assignment_cpu``), from prices so close to
  optimal that the searches are short.
* **Everything else** (rectangular, unmatched allowed): the same rounds with
  ε = 0 (a bid lowers ``v[j0]`` by exactly ``w1 - w0``; JV's augmenting row
  reduction, in parallel).  Every installed bid keeps the invariants of the
  exact phases (matched edges tight, reduced costs >= 0, free columns at
  potential 0: bids only lower the potential of a column that then stays
  matched), so the host goes straight to the shortest augmenting paths.
  Rounds stop when the free rows stop decreasing (ties can make rows trade a
  column back and forth without a price change).

The exact finish runs on the host because shortest augmenting paths are one
Dijkstra search after another: sequential work a GPU does not speed up.  Both
backends therefore return the same optimal value (integer weights: the same
exact optimum; floats: optimal up to rounding on both).

Memory ordering: within a round each kernel only reads what the previous
launch wrote (launch boundaries order global memory); inside
``install_kernel`` a column is written by its single winner, and a displaced
row is written only by the winner that displaced it (a displaced row was
matched, so it did not bid this round).  The simulator cannot check ordering;
these hold by construction.
"""

from __future__ import annotations

import numpy as np
from numba import cuda

from ..structure.device import launch
from . import assignment_cpu as K

FULL_MASK = 0xFFFFFFFF
WARP = 32
THREADS = 128
NO_ROW = np.iinfo(np.int64).max


@cuda.jit(device=True)
def _entry_cost(indptr, indices, cost, i, j):
    """The cost of row ``i``'s entry in column ``j`` (a row's columns are
    sorted: a binary search)."""
    lo = indptr[i]
    hi = indptr[i + 1] - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if indices[mid] < j:
            lo = mid + 1
        else:
            hi = mid
    return cost[lo]


@cuda.jit
def bid_kernel(free_rows, n_free, indptr, indices, cost, v, eps, zero, mode, occupied_rule,
               row4col, inf, bid_col, bid_val, col_min, unit):
    """One warp per free row: its bid (column and new potential) and the
    column's running best bid (``atomic.min``).

    ``unit`` is the potentials' machine epsilon (0 for integers): a bid's
    ``w1 - w0`` can round up, lowering the column's potential by more than
    the exact difference, so that its reduced cost ends above the second
    best's ``w1`` (+ ε).  The host's exact finish then freed the row, and its
    column stayed free below potential 0, where the searches chose a worse
    column (maximising [[1.0, 0.1]] gave 0.1).  Such a bid is raised by
    rounding steps, never above the column's potential before it."""
    warp = (cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x) // WARP
    lane = cuda.laneid
    if warp >= n_free:
        return
    i = free_rows[warp]
    b0 = inf
    b1 = inf
    j0 = -1
    j1 = -1
    t = indptr[i] + lane
    end = indptr[i + 1]
    while t < end:
        j = indices[t]
        val = cost[t] - v[j]
        if val < b0 or (val == b0 and j < j0):
            b1 = b0
            j1 = j0
            b0 = val
            j0 = j
        elif val < b1:
            b1 = val
            j1 = j
        t += WARP
    # butterfly reduction of (best, column, second, second's column)
    offset = 16
    while offset > 0:
        c0 = cuda.shfl_xor_sync(FULL_MASK, b0, offset)
        k0 = cuda.shfl_xor_sync(FULL_MASK, j0, offset)
        c1 = cuda.shfl_xor_sync(FULL_MASK, b1, offset)
        k1 = cuda.shfl_xor_sync(FULL_MASK, j1, offset)
        if c0 < b0 or (c0 == b0 and k0 >= 0 and (j0 < 0 or k0 < j0)):
            # the other lane's best wins; ours becomes a second candidate
            if b0 < c1 or (b0 == c1 and j0 >= 0 and (k1 < 0 or j0 < k1)):
                b1 = b0
                j1 = j0
            else:
                b1 = c1
                j1 = k1
            b0 = c0
            j0 = k0
        else:
            if c0 < b1 or (c0 == b1 and k0 >= 0 and (j1 < 0 or k0 < j1)):
                b1 = c0
                j1 = k0
        offset //= 2
    if lane != 0:
        return
    if mode == 1:  # the row's private option: value 0, column -2
        if zero < b0 or (zero == b0 and j0 >= 0):
            b1 = b0
            j1 = j0
            b0 = zero
            j0 = -2
        elif zero < b1:
            b1 = zero
            j1 = -2
    bid_col[warp] = j0
    if j0 < 0:
        return
    if b1 >= inf:
        b1 = b0  # a single option: no price rise beyond eps
    if occupied_rule and b1 == b0 and j1 != -1 and row4col[j0] >= 0:
        # an exact tie with a taken column: take the second one instead (JV)
        j0 = j1
        bid_col[warp] = j0
        if j0 < 0:
            return
    new_v = v[j0] - (b1 - b0) - eps
    if unit > 0:
        own = _entry_cost(indptr, indices, cost, i, j0)
        steps = 0
        while own - new_v > b1 + eps and new_v < v[j0] and steps < 8:
            new_v = min(new_v + (abs(new_v) + abs(own)) * unit, v[j0])
            steps += 1
    bid_val[warp] = new_v
    cuda.atomic.min(col_min, j0, new_v)


@cuda.jit
def claim_kernel(free_rows, n_free, bid_col, bid_val, col_min, winner):
    """Among the bids equal to a column's best, the smallest row wins."""
    k = cuda.grid(1)
    if k >= n_free:
        return
    j = bid_col[k]
    if j >= 0 and bid_val[k] == col_min[j]:
        cuda.atomic.min(winner, j, free_rows[k])


@cuda.jit
def install_kernel(free_rows, n_free, bid_col, bid_val, col_min, winner, v, col4row, row4col,
                   inf):
    """Winners take their columns at their bid; displaced rows become free."""
    k = cuda.grid(1)
    if k >= n_free:
        return
    i = free_rows[k]
    j = bid_col[k]
    if j == -2:
        col4row[i] = -2
        return
    if j < 0 or winner[j] != i:
        return
    previous = row4col[j]
    row4col[j] = i
    col4row[i] = j
    v[j] = bid_val[k]
    if previous >= 0:
        col4row[previous] = -1
    col_min[j] = inf
    winner[j] = NO_ROW


@cuda.jit
def slack_kernel(indptr, indices, cost, v, col4row, row4col, eps, nr, inf):
    """One warp per row: a matched row further than ``eps`` from its cheapest
    column is freed (the start of an ε-scaling phase)."""
    warp = (cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x) // WARP
    lane = cuda.laneid
    if warp >= nr:
        return
    j = col4row[warp]
    if j < 0:
        return
    best = inf
    own = inf
    t = indptr[warp] + lane
    end = indptr[warp + 1]
    while t < end:
        k = indices[t]
        val = cost[t] - v[k]
        if val < best:
            best = val
        if k == j:
            own = val
        t += WARP
    offset = 16
    while offset > 0:
        other = cuda.shfl_xor_sync(FULL_MASK, best, offset)
        if other < best:
            best = other
        other = cuda.shfl_xor_sync(FULL_MASK, own, offset)
        if other < own:
            own = other
        offset //= 2
    if lane == 0 and own - best > eps:
        col4row[warp] = -1
        row4col[j] = -1


def _grid(items: int, per_item: int = 1) -> tuple[int, int]:
    """(blocks, threads) covering ``items`` work items of ``per_item`` threads;
    small launches get small blocks (fewer idle threads, and far fewer
    simulated Python threads)."""
    threads = max(WARP, min(THREADS, items * per_item))
    threads = -(-threads // WARP) * WARP
    return max(1, -(-items * per_item // threads)), threads


def _rounds(xp, free_rows, indptr, indices, cost, v, eps, mode, occupied_rule, col4row, row4col,
            inf, col_min, winner, budget, stall_rounds):
    """Jacobi bidding rounds until no row is free, ``budget`` bids are spent,
    or the free count has not dropped for ``stall_rounds`` rounds.  Returns
    the number of bids made."""
    nr = int(col4row.shape[0])
    bid_col = xp.empty(nr, dtype=np.int64)
    bid_val = xp.empty(nr, dtype=v.dtype)
    zero = v.dtype.type(0)
    unit = v.dtype.type(np.finfo(v.dtype).eps if v.dtype.kind == "f" else 0)
    bids = 0
    best_free = None
    stalled = 0
    while bids < budget:
        n_free = int(free_rows.shape[0])
        if n_free == 0:
            break
        if best_free is not None and n_free >= best_free:
            stalled += 1
            if stalled >= stall_rounds:
                break
        else:
            stalled = 0
            best_free = n_free
        bids += n_free
        launch(bid_kernel, *_grid(n_free, WARP), xp, free_rows, n_free, indptr,
               indices, cost, v, eps, zero, mode, occupied_rule, row4col, inf, bid_col,
               bid_val, col_min, unit)
        launch(claim_kernel, *_grid(n_free), xp, free_rows, n_free, bid_col, bid_val,
               col_min, winner)
        launch(install_kernel, *_grid(n_free), xp, free_rows, n_free, bid_col,
               bid_val, col_min, winner, v, col4row, row4col, inf)
        # a row with no option at all stays free; the stall rule ends the rounds
        free_rows = xp.flatnonzero(col4row == -1).astype(np.int64)
    return bids


def _device_csr(rows, cols, costs, nr: int, nc: int, xp):
    """CSR on the device: entries sorted by (row, column), each pair once with
    its smallest cost (the first input row on a tie), and each entry's input
    position.  Stable radix sorts (CuPy's argsort), cost first, then the
    packed (row, column) key."""
    m = int(rows.shape[0])
    order = xp.argsort(costs, kind="stable") if xp is np else xp.argsort(costs)
    key = rows[order] * nc + cols[order]
    second = xp.argsort(key, kind="stable") if xp is np else xp.argsort(key)
    order = order[second]
    key = key[second]
    keep = xp.ones(m, dtype=bool)
    if m > 1:
        keep[1:] = key[1:] != key[:-1]
    origin = order[keep].astype(np.int64)
    key = key[keep]
    indices = (key % nc).astype(np.int64)
    row_of = (key // nc).astype(np.int64)
    indptr = xp.zeros(nr + 1, dtype=np.int64)
    if origin.shape[0]:
        indptr[1:] = xp.cumsum(xp.bincount(row_of, minlength=nr))
    return indptr, indices, costs[origin], origin


def _host(array):
    return array.get() if hasattr(array, "get") else np.asarray(array)


def solve_pairs_gpu(rows, cols, costs, nr: int, nc: int, mode: int, inf, backend):
    """The GPU path of ``assignment._solve_pairs``: ``(positions, bad)``."""
    xp = backend.xp
    rows = xp.asarray(rows, dtype=np.int64)
    cols = xp.asarray(cols, dtype=np.int64)
    costs = xp.asarray(costs)
    indptr, indices, cost, origin = _device_csr(rows, cols, costs, nr, nc, xp)
    m = int(indices.shape[0])
    col4row = xp.full(nr, -1, dtype=np.int64)
    row4col = xp.full(nc, -1, dtype=np.int64)
    square = mode == K.PERFECT and nr == nc and m > 0
    if square and int(xp.diff(indptr).min()) == 0:
        return None, int(xp.argmin(xp.diff(indptr)))
    if square:
        # ε-scaling auction on float64 potentials (the costs may be int64)
        low, high = float(cost.min()), float(cost.max())
        spread = high - low if high > low else 1.0
        v = xp.zeros(nc, dtype=np.float64)
        col_min = xp.full(nc, np.inf, dtype=np.float64)
        winner = xp.full(nc, NO_ROW, dtype=np.int64)
        eps, eps_end = spread / 4, spread / nr
        budget = 10 * m + 10 * nr
        bids = 0
        while True:
            launch(slack_kernel, *_grid(nr, WARP), xp, indptr, indices, cost, v,
                   col4row, row4col, eps, nr, np.inf)
            free_rows = xp.flatnonzero(col4row == -1).astype(np.int64)
            bids += _rounds(xp, free_rows, indptr, indices, cost, v, eps, 0, False, col4row,
                            row4col, np.inf, col_min, winner, max(1, budget - bids), 1 << 30)
            if bids >= budget or eps <= eps_end:
                break
            eps = max(eps / K.AUCTION_THETA, eps_end)
        v_host = _host(v)
        v_exact = v_host.astype(cost.dtype) if cost.dtype.kind == "f" else \
            np.rint(v_host).astype(np.int64)
    else:
        v = xp.zeros(nc, dtype=cost.dtype)
        col_min = xp.full(nc, inf, dtype=cost.dtype)
        winner = xp.full(nc, NO_ROW, dtype=np.int64)
        free_rows = xp.arange(nr, dtype=np.int64)
        _rounds(xp, free_rows, indptr, indices, cost, v, cost.dtype.type(0), mode, True,
                col4row, row4col, cost.dtype.type(inf), col_min, winner, 64 * nr + 1, 3)
        v_exact = _host(v)
    # the exact finish on the host
    h_indptr, h_indices, h_cost, h_origin = (_host(a) for a in (indptr, indices, cost, origin))
    h_col4row, h_row4col = _host(col4row).copy(), _host(row4col).copy()
    v_exact = np.array(v_exact, copy=True)
    match_cost = np.zeros(nr, dtype=h_cost.dtype)
    free, n_free = K.exact_state(h_indptr, h_indices, h_cost, nr, v_exact, h_col4row,
                                 h_row4col, match_cost, mode)
    if n_free and square:
        n_free = K.augmenting_row_reduction(h_indptr, h_indices, h_cost, mode, v_exact,
                                            h_col4row, h_row4col, match_cost, free, n_free,
                                            h_cost.dtype.type(inf), 2, 4 * nr + m)
        free[:n_free].sort()
    bad = K.shortest_augmenting_paths(h_indptr, h_indices, h_cost, nr, nc, mode, v_exact,
                                      h_col4row, h_row4col, match_cost, free, n_free,
                                      h_cost.dtype.type(inf))
    if bad >= 0:
        return None, int(bad)
    return K.chosen_origins(h_indptr, h_indices, h_origin, h_col4row), -1


def solve_dense_gpu(costs, inf, backend):
    """A dense matrix (validated, rows <= columns) through the sparse GPU path:
    every finite entry is a candidate.  Returns ``(col4row, bad)``."""
    nr, nc = costs.shape
    finite = np.isfinite(costs) if costs.dtype.kind == "f" else np.ones(costs.shape, bool)
    rows, cols = np.nonzero(finite)
    positions, bad = solve_pairs_gpu(rows, cols, costs[rows, cols], nr, nc, K.PERFECT, inf,
                                     backend)
    if bad >= 0:
        return np.full(nr, -1, dtype=np.int64), bad
    col4row = np.full(nr, -1, dtype=np.int64)
    col4row[rows[positions]] = cols[positions]
    return col4row, -1
