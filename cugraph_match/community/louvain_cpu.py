"""Sequential Louvain on the CPU (numba.njit).

The graph is a CSR without self-loops (every edge in both rows, float64
weights) plus ``loop[v]``, v's self-loop weight.  Weighted degree
``k[v] = row sum + 2 * loop[v]`` and ``two_m = sum(k)``, as in NetworKit and
NetworkX.  Moving v into community c (after taking v out of its own) gains

    ΔQ ∝ e(v, c) - γ k[v] a[c] / two_m

where e(v, c) is the weight from v to c and a[c] the total degree of c; the
common factor 1/m and the terms that do not depend on c are dropped.
"""

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def weighted_degrees(offsets, weights, loop):
    n = offsets.shape[0] - 1
    k = np.empty(n, dtype=np.float64)
    for v in range(n):
        total = 2.0 * loop[v]
        for e in range(offsets[v], offsets[v + 1]):
            total += weights[e]
        k[v] = total
    return k


@njit(cache=True, nogil=True)
def modularity_csr(offsets, indices, weights, loop, community, resolution):
    """Q = Σ_c [ L_c / m - γ (a_c / 2m)² ] (Newman; NetworkX's self-loop convention)."""
    n = offsets.shape[0] - 1
    inside = np.zeros(n, dtype=np.float64)
    total = np.zeros(n, dtype=np.float64)
    two_m = 0.0
    for v in range(n):
        c = community[v]
        inside[c] += 2.0 * loop[v]
        total[c] += 2.0 * loop[v]
        for e in range(offsets[v], offsets[v + 1]):
            total[c] += weights[e]
            if community[indices[e]] == c:
                inside[c] += weights[e]  # each internal edge seen from both ends
        two_m += 2.0 * loop[v]
    for e in range(indices.shape[0]):
        two_m += weights[e]
    if two_m == 0.0:
        return 0.0
    q = 0.0
    for c in range(n):
        if total[c] > 0.0:
            q += inside[c] / two_m - resolution * (total[c] / two_m) ** 2
    return q


@njit(cache=True, nogil=True)
def move_phase(offsets, indices, weights, loop, community, resolution, threshold, max_passes,
               order, leiden_moves=False):
    """Local moving: visit the vertices in ``order``, move each to the
    neighbouring community of largest gain (ties to the lowest community id)
    and commit at once; repeat while a pass gains at least ``threshold``.
    ``community`` is updated in place; returns the final modularity and the
    number of passes.

    The GPU's singleton rule is left out on purpose: it stops two singletons
    from swapping when all vertices move at once, which cannot happen with
    immediate commits, and here it cost modularity (MIT8: 0.377 with it,
    0.387 without; igraph 0.388).  A random visiting order, as in the
    original Louvain code, matters more: in id order, meshes whose ids
    follow the geometry snowball into a few huge communities (4elt: 0.816
    instead of 0.927).

    ``leiden_moves=True`` is Leiden's fast local moving (Traag et al. 2019):
    v may also move to an empty community (gain 0), so that from a partition
    that is not all singletons (Leiden's aggregate levels) a vertex its
    community pulls less than the others push (a disconnected piece, say)
    leaves it; and after the first pass only vertices with a neighbour that
    moved out of their community are visited again (in the same pass when
    they come later in the order, as the paper's queue does), instead of
    every vertex every pass.
    """
    n = offsets.shape[0] - 1
    k = weighted_degrees(offsets, weights, loop)
    two_m = k.sum()
    a = np.zeros(n, dtype=np.float64)
    size = np.zeros(n, dtype=np.int64)
    for v in range(n):
        a[community[v]] += k[v]
        size[community[v]] += 1
    to_community = np.zeros(n, dtype=np.float64)
    # stamp[c] == visit: c's weight to the vertex of this visit is counted.
    # Visits are numbered across passes: stamped with the vertex's id (until
    # 2026-11-28), a community its vertex had stamped in the last pass and
    # nobody since read as counted when the vertex came again, so it was
    # never a candidate and its stale weight made staying look better (the
    # phase could end where a move still gained)
    stamp = np.full(n, -1, dtype=np.int64)
    visit = -1
    touched = np.empty(n, dtype=np.int64)
    # community ids free for empty moves (a lazy stack: an id in it may have
    # been refilled since, and is skipped when popped)
    free = np.empty(n if leiden_moves else 0, dtype=np.int64)
    in_free = np.zeros(n if leiden_moves else 0, dtype=np.bool_)
    active = np.ones(n if leiden_moves else 0, dtype=np.bool_)  # to visit (Leiden's queue)
    free_top = 0
    if leiden_moves:
        for c in range(n):
            if size[c] == 0:
                free[free_top] = c
                in_free[c] = True
                free_top += 1
    q = modularity_csr(offsets, indices, weights, loop, community, resolution)
    if two_m == 0.0:
        return q, 0
    passes = 0
    while passes < max_passes:
        passes += 1
        moved = 0
        gained = 0.0  # this pass's modularity gain, from the moves' exact gains
        for t in range(n):
            v = order[t]
            if leiden_moves:
                if not active[v]:
                    continue
                active[v] = False
            own = community[v]
            count = 0
            visit += 1
            for e in range(offsets[v], offsets[v + 1]):
                c = community[indices[e]]
                if stamp[c] != visit:
                    stamp[c] = visit
                    to_community[c] = 0.0
                    touched[count] = c
                    count += 1
                to_community[c] += weights[e]
            a[own] -= k[v]
            size[own] -= 1
            to_own = to_community[own] if stamp[own] == visit else 0.0
            stay = to_own - resolution * k[v] * a[own] / two_m
            best = own
            best_gain = 0.0
            found = False
            for i in range(count):
                c = touched[i]
                if c == own:
                    continue
                gain = to_community[c] - resolution * k[v] * a[c] / two_m
                if not found or gain > best_gain or (gain == best_gain and c < best):
                    best, best_gain, found = c, gain, True
            if leiden_moves and size[own] > 0 and stay < 0.0 and (not found or best_gain < 0.0):
                # an empty community (gain 0) beats staying and every neighbour;
                # v's community keeps a member, so n vertices leave an id free
                while True:
                    free_top -= 1
                    best = free[free_top]
                    in_free[best] = False
                    if size[best] == 0:
                        break
                best_gain, found = 0.0, True
            if not found or best_gain <= stay:
                best = own
            else:
                # ΔQ of the move is (gain - stay) / m, m = two_m / 2 (see the module notes)
                gained += 2.0 * (best_gain - stay) / two_m
                moved += 1
                if leiden_moves:
                    if size[own] == 0 and not in_free[own]:
                        free[free_top] = own
                        in_free[own] = True
                        free_top += 1
                    for e in range(offsets[v], offsets[v + 1]):
                        if community[indices[e]] != best:
                            active[indices[e]] = True
            community[v] = best
            a[best] += k[v]
            size[best] += 1
        q += gained
        if moved == 0 or gained < threshold:
            break
    return q, passes
