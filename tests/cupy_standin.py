"""A strict CuPy stand-in for the tests: NumPy underneath, CuPy's refusals on top.

The simulator pass runs the CUDA kernels in Numba's simulator, and until this
stand-in it ran the host Python around them on plain NumPy
(``backend.HOST_AS_DEVICE``), which accepts everything CuPy refuses.  This
module is a ``cupy`` (and ``cupyx``) that keeps its data in NumPy arrays but
behaves, where the package's GPU path touches it, as CuPy does, so that the
GPU host code (the input pipeline, Louvain's host loop, ROMA's host side,
b-Suitor, the handshake, coarsening, the marriage family) can be exercised
without a GPU.  :func:`installed` puts it in ``sys.modules`` and behind
``backend="gpu"`` in the simulator.

What it refuses, each as the CuPy release the package supports first
(``cupy-cuda13x>=13.6`` in pyproject.toml; CuPy 13.6.0's sources, cited by
file) refuses it:

* **Scatter dtypes** (``cupy/_core/_routines_indexing.pyx``,
  ``_scatter_op_single``): ``cupyx.scatter_add`` / ``ufunc.at`` with an
  integer index array only into int32, uint32, uint64, float16, float32 and
  float64 arrays; ``scatter_max`` / ``scatter_min`` only int32, uint32,
  uint64, float32, float64 (the value is cast to the target's dtype first,
  so the *target* decides).  CuPy 14.1 added int64; 13.6 raises TypeError.
* **Implicit device -> host conversion** (``cupy/_core/core.pyx``,
  ``__array__``): ``np.asarray(x)``, ``pd.Series(x)``, a NumPy function
  with no CuPy twin, a Numba CPU function, all raise TypeError; ``.get()``,
  ``cupy.asnumpy``, ``.item()``, ``.tolist()`` are the explicit ways.
  ``int(x)``, ``float(x)``, ``bool(x)`` work on one-element arrays (CuPy
  copies the element back); there is no ``__index__``, so a device scalar
  cannot be a shape, a ``range`` bound or a list index.  Reductions and
  scalar indexing return 0-d device arrays, as in CuPy.
* **NumPy arrays inside device operations** (``cupy/_core/_kernel.pyx``,
  ``_preprocess_arg``): a NumPy array as an operand of an elementwise
  operation or ufunc raises TypeError, in either order (``np_a + x`` goes
  through ``__array_ufunc__``); ``concatenate`` takes only device arrays;
  ``searchsorted`` takes device arrays for both ``a`` and ``v``
  (NotImplementedError).  A NumPy array or list *as an index* is allowed
  (CuPy copies it over), but assigning one through basic indexing
  (``x[1:] = np_a``) is refused (``fill``'s "non-scalar numpy.ndarray").
* **Sorting** (``cupy/_sorting/sort.py``, ``_core/_routines_sorting.pyx``):
  ``cupy.argsort``/``cupy.sort`` take ``kind`` None or "stable" only; the
  methods ``x.sort()``/``x.argsort()`` take no ``kind`` at all in 13.6; an
  in-place sort of a non-contiguous view raises NotImplementedError.
* **bincount** (``cupy/_statistics/histogram.py``): float input TypeError,
  negative ValueError, and an *empty* input ValueError in 13.6 (its size
  comes from ``cupy.max`` of the input; 14.0 and 14.1 still, 14.2 returns zeros).
* **Advanced-index assignment with repeated indices** stores "undefined"
  values in CuPy (``core.pyx``, ``__setitem__`` note); NumPy keeps the
  last.  The stand-in raises when a repeated index receives different
  values (repeats of one value are deterministic and allowed).
* Dtypes CuPy has no arrays of (``cupy/_core/core.pyx``, ``array``: object,
  strings, datetimes, longdouble); a byte-swapped NumPy array is copied over
  in native order, as CuPy does.

Stricter than CuPy, on purpose: a NumPy array passed where CuPy would quietly
hand a NumPy result back (``cupy.argsort(np_a)``, ``cupy.flatnonzero``,
reductions) is refused, since a host array on the device path is a bug either
way; ``searchsorted`` refuses a mix of signed and unsigned integer dtypes
(CuPy's kernel compares them in C++, where -1 > 0u; NumPy promotes).

Kernels (:func:`installed` with the simulator on): ``numba.cuda.as_cuda_array``
reads the stand-in's ``__cuda_array_interface__`` and hands the simulator the
NumPy buffer itself, so the kernels write where the host code reads;
``numba.cuda.external_stream`` returns a stream object (the simulator has
none); every launch must be on CuPy's current stream and must not be given a
host NumPy array (Numba would copy it to the device and back around the
launch, synchronously).

What it cannot show: anything about timing, memory, streams beyond the
launch's stream argument, CuPy's wrap-around of out-of-bounds indices
(NumPy raises, which is stricter), and CuPy behaviour outside what is listed
above (an unmodelled ``cupy.X`` raises AttributeError so that it gets
modelled rather than passed through).
"""

from __future__ import annotations

import collections
import contextlib
import functools
import itertools
import operator
import sys
import types
import warnings

import numpy as np

MODELLED_CUPY = "13.6.0"

# cupy/_core/_routines_indexing.pyx (v13.6.0), _scatter_op_single
SCATTER_DTYPES = {
    "add": frozenset(map(np.dtype, ("int32", "uint32", "uint64", "float16", "float32",
                                    "float64"))),
    "max": frozenset(map(np.dtype, ("int32", "uint32", "uint64", "float32", "float64"))),
    "min": frozenset(map(np.dtype, ("int32", "uint32", "uint64", "float32", "float64"))),
    "sub": frozenset(map(np.dtype, ("int32", "uint32"))),
    "and": frozenset(map(np.dtype, ("int32", "int64", "uint32", "uint64"))),
    "or": frozenset(map(np.dtype, ("int32", "int64", "uint32", "uint64"))),
    "xor": frozenset(map(np.dtype, ("int32", "int64", "uint32", "uint64"))),
}
_SCATTER_NAMES = {"add": "cupy.add.at", "max": "cupy.maximum.at", "min": "cupy.minimum.at",
                  "sub": "cupy.subtract.at", "and": "cupy.bitwise_and.at",
                  "or": "cupy.bitwise_or.at", "xor": "cupy.bitwise_xor.at"}
_UFUNC_SCATTER = {"add": "add", "maximum": "max", "minimum": "min", "subtract": "sub",
                  "bitwise_and": "and", "bitwise_or": "or", "bitwise_xor": "xor"}

IMPLICIT_CONVERSION = ("Implicit conversion to a NumPy array is not allowed. "
                       "Please use `.get()` to construct a NumPy array explicitly.")


def _unsupported(value) -> TypeError:
    return TypeError(f"Unsupported type {type(value)} (cupy stand-in: a NumPy array inside "
                     f"a device operation; move it with cupy.asarray first)")


# the dtype characters CuPy has arrays of (cupy/_core/_dtype.pyx, all_type_chars)
CUPY_DTYPE_CHARS = "?bhilqBHILQefdFD"


def _check_dtype(dtype) -> np.dtype:
    dtype = np.dtype(dtype)
    if dtype.char not in CUPY_DTYPE_CHARS:  # objects, strings, datetimes, longdouble, ...
        raise ValueError(f"Unsupported dtype {dtype} (cupy stand-in: CuPy has no such arrays)")
    return dtype


def _shape(shape) -> tuple:
    """A shape as CuPy's Cython reads it: ints through ``__index__`` (a device
    scalar has none)."""
    if isinstance(shape, (tuple, list)):
        return tuple(operator.index(s) for s in shape)
    return (operator.index(shape),)


# --------------------------------------------------------------------------
# the array
# --------------------------------------------------------------------------


class ndarray:
    """A device array: a NumPy array that only explicit calls bring back."""

    __slots__ = ("_a",)
    __array_priority__ = 100  # NumPy defers binary operators to us
    made = 0  # device arrays made so far (tests check that a path ran on the device)

    def __init__(self, host: np.ndarray):
        if not isinstance(host, np.ndarray):
            raise TypeError("cupy stand-in: ndarray wraps a NumPy array")
        _check_dtype(host.dtype)
        self._a = host
        ndarray.made += 1

    # -- what is host-side metadata in CuPy too
    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    nbytes = property(lambda self: self._a.nbytes)
    itemsize = property(lambda self: self._a.itemsize)
    strides = property(lambda self: self._a.strides)
    flags = property(lambda self: self._a.flags)
    T = property(lambda self: ndarray(self._a.T))

    @property
    def __cuda_array_interface__(self) -> dict:
        a = self._a
        return {"shape": a.shape, "typestr": a.dtype.str,
                "data": (a.__array_interface__["data"][0] if a.size else 0, False),
                "version": 3, "strides": None if a.flags.c_contiguous else a.strides,
                "descr": [("", a.dtype.str)], "stream": 1}

    # -- explicit transfers
    def get(self, stream=None, order="C", out=None, blocking=True):
        if out is not None:
            np.copyto(out, self._a)
            return out
        return np.array(self._a, order=order, copy=True)

    def item(self):
        if self._a.size != 1:
            raise ValueError("can only convert an array of size 1 to a Python scalar")
        return self._a.item()

    def tolist(self):
        return self._a.tolist()

    def tobytes(self, order="C"):
        return self._a.tobytes(order)

    # -- implicit conversions: CuPy's rules
    def __array__(self, dtype=None, copy=None):
        raise TypeError(IMPLICIT_CONVERSION)

    def __int__(self):
        return int(self._scalar())

    def __float__(self):
        return float(self._scalar())

    def __complex__(self):
        return complex(self._scalar())

    def _scalar(self):
        if self._a.size != 1:
            raise TypeError("only length-1 arrays can be converted to Python scalars")
        return self._a.reshape(()).item()

    def __bool__(self):
        if self._a.size == 0:
            warnings.warn("The truth value of an empty array is ambiguous. Returning False",
                          DeprecationWarning, stacklevel=2)
            return False
        if self._a.size == 1:
            return bool(self._a.reshape(()).item())
        raise ValueError("The truth value of an array with more than one element is "
                         "ambiguous. Use a.any() or a.all()")

    def __len__(self):
        if self._a.ndim == 0:
            raise TypeError("len() of unsized object")
        return self._a.shape[0]

    def __iter__(self):
        if self._a.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self._a.shape[0]))

    def __repr__(self):
        return repr(self._a)

    def __str__(self):
        return str(self._a)

    def __format__(self, spec):
        return format(self._a.reshape(()).item() if self._a.ndim == 0 else self._a, spec)

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    __hash__ = None

    # -- NumPy's protocols: as CuPy's
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if "out" in kwargs:
            out = kwargs["out"]
            if isinstance(out, tuple):
                if len(out) != 1:
                    raise ValueError("The 'out' parameter must have exactly one array value")
                kwargs["out"] = out[0]
        if method == "__call__":
            return _apply(ufunc, inputs, kwargs)
        if method == "at" and ufunc.__name__ in _UFUNC_SCATTER:
            target, indices = inputs[0], inputs[1]
            value = inputs[2] if len(inputs) > 2 else None
            return _scatter(target, indices, value, _UFUNC_SCATTER[ufunc.__name__])
        if method == "reduce" and ufunc.__name__ in ("add", "multiply"):
            array = inputs[0]
            return array.sum(**kwargs) if ufunc.__name__ == "add" else array.prod(**kwargs)
        return NotImplemented

    def __array_function__(self, func, types, args, kwargs):
        # as CuPy: NumPy's function routed to the module's twin of that name
        twin = _NAMESPACE.get(func.__name__)
        if twin is None or not func.__module__.startswith("numpy"):
            return NotImplemented
        return twin(*args, **kwargs)

    # -- indexing
    def __getitem__(self, index):
        return _wrap(self._a[_host_index(index)])

    def __setitem__(self, index, value):
        host_index = _host_index(index)
        if isinstance(value, ndarray):
            host_value = value._a
        elif isinstance(value, (np.ndarray, list, tuple)) and np.ndim(value) > 0:
            if not _is_advanced(host_index):
                raise ValueError("non-scalar numpy.ndarray cannot be used for fill (cupy "
                                 "stand-in: assigning a host array through basic indexing; "
                                 "move it with cupy.asarray first)")
            host_value = np.asarray(value)
        else:
            host_value = value
        _refuse_racing_writes(self._a, host_index, host_value)
        self._a[host_index] = host_value

    # -- conversions and views
    def astype(self, dtype, order="K", casting=None, subok=None, copy=True):
        dtype = _check_dtype(dtype)
        if not copy and dtype == self._a.dtype:
            return self
        return ndarray(self._a.astype(dtype, order=order, copy=True))

    def view(self, dtype=None):
        return ndarray(self._a.view() if dtype is None else self._a.view(_check_dtype(dtype)))

    def copy(self, order="C"):
        return ndarray(self._a.copy(order=order))

    def ravel(self, order="C"):
        return ndarray(self._a.ravel(order))

    def flatten(self, order="C"):
        return ndarray(self._a.flatten(order))

    def reshape(self, *shape, order="C"):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = shape[0]
        return ndarray(self._a.reshape(_shape(shape), order=order))

    def squeeze(self, axis=None):
        return ndarray(self._a.squeeze(axis))

    def fill(self, value):
        if isinstance(value, ndarray):
            if value.ndim:
                raise ValueError("non-scalar cupy.ndarray cannot be used for fill")
            value = value._a
        elif isinstance(value, np.ndarray) and value.ndim:
            raise ValueError("non-scalar numpy.ndarray cannot be used for fill")
        self._a.fill(value)

    def nonzero(self):
        return tuple(ndarray(i) for i in self._a.nonzero())

    def take(self, indices, axis=None):
        return _wrap(self._a.take(_host_index(indices), axis=axis))

    def sort(self, axis=-1):  # CuPy 13.6: no ``kind`` argument
        if self._a.ndim == 0:
            raise np.exceptions.AxisError("Sorting arrays with the rank of zero is not supported")
        if not self._a.flags.c_contiguous:
            raise NotImplementedError("Sorting non-contiguous array is not supported.")
        self._a.sort(axis=axis)

    def argsort(self, axis=-1):  # CuPy 13.6: no ``kind``; a stable sort (thrust)
        return ndarray(np.atleast_1d(self._a).argsort(axis=axis, kind="stable"))

    def scatter_add(self, slices, value):
        _scatter(self, slices, value, "add")

    def scatter_max(self, slices, value):
        _scatter(self, slices, value, "max")

    def scatter_min(self, slices, value):
        _scatter(self, slices, value, "min")

    def __neg__(self):
        return _apply(np.negative, (self,), {})

    def __pos__(self):
        return _apply(np.positive, (self,), {})

    def __abs__(self):
        return _apply(np.absolute, (self,), {})

    def __invert__(self):
        return _apply(np.invert, (self,), {})


ndarray.__module__ = "cupy"  # as cupy.ndarray reports itself (the package tests the module)


def _method_reduction(name):
    """Reductions and scans return device arrays (0-d for a scalar), as CuPy's."""
    def method(self, *args, **kwargs):
        if kwargs.get("out") is not None:
            raise NotImplementedError(f"cupy stand-in: {name}(out=) is not modelled")
        return _wrap(getattr(self._a, name)(*args, **kwargs))
    method.__name__ = name
    return method


for _name in ("sum", "prod", "max", "min", "mean", "any", "all", "argmax", "argmin", "cumsum",
              "clip"):
    setattr(ndarray, _name, _method_reduction(_name))


def _operator(ufunc, reflected=False, inplace=False):
    if inplace:
        def method(self, other):
            _apply(ufunc, (self, other), {"out": self})
            return self
    elif reflected:
        def method(self, other):
            return _apply(ufunc, (other, self), {})
    else:
        def method(self, other):
            return _apply(ufunc, (self, other), {})
    return method


for _name, _ufunc in (("add", np.add), ("sub", np.subtract), ("mul", np.multiply),
                      ("truediv", np.true_divide), ("floordiv", np.floor_divide),
                      ("mod", np.remainder), ("pow", np.power), ("lshift", np.left_shift),
                      ("rshift", np.right_shift), ("and", np.bitwise_and), ("or", np.bitwise_or),
                      ("xor", np.bitwise_xor)):
    setattr(ndarray, f"__{_name}__", _operator(_ufunc))
    setattr(ndarray, f"__r{_name}__", _operator(_ufunc, reflected=True))
    setattr(ndarray, f"__i{_name}__", _operator(_ufunc, inplace=True))
for _name, _ufunc in (("eq", np.equal), ("ne", np.not_equal), ("lt", np.less),
                      ("le", np.less_equal), ("gt", np.greater), ("ge", np.greater_equal)):
    setattr(ndarray, f"__{_name}__", _operator(_ufunc))
del _name, _ufunc


def _wrap(value):
    if isinstance(value, np.ndarray):
        return ndarray(value)
    if isinstance(value, np.generic):
        return ndarray(np.asarray(value))
    if isinstance(value, tuple):
        return tuple(_wrap(v) for v in value)
    return value


def _operand(value):
    """An operand of an elementwise operation: device arrays and scalars."""
    if isinstance(value, ndarray):
        return value._a
    if isinstance(value, np.ndarray):
        raise _unsupported(value)
    if isinstance(value, (bool, int, float, complex, np.generic)):
        return value
    raise TypeError(f"Unsupported type {type(value)}")


def _device(value, what: str, error=TypeError):
    """A device array argument (a NumPy one is refused: see the module notes)."""
    if isinstance(value, ndarray):
        return value._a
    if isinstance(value, np.ndarray):
        raise error(f"cupy stand-in: {what} takes device arrays, got a NumPy array")
    raise error(f"cupy stand-in: {what} takes device arrays, got {type(value).__name__}")


def _apply(ufunc, inputs, kwargs):
    host = tuple(_operand(x) for x in inputs)
    out = kwargs.pop("out", None)
    if out is not None:
        if not isinstance(out, ndarray):
            raise TypeError(f"cupy stand-in: out must be a device array, got {type(out)}")
        ufunc(*host, out=out._a, **kwargs)
        return out
    return _wrap(ufunc(*host, **kwargs))


def _host_index(index):
    """An index with device arrays read through (CuPy also takes NumPy arrays
    and lists as indices: it copies them over)."""
    if isinstance(index, tuple):
        return tuple(_host_index(i) for i in index)
    if isinstance(index, ndarray):
        return index._a
    return index


def _is_advanced(index) -> bool:
    parts = index if isinstance(index, tuple) else (index,)
    return any(isinstance(p, (np.ndarray, list)) for p in parts)


def _refuse_racing_writes(target: np.ndarray, index, value) -> None:
    """CuPy stores an undefined one of the values written to a repeated index."""
    if isinstance(index, tuple):
        if len(index) != 1:
            return
        index = index[0]
    if isinstance(index, list):
        index = np.asarray(index)
    if not isinstance(index, np.ndarray) or index.dtype.kind not in "iu" or target.ndim != 1:
        return
    flat = index.ravel().astype(np.int64)
    if flat.size < 2:
        return
    flat = np.where(flat < 0, flat + target.shape[0], flat)
    values = np.broadcast_to(np.asarray(value), index.shape).ravel()
    order = np.argsort(flat, kind="stable")
    same = flat[order][1:] == flat[order][:-1]
    if not same.any():
        return
    ranked = values[order]
    differ = same & (ranked[1:] != ranked[:-1])
    if differ.any():
        at = int(flat[order][1:][differ][0])
        raise ValueError(f"cupy stand-in: index {at} is assigned {int(differ.sum()) + 1} "
                         f"different values at once; CuPy stores an undefined one of them "
                         f"(NumPy keeps the last)")


def _scatter(target, slices, value, op: str) -> None:
    """``cupyx.scatter_*`` / ``ufunc.at`` with CuPy 13.6's dtype checks."""
    if not isinstance(target, ndarray):
        raise TypeError(f"cupy stand-in: {_SCATTER_NAMES[op]} on a {type(target).__name__}")
    index = _host_index(slices)
    if isinstance(value, ndarray):
        host_value = value._a
    elif isinstance(value, np.ndarray) and value.ndim:
        host_value = value  # CuPy copies a host value array over (core.array)
    else:
        host_value = value
    parts = index if isinstance(index, tuple) else (index,)
    advanced = any(isinstance(p, (np.ndarray, list)) for p in parts)
    if advanced and target.dtype not in SCATTER_DTYPES[op]:
        allowed = ", ".join(sorted(str(d) for d in SCATTER_DTYPES[op]))
        raise TypeError(f"{_SCATTER_NAMES[op]} only supports {allowed} as data type (cupy "
                        f"stand-in, CuPy {MODELLED_CUPY}: the target is {target.dtype})")
    ufunc = {"add": np.add, "max": np.maximum, "min": np.minimum, "sub": np.subtract,
             "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[op]
    cast = np.asarray(host_value).astype(target.dtype, copy=False)  # as CuPy casts first
    if advanced:
        ufunc.at(target._a, index, cast)
    else:
        view = target._a[index]
        ufunc(view, cast, out=view)


# --------------------------------------------------------------------------
# the module's functions
# --------------------------------------------------------------------------


def asarray(a, dtype=None, order=None, *, blocking=False):
    if isinstance(a, ndarray):
        return a if dtype is None else a.astype(dtype, copy=False)
    if hasattr(a, "__cuda_array_interface__"):
        raise TypeError("cupy stand-in: a foreign device array is not modelled")
    host = np.asarray(a, dtype=dtype, order=order)
    _check_dtype(host.dtype)
    # CUDA is little-endian: CuPy copies a byte-swapped array over in native order
    return ndarray(np.array(host, dtype=host.dtype.newbyteorder("="), copy=True))


def array(obj, dtype=None, copy=True, order="K", ndmin=0):
    if isinstance(obj, ndarray):
        if not copy and (dtype is None or np.dtype(dtype) == obj.dtype) and obj.ndim >= ndmin:
            return obj
        return ndarray(np.array(obj._a, dtype=dtype, copy=True, order=order, ndmin=ndmin))
    return ndarray(np.array(obj, dtype=dtype, copy=True, order=order, ndmin=ndmin))


def ascontiguousarray(a, dtype=None):
    if isinstance(a, ndarray):
        return ndarray(np.ascontiguousarray(a._a, dtype=dtype))
    return asarray(np.ascontiguousarray(a, dtype=dtype))


def asnumpy(a, stream=None, order="C", out=None, blocking=True):
    if isinstance(a, ndarray):
        return a.get(stream=stream, order=order, out=out)
    return np.asarray(a, order=order)


def _creation(fill):
    def create(shape, dtype=float, order="C"):
        return ndarray(fill(_shape(shape), dtype=_check_dtype(dtype), order=order))
    create.__name__ = fill.__name__
    return create


zeros = _creation(np.zeros)
empty = _creation(np.empty)
ones = _creation(np.ones)


def full(shape, fill_value, dtype=None, order="C"):
    if isinstance(fill_value, ndarray):
        if fill_value.ndim:
            raise ValueError("non-scalar cupy.ndarray cannot be used for fill")
        fill_value = fill_value._a
    elif isinstance(fill_value, np.ndarray) and fill_value.ndim:
        raise ValueError("non-scalar numpy.ndarray cannot be used for fill")
    dtype = np.asarray(fill_value).dtype if dtype is None else dtype
    return ndarray(np.full(_shape(shape), fill_value, dtype=_check_dtype(dtype), order=order))


def _like(fill):
    def create(a, dtype=None, order="K", subok=None, shape=None):
        base = _device(a, fill.__name__)
        return ndarray(fill(base, dtype=dtype, shape=shape))
    create.__name__ = fill.__name__
    return create


empty_like = _like(np.empty_like)
zeros_like = _like(np.zeros_like)
ones_like = _like(np.ones_like)


def arange(start, stop=None, step=1, dtype=None):
    def plain(x):
        return x.item() if isinstance(x, ndarray) else x
    start, stop, step = plain(start), plain(stop), plain(step)
    if stop is None:
        return ndarray(np.arange(start, dtype=dtype))
    return ndarray(np.arange(start, stop, step, dtype=dtype))


def concatenate(arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    host = []
    for a in arrays:
        if not isinstance(a, ndarray):
            raise TypeError("Only cupy arrays can be concatenated")
        host.append(a._a)
    if out is not None:
        raise NotImplementedError("cupy stand-in: concatenate(out=) is not modelled")
    return ndarray(np.concatenate(host, axis=axis, dtype=dtype, casting=casting))


def argsort(a, axis=-1, kind=None):
    if kind is not None and kind != "stable":
        raise ValueError("kind can only be None or 'stable'")
    return ndarray(np.argsort(_device(a, "argsort"), axis=axis, kind="stable"))


def sort(a, axis=-1, kind=None):
    if kind is not None and kind != "stable":
        raise ValueError("kind can only be None or 'stable'")
    return ndarray(np.sort(_device(a, "sort"), axis=axis, kind="stable"))


def searchsorted(a, v, side="left", sorter=None):
    a_host = _device(a, "searchsorted (a)", NotImplementedError)
    v_host = _device(v, "searchsorted (v)", NotImplementedError)
    if a_host.ndim != 1:
        raise ValueError("object too deep for desired array" if a_host.ndim > 1 else
                         "object of too small depth for desired array")
    kinds = {a_host.dtype.kind, v_host.dtype.kind}
    if kinds == {"i", "u"}:
        raise TypeError(f"cupy stand-in: searchsorted of {v_host.dtype} in {a_host.dtype}: "
                        f"CuPy's kernel compares signed and unsigned values in C++ "
                        f"(NumPy promotes them); give both one dtype")
    if sorter is not None:
        a_host = a_host[_device(sorter, "searchsorted (sorter)")]
    if a_host.size == 0:
        return ndarray(np.zeros(v_host.shape, dtype=np.int64))
    # a 0-d v gives a 0-d array, as CuPy's elementwise kernel does (NumPy a scalar)
    return ndarray(np.asarray(np.searchsorted(a_host, v_host, side=side), dtype=np.int64))


def bincount(x, weights=None, minlength=None):
    host = _device(x, "bincount")
    if host.ndim > 1:
        raise ValueError("object too deep for desired array")
    if host.ndim < 1:
        raise ValueError("object of too small depth for desired array")
    if host.dtype.kind == "f":
        raise TypeError("x must be int array")
    if host.size and (host < 0).any():
        raise ValueError("The first argument of bincount must be non-negative")
    w = None if weights is None else _device(weights, "bincount (weights)")
    if w is not None and host.shape != w.shape:
        raise ValueError("The weights and list don't have the same length.")
    if minlength is not None:
        minlength = int(minlength)
        if minlength < 0:
            raise ValueError("minlength must be non-negative")
    if host.size == 0:
        # CuPy 13.6 sizes the output by int(cupy.max(x)) + 1, a reduction
        # without identity over nothing
        raise ValueError(f"zero-size array to reduction operation cupy_max which has no "
                         f"identity (cupy stand-in: CuPy {MODELLED_CUPY}'s bincount of an "
                         f"empty array; 14.2 returns zeros)")
    size = int(host.max()) + 1
    if minlength is not None:
        size = max(size, minlength)
    if w is None:
        return ndarray(np.bincount(host, minlength=size).astype(np.intp))
    return ndarray(np.bincount(host, weights=w.astype(np.float64), minlength=size))


def cumsum(a, axis=None, dtype=None, out=None):
    if out is not None:
        raise NotImplementedError("cupy stand-in: cumsum(out=) is not modelled")
    return ndarray(np.cumsum(_device(a, "cumsum"), axis=axis, dtype=dtype))


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True):
    host = ar._a if isinstance(ar, ndarray) else np.asarray(ar)  # CuPy: cupy.asarray(ar)
    if axis is not None:
        raise NotImplementedError("cupy stand-in: unique(axis=) is not modelled")
    result = np.unique(host.ravel(), return_index=return_index, return_inverse=return_inverse,
                       return_counts=return_counts, equal_nan=equal_nan)
    return _wrap(result) if isinstance(result, tuple) else ndarray(result)


def _unary(name):
    def function(a, *args, **kwargs):
        return _wrap(getattr(np, name)(_device(a, name), *args, **kwargs))
    function.__name__ = name
    return function


flatnonzero = _unary("flatnonzero")
argmax = _unary("argmax")
argmin = _unary("argmin")
diff = _unary("diff")
count_nonzero = _unary("count_nonzero")
ravel = _unary("ravel")


def nonzero(a):
    _device(a, "nonzero")
    return a.nonzero()


def where(condition, x=None, y=None):
    if x is None and y is None:
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError("Must provide both 'x' and 'y' or neither.")
    return _wrap(np.where(_operand(condition), _operand(x), _operand(y)))


def _reduction(name):
    def function(a, *args, **kwargs):
        _device(a, name)
        return getattr(a, name)(*args, **kwargs)
    function.__name__ = name
    return function


_REDUCTIONS = {name: _reduction(name) for name in ("sum", "max", "min", "any", "all")}
_REDUCTIONS.update(amax=_REDUCTIONS["max"], amin=_REDUCTIONS["min"])


class ufunc:
    """A NumPy ufunc with CuPy's operand rules and ``at``'s dtype checks."""

    def __init__(self, host):
        self._host = host
        self.__name__ = host.__name__

    def __call__(self, *inputs, **kwargs):
        return _apply(self._host, inputs, kwargs)

    def at(self, a, indices, b=None):
        op = _UFUNC_SCATTER.get(self.__name__)
        if op is None:
            raise NotImplementedError(f"`{self.__name__}.at` is not supported yet")
        _scatter(a, indices, b, op)

    def reduce(self, array, axis=0, dtype=None, out=None, keepdims=False):
        if self.__name__ == "add":
            return array.sum(axis=axis, dtype=dtype, keepdims=keepdims)
        if self.__name__ == "multiply":
            return array.prod(axis=axis, dtype=dtype, keepdims=keepdims)
        raise NotImplementedError(f"`{self.__name__}.reduce` is not supported yet")

    def __repr__(self):
        return f"<cupy stand-in ufunc {self.__name__}>"


_UFUNC_NAMES = ("add", "subtract", "multiply", "true_divide", "divide", "floor_divide",
                "remainder", "power", "negative", "absolute", "abs", "minimum", "maximum",
                "fmin", "fmax", "equal", "not_equal", "less", "less_equal", "greater",
                "greater_equal", "logical_and", "logical_or", "logical_not", "logical_xor",
                "bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift",
                "right_shift", "isfinite", "isnan", "isinf", "rint", "floor", "ceil", "sqrt",
                "exp", "log", "log2", "ldexp", "frexp", "sign", "square")

# What is not an array function: dtypes, constants, type queries.
_PASSTHROUGH = ("dtype", "iinfo", "finfo", "bool_", "int8", "int16", "int32", "int64", "uint8",
                "uint16", "uint32", "uint64", "intp", "uintp", "float16", "float32", "float64",
                "complex64", "complex128", "integer", "signedinteger", "unsignedinteger",
                "floating", "number", "generic", "newaxis", "nan", "inf", "pi", "e",
                "result_type", "promote_types", "can_cast", "min_scalar_type", "issubdtype")


# --------------------------------------------------------------------------
# streams
# --------------------------------------------------------------------------


class Stream:
    """``cupy.cuda.Stream``: a handle with a distinct ``ptr``; ``with`` makes
    it current."""

    _ptrs = itertools.count(0x1000, 0x10)

    def __init__(self, null=False, non_blocking=False, ptds=False):
        self.ptr = 0 if null else next(Stream._ptrs)
        self.non_blocking = non_blocking
        self._previous = []

    def __enter__(self):
        self._previous.append(_current_stream[0])
        _current_stream[0] = self
        return self

    def __exit__(self, *exc):
        _current_stream[0] = self._previous.pop()

    def synchronize(self):
        pass

    def use(self):
        _current_stream[0] = self
        return self


_NULL_STREAM = Stream(null=True)
_current_stream = [_NULL_STREAM]


def get_current_stream(device_id=-1):
    return _current_stream[0]


# --------------------------------------------------------------------------
# the modules
# --------------------------------------------------------------------------


def _build_modules() -> tuple[types.ModuleType, types.ModuleType]:
    cupy = types.ModuleType("cupy", "CuPy stand-in (tests/cupy_standin.py)")
    cupy.__version__ = f"{MODELLED_CUPY}+standin"
    for name in ("ndarray", "asarray", "array", "ascontiguousarray", "asnumpy", "zeros", "empty",
                 "ones", "full", "empty_like", "zeros_like", "ones_like", "arange",
                 "concatenate", "argsort", "sort", "searchsorted", "bincount", "cumsum",
                 "unique", "flatnonzero", "argmax", "argmin", "diff", "count_nonzero", "ravel",
                 "nonzero", "where"):
        setattr(cupy, name, globals()[name])
    for name, function in _REDUCTIONS.items():
        setattr(cupy, name, function)
    for name in _UFUNC_NAMES:
        if hasattr(np, name):
            setattr(cupy, name, ufunc(getattr(np, name)))
    for name in _PASSTHROUGH:
        setattr(cupy, name, getattr(np, name))
    cuda = types.ModuleType("cupy.cuda")
    cuda.Stream = Stream
    cuda.get_current_stream = get_current_stream
    cuda.Stream.null = _NULL_STREAM
    cupy.cuda = cuda

    def missing(name):
        raise AttributeError(f"the CuPy stand-in does not model cupy.{name}; add it to "
                             f"tests/cupy_standin.py following CuPy's sources")

    cupy.__getattr__ = missing
    cupyx = types.ModuleType("cupyx", "cupyx stand-in (tests/cupy_standin.py)")
    cupyx.scatter_add = lambda a, slices, value: _scatter(a, slices, value, "add")
    cupyx.scatter_max = lambda a, slices, value: _scatter(a, slices, value, "max")
    cupyx.scatter_min = lambda a, slices, value: _scatter(a, slices, value, "min")

    def missing_x(name):
        raise AttributeError(f"the CuPy stand-in does not model cupyx.{name}")

    cupyx.__getattr__ = missing_x
    return cupy, cupyx


cupy, cupyx = _build_modules()
_NAMESPACE = {name: getattr(cupy, name) for name in dir(cupy) if not name.startswith("_")
              and callable(getattr(cupy, name))}


# --------------------------------------------------------------------------
# kernels in the simulator
# --------------------------------------------------------------------------


class ExternalStream:
    """What ``numba.cuda.external_stream`` returns here: the CuPy stream's pointer."""

    def __init__(self, ptr):
        self.handle = self.ptr = ptr

    def synchronize(self):
        pass

    def __repr__(self):
        return f"<external stream {self.ptr:#x}>"


def _as_cuda_array(obj, sync=True):
    from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray

    if not isinstance(obj, ndarray):
        raise TypeError("*obj* doesn't implement the cuda array interface.")
    interface = obj.__cuda_array_interface__
    host = obj._a
    if (interface["shape"] != host.shape or interface["typestr"] != host.dtype.str or
            interface["version"] < 2):
        raise ValueError(f"cupy stand-in: inconsistent __cuda_array_interface__ {interface}")
    return FakeCUDAArray(host)


def _checked_launch_args(kernel, stream, args):
    """Refuse host arrays and launches off CuPy's current stream; hand the
    simulator the buffers of device arrays."""
    from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray

    name = getattr(kernel, "__name__", "a kernel")
    LAUNCHES[name] += 1
    current = get_current_stream()
    if not (isinstance(stream, ExternalStream) and stream.ptr == current.ptr):
        raise RuntimeError(f"cupy stand-in: {name} launched on {stream!r}, not on CuPy's current "
                           f"stream ({current.ptr:#x}): its work is unordered with CuPy's")
    out = []
    for i, arg in enumerate(args):
        if isinstance(arg, np.ndarray) and arg.ndim > 0:
            raise TypeError(f"cupy stand-in: argument {i} of {name} is a host NumPy array "
                            f"({arg.dtype}, {arg.shape}); Numba would copy it to the device and "
                            f"back around the launch")
        if isinstance(arg, ndarray):
            arg = FakeCUDAArray(arg._a)
        out.append(arg)
    return out


_state = {"active": False}
LAUNCHES: collections.Counter = collections.Counter()  # kernel name -> launches while installed


def _patch_simulator():
    """Wrap the simulator's kernel launches once; the checks apply while active."""
    from numba.cuda.simulator import kernel as simulator_kernel

    launcher = simulator_kernel.FakeCUDAKernel
    if getattr(launcher, "_cupy_standin", False):
        return
    original_call, original_getitem = launcher.__call__, launcher.__getitem__

    @functools.wraps(original_getitem)
    def getitem(self, configuration):
        self._standin_stream = configuration[2] if len(configuration) > 2 else 0
        return original_getitem(self, configuration)

    @functools.wraps(original_call)
    def call(self, *args):
        if _state["active"] and not self._device and not simulator_kernel._kernel_context:
            args = _checked_launch_args(self, getattr(self, "_standin_stream", 0), args)
            self._standin_stream = 0
        return original_call(self, *args)

    launcher.__getitem__ = getitem
    launcher.__call__ = call
    launcher._cupy_standin = True


@contextlib.contextmanager
def installed(kernels: bool = True):
    """``cupy``/``cupyx`` are the stand-in for the duration, and (``kernels``,
    which needs ``NUMBA_ENABLE_CUDASIM=1``) ``backend="gpu"`` runs the
    package's GPU host code on it with the kernels in the simulator."""
    from cugraph_match.structure import backend

    saved = {name: sys.modules.get(name, None) for name in ("cupy", "cupyx")}
    had = {name: name in sys.modules for name in saved}
    sys.modules["cupy"], sys.modules["cupyx"] = cupy, cupyx
    saved_backend = backend.HOST_AS_DEVICE
    cuda_saved = {}
    try:
        if kernels:
            if not backend.cuda_simulator_enabled():
                raise RuntimeError("the stand-in runs kernels only in the simulator "
                                   "(NUMBA_ENABLE_CUDASIM=1)")
            from numba import cuda as numba_cuda

            _patch_simulator()
            for name, value in (("as_cuda_array", _as_cuda_array),
                                ("external_stream", ExternalStream),
                                ("is_cuda_array", lambda obj: isinstance(obj, ndarray))):
                cuda_saved[name] = getattr(numba_cuda, name, None)
                setattr(numba_cuda, name, value)
            backend.HOST_AS_DEVICE = cupy
            _state["active"] = True
        yield cupy
    finally:
        _state["active"] = False
        backend.HOST_AS_DEVICE = saved_backend
        if cuda_saved:
            from numba import cuda as numba_cuda

            for name, value in cuda_saved.items():
                if value is None:
                    delattr(numba_cuda, name)
                else:
                    setattr(numba_cuda, name, value)
        for name in saved:
            if had[name]:
                sys.modules[name] = saved[name]
            else:
                sys.modules.pop(name, None)
        _current_stream[0] = _NULL_STREAM
