"""Random stable-marriage instances of Lerring's thesis (UiB) and Manne et al. (CSC 2016).

* ``easy``: ``n`` proposers and ``n`` acceptors; each proposer ranks a
  uniformly random number of acceptors between ``k = floor(log2 n)`` and
  ``2k - 1`` (the thesis's Table 5.1: mean ``1.5k - 0.5`` entries per
  list), drawn uniformly without replacement, in random order; each
  acceptor ranks exactly the proposers who ranked her, in random order.
* ``hard``: every proposer has the same complete random list and every
  acceptor the same complete random list; the proposal algorithms consider
  exactly ``n (n + 1) / 2`` entries.  As frames this is ``n**2`` rows per
  side, so :func:`stable_marriage_instance` builds it for ``n <= 4096``
  only; :func:`stable_marriage_master_lists` gives the same instance as
  its two permutation vectors for any ``n`` (what
  ``cm.stable_marriage_master_lists`` takes).

Everything is drawn from ``numpy.random.default_rng(seed)``: the same seed
gives the same instance.  A seed is any int (a negative one is taken modulo
2**64); anything else raises a TypeError.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from ..structure.checks import check_seed, numpy_seed

HARD_FRAME_LIMIT = 4096


def _check_n(n) -> int:
    if not isinstance(n, numbers.Integral) or isinstance(n, bool) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    return int(n)


def stable_marriage_master_lists(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The "hard" instance as ``(proposer_order, acceptor_order)``.

    ``proposer_order``: the acceptors ``0..n-1`` in the order every
    proposer ranks them (best first); ``acceptor_order``: the proposers in
    the order every acceptor ranks them.  The stable matching pairs
    ``acceptor_order[i]`` with ``proposer_order[i]``.

    Examples
    --------
    >>> from cugraph_match import datasets
    >>> datasets.stable_marriage_master_lists(5, seed=0)
    (array([2, 4, 3, 0, 1]), array([4, 1, 2, 0, 3]))
    """
    n = _check_n(n)
    rng = np.random.default_rng(numpy_seed(check_seed(seed)))
    return rng.permutation(n), rng.permutation(n)


def stable_marriage_instance(n: int, kind: str = "easy", seed: int = 0
                             ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A random instance as ``(proposer_prefs, acceptor_prefs)`` pandas frames.

    Columns ``proposer | acceptor | rank`` and ``acceptor | proposer |
    rank``; ids ``0..n-1`` on each side, ranks ``1, 2, ...`` (1 = best).
    See the module docstring for the two kinds.

    Examples
    --------
    >>> from cugraph_match import datasets
    >>> men, women = datasets.stable_marriage_instance(1000, "easy", seed=0)
    >>> lengths = men.groupby("proposer").size()
    >>> int(lengths.min()) >= 9 and int(lengths.max()) <= 17
    True
    >>> men, women = datasets.stable_marriage_instance(3, "hard", seed=0)
    >>> men.head(3)
       proposer  acceptor  rank
    0         0         2     1
    1         0         0     2
    2         0         1     3
    """
    n = _check_n(n)
    seed = check_seed(seed)
    if kind == "hard":
        if n > HARD_FRAME_LIMIT:
            raise ValueError(f"a hard instance with n={n} has {n * n:,} rows per frame; frames "
                             f"are built up to n={HARD_FRAME_LIMIT}. Use "
                             f"stable_marriage_master_lists(n) with "
                             f"cm.stable_marriage_master_lists instead")
        p_order, a_order = stable_marriage_master_lists(n, seed)
        person = np.repeat(np.arange(n, dtype=np.int64), n)
        rank = np.tile(np.arange(1, n + 1, dtype=np.int64), n)
        return (pd.DataFrame({"proposer": person, "acceptor": np.tile(p_order, n), "rank": rank}),
                pd.DataFrame({"acceptor": person, "proposer": np.tile(a_order, n), "rank": rank}))
    if kind != "easy":
        raise ValueError(f"kind must be 'easy' or 'hard', got {kind!r}")

    rng = np.random.default_rng(numpy_seed(seed))
    k = max(1, int(np.floor(np.log2(n)))) if n > 1 else 1
    lo, hi = min(k, n), min(2 * k - 1, n)
    degree = rng.integers(lo, hi + 1, size=n)
    width = int(degree.max())
    # One row of draws per proposer; redraw repeats until each list is a set.
    # Padding columns get distinct negative values so they never collide.
    draws = rng.integers(0, n, size=(n, width), dtype=np.int64)
    pad = np.arange(width) >= degree[:, None]
    draws[pad] = -1 - np.broadcast_to(np.arange(width), (n, width))[pad]
    while True:
        order = np.argsort(draws, axis=1, kind="stable")
        ranked = np.take_along_axis(draws, order, axis=1)
        repeat = ranked[:, 1:] == ranked[:, :-1]
        if not repeat.any():
            break
        rows, cols = np.nonzero(repeat)
        cols = order[rows, cols + 1]
        draws[rows, cols] = rng.integers(0, n, size=rows.shape[0])
    keep = ~pad
    proposer = np.repeat(np.arange(n, dtype=np.int64), degree)
    acceptor = draws[keep]
    p_rank = np.broadcast_to(np.arange(1, width + 1, dtype=np.int64), (n, width))[keep]

    # Each acceptor ranks her proposers in random order: shuffle, then group stably.
    shuffled = rng.permutation(acceptor.shape[0])
    grouped = shuffled[np.argsort(acceptor[shuffled], kind="stable")]
    a_sorted = acceptor[grouped]
    starts = np.searchsorted(a_sorted, a_sorted, side="left")
    a_rank = np.arange(a_sorted.shape[0], dtype=np.int64) - starts + 1
    return (pd.DataFrame({"proposer": proposer, "acceptor": acceptor, "rank": p_rank}),
            pd.DataFrame({"acceptor": a_sorted, "proposer": proposer[grouped], "rank": a_rank}))
