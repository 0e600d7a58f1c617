"""``structure.backend.numba_threads``: the Numba threads of a block, shared by
the NetworkX backend's ``threads`` option and the Dask workers' tasks."""

import threading

import numba
import pytest

from cugraph_match.structure.backend import numba_threads

LIMIT = numba.config.NUMBA_NUM_THREADS


@pytest.mark.parametrize("asked, used", [(1, 1), (0, 1), (-3, 1), (10**6, LIMIT),
                                         (LIMIT, LIMIT)])
def test_threads_are_kept_between_one_and_numbas_limit(asked, used):
    before = numba.get_num_threads()
    with numba_threads(asked):
        assert numba.get_num_threads() == used
    assert numba.get_num_threads() == before


def test_none_leaves_the_setting():
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        with numba_threads(None):
            assert numba.get_num_threads() == 1
        assert numba.get_num_threads() == 1
    finally:
        numba.set_num_threads(before)


def test_setting_restored_when_the_block_raises():
    before = numba.get_num_threads()
    with pytest.raises(RuntimeError, match="inside"):
        with numba_threads(1):
            raise RuntimeError("inside")
    assert numba.get_num_threads() == before


def test_another_threads_setting_is_not_touched():
    """Numba's setting is the calling thread's: a block in another thread
    leaves this one's alone."""
    seen = []

    def other():
        with numba_threads(1):
            seen.append(numba.get_num_threads())

    before = numba.get_num_threads()
    worker = threading.Thread(target=other)
    worker.start()
    worker.join()
    assert seen == [1]
    assert numba.get_num_threads() == before
