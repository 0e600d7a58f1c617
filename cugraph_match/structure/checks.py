"""Argument checks every family shares, at the boundary of every public
function: seeds, capacities, launch arguments, resolution, per-vertex frames
(partitions, capacities) and node attributes.  Each raises naming the
argument (and, for per-row values, the count and the first bad one) before
any work is done.

A leaf: it imports nothing of this package, so any module (the shared
plumbing in ``structure/``, every family, the Dask backend) may use it
without creating an import cycle.  Edge-list validation, which needs the
input adapters, is :mod:`cugraph_match.structure.validation`.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

# --------------------------------------------------------------------------
# values in messages, masks
# --------------------------------------------------------------------------


def plain(value):
    """A NumPy scalar as the Python value, so messages read ``3``, not ``np.int64(3)``."""
    return value.item() if isinstance(value, np.generic) else value


def describe_row(frame, position: int, cols) -> str:
    """'row <label> (col=value, ...)' for the row at ``position`` of a pandas
    or cuDF frame, labels and values as plain Python values."""
    row = frame[list(cols)].iloc[position:position + 1]
    if hasattr(row, "to_pandas"):
        row = row.to_pandas()
    values = ", ".join(f"{c}={plain(row[c].iloc[0])!r}" for c in cols)
    return f"row {plain(row.index[0])!r} ({values})"


def first_true(mask) -> int:
    """Position of the first True of a boolean Series or array (pandas, cuDF, NumPy, CuPy)."""
    values = mask.to_numpy() if hasattr(mask, "to_numpy") else mask
    if hasattr(values, "get"):
        values = values.get()
    return int(np.flatnonzero(np.asarray(values))[0])


def declared_ids(ids, frame_lib, name: str, what: str = "the ids"):
    """Vertex ids a caller declares (``vertices=``) as a Series of
    ``frame_lib`` (pandas or cuDF) without nulls, numbered from 0.

    A Series is kept (converted between pandas and cuDF to ``frame_lib``);
    a list, a NumPy or CuPy array, a pandas Index, a Categorical or another
    extension array (what ``Series.unique()`` returns for ``Int64``,
    ``category`` or Arrow columns) becomes one.  ``name`` names the argument
    in the errors (``what`` says what it holds): a string, a frame, a
    scalar, or null ids.
    """
    if isinstance(ids, (str, bytes)) or not hasattr(ids, "__iter__") or hasattr(ids, "columns"):
        raise TypeError(f"{name} must be {what} (a list, an array or a Series), got "
                        f"{type(ids).__name__}")
    if not hasattr(ids, "reset_index"):  # not a Series: an array, an Index, a list...
        ids = frame_lib.Series(ids if hasattr(ids, "dtype") else list(ids))
    elif frame_lib.__name__ != "pandas" and type(ids).__module__.startswith("pandas"):
        ids = frame_lib.from_pandas(ids)
    elif frame_lib.__name__ == "pandas" and hasattr(ids, "to_pandas"):
        ids = ids.to_pandas()
    nulls = ids.isna()
    if int(nulls.sum()):
        raise ValueError(f"{name} has {int(nulls.sum())} null id(s); first is at position "
                         f"{first_true(nulls)}")
    return ids.reset_index(drop=True)


def not_numbers(series, integral: bool = False):
    """Mask of the values of an object column that are not numbers (not
    integers with ``integral``); booleans never count as numbers.

    pandas object columns hold Python objects, checked one by one.  A cuDF
    column of dtype object holds strings, none of them a number; its
    ``map`` would compile the lambda as a UDF and fail on strings instead of
    answering, so it is not used there.
    """
    if type(series).__module__.startswith("cudf"):
        return series.notna()
    kind = numbers.Integral if integral else numbers.Real
    return ~series.map(lambda x: isinstance(x, kind) and not isinstance(x, bool)).astype(bool)


# --------------------------------------------------------------------------
# seeds
# --------------------------------------------------------------------------


def check_flag(value, name: str) -> bool:
    """A flag must be True or False (NumPy's bool too): a string such as
    ``"no"`` or ``"False"`` is truthy, and read as one it would mean the
    opposite of what the caller wrote."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_seed(seed, name: str = "seed") -> int:
    """A seed as a Python int: any int (Python or NumPy, negative ones too);
    anything else, floats and bools included, raises naming ``name``."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {seed!r}")
    return int(seed)


def numpy_seed(seed: int) -> int:
    """A seed NumPy's generators take: negative seeds modulo 2**64 (NumPy refuses
    them), every other seed as it is."""
    seed = int(seed)  # a NumPy int64 would overflow on the modulo
    return seed % 2**64 if seed < 0 else seed


# --------------------------------------------------------------------------
# per-vertex frames (matchings, partitions, capacities)
# --------------------------------------------------------------------------


def require_column_names(**names) -> None:
    """Each keyword's value must be usable as a column label (hashable: a
    list or a frame would fail deep inside pandas with "unhashable type")."""
    for name, value in names.items():
        try:
            hash(value)
        except TypeError:
            raise TypeError(f"{name} must be a column name (a str, say), got "
                            f"{type(value).__name__} {_shown_value(value)}") from None


def _shown_value(value) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def require_unique_columns(frame, columns, what: str) -> None:
    """Each of ``columns`` the frame has must appear in it once: with a repeated
    name ``frame[col]`` is a frame, not a column, and nothing after this
    would say why it fails."""
    names = list(frame.columns)
    for col in dict.fromkeys(columns):
        count = names.count(col)
        if count > 1:
            raise ValueError(f"{what}: column {col!r} appears {count} times; column names "
                             f"must be unique (the frame has columns {names})")


def require_vertex_frame(frame, columns, what: str) -> None:
    """A per-vertex frame (matching, partition, capacities) must be a DataFrame
    with ``columns``, each once; raise naming ``what`` and the missing columns."""
    if not hasattr(frame, "columns"):
        raise TypeError(f"{what} must be a {'|'.join(columns)} DataFrame, got "
                        f"{type(frame).__name__}")
    require_unique_columns(frame, columns, what)
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{what} frame lacks column(s) {missing}; it has {list(frame.columns)}")


def require_unique_ids(ids, what: str) -> None:
    """Raise naming ``what``, the count and the first repeated id."""
    duplicated = ids.duplicated()
    count = int(duplicated.sum())
    if count:
        first = ids[duplicated].iloc[0]
        raise ValueError(f"{what}: {count} vertex id(s) appear more than once; "
                         f"first is {plain(first)!r}")


# --------------------------------------------------------------------------
# capacities (b-Suitor's b, b-marriage's and blocking_pairs' capacities)
# --------------------------------------------------------------------------

# Every capacity at or above this is stored as this.  A capacity only ever
# meets min(capacity, degree) and comparisons with a count of partners, and no
# graph or preference list comes near 2**62 entries, so a clipped capacity
# behaves exactly as the caller's ("unbounded") one, whatever its dtype or size,
# and the int64 arrays the kernels read can never wrap to a negative value.
CAPACITY_CEILING = 2**62


def _whole_number(value) -> bool:
    """A real number (float, NumPy scalar, Fraction) that is a whole number:
    finite and equal to its floor (NumPy's isfinite refuses Fractions)."""
    try:
        return math.floor(value) == value
    except (OverflowError, ValueError):  # infinities, NaN
        return False


def capacity_scalar(value, what: str) -> int:
    """One capacity for everybody: a non-negative integer of any size (Python or
    NumPy int, or an integral float), as a Python int at most
    :data:`CAPACITY_CEILING`.  Raises naming ``what``."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{what} must be a non-negative integer, got {value!r}")
    if isinstance(value, numbers.Integral):
        if value < 0:
            raise ValueError(f"{what} must be non-negative, got {plain(value)}")
        return min(int(value), CAPACITY_CEILING)
    if isinstance(value, numbers.Real):
        if not _whole_number(value):
            raise TypeError(f"{what} must be an integer (an integral number), got {plain(value)!r}")
        if value < 0:
            raise ValueError(f"{what} must be non-negative, got {plain(value)}")
        return min(math.floor(value), CAPACITY_CEILING)
    raise TypeError(f"{what} must be a non-negative integer, got {type(value).__name__}")


def capacity_series(values, what: str, where) -> object:
    """Validated capacities as an int64 Series of the same frame library,
    values above :data:`CAPACITY_CEILING` clipped to it.

    ``values`` is a pandas or cuDF Series of any dtype: integers of any width
    (uint64 up to 2**64 - 1 included), integral floats, pandas nullable
    integers, or Python integers of any size in an object column.  Nulls,
    non-integers, infinities and negative values raise naming ``what``, the
    count and the first bad entry, which ``where(mask)`` describes (e.g.
    ``"for vertex 7"`` or ``"row 3 (acceptor=2, capacity=-1)"``).
    """
    kind_name = type(values.dtype).__name__
    if kind_name == "SparseDtype":  # pandas' sparse: its dense values (no itemsize to read)
        values = values.sparse.to_dense()
    elif kind_name == "CategoricalDtype":  # read by value, as categorical ids and ranks are
        values = values.astype(values.dtype.categories.dtype)
    nulls = values.isna()
    count = int(nulls.sum())
    if count:
        raise ValueError(f"{what}: {count} null capacity value(s); first is {where(nulls)}")
    dtype = getattr(values.dtype, "numpy_dtype", values.dtype)
    kind = getattr(dtype, "kind", "O")
    if kind == "O" and type(values).__module__.startswith("pandas"):
        return _object_capacities(values, what, where)
    if kind == "f":
        fractional = (values != values.round()) & (values.abs() != np.inf)
        count = int(fractional.sum())
        if count:
            raise TypeError(f"{what}: {count} capacity value(s) are not integers; first is "
                            f"{where(fractional)}")
        infinite = values.abs() == np.inf
        count = int(infinite.sum())
        if count:
            raise ValueError(f"{what}: {count} infinite capacity value(s) (capacities are "
                             f"integers; any value at or above the degree means unbounded); "
                             f"first is {where(infinite)}")
    elif kind not in ("i", "u"):
        if kind == "O":  # a cuDF object column holds strings
            bad = not_numbers(values, integral=True)
            raise TypeError(f"{what}: {int(bad.sum())} capacity value(s) are not integers; "
                            f"first is {where(bad)}")
        raise TypeError(f"{what}: capacities must be integers, got dtype {values.dtype}")
    if kind != "u":
        negative = values < 0
        count = int(negative.sum())
        if count:
            raise ValueError(f"{what}: {count} negative capacity value(s); first is "
                             f"{where(negative)}")
    if kind == "f" and dtype.itemsize < 8:  # the ceiling overflows float16 (a warning)
        values = values.astype(np.float64)
    if kind == "f" or dtype.itemsize == 8:  # clip before the cast: uint64, floats would wrap
        values = values.clip(upper=CAPACITY_CEILING)
    return values.astype(np.int64)


def _object_capacities(values, what: str, where):
    """An object column (Python numbers, any size): checked and clipped one by one."""
    integral = values.map(lambda x: isinstance(x, numbers.Integral) and not isinstance(x, bool)
                          or (isinstance(x, numbers.Real) and not isinstance(x, bool)
                              and _whole_number(x))).astype(bool)
    count = int((~integral).sum())
    if count:
        raise TypeError(f"{what}: {count} capacity value(s) are not integers; first is "
                        f"{where(~integral)}")
    negative = values.map(lambda x: x < 0).astype(bool)
    count = int(negative.sum())
    if count:
        raise ValueError(f"{what}: {count} negative capacity value(s); first is "
                         f"{where(negative)}")
    return values.map(lambda x: min(int(x), CAPACITY_CEILING)).astype(np.int64)


def capacity_values(vertices, values, what: str):
    """The checks of per-vertex capacities that need no graph (nulls, types,
    signs, sizes, repeated vertices); returns them as int64, values of any
    size at or above the ceiling clipped to it (unbounded)."""
    plain_vertices = vertices.reset_index(drop=True)

    def where(mask) -> str:
        return f"for vertex {plain(plain_vertices[first_true(mask)])!r}"

    values = capacity_series(values.reset_index(drop=True), what, where)
    require_unique_ids(plain_vertices, what)
    return values


def node_attribute_values(graph, name: str, argument: str = "b"):
    """``(nodes, values)`` of the node attribute ``name`` of a ``networkx.Graph``,
    every node having it; anything but a NetworkX graph, or a node lacking
    it, raises naming ``argument`` (what the caller passed the name as)."""
    try:
        import networkx as nx
    except ImportError:  # pragma: no cover - a base dependency
        nx = None
    if nx is None or not isinstance(graph, nx.Graph):
        raise ValueError(f"{argument}={name!r} names a node attribute, which only a "
                         f"networkx.Graph carries; for an edge list pass {argument} as an int, "
                         f"a Series indexed by vertex, or a frame with columns 'vertex' and "
                         f"{argument!r}")
    nodes = list(graph.nodes)
    lacking = [v for v in nodes if name not in graph.nodes[v]]
    if lacking:
        raise ValueError(f"node attribute {name!r}: {len(lacking)} node(s) lack it; "
                         f"first is {lacking[0]!r}")
    values = [graph.nodes[v][name] for v in nodes]
    return nodes, values


# --------------------------------------------------------------------------
# community detection: resolution, partitions
# --------------------------------------------------------------------------


def real_value(value) -> float | None:
    """A real number argument as a Python float, or None when it is not one
    (bools, complex numbers, strings, arrays).  NumPy scalars of every width
    are read (float16 and longdouble too, which the kernels cannot take as
    they are; kept as given, a float32 also gave its dtype to results computed
    from it); a number beyond float64 is an infinity of its sign."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        return None
    try:
        return float(value)
    except OverflowError:  # a Python int or Fraction past float64's range
        return math.inf if value > 0 else -math.inf


def check_resolution(resolution) -> float:
    """γ must be a positive finite number (not a bool); returned as a float."""
    value = real_value(resolution)
    if value is None or not math.isfinite(value) or value <= 0:
        raise ValueError(f"resolution must be a positive finite number, got {resolution!r}")
    return value


def check_threshold(threshold, name: str = "threshold") -> float:
    """A modularity-gain threshold must be a non-negative number (not a bool);
    returned as a float."""
    value = real_value(threshold)
    if value is None or not value >= 0:
        raise ValueError(f"{name} must be a non-negative number, got {threshold!r}")
    return value


def check_positive_int(value, name: str) -> None:
    """A count such as ``max_level`` must be a positive int (not a bool or a float)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive int, got {value!r}")


#: The label column of a partition frame: ``community`` (what this package's
#: ``louvain`` returns) or ``partition`` (what ``cugraph.louvain`` returns).
PARTITION_COLUMNS = ("community", "partition")


def check_partition_values(partition) -> str:
    """The checks of a partition that need no graph: its columns, null
    labels, repeated vertices.  Returns the name of its label column,
    ``community`` or cuGraph's ``partition`` (a frame with both is refused:
    which one is meant cannot be told)."""
    if not hasattr(partition, "columns"):
        raise TypeError(f"partition must be a vertex|community DataFrame, got "
                        f"{type(partition).__name__}")
    require_vertex_frame(partition, ("vertex",), "partition")
    present = [c for c in PARTITION_COLUMNS if c in partition.columns]
    if len(present) > 1:
        raise ValueError(f"partition has both a 'community' and a 'partition' column; keep the "
                         f"one that holds the labels (the frame has columns "
                         f"{list(partition.columns)})")
    if not present:
        raise ValueError(f"partition frame lacks column(s) ['community'] (or cuGraph's "
                         f"'partition'); it has {list(partition.columns)}")
    column = present[0]
    require_unique_columns(partition, (column,), "partition")
    nulls = partition[column].isna()
    if int(nulls.sum()):
        first = partition["vertex"][nulls].iloc[0]
        raise ValueError(f"partition: {int(nulls.sum())} vertex/vertices have a null {column}; "
                         f"first is {plain(first)!r}")
    require_unique_ids(partition["vertex"], "partition")
    return column


# --------------------------------------------------------------------------
# GPU launch arguments (checked whatever the backend: a bad value is a bad
# value before any GPU is involved)
# --------------------------------------------------------------------------

WARP = 32  # threads of a warp on every CUDA device
MAX_THREADS_PER_BLOCK = 1024
SHARED_MEMORY_DEFAULT = 48 * 1024  # dynamic shared memory a launch gets without opting in


def _count(value, name: str, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {value!r}")
    value = int(value)
    if value < least:
        raise ValueError(f"{name} must be {'positive' if least == 1 else 'non-negative'}, "
                         f"got {value}")
    return value


def check_launch(threads_per_block, whole_warps: bool = False, positive: dict | None = None,
                 non_negative: dict | None = None) -> int:
    """A kernel's launch arguments: ``threads_per_block`` an int in [1, 1024]
    (a multiple of 32 when ``whole_warps``: a warp works as one), and the
    further counts ``positive`` / ``non_negative`` (``{name: value}``) ints
    of that sign.  Returns the block size; raises naming the argument."""
    name = "threads_per_block"
    if isinstance(threads_per_block, bool) or not isinstance(threads_per_block, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {threads_per_block!r}")
    threads = int(threads_per_block)
    if whole_warps and (threads % WARP or not WARP <= threads <= MAX_THREADS_PER_BLOCK):
        raise ValueError(f"{name} must be a multiple of {WARP} in [{WARP}, "
                         f"{MAX_THREADS_PER_BLOCK}], got {threads}")
    if not 1 <= threads <= MAX_THREADS_PER_BLOCK:
        raise ValueError(f"{name} must be in [1, {MAX_THREADS_PER_BLOCK}], got {threads}")
    for counts, least in ((positive, 1), (non_negative, 0)):
        for count_name, value in (counts or {}).items():
            _count(value, count_name, least)
    return threads


def check_warp_shared_memory(threads: int, name: str, per_warp: int, bytes_each: int) -> int:
    """Bytes of shared memory a block of ``threads`` needs when each warp keeps
    ``per_warp`` items (the launch argument ``name``) of ``bytes_each`` bytes,
    checked against :data:`SHARED_MEMORY_DEFAULT`; the error says the largest
    ``name`` that fits."""
    threads, per_warp = int(threads), int(per_warp)  # NumPy small ints would wrap
    shared_bytes = threads // WARP * per_warp * bytes_each
    if shared_bytes > SHARED_MEMORY_DEFAULT:
        most = SHARED_MEMORY_DEFAULT // (threads // WARP * bytes_each)
        raise ValueError(f"threads_per_block={threads} with {name}={per_warp} needs "
                         f"{shared_bytes} bytes of shared memory per block, over the "
                         f"{SHARED_MEMORY_DEFAULT} a launch gets; with {threads} threads per "
                         f"block use {name} <= {most}")
    return shared_bytes
