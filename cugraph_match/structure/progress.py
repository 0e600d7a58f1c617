"""Progress of long runs through the ``cugraph_match`` logger, silent by default.

Long algorithms (Louvain, Leiden, ``coarsen_hierarchy``, ROMA, the Dask
supersteps) log one INFO line per level or phase: what it worked on
(vertices, edges), what it reached (Q or weight) and how long it took.
Nothing is printed unless the application configures logging, or calls
:func:`show_progress` for an interactive session (no extra dependency).

A Numba kernel that has to be compiled (its first call in an environment
without Numba's on-disk cache) makes the caller wait seconds; the first
such compile of each of this package's kernels is announced once at INFO
before the wait (Numba's ``numba:compile`` event fires only on a real
compile, not when a kernel is loaded from the cache).
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time

from .checks import check_flag

LOG = logging.getLogger("cugraph_match")

_HANDLER_NAME = "cugraph_match.show_progress"


def _check_stream(stream) -> None:
    """A text stream: one with a ``write`` that takes str.  A path, a number
    or a binary file was taken, and every later line raised inside logging
    (a "--- Logging error ---" traceback far from this call)."""
    import io

    if isinstance(stream, (str, bytes, os.PathLike)):
        raise TypeError(f"stream must be a text stream (sys.stdout, an open text file, "
                        f"io.StringIO), got the path {stream!r}: open it first, "
                        f"open({stream!r}, 'a')")
    if not callable(getattr(stream, "write", None)):
        raise TypeError(f"stream must be a text stream with a write() method, got "
                        f"{type(stream).__name__}")
    binary = isinstance(stream, (io.RawIOBase, io.BufferedIOBase)) or \
        "b" in str(getattr(stream, "mode", ""))
    if binary:
        raise TypeError(f"stream must be a text stream, got the binary "
                        f"{type(stream).__name__}: wrap it in io.TextIOWrapper or open the "
                        f"file in text mode")


def show_progress(enable: bool = True, stream=None) -> logging.Handler | None:
    """Print the package's progress lines (INFO and above) to ``stream``.

    Attaches one ``logging.StreamHandler`` to the ``cugraph_match`` logger
    (again calling it replaces the earlier one) and sets the logger's level
    to INFO; ``show_progress(False)`` removes it and restores the level.
    Applications with their own logging configuration need not call it:
    the logger is ``logging.getLogger("cugraph_match")``.

    Parameters
    ----------
    enable : bool
        Attach (True) or remove (False) the handler.
    stream : text stream, optional
        Where the lines go (anything with a ``write`` taking str); standard
        error by default.  A path, a number or a binary file is a TypeError.

    Returns
    -------
    logging.Handler or None
        The handler attached, or None when removed.

    Examples
    --------
    >>> import io, cugraph_match as cm
    >>> out = io.StringIO()
    >>> _ = cm.show_progress(stream=out)
    >>> _ = cm.louvain(cm.datasets.load("karate"), backend="cpu")
    >>> "louvain level 0" in out.getvalue()
    True
    >>> cm.show_progress(False)
    """
    enable = check_flag(enable, "enable")  # show_progress("no") attached the handler
    if enable and stream is not None:
        _check_stream(stream)
    for handler in list(LOG.handlers):
        if handler.get_name() == _HANDLER_NAME:
            LOG.removeHandler(handler)
            if hasattr(handler, "previous_level"):
                LOG.setLevel(handler.previous_level)
    if not enable:
        return None
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.set_name(_HANDLER_NAME)
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s: %(message)s", "%H:%M:%S"))
    handler.previous_level = LOG.level
    LOG.addHandler(handler)
    LOG.setLevel(logging.INFO)
    return handler


class Stopwatch:
    """Seconds since it was started or last read (``lap``); ``spent`` also
    gives the starting thread's CPU seconds."""

    def __init__(self):
        self.start = time.perf_counter()
        self.cpu_start = time.thread_time()

    def spent(self) -> dict:
        """Since the start, without restarting: ``seconds`` (wall, which counts
        the time the process waits for a core: 8 Dask workers on 2 cores) and
        ``cpu_seconds`` (this thread's own; call it from the thread that
        started the watch)."""
        return {"seconds": time.perf_counter() - self.start,
                "cpu_seconds": time.thread_time() - self.cpu_start}

    def lap(self) -> float:
        now = time.perf_counter()
        seconds, self.start = now - self.start, now
        return seconds


def progress_enabled() -> bool:
    """Whether progress lines would be shown (skip computing figures otherwise)."""
    return LOG.isEnabledFor(logging.INFO)


def log_step(what: str, index: int | None, vertices: int, edges: int, seconds: float,
             **figures) -> None:
    """One INFO line for a level or phase: ``what index: n vertices, m edges, ..., s``
    (``what`` names the algorithm and the step, e.g. ``"leiden level"``; no
    index for a step that happens once)."""
    if not LOG.isEnabledFor(logging.INFO):
        return
    extra = "".join(f", {name.replace('_', ' ')} {_figure(value)}"
                    for name, value in figures.items())
    step = what if index is None else f"{what} {index}"
    LOG.info("%s: %s vertices, %s edges%s, %.3f s", step, f"{vertices:,}", f"{edges:,}", extra,
             seconds)


def _figure(value) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


# --------------------------------------------------------------------------
# first compiles
# --------------------------------------------------------------------------

_announced: set = set()
_depth = threading.local()


def _kernel_name(dispatcher) -> str | None:
    """``module.function`` of one of this package's kernels, else None."""
    function = getattr(dispatcher, "py_func", None)
    module = getattr(function, "__module__", "") or ""
    if not module.startswith("cugraph_match."):
        return None
    return f"{module.removeprefix('cugraph_match.')}.{function.__name__}"


def _install_compile_listener() -> None:
    try:
        from numba.core import event
    except ImportError:  # pragma: no cover - numba is a base dependency
        return

    class _CompileAnnouncer(event.Listener):
        """Says, before the wait, that a kernel of ours is being compiled."""

        def on_start(self, ev):
            depth = getattr(_depth, "value", 0)
            _depth.value = depth + 1
            name = _kernel_name((ev.data or {}).get("dispatcher"))
            if name is None or name in _announced:
                return
            first = not _announced
            _announced.add(name)
            # a kernel compiled inside another one's compile is part of that wait
            level = logging.INFO if depth == 0 else logging.DEBUG
            if first:
                LOG.log(level, "compiling %s: Numba compiles each kernel on its first use "
                        "(seconds each), then loads it from its on-disk cache", name)
            else:
                LOG.log(level, "compiling %s", name)

        def on_end(self, ev):
            _depth.value = max(getattr(_depth, "value", 1) - 1, 0)

    event.register("numba:compile", _CompileAnnouncer())


_install_compile_listener()
