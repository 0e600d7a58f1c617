"""Graph files: MatrixMarket coordinate files and plain edge lists.

Every problem with a file is a ``ValueError`` (or, for a path that cannot be
opened, an ``OSError``) whose one-line message names the file, the line and
what was expected, so the command line can print it as it is.  Nothing is
allocated for a size the file does not back: a MatrixMarket size line may
declare vertices that no entry names (isolated vertices), but past
``max_isolated`` of them the reader refuses before it allocates anything.
"""

from __future__ import annotations

import gzip
import io
import math
import re
import zlib
from pathlib import Path

import numpy as np
import pandas as pd

from ..structure.checks import check_flag
from ..structure.graph import MAX_VERTICES

# Declared vertices that no entry names, allowed by default: a size line
# claiming more is almost surely wrong (a 76-byte file claiming 3·10⁹
# vertices made the pipeline allocate for all of them); every declared
# vertex costs about 64 bytes downstream, so this default is about 1 GiB.
MAX_ISOLATED = 2**24

BANNER = "%%matrixmarket"
FIELDS = ("real", "integer", "double", "pattern")
SYMMETRIES = ("general", "symmetric")

# magic bytes of the compressions a graph file is commonly shipped in
_COMPRESSED = {b"BZh": "bzip2", b"\xfd7zXZ\x00": "xz", b"PK\x03\x04": "zip",
               b"\x28\xb5\x2f\xfd": "zstd"}


def read_graph(path: str | Path, max_isolated: int | None = MAX_ISOLATED,
               return_lines: bool = False) -> tuple:
    """Read a MatrixMarket file or a plain edge list.

    Handles the forms in cuGraph's test data: a MatrixMarket coordinate file
    (``pattern``, ``real`` or ``integer``, ``general`` or ``symmetric``; its
    size line declares vertices ``1..n``), a bare ``src dst [weight]`` list
    (whitespace- or comma-separated; ids may be strings; ``#`` and ``%``
    start comment lines), and lines holding a single id, which declare an
    isolated vertex.  A gzip-compressed file is read as its contents.

    Parameters
    ----------
    path : str or Path
        The file.
    max_isolated : int or None
        The most vertices a MatrixMarket size line may declare beyond those
        its entries name (isolated vertices), 2**24 by default; ``None``
        trusts the size line whatever it declares.
    return_lines : bool
        Also return, for each row of ``edges``, the number of the file line
        it was read from (to name a line where a later check finds a bad row).

    Returns
    -------
    edges : pandas.DataFrame
        ``src | dst`` and, when the file has weights, ``weight``: float64 for
        a ``real`` MatrixMarket file; for an ``integer`` one and an edge list,
        int64 when every weight is an integer (uint64 past 2**63 - 1; exact
        at any size, as integer weights are), float64 otherwise.  An edge
        list's ids are held as a frame of the same numbers holds them: int64,
        uint64 past 2**63 - 1, Python ints beyond both, float64 when one is
        written with a fraction or an exponent ('3.0' is the vertex 3);
        strings when any id is not a number (an integer id past 2**53 beside
        float ids is refused: float64 would merge it with another).
    vertices : pandas.Series
        Every vertex the file declares, isolated ones included, sorted.  Pass
        it on as ``cm.Graph(edges, vertices=vertices)`` to keep them.
    lines : numpy.ndarray of int64
        Only with ``return_lines``: the file line of each row of ``edges``
        (1-based, comments and blank lines counted).

    Raises
    ------
    OSError
        The path does not exist, is a directory or cannot be read.
    ValueError
        Anything wrong inside the file, naming the line: binary or
        compressed content other than gzip, a MatrixMarket banner or size
        line that is not one, ``array`` (dense) or ``complex`` files, an
        entry outside the declared size, fewer or more entries than
        declared, a weight that is not a finite number, an integer weight
        that no 64-bit integer type holds, or one past 2**53 beside
        floating-point weights (float64 would round it: a frame of the same
        numbers is refused alike), a size line declaring more isolated
        vertices than ``max_isolated``, a file of single-field lines holding
        ';' or '|' (another separator than whitespace or commas).

    Notes
    -----
    A first line whose fields are all words, followed by lines of numeric
    ids, is a header (``src,dst,weight``) and is skipped; three or more
    words alone in a file are a header over nothing (an empty graph file,
    refused), where two are an edge between word ids.  Extra fields after
    the weight are ignored; in an edge list with weights, a line without one
    weighs 1.  Numbers are ASCII digits (``1_0`` is a word, not 10).
    """
    path = Path(path)
    if max_isolated is not None and (isinstance(max_isolated, bool)
                                     or not isinstance(max_isolated, (int, np.integer))
                                     or max_isolated < 0):
        raise ValueError(f"max_isolated must be a non-negative int or None, got {max_isolated!r}")
    return_lines = check_flag(return_lines, "return_lines")
    with _open_text(path) as stream:
        edges, vertices, lines = _parse(path, stream, max_isolated)
    return (edges, vertices, lines) if return_lines else (edges, vertices)


def _open_text(path: Path):
    """The file as text lines: gzip decompressed, other compressions and
    binary content refused."""
    if not path.exists():
        raise FileNotFoundError(f"no such file: {path}")
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a directory, not a graph file")
    # opened once and its first bytes peeked at, not read: a pipe or a
    # process substitution (--file <(...)) cannot be opened again, and a
    # second open lost the 8 KiB the first had read
    raw = path.open("rb")
    try:
        head = raw.peek(8)[:8]
        if head.startswith(b"\x1f\x8b"):
            # utf-8-sig: a leading byte-order mark is dropped, so it cannot
            # hide the MatrixMarket banner or become part of the first id
            return io.TextIOWrapper(gzip.GzipFile(fileobj=raw, mode="rb"),
                                    encoding="utf-8-sig", errors="surrogateescape")
        for magic, kind in _COMPRESSED.items():
            if head.startswith(magic):
                raise ValueError(f"{path} is {kind}-compressed; decompress it first (gzip is "
                                 f"read as it is)")
        # bytes that are not UTF-8 become lone surrogates, found line by line
        # (a decoding error names no line: the text is decoded in 8 KiB chunks)
        return io.TextIOWrapper(raw, encoding="utf-8-sig", errors="surrogateescape")
    except BaseException:
        raw.close()
        raise


# what errors="surrogateescape" makes of bytes that are not UTF-8
_NOT_UTF8 = re.compile("[\udc80-\udcff]")


class _Lines:
    """Numbered, stripped, non-comment lines of a text stream, with clear
    errors for binary content."""

    def __init__(self, path: Path, stream):
        self.path = path
        self.stream = stream
        self.number = 0

    def __iter__(self):
        try:
            for number, line in enumerate(self.stream, start=1):
                self.number = number
                if "\x00" in line:
                    raise ValueError(self.error("holds NUL bytes: a binary file, not a graph "
                                                "file"))
                # a comment is never read, whatever its encoding (a Latin-1
                # author name in a MatrixMarket header, say)
                if _NOT_UTF8.search(line) and line.lstrip()[:1] not in ("%", "#"):
                    raise ValueError(self.error("is not UTF-8 text (a binary file, or text in "
                                                "another encoding: save it as UTF-8)"))
                yield line
        except (EOFError, OSError, gzip.BadGzipFile, zlib.error) as err:
            raise ValueError(f"{self.path}: cannot be decompressed ({err})") from None

    def error(self, what: str, number: int | None = None) -> str:
        return f"{self.path}, line {self.number if number is None else number}: {what}"


def _parse(path: Path, stream, max_isolated):
    lines = _Lines(path, stream)
    banner = None  # (field, symmetry) of a MatrixMarket file
    size = None  # (rows, columns, entries) from its size line
    rows = []  # split fields of every data line
    numbers = []  # the line number of each
    for text in lines:
        stripped = text.strip()
        if not stripped:
            continue
        if stripped.lower().startswith(BANNER) and banner is None and not rows:
            banner = _banner(stripped, lines)
            continue
        if stripped[0] in "%#":
            continue
        fields = _split(stripped)
        if banner is not None and size is None:
            size = _size_line(fields, stripped, lines, max_isolated)
            continue
        empty = [i for i, f in enumerate(fields[:2]) if not f]
        if empty:
            which = ("first (source)", "second (destination)")[empty[0]]
            raise ValueError(lines.error(f"the {which} vertex id is empty: {_shown(stripped)}"))
        rows.append(fields)
        numbers.append(lines.number)
    if banner is not None:
        return _matrix_market(path, banner, size, rows, numbers, max_isolated)
    return _edge_list(path, rows, numbers)


def _split(line: str) -> list[str]:
    """Fields of a data line: comma-separated when it has commas, else
    whitespace-separated."""
    if "," in line:
        return [f.strip() for f in line.split(",")]
    return line.split()


def _banner(line: str, lines: _Lines) -> tuple[str, str]:
    words = line.lower().split()
    if len(words) != 5 or words[1] != "matrix":
        raise ValueError(lines.error(f"a MatrixMarket banner reads '%%MatrixMarket matrix "
                                     f"coordinate <field> <symmetry>', got {_shown(line)}"))
    _, _, layout, field, symmetry = words
    if layout == "array":
        raise ValueError(lines.error("a dense MatrixMarket 'array' file is not a graph: only "
                                     "'coordinate' files are read"))
    if layout != "coordinate":
        raise ValueError(lines.error(f"unknown MatrixMarket format {_shown(layout)}; only "
                                     f"'coordinate' files are read"))
    if field == "complex":
        raise ValueError(lines.error("complex MatrixMarket entries are not edge weights: "
                                     "weights are real, positive numbers"))
    if field not in FIELDS:
        raise ValueError(lines.error(f"unknown MatrixMarket field {_shown(field)}; expected one of "
                                     f"{', '.join(FIELDS)}"))
    if symmetry not in SYMMETRIES:
        raise ValueError(lines.error(f"MatrixMarket symmetry {_shown(symmetry)} is not read; "
                                     f"expected 'general' or 'symmetric' (a graph is "
                                     f"undirected either way)"))
    return field, symmetry


def _size_line(fields, text: str, lines: _Lines, max_isolated) -> tuple[int, int, int]:
    values = [_as_int(f) for f in fields]
    if len(fields) != 3 or any(v is None or v < 0 for v in values):
        raise ValueError(lines.error(f"the MatrixMarket size line must be three non-negative "
                                     f"integers 'rows columns entries', got {_shown(text)}"))
    n_rows, n_cols, entries = values
    if max(n_rows, n_cols) > MAX_VERTICES:  # np.arange(1, 2**63) was empty, 10**12 no memory
        raise ValueError(lines.error(
            f"the size line declares {max(n_rows, n_cols):,} vertices; a graph holds at most "
            f"{MAX_VERTICES:,}"))
    # entries name at most two vertices each: refuse a size the file cannot
    # back before anything is read or allocated for it
    if max_isolated is not None and max(n_rows, n_cols) > 2 * entries + max_isolated:
        raise ValueError(lines.error(
            f"the size line declares {max(n_rows, n_cols):,} vertices for {entries:,} entries, "
            f"more than {max_isolated:,} of them without an edge; pass "
            f"read_graph(..., max_isolated=None) (--max-isolated none) to trust it"))
    return n_rows, n_cols, entries


def _as_int(text: str) -> int | None:
    """The int a field writes in ASCII digits (see :func:`_number`), or None."""
    value = _number(text)
    return value if isinstance(value, int) else None


# Numbers as a data file writes them: ASCII digits only (Python's int() and
# float() also take '1_0' and other scripts' digits, which would merge '1_0'
# with '10').
_INTEGER = re.compile(r"[+-]?[0-9]+")
# (no two parts can take the same digits: a 100,000-digit field backtracked for minutes)
_FLOAT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|"
                    r"[+-]?(?:inf|infinity|nan)", re.IGNORECASE)


def _number(text: str) -> int | float | None:
    """The int or float a field writes, or None for any other text."""
    try:
        if _INTEGER.fullmatch(text):
            return int(text)
        if _FLOAT.fullmatch(text):
            return float(text)
    except ValueError:  # past Python's 4,300 digits for int(): no id or weight
        pass
    return None


def _matrix_market(path, banner, size, rows, numbers, max_isolated):
    field, _ = banner
    if size is None:
        raise ValueError(f"{path}: the MatrixMarket file has no size line")
    n_rows, n_cols, declared = size
    if max(n_rows, n_cols) == 0:
        raise ValueError(f"{path}: no edge and no vertex (an empty graph file: the size line "
                         f"declares 0 rows and 0 columns)")
    if len(rows) != declared:
        raise ValueError(f"{path}: the size line declares {declared:,} entries, the file holds "
                         f"{len(rows):,}" + (" (truncated?)" if len(rows) < declared else ""))
    width = 2 if field == "pattern" else 3
    for fields, number in zip(rows, numbers):
        if len(fields) != width:
            raise ValueError(f"{path}, line {number}: a {field} MatrixMarket entry has "
                             f"{width} fields, got {len(fields)}: {_shown(' '.join(fields))}")
    src = _integer_column(path, [r[0] for r in rows], numbers, "row index")
    dst = _integer_column(path, [r[1] for r in rows], numbers, "column index")
    for ids, bound, what in ((src, n_rows, "row"), (dst, n_cols, "column")):
        outside = (ids < 1) | (ids > bound)
        if outside.any():
            at = int(np.flatnonzero(outside)[0])
            raise ValueError(f"{path}, line {numbers[at]}: {what} index {int(ids[at])} is "
                             f"outside the declared 1..{bound}")
    frame = pd.DataFrame({"src": src, "dst": dst})
    if width == 3:
        weights = _weight_column(path, [r[2] for r in rows], numbers)
        if field == "integer" and weights.dtype.kind not in "iu":
            _refuse_integer_weights(path, [r[2] for r in rows], numbers)
        if field != "integer":  # real, double: float64, as the file declares
            weights = weights.astype(np.float64)
        frame["weight"] = weights
    n = max(n_rows, n_cols)
    named = np.unique(np.concatenate([src, dst])).shape[0] if len(rows) else 0
    if max_isolated is not None and n - named > max_isolated:
        raise ValueError(f"{path}: the size line declares {n:,} vertices, {n - named:,} of them "
                         f"without an edge (more than {max_isolated:,}); pass "
                         f"read_graph(..., max_isolated=None) (--max-isolated none) to "
                         f"trust it")
    return frame, pd.Series(np.arange(1, n + 1, dtype=np.int64)), np.asarray(numbers, np.int64)


def _refuse_integer_weights(path, texts, numbers) -> None:
    """Raise naming the first weight of an ``integer`` MatrixMarket file that
    int64 or uint64 cannot hold (pandas read the column as float64)."""
    values = [_as_int(text) for text in texts]
    outside = [i for i, v in enumerate(values) if v is None or not -2**63 <= v < 2**64]
    if outside:
        at, why = outside[0], "is not a 64-bit integer"
    else:  # negative weights beside weights past 2**63 - 1: no one integer dtype
        at = next(i for i, v in enumerate(values) if v >= 2**63)
        why = "does not fit int64 beside the file's negative weights"
    raise ValueError(f"{path}, line {numbers[at]}: weight {_shown(texts[at])} {why} (the file "
                     f"declares 'integer' entries)")


def _integer_column(path, texts, numbers, what) -> np.ndarray:
    joined = "".join(texts)  # NumPy's parse also takes '1_0' and other scripts' digits
    try:
        if not joined.isascii() or "_" in joined:
            raise ValueError
        return np.array(texts, dtype=np.int64) if texts else np.zeros(0, dtype=np.int64)
    except (ValueError, OverflowError):
        for text, number in zip(texts, numbers):
            if _as_int(text) is None or not -2**63 <= int(text) < 2**63:
                raise ValueError(f"{path}, line {number}: {what} {_shown(text)} is not an "
                                 f"integer") from None
        raise  # pragma: no cover - every text parsed one by one


def _weight_column(path, texts, numbers) -> pd.Series:
    weights = pd.to_numeric(pd.Series(texts, dtype=object), errors="coerce")
    bad = weights.isna().to_numpy()
    if bad.any():
        at = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{path}, line {numbers[at]}: weight {_shown(texts[at])} is not a "
                         f"number")
    if weights.dtype.kind == "f":  # 'inf', '1e400' and 1 followed by 400 zeros were taken
        infinite = ~np.isfinite(weights.to_numpy())
        if infinite.any():
            at = int(np.flatnonzero(infinite)[0])
            raise ValueError(f"{path}, line {numbers[at]}: weight {_shown(texts[at])} is not a "
                             f"finite number")
    return weights


def _edge_list(path, rows, numbers):
    """A plain edge list: ``src dst [weight]`` lines and single-id lines."""
    if len(rows) > 1 and _is_header(rows):
        rows, numbers = rows[1:], numbers[1:]
    elif len(rows) == 1 and len(rows[0]) >= 3 and all(_number(f) is None for f in rows[0]):
        # words only, a third field that is no weight: a header over no line
        raise ValueError(f"{path}, line {numbers[0]}: the only line is a header, "
                         f"fields {_shown(', '.join(rows[0]))}: no edge and no vertex (an empty "
                         f"graph file)")
    if not rows:
        raise ValueError(f"{path}: no edge and no vertex (an empty graph file)")
    pairs = [r for r in rows if len(r) >= 2]
    pair_lines = [number for r, number in zip(rows, numbers) if len(r) >= 2]
    isolated = [r[0] for r in rows if len(r) == 1]
    if not pairs:
        _refuse_other_separators(path, rows, numbers)
    texts = [r[0] for r in pairs] + [r[1] for r in pairs] + isolated
    values = [_number(t) for t in texts]
    ids = _id_column(texts, values)
    rounded = _rounded_by_float64(values) if ids.dtype == np.float64 else None
    if rounded is not None:  # float64 would merge two vertices (an edge a self-loop)
        at, floating = rounded
        lines = pair_lines + pair_lines + [n for r, n in zip(rows, numbers) if len(r) == 1]
        raise ValueError(f"{path}, line {lines[at]}: integer id {_shown(texts[at])} is beyond "
                         f"2**53 beside ids written as floats (line {lines[floating]}: "
                         f"{_shown(texts[floating])}), and float64 would round it onto another "
                         f"vertex; write every id as an integer")
    m = len(pairs)
    frame = pd.DataFrame({"src": ids.iloc[:m].reset_index(drop=True),
                          "dst": ids.iloc[m:2 * m].reset_index(drop=True)})
    if any(len(r) >= 3 for r in pairs):
        frame["weight"] = _edge_list_weights(path, [r[2] if len(r) > 2 else "1" for r in pairs],
                                             pair_lines)
    vertices = ids.drop_duplicates().sort_values().reset_index(drop=True)
    return frame, vertices, np.asarray(pair_lines, dtype=np.int64)


def _id_column(texts: list, values: list) -> pd.Series:
    """The ids as the same data in a frame would hold them: integers as int64,
    uint64 past 2**63 - 1 (none negative), or Python ints beyond both; numbers
    with a fraction or exponent as float64 ('3.0' is the vertex 3); any other
    text makes every id a string (a file of word ids).  ``values``: the
    texts' numbers (:func:`_number`)."""
    if values and all(isinstance(v, int) for v in values):
        low, high = min(values), max(values)
        if -2**63 <= low and high < 2**63:
            return pd.Series(values, dtype=np.int64)
        if low >= 0 and high < 2**64:
            return pd.Series(values, dtype=np.uint64)
        return pd.Series(values, dtype=object)
    if values and all(v is not None and math.isfinite(v) for v in values):
        return pd.Series(values, dtype=np.float64)
    return pd.Series(texts, dtype=object)


def _rounded_by_float64(values: list) -> tuple[int, int] | None:
    """``(first integer past 2**53, first float)`` among ``values`` (numbers
    of :func:`_number`) when both stand there: float64 would round that
    integer, so ids or weights read together as float64 would not be exact."""
    beyond = next((at for at, v in enumerate(values)
                   if isinstance(v, int) and not -2**53 <= v <= 2**53), None)
    if beyond is None:
        return None
    floating = next((at for at, v in enumerate(values) if isinstance(v, float)), None)
    return None if floating is None else (beyond, floating)


def _edge_list_weights(path, texts, numbers) -> pd.Series:
    """An edge list's weights, read exactly as a frame of the same numbers
    is: integers only as int64 (uint64 past 2**63 - 1), floats or floats
    beside integers up to 2**53 as float64; an integer that neither holds
    exactly is refused, naming its line."""
    values = [_number(t) for t in texts]
    for at, value in enumerate(values):
        if value is None or (isinstance(value, float) and math.isnan(value)):
            raise ValueError(f"{path}, line {numbers[at]}: weight {_shown(texts[at])} is not a "
                             f"number")
        if isinstance(value, float) and math.isinf(value):
            raise ValueError(f"{path}, line {numbers[at]}: weight {_shown(texts[at])} is not a "
                             f"finite number")
    integers = [at for at, v in enumerate(values) if isinstance(v, int)]
    outside = [at for at in integers if not -2**63 <= values[at] < 2**64]
    if outside:
        at = outside[0]
        raise ValueError(f"{path}, line {numbers[at]}: weight {_shown(texts[at])} is outside "
                         f"the 64-bit integer range (int64, or uint64 up to 2**64 - 1)")
    if len(integers) == len(values):
        if all(values[at] < 2**63 for at in integers):
            return pd.Series(values, dtype=np.int64)
        negative = [at for at in integers if values[at] < 0]
        if negative:
            at = negative[0]
            raise ValueError(f"{path}, line {numbers[at]}: weight {_shown(texts[at])} is "
                             f"negative beside weights past 2**63 - 1 (no one 64-bit integer "
                             f"type holds both)")
        return pd.Series(values, dtype=np.uint64)
    rounded = _rounded_by_float64(values)
    if rounded is not None:
        at, floating = rounded
        raise ValueError(f"{path}, line {numbers[at]}: integer weight {_shown(texts[at])} is "
                         f"beyond 2**53 beside floating-point weights (line "
                         f"{numbers[floating]}: {_shown(texts[floating])}), and float64 cannot "
                         f"order it exactly; write every weight as an integer (read exactly "
                         f"as int64 or uint64)")
    return pd.Series(values, dtype=np.float64)


def _shown(text: str, limit: int = 40) -> str:
    """A field for a message, cut short: a 1 MB field made a 1 MB error line."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"... ({len(text):,} chars)"


def _refuse_other_separators(path, rows, numbers) -> None:
    """A file of single-field lines declares isolated vertices only; one that
    holds ';' or '|' was written with another separator than whitespace or
    commas, and is refused rather than read as vertices without edges."""
    for fields, number in zip(rows, numbers):
        other = next((c for c in ";|" if c in fields[0]), None)
        if other is not None:
            raise ValueError(f"{path}, line {number}: no line holds an edge, and this one "
                             f"holds {other!r}: fields are separated by whitespace or commas "
                             f"({_shown(fields[0])} would be one isolated vertex)")


def _is_header(rows) -> bool:
    """The first line is a header (``src,dst,weight``): words only, above lines
    whose ids are all numbers (in a file of word ids it is an edge)."""
    return all(_number(f) is None for f in rows[0]) and \
        all(_number(f) is not None for r in rows[1:] for f in r[:2])
