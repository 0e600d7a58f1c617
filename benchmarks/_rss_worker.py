"""Peak resident memory of one public call, measured in a fresh process.

Started by the benchmark scripts (``_common.rss_measure``) as::

    python benchmarks/_rss_worker.py '<JSON task>'

The task names the input (a graph spec and a variant, or a stable-marriage
instance), the public function and its parameters.  The worker

1. sets the Numba thread count, imports the package and runs the function
   on small inputs of the same kind, so that compilation (or loading the
   Numba cache) and thread-pool start-up are over before measuring;
2. builds the input deterministically (the same frame the parent timed) and
   any extra argument (the partition for ``modularity``, read from an .npz);
3. returns freed heap memory to the kernel (``malloc_trim(0)``), resets the
   peak (``open("/proc/self/clear_refs", "w").write("5")``),
   reads ``VmRSS`` from ``/proc/self/status`` as the baseline, runs the call
   once, and reads ``VmHWM``;
4. prints one JSON line: ``peak_bytes = (VmHWM - baseline)``,
   ``input_bytes = df.memory_usage(deep=True).sum()`` (both frames for the
   marriage functions) and their ratio.

The result of the call is alive when ``VmHWM`` is read, so the peak includes
the returned frame.
"""

from __future__ import annotations

import gc
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def status_kib(field: str) -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


def release_free_heap() -> None:
    """Hand freed malloc memory back to the kernel (``malloc_trim(0)``), so that
    memory the call reuses from earlier frees counts in its peak."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def reset_peak() -> None:
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")


def graph_call(cm, function: str, df, params: dict, parts=None):
    """The public call ``function`` on the frame ``df`` (CPU backend)."""
    if function == "Graph":
        return lambda: cm.Graph(df, backend="cpu")
    if function == "suitor_matching":
        return lambda: cm.suitor_matching(df, backend="cpu")
    if function == "locally_dominant_matching":
        return lambda: cm.locally_dominant_matching(df, backend="cpu")
    if function == "b_suitor_matching":
        return lambda: cm.b_suitor_matching(df, b=int(params["b"]), backend="cpu")
    if function == "maximal_matching":
        return lambda: cm.maximal_matching(df, method="handshake",
                                           weighted=bool(params["weighted"]),
                                           seed=int(params["seed"]), backend="cpu")
    if function == "coarsen_hierarchy":
        return lambda: cm.coarsen_hierarchy(df, backend="cpu")
    if function == "louvain":
        return lambda: cm.louvain(df, backend="cpu", seed=int(params.get("seed", 0)),
                                  refine=bool(params.get("refine", True)))
    if function == "modularity":
        return lambda: cm.modularity(df, parts)
    if function == "leiden":
        return lambda: cm.leiden(df, backend="cpu", seed=int(params.get("seed", 0)))
    raise ValueError(f"unknown graph function {function!r}")


def marriage_call(cm, function: str, pp, ap, params: dict):
    if function == "stable_marriage":
        return lambda: cm.stable_marriage(pp, ap, backend="cpu")
    if function == "b_marriage":
        b = int(params["b"])
        return lambda: cm.b_marriage(pp, ap, proposer_capacity=b, acceptor_capacity=b,
                                     backend="cpu")
    if function == "popular_matching":
        return lambda: cm.popular_matching(pp, ap, backend="cpu")
    raise ValueError(f"unknown marriage function {function!r}")


def toy_partition(df):
    import numpy as np
    import pandas as pd

    ids = np.unique(np.concatenate([df["src"].to_numpy(), df["dst"].to_numpy()]))
    return pd.DataFrame({"vertex": ids, "community": ids % 5})


def main() -> int:
    task = json.loads(sys.argv[1])
    import numba

    numba.set_num_threads(max(1, min(int(task.get("threads", 1)),
                                     numba.config.NUMBA_NUM_THREADS)))
    import numpy as np
    import pandas as pd

    import _common as C
    import cugraph_match as cm

    function, params = task["function"], task.get("params", {})
    extra_bytes = 0
    if "graph" in task:
        for small in C.small_frames(task["variant"]):
            graph_call(cm, function, small, params, toy_partition(small))()
        base, _ = C.load_base(task["graph"])
        df = C.variant_frame(base, task["variant"])
        del base
        parts = None
        if task.get("partition"):
            with np.load(task["partition"]) as data:
                parts = pd.DataFrame({"vertex": data["vertex"], "community": data["community"]})
            extra_bytes = C.frame_bytes(parts)
        call = graph_call(cm, function, df, params, parts)
        input_bytes = C.frame_bytes(df)
    else:
        from cugraph_match.datasets import stable_marriage_instance

        inst = task["marriage"]
        for n in (200, 2000):
            small_pp, small_ap = stable_marriage_instance(n, "easy", seed=1)
            marriage_call(cm, function, small_pp, small_ap, params)()
        pp, ap = stable_marriage_instance(int(inst["n"]), inst["kind"], seed=int(inst["seed"]))
        call = marriage_call(cm, function, pp, ap, params)
        input_bytes = C.frame_bytes(pp) + C.frame_bytes(ap)

    gc.collect()
    release_free_heap()
    reset_peak()
    baseline = status_kib("VmRSS")
    t0 = time.perf_counter()
    result = call()
    call_s = time.perf_counter() - t0
    hwm = status_kib("VmHWM")
    after = status_kib("VmRSS")
    del result
    peak = (hwm - baseline) * 1024
    print(json.dumps({
        "function": function, "params": params,
        "baseline_bytes": baseline * 1024, "hwm_bytes": hwm * 1024,
        "rss_after_call_bytes": after * 1024,
        "peak_bytes": peak, "input_bytes": input_bytes, "extra_input_bytes": extra_bytes,
        "peak_per_input_byte": peak / input_bytes if input_bytes else None,
        "call_s": call_s,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
