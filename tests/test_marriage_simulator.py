"""The stable-marriage family's CUDA kernels in Numba's simulator
(run with NUMBA_ENABLE_CUDASIM=1; skipped in the normal pass).

backend="gpu" then runs the kernels on NumPy arrays, with the sorting
preference builder (the GPU path).  Every result must equal the CPU
backend's pair for pair; the CPU backend is checked against independent
oracles in test_stable_marriage.py.  Small instances only: every simulated
thread is a Python thread, and a block's warps really interleave.
"""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis_profiles import examples
from hypothesis import strategies as st

import cugraph_match as cm
import marriage_oracle as O
from cugraph_match.marriage.b_marriage import run_b_marriage
from cugraph_match.structure.backend import HOST_AS_DEVICE, resolve_backend
from cugraph_match.datasets import stable_marriage_instance, stable_marriage_master_lists
from cugraph_match.marriage.preferences import master_layout, prepare_preferences
from cugraph_match.marriage.stable_marriage import run_proposals

pytestmark = pytest.mark.cudasim

ALGORITHMS = ["mcvitie_wilson", "gale_shapley"]
# (threads_per_block, solo_entries): warp-only scans, one solo entry, the
# default, lanes that scan whole lists alone, several warps per block.
LAUNCHES = [(32, 0), (32, 1), (64, 4), (32, 64), (128, 2)]
SIM = settings(max_examples=examples(10), deadline=None,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def gpu(function, *args, **kw):
    out = function(*args, backend="gpu", **kw)
    assert isinstance(out, pd.DataFrame)
    return out


def test_gpu_backend_is_simulated():
    backend = resolve_backend("gpu")
    assert backend.simulated and backend.xp is HOST_AS_DEVICE


@pytest.mark.parametrize("threads_per_block,solo_entries", LAUNCHES)
@pytest.mark.parametrize("kind,n", [("easy", 48), ("hard", 14)])
def test_stable_marriage_every_launch(kind, n, threads_per_block, solo_entries):
    pp, ap = stable_marriage_instance(n, kind, seed=n + solo_entries)
    expected = cm.stable_marriage(pp, ap, backend="cpu")
    for algorithm in ALGORITHMS:
        got = gpu(cm.stable_marriage, pp, ap, algorithm=algorithm,
                  threads_per_block=threads_per_block, solo_entries=solo_entries)
        assert got.equals(expected), algorithm


@pytest.mark.parametrize("kind,n", [("easy", 40), ("hard", 12)])
def test_proposals_considered_equal_cpu(kind, n):
    """Every proposer considers exactly the acceptors down to his final partner,
    whatever the schedule: the GPU pointers end where the CPU ones do."""
    pp, ap = stable_marriage_instance(n, kind, seed=3)
    cpu = prepare_preferences(pp, ap, backend="cpu")
    sim = prepare_preferences(pp, ap, backend="gpu")
    for a, b in zip((cpu.prop_offsets, cpu.prop_acceptors, cpu.prop_keys, cpu.acc_offsets,
                     cpu.acc_proposers),
                    (sim.prop_offsets, sim.prop_acceptors, sim.prop_keys, sim.acc_offsets,
                     sim.acc_proposers)):
        assert np.array_equal(a, b)
    held_c, nxt_c = run_proposals(cpu.layout(), cpu.backend, "mcvitie_wilson")
    for algorithm in ALGORITHMS:
        for max_level in (0, 1):
            held_c, nxt_c = run_proposals(cpu.layout(), cpu.backend, algorithm, max_level)
            held_g, nxt_g = run_proposals(sim.layout(), sim.backend, algorithm, max_level,
                                          threads_per_block=64, solo_entries=1)
            assert np.array_equal(held_c, held_g) and np.array_equal(nxt_c, nxt_g)


@SIM
@given(case=O.instances(max_people=9))
def test_random_incomplete_instances(case):
    P, A, pp, ap = case
    expected = cm.stable_marriage(pp, ap, backend="cpu")
    assert O.matching_from_frame(expected) == O.gale_shapley(P, A)
    for algorithm in ALGORITHMS:
        assert gpu(cm.stable_marriage, pp, ap, algorithm=algorithm, threads_per_block=32,
                   solo_entries=1).equals(expected)
    assert gpu(cm.popular_matching, pp, ap, threads_per_block=64).equals(
        cm.popular_matching(pp, ap, backend="cpu"))


@pytest.mark.parametrize("n", [1, 5, 24])
@pytest.mark.parametrize("solo_entries", [0, 3])
def test_master_lists(n, solo_entries):
    p_order, a_order = stable_marriage_master_lists(n, seed=n)
    expected = np.empty(n, dtype=np.int64)
    expected[a_order] = p_order
    for algorithm in ALGORITHMS:
        mate = cm.stable_marriage_master_lists(p_order, a_order, algorithm, backend="gpu",
                                               threads_per_block=32, solo_entries=solo_entries)
        assert np.array_equal(mate, expected)
    layout = master_layout(p_order, a_order, np)
    _, nxt = run_proposals(layout, resolve_backend("gpu"), "mcvitie_wilson", solo_entries=0)
    assert int(nxt.sum()) == n * (n + 1) // 2


@pytest.mark.parametrize("threads_per_block,solo_entries", [(32, 0), (64, 4)])
def test_popular_matching(threads_per_block, solo_entries):
    pp, ap = stable_marriage_instance(60, "easy", seed=5)
    expected = cm.popular_matching(pp, ap, backend="cpu")
    assert expected["acceptor"].notna().sum() > cm.stable_marriage(pp, ap, backend="cpu")[
        "acceptor"].notna().sum(), "the instance lifts someone"
    for algorithm in ALGORITHMS:
        assert gpu(cm.popular_matching, pp, ap, algorithm=algorithm,
                   threads_per_block=threads_per_block, solo_entries=solo_entries).equals(expected)


@pytest.mark.parametrize("b_p,b_a", [(1, 2), (2, 1), (3, 3), (2, 5)])
@pytest.mark.parametrize("threads_per_block,solo_entries", [(32, 1), (64, 4)])
def test_b_marriage(b_p, b_a, threads_per_block, solo_entries):
    pp, ap = stable_marriage_instance(40, "easy", seed=b_p * 10 + b_a)
    expected = cm.b_marriage(pp, ap, b_p, b_a, backend="cpu")
    got = gpu(cm.b_marriage, pp, ap, b_p, b_a, threads_per_block=threads_per_block,
              solo_entries=solo_entries)
    assert got.equals(expected)


def test_b_marriage_hard_instance_and_capacity_one_slots():
    pp, ap = stable_marriage_instance(10, "hard", seed=1)
    assert gpu(cm.b_marriage, pp, ap, 2, 3, threads_per_block=64).equals(
        cm.b_marriage(pp, ap, 2, 3, backend="cpu"))
    # capacity 1 through the slot kernel (not the stable-marriage shortcut)
    prep = prepare_preferences(pp, ap, backend="gpu")
    ones_p = np.ones(prep.n_proposers, dtype=np.int64)
    ones_a = np.ones(prep.n_acceptors, dtype=np.int64)
    p, a, _ = run_b_marriage(prep.layout(), prep.backend, ones_p, ones_a,
                             allow_single_capacity=False, threads_per_block=64)
    stable = cm.stable_marriage(pp, ap, backend="cpu")
    assert dict(zip(p.tolist(), a.tolist())) == dict(zip(stable["proposer"], stable["acceptor"]))


@SIM
@given(case=O.instances(max_people=7), seed=st.integers(0, 10**6))
def test_b_marriage_random_capacities(case, seed):
    P, A, pp, ap = case
    rng = random.Random(seed)
    p_cap = pd.Series([rng.randint(0, 3) for _ in P], index=pd.Index(list(P), dtype=object))
    a_cap = pd.Series([rng.randint(0, 3) for _ in A], index=pd.Index(list(A), dtype=object))
    if pp["proposer"].dtype != object:
        p_cap.index = p_cap.index.astype(pp["proposer"].dtype)
    if pp["acceptor"].dtype != object:
        a_cap.index = a_cap.index.astype(pp["acceptor"].dtype)
    expected = cm.b_marriage(pp, ap, p_cap, a_cap, backend="cpu")
    assert O.pairs_from_frame(expected) == O.b_marriage(P, A, p_cap.to_dict(), a_cap.to_dict())
    assert gpu(cm.b_marriage, pp, ap, p_cap, a_cap, threads_per_block=32,
               solo_entries=2).equals(expected)


def test_blocking_pairs_on_the_sorting_path():
    pp, ap = stable_marriage_instance(30, "easy", seed=2)
    result = gpu(cm.stable_marriage, pp, ap)
    assert gpu(cm.blocking_pairs, pp, ap, result).empty
    P, A = O.lists_from_frames(pp, ap)
    swapped = result.copy()
    swapped["acceptor"] = swapped["acceptor"].shift(1)
    swapped = swapped.dropna()
    m = {p: a for p, a in zip(swapped["proposer"], swapped["acceptor"])}
    valid = {(p, a) for p, a in m.items() if (p, a) in set(O.acceptable_pairs(P, A))}
    subset = pd.DataFrame({"proposer": [p for p, _ in sorted(valid)],
                           "acceptor": [a for _, a in sorted(valid)]}).astype("int64")
    got = gpu(cm.blocking_pairs, pp, ap, subset)
    pairs = list(zip(got["proposer"], got["acceptor"]))
    assert pairs and pairs == sorted(pairs)
    assert set(pairs) == set(O.blocking_pairs(P, A, valid))
