"""The edge layout's ``build_part`` with NumPy's huge-page advice off while it
runs, for ``benchmarks/dask_ab.py --setting functions`` (a measure of
2026-11-30, not kept in the library: see the README's *The benchmark's
warm-up*).  NumPy asks the kernel for transparent huge pages on arrays of
4 MB and more; its private switch turns that off for the process."""
from numpy._core.multiarray import _set_madvise_hugepage

import cugraph_match.dask.edge_split_worker as es


def build_part(*args, **kwargs):
    own = es._dask_ab_own["build_part"]  # the checkout's, kept by dask_ab.use_functions
    previous = _set_madvise_hugepage(False)
    try:
        return own(*args, **kwargs)
    finally:
        _set_madvise_hugepage(previous)
