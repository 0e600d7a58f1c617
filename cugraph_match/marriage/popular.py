"""Maximum-size popular matching by Huang-Kavitha level lifting."""

from __future__ import annotations

from typing import Any

from ..structure.checks import check_launch
from .preferences import (ACCEPTOR, LEVEL_BIAS, PROPOSER, RANK, mate_frame, mates_from_held,
                          prepare_preferences)
from .stable_marriage import _check_algorithm, run_proposals


def popular_matching(proposer_prefs: Any, acceptor_prefs: Any, algorithm: str = "mcvitie_wilson",
                     proposer: str = PROPOSER, acceptor: str = ACCEPTOR, rank: str = RANK,
                     backend: str = "auto", threads_per_block: int = 128,
                     solo_entries: int = 4) -> Any:
    """A maximum-size popular matching (Huang-Kavitha).

    A matching is popular when no other matching is preferred by more
    people than prefer it.  This one is the largest popular matching: it
    trades a little stability for size, and is at least as large as the
    stable matching.

    The proposal algorithm of :func:`stable_marriage` with two levels: a
    proposer rejected by every acceptor of his list is lifted to level 1 and
    goes through his list again; acceptors prefer any level-1 proposer to
    any level-0 one (and, within a level, follow their ranks); a level-1
    proposer rejected everywhere stays single.  Same result for every
    algorithm and backend.

    Parameters
    ----------
    proposer_prefs, acceptor_prefs : DataFrame
        The preferences, as for :func:`stable_marriage`.
    algorithm : {"mcvitie_wilson", "gale_shapley"}
        Order of the proposals (same result).
    proposer, acceptor, rank : str
        Column names.
    backend : {"auto", "gpu", "cpu"}
    threads_per_block, solo_entries : int
        GPU launch configuration (speed only).

    Returns
    -------
    DataFrame
        ``proposer | acceptor``: one row per proposer in id order, null
        acceptor when single.  cuDF when the input is cuDF, else pandas.

    Examples
    --------
    >>> import pandas as pd
    >>> import cugraph_match as cm
    >>> men = pd.DataFrame({"proposer": [1, 1, 2], "acceptor": [10, 20, 10], "rank": [1, 2, 1]})
    >>> women = pd.DataFrame({"acceptor": [10, 10, 20], "proposer": [1, 2, 1], "rank": [1, 2, 1]})
    >>> cm.stable_marriage(men, women, backend="cpu")["acceptor"].tolist()
    [10, <NA>]
    >>> cm.popular_matching(men, women, backend="cpu")["acceptor"].tolist()
    [20, 10]
    """
    _check_algorithm(algorithm)
    check_launch(threads_per_block, whole_warps=True, non_negative={"solo_entries": solo_entries})
    prep = prepare_preferences(proposer_prefs, acceptor_prefs, proposer, acceptor, rank, backend)
    layout = prep.layout()
    held, _ = run_proposals(layout, prep.backend, algorithm, 1, threads_per_block, solo_entries)
    return mate_frame(prep, mates_from_held(layout, held, prep.backend.xp, LEVEL_BIAS))
