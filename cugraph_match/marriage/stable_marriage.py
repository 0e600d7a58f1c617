"""Stable marriage (proposer-optimal) by McVitie-Wilson or Gale-Shapley, and
the blocking-pair check."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from ..structure.backend import resolve_backend
from ..structure.checks import check_launch, plain, require_unique_columns
from ..structure.inputs import frame_library
from ..structure.output import row_ids
from ..structure.sort_xp import bincount_xp, lexsort_xp
from .preferences import (ACCEPTOR, PROPOSER, RANK, Layout, capacities, distinct_columns,
                          master_layout, mate_frame, mates_from_held, pair_frame,
                          prepare_preferences)

ALGORITHMS = ("mcvitie_wilson", "gale_shapley")


def _check_algorithm(algorithm: str) -> None:
    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm must be 'mcvitie_wilson' or 'gale_shapley', got {algorithm!r}")


def run_proposals(layout: Layout, backend, algorithm: str = "mcvitie_wilson", max_level: int = 0,
                  threads_per_block: int = 128, solo_entries: int = 4):
    """Run the proposal algorithm on a layout; return ``(held, nxt)`` on the backend.

    ``held[a]``: acceptor ``a``'s suitor as her position of him (plus
    ``LEVEL_BIAS`` at level 0 when ``max_level`` is 1), ``SENTINEL`` when
    single.  ``nxt[u]``: how many entries of his list ``u`` considered
    (twice the list covers both levels): the same for every algorithm and
    backend, since each proposer considers exactly the acceptors down to
    his final partner.
    """
    _check_algorithm(algorithm)
    if backend.name == "gpu":
        from .stable_marriage_gpu import propose_gpu

        return propose_gpu(layout, backend.xp, algorithm, max_level, threads_per_block,
                           solo_entries)
    from . import stable_marriage_cpu as K

    kernel = K.mcvitie_wilson if algorithm == "mcvitie_wilson" else K.gale_shapley
    return kernel(*layout.args(), layout.n_proposers, layout.n_acceptors, max_level)


def stable_marriage(proposer_prefs: Any, acceptor_prefs: Any, algorithm: str = "mcvitie_wilson",
                    proposer: str = PROPOSER, acceptor: str = ACCEPTOR, rank: str = RANK,
                    backend: str = "auto", threads_per_block: int = 128,
                    solo_entries: int = 4) -> Any:
    """The proposer-optimal stable matching of two preference frames.

    Every proposer proposes down his list; an acceptor keeps the best
    proposal she has had and rejects the rest; a proposer never proposes to
    an acceptor who already holds a better one.  Both algorithms, and every
    backend, return the same pairs: the proposer-optimal stable matching,
    which is unique.

    Parameters
    ----------
    proposer_prefs : cudf.DataFrame or pandas.DataFrame
        One row per entry of a proposer's list: columns ``proposer``,
        ``acceptor``, ``rank``.
    acceptor_prefs : cudf.DataFrame or pandas.DataFrame
        One row per entry of an acceptor's list: ``acceptor``, ``proposer``,
        ``rank``.  Same frame library as ``proposer_prefs``.
    algorithm : {"mcvitie_wilson", "gale_shapley"}
        McVitie-Wilson (a displaced proposer proposes again at once; on the
        GPU a lock-free persistent kernel) or Gale-Shapley (free proposers
        wait in a queue; on the GPU one kernel per round).  Same result.
    proposer, acceptor, rank : str
        Column names.
    backend : {"auto", "gpu", "cpu"}
        ``"auto"`` uses the GPU when one is usable.
    threads_per_block, solo_entries : int
        GPU launch configuration: block size, and how many list entries a
        thread reads alone before its warp scans the list with it.  They
        change the speed, never the result.

    Returns
    -------
    DataFrame
        ``proposer | acceptor``: one row per proposer named in either frame,
        in id order; ``acceptor`` is null for a proposer left single.  cuDF
        when the input is cuDF, else pandas.

    Notes
    -----
    Ranks: smaller is better.  Only their order within one person's list
    matters (they need not start at 1 or be consecutive; ints or floats),
    and they must be distinct within a list.  Lists may be incomplete and
    of any length.  A pair counts only when both rank each other:
    non-mutual entries are dropped.  Proposer ids and acceptor ids are two
    separate id spaces (ints or strings).  Naming someone twice in one list,
    or giving two entries of one list the same rank, is a ``ValueError``
    naming the person.

    For instances where every proposer has the same complete list and
    every acceptor too (too large for frames: n² rows), see
    :func:`stable_marriage_master_lists`.

    Examples
    --------
    >>> import pandas as pd
    >>> import cugraph_match as cm
    >>> men = pd.DataFrame({"proposer": ["al", "al", "bo", "bo"],
    ...                     "acceptor": ["x", "y", "x", "y"], "rank": [1, 2, 1, 2]})
    >>> women = pd.DataFrame({"acceptor": ["x", "x", "y", "y"],
    ...                       "proposer": ["al", "bo", "al", "bo"], "rank": [2, 1, 1, 2]})
    >>> cm.stable_marriage(men, women, backend="cpu")
      proposer acceptor
    0       al        y
    1       bo        x
    """
    _check_algorithm(algorithm)
    check_launch(threads_per_block, whole_warps=True, non_negative={"solo_entries": solo_entries})
    prep = prepare_preferences(proposer_prefs, acceptor_prefs, proposer, acceptor, rank, backend)
    layout = prep.layout()
    held, _ = run_proposals(layout, prep.backend, algorithm, 0, threads_per_block, solo_entries)
    return mate_frame(prep, mates_from_held(layout, held, prep.backend.xp))


def stable_marriage_master_lists(proposer_order: Any, acceptor_order: Any,
                                 algorithm: str = "mcvitie_wilson", backend: str = "auto",
                                 threads_per_block: int = 128, solo_entries: int = 0) -> Any:
    """Stable marriage when every proposer shares one list and every acceptor shares one.

    The compact form of instances like the "hard" benchmark family: two
    permutation vectors instead of n² list entries.  The kernels are the
    ones :func:`stable_marriage` runs, reading every proposer's list from
    the same vector.

    Parameters
    ----------
    proposer_order : array of int
        The acceptors ``0..n_a-1``, best first, as every proposer ranks them.
    acceptor_order : array of int
        The proposers ``0..n_p-1``, best first, as every acceptor ranks them.
    algorithm, backend, threads_per_block, solo_entries
        As for :func:`stable_marriage` (by default the warp scans every list
        together: all lists are long).

    Returns
    -------
    array of int64
        ``mate[p]``: proposer ``p``'s acceptor, -1 when single; NumPy for
        the CPU backend, CuPy for the GPU.

    Examples
    --------
    >>> import numpy as np
    >>> import cugraph_match as cm
    >>> cm.stable_marriage_master_lists(np.array([2, 0, 1]), np.array([1, 2, 0]), backend="cpu")
    array([1, 2, 0])
    """
    _check_algorithm(algorithm)
    check_launch(threads_per_block, whole_warps=True, non_negative={"solo_entries": solo_entries})
    be = resolve_backend(backend)
    layout = master_layout(proposer_order, acceptor_order, be.xp)
    held, _ = run_proposals(layout, be, algorithm, 0, threads_per_block, solo_entries)
    return mates_from_held(layout, held, be.xp)


def blocking_pairs(proposer_prefs: Any, acceptor_prefs: Any, pairs: Any,
                   proposer: str = PROPOSER, acceptor: str = ACCEPTOR, rank: str = RANK,
                   proposer_capacity: Any = 1, acceptor_capacity: Any = 1,
                   backend: str = "auto") -> Any:
    """The pairs that block a matching or a capacitated assignment (empty = stable).

    A mutually acceptable pair (p, a) not in ``pairs`` blocks when both
    would rather have each other: p has fewer partners than his capacity
    or prefers a to his worst partner, and a has fewer partners than her
    capacity or prefers p to her worst partner.  With capacities 1 this is
    the usual stable-marriage definition; with others it is the
    many-to-many (pairwise) stability that :func:`b_marriage` guarantees.

    Parameters
    ----------
    proposer_prefs, acceptor_prefs : DataFrame
        The preferences, as for :func:`stable_marriage`.
    pairs : DataFrame
        Columns ``proposer`` and ``acceptor``, one row per matched pair;
        rows with a null acceptor (singles, as :func:`stable_marriage`
        returns them) are ignored.
    proposer, acceptor, rank : str
        Column names, shared by the three frames.
    proposer_capacity, acceptor_capacity : int, Series or DataFrame
        As for :func:`b_marriage`.
    backend : {"auto", "gpu", "cpu"}

    Returns
    -------
    DataFrame
        ``proposer | acceptor`` of every blocking pair, sorted.

    Raises
    ------
    ValueError
        When ``pairs`` is not a valid assignment: a pair not mutually
        acceptable, a pair twice, or someone over capacity.

    Examples
    --------
    >>> import pandas as pd
    >>> import cugraph_match as cm
    >>> men = pd.DataFrame({"proposer": [0, 0, 1, 1], "acceptor": [0, 1, 0, 1],
    ...                     "rank": [1, 2, 1, 2]})
    >>> women = pd.DataFrame({"acceptor": [0, 0, 1, 1], "proposer": [0, 1, 0, 1],
    ...                       "rank": [1, 2, 1, 2]})
    >>> swapped = pd.DataFrame({"proposer": [0, 1], "acceptor": [1, 0]})
    >>> cm.blocking_pairs(men, women, swapped, backend="cpu")
       proposer  acceptor
    0         0         0
    """
    distinct_columns(proposer, acceptor, rank)
    for col in (proposer, acceptor):
        if not hasattr(pairs, "columns") or col not in pairs.columns:
            raise ValueError(f"pairs must be a DataFrame with columns {proposer!r} and "
                             f"{acceptor!r}; got {getattr(pairs, 'columns', type(pairs))!r}")
    if frame_library(pairs) is not frame_library(proposer_prefs):
        raise TypeError("pairs must come from the same frame library as the preferences")
    require_unique_columns(pairs, (proposer, acceptor), "pairs")
    matched = pairs[[proposer, acceptor]]
    null_p = matched[proposer].isna()
    if int(null_p.sum()):
        raise ValueError(f"pairs column {proposer!r} has {int(null_p.sum())} null value(s)")
    matched = matched[~matched[acceptor].isna()]
    # A null acceptor forces an object (or float) column: give the rest the
    # preferences' id dtypes back, where every id survives the cast unchanged
    for col in (proposer, acceptor):
        if col in proposer_prefs.columns and len(proposer_prefs):
            dtype = proposer_prefs[col].dtype
            # categorical ids are renumbered by their values: cast to those
            dtype = getattr(getattr(dtype, "categories", None), "dtype", dtype)
            matched = matched.assign(**{col: _as_dtype_if_exact(matched[col], dtype)})
    prep = prepare_preferences(proposer_prefs, acceptor_prefs, proposer, acceptor, rank, backend,
                               extra_proposers=matched[proposer], extra_acceptors=matched[acceptor])
    xp = prep.backend.xp
    n_a = prep.n_acceptors
    mp, ma = prep.extra_proposers, prep.extra_acceptors

    # Locate every matched pair among the mutual entries (proposer CSR order).
    rows = row_ids(prep.prop_offsets, xp).astype(np.int64)
    entry_keys = rows * n_a + prep.prop_acceptors.astype(np.int64)
    order = xp.argsort(entry_keys)
    sorted_keys = entry_keys[order]
    pair_keys = mp * n_a + ma
    nnz = int(sorted_keys.shape[0])
    if nnz:
        at = xp.minimum(xp.searchsorted(sorted_keys, pair_keys), nnz - 1)
        found = sorted_keys[at] == pair_keys
    else:
        at = xp.zeros(pair_keys.shape[0], dtype=np.int64)
        found = xp.zeros(pair_keys.shape[0], dtype=bool)
    if not bool(found.all()):
        bad = int(xp.argmin(found))
        who = _label(prep.proposer_labels, mp[bad])
        whom = _label(prep.acceptor_labels, ma[bad])
        raise ValueError(f"pairs row {plain(matched.index[bad])!r} ({proposer}={who!r}, "
                         f"{acceptor}={whom!r}) is not a mutually acceptable pair: both must "
                         f"rank each other")
    # after the pairs' check: a pair naming somebody the preferences lack is
    # that error, not a capacity missing for him
    p_cap = capacities(proposer_capacity, prep.proposer_labels, "proposer", proposer,
                       prep.frame_lib, xp, "proposer_capacity")
    a_cap = capacities(acceptor_capacity, prep.acceptor_labels, "acceptor", acceptor,
                       prep.frame_lib, xp, "acceptor_capacity")
    entries = order[at]
    in_m = xp.zeros(nnz, dtype=bool)
    in_m[entries] = True
    if int(in_m.sum()) != int(entries.shape[0]):
        counts = xp.bincount(entries, minlength=nnz)
        e = int(xp.argmax(counts))
        who = _label(prep.proposer_labels, rows[e])
        whom = _label(prep.acceptor_labels, prep.prop_acceptors[e])
        raise ValueError(f"pairs lists the pair ({who!r}, {whom!r}) more than once")
    p_count = bincount_xp(mp, xp, minlength=prep.n_proposers)  # no pair: empty
    a_count = bincount_xp(ma, xp, minlength=n_a)
    for side, count, cap, labels in (("proposer", p_count, p_cap, prep.proposer_labels),
                                     ("acceptor", a_count, a_cap, prep.acceptor_labels)):
        over = count > cap
        if bool(over.any()):
            who = int(xp.argmax(over))
            raise ValueError(f"pairs gives {side} {_label(labels, who)!r} {int(count[who])} "
                             f"partners, over the capacity {int(cap[who])}")

    # Worst partner of every person: the largest position among his/her pairs
    # (proposer: index in his list; acceptor: her position of the proposer).
    p_start = prep.prop_offsets[:-1].astype(np.int64)
    position = xp.arange(nnz, dtype=np.int64) - p_start[rows]
    key = prep.prop_keys.astype(np.int64)
    worst_p = _group_max(rows[in_m], position[in_m], prep.n_proposers, xp)
    worst_a = _group_max(prep.prop_acceptors[in_m].astype(np.int64), key[in_m], n_a, xp)
    a_of = prep.prop_acceptors.astype(np.int64)
    p_wants = (p_count[rows] < p_cap[rows]) | (position < worst_p[rows])
    a_wants = (a_count[a_of] < a_cap[a_of]) | (key < worst_a[a_of])
    blocking = xp.nonzero(~in_m & p_wants & a_wants)[0]
    bp, ba = rows[blocking], a_of[blocking]
    out = lexsort_xp([ba, bp], xp) if blocking.shape[0] else blocking
    return pair_frame(prep, bp[out], ba[out])


def _as_dtype_if_exact(ids, dtype):
    """``ids`` cast to the preferences' id ``dtype`` when every id is the
    same value after it, else as given: a cast that loses anything (0.5 to
    0, '0' to 0, True to 1, -1 to 2**64 - 1) names other people than the
    caller's, and left as they are such ids are not the preferences' (not
    mutually acceptable, or of another type).  Numbers are cast to numbers,
    bools to bools, nothing else."""
    if ids.dtype == dtype:
        return ids
    to_kind = getattr(dtype, "kind", None)
    from_kind = getattr(ids.dtype, "kind", None)
    numeric = to_kind in ("i", "u", "f")
    if from_kind == "O":
        if type(ids).__module__.split(".")[0] != "pandas":
            return ids  # a cuDF object column holds strings
        fits = ids.map(lambda v: isinstance(v, (bool, np.bool_)) if to_kind == "b" else
                       numeric and isinstance(v, numbers.Real)
                       and not isinstance(v, (bool, np.bool_))).astype(bool)
        if not bool(fits.all()):
            return ids
    elif not (numeric and from_kind in ("i", "u", "f")) and not (to_kind == from_kind == "b"):
        return ids
    try:
        if to_kind in ("i", "u") and len(ids):
            info = np.iinfo(getattr(dtype, "numpy_dtype", dtype))
            if not info.min <= int(ids.min()) <= int(ids.max()) <= info.max:  # exact ints
                return ids
        cast = ids.astype(dtype)
        same = cast.astype(ids.dtype) == ids
    except (TypeError, ValueError, OverflowError):
        return ids
    return cast if bool(same.all()) else ids


def _group_max(group, value, n: int, xp):
    """Per group the largest value (-1 for an empty group), with sorts only."""
    out = xp.full(n, -1, dtype=np.int64)
    if group.shape[0]:
        order = lexsort_xp([value, group], xp)
        g, v = group[order], value[order]
        last = xp.ones(g.shape[0], dtype=bool)
        last[:-1] = g[1:] != g[:-1]
        out[g[last]] = v[last]
    return out


def _label(labels, internal) -> Any:
    value = labels.iloc[int(internal)]
    return value.item() if hasattr(value, "item") else value

