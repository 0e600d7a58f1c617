"""Binary min-heaps of uint64 offer words kept in a slice of one array
(``slots[base:base + size]``), for numba code: the offers a vertex holds in
b-Suitor (``matching/b_suitor_cpu.py``) and in the distributed supersteps
(``dask/kernels.py``).  The weakest held offer is the root: O(1) to test,
O(log b) to replace.
"""

from numba import njit


@njit(cache=True, nogil=True, inline="always")
def heap_push(slots, base, size, word):
    """Add ``word`` to the min-heap ``slots[base:base + size]`` (one free slot
    after it), sifting it up."""
    i = size
    while i > 0:
        parent = (i - 1) >> 1
        if slots[base + parent] <= word:
            break
        slots[base + i] = slots[base + parent]
        i = parent
    slots[base + i] = word


@njit(cache=True, nogil=True, inline="always")
def heap_replace_root(slots, base, size, word):
    """Replace the root (the smallest word) of the full min-heap
    ``slots[base:base + size]`` with ``word``, sifting it down."""
    i = 0
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and slots[base + child + 1] < slots[base + child]:
            child += 1
        if slots[base + child] >= word:
            break
        slots[base + i] = slots[base + child]
        i = child
    slots[base + i] = word
