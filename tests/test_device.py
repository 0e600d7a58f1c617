"""The GPU probe, its verdicts, and launch arguments checked before any launch."""

from __future__ import annotations

import logging
import sys

import pandas as pd
import pytest

import cugraph_match as cm
from cugraph_match.structure import backend, device

EDGES = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3], "weight": [1.0, 3.0, 1.0]})


@pytest.fixture
def fresh_probe(monkeypatch):
    monkeypatch.delenv("NUMBA_ENABLE_CUDASIM", raising=False)
    device.probe.cache_clear()
    yield
    device.probe.cache_clear()


@pytest.mark.parametrize("module,words", [("cupy", "CuPy is not importable"),
                                          ("numba.cuda", "numba-cuda is not importable")])
def test_missing_library_is_named(fresh_probe, monkeypatch, module, words):
    import types

    if module != "cupy":  # CuPy present (a stand-in): the next check must speak
        monkeypatch.setitem(sys.modules, "cupy", types.ModuleType("cupy"))
        import numba

        monkeypatch.delattr(numba, "cuda", raising=False)  # imported earlier in the session
    monkeypatch.setitem(sys.modules, module, None)  # makes the import fail
    usable, reason = device.probe()
    assert not usable and words in reason and "cugraph_match[gpu]" in reason
    assert not cm.gpu_available()
    with pytest.raises(RuntimeError, match=words):
        backend.resolve_backend("gpu")


@pytest.mark.parametrize("capability,usable", [((6, 1), False), ((7, 0), None)])
def test_pre_volta_devices_are_refused(fresh_probe, monkeypatch, capability, usable):
    # a stand-in driver reporting the capability: below 7.0 the probe must stop
    # there with the reason (the b-Suitor lock needs independent thread
    # scheduling); at 7.0 it must go on to the next check (here CuPy's sum)
    import types

    import numba

    fake_cuda = types.SimpleNamespace(
        is_available=lambda: True,
        get_current_device=lambda: types.SimpleNamespace(compute_capability=capability,
                                                         name=b"stand-in"))
    monkeypatch.setattr(numba, "cuda", fake_cuda, raising=False)
    monkeypatch.setitem(sys.modules, "numba.cuda", fake_cuda)
    monkeypatch.setitem(sys.modules, "cupy", types.ModuleType("cupy"))  # no arange: fails later
    ok, reason = device.probe()
    assert not ok
    if usable is False:
        assert "compute capability 6.1 is below 7.0" in reason
        with pytest.raises(RuntimeError, match="below 7.0"):
            backend.resolve_backend("gpu")
    else:
        assert "below 7.0" not in reason and "CuPy cannot run" in reason


def test_auto_falls_back_and_says_why_at_debug_level(fresh_probe, monkeypatch, caplog):
    monkeypatch.setitem(sys.modules, "cupy", None)
    with caplog.at_level(logging.DEBUG, logger="cugraph_match"):
        assert backend.resolve_backend("auto").name == "cpu"
    assert any("CuPy is not importable" in r.getMessage() for r in caplog.records)
    result = cm.suitor_matching(EDGES)  # "auto" runs, on the CPU
    assert result["mate"].tolist()[1:3] == [2, 1]


def test_probe_runs_once(fresh_probe, monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)
    device.probe()
    device.probe()
    cm.gpu_available()
    info = device.probe.cache_info()
    assert info.misses == 1 and info.hits >= 2


def test_simulator_is_not_a_gpu(fresh_probe, monkeypatch):
    monkeypatch.setenv("NUMBA_ENABLE_CUDASIM", "1")
    usable, reason = device.probe()
    assert not usable and "simulator" in reason


@pytest.mark.parametrize("kwargs,error,words", [
    ({"threads_per_block": "x"}, TypeError, "threads_per_block must be an int, got 'x'"),
    ({"threads_per_block": 48}, ValueError, "multiple of 32 in [32, 1024], got 48"),
    ({"threads_per_block": 2048}, ValueError, "got 2048"),
    ({"vertices_per_warp": 0}, ValueError, "vertices_per_warp must be positive, got 0"),
    ({"vertices_per_warp": 1.5}, TypeError, "vertices_per_warp must be an int"),
    ({"threads_per_block": 1024, "vertices_per_warp": 128}, ValueError,
     "needs 65536 bytes of shared memory per block, over the 49152"),
])
def test_suitor_launch_arguments_are_checked_on_every_backend(kwargs, error, words):
    with pytest.raises(error) as info:
        cm.suitor_matching(EDGES, backend="cpu", **kwargs)
    assert words in str(info.value)


def test_other_launch_arguments_are_checked():
    with pytest.raises(TypeError, match="threads_per_block must be an int"):
        cm.locally_dominant_matching(EDGES, backend="cpu", threads_per_block=None)
    with pytest.raises(ValueError, match=r"threads_per_block must be in \[1, 1024\], got 0"):
        cm.b_suitor_matching(EDGES, b=1, backend="cpu", threads_per_block=0)
    with pytest.raises(ValueError, match="heap_above must be a non-negative int"):
        cm.b_suitor_matching(EDGES, b=1, backend="cpu", heap_above=-1)


def test_launch_turns_out_of_resources_into_a_clear_error():
    class Refusing:
        __name__ = "some_kernel"

        def __getitem__(self, config):
            def call(*args):
                raise RuntimeError("[701] Call to cuLaunchKernel results in "
                                   "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES")
            return call

    with pytest.raises(ValueError, match="cannot run some_kernel with 1024 threads per block"):
        device.launch(Refusing(), 1, 1024, None)
