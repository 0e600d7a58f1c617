"""Two tables on a Dask cluster: ``bipartite=True`` for the distributed greedy
matchings.

The distributed graph (:class:`~cugraph_match.dask.graph.DistributedGraph`)
has one id space, split into ranges of sorted ids.  A two-sided edge list is
mapped, partition by partition, onto one id space that keeps the
single-machine order: every left id before every right id, each side in its
own sorted order (the two-sided tie order of ``structure.bipartite``).  The
map is an order-preserving code:

* both sides numeric (integers, or floats through their order-preserving
  bit pattern): a side's code is its offset from the side's smallest id, the
  right side's codes after the left side's span, all in uint64 (when the two
  spans fit in 2**64 together);
* otherwise strings: ``"0"`` + the left id and ``"1"`` + the right id, a
  numeric side written as its offset, zero-padded to 20 digits.

The distributed b-Suitor then runs unchanged and its result is decoded back
into linked pairs.  The input is checked first on its own partitions, with
the single-machine messages, so no error names a coded id.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..structure.bipartite import B_FORMS, UNMATCHED, one_capacity_object_error, per_side
from ..structure.graph import comparable_ids, lacking_ids_error, unknown_ids_error
from ..structure.inputs import DEFAULT_WEIGHT, EdgeInput, computed, frame_library, read_input
from ..structure.output import masked_values, new_frame, take_labels
from ..structure.renumber import category_values, unorderable_types
from ..structure.checks import (capacity_scalar, capacity_series, first_true, plain,
                                require_unique_ids, require_vertex_frame)
from ..structure.validation import EMPTY_MESSAGE, WEIGHT_CHECKS, edge_problems, problem_error
from . import worker as w
from .build import id_columns
from .graph import DistributedGraph, _client, numeric_ids, partition_futures
from .matching import (_distribute, _stats, as_distributed_graph, check_dask_backend,
                       run_b_suitor)

_SIGN = np.uint64(1 << 63)
#: Decimal digits of the largest uint64: a numeric side's offsets written as strings.
_DIGITS = 20


@dataclass(frozen=True)
class SideCode:
    """How one side's ids become codes: ``kind`` "int", "float" or "str";
    ``dtype`` the ids' dtype (decoded back to it); ``low`` the smallest key
    (numeric sides); ``span`` the number of keys from ``low`` to the largest."""

    kind: str
    dtype: Any
    low: int = 0
    span: int = 0


@dataclass(frozen=True)
class TwoSidedCode:
    """The order-preserving code of both sides into one id space
    (``packed``: uint64 codes, the right side after ``left.span``; else strings)."""

    left: SideCode
    right: SideCode
    packed: bool

    def encode(self, ids: pd.Series, side: int) -> pd.Series:
        code = self.left if side == 0 else self.right
        if self.packed:
            keys = _keys(ids, code)
            return pd.Series(keys + np.uint64(self.left.span if side else 0), copy=False)
        if code.kind == "str":
            return str(side) + ids.astype(object)
        return pd.Series([f"{side}{k:0{_DIGITS}d}" for k in _keys(ids, code).tolist()],
                         dtype=object)

    def side_of(self, codes: pd.Series) -> np.ndarray:
        """1 for right-side codes, 0 for left ones."""
        if self.packed:
            return (codes.to_numpy(dtype=np.uint64) >= np.uint64(self.left.span)).astype(np.int8)
        return (codes.astype(object).str[0] == "1").to_numpy().astype(np.int8)

    def decode(self, codes: pd.Series, side: int) -> np.ndarray:
        """The ids of one side's ``codes`` (a NumPy array of the side's dtype)."""
        code = self.left if side == 0 else self.right
        if self.packed:
            keys = codes.to_numpy(dtype=np.uint64) - np.uint64(self.left.span if side else 0)
            return _values(keys, code)
        rest = codes.astype(object).str[1:]
        if code.kind == "str":
            return rest.to_numpy(dtype=object)
        return _values(np.array([int(k) for k in rest], dtype=np.uint64), code)


def _raw_keys(ids: pd.Series, code: SideCode) -> np.ndarray:
    """uint64 keys ordered as the ids: floats by their bit pattern (the sign
    bit flipped for positives, every bit for negatives; -0.0 is 0.0), signed
    integers with the sign bit flipped, unsigned ones as they are."""
    if code.kind == "float":
        bits = (ids.to_numpy(dtype=np.float64) + 0.0).view(np.uint64)
        return np.where(bits & _SIGN, ~bits, bits | _SIGN)
    values = ids.to_numpy(dtype=code.dtype)
    if code.dtype.kind == "i":
        return values.astype(np.int64).view(np.uint64) ^ _SIGN
    return values.astype(np.uint64)


def _keys(ids: pd.Series, code: SideCode) -> np.ndarray:
    """The side's keys counted from its smallest (``code.low``)."""
    return _raw_keys(ids, code) - np.uint64(code.low)


def _values(keys: np.ndarray, code: SideCode) -> np.ndarray:
    """The ids of keys counted from ``code.low``, in the side's dtype."""
    raw = keys + np.uint64(code.low)
    if code.kind == "float":
        bits = np.where(raw & _SIGN, raw ^ _SIGN, ~raw)
        return bits.view(np.float64).astype(code.dtype)
    if code.dtype.kind == "i":
        return (raw ^ _SIGN).view(np.int64).astype(code.dtype)
    return raw.astype(code.dtype)


# --------------------------------------------------------------------------
# on the workers
# --------------------------------------------------------------------------


def _host(frame):
    return frame.to_pandas() if hasattr(frame, "to_pandas") and frame_library(frame) is not pd \
        else frame


def summarize_sides(frame, source: str, destination: str, weight: str | None) -> dict:
    """One input partition's validation problems (the single-machine checks)
    and, per side, the ids' Python types and numeric key bounds."""
    lib = frame_library(frame) or pd
    problems = list(edge_problems(EdgeInput(lib, frame, source, destination, weight)))
    summary: dict[str, Any] = {"rows": len(frame), "problems": problems, "sides": []}
    if problems or not len(frame):
        return summary
    host = _host(id_columns(frame, source, destination))
    for column in (source, destination):
        ids = category_values(host[column])
        dtype = getattr(ids.dtype, "numpy_dtype", ids.dtype)
        if isinstance(dtype, np.dtype) and dtype.kind in "iuf":
            kind = "float" if dtype.kind == "f" else "int"
            keys = _raw_keys(ids, SideCode(kind, dtype))
            summary["sides"].append({"kind": kind, "dtype": dtype, "types": None,
                                     "low": int(keys.min()), "high": int(keys.max())})
        else:
            types = sorted({type(x).__name__ for x in ids})
            mixed = unorderable_types(ids) if ids.dtype == object else None
            summary["sides"].append({"kind": "str" if types == ["str"] else "other",
                                     "dtype": ids.dtype, "types": types, "mixed": mixed})
    return summary


def encode_partition(frame, source: str, destination: str, code: TwoSidedCode):
    """A partition with both id columns coded into one id space (pandas)."""
    host = _host(frame)
    out = host.copy(deep=False)
    out[source] = code.encode(category_values(host[source]).reset_index(drop=True), 0).to_numpy()
    out[destination] = code.encode(category_values(host[destination]).reset_index(drop=True),
                                   1).to_numpy()
    return out


def assign_side_capacities(gid: str, code: TwoSidedCode, defaults, share) -> dict:
    """Keep b(v) of the owned vertices: a side's default (an int, or None when
    listed per vertex) and the ``vertex | b | position`` rows of ``share``
    (coded ids), reporting unknown and lacking vertices as
    :func:`~cugraph_match.dask.worker.assign_capacities` does."""
    part = w.PARTS[gid]
    owned = part.labels.iloc[part.own_lo:part.own_hi].reset_index(drop=True)
    side = code.side_of(owned) if len(owned) else np.zeros(0, dtype=np.int8)
    cap = np.zeros(len(owned), dtype=np.int64)
    given = np.zeros(len(owned), dtype=bool)
    for s, default in enumerate(defaults):
        if default is not None:
            cap[side == s] = default
            given[side == s] = True
    report = {"unknown": 0, "first_unknown": None, "lacking": 0, "first_lacking": None}
    if share is not None and len(share):
        local, unknown = w.owned_ids(gid, share["vertex"], share["position"].to_numpy())
        report = {"unknown": len(unknown),
                  "first_unknown": int(unknown.min()) if len(unknown) else None}
        known = ~np.isin(share["position"].to_numpy(), unknown)
        cap[local[known] - part.own_lo] = share["b"].to_numpy()[known]
        given[local[known] - part.own_lo] = True
    lacking = np.flatnonzero(~given)
    report["lacking"] = len(lacking)
    report["first_lacking"] = None
    if len(lacking):
        s = int(side[lacking[0]])
        report["first_lacking"] = (s, plain(code.decode(owned.iloc[lacking[:1]], s)[0]))
    part.run["cap"] = cap
    return report


def linked_from_mates(frame: pd.DataFrame, code: TwoSidedCode, names, unmatched: str):
    """A ``vertex | mate | weight`` partition (coded ids, every vertex a
    worker owns, in order) as linked-pairs rows, built as the single-machine
    builder builds them (numeric ids nullable where ``unmatched`` allows
    nulls, others null by ``where``)."""
    side = code.side_of(frame["vertex"]) if len(frame) else np.zeros(0, dtype=np.int8)
    matched = frame["mate"].notna().to_numpy()
    keep_left, keep_right = unmatched in ("left", "both"), unmatched in ("right", "both")
    rows = ((side == 0) & (matched | keep_left)) | ((side == 1) & ~matched & keep_right)
    part = frame[rows].reset_index(drop=True)
    left, matched = side[rows] == 0, matched[rows]
    n = len(part)
    src = _empty_ids(code.left, n)
    src[left] = code.decode(part["vertex"][left], 0)
    dst = _empty_ids(code.right, n)
    pairs = left & matched
    dst[pairs] = code.decode(part["mate"][pairs], 1)
    dst[~left] = code.decode(part["vertex"][~left], 1)
    weight = part["weight"]
    weights = weight.to_numpy(dtype=getattr(weight.dtype, "numpy_dtype", weight.dtype),
                              na_value=0)
    missing = ~left | ~pairs
    index = np.arange(n)
    return new_frame(pd, {
        names[0]: _side_column(take_labels(pd.Series(src), index, ~left if keep_right else None,
                                           pd), code.left),
        names[1]: _side_column(take_labels(pd.Series(dst), index,
                                           (left & ~matched) if keep_left else None, pd),
                               code.right),
        names[2]: (masked_values(weights, missing, pd) if keep_left or keep_right
                   else weights),
    })


def linked_from_pairs(frame: pd.DataFrame, code: TwoSidedCode, names):
    """A ``src | dst | weight`` partition (coded ids, src the left end) as linked pairs."""
    n = len(frame)
    index = np.arange(n)
    src = code.decode(frame["src"], 0) if n else _empty_ids(code.left, 0)
    dst = code.decode(frame["dst"], 1) if n else _empty_ids(code.right, 0)
    return new_frame(pd, {names[0]: _side_column(take_labels(pd.Series(src), index, None, pd),
                                                 code.left),
                          names[1]: _side_column(take_labels(pd.Series(dst), index, None, pd),
                                                 code.right),
                          names[2]: frame["weight"].to_numpy()})


#: the dtype pandas gives a column of strings (``str`` from pandas 3, object before)
TEXT_DTYPE = pd.Series(["text"]).dtype


def _side_column(values, code: SideCode):
    """A side's ids as a result column: a side of strings in pandas' own
    string dtype even where every id of a partition is null (such a
    partition's column was object beside the others' ``str``, against the
    frame's meta: the unmatched records of the other side, alone in it)."""
    column = _plain(values)
    if code.kind == "str" and column.dtype != TEXT_DTYPE:
        column = pd.Series(column).astype(TEXT_DTYPE)
    return column


def _empty_ids(code: SideCode, n: int) -> np.ndarray:
    return np.zeros(n, dtype=code.dtype) if code.kind != "str" else np.full(n, None,
                                                                             dtype=object)


def _plain(column):
    return column.reset_index(drop=True).rename(None) if hasattr(column, "reset_index") \
        else column


def _reindexed(frame, offset: int):
    frame.index = pd.RangeIndex(offset, offset + len(frame))
    return frame


# --------------------------------------------------------------------------
# on the client
# --------------------------------------------------------------------------


def two_sided_dask(graph: Any, source: str, destination: str, weight, backend: str,
                   return_stats: bool, unmatched: str, b: Any = 1, per_vertex: bool = False):
    """``bipartite=True`` on a Dask edge list: suitor / locally-dominant
    (``per_vertex=False``, b = 1) or b-Suitor (``b`` as the single-machine
    call takes it for two sides).  Returns a Dask frame of linked pairs."""
    if isinstance(graph, DistributedGraph):
        raise ValueError("bipartite=True takes the Dask edge list itself: a DistributedGraph "
                         "has one id space")
    if unmatched not in UNMATCHED:  # pragma: no cover - checked by the caller
        raise ValueError(f"unmatched must be one of {UNMATCHED}, got {unmatched!r}")
    if per_vertex and unmatched != "drop":
        raise ValueError(f"unmatched={unmatched!r} is not available for b_suitor_matching on "
                         f"a Dask edge list (its workers keep the pairs, not the records "
                         f"without one); use unmatched='drop'")
    check_dask_backend(backend)
    meta = getattr(graph, "_meta", None)
    if meta is None or not hasattr(meta, "columns"):
        raise TypeError(f"expected a Dask DataFrame edge list, got {type(graph).__name__}")
    found = read_input(meta, source, destination, weight)  # the column errors
    weight = found.weight
    client = _client(None)
    persisted = client.persist(graph)
    parts = partition_futures(client, persisted)
    summaries = client.gather([client.submit(summarize_sides, part, source, destination,
                                             weight, pure=False) for part in parts])
    code = _check_and_code(summaries, source, destination, weight)
    defaults, share, given = _side_capacities(b, code) if per_vertex else ((1, 1), None, None)
    coded_meta = encode_partition(_host(meta), source, destination, code)
    coded = persisted.map_partitions(encode_partition, source, destination, code,
                                     meta=coded_meta)
    g = as_distributed_graph(coded, source, destination, weight, backend)
    _assign(g, code, defaults, share, given)
    run = run_b_suitor(g)
    names = (source, destination, weight if weight is not None else DEFAULT_WEIGHT)
    if per_vertex:
        counts = run["pairs_per_worker"]
        raw = [g.submit(k, w.pairs_partition, 0) for k in range(len(counts))]
        linked = [client.submit(linked_from_pairs, f, code, names, pure=False) for f in raw]
    else:
        raw = [g.submit(k, w.mates_partition, 0) for k in range(len(g.workers))]
        linked = [client.submit(linked_from_mates, f, code, names, unmatched, pure=False)
                  for f in raw]
    counts = client.gather([client.submit(len, f, pure=False) for f in linked])
    starts = np.concatenate([[0], np.cumsum(counts)]).astype(int)
    futures = [client.submit(_reindexed, f, int(starts[k]), pure=False)
               for k, f in enumerate(linked)]
    result = g.frame(futures, counts, numeric_ids(meta, source, destination))
    return (result, _stats(g, run)) if return_stats else result


def _check_and_code(summaries, source: str, destination: str, weight) -> TwoSidedCode:
    """The single-machine checks over every partition, then the code."""
    if sum(s["rows"] for s in summaries) == 0:
        raise ValueError(EMPTY_MESSAGE)
    order = [("null_id", source), ("null_id", destination)]
    if weight is not None:
        order += [(kind, weight) for kind in WEIGHT_CHECKS]
    for kind, column in order:
        hits = [p for s in summaries for p in s["problems"] if p[0] == kind and p[1] == column]
        if hits:
            raise problem_error(kind, column, sum(h[2] for h in hits), hits[0][3])
    codes = []
    for i, column in enumerate((source, destination)):
        seen = [s["sides"][i] for s in summaries if s["sides"]]
        what = f"vertex ids in {column!r}"
        kinds = {x["kind"] for x in seen}
        types = sorted({t for x in seen for t in (x["types"] or [])})
        if any(x.get("mixed") for x in seen) or (len(kinds) > 1 and "str" in kinds) or \
                (len(types) > 1):
            raise TypeError(f"{what} cannot be ordered (mixed types: {types or sorted(kinds)}); "
                            f"give every id the same type")
        kind = kinds.pop()
        if kind == "other":
            raise TypeError(f"{what}: the Dask two-sided path takes integer, float or string "
                            f"ids, got {types}; compute the frame, or cast the ids")
        if kind == "str":
            codes.append(SideCode("str", np.dtype(object)))
            continue
        dtypes = {x["dtype"] for x in seen}
        dtype = np.result_type(*dtypes)
        if dtype.kind == "f" and kind == "int":  # int64 beside uint64 partitions
            raise TypeError(f"{what}: partitions hold int64 and uint64 ids; cast the column "
                            f"to one dtype")
        if len(dtypes) > 1:
            raise TypeError(f"{what}: partitions hold ids of dtypes {sorted(map(str, dtypes))}; "
                            f"cast the column to one dtype")
        low = min(x["low"] for x in seen)
        high = max(x["high"] for x in seen)
        codes.append(SideCode(kind, dtype, low, high - low + 1))
    left, right = codes
    packed = left.kind != "str" and right.kind != "str" and left.span + right.span <= 2**64
    return TwoSidedCode(left, right, packed)


def _side_capacities(b: Any, code: TwoSidedCode):
    """``b`` for two sides, checked as on one machine: (per-side defaults, the
    listed ``vertex | b | position`` rows with coded ids, the given ids)."""
    if isinstance(b, (bool, np.bool_)):
        raise TypeError(f"b must be {B_FORMS}; got {b!r}")
    if isinstance(b, (int, np.integer, float, np.floating)):
        value = capacity_scalar(b, "b")
        return (value, value), None, None
    if isinstance(b, str):
        raise ValueError(f"b={b!r} names a node attribute, which only a networkx.Graph "
                         f"carries; for an edge list give b per side: "
                         f"b={{'source': ..., 'destination': ...}}")
    if hasattr(b, "columns") or (hasattr(b, "index") and hasattr(b, "dtype")):
        raise one_capacity_object_error(b)  # as one machine says it
    if not isinstance(b, (dict, tuple, list)):
        raise TypeError(f"b for a two-sided graph must be {B_FORMS}; got {type(b).__name__}")
    defaults, listed = [None, None], []
    for s, (value, which) in enumerate(zip(per_side(b, "b"), ("source", "destination"))):
        what = f"b[{which!r}]"
        if value is None:
            raise ValueError(f"b: the {which} side has no capacity; give both sides "
                             f"(b={{'source': ..., 'destination': ...}})")
        if isinstance(value, (int, np.integer, float, np.floating)) and \
                not isinstance(value, (bool, np.bool_)):
            defaults[s] = capacity_scalar(value, what)
            continue
        value = _host(computed(value))
        if hasattr(value, "columns"):
            require_vertex_frame(value, ("vertex", "b"), what)
            vertices, values = value["vertex"], value["b"]
        elif hasattr(value, "index") and hasattr(value, "dtype"):
            vertices, values = value.index.to_series(), value
        else:
            raise TypeError(f"{what} must be an int, a Series indexed by the {which} side's "
                            f"ids or a vertex|b frame, got {type(value).__name__}")
        plain_vertices = vertices.reset_index(drop=True)

        def where(mask, ids=plain_vertices, which=which) -> str:
            return f"for {which} vertex {plain(ids[first_true(mask)])!r}"

        values = capacity_series(values.reset_index(drop=True), what, where)
        require_unique_ids(plain_vertices, what)
        listed.append((s, what, plain_vertices, values))
    if not listed:
        return tuple(defaults), None, None
    coded, values, given, kept, outside = [], [], [], [], []
    start = 0
    for s, what, vertices, side_values in listed:
        ids, exact = _code_ids(code, vertices, s, what)
        coded.append(ids)
        values.append(side_values[exact])
        given.append((s, what, vertices))
        kept.append(start + np.flatnonzero(exact))
        outside.append(start + np.flatnonzero(~exact))
        start += len(vertices)
    return tuple(defaults), (pd.concat(coded, ignore_index=True),
                             pd.concat(values, ignore_index=True),
                             np.concatenate(kept), np.concatenate(outside)), given


def _code_ids(code: TwoSidedCode, ids: pd.Series, side: int,
              what: str) -> tuple[pd.Series, np.ndarray]:
    """Caller ids of one side in the code, and where they are exact: an id
    the side's dtype cannot hold (1.5 or 2**64 - 1 on an int64 side, 300 on
    an int8 one) is no vertex, and is left out of the codes rather than cast
    onto one.  A TypeError when they are not of the side's kind (a string id
    on an integer side, say)."""
    side_code = code.left if side == 0 else code.right
    # as one machine: null ids refused, float ids that are no integer of an
    # integer side's type named before unknown ones
    ids = comparable_ids(ids, np.empty(0, dtype=object if side_code.kind == "str"
                                       else side_code.dtype), what)
    dtype = getattr(ids.dtype, "numpy_dtype", ids.dtype)
    numeric = isinstance(dtype, np.dtype) and dtype.kind in "iuf"
    if (side_code.kind == "str") == numeric and len(ids):
        raise TypeError(f"{what}: ids of type {dtype} cannot be compared with the "
                        f"{('source', 'destination')[side]} side's {side_code.kind} ids; give "
                        f"them the side's id type")
    exact = np.ones(len(ids), dtype=bool) if side_code.kind == "str" else \
        _held_exactly(ids.to_numpy(dtype=dtype), np.dtype(side_code.dtype))
    return code.encode(ids[exact].reset_index(drop=True), side), exact


def _held_exactly(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Where ``dtype`` holds ``values`` (NumPy numbers) without a change."""
    if dtype.kind == "f":
        with np.errstate(over="ignore", invalid="ignore"):
            cast = values.astype(dtype)
            if values.dtype.kind == "f":
                return cast.astype(np.float64) == values.astype(np.float64)
            back = np.where(np.isfinite(cast), cast, 0).astype(values.dtype)
            return np.isfinite(cast) & (back == values)
    # an integer side's float ids are integers already (comparable_ids)
    info = np.iinfo(dtype)
    return (values >= info.min) & (values <= info.max)  # NumPy compares any two ints exactly


def _assign(g: DistributedGraph, code: TwoSidedCode, defaults, share, given) -> None:
    """Every worker's capacities; the single-machine errors for unknown and
    lacking vertices, naming the caller's ids."""
    if share is None:
        g.on_all(assign_side_capacities, code, defaults, None)
        return
    ids, values, kept, outside = share  # kept, outside: the caller's rows coded and not
    shares = _distribute(g, ids, {"b": values})
    reports = g.gather([g.submit(k, assign_side_capacities, code, defaults, piece)
                        for k, piece in enumerate(shares)])
    unknown = sum(r["unknown"] for r in reports) + len(outside)
    if unknown:
        first = min([int(kept[r["first_unknown"]]) for r in reports if r["unknown"]] +
                    [int(position) for position in outside[:1]])
        for s, what, vertices in given:
            if first < len(vertices):
                raise unknown_ids_error(what, unknown, vertices.iloc[first])
            first -= len(vertices)
    lacking = [r for r in reports if r["lacking"]]
    if lacking:
        side, first = lacking[0]["first_lacking"]
        count = sum(r["lacking"] for r in lacking)
        what = f"b[{('source', 'destination')[side]!r}]"
        raise lacking_ids_error(what, count, first, "capacity")
