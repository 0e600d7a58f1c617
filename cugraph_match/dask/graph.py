"""The distributed graph: a Dask edge list split by vertex across workers.

Each worker owns a range of the caller's vertex ids (chosen from a sample
of endpoints so that the ranges hold about equal numbers of edge ends) and
keeps, in its own process, the rows of its vertices with the ghost ends of
its cut edges (:class:`~cugraph_match.dask.worker.LocalPart`).  The build
reads every input partition where it lies:

1. a summary per partition: validation counts and first bad rows (the
   single-machine checks, so the errors are the same), a sample of ids;
2. every row sent to the owners of its ends (one shuffle, worker to
   worker);
3. on each worker, the single-machine pipeline on its rows: renumbering
   in sorted id order, the undirected edge set (duplicates keep the
   largest weight, self-loops apart), preference rows; then its cut edges
   sorted, so that two workers name a shared cut edge by one index.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import uuid
import weakref
from typing import Any

import numpy as np
import pandas as pd

from ..structure.edges import sum_safe_exponent
from ..structure.inputs import DEFAULT_WEIGHT, from_dataframe, frame_library
from ..structure.validation import EMPTY_MESSAGE, WEIGHT_CHECKS, problem_error
from . import build as b
from . import build_gpu as bg
from . import worker as w
from .threads import requested_host_builds

log = logging.getLogger("cugraph_match.dask")

#: Endpoint ids sampled per input partition to place the owners' ranges.
SAMPLE_PER_PARTITION = 4096
#: The build's tasks read a worker's input partitions in groups (a summary,
#: a route and, per owner, a take and an absorb per group), each at most a
#: GROUPS_PER_WORKER-th of a worker's share of the rows (:func:`holder_groups`).
#: One group per worker: on the grid (2048^2, 4 partitions per worker) the
#: workers' CPU fell by 8, 6 and 20% from four groups at 2, 4 and 8 workers
#: (the event loops' cost of the tasks and transfers; alternating calls on
#: one cluster, README *Many partitions*); a piece in flight is then a p-th
#: of a worker's share, not a 4p-th, and the largest worker's peak did not
#: rise (within 3%, there and on R-MAT 20 in this layout).
GROUPS_PER_WORKER = 1
#: Seconds a wait on the workers runs before it checks that they are all
#: still there (a task pinned to a worker that left would wait forever).
WATCH_SECONDS = 2.0


def is_dask_input(obj: Any) -> bool:
    """A Dask (or Dask-cuDF) collection, or a :class:`DistributedGraph`."""
    if isinstance(obj, DistributedGraph):
        return True
    return type(obj).__module__.startswith(("dask.", "dask_cudf")) and \
        hasattr(obj, "__dask_graph__")


def _client(client):
    if client is not None:
        return client
    try:
        from distributed import get_client
    except ImportError as err:  # pragma: no cover - dask without distributed
        raise ImportError("a Dask input needs dask.distributed: pip install "
                          "'cugraph_match[dask]'") from err
    try:
        return get_client()
    except ValueError as err:
        raise ValueError("a Dask input needs a dask.distributed Client: create one "
                         "(Client(LocalCluster()), or LocalCUDACluster for GPU workers) "
                         "before calling") from err


def partition_futures(client, frame) -> list:
    """Futures of the frame's partitions, in partition order, on the workers."""
    from distributed import futures_of

    persisted = client.persist(frame)
    futures = futures_of(persisted)
    if all(isinstance(f.key, tuple) and len(f.key) == 2 for f in futures) and \
            len({f.key[0] for f in futures}) == 1:
        futures = sorted(futures, key=lambda f: f.key[1])
    if len(futures) != frame.npartitions:  # pragma: no cover - an unusual collection
        futures = client.compute(frame.to_delayed())
    return futures


class DistributedGraph:
    """An undirected graph split by vertex across the workers of a Dask cluster.

    Built once from a Dask (or Dask-cuDF) edge list with the single-machine
    semantics and checks (:class:`cugraph_match.Graph`), and kept on the
    workers: pass it to :func:`~cugraph_match.suitor_matching`,
    :func:`~cugraph_match.locally_dominant_matching`,
    :func:`~cugraph_match.b_suitor_matching` or
    :func:`~cugraph_match.modularity` in place of the edge list to reuse it.

    Parameters
    ----------
    edges : dask.dataframe.DataFrame
        Edge list with pandas or cuDF partitions.
    source, destination, weight : str
        Column names, as for a single-machine frame.
    client : distributed.Client, optional
        Defaults to the current client.
    backend : {"auto", "cpu", "gpu"}
        Where each worker builds and keeps its part: ``"gpu"`` on the
        worker's GPU (one per worker, as ``dask_cuda.LocalCUDACluster`` gives;
        pandas partitions are copied there), ``"auto"`` there when the
        partitions are cuDF and every worker's GPU works, ``"cpu"`` in host
        memory.  Integer ids with numeric weights only: other ids are built on
        the host whatever ``backend`` says.  A graph kept on the GPUs serves
        the matchings (their supersteps run there); Louvain, Leiden and
        ``modularity`` on Dask run CPU kernels on a copy of each part in its
        worker's host memory, made on first use.

    Attributes
    ----------
    workers : list[str]
        Worker addresses; worker ``k`` owns the ``k``-th range of ids.
    stats : dict
        The build's figures: rows read, vertices, edges, cut edges, bytes
        moved, and per worker the vertices owned and the bytes its part holds.

    Examples
    --------
    >>> import pandas as pd, dask.dataframe as dd, cugraph_match as cm
    >>> from distributed import Client, LocalCluster
    >>> client = Client(LocalCluster(n_workers=2, processes=True))  # doctest: +SKIP
    >>> edges = dd.from_pandas(pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3],
    ...                                      "weight": [1.0, 3.0, 1.0]}), npartitions=2)
    >>> g = cm.dask.DistributedGraph(edges)  # doctest: +SKIP
    >>> cm.suitor_matching(g).compute()["mate"].tolist()  # doctest: +SKIP
    [<NA>, 2, 1, <NA>]
    """

    #: Whole rows the partitions' summaries sample, spread over them (none:
    #: the vertex layout reads ids only; the layout choice of
    #: :mod:`.edge_split` reads rows).
    ROW_SAMPLE = 0

    def __init__(self, edges: Any, source: str = "src", destination: str = "dst",
                 weight: str | None = DEFAULT_WEIGHT, client=None, backend: str = "auto"):
        if backend not in ("auto", "cpu", "gpu"):
            raise ValueError(f"backend must be 'auto', 'cpu' or 'gpu', got {backend!r}")
        meta = getattr(edges, "_meta", None)
        if meta is None or not hasattr(meta, "columns"):
            raise TypeError(f"expected a Dask DataFrame edge list, got {type(edges).__name__}")
        self._start(meta, source, destination, weight, client, backend=backend)
        self._built_or_freed(partition_futures(self.client, edges), meta)

    @classmethod
    def of_summed_pieces(cls, pieces: list, client) -> "DistributedGraph":
        """A coarse level's graph from futures of pandas ``src | dst | weight``
        frames (int64 ids, float64 weights) held on the workers, whose
        parallel edges (and self-loops of one vertex) *add* their weights
        rather than keep the largest.  The pieces go straight to their rows'
        owners, with no shuffle of the frames first; ``pieces`` is emptied,
        so that each frame is freed once its rows are taken."""
        graph = cls.__new__(cls)
        meta = pd.DataFrame({"src": pd.Series([], dtype=np.int64),
                             "dst": pd.Series([], dtype=np.int64),
                             "weight": pd.Series([], dtype=np.float64)})
        graph._start(meta, "src", "dst", "weight", client, summed=True)
        # the weights are sums of a level already in the community sums' scale
        # (its ``weight_exponent`` applied): rescaling them again would give
        # this level another scale than the level-0 total every level uses
        graph._weight_exponent = 0
        graph._built_or_freed(pieces, meta)
        return graph

    def _start(self, meta, source, destination, weight, client, summed: bool = False,
               backend: str = "cpu") -> None:
        found = from_dataframe(meta, source, destination, weight)  # the column errors
        if found is None:
            raise TypeError("a Dask edge list needs pandas or cuDF partitions, got "
                            f"{type(meta).__module__}.{type(meta).__name__}")
        self._given_client = _client(client)
        self._scheduler = getattr(getattr(self._given_client, "scheduler", None), "address",
                                  None)
        # one algorithm at a time on this graph: a run's state (capacities,
        # slots, a partition's codes, the results waiting to be read) lives
        # in each worker's part, one per graph (see exclusive)
        self._lock = threading.RLock()
        self._just_built = False
        self.summed = summed
        self.source, self.destination, self.weight = source, destination, found.weight
        self.weighted = found.weight is not None
        self.device_frames = frame_library(meta) is not pd
        self.backend = backend
        self.on_gpu = False  # the parts built and kept on the workers' GPUs
        self._gpu_states: list | None = None
        self._weight_exponent: int | None = None
        self._released = False
        self.id_example: pd.Series | None = None  # one label, the graph's id type
        # numeric ids whose labels end up as Python ints (int64 beside uint64
        # above 2**63, as one machine makes them): the result's object
        # columns hold those ints, which Dask must not turn into strings
        self._numeric_ids = numeric_ids(meta, source, destination)
        # client.nthreads() lists every worker (scheduler_info() may list a few)
        self.workers = sorted(self.client.nthreads())
        self.gid = f"cugraph-match-{uuid.uuid4().hex}"
        self._what = f"vertex ids in {source!r}/{destination!r}"
        # registered before the build, so that a failed build frees the
        # parts already built on other workers
        self._finalizer = weakref.finalize(self, _drop_parts, self._given_client,
                                           list(self.workers),
                                           self.gid, self._scheduler)

    def _built_or_freed(self, parts: list, meta) -> None:
        """The build of ``parts`` (futures of the input's partitions, in order;
        the list is emptied), or the parts built so far freed if it fails."""
        try:
            self._build(parts, meta)
        except BaseException:
            self._finalizer()
            raise
        self._just_built = True  # its parts were gathered: the first call needs no check

    @property
    def client(self):
        """The graph's client while it is open, else the open one of the same
        scheduler (a caller who closed it and opened another on the cluster)."""
        return _live_client(self._given_client, self._scheduler) or self._given_client

    @contextlib.contextmanager
    def exclusive(self):
        """Run one algorithm on this graph: calls from several threads take
        turns (two runs at once overwrote each other's state in the parts:
        wrong matchings, another partition's Q), and a graph whose workers
        or parts are gone raises here instead of waiting for them forever.
        Hold it until the results' futures are done (:meth:`wait`)."""
        with self._lock:
            if self._just_built:
                self._just_built = False
            else:
                self.require_parts()
            yield self

    def require_parts(self) -> None:
        """A RuntimeError naming the first worker that left the cluster, or
        that no longer holds its part (a worker restarted at its address)."""
        self._refuse_released()
        self._require_workers()
        held = self.gather([self.client.submit(w.holds_part, w.part_key(self.gid, k),
                                               workers=[a], pure=False)
                            for k, a in enumerate(self.workers)])
        if not all(held):
            k = held.index(False)
            raise RuntimeError(self._lost(k, "no longer holds it (it restarted)"))

    def _refuse_released(self) -> None:
        if self._released:
            raise ValueError("this DistributedGraph was released (DistributedGraph.release() "
                             "freed its parts on the workers): build a new one from the edge "
                             "list")

    def _require_workers(self) -> None:
        alive = set(self.client.nthreads())
        gone = [k for k, address in enumerate(self.workers) if address not in alive]
        if gone:
            raise RuntimeError(self._lost(gone[0], "has left the cluster (restarted, killed "
                                                   "or removed)"))

    def _lost(self, k: int, what: str) -> str:
        return (f"DistributedGraph: worker {self.workers[k]}, which held part {k} of "
                f"{len(self.workers)}, {what}: the part is lost; build the graph again "
                f"from the edge list")

    def wait(self, futures: list) -> None:
        """Wait for ``futures`` (tasks on this graph's workers), checking every
        :data:`WATCH_SECONDS` that the workers are still there: a task pinned
        to a worker that left waits forever, so that becomes a RuntimeError."""
        from distributed import wait

        while True:
            try:
                # distributed.wait runs on the default client: this graph's
                # may be another (``client=``, not set as default)
                with self.client.as_current():
                    wait(futures, timeout=WATCH_SECONDS)
                return
            except TimeoutError:
                self._require_workers()

    def gather(self, futures: list) -> list:
        """``client.gather(futures)`` after :meth:`wait`."""
        self.wait(futures)
        return self.client.gather(futures)

    def release(self) -> None:
        """Free the parts on the workers now, not when the graph is collected
        (an algorithm done with a level's graph frees it before the next one
        is built); the graph cannot be used afterwards."""
        self._released = True
        if self._finalizer.alive:
            # through the graph's client, or the open one of its scheduler when
            # the caller closed it; if none is open this raises and the
            # finalizer stays, to free the parts when the graph is collected
            client = self.client
            client.gather([client.submit(w.drop_part, w.part_key(self.gid, k),
                                         workers=[address], pure=False)
                           for k, address in enumerate(self.workers)])
            self._finalizer.detach()

    # -- the build ----------------------------------------------------------

    def summarize(self, parts: list, meta) -> tuple[list, Any]:
        """Every partition's summary where it lies, checked as one machine
        checks the whole frame (the first problem raised), and the owners'
        ranges (``self.boundaries``) from the summaries' id samples; returns
        the summaries and the common id dtype (None: the columns' own)."""
        client = self.client
        rows_each = -(-self.ROW_SAMPLE // max(len(parts), 1)) if self.ROW_SAMPLE else 0
        # a task per group of partitions one worker holds, not per partition
        # (the holders kept for the build, which reads the same partitions)
        self.part_holders = self._holders(parts)
        groups = holder_groups(self.part_holders, [1] * len(parts),
                               len(parts) / (GROUPS_PER_WORKER * len(self.workers)))
        grouped = client.gather([
            client.submit(w.summarize_partitions, [i for i, _ in group], self.source,
                          self.destination, self.weight, SAMPLE_PER_PARTITION, rows_each,
                          *[parts[i] for i, _ in group], pure=False,
                          **self._where(group[0][1]))
            for group in groups])
        summaries: list = [None] * len(parts)
        for group, made in zip(groups, grouped):
            for (i, _), summary in zip(group, made):
                summaries[i] = summary
        self._check(summaries)
        id_dtype = self._id_dtype(meta, summaries)
        self.boundaries = _boundaries(summaries, len(self.workers), id_dtype)
        return summaries, id_dtype

    def _holders(self, parts: list) -> list:
        """The worker holding each partition (None: not known), once every
        partition is made."""
        from distributed import wait

        wait(parts)
        held = self.client.who_has(parts)
        return [next(iter(sorted(held.get(part.key, ()))), None) for part in parts]

    @staticmethod
    def _where(holder) -> dict:
        """``client.submit``'s placement of a task reading partitions that
        ``holder`` holds (None: the scheduler's choice)."""
        return {"workers": [holder], "allow_other_workers": True} if holder is not None else {}

    def _build(self, parts: list, meta) -> None:
        client, p = self.client, len(self.workers)
        builds_per_host = requested_host_builds()  # checked before any partition is read
        summaries, id_dtype = self.summarize(parts, meta)
        self.on_gpu = device = self._builds_on_gpu(meta, id_dtype)
        steps = bg if device else b  # where the rows are routed, taken and kept
        # on the host, 8-byte ids within 2**32 of the smallest travel as
        # uint32 offsets from it (build.offset_base)
        narrowed = {} if device else {"id_base": b.offset_base(
            [s["bounds"] for s in summaries if s.get("bounds")],
            id_dtype if id_dtype is not None else meta[self.source].dtype)}
        # the partitions each worker holds, in groups of at most a
        # GROUPS_PER_WORKER-th of a worker's share of the rows: a route and,
        # per owner, a take and an absorb per group
        groups = holder_groups(self.part_holders, [s["rows"] for s in summaries],
                               sum(s["rows"] for s in summaries) / (GROUPS_PER_WORKER * p))
        routes = [client.submit(b.route_group, steps.route_partition, self.source,
                                self.destination, self.boundaries, p, id_dtype,
                                *[parts[i] for i, _ in group], pure=False,
                                **self._where(group[0][1]))
                  for group in groups]
        # worker k takes its rows from the groups one after another (each
        # take waits for k's previous absorb), starting at its own offset so
        # that the p chains read different groups at once
        absorbs: list[list] = [[] for _ in range(p)]
        taken_from: list[list] = [[] for _ in range(p)]
        for k, address in enumerate(self.workers):
            key, after = w.part_key(self.gid, k), None
            for j in range(len(groups)):
                g = (k * len(groups) // p + j) % len(groups)
                group = groups[g]
                piece = client.submit(b.take_group, steps.take_piece, routes[g], k,
                                      self.source, self.destination, self.weight, id_dtype,
                                      after, *[parts[i] for i, _ in group], pure=False,
                                      **narrowed, **self._where(group[0][1]))
                after = client.submit(b.absorb_pieces, key, piece, after, workers=[address],
                                      pure=False)
                absorbs[k].append(after)
                taken_from[k].append(group[0][1])
                del piece
        builds = [client.submit(w.build_part, w.part_key(self.gid, k), k, p, self.boundaries,
                                self.weighted, self.device_frames, self._what, self.summed,
                                device, absorbs[k][-1], builds_per_host=builds_per_host,
                                workers=[address], pure=False)
                  for k, address in enumerate(self.workers)]
        # dropped before the builds end, so that the workers free each piece
        # once it is absorbed and each route once its rows are taken (the
        # caller's list too: it is this one)
        parts.clear()
        del routes
        try:
            sizes = self.gather(absorbs)
            infos = self.gather(builds)
        except BaseException:
            # let every build end before the parts are dropped (a drop
            # arriving first would leave its part behind); a worker that
            # left never ends its build, and the others' are dropped
            try:
                self.wait(builds)
            except RuntimeError:
                pass
            client.run(b.drop_staged_all, self.gid)
            raise
        # a piece moved when it was taken on another worker than its owner's
        moved = sum(size["bytes"] for k in range(p) for size, source in
                    zip(sizes[k], taken_from[k]) if source != self.workers[k])
        del builds, absorbs
        self.parts = infos
        examples = [i["example"] for i in infos if len(i["example"])]
        self.id_example = examples[0] if examples else None
        self.offsets = np.concatenate([[0], np.cumsum([i["owned"] for i in infos])])
        cut_edges = sum(sum(i["cut"]) for i in infos) // 2
        rows = sum(s["rows"] for s in summaries)
        row_bytes = sum(s.get("bytes", 0) for s in summaries) / max(rows, 1)
        self.stats = {
            "rows": rows, "workers": p, "device": "gpu" if device else "cpu",
            "vertices": int(self.offsets[-1]),
            # a worker's rows hold its inner edges twice and its cut edges once
            "edges": sum(i["entries"] for i in infos) // 2,
            "cut_edges": cut_edges, "cut_edge_bytes": int(cut_edges * row_bytes),
            "build_bytes_moved": int(moved),
            "owned": [i["owned"] for i in infos], "part_bytes": [i["nbytes"] for i in infos],
            "local_vertices": [i["local"] for i in infos],
            "row_entries": [i["entries"] for i in infos],
            "cut_per_worker": [sum(i["cut"]) for i in infos],
            "weight_table_bytes": [i["table"] for i in infos],
            "phases": [i["phases"] for i in infos],
            "slot_wait_seconds": [i["slot_wait_seconds"] for i in infos],
        }
        log.info("cugraph_match.dask: built %s vertices, %s edges on %s workers' %ss "
                 "(%s cut edges, %s bytes moved)", self.stats["vertices"], self.stats["edges"],
                 p, self.stats["device"].upper(), cut_edges, moved)

    def gpu_states(self) -> list[dict]:
        """Each worker's GPU: usable for real (``real``), able to run the
        kernels (``kernels``: a real GPU or Numba's simulator), and why not
        (``reason``); asked once per graph."""
        if self._gpu_states is None:
            self._gpu_states = self.client.gather([
                self.client.submit(w.gpu_state, workers=[a], pure=False) for a in self.workers])
        return self._gpu_states

    def require_gpus(self) -> None:
        """A ``RuntimeError`` naming the first worker that cannot run the GPU
        kernels, and why."""
        for address, state in zip(self.workers, self.gpu_states()):
            if not state["kernels"]:
                raise RuntimeError(
                    f"backend='gpu' needs a usable CUDA GPU on every Dask worker (compute "
                    f"capability 7.0 or newer, CuPy and numba-cuda); worker {address}: "
                    f"{state['reason']}. Use backend='cpu' or 'auto'.")

    def _builds_on_gpu(self, meta, id_dtype) -> bool:
        """Whether the parts are built on the workers' GPUs (see ``backend``):
        integer ids with numeric weights, and ``"gpu"``, or ``"auto"`` with cuDF
        partitions and a working GPU on every worker."""
        if self.summed or self.backend == "cpu" or \
                (self.backend == "auto" and not self.device_frames):
            return False
        if self.backend == "gpu":
            self.require_gpus()
        elif not all(state["real"] for state in self.gpu_states()):
            return False
        plain_numbers = all(
            isinstance(meta[c].dtype, np.dtype) and meta[c].dtype.kind in "iu"
            for c in (self.source, self.destination)) and \
            (id_dtype is None or id_dtype.kind in "iu") and \
            (self.weight is None or (isinstance(meta[self.weight].dtype, np.dtype) and
                                     meta[self.weight].dtype.kind in "iuf"))
        if not plain_numbers:
            log.info("cugraph_match.dask: ids other than plain integers (or weights other "
                     "than plain numbers) are renumbered on the host; the parts are built "
                     "there")
        return plain_numbers

    def _check(self, summaries) -> None:
        """The single-machine validation over all partitions: the first check
        (in the single-machine order) with bad rows anywhere is raised with
        the total count and the first bad row of the first partition holding one."""
        if sum(s["rows"] for s in summaries) == 0:
            raise ValueError(EMPTY_MESSAGE)
        order = [("null_id", self.source), ("null_id", self.destination)]
        if self.weight is not None:
            order += [(kind, self.weight) for kind in WEIGHT_CHECKS]
        for kind, column in order:
            hits = [problem for s in summaries for problem in s["problems"]
                    if problem[0] == kind and problem[1] == column]
            if hits:
                raise problem_error(kind, column, sum(h[2] for h in hits), hits[0][3])
        types = {}
        for s in summaries:
            for name, value in s.get("types", {}).items():
                types.setdefault(name, value)
        if len(types) > 1:
            kind = pd.api.types.infer_dtype(pd.Series(list(types.values()), dtype=object))
            if kind in ("mixed", "mixed-integer"):
                raise TypeError(f"{self._what} cannot be ordered (mixed types: "
                                f"{sorted(types)}); give every id the same type")

    def _id_dtype(self, meta, summaries):
        """One integer dtype for both id columns when theirs differ, chosen as
        the single-machine renumbering does (``renumber.common_integer_ids``)."""
        dtypes = [meta[self.source].dtype, meta[self.destination].dtype]
        if not all(isinstance(d, np.dtype) and d.kind in "iu" for d in dtypes):
            return None
        if dtypes[0] == dtypes[1]:
            return None
        common = np.result_type(*dtypes)
        if common.kind != "f":
            return common
        bounds = [s["bounds"] for s in summaries if s.get("bounds")]
        highs = [b[c][1] for b in bounds for c in (0, 1) if dtypes[c].kind == "u"]
        lows = [b[c][0] for b in bounds for c in (0, 1) if dtypes[c].kind == "i"]
        if all(h <= np.iinfo(np.int64).max for h in highs):
            return np.dtype(np.int64)
        if all(lo >= 0 for lo in lows):
            return np.dtype(np.uint64)
        return np.dtype(object)

    # -- what it is ---------------------------------------------------------

    @property
    def num_vertices(self) -> int:
        return self.stats["vertices"]

    @property
    def num_edges(self) -> int:
        return self.stats["edges"]

    @property
    def released(self) -> bool:
        """Whether :meth:`release` freed the parts (the graph cannot be used)."""
        return self._released

    def __repr__(self) -> str:
        kind = "weighted" if self.weighted else "unweighted"
        state = ", released" if self._released else ""
        return (f"DistributedGraph({self.num_vertices} vertices, {self.num_edges} edges, "
                f"{kind}, {len(self.workers)} workers, {self.stats['cut_edges']} cut edges"
                f"{state})")

    def submit(self, k: int, function, *args):
        """Run ``function(key, *args)`` on worker k, where its part lives
        (``key``: the part's key in ``worker.PARTS``)."""
        self._refuse_released()
        return self.client.submit(function, w.part_key(self.gid, k), *args,
                                  workers=[self.workers[k]], pure=False)

    def on_all(self, function, *args) -> list:
        """``function(key, *args)`` on every worker; the results in worker order."""
        return self.gather([self.submit(k, function, *args) for k in range(len(self.workers))])

    def weight_exponent(self) -> int:
        """The power of two the community sums divide every weight by, so that
        sums and products of degrees neither overflow nor underflow (weights
        near 1e308 or 1e-308): ``structure.edges.sum_safe_exponent`` of the
        largest weight over the workers, 0 inside the safe range."""
        if self._weight_exponent is None:
            self._weight_exponent = sum_safe_exponent(max(self.on_all(w.largest_weight)))
        return self._weight_exponent

    def peak_memory(self, reset: bool = False) -> list[int]:
        """Each worker process's peak resident bytes (``reset`` starts a new peak)."""
        return [self.client.submit(w.peak_rss_bytes, reset, workers=[a], pure=False).result()
                for a in self.workers]

    def frame(self, futures: list, counts: list[int], numeric: bool | None = None):
        """A Dask DataFrame over per-worker result futures holding ``counts`` rows,
        indexed 0..total-1 in worker order (so divisions are known).
        ``numeric``: whether the caller's ids were numbers (default: this
        graph's; a caller whose frames hold other ids than the graph's says)."""
        import dask
        import dask.dataframe as dd

        client = self.client
        meta = client.submit(_empty_like, futures[0], pure=False).result()
        keep = [i for i, c in enumerate(counts) if c] or [0]
        starts = np.concatenate([[0], np.cumsum(counts)])
        total = int(starts[-1])
        divisions = [int(starts[i]) for i in keep] + [max(total - 1, 0)] if total else None
        # Dask's ``dataframe.convert-string`` makes object columns strings:
        # right for string ids, wrong for the Python ints of numeric ones
        numeric = self._numeric_ids if numeric is None else numeric
        strings = {"dataframe.convert-string": False} if numeric else {}
        with dask.config.set(strings):
            return dd.from_delayed([futures[i] for i in keep], meta=meta,
                                   divisions=divisions, verify_meta=False)


def numeric_ids(meta, source: str, destination: str) -> bool:
    """Whether both id columns of a frame's ``meta`` hold numbers (not bools)."""
    return all(pd.api.types.is_numeric_dtype(meta[c].dtype) and
               not pd.api.types.is_bool_dtype(meta[c].dtype) for c in (source, destination))


def holder_groups(holders: list, sizes: list, budget: float) -> list[list[tuple]]:
    """The partitions in groups that one task each reads where they lie:
    ``(index, holder)`` pairs of the partitions one worker holds, in
    partition order, each group up to ``budget`` in ``sizes`` (a partition
    larger than that alone); a partition whose holder is unknown (None) is
    a group of its own.  The groups come in the order of their first
    partitions.

    A task per partition cost a frame of many small partitions more than its
    rows: Dask's event loops pay about a millisecond per task and transfer,
    and the vertex layout's build ran a take and an absorb per partition
    and owner (measured, a 2048² grid on 4 workers: 10.6 CPU s in 256
    partitions against 3.5 in 16)."""
    groups: list[list[tuple]] = []
    open_group: dict = {}  # holder -> (its group, the group's size so far)
    for i, (holder, size) in enumerate(zip(holders, sizes)):
        current = open_group.get(holder) if holder is not None else None
        if current is not None and current[1] + size <= budget:
            current[0].append((i, holder))
            open_group[holder] = (current[0], current[1] + size)
            continue
        group = [(i, holder)]
        groups.append(group)
        if holder is not None:
            open_group[holder] = (group, size)
    return groups


def _empty_like(frame):
    return frame.iloc[:0]


def _live_client(client, scheduler: str | None):
    """``client`` while it is open, else the current client when it talks to
    the same ``scheduler`` (a caller who closed the graph's client and opened
    another on the cluster), else None."""
    if client.status == "running":
        return client
    try:
        from distributed import default_client

        other = default_client()
    except (ImportError, ValueError):
        return None
    address = getattr(getattr(other, "scheduler", None), "address", None)
    return other if scheduler is not None and address == scheduler else None


def _drop_parts(client, workers, gid, scheduler: str | None = None) -> None:
    """Free a graph's parts on its workers (when the DistributedGraph is
    collected), through its client or the open one of its scheduler."""
    try:
        client = _live_client(client, scheduler)
        if client is not None:
            from distributed import fire_and_forget

            # nobody keeps these futures: without fire_and_forget the scheduler
            # may forget the tasks before they run
            fire_and_forget([client.submit(w.drop_part, w.part_key(gid, k), workers=[address],
                                           pure=False) for k, address in enumerate(workers)])
    except Exception:  # pragma: no cover - the cluster is gone already
        pass


def _boundaries(summaries, workers: int, id_dtype):
    """``workers - 1`` ids splitting the sampled endpoints into ranges of
    about equal weight (each sample stands for rows/sample-size edge ends)."""
    if workers == 1:
        return None
    samples = [s["sample"] for s in summaries if len(s.get("sample", ()))]
    weights = np.concatenate([np.full(len(s["sample"]), 2.0 * s["rows"] / len(s["sample"]))
                              for s in summaries if len(s.get("sample", ()))])
    values = pd.concat(samples, ignore_index=True)
    if id_dtype is not None:
        values = values.astype(id_dtype)
    values = values.to_numpy()
    order = np.argsort(values, kind="stable")
    cumulative = np.cumsum(weights[order])
    targets = cumulative[-1] * np.arange(1, workers) / workers
    at = np.minimum(np.searchsorted(cumulative, targets, side="left"), len(order) - 1)
    return values[order[at]]
