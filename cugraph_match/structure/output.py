"""Output frames, in the caller's frame library and the caller's vertex ids.

pandas frames hold nulls in nullable extension columns (``Int64``,
``Float64``, ...), built straight from a values array and a mask; cuDF
columns hold nulls natively.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .backend import to_backend


def host_or_device(array, frame_lib):
    """An array the frame library can wrap without leaving its device."""
    if frame_lib is pd:
        return to_backend(array, np)
    return array


def nullable(series, frame_lib):
    """pandas needs extension dtypes to hold nulls in int/str columns; cuDF does not."""
    if frame_lib is not pd:
        return series
    kind = series.dtype.kind if isinstance(series.dtype, np.dtype) else None
    if kind in ("i", "u"):
        return series.astype(str(series.dtype).capitalize().replace("Uint", "UInt"))
    if kind == "f":
        return series.astype(str(series.dtype).capitalize())
    if kind == "b":
        return series.astype("boolean")
    return series


def output_weights(weights):
    """Weights as the frames report them: float32 stays, anything else is float64."""
    return weights if weights.dtype == np.float32 else weights.astype(np.float64)


def _masked_pandas(values: np.ndarray, missing: np.ndarray):
    """A nullable pandas column of ``values`` with nulls where ``missing``."""
    if values.dtype.kind in "iu":
        return pd.arrays.IntegerArray(values, missing)
    if values.dtype.kind == "f":
        return pd.arrays.FloatingArray(values, missing)
    if values.dtype.kind == "b":
        return pd.arrays.BooleanArray(values, missing)
    column = pd.Series(values, dtype=object)
    return column.where(~missing)


def take_labels(labels, internal, missing, frame_lib):
    """The caller's ids of ``internal`` ids (an ``xp`` array), null where
    ``missing`` (or nowhere when ``missing`` is None), as a column."""
    if frame_lib is pd:
        internal = to_backend(internal, np)
        if missing is None:
            if not isinstance(labels.dtype, np.dtype):  # Int64, Arrow, string: kept
                return labels.take(internal).reset_index(drop=True)
            return labels.to_numpy()[internal]
        values = labels.to_numpy()
        missing = to_backend(missing, np)
        safe = np.where(missing, 0, internal)
        if isinstance(labels.dtype, np.dtype) and labels.dtype.kind in "biuf":
            return pd.Series(_masked_pandas(values[safe], missing))
        return labels.take(safe).reset_index(drop=True).where(pd.Series(~missing))
    if missing is None:
        return labels.take(internal).reset_index(drop=True)
    safe = internal.copy()
    safe[missing] = 0
    column = labels.take(safe).reset_index(drop=True)
    return column.where(frame_lib.Series(~missing))


def masked_values(values, missing, frame_lib):
    """A numeric column with nulls where ``missing``."""
    if frame_lib is pd:
        return pd.Series(_masked_pandas(to_backend(values, np), to_backend(missing, np)))
    return frame_lib.Series(values).where(frame_lib.Series(~missing))


def new_frame(frame_lib, columns: dict) -> Any:
    """A frame of freshly made columns: pandas takes them as they are (no
    consolidating copy), cuDF as it always does."""
    if frame_lib is pd:
        return pd.DataFrame(columns, copy=False)
    return frame_lib.DataFrame(columns)


def edge_list_frame(frame_lib, src, dst, weight) -> Any:
    """``src | dst | weight`` from arrays already in the caller's ids."""
    return new_frame(frame_lib, {"src": host_or_device(src, frame_lib),
                                 "dst": host_or_device(dst, frame_lib),
                                 "weight": host_or_device(weight, frame_lib)})


def matching_frame(labels, frame_lib, mate, weight) -> Any:
    """``vertex | mate | weight``, one row per vertex; null mate and weight
    where ``mate < 0``.  ``weight`` holds each vertex's matched-edge weight
    (any value where unmatched)."""
    missing = mate < 0
    return new_frame(frame_lib, {
        "vertex": labels,
        "mate": take_labels(labels, mate, missing, frame_lib),
        "weight": masked_values(output_weights(weight), missing, frame_lib),
    })


def pairs_frame(labels, frame_lib, lo, hi, weights) -> Any:
    """``src | dst | weight`` of edges given in internal ids."""
    return new_frame(frame_lib, {
        "src": take_labels(labels, lo, None, frame_lib),
        "dst": take_labels(labels, hi, None, frame_lib),
        "weight": host_or_device(output_weights(weights), frame_lib),
    })


def vertex_frame(labels, frame_lib, column: str, values) -> Any:
    """``vertex | <column>``, one row per vertex."""
    return new_frame(frame_lib, {"vertex": labels, column: host_or_device(values, frame_lib)})


def row_ids(offsets, xp):
    """The row of every CSR entry (CuPy's ``repeat`` takes no array of counts)."""
    if xp is np:
        return np.repeat(np.arange(offsets.shape[0] - 1), np.diff(offsets))
    nnz = int(offsets[-1])
    return xp.searchsorted(offsets, xp.arange(nnz, dtype=offsets.dtype), side="right") - 1
