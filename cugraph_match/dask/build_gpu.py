"""A worker's part built and kept on its GPU: the device twin of
:mod:`cugraph_match.dask.build` (and of the host parts of
:func:`cugraph_match.dask.worker.build_part`), for Dask-cuDF partitions on
GPU workers (``dask_cuda.LocalCUDACluster``, one GPU per worker).

* **route**: the owners of each row's two ends, by a device ``searchsorted``
  over the range boundaries, kept beside the partition on its worker;
* **take**: the rows for worker k gathered on the partition's GPU; a piece
  that goes to another worker is the only thing that leaves a device (Dask
  serialises CuPy arrays as it sends them);
* **build**: the pieces joined on the owner's GPU, then the single
  machine's GPU pipeline (``renumber_integer_arrays``, ``undirected_edges``,
  ``preference_csr``), the owned rows cut out of the preference rows (owners
  are ranges of local ids, so the owned rows are one stretch of them), and
  the cut edges put in the order the workers name them by
  (owner of the ghost end, max id, min id) with two stable radix sorts.

The arrays equal the host build's bit for bit (``tests/test_dask_build_gpu.py``),
so the GPU supersteps (:mod:`cugraph_match.dask.kernels_gpu`) read either.
Why not the host build's streaming: on the host the peak was the pieces
held three times over; on the device the pipeline's own peak (64 bytes per
undirected edge, README "GPU memory") over the worker's (2 - 1/p)/p share
of the rows is what the worker holds, and the pieces are freed once joined.

Only integer ids with numeric weights take this path (the client decides
from the frame's dtypes); string, categorical or mixed ids are built on the
host, as on one machine their renumbering is the frame library's.

Also here: the run's first arrays (capacities, slot starts, the vertices
that send closed notices at once) and the matched pairs at a run's end,
computed where the part lives.
"""

from __future__ import annotations

import numpy as np

from ..structure.backend import series_values
from ..structure.csr import PreferenceCSR, preference_csr
from ..structure.edges import to_host, undirected_edges
from ..structure.graph import weight_values
from ..structure.output import row_ids
from ..structure.renumber import renumber_integer_arrays
from ..structure.sort_xp import bincount_xp, lexsort_xp, stable_argsort_xp
from .build import owner_code_dtype

_SHIFT = np.uint64(32)
_LOW = np.uint64(0xFFFFFFFF)


def device_module():
    """The array module of this worker's GPU (CuPy; in Numba's simulator the
    package's device stand-in, as ``backend="gpu"`` gives on one machine)."""
    from ..structure.backend import resolve_backend

    return resolve_backend("gpu").xp


def _ids(frame, column: str, id_dtype, xp):
    series = frame[column]
    if id_dtype is not None:
        series = series.astype(id_dtype)
    return series_values(series, xp)


def _owner_codes(ids, boundaries, workers: int, xp):
    dtype = owner_code_dtype(workers)
    if boundaries is None or len(boundaries) == 0:
        return xp.zeros(ids.shape[0], dtype=dtype)
    return xp.searchsorted(xp.asarray(boundaries), ids, side="right").astype(dtype)


def route_partition(frame, source: str, destination: str, boundaries, workers: int,
                    id_dtype) -> tuple:
    """The owner of both ends of every row, on the partition's GPU (a pandas
    partition's id columns are copied there first)."""
    xp = device_module()
    return (_owner_codes(_ids(frame, source, id_dtype, xp), boundaries, workers, xp),
            _owner_codes(_ids(frame, destination, id_dtype, xp), boundaries, workers, xp))


def take_piece(frame, route: tuple, k: int, source: str, destination: str,
               weight: str | None, id_dtype, after=None) -> dict:
    """The rows with an end owned by worker k as device arrays (ids in their
    dtype, weights in the dtype the kernels compute in).  ``after`` paces the
    takes to k's absorbs, as on the host."""
    xp = device_module()
    ou, ov = route
    rows = xp.flatnonzero((ou == k) | (ov == k))
    return {"u": _ids(frame, source, id_dtype, xp)[rows],
            "v": _ids(frame, destination, id_dtype, xp)[rows],
            "w": weight_values(frame[weight], xp)[rows] if weight is not None else None}


def local_part(pieces: list, boundaries, me: int, workers: int, weighted: bool) -> dict:
    """Worker ``me``'s part from its absorbed pieces, on its GPU: the arrays
    of :class:`cugraph_match.dask.worker.LocalPart` (``cut_start`` on the
    host, everything else on the device).  ``pieces`` is emptied."""
    xp = device_module()
    if not pieces:
        raise ValueError("no rows reached this worker")  # pragma: no cover - guarded by caller
    u = xp.concatenate([p["u"] for p in pieces])
    v = xp.concatenate([p["v"] for p in pieces])
    w = xp.concatenate([p["w"] for p in pieces]) if weighted else None
    pieces.clear()
    (cu, cv), labels = renumber_integer_arrays([u, v], xp)
    del u, v
    n = int(labels.shape[0])
    edges = undirected_edges(cu, cv, w, n, xp)
    del cu, cv, w
    if workers > 1 and boundaries is not None and len(boundaries):
        owner_of = xp.searchsorted(xp.asarray(boundaries), labels, side="right").astype(np.int32)
    else:
        owner_of = xp.zeros(n, dtype=np.int32)
    own_lo, own_hi = int((owner_of < me).sum()), int((owner_of <= me).sum())
    loop, keys_bound = edges.loop, edges.num_edges + 1
    pref = owned_rows(preference_csr(edges, xp), own_lo, own_hi, xp)
    del edges
    cut_start, key, own, ghost, entry_cut = ordered_cut_edges(pref, own_lo, own_hi, owner_of,
                                                              workers, xp)
    return {"labels": labels, "own_lo": own_lo, "own_hi": own_hi, "owner_of": owner_of,
            "pref": pref, "loop": loop, "cut_start": cut_start, "cut_own": own,
            "cut_ghost": ghost, "cut_key": key, "entry_cut": entry_cut,
            "keys": keys_bound, "xp": xp}


def owned_rows(pref: PreferenceCSR, own_lo: int, own_hi: int, xp) -> PreferenceCSR:
    """The rows of the owned vertices ``[own_lo, own_hi)`` only, every other
    row empty (the host build's ``owned_preference``): owned ids are a
    range, so their rows are one stretch of the entries."""
    offsets = pref.offsets
    start, stop = int(offsets[own_lo]), int(offsets[own_hi])
    owned = (xp.minimum(xp.maximum(offsets, start), stop) - start).astype(offsets.dtype)
    return PreferenceCSR(owned, pref.indices[start:stop].copy(), pref.keys[start:stop].copy(),
                         pref.weight_of_key)


def ordered_cut_edges(pref: PreferenceCSR, own_lo: int, own_hi: int, owner_of, workers: int,
                      xp) -> tuple:
    """The cut edges of the owned rows in the order the workers name them by:
    (owner of the ghost end, max id, min id), as the host build's
    :func:`cugraph_match.dask.build.owned_preference` numbers them.
    Returns (cut_start on the host, key, own, ghost, entry_cut)."""
    offsets, indices = pref.offsets, pref.indices
    rows = row_ids(offsets, xp)
    cut = xp.flatnonzero((indices < own_lo) | (indices >= own_hi))
    own = rows[cut]
    del rows
    ghost = indices[cut].astype(np.int64)
    owner = owner_of[ghost]
    pair = (xp.maximum(own, ghost).astype(np.uint64) << _SHIFT) | \
        xp.minimum(own, ghost).astype(np.uint64)
    order = lexsort_xp([pair, owner], xp)
    counts = bincount_xp(owner, xp, minlength=workers)
    cut_start = np.zeros(workers + 1, dtype=np.int64)
    cut_start[1:] = np.cumsum(to_host(counts))
    at = cut[order]
    entry_cut = xp.full(int(indices.shape[0]), -1, dtype=offsets.dtype)
    entry_cut[at] = xp.arange(int(at.shape[0]), dtype=offsets.dtype)
    del pair
    return (cut_start, pref.keys[at], own[order].astype(indices.dtype),
            ghost[order].astype(indices.dtype), entry_cut)


def run_arrays(part, cap_owned: np.ndarray) -> tuple:
    """A run's first arrays on the device, from the owned vertices'
    capacities (host, as the client sent them): the slot starts (each
    vertex's capacity clipped to its degree; ghosts 0), the owned vertices
    of capacity 0 with edges (closed from the start) and the ``quiet`` flags
    (no cut edge in the row: never a closed notice)."""
    xp = part.xp
    offsets = part.pref.offsets
    n = int(offsets.shape[0]) - 1
    lo, hi = part.own_lo, part.own_hi
    degree = (offsets[1:] - offsets[:-1]).astype(np.int64)
    cap = xp.zeros(n, dtype=np.int64)
    cap[lo:hi] = xp.minimum(xp.asarray(cap_owned, dtype=np.int64), degree[lo:hi])
    slot_start = xp.zeros(n + 1, dtype=np.int64)
    slot_start[1:] = xp.cumsum(cap)
    closing = xp.flatnonzero((cap[lo:hi] == 0) & (degree[lo:hi] > 0)) + lo
    quiet = xp.ones(n, dtype=np.bool_)
    quiet[part.cut_own] = False
    return slot_start, closing, quiet


def matched_pairs(slots, slot_start, out_pending, cut_own, cut_ghost, cut_key, xp) -> tuple:
    """The b-matching edges at this worker's vertices, as
    :func:`cugraph_match.dask.kernels.matched_pairs` gives them ((lo, hi,
    key), local ids, sorted by (lo, hi), each once), on the device.

    An edge is matched when each end holds the other's offer: both ends'
    slots for an edge inside the part, the owned end's slot and its pending
    proposal (``out_pending``) for a cut edge.  Each holding is one
    ``lo << 32 | hi`` word (a vertex holds a proposer's offer at most once,
    a cut edge has one pending flag), so the matched edges are exactly the
    words that occur twice once sorted."""
    holder = row_ids(slot_start, xp)
    filled = xp.flatnonzero(slots != 0)
    words = slots[filled]
    pending = xp.flatnonzero(out_pending != 0)
    a = xp.concatenate([holder[filled], cut_own[pending].astype(np.int64)])
    b = xp.concatenate([(words & _LOW).astype(np.int64), cut_ghost[pending].astype(np.int64)])
    keys = xp.concatenate([(words >> _SHIFT).astype(np.uint32), cut_key[pending]])
    del holder, filled, words, pending
    pair = (xp.minimum(a, b).astype(np.uint64) << _SHIFT) | xp.maximum(a, b).astype(np.uint64)
    del a, b
    order = stable_argsort_xp(pair, xp)
    pair, keys = pair[order], keys[order]
    twice = xp.flatnonzero(pair[1:] == pair[:-1])
    matched = pair[twice]
    return (matched >> _SHIFT).astype(np.int64), (matched & _LOW).astype(np.int64), keys[twice]
