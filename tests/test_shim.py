"""The warp-intrinsic shim for Numba's CUDA simulator, tested against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.cudasim


# The simulator swaps the module-global name `cuda` for its fake module,
# so the kernels must live at module level.
from numba import cuda, int64, uint32  # noqa: E402


@cuda.jit
def butterfly_sum(values, out):
    i = cuda.grid(1)
    v = values[i]
    offset = 16
    while offset > 0:
        v += cuda.shfl_xor_sync(0xFFFFFFFF, v, offset)
        offset //= 2
    out[i] = v

@cuda.jit
def broadcast_and_shift(values, from_lane3, up, down):
    i = cuda.grid(1)
    v = values[i]
    from_lane3[i] = cuda.shfl_sync(0xFFFFFFFF, v, 3)
    up[i] = cuda.shfl_up_sync(0xFFFFFFFF, v, 1)
    down[i] = cuda.shfl_down_sync(0xFFFFFFFF, v, 2)

@cuda.jit
def compact_positive(values, out, counts):
    # ballot + popc prefix sum: warp w writes its positive values, in
    # lane order, to out[w * 32 ...]
    i = cuda.grid(1)
    lane = cuda.laneid
    keep = values[i] > 0
    bits = cuda.ballot_sync(0xFFFFFFFF, keep)
    if keep:
        out[(i // 32) * 32 + cuda.popc(bits & uint32((1 << lane) - 1))] = values[i]
    cuda.syncwarp()
    if lane == 0:
        counts[i // 32] = cuda.popc(bits)

@cuda.jit
def partial_mask(values):
    cuda.shfl_sync(0x0000FFFF, values[cuda.grid(1)], 0)


def test_butterfly_reduction_gives_every_lane_the_sum():
    values = np.arange(64, dtype=np.int64) * 3 - 50
    out = np.zeros_like(values)
    butterfly_sum[1, 64](values, out)
    expected = np.repeat(values.reshape(2, 32).sum(axis=1), 32)
    np.testing.assert_array_equal(out, expected)


def test_shfl_broadcast_up_down():
    values = np.arange(100, 164, dtype=np.int64)
    lane3, up, down = (np.zeros_like(values) for _ in range(3))
    broadcast_and_shift[2, 32](values, lane3, up, down)
    warps = values.reshape(2, 32)
    np.testing.assert_array_equal(lane3, np.repeat(warps[:, 3], 32))
    exp_up = warps.copy()
    exp_up[:, 1:] = warps[:, :-1]  # lane 0 keeps its own value
    np.testing.assert_array_equal(up, exp_up.ravel())
    exp_down = warps.copy()
    exp_down[:, :-2] = warps[:, 2:]  # the last two lanes keep theirs
    np.testing.assert_array_equal(down, exp_down.ravel())


def test_ballot_prefix_sum_compaction():
    rng = np.random.default_rng(3)
    values = rng.integers(-5, 5, size=96)
    out = np.zeros(96, dtype=values.dtype)
    counts = np.zeros(3, dtype=np.int64)
    compact_positive[1, 96](values, out, counts)
    for w in range(3):
        kept = values[w * 32:(w + 1) * 32]
        kept = kept[kept > 0]
        assert counts[w] == len(kept)
        np.testing.assert_array_equal(out[w * 32:w * 32 + len(kept)], kept)


def test_partial_mask_is_refused():
    with pytest.raises(NotImplementedError, match="partial-warp mask"):
        partial_mask[1, 32](np.zeros(32, dtype=np.int64))


class _TwoArgumentError(Exception):
    """An exception the simulator cannot rebuild as ``type(e)(message)``."""

    def __init__(self, code, detail):
        super().__init__(f"{code}: {detail}")


@cuda.jit
def add_without_a_loop(words, out):
    # str + int64 arrays have no NumPy loop: _UFuncNoLoopError(ufunc, dtypes),
    # whose constructor takes two arguments (the simulator runs the kernel
    # body as Python, so array arithmetic reaches NumPy's ufuncs)
    i = cuda.grid(1)
    out[i] = np.add(np.full(1, "x"), np.full(1, words[i]))[0]


@cuda.jit
def raise_two_argument_error(out):
    if cuda.grid(1) == 5:
        raise _TwoArgumentError(7, "lane five")
    out[cuda.grid(1)] = 1


def test_a_ufunc_without_a_loop_fails_the_launch():
    # the unpatched simulator swallowed this and returned `out` untouched
    with pytest.raises(RuntimeError, match="UFuncTypeError: ufunc 'add' did not contain a loop"):
        add_without_a_loop[1, 4](np.ones(4, dtype=np.int64), np.zeros(4, dtype=np.int64))


def test_an_exception_the_simulator_cannot_rebuild_fails_the_launch():
    expected = r"tid=\[5, 0, 0\].*_TwoArgumentError.*lane five"
    with pytest.raises(RuntimeError, match=expected) as info:
        raise_two_argument_error[1, 8](np.zeros(8, dtype=np.int64))
    assert isinstance(info.value.__cause__, _TwoArgumentError)


def test_ordinary_kernel_exceptions_keep_their_type():
    with pytest.raises(IndexError, match=r"tid=\[\d+, 0, 0\]"):
        butterfly_sum[1, 32](np.zeros(16, dtype=np.int64), np.zeros(32, dtype=np.int64))


@cuda.jit
def block_sum_through_shared(values, out):
    # every thread adds its value into one shared array, element by element;
    # thread 0 writes the block's sum after the barrier
    tile = cuda.shared.array(256, np.int64)
    t = cuda.threadIdx.x
    tile[t] = values[cuda.grid(1)]
    cuda.syncthreads()
    if t == 0:
        total = 0
        for j in range(cuda.blockDim.x):
            total += tile[j]
        out[cuda.blockIdx.x] = total
    cuda.syncthreads()


def test_every_thread_of_a_block_gets_the_same_shared_array():
    """The simulator allocated a block's shared array on first use without a
    lock, so two threads arriving together could each get one (the shim
    allocates under a lock); and the shim's block runner releases a
    barrier only once every live thread has reached it."""
    values = np.arange(4 * 256, dtype=np.int64)
    for _ in range(5):
        out = np.zeros(4, dtype=np.int64)
        block_sum_through_shared[4, 256](values, out)
        assert out.tolist() == values.reshape(4, 256).sum(axis=1).tolist()


@cuda.jit
def fail_while_the_block_waits(out, failing):
    # one thread raises while the others wait in a barrier (and a warp primitive)
    t = cuda.threadIdx.x
    if t == failing:
        raise ValueError("thread gives up")
    cuda.syncthreads()
    out[t] = cuda.shfl_sync(0xFFFFFFFF, t, 0)


@cuda.jit
def coordinates(out):
    x, y = cuda.threadIdx.x, cuda.threadIdx.y
    row = cuda.blockIdx.x * cuda.blockDim.x * cuda.blockDim.y + y * cuda.blockDim.x + x
    out[row, 0] = cuda.blockIdx.x
    out[row, 1] = x
    out[row, 2] = y


def test_threads_serve_block_after_block_and_survive_a_failed_launch():
    """The shim hands a launch's blocks to pooled Python threads; a failed
    launch must not leave a thread of the pool stuck in a barrier or seen
    by the next launch, and every reused thread must take its new
    coordinates (a 2-D block after 1-D ones)."""
    for failing in (0, 17, 63):
        with pytest.raises(ValueError, match=rf"tid=\[{failing}, 0, 0\].*thread gives up"):
            fail_while_the_block_waits[1, 64](np.zeros(64, dtype=np.int64), failing)
        out = np.full((3 * 32, 3), -1, dtype=np.int64)
        coordinates[3, (8, 4)](out)
        expected = [(b, x, y) for b in range(3) for y in range(4) for x in range(8)]
        assert [tuple(r) for r in out.tolist()] == expected


@cuda.jit
def ballot_widened(first_free, counts, lowest):
    # every lane idle but the first ``first_free[0]``: the ballot covers lane 31
    lane = cuda.threadIdx.x % 32
    bits = cuda.ballot_sync(0xFFFFFFFF, lane >= first_free[0])
    wide = int64(bits)  # as the marriage kernels once did: sign-extended
    masked = int64(bits) & int64(0xFFFFFFFF)
    if lane == 0:
        counts[0] = cuda.popc(bits)
        counts[1] = cuda.popc(wide)
        counts[2] = cuda.popc(masked)
        lowest[0] = cuda.ffs(bits)
        lowest[1] = cuda.ffs(wide)
        lowest[2] = cuda.ffs(int64(0))


def test_ballot_is_signed_as_on_hardware():
    """Numba types ``ballot_sync`` as int32 on hardware: a widened ballot with
    lane 31 set has its high word filled (a lent H100 showed it),
    and ``popc``/``ffs`` read bit patterns at the value's width."""
    counts = np.zeros(3, dtype=np.int64)
    lowest = np.zeros(3, dtype=np.int64)
    ballot_widened[1, 32](np.array([5]), counts, lowest)
    assert counts.tolist() == [27, 27 + 32, 27]
    assert lowest.tolist() == [6, 6, 0]
