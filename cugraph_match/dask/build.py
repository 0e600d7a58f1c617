"""The streamed build of a worker's part: input rows routed to their owners
piece by piece, each piece absorbed (and freed) on arrival, then the local
undirected edge set built by one sort of packed words, or bucket by bucket
when a word cannot hold an edge and its row's position.

Why streamed (measured, README "Distributed (Dask)"): the first build cut
every input partition into one frame per owner at once, kept those cuts
until every worker had built, and concatenated a worker's pieces before
renumbering, so a worker held its rows three times (its own cuts, the
pieces received, their concatenation) before the single-machine pipeline
even started: 0.97x the single machine's peak on 2 workers at R-MAT 20.

Here a partition is *routed* once (its rows' two owners, one byte or two
each) and the rows for worker k are *taken* only when k has absorbed the
previous piece (each take depends on k's previous absorb), so a worker holds
at most one piece in flight per destination; an absorbed piece is kept as
plain arrays and the Dask key holding it is released.  The build then
renumbers piece by piece (a dense presence table over the id range, or the
sorted union of per-piece ids), packs each piece's edges into one word per
row (``max << bits | min`` over the row's position, freeing the piece),
sorts the words in place and keeps each edge once; where the word is too
narrow it scatters each piece's edges into buckets by their larger end and
sorts and de-duplicates each bucket in place.  Either way the result is the
single machine's ``UndirectedEdges``
(sorted by ``(hi, lo)``, duplicates keep the largest weight, self-loops
apart), so everything downstream is unchanged.

Ids of 8 bytes whose whole range spans less than 2**32 (the summaries'
bounds: :func:`offset_base`) travel as 4-byte offsets from the smallest id,
a third less to move at pandas' default dtypes (int64 ids, float64 weights)
and half unweighted; the build renumbers the offsets, which sort as the ids
do, and adds the base back to its labels.

Integer ids with numeric weights take this path; other id types (strings,
categories, nullable columns) are concatenated and renumbered as on one
machine (their memory is not divided as well, the result is the same).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from numba import njit

from ..structure import pipeline_cpu as host
from ..structure.edges import UndirectedEdges, index_dtype
from ..structure.graph import weight_values
from ..structure.inputs import frame_library
from ..structure.renumber import DENSE_SLOTS_PER_ID, native_byte_order, renumber
from ..structure.sort_cpu import sort_high_words
from .threads import worker_threads

#: The width of :func:`_packed_edges`' words: an edge's two local ids and
#: (weighted) its row's position must fit, else the buckets build the edge
#: set (tests narrow it to take the buckets on small graphs).
PACKED_WORD_BITS = 64

#: Pieces absorbed by this worker process, by part key, until its build.
STAGED: dict[str, list] = {}


def _host(frame):
    return frame.to_pandas() if hasattr(frame, "to_pandas") and frame_library(frame) is not pd \
        else frame


def owner_code_dtype(workers: int):
    """The narrowest unsigned dtype that holds a worker number (the routes
    are kept beside every input partition until each owner took its rows)."""
    return np.uint8 if workers <= 256 else np.uint16 if workers <= 65536 else np.uint32


def owner_codes(ids: pd.Series, boundaries, workers: int) -> np.ndarray:
    """The worker owning each id (how many range boundaries are at or below
    it), in :func:`owner_code_dtype`."""
    dtype = owner_code_dtype(workers)
    if boundaries is None or len(boundaries) == 0:
        return np.zeros(len(ids), dtype=dtype)
    values = ids.to_numpy()
    bounds = np.asarray(boundaries)
    if values.dtype.kind in "iu" and bounds.dtype == values.dtype:
        # one pass writing the narrow codes: np.searchsorted's int64 positions
        # and their cast cost 20 ms per 2.1 M ids (measured), 0.3 s of a
        # 2-worker call at R-MAT 20
        out = np.empty(values.shape[0], dtype=dtype)
        _search_right(values, bounds, out)
        return out
    return np.searchsorted(bounds, values, side="right").astype(dtype)


@njit(cache=True, nogil=True)
def _search_right(values, bounds, out):
    """``out[i]``: how many of the sorted ``bounds`` are <= ``values[i]``
    (``np.searchsorted(bounds, values, side="right")``), same dtypes; a
    count of comparisons without branches (the owner of a random id is
    unpredictable, so a branching search mispredicts at every step)."""
    size = bounds.shape[0]
    if size <= 16:
        for i in range(values.shape[0]):
            x = values[i]
            count = 0
            for j in range(size):
                count += bounds[j] <= x
            out[i] = count
        return
    for i in range(values.shape[0]):
        x = values[i]
        base = 0
        length = size
        while length > 1:  # branchless lower part of a binary search
            half = length >> 1
            base += half * (bounds[base + half - 1] <= x)
            length -= half
        out[i] = base + (bounds[base] <= x)


def _cast(series: pd.Series, id_dtype) -> pd.Series:
    return series.astype(id_dtype) if id_dtype is not None else series


def id_columns(frame, source: str, destination: str):
    """The frame's two id columns (once when both name one column: a frame
    holding a column twice gives a frame, not a Series, for its name)."""
    return frame[[source] if source == destination else [source, destination]]


def offset_base(bounds: list, id_dtype) -> int | None:
    """The smallest id, when the ids are 8-byte integers (``id_dtype``) all
    within 2**32 of it, else None: the pieces then carry ``id - base`` as
    uint32.  ``bounds``: every partition's ``(min, max)`` per id column
    (None for a column that is not integers)."""
    if not isinstance(id_dtype, np.dtype) or id_dtype.kind not in "iu" or \
            id_dtype.itemsize != 8 or not bounds or \
            any(b is None for pair in bounds for b in pair):
        return None
    low = min(b[0] for pair in bounds for b in pair)
    high = max(b[1] for pair in bounds for b in pair)
    return low if high - low < 2**32 else None


def _widened(offsets: np.ndarray, base: int, dtype) -> np.ndarray:
    """Offsets from ``base`` back to ids of ``dtype`` (wrapping 64-bit
    arithmetic: exact for every id within 2**32 above the base)."""
    ids = offsets.astype(np.uint64)
    ids += np.uint64(base % 2**64)  # in place: one array, not the cast and the sum
    return ids.view(dtype)


@worker_threads
def route_partition(frame, source: str, destination: str, boundaries, workers: int,
                    id_dtype) -> tuple:
    """The owner of both ends of every row of an input partition (kept on the
    partition's worker until every owner has taken its rows)."""
    host = _host(id_columns(frame, source, destination))
    return tuple(owner_codes(native_byte_order(_cast(host[column], id_dtype)), boundaries,
                             workers) for column in (source, destination))


def _lean(series) -> bool:
    return isinstance(series.dtype, np.dtype) and series.dtype.kind in "iuf"


@worker_threads
def take_piece(frame, route: tuple, k: int, source: str, destination: str,
               weight: str | None, id_dtype, after=None, id_base: int | None = None) -> dict:
    """The rows of an input partition with an end owned by worker k, as plain
    arrays when the columns are plain numbers (else pandas Series).
    ``after`` is k's previous absorb: it paces the takes to the absorbs.
    ``id_base`` (:func:`offset_base`): 8-byte ids are taken as uint32
    offsets from it, and the piece says so (``"id_base"``: the base and the
    ids' dtype)."""
    ou, ov = route
    host = _host(frame)
    code = ou.dtype.type(k)
    count = None
    rows = None  # positions, made only for a column that is not plain numbers
    ids = {name: native_byte_order(_cast(host[column], id_dtype))
           for name, column in (("u", source), ("v", destination))}
    narrow = id_base is not None and all(
        _lean(c) and c.dtype.kind in "iu" and c.dtype.itemsize == 8 for c in ids.values())
    piece = {}
    for name, column in (("u", source), ("v", destination), ("w", weight)):
        if column is None:
            piece[name] = None
            continue
        # the weights keep their byte order: weight_values reads it
        series = ids[name] if name != "w" else host[column]
        if narrow and name != "w":
            if count is None:
                count = _count_taken(ou, ov, code)
            taken = np.empty(count + 1, dtype=np.uint32)  # + 1: see _take_rows
            _take_offsets(series.to_numpy().view(np.uint64), ou, ov, code,
                          np.uint64(id_base % 2**64), taken)
            piece[name] = taken[:count]
        elif _lean(series) and series.dtype.isnative and \
                series.dtype.itemsize in (1, 2, 4, 8) and \
                (name == "w" or series.dtype.kind in "iu"):
            # one pass over the route codes per column, writing the rows
            # straight into the piece: a boolean mask per end and an int64
            # position per taken row cost more than the piece itself (fresh
            # pages, measured at R-MAT 20 on 2 workers: 0.7 of the takes'
            # 1.0 CPU s were system time)
            if count is None:
                count = _count_taken(ou, ov, code)
            values = series.to_numpy()
            # the rows are copied as bits: Numba has no float16, and one
            # compiled take per width serves every dtype of that width
            bits = values.view(np.dtype(f"u{values.dtype.itemsize}"))
            taken = np.empty(count + 1, dtype=bits.dtype)  # + 1: see _take_rows
            _take_rows(bits, ou, ov, code, taken)
            piece[name] = taken[:count].view(values.dtype)
        else:
            if rows is None:
                rows = np.flatnonzero((ou == k) | (ov == k))
            if name == "w" and _lean(series):  # non-native byte order, or longdouble
                piece[name] = series.to_numpy()[rows]
            else:
                piece[name] = series.iloc[rows].reset_index(drop=True)
    if narrow:
        piece["id_base"] = (id_base, ids["u"].dtype)
    return piece


@njit(cache=True, nogil=True)
def _count_taken(ou, ov, k):
    """How many rows have an end owned by worker ``k``."""
    count = 0
    for i in range(ou.shape[0]):
        count += (ou[i] == k) | (ov[i] == k)
    return count


@njit(cache=True, nogil=True)
def _take_rows(values, ou, ov, k, out):
    """``values`` of the rows with an end owned by worker ``k``, in order, into
    ``out`` (one longer than their count).  Every row is written and the
    cursor moves only past a taken one: the owner of a random row is
    unpredictable, and a branch on it mispredicts (measured, 1.5x slower
    than numpy's mask and gather); the spare last place takes the writes
    after the last taken row."""
    at = 0
    for i in range(ou.shape[0]):
        out[at] = values[i]
        at += (ou[i] == k) | (ov[i] == k)


@njit(cache=True, nogil=True)
def _take_offsets(values, ou, ov, k, base, out):
    """:func:`_take_rows` writing ``values - base`` (uint64 bits, wrapping)
    as uint32 offsets."""
    at = 0
    for i in range(ou.shape[0]):
        out[at] = np.uint32(values[i] - base)
        at += (ou[i] == k) | (ov[i] == k)


def piece_nbytes(piece: dict) -> int:
    total = 0
    for name in ("u", "v", "w"):
        value = piece[name]
        if hasattr(value, "memory_usage"):  # a Series
            total += int(value.memory_usage(index=False, deep=True))
        elif value is not None:  # a host or device array
            total += int(value.nbytes)
    return total


def route_group(route, source: str, destination: str, boundaries, workers: int, id_dtype,
                *frames) -> tuple:
    """``route`` (this module's :func:`route_partition`, or the GPU build's)
    of each of ``frames``, a group of input partitions one worker holds: one
    task for the group.  Dask pays about a millisecond of each worker's
    event loop per task and per transfer, so a build of one task per
    partition and owner cost a frame of many small partitions more in
    tasks than in rows (README, *Distributed*)."""
    return tuple(route(frame, source, destination, boundaries, workers, id_dtype)
                 for frame in frames)


def take_group(take, routes: tuple, k: int, source: str, destination: str,
               weight: str | None, id_dtype, after, *frames, **narrowed) -> list:
    """``take`` (:func:`take_piece`, or the GPU build's) of worker k's rows
    from each partition of a group (``routes``: :func:`route_group`'s), one
    piece per partition, in order.  ``after``: k's previous absorb, which
    paces the takes; ``narrowed``: ``take``'s ``id_base``."""
    return [take(frame, route, k, source, destination, weight, id_dtype, None, **narrowed)
            for frame, route in zip(frames, routes)]


def absorb_pieces(key: str, pieces: list, after=None) -> dict:
    """Keep the pieces of one take (:func:`take_group`) for worker ``key``'s
    build; returns their size (rows, bytes)."""
    STAGED.setdefault(key, []).extend(pieces)
    rows = sum(0 if piece["u"] is None else len(piece["u"]) for piece in pieces)
    return {"rows": rows, "bytes": sum(piece_nbytes(piece) for piece in pieces)}


def drop_staged_all(gid: str) -> None:
    """Forget every piece staged for graph ``gid`` in this process (a failed build)."""
    for key in [k for k in STAGED if k.startswith(gid + "/")]:
        STAGED.pop(key, None)


# --------------------------------------------------------------------------
# the local edge set
# --------------------------------------------------------------------------


def local_edges(pieces: list, weighted: bool, what: str, summed: bool = False):
    """Renumber and de-duplicate the absorbed pieces: (labels, UndirectedEdges)
    (:func:`_local_edges`).  Pieces of ids taken as offsets
    (:func:`take_piece`) are renumbered as offsets, which sort as their ids,
    and the labels get the base back; offsets beside pieces of whole ids (a
    partition whose columns were not plain numbers) are widened first."""
    bases = {p.get("id_base") for p in pieces}
    if len(bases) > 1:
        for p in pieces:
            if p.get("id_base") is not None:
                base, dtype = p.pop("id_base")
                p["u"], p["v"] = _widened(p["u"], base, dtype), _widened(p["v"], base, dtype)
        bases = {None}
    narrowed = bases.pop() if bases else None
    labels, edges = _local_edges(pieces, weighted, what, summed)
    if narrowed is not None:
        base, dtype = narrowed
        labels = pd.Series(_widened(labels.to_numpy(), base, dtype), name=labels.name)
    return labels, edges


def _local_edges(pieces: list, weighted: bool, what: str, summed: bool = False):
    """Renumber and de-duplicate the absorbed pieces: (labels, UndirectedEdges).

    ``pieces`` is emptied as it is consumed (each piece's rows are freed as
    soon as they sit in their buckets).  ``summed``: parallel edges and
    self-loops of one vertex add their weights instead of keeping the largest
    (a coarse level's edges, integer ids and numeric weights only), each sum
    taken in ascending order of its terms, so the two owners of a cut edge
    find the same weight whatever order their pieces came in."""
    if summed and not weighted:
        raise ValueError("summed parallel edges need weights")
    lean = all(isinstance(p["u"], np.ndarray) and isinstance(p["v"], np.ndarray) and
               p["u"].dtype == p["v"].dtype and (not weighted or isinstance(p["w"], np.ndarray))
               for p in pieces)
    dtypes = {p["u"].dtype for p in pieces} if lean else set()
    wtypes = {weight_values(pd.Series(p["w"][:0]), np).dtype for p in pieces} if lean and \
        weighted else set()
    if not pieces or not lean or len(dtypes) != 1 or len(wtypes) > 1:
        if summed:
            raise ValueError("summed parallel edges need integer ids and numeric weights")
        return _concatenated_edges(pieces, weighted, what)
    dtype = dtypes.pop()
    labels, code_of_piece = _labels(pieces, dtype)
    n = labels.shape[0]
    ids = index_dtype(n)
    wdtype = wtypes.pop() if weighted else np.dtype(np.float32)
    if not summed:
        packed = _packed_edges(pieces, code_of_piece, n, weighted, wdtype)
        if packed is not None:
            return pd.Series(labels, name="vertex"), packed
    counts = np.zeros(n + 1, dtype=np.int64)
    for t, p in enumerate(pieces):  # ids -> codes, piece by piece
        cu, cv, w = _piece_codes(p, code_of_piece, ids, weighted)
        pieces[t] = (cu, cv, w)
        _count_by_hi(cu, cv, counts)
    rows = int(counts.sum())
    np.cumsum(counts, out=counts)
    lo = np.empty(rows, dtype=ids)
    w_out = np.empty(rows if weighted else 0, dtype=wdtype)
    loop = np.zeros(n, dtype=wdtype)
    has_loop = np.zeros(1, dtype=np.bool_)
    cursor = counts[:-1].copy()
    while pieces:  # each piece into its buckets, then freed
        cu, cv, w = pieces.pop(0)
        _scatter_by_hi(cu, cv, w if weighted else np.zeros(0, dtype=wdtype), weighted,
                       summed, cursor, lo, w_out, loop, has_loop)
        del cu, cv, w
    del cursor
    distinct = np.zeros(n, dtype=np.int64)
    count = dedup_buckets(counts, lo, w_out, weighted, summed, distinct)
    lo = lo[:count].copy()
    w_out = w_out[:count].copy() if weighted else None
    hi = np.repeat(np.arange(n, dtype=ids), distinct)
    return pd.Series(labels, name="vertex"), \
        UndirectedEdges(n, lo, hi, w_out, loop if has_loop[0] else None)


def _piece_codes(piece: dict, code_of_piece, ids, weighted: bool):
    """A piece's two ends as local codes of dtype ``ids``, and its weights as
    the pipeline reads them (None when unweighted)."""
    return code_of_piece(piece["u"]).astype(ids, copy=False), \
        code_of_piece(piece["v"]).astype(ids, copy=False), \
        weight_values(pd.Series(piece["w"], copy=False), np) if weighted else None


def _packed_edges(pieces: list, code_of_piece, n: int, weighted: bool, wdtype):
    """The edge set by one sort of packed words, when a word holds an edge
    and (weighted) its row's position: ``max << bits | min``, shifted over
    the position, written piece by piece (each piece freed once packed,
    self-loops kept apart as they are met), sorted in place, then one walk
    that keeps each edge once with its largest weight.  ``None`` when the
    word is too narrow (the buckets then serve).  Measured on one worker's
    rows at R-MAT 20 on 2 workers (12.7 M rows, one process): 0.6-0.9 CPU s
    against 1.1-1.5 for the buckets at float32 weights (0.9-1.6 before
    :func:`_distinct_pairs` read the weights ahead), 0.4-0.6 against
    1.1-1.5 unweighted (the buckets' scatter by larger end misses the cache
    once per row); its
    peak is the words and the weights in row order (12 bytes a row at
    float32 weights) and then the finished arrays, about what the buckets
    hold (their rows, and the pieces' codes while a piece is scattered)."""
    from ..structure.sort_cpu import bit_width

    rows = sum(p["u"].shape[0] for p in pieces)
    bits = max(bit_width(max(n - 1, 0)), 1)
    position_bits = bit_width(max(rows - 1, 0)) if weighted else 0
    if 2 * bits + position_bits > PACKED_WORD_BITS:
        return None
    ids = index_dtype(n)
    words = np.empty(rows, dtype=np.uint64)
    in_order = np.empty(rows if weighted else 0, dtype=wdtype)
    loop = np.zeros(n, dtype=wdtype)
    has_loop = np.zeros(1, dtype=np.bool_)
    at = 0
    while pieces:  # each piece packed, then freed
        cu, cv, w = _piece_codes(pieces.pop(0), code_of_piece, ids, weighted)
        if w is None:
            w = np.zeros(0, dtype=wdtype)
        at = _pack_rows(cu, cv, w, weighted, np.uint64(bits), np.uint64(position_bits), at,
                        words, in_order, loop, has_loop)
        del cu, cv, w
    words = words[:at]
    words.sort()
    count = _count_distinct_pairs(words, np.uint64(position_bits))
    lo = np.empty(count, dtype=ids)
    hi = np.empty(count, dtype=ids)
    w_out = np.empty(count if weighted else 0, dtype=wdtype)
    _distinct_pairs(words, in_order, weighted, np.uint64(bits), np.uint64(position_bits),
                    lo, hi, w_out)
    del words, in_order
    return UndirectedEdges(n, lo, hi, w_out if weighted else None,
                           loop if has_loop[0] else None)


@njit(cache=True, nogil=True, inline="always")
def _keep_loop(loop, a, w, i, weighted, summed):
    """Row i, a self-loop at ``a``: its vertex keeps the largest weight (1
    when unweighted, ``w`` then empty and not read), or the sum (``summed``)."""
    if summed:
        loop[a] += w[i]
    elif weighted:
        if w[i] > loop[a]:
            loop[a] = w[i]
    else:
        loop[a] = 1


@njit(cache=True, nogil=True)
def _pack_rows(cu, cv, w, weighted, bits, position_bits, at, words, in_order, loop, has_loop):
    """Rows into ``words`` from ``at`` on (:func:`_packed_edges`); self-loops
    keep their vertex's largest weight (1 when unweighted).  Returns the next
    free word."""
    for i in range(cu.shape[0]):
        a = cu[i]
        b = cv[i]
        if a == b:
            has_loop[0] = True
            _keep_loop(loop, a, w, i, weighted, False)
            continue
        pair = (np.uint64(max(a, b)) << bits) | np.uint64(min(a, b))
        if weighted:
            words[at] = (pair << position_bits) | np.uint64(at)
            in_order[at] = w[i]
        else:
            words[at] = pair
        at += 1
    return at


@njit(cache=True, nogil=True)
def _count_distinct_pairs(words, position_bits):
    count = 0
    for i in range(words.shape[0]):
        if i == 0 or (words[i] >> position_bits) != (words[i - 1] >> position_bits):
            count += 1
    return count


#: Words whose weights :func:`_distinct_pairs` reads ahead of its walk.
GATHER_BLOCK = 2048


@njit(cache=True, nogil=True)
def _distinct_pairs(words, in_order, weighted, bits, position_bits, lo, hi, w_out):
    """Each distinct pair of the sorted ``words`` once, with its largest weight.

    The weights are read a block of words ahead of the walk: the reads land
    at random rows, and a loop that only reads keeps many of them in flight,
    where the walk's branch on a repeated pair (about 1 word in 16 at R-MAT
    20, at random) would stall each one (measured on one worker's 12.7 M
    rows at R-MAT 20 on 2 workers, the walk alone: 0.25-0.41 CPU s against
    0.46-0.81, float32 and float64 weights)."""
    mask = (np.uint64(1) << bits) - np.uint64(1)
    places = (np.uint64(1) << position_bits) - np.uint64(1)
    ahead = np.empty(GATHER_BLOCK if weighted else 0, dtype=in_order.dtype)
    m = words.shape[0]
    j = -1
    for start in range(0, m, GATHER_BLOCK):
        end = min(m, start + GATHER_BLOCK)
        if weighted:
            for i in range(start, end):
                ahead[i - start] = in_order[np.int64(words[i] & places)]
        for i in range(start, end):
            pair = words[i] >> position_bits
            if i == 0 or pair != (words[i - 1] >> position_bits):
                j += 1
                lo[j] = pair & mask
                hi[j] = pair >> bits
                if weighted:
                    w_out[j] = ahead[i - start]
            elif weighted:
                # read on its own: see dedup_buckets on uint64 weights
                x = ahead[i - start]
                if x > w_out[j]:
                    w_out[j] = x


def _labels(pieces: list, dtype):
    """The sorted distinct ids of the pieces, and a function giving a piece's codes:
    a dense table over the id range when it is small (as ``renumber`` does), else
    the sorted union of each piece's distinct ids and a binary search."""
    lows, highs, total = [], [], 0
    for p in pieces:
        for a in (p["u"], p["v"]):
            if a.shape[0]:
                lows.append(a.min())
                highs.append(a.max())
                total += a.shape[0]
    if not total:
        return np.zeros(0, dtype=dtype), lambda a: np.zeros(a.shape[0], dtype=np.int32)
    low, high = min(int(x) for x in lows), max(int(x) for x in highs)
    span = high - low + 1
    if span <= max(DENSE_SLOTS_PER_ID * total, 2**16):
        # the numba passes subtract ``low`` in wrapping 64-bit arithmetic,
        # exact for every integer dtype (no widened copies of the pieces)
        low_value = dtype.type(low)
        marks = np.zeros(span, dtype=np.uint8)
        for p in pieces:
            for a in (p["u"], p["v"]):
                host.mark_present(a, low_value, marks)
        code_of = np.empty(span, dtype=index_dtype(span))
        host.dense_codes(marks, code_of)
        present = np.flatnonzero(marks)
        del marks
        wide = np.int64 if dtype.kind == "i" else np.uint64
        labels = (present.astype(wide) + wide(low)).astype(dtype)

        def codes(a):
            out = np.empty(a.shape[0], dtype=code_of.dtype)
            host.lookup_codes(a, low_value, code_of, out)
            return out

        return labels, codes
    labels = np.unique(np.concatenate([np.unique(np.concatenate([p["u"], p["v"]]))
                                       for p in pieces]))
    return labels, lambda a: np.searchsorted(labels, a)


def _concatenated_edges(pieces: list, weighted: bool, what: str):
    """Any id type: the pieces joined and renumbered as on one machine."""
    from ..structure.edges import undirected_edges

    if not pieces:
        raise ValueError("no rows reached this worker")  # pragma: no cover - guarded by caller
    u = pd.concat([pd.Series(p["u"]) for p in pieces], ignore_index=True)
    v = pd.concat([pd.Series(p["v"]) for p in pieces], ignore_index=True)
    w = pd.concat([pd.Series(p["w"]) for p in pieces], ignore_index=True) if weighted else None
    pieces.clear()
    codes, labels = renumber([u, v], pd, np, what)
    del u, v
    weights = weight_values(w, np) if weighted else None
    del w
    return labels, undirected_edges(codes[0], codes[1], weights, len(labels), np)


@njit(cache=True, nogil=True)
def _count_by_hi(cu, cv, counts):
    for i in range(cu.shape[0]):
        a = cu[i]
        b = cv[i]
        if a != b:
            counts[max(a, b) + 1] += 1


@njit(cache=True, nogil=True)
def _scatter_by_hi(cu, cv, w, weighted, summed, cursor, lo, w_out, loop, has_loop):
    """Each row into the bucket of its larger end; self-loops keep their
    vertex's largest weight (1 when unweighted), or their sum (``summed``)."""
    for i in range(cu.shape[0]):
        a = cu[i]
        b = cv[i]
        if a == b:
            has_loop[0] = True
            _keep_loop(loop, a, w, i, weighted, summed)
            continue
        h = max(a, b)
        at = cursor[h]
        lo[at] = min(a, b)
        if weighted:
            w_out[at] = w[i]
        cursor[h] = at + 1


@njit(cache=True, nogil=True)
def dedup_buckets(starts, lo, w, weighted, summed, distinct):
    """Sort every bucket by its smaller ends, keep each edge once with its
    largest weight (``summed``: the sum of its weights, added smallest first),
    and pack the buckets to the front in order; returns the count
    (``distinct[h]``: the edges kept in bucket h)."""
    # a long bucket is sorted as ``lo << 32 | place`` words in one buffer
    # (``sort_high_words``; its weights read back through a scratch copy): no
    # arrays made per bucket, equal ends keep their order (local ids are
    # below 2**32)
    longest = 0
    for h in range(starts.shape[0] - 1):
        longest = max(longest, starts[h + 1] - starts[h])
    words = np.empty(longest if longest > 16 else 0, dtype=np.uint64)
    spare = np.empty_like(words)
    scratch = np.empty(longest if weighted and longest > 16 else 0, dtype=w.dtype)
    out = 0
    for h in range(starts.shape[0] - 1):
        s = starts[h]
        e = starts[h + 1]
        size = e - s
        if size > 1:
            if size <= 16 and weighted:  # insertion sort
                for i in range(s + 1, e):
                    x = lo[i]
                    # the weight read on its own: ``w[i] if weighted else 0``
                    # unifies uint64 with an int as float64, and a weight
                    # above 2**53 came back rounded (ties where one machine
                    # ranks two weights apart)
                    y = w[i]
                    j = i - 1
                    while j >= s and lo[j] > x:
                        lo[j + 1] = lo[j]
                        w[j + 1] = w[j]
                        j -= 1
                    lo[j + 1] = x
                    w[j + 1] = y
            elif size <= 16:
                for i in range(s + 1, e):
                    x = lo[i]
                    j = i - 1
                    while j >= s and lo[j] > x:
                        lo[j + 1] = lo[j]
                        j -= 1
                    lo[j + 1] = x
            else:
                for i in range(size):
                    words[i] = (np.uint64(lo[s + i]) << np.uint64(32)) | np.uint64(i)
                    if weighted:
                        scratch[i] = w[s + i]
                sort_high_words(words, spare, size)
                for i in range(size):
                    lo[s + i] = words[i] >> np.uint64(32)
                    if weighted:
                        w[s + i] = scratch[np.int64(words[i] & np.uint64(0xFFFFFFFF))]
        first = out
        if summed:
            i = s
            while i < e:
                j = i + 1
                while j < e and lo[j] == lo[i]:
                    j += 1
                lo[out] = lo[i]
                if j - i == 1:
                    w[out] = w[i]
                else:  # out <= i: the run is read before its sum is written
                    terms = np.sort(w[i:j])
                    total = terms[0]
                    for t in range(1, terms.shape[0]):
                        total += terms[t]
                    w[out] = total
                out += 1
                i = j
            distinct[h] = out - first
            continue
        for i in range(s, e):
            if out > first and lo[out - 1] == lo[i]:
                if weighted and w[i] > w[out - 1]:
                    w[out - 1] = w[i]
            else:
                lo[out] = lo[i]
                if weighted:
                    w[out] = w[i]
                out += 1
        distinct[h] = out - first
    return out


# --------------------------------------------------------------------------
# the owned preference rows
# --------------------------------------------------------------------------


def owned_preference(edges: UndirectedEdges, own_lo: int, own_hi: int, owner_of: np.ndarray,
                     workers: int, carry_cut: bool = True):
    """The preference rows of the owned vertices ``[own_lo, own_hi)`` only
    (ghost rows empty), with the keys ``structure.csr.preference_csr`` gives
    the local edge set, and the cut edges in the order the workers name them
    by.  The rows: the same one sort of the weights, carrying the pair keys,
    and the same greedy-order scatter as one machine, but each input array is
    freed as soon as it is read and a ghost's end of a cut edge is never
    written (the single-machine build keeps every array to the end and writes
    both ends).  The cut edges: the edge set is sorted by (max, min) id, which
    within one other worker's share is the order both sides name their cut
    edges by, so one pass over it numbers them (:func:`_number_cut_edges`) and
    the scatter writes each one's key and row entry as it places the edge
    (measured at R-MAT 20 on 2 workers: an ordering pass over the finished
    rows, with random writes per entry and a sort of each row's lower ghosts,
    cost 1.0 s of both workers' 4.4 s build).  Unweighted, the greedy order is
    the edge set's own order read backwards, so the scatter reads the edge
    set itself and numbers the cut edges as it meets them (no pair keys, no
    cut number per edge: 12 bytes per edge less at the build's peak).
    ``edges`` is emptied (its weights serve as the sort's scratch).
    Returns (PreferenceCSR, keys bound = edges + 1, cut edges: ``(cut_start,
    key, own, ghost, entry_cut)``, ``entry_cut[j]`` the cut edge of row
    entry j, -1 inside the part).  ``carry_cut=False`` takes the path for
    words too narrow to carry the cut numbers whatever their size (tests)."""
    from ..structure.csr import MAX_KEYED_EDGES, PreferenceCSR
    from ..structure.sort_cpu import bit_width, order_key, packs_positions, radix_sort_pairs, \
        sort_with_positions, weights_of_order_keys

    m, n = edges.num_edges, edges.n
    if m > MAX_KEYED_EDGES:
        raise ValueError(f"the matching kernels take at most {MAX_KEYED_EDGES} undirected "
                         f"edges, the graph has {m}")
    bits = max(bit_width(max(n - 1, 0)), 1)
    nnz_bound = 2 * m
    offsets = np.zeros(n + 1, dtype=index_dtype(nnz_bound))
    _owned_row_lengths(edges.lo, edges.hi, own_lo, own_hi, offsets)
    np.cumsum(offsets, out=offsets)
    total = int(offsets[-1])
    if edges.w is None:
        cut_start, own, ghost = _number_cut_edges(edges.lo, edges.hi, own_lo, own_hi, owner_of,
                                                  workers, np.empty(0, dtype=np.int64))
        indices = np.empty(total, dtype=index_dtype(n))
        keys_out = np.empty(total, dtype=np.uint32)
        cut_key = np.empty(own.shape[0], dtype=np.uint32)
        entry_cut = np.full(total, -1, dtype=offsets.dtype)
        _scatter_owned_in_order(edges.lo, edges.hi, owner_of, cut_start, own_lo, own_hi,
                                offsets, indices, keys_out, cut_key, entry_cut)
        edges.lo = edges.hi = None
        return PreferenceCSR(offsets, indices, keys_out, None), m + 1, \
            (cut_start, cut_key, own, ghost, entry_cut)
    cut_of_edge = np.empty(m, dtype=index_dtype(m + 1))
    cut_start, own, ghost = _number_cut_edges(edges.lo, edges.hi, own_lo, own_hi, owner_of,
                                              workers, cut_of_edge)
    # each edge's two ends and its cut number + 1 (0: inside the part) in one
    # word when they fit (R-MAT 20 on 2 workers: 2 x 20 + 23 bits): the radix
    # sort then carries the words as one machine's carries its pairs, and
    # the packed sort's positions gather them, with no second gather of the
    # cut numbers (random reads).  Else the pair words and the cut numbers
    # are gathered apart.  Measured at R-MAT 20 on 2 workers, each worker's
    # rows in one process, the two ways alternating: 0.80-0.86 of the CPU
    # time at float64 weights, 0.89 at float32 (whose packed sort gathers)
    carried = carry_cut and 2 * bits + max(bit_width(own.shape[0]), 1) <= 64
    pairs = np.empty(m, dtype=np.uint64)
    if carried:
        _join_pair_cut(edges.lo, edges.hi, cut_of_edge, np.uint64(bits), pairs)
        del cut_of_edge
    else:
        host.join_pairs(edges.lo, edges.hi, np.uint64(bits), pairs)
    edges.lo = edges.hi = None
    keys, key_bits = order_key(edges.w)
    dtype = edges.w.dtype
    edges.w = None
    # the order keys (float64 weights: the weights themselves, viewed) are
    # the sort's scratch: nothing reads them after it
    cut_ascending = np.empty(0, dtype=np.int64)  # empty: the words carry them
    if carried and not packs_positions(key_bits, m):
        sorted_keys, ascending = radix_sort_pairs(keys, pairs, key_bits, overwrite_keys=True,
                                                  overwrite_values=True)
        del keys, pairs
    else:
        sorted_keys, positions = sort_with_positions(keys, key_bits, overwrite=True)
        del keys
        ascending = np.empty_like(pairs)
        host.gather(pairs, positions, ascending)
        del pairs
        if not carried:
            cut_ascending = np.empty_like(cut_of_edge)
            host.gather(cut_of_edge, positions, cut_ascending)
            del cut_of_edge
        del positions
    table = np.empty(m + 1, dtype=dtype)
    table[0] = 0
    table[1:] = weights_of_order_keys(sorted_keys, dtype)
    del sorted_keys
    indices = np.empty(total, dtype=index_dtype(n))
    keys_out = np.empty(total, dtype=np.uint32)
    cut_key = np.empty(own.shape[0], dtype=np.uint32)
    entry_cut = np.full(total, -1, dtype=offsets.dtype)
    _scatter_owned(ascending, cut_ascending, np.uint64(bits), own_lo, own_hi, offsets, indices,
                   keys_out, cut_key, entry_cut)
    return PreferenceCSR(offsets, indices, keys_out, table), m + 1, \
        (cut_start, cut_key, own, ghost, entry_cut)


@njit(cache=True, nogil=True)
def _number_cut_edges(lo, hi, own_lo, own_hi, owner_of, workers, cut_of_edge):
    """Number the cut edges (one end owned) in the order the workers name
    them by: owner of the ghost end, then (max, min) id, which is the edge
    set's own order within each owner (``cut_of_edge[e]``: -1 inside the
    part, and for an edge with no owned end, which a worker never receives;
    not written when empty).  Returns (cut_start per owner, owned end, ghost end)."""
    per_owner = np.zeros(workers + 1, dtype=np.int64)
    for e in range(lo.shape[0]):
        a = lo[e]  # a <= b
        b = hi[e]
        if a < own_lo and b >= own_lo and b < own_hi:
            per_owner[owner_of[a] + 1] += 1
        elif b >= own_hi and a >= own_lo and a < own_hi:
            per_owner[owner_of[b] + 1] += 1
    for k in range(workers):
        per_owner[k + 1] += per_owner[k]
    total = per_owner[workers]
    at = per_owner[:workers].copy()
    numbered = cut_of_edge.shape[0] > 0
    own = np.empty(total, dtype=lo.dtype)
    ghost = np.empty(total, dtype=lo.dtype)
    for e in range(lo.shape[0]):
        a = lo[e]
        b = hi[e]
        if a < own_lo and b >= own_lo and b < own_hi:
            g, o = a, b
        elif b >= own_hi and a >= own_lo and a < own_hi:
            g, o = b, a
        else:
            if numbered:
                cut_of_edge[e] = -1
            continue
        k = owner_of[g]
        c = at[k]
        at[k] = c + 1
        own[c] = o
        ghost[c] = g
        if numbered:
            cut_of_edge[e] = c
    return per_owner, own, ghost


@njit(cache=True, nogil=True)
def _owned_row_lengths(lo, hi, own_lo, own_hi, lengths):
    for e in range(lo.shape[0]):
        a = lo[e]
        b = hi[e]
        if a >= own_lo and a < own_hi:
            lengths[a + 1] += 1
        if b >= own_lo and b < own_hi:
            lengths[b + 1] += 1


@njit(cache=True, nogil=True)
def _join_pair_cut(lo, hi, cut_of_edge, bits, out):
    """``out[e]``: edge e's cut number + 1 (0 inside the part) above its pair
    word ``hi << bits | lo`` (the caller checked that the three fit)."""
    shift = bits + bits
    for e in range(lo.shape[0]):
        out[e] = (np.uint64(cut_of_edge[e] + 1) << shift) | (np.uint64(hi[e]) << bits) | \
            np.uint64(lo[e])


@njit(cache=True, nogil=True)
def _scatter_owned(ascending_pairs, cut_ascending, bits, own_lo, own_hi, offsets, indices, keys,
                   cut_key, entry_cut):
    """``pipeline_cpu.scatter_preference_pairs`` writing owned rows only:
    edge g of the greedy order (the ascending order read backwards) gets key
    ``m - g`` and goes to the rows of its owned ends, each row best first; a
    cut edge's key and its owned end's entry are written as it is placed.
    ``cut_ascending`` empty: each word carries its cut number + 1 above the
    pair (:func:`_join_pair_cut`).  The entries are placed in this loop, not
    by a helper function: Numba kept a helper's array reference counts on
    every call, which tripled the scatter's time (README, *Distributed*)."""
    m = ascending_pairs.shape[0]
    mask = (np.uint64(1) << bits) - np.uint64(1)
    carried = cut_ascending.shape[0] == 0
    cut_shift = bits + bits
    cursor = offsets[:-1].copy()
    for g in range(m):
        p = ascending_pairs[m - 1 - g]
        if carried:
            c = np.int64(p >> cut_shift) - 1
        else:
            c = np.int64(cut_ascending[m - 1 - g])
        a = np.int64(p & mask)
        b = np.int64((p >> bits) & mask)
        key = m - g
        if c >= 0:
            cut_key[c] = key
        for end in range(2):  # each owned end's row gets its next entry
            row, other = (a, b) if end == 0 else (b, a)
            if row >= own_lo and row < own_hi:
                at = cursor[row]
                indices[at] = other
                keys[at] = key
                if c >= 0:  # the rest stays -1 (filled in order beforehand)
                    entry_cut[at] = c
                cursor[row] = at + 1


@njit(cache=True, nogil=True)
def _scatter_owned_in_order(lo, hi, owner_of, cut_start, own_lo, own_hi, offsets, indices, keys,
                            cut_key, entry_cut):
    """:func:`_scatter_owned` for unweighted edges: the greedy order is the
    edge set's (max, min) order read backwards, so edge e is read in place
    (key ``e + 1``) and a cut edge's number is counted down from the end of
    its ghost owner's share (:func:`_number_cut_edges` counts up in the
    forward order).  The entries are placed as there, by the same lines (no
    helper, for the reason given there)."""
    m = lo.shape[0]
    cursor = offsets[:-1].copy()
    below = cut_start[1:].copy()  # per owner: the number of the last cut edge met, going back
    for g in range(m):
        e = m - 1 - g
        a = lo[e]
        b = hi[e]
        key = m - g
        a_owned = a >= own_lo and a < own_hi
        b_owned = b >= own_lo and b < own_hi
        c = -1
        if a_owned != b_owned:
            k = owner_of[b] if a_owned else owner_of[a]
            c = below[k] - 1
            below[k] = c
            cut_key[c] = key
        for end in range(2):  # each owned end's row gets its next entry
            row, other = (a, b) if end == 0 else (b, a)
            if row >= own_lo and row < own_hi:
                at = cursor[row]
                indices[at] = other
                keys[at] = key
                if c >= 0:  # the rest stays -1 (filled in order beforehand)
                    entry_cut[at] = c
                cursor[row] = at + 1
