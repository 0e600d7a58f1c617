"""The command line and the file reader on bad files (issue 11, finding 5).

Every problem with a file, an ``--output`` path or the backend must be one
line on stderr (``python -m cugraph_match: error: ...``) and exit status 2,
never a traceback; every vertex the file declares must reach the output.
The audit saw a traceback for each malformed file below, a complex file read
as its real part, a negative size line accepted, a pattern file whose
isolated vertices the command line dropped, and a 77-byte file that made the
process allocate for 3·10⁹ vertices.
"""

from __future__ import annotations

import gzip
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import cugraph_match as cm
from cugraph_match.__main__ import main
from cugraph_match.datasets import read_graph

PROG = "python -m cugraph_match: error: "
MM = "%%MatrixMarket matrix coordinate"

# name, file content, what the one-line message must say
BAD_FILES = [
    # lines 1-2 hold ASCII control bytes only (a newline and a carriage return end
    # them); line 3 holds the first byte above 0x7f
    ("binary.bin", bytes(range(1, 256)) * 4, r"binary.bin, line 3: is not UTF-8 text \(a binary"),
    ("zeros.bin", bytes(range(256)) * 4, r"zeros.bin, line 1: holds NUL bytes: a binary file"),
    # Latin-1 text far into the file: the line itself, not the start of its 8 KiB chunk
    ("latin1.txt", b"1 2 3\n2 3 5\n" * 1500 + b"caf\xe9 b 3\n",
     r"latin1.txt, line 3001: is not UTF-8 text .*save it as UTF-8"),
    ("nul.txt", b"1 2\n3\x004\n", r"nul.txt, line 2: holds NUL bytes"),
    ("bad.gz", b"\x1f\x8b\x08\x00garbage", r"bad.gz: cannot be decompressed"),
    ("g.bz2", b"BZh91AY&SY" + b"\x00" * 20, r"g.bz2 is bzip2-compressed; decompress it first"),
    ("g.zip", b"PK\x03\x04" + b"\x00" * 20, r"g.zip is zip-compressed"),
    ("two_fields.mtx", f"{MM} real general\n3 3\n1 2 1.0\n".encode(),
     (r"two_fields.mtx, line 2: the MatrixMarket size line must be three non-negative "
      r"integers 'rows columns entries', got '3 3'")),
    ("words.mtx", f"{MM} real general\nthree by three\n1 2 1.0\n".encode(),
     r"line 2: the MatrixMarket size line must be three non-negative integers"),
    ("negative.mtx", f"{MM} real general\n-3 3 1\n1 2 1.0\n".encode(),
     r"line 2: the MatrixMarket size line must be three non-negative integers .* got '-3 3 1'"),
    ("array.mtx", b"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n",
     r"array.mtx, line 1: a dense MatrixMarket 'array' file is not a graph"),
    ("complex.mtx", f"{MM} complex general\n2 2 1\n1 2 1.0 2.0\n".encode(),
     r"complex.mtx, line 1: complex MatrixMarket entries are not edge weights"),
    ("hermitian.mtx", f"{MM} real hermitian\n2 2 1\n1 2 1.0\n".encode(),
     r"MatrixMarket symmetry 'hermitian' is not read"),
    ("banner.mtx", b"%%MatrixMarket coordinate real\n2 2 1\n1 2 1.0\n",
     r"banner.mtx, line 1: a MatrixMarket banner reads"),
    ("no_size.mtx", f"{MM} real general\n% only comments\n".encode(),
     r"no_size.mtx: the MatrixMarket file has no size line"),
    ("truncated.mtx", f"{MM} real general\n3 3 2\n1 2 1.0\n".encode(),
     r"the size line declares 2 entries, the file holds 1 \(truncated\?\)"),
    ("too_many.mtx", f"{MM} pattern general\n3 3 1\n1 2\n2 3\n".encode(),
     r"the size line declares 1 entries, the file holds 2$"),
    ("outside.mtx", f"{MM} real general\n3 3 1\n1 4 1.0\n".encode(),
     r"outside.mtx, line 3: column index 4 is outside the declared 1..3"),
    ("zero_index.mtx", f"{MM} pattern general\n3 3 1\n0 1\n".encode(),
     r"line 3: row index 0 is outside the declared 1..3"),
    ("word_index.mtx", f"{MM} pattern general\n3 3 1\na 1\n".encode(),
     r"word_index.mtx, line 3: row index 'a' is not an integer"),
    # ASCII digits only, as in edge lists ('1_0' was the index 10, a size line's '1_0' too)
    ("underscore.mtx", f"{MM} pattern general\n12 12 1\n1_0 1\n".encode(),
     r"underscore.mtx, line 3: row index '1_0' is not an integer"),
    ("underscore_size.mtx", f"{MM} pattern general\n1_2 12 1\n1 2\n".encode(),
     r"underscore_size.mtx, line 2: the MatrixMarket size line must be three non-negative"),
    ("fields.mtx", f"{MM} real general\n3 3 1\n1 2\n".encode(),
     r"line 3: a real MatrixMarket entry has 3 fields, got 2: '1 2'"),
    ("word_weight.mtx", f"{MM} real general\n3 3 1\n1 2 heavy\n".encode(),
     r"line 3: weight 'heavy' is not a number"),
    ("fraction.mtx", f"{MM} integer general\n3 3 1\n1 2 2.5\n".encode(),
     r"line 3: weight '2.5' is not a 64-bit integer \(the file declares 'integer' entries\)"),
    ("empty.txt", b"", r"empty.txt: no edge and no vertex \(an empty graph file\)"),
    ("comments.txt", b"# nothing but a comment\n\n", r"no edge and no vertex"),
    # a header and nothing else was read as an edge weighing 'weight'
    ("header_only.csv", b"# exported\nsrc,dst,weight\n",
     r"header_only.csv, line 2: the only line is a header, fields 'src, dst, weight': no edge and "
     r"no vertex"),
    ("word_weight.csv", b"src,dst,weight\n1,2,3.5\n2,3,heavy\n",
     r"word_weight.csv, line 3: weight 'heavy' is not a number"),
    # named by its file line (it was "row 1" of the frame the file became)
    ("negative.csv", b"1,2,3\n# a comment\n\n2,3,-1\n3,4,0\n",
     r"negative.csv, line 4: weight -1 of the edge 2 - 3 is not positive \(2 edge\(s\) weigh 0 "
     r"or less; the matchings need positive weights\)"),
    ("zero.mtx", f"{MM} real general\n3 3 2\n1 2 0.5\n2 3 0\n".encode(),
     r"zero.mtx, line 4: weight 0.0 of the edge 2 - 3 is not positive \(1 edge"),
    # an empty id field was read as a vertex named '' (every id became a string)
    ("empty_src.csv", b"1,2,5\n,2,3\n3,4,1\n",
     r"empty_src.csv, line 2: the first \(source\) vertex id is empty: ',2,3'"),
    ("empty_dst.csv", b"1,2,5\n2,,3\n3,4,1\n",
     r"empty_dst.csv, line 2: the second \(destination\) vertex id is empty: '2,,3'"),
    ("empty_dst_of_pair.csv", b"1,2\n3,\n", r"line 2: the second \(destination\) vertex id"),
    # integer weights a frame of the same numbers refuses were rounded to float64 ties
    ("mixed_53.txt", b"1 2 9007199254740993\n2 3 9007199254740992\n5 6 0.5\n",
     r"mixed_53.txt, line 1: integer weight '9007199254740993' is beyond 2\*\*53 beside "
     r"floating-point weights \(line 3: '0.5'\)"),
    ("past_64.txt", b"1 2 18446744073709551617\n2 3 18446744073709551616\n",
     r"past_64.txt, line 1: weight '18446744073709551617' is outside the 64-bit integer range"),
    ("signed_64.txt", b"1 2 18446744073709551615\n2 3 -1\n",
     r"signed_64.txt, line 2: weight '-1' is negative beside weights past 2\*\*63 - 1"),
    ("infinite.txt", b"1 2 3\n2 3 1e400\n", r"infinite.txt, line 2: weight '1e400' is not a "
                                              r"finite number"),
    ("long_weight.txt", b"1 2 " + b"9" * 100_000 + b"x\n",
     r"line 1: weight '9{40}'\.\.\. \(100,001 chars\) is not a number$"),
    # a deflate stream broken inside: zlib.error, a 29-line traceback
    ("corrupt.gz", (lambda data: data[:30] + bytes(20) + data[50:])(gzip.compress(
        b"".join(b"%d %d 1.5\n" % (i, i + 1) for i in range(2000)), mtime=0)),
     r"corrupt.gz: cannot be decompressed \(Error -3"),
    # infinite MatrixMarket weights were read as inf (edge lists refused them)
    ("inf.mtx", f"{MM} real general\n3 3 2\n1 2 1.5\n2 3 inf\n".encode(),
     r"inf.mtx, line 4: weight 'inf' is not a finite number"),
    ("huge_weight.mtx", f"{MM} real general\n3 3 1\n1 2 1{'0' * 400}\n".encode(),
     r"huge_weight.mtx, line 3: weight '1000.*\(401 chars\) is not a finite number"),
    # np.arange(1, 2**63) was empty: the vertices vanished; 10**12 ran out of memory
    ("size_2_63.mtx", f"{MM} pattern general\n{2**63 - 1} 2 1\n1 2\n".encode(),
     r"size_2_63.mtx, line 2: the size line declares 9,223,372,036,854,775,807 vertices; a "
     r"graph holds at most 4,294,967,295"),
    ("zero_size.mtx", f"{MM} real general\n0 0 0\n".encode(),
     r"zero_size.mtx: no edge and no vertex \(an empty graph file"),
    # a 1 MB field made a 1 MB error line
    ("long_index.mtx", f"{MM} pattern general\n3 3 1\n{'x' * 100_000} 2\n".encode(),
     r"line 3: row index 'x{40}'\.\.\. \(100,000 chars\) is not an integer$"),
    ("long_empty_id.csv", b"," + b"9" * 100_000 + b"\n",
     r"line 1: the first \(source\) vertex id is empty: ',9{39}'\.\.\. \(100,001 chars\)$"),
    # float64 would merge 2**53 + 1 with 2**53: an edge became a self-loop
    ("float_ids.txt", b"9007199254740993 9007199254740992 3\n0.5 2 1\n",
     r"float_ids.txt, line 1: integer id '9007199254740993' is beyond 2\*\*53 beside ids "
     r"written as floats \(line 2: '0.5'\)"),
    # another separator: every line one field, read as isolated vertices
    ("semicolons.csv", b"1;2;3\n2;3;5\n", r"semicolons.csv, line 1: no line holds an edge, and "
                                             r"this one holds ';'"),
    ("pipes.txt", b"1|2|3\n", r"pipes.txt, line 1: no line holds an edge, and this one holds '\|'"),
]


def run_cli(capsys, argv):
    """``main(argv)`` in this process: (exit status, stdout, stderr)."""
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def assert_one_line_error(status, err, message):
    assert status == 2
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(PROG), err
    assert re.search(message, lines[0]), lines[0]


@pytest.mark.parametrize("name,content,message", BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_every_bad_file_is_one_line_and_status_2(tmp_path, capsys, name, content, message):
    path = tmp_path / name
    path.write_bytes(content)
    status, out, err = run_cli(capsys, ["match", "--file", str(path), "--backend", "cpu"])
    assert_one_line_error(status, err, message)
    assert out == ""  # nothing is reported for a graph that was not read


@pytest.mark.parametrize("name,content,message", BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_the_reader_raises_value_errors_naming_the_file(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_bytes(content)
    if name in ("negative.csv", "zero.mtx"):  # valid files; the command refuses the weight
        edges, _, lines = read_graph(path, return_lines=True)
        assert lines.tolist() == ([1, 4, 5] if name == "negative.csv" else [3, 4])
        assert lines.shape[0] == len(edges)
        return
    with pytest.raises(ValueError, match=message):
        read_graph(path)


def test_a_missing_file_and_a_directory(tmp_path, capsys):
    status, _, err = run_cli(capsys, ["match", "--file", str(tmp_path / "nope.mtx"),
                                      "--backend", "cpu"])
    assert_one_line_error(status, err, r"no such file: .*nope.mtx")
    status, _, err = run_cli(capsys, ["match", "--file", str(tmp_path), "--backend", "cpu"])
    assert_one_line_error(status, err, r"is a directory, not a graph file")
    with pytest.raises(FileNotFoundError):
        read_graph(tmp_path / "nope.mtx")
    with pytest.raises(IsADirectoryError):
        read_graph(tmp_path)


def test_the_output_is_never_the_input(tmp_path, capsys):
    """``--output`` naming the input file (by any name) overwrote the input
    with the matching and exited 0."""
    path = tmp_path / "g.txt"
    path.write_text("1 2 3\n2 3 5\n3 4 3\n")
    link = tmp_path / "link.csv"
    link.symlink_to(path)
    for output in (str(path), str(tmp_path / "." / "g.txt"), str(link)):
        status, out, err = run_cli(capsys, ["match", "--file", str(path), "--backend", "cpu",
                                            "--output", output])
        assert_one_line_error(status, err, r"--output .* is the input --file .*would destroy")
        assert out == ""
    assert path.read_text() == "1 2 3\n2 3 5\n3 4 3\n"
    status, _, err = run_cli(capsys, ["match", "--file", str(path), "--output", ""])
    assert_one_line_error(status, err, r"--output is an empty path")


def test_an_unwritable_output_fails_before_the_work(tmp_path, capsys):
    path = tmp_path / "g.txt"
    path.write_text("1 2\n2 3\n")
    target = tmp_path / "missing" / "out.csv"
    status, out, err = run_cli(capsys, ["match", "--file", str(path), "--backend", "cpu",
                                        "--output", str(target)])
    assert_one_line_error(status, err, r"cannot write --output .*out.csv: No such file")
    assert out == ""
    # a bad weight is found before the output is created
    bad = tmp_path / "bad.txt"
    bad.write_text("1 2 1\n2 3 -1\n")
    target = tmp_path / "out.csv"
    status, _, err = run_cli(capsys, ["match", "--file", str(bad), "--backend", "cpu",
                                      "--output", str(target)])
    assert_one_line_error(status, err, r"bad.txt, line 2: weight -1 of the edge 2 - 3")
    assert not target.exists()


def test_an_output_created_for_a_failed_run_is_removed(tmp_path, capsys, monkeypatch):
    import cugraph_match.__main__ as cli

    def failing(graph):
        raise ValueError("the matching failed")

    monkeypatch.setitem(cli.ALGORITHMS, "suitor", failing)
    path = tmp_path / "g.txt"
    path.write_text("1 2 1\n2 3 2\n")
    target = tmp_path / "out.csv"
    status, _, err = run_cli(capsys, ["match", "--file", str(path), "--backend", "cpu",
                                      "--algorithm", "suitor", "--output", str(target)])
    assert_one_line_error(status, err, r"the matching failed")
    assert not target.exists()
    existing = tmp_path / "kept.csv"  # a file that was there before is left as it was
    existing.write_text("before\n")
    status, _, err = run_cli(capsys, ["match", "--file", str(path), "--backend", "cpu",
                                      "--algorithm", "suitor", "--output", str(existing)])
    assert status == 2 and existing.read_text() == "before\n"


@pytest.mark.skipif(cm.gpu_available(), reason="a usable GPU is here")
def test_backend_gpu_without_a_gpu(tmp_path, capsys):
    status, _, err = run_cli(capsys, ["match", "--dataset", "karate", "--backend", "gpu"])
    assert_one_line_error(status, err, r"backend='gpu' needs a usable CUDA GPU")


def test_isolated_vertices_of_a_pattern_file_reach_the_output(tmp_path, capsys):
    """read_graph returned 5 vertices, the command line reported 3 and wrote 3 rows."""
    path = tmp_path / "isolated.mtx"
    path.write_text(f"{MM} pattern general\n5 5 2\n1 2\n2 3\n")
    out_csv = tmp_path / "out.csv"
    status, out, err = run_cli(capsys, ["match", "--file", str(path), "--backend", "cpu",
                                        "--output", str(out_csv)])
    assert status == 0 and err == ""
    assert "vertices     5" in out.splitlines()
    written = pd.read_csv(out_csv)
    assert written["vertex"].tolist() == [1, 2, 3, 4, 5]
    assert written["mate"].isna().tolist() == [True, False, False, True, True]


# Run in a child whose address space is capped, so that a regression (the
# audit's reader allocated for every declared vertex) fails with a
# MemoryError there instead of getting the test process OOM-killed.
CAPPED_CLI = """
import resource, sys
cap = 6 << 30
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
from cugraph_match.__main__ import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("declared", [3_000_000_000, 200_000_000])
def test_a_size_the_file_does_not_back_is_refused_before_allocating(tmp_path, declared):
    """A 77-byte file declaring 3·10⁹ vertices got the process OOM-killed
    (2·10⁸: 12.8 GB and 59 s)."""
    path = tmp_path / "huge.mtx"
    path.write_text(f"{MM} pattern general\n{declared} {declared} 1\n1 2\n")
    done = subprocess.run([sys.executable, "-c", CAPPED_CLI, "match", "--file", str(path),
                           "--backend", "cpu"], capture_output=True, text=True, timeout=240,
                          cwd=Path(__file__).resolve().parents[1], check=False)
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr.splitlines() == [
        (f"{PROG}{path}, line 2: the size line declares {declared:,} vertices for 1 entries, "
         f"more than 16,777,216 of them without an edge; pass read_graph(..., "
         f"max_isolated=None) (--max-isolated none) to trust it")]


def test_max_isolated_trusts_a_size_line_on_request(tmp_path, capsys):
    path = tmp_path / "sparse.mtx"
    path.write_text(f"{MM} pattern general\n40 40 2\n1 2\n2 1\n")
    # refused from the size line alone (2 entries name at most 4 vertices) ...
    with pytest.raises(ValueError, match=r"line 2: the size line declares 40 vertices for 2 "
                                         r"entries, more than 10 of them without an edge"):
        read_graph(path, max_isolated=10)
    # ... or once the entries are read (they name 2)
    with pytest.raises(ValueError, match=r"declares 40 vertices, 38 of them without an edge "
                                         r"\(more than 37\)"):
        read_graph(path, max_isolated=37)
    edges, vertices = read_graph(path, max_isolated=38)
    assert len(edges) == 2 and vertices.tolist() == list(range(1, 41))
    status, _, err = run_cli(capsys, ["match", "--file", str(path), "--backend", "cpu",
                                      "--max-isolated", "5"])
    assert_one_line_error(status, err, r"--max-isolated none")
    status, out, _ = run_cli(capsys, ["match", "--file", str(path), "--backend", "cpu",
                                      "--max-isolated", "none"])
    assert status == 0 and "vertices     40" in out.splitlines()
    with pytest.raises(ValueError, match="max_isolated must be a non-negative int or None"):
        read_graph(path, max_isolated=-1)


def test_headers_commas_and_gzip_are_read(tmp_path):
    """A CSV header line, comma-separated fields and a gzip file were tracebacks."""
    expected = pd.DataFrame({"src": [1, 2], "dst": [2, 3], "weight": [3.5, 1.0]})
    for name, text in (("h.csv", "src,dst,weight\n1,2,3.5\n2,3,1.0\n"),
                       ("c.csv", "1, 2, 3.5\n2, 3, 1.0\n"),
                       ("w.txt", "# src dst weight\n1 2 3.5\n2 3 1.0\n")):
        path = tmp_path / name
        path.write_text(text)
        edges, vertices = read_graph(path)
        pd.testing.assert_frame_equal(edges, expected)
        assert vertices.tolist() == [1, 2, 3]
    path = tmp_path / "g.mtx.gz"
    path.write_bytes(gzip.compress(f"{MM} real general\n3 3 2\n1 2 3.5\n2 3 1\n".encode()))
    edges, vertices = read_graph(path)
    pd.testing.assert_frame_equal(edges, expected)
    assert vertices.tolist() == [1, 2, 3]


BOM = b"\xef\xbb\xbf"


def test_a_byte_order_mark_is_dropped(tmp_path):
    """A UTF-8 BOM before the banner made the file an edge list (its size line an edge)."""
    mm = BOM + b"%%MatrixMarket matrix coordinate pattern symmetric\n5 7 2\n1 2\n3 4\n"
    for name, content in (("bom.mtx", mm), ("bom.mtx.gz", gzip.compress(mm))):
        path = tmp_path / name
        path.write_bytes(content)
        edges, vertices = read_graph(path)
        pd.testing.assert_frame_equal(edges, pd.DataFrame({"src": [1, 3], "dst": [2, 4]}))
        assert vertices.tolist() == [1, 2, 3, 4, 5, 6, 7]
    path = tmp_path / "bom.csv"  # an edge list: the first id is 1, not '\ufeff1'
    path.write_bytes(BOM + b"1,2,5\n2,3,1\n")
    edges, vertices = read_graph(path)
    pd.testing.assert_frame_equal(edges, pd.DataFrame({"src": [1, 2], "dst": [2, 3],
                                                       "weight": [5, 1]}))
    assert vertices.tolist() == [1, 2, 3]
    path = tmp_path / "bom_header.csv"
    path.write_bytes(BOM + b"src,dst\n1,2\n")
    assert read_graph(path)[0]["src"].tolist() == [1]


def test_matrix_market_weights_follow_the_declared_field(tmp_path):
    real = tmp_path / "real.mtx"
    real.write_text(f"{MM} real general\n3 3 2\n1 2 3\n2 3 1\n")
    assert read_graph(real)[0]["weight"].dtype == np.float64
    integer = tmp_path / "integer.mtx"
    integer.write_text(f"{MM} integer general\n3 3 2\n1 2 18446744073709551615\n"
                       f"2 3 18446744073709551614\n")
    edges, _ = read_graph(integer)
    assert edges["weight"].dtype == np.uint64  # exact past 2**53 (finding 2)
    result = cm.suitor_matching(edges, backend="cpu")  # 1-2 outweighs 2-3 by one unit
    assert result["mate"].isna().tolist() == [False, False, True]
    assert result["mate"].tolist()[:2] == [2, 1]


def test_the_module_entry_point_prints_no_traceback(tmp_path):
    """The real ``python -m cugraph_match`` (argparse, imports, exit status)."""
    path = tmp_path / "complex.mtx"
    path.write_text(f"{MM} complex general\n2 2 1\n1 2 1.0 2.0\n")
    done = subprocess.run([sys.executable, "-m", "cugraph_match", "match", "--file", str(path),
                           "--backend", "cpu"], capture_output=True, text=True, timeout=240,
                          cwd=Path(__file__).resolve().parents[1], check=False)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        (f"{PROG}{path}, line 1: complex MatrixMarket entries are not edge weights: weights "
         f"are real, positive numbers")]


def test_a_pipe_is_read_whole(tmp_path, capsys):
    """The reader opened the file twice (once to peek at its first bytes): a
    pipe's first 8 KiB were read by the first open and lost, so --file
    <(cat big.txt) matched 19,569 of 20,000 edges with exit status 0."""
    lines = b"".join(b"%d %d %d\n" % (i, i + 1, 1 + i % 7) for i in range(1, 20_001))
    read, write = os.pipe()
    writer = threading.Thread(target=lambda: (os.write(write, lines), os.close(write)))
    writer.start()
    try:
        edges, _, at = read_graph(f"/dev/fd/{read}", return_lines=True)
    finally:
        writer.join()
        os.close(read)
    assert len(edges) == 20_000 and edges.iloc[0].tolist() == [1, 2, 2] and at[0] == 1
    path = tmp_path / "big.txt"
    path.write_bytes(lines)
    pd.testing.assert_frame_equal(edges, read_graph(path)[0])


def test_a_comment_in_another_encoding_is_skipped(tmp_path):
    """A Latin-1 author name in a MatrixMarket comment refused the whole file
    (SciPy reads it); a data line in another encoding is still refused."""
    path = tmp_path / "latin1.mtx"
    path.write_bytes(f"{MM} real general\n".encode() + b"% author: Jos\xe9\n3 3 1\n1 2 1.5\n")
    edges, _ = read_graph(path)
    assert edges.values.tolist() == [[1, 2, 1.5]]
    path.write_bytes(f"{MM} real general\n3 3 1\n".encode() + b"1 2 1.5 \xe9\n")
    with pytest.raises(ValueError, match="line 3: is not UTF-8 text"):
        read_graph(path)
