"""b-marriage: many-to-many stable assignment with capacities on both sides."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..structure.checks import check_launch
from ..structure.output import row_ids
from ..structure.sort_xp import lexsort_xp
from .preferences import (ACCEPTOR, PROPOSER, RANK, SENTINEL, Layout, capacities, pair_frame,
                          prepare_preferences)
from .stable_marriage import _check_algorithm, run_proposals


def run_b_marriage(layout: Layout, backend, proposer_capacity, acceptor_capacity,
                   algorithm: str = "mcvitie_wilson", threads_per_block: int = 128,
                   solo_entries: int = 4, allow_single_capacity: bool = True):
    """Run b-marriage on a layout; return ``(proposers, acceptors, nxt)`` of the pairs.

    Capacities are int64 arrays on the backend.  When every capacity is 1
    the stable-marriage kernels run instead (one held position per acceptor
    instead of slots: the faster special case) unless
    ``allow_single_capacity`` is False.
    """
    _check_algorithm(algorithm)
    xp = backend.xp
    if allow_single_capacity and bool((proposer_capacity == 1).all()) \
            and bool((acceptor_capacity == 1).all()):
        held, nxt = run_proposals(layout, backend, algorithm, 0, threads_per_block, solo_entries)
        acceptors = xp.nonzero(held != SENTINEL)[0]
        proposers = layout.proposer_at(acceptors, held[acceptors], xp).astype(np.int64)
        return proposers, acceptors.astype(np.int64), nxt

    # Nobody can use more places than the list has entries.
    copies = xp.minimum(proposer_capacity, layout.list_lengths(xp))
    cap = xp.minimum(acceptor_capacity, layout.acceptor_degrees(xp))
    slot_off = xp.zeros(layout.n_acceptors + 1, dtype=np.int64)
    slot_off[1:] = xp.cumsum(cap)
    if backend.name == "gpu":
        from .b_marriage_gpu import b_propose_gpu

        copy_off = xp.zeros(layout.n_proposers + 1, dtype=np.int64)
        copy_off[1:] = xp.cumsum(copies)
        copy_owner = row_ids(copy_off, xp).astype(np.int64)
        slots, nxt = b_propose_gpu(layout, slot_off, cap, copy_owner, xp, threads_per_block,
                                   solo_entries)
        nxt = xp.minimum(nxt, layout.list_lengths(xp))
    else:
        from . import b_marriage_cpu as K

        kernel = K.b_mcvitie_wilson if algorithm == "mcvitie_wilson" else K.b_gale_shapley
        slots, nxt = kernel(*layout.args(), slot_off, cap, copies, layout.n_proposers)
    owner = row_ids(slot_off, xp).astype(np.int64)
    kept = slots != SENTINEL
    acceptors = owner[kept]
    proposers = layout.proposer_at(acceptors, slots[kept], xp).astype(np.int64)
    return proposers, acceptors, nxt


def b_marriage(proposer_prefs: Any, acceptor_prefs: Any, proposer_capacity: Any = 1,
               acceptor_capacity: Any = 1, algorithm: str = "mcvitie_wilson",
               proposer: str = PROPOSER, acceptor: str = ACCEPTOR, rank: str = RANK,
               backend: str = "auto", threads_per_block: int = 128,
               solo_entries: int = 4) -> Any:
    """The proposer-optimal many-to-many stable assignment (b-marriage).

    Each proposer may be assigned up to ``proposer_capacity`` acceptors and
    each acceptor up to ``acceptor_capacity`` proposers.  Proposers propose
    down their lists, every free place of a proposer making its own
    proposals but all of them sharing one pointer into his list (so he never
    proposes to the same acceptor twice); an acceptor keeps her best offers
    up to her capacity and drops her worst when a better one arrives.
    College admissions is ``proposer_capacity=1``.

    The result has no blocking pair in the capacitated sense (see
    :func:`blocking_pairs`) and is the same for every algorithm and
    backend.  With all capacities 1 it is :func:`stable_marriage`.

    Parameters
    ----------
    proposer_prefs, acceptor_prefs : DataFrame
        The preferences, as for :func:`stable_marriage`.
    proposer_capacity, acceptor_capacity : int, Series or DataFrame
        One capacity for everybody on that side, or per person: a Series
        indexed by id, or a frame with the id column (named like the side's
        column, ``proposer`` or ``acceptor``) and a ``capacity`` column.
        Capacities are non-negative integers (0: never assigned); every
        person of the preferences needs one, extra ids are ignored.
    algorithm : {"mcvitie_wilson", "gale_shapley"}
        Order of the proposals on the CPU (same result).  The GPU always
        runs the lock-free McVitie-Wilson-style kernel.
    proposer, acceptor, rank : str
        Column names.
    backend : {"auto", "gpu", "cpu"}
    threads_per_block, solo_entries : int
        GPU launch configuration (speed only).

    Returns
    -------
    DataFrame
        ``proposer | acceptor``, one row per assigned pair, sorted by
        proposer then acceptor.  cuDF when the input is cuDF, else pandas.

    Notes
    -----
    On the GPU an acceptor's kept offers are ``c`` slots updated by a
    lock-free cascade of atomic minima, O(c) atomics per proposal that
    reaches her: meant for small to moderate capacities.  All-ones
    capacities run the stable-marriage kernels.

    Examples
    --------
    >>> import pandas as pd
    >>> import cugraph_match as cm
    >>> students = pd.DataFrame({"proposer": ["s1", "s1", "s2", "s3"],
    ...                          "acceptor": ["uni", "poly", "uni", "uni"],
    ...                          "rank": [1, 2, 1, 1]})
    >>> colleges = pd.DataFrame({"acceptor": ["uni", "uni", "uni", "poly"],
    ...                          "proposer": ["s3", "s1", "s2", "s1"], "rank": [1, 2, 3, 1]})
    >>> cm.b_marriage(students, colleges, acceptor_capacity=2, backend="cpu")
      proposer acceptor
    0       s1      uni
    1       s3      uni
    """
    _check_algorithm(algorithm)
    check_launch(threads_per_block, whole_warps=True, non_negative={"solo_entries": solo_entries})
    prep = prepare_preferences(proposer_prefs, acceptor_prefs, proposer, acceptor, rank, backend)
    xp = prep.backend.xp
    p_cap = capacities(proposer_capacity, prep.proposer_labels, "proposer", proposer,
                       prep.frame_lib, xp, "proposer_capacity")
    a_cap = capacities(acceptor_capacity, prep.acceptor_labels, "acceptor", acceptor,
                       prep.frame_lib, xp, "acceptor_capacity")
    proposers, acceptors, _ = run_b_marriage(prep.layout(), prep.backend, p_cap, a_cap, algorithm,
                                             threads_per_block, solo_entries)
    order = lexsort_xp([acceptors, proposers], xp) if proposers.shape[0] else proposers
    return pair_frame(prep, proposers[order], acceptors[order])
