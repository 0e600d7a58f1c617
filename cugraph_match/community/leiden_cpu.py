"""Leiden's refinement phase and the connected-components split on the CPU (numba.njit).

The local moving phase is Louvain's (``louvain_cpu.move_phase``); what Leiden
adds is here.  Graphs are Louvain's: a CSR without self-loops (every edge in
both rows, float64 weights), ``loop[v]`` v's self-loop weight and ``k[v]``
its weighted degree (a self-loop counted twice), ``two_m = sum(k)``.

Refinement (Traag, Waltman & van Eck 2019, "RefinePartition" and
"MergeNodesSubset"): every vertex starts alone in the refined partition.  In
a seeded random order, a vertex v that is still alone and is *well connected*
to its community S of the move phase's partition,

    E(v, S - v) >= γ k_v (K_S - k_v) / 2m,

may join a refined community R inside S that is itself well connected to S,

    E(R, S - R) >= γ K_R (K_S - K_R) / 2m,

with gain ΔH = E(v, R) - γ k_v K_R / 2m (the modularity gain times m; v
leaves a singleton, which costs nothing).  Among the R with ΔH >= 0 and
staying alone (ΔH = 0) it picks R with probability ∝ exp(ΔH / (θ w̄)), w̄
the graph's mean edge weight, so θ is in units of a typical edge whatever
the weights' scale (igraph's β for unweighted graphs); θ = 0 takes the
largest gain (ties to the lowest label), the deterministic greedy variant.
A refined community only ever grows by a vertex with an edge into it
(ΔH >= 0 needs E(v, R) > 0), so every refined community is connected.
"""

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def refine_partition(offsets, indices, weights, k, two_m, community, resolution, theta_weight,
                     order, uniform):
    """The refined partition of ``community`` (labels: a member's vertex id).

    ``order`` is the visiting order, ``uniform[t]`` a uniform draw in [0, 1)
    for the t-th visit (used only when ``theta_weight`` = θ w̄ > 0).
    Returns (refined labels, number of vertices that joined another).
    """
    n = offsets.shape[0] - 1
    refined = np.arange(n)
    size = np.ones(n, dtype=np.int64)
    total = k.copy()                          # K_R of the refined community labelled R
    outside = np.zeros(n, dtype=np.float64)   # E(R, S - R), S its community
    community_total = np.zeros(n, dtype=np.float64)  # K_S
    for v in range(n):
        community_total[community[v]] += k[v]
        s = community[v]
        for e in range(offsets[v], offsets[v + 1]):
            if community[indices[e]] == s:
                outside[v] += weights[e]
    to_refined = np.zeros(n, dtype=np.float64)
    stamp = np.full(n, -1, dtype=np.int64)
    touched = np.empty(n, dtype=np.int64)
    gains = np.empty(n, dtype=np.float64)
    scale = resolution / two_m
    joined = 0
    for t in range(n):
        v = order[t]
        if size[refined[v]] != 1:
            continue  # someone joined v: it is no longer a singleton
        s = community[v]
        k_s = community_total[s]
        if outside[v] < scale * k[v] * (k_s - k[v]):
            continue  # v is not well connected to its community
        count = 0
        for e in range(offsets[v], offsets[v + 1]):
            u = indices[e]
            if community[u] != s:
                continue
            r = refined[u]
            if stamp[r] != v:
                stamp[r] = v
                to_refined[r] = 0.0
                touched[count] = r
                count += 1
            to_refined[r] += weights[e]
        best = -1
        best_gain = 0.0
        candidates = 0
        for i in range(count):
            r = touched[i]
            if r == v:
                continue  # cannot happen (v is alone), kept for safety
            if outside[r] < scale * total[r] * (k_s - total[r]):
                touched[i] = -1
                continue  # not well connected to S
            gain = to_refined[r] - scale * k[v] * total[r]
            gains[i] = gain
            if gain < 0.0:
                touched[i] = -1
                continue
            candidates += 1
            if best < 0 or gain > best_gain or (gain == best_gain and r < best):
                best, best_gain = r, gain
        if best < 0:
            continue
        if theta_weight > 0.0:
            # staying alone has gain 0 and weight exp(-best_gain / θw̄)
            norm = np.exp(-best_gain / theta_weight)
            for i in range(count):
                if touched[i] >= 0:
                    norm += np.exp((gains[i] - best_gain) / theta_weight)
            target = uniform[t] * norm
            acc = np.exp(-best_gain / theta_weight)
            if target < acc:
                continue  # stays alone
            chosen = -1
            for i in range(count):
                if touched[i] >= 0:
                    acc += np.exp((gains[i] - best_gain) / theta_weight)
                    chosen = touched[i]
                    if target < acc:
                        break
            best = chosen
        elif best_gain <= 0.0:
            continue  # greedy: join only on a strict gain
        joined += 1
        refined[v] = best
        size[best] += 1
        size[v] -= 1
        # E(R + v, S - R - v) = E(R, S - R) + E(v, S - v) - 2 E(v, R)
        outside[best] += outside[v] - 2.0 * to_refined[best]
        total[best] += k[v]
    return refined, joined


@njit(cache=True, nogil=True)
def split_disconnected(offsets, indices, community):
    """Each community's connected components as communities of their own.

    Returns (labels, components): a vertex's label is the smallest vertex of
    its component (components of one community are joined by its edges only).
    """
    n = offsets.shape[0] - 1
    label = np.full(n, -1, dtype=np.int64)
    stack = np.empty(n, dtype=np.int64)
    components = 0
    for root in range(n):
        if label[root] >= 0:
            continue
        components += 1
        c = community[root]
        label[root] = root
        top = 0
        stack[0] = root
        top = 1
        while top:
            top -= 1
            v = stack[top]
            for e in range(offsets[v], offsets[v + 1]):
                u = indices[e]
                if label[u] < 0 and community[u] == c:
                    label[u] = root
                    stack[top] = u
                    top += 1
    return label, components


@njit(cache=True, nogil=True)
def aggregate_rows(offsets, indices, weights, loop, group, k):
    """The graph with each group (``group[v]`` in ``0..k-1``) merged into one vertex,
    built straight as rows: (offsets, indices, weights, loop).

    A group's members' rows are merged by marking each neighbouring group
    once (no sort): parallel edges sum, an edge inside a group adds its
    weight to the group's self-loop (met from both ends, half each time),
    so the total weight is preserved.  Rows list neighbours in the order
    they were first met, which no kernel here depends on.
    """
    n = offsets.shape[0] - 1
    start = np.zeros(k + 1, dtype=np.int64)
    for v in range(n):
        start[group[v] + 1] += 1
    for c in range(k):
        start[c + 1] += start[c]
    members = np.empty(n, dtype=np.int64)
    fill = start[:k].copy()
    for v in range(n):
        members[fill[group[v]]] = v
        fill[group[v]] += 1
    out_offsets = np.zeros(k + 1, dtype=offsets.dtype)
    out_indices = np.empty(indices.shape[0], dtype=indices.dtype)
    out_weights = np.empty(indices.shape[0], dtype=np.float64)
    out_loop = np.zeros(k, dtype=np.float64)
    stamp = np.full(k, -1, dtype=np.int64)
    slot = np.empty(k, dtype=np.int64)
    at = 0
    for c in range(k):
        for i in range(start[c], start[c + 1]):
            v = members[i]
            out_loop[c] += loop[v]
            for e in range(offsets[v], offsets[v + 1]):
                d = group[indices[e]]
                if d == c:
                    out_loop[c] += 0.5 * weights[e]
                    continue
                if stamp[d] != c:
                    stamp[d] = c
                    slot[d] = at
                    out_indices[at] = d
                    out_weights[at] = 0.0
                    at += 1
                out_weights[slot[d]] += weights[e]
        out_offsets[c + 1] = at
    return out_offsets, out_indices[:at].copy(), out_weights[:at].copy(), out_loop
