"""The client's batches of rounds, shared by both layouts of the matchings.

A distributed run is a chain of rounds the client submits without waiting
(each round's tasks depend on the previous round's); it reads each round's
counts as the round ends and stops after the first round that changes
nothing.  The rounds already submitted past that one still run on the
workers (the workers are ahead of the client), so every batch is a bet:
too small and the workers wait for the client between batches, too large
and the idle rounds after the end cost their tasks (the vertex layout's
superstep is p + p + p(p - 1) tasks, the edge layout's round three times
p + p(p - 1) and p more for its counts).
"""

from __future__ import annotations

import math

#: Rounds submitted at once before the client looks at their counts; the
#: batch at most doubles, up to :data:`MAX_BATCH`, while the counts keep
#: falling slowly or not at all (:func:`next_batch`).
FIRST_BATCH = 4
MAX_BATCH = 32
#: A batch's rounds send each worker the others' whole steps, instead of a
#: block task per pair of workers, when the last round read sent at most
#: this many bytes per worker (the blocks it needed).  A block task costs
#: the workers' event loops about 0.8-0.9 ms of CPU (dask_round_tasks.py on
#: the 2-core VM: 7 edge-layout rounds at p = 4 took 0.70-0.71 s with the
#: 252 block tasks and 0.47-0.51 s without; 0.84-0.86 and 0.73-0.77 s with
#: 1 MB steps sent whole), so p(p - 1) of them a round outweigh the p - 1
#: copies of a step this small; rounds only get smaller towards the end.
#: Before any round is read, a batch sends blocks unless the layout bounds
#: its messages (the vertex layout, from its cut edges); ``math.inf`` sends
#: every round whole, the first batch's too, and 0 none but the batches
#: after a round that moved nothing (the benchmarks' A/B, ``dask_ab.py``).
WHOLE_STEP_BYTES = 1 << 20


def next_batch(counts: list[int], batch: int, cap: int = MAX_BATCH) -> int:
    """How many rounds to submit next, from the counts of every round so far
    (the last ``batch`` of them the batch just read): messages for the vertex
    layout's supersteps, activations for the edge layout's rounds.  The run
    ends after the first round that counts none.

    Doubling alone overshot the end by up to a whole batch: at R-MAT 20 on
    4 workers the vertex layout's run ends in its 13th round, and the third
    batch (16 rounds) ran 15 idle supersteps.  When the counts fell over the
    last batch, the next one is the rounds they need to fall below one at
    the batch's geometric rate, plus the round that counts none (the counts
    fall faster near the end, so this overestimates rather than stalls);
    the doubling, up to ``cap``, stays the limit."""
    doubled = min(2 * batch, cap)
    recent = counts[-batch - 1:] if len(counts) > batch else counts
    first, last = recent[0], recent[-1]
    if len(recent) < 2 or last <= 0 or last >= first:
        return doubled
    rate = (last / first) ** (1.0 / (len(recent) - 1))
    to_go = math.log(last) / -math.log(rate)
    return max(1, min(doubled, math.ceil(to_go) + 1))
