"""The driver behind ``ci/gpu.sh``: one lent GPU, a few commands, every result kept.

A lent GPU machine (see the device tool's README) receives the checkout only,
runs one command at a time for at most ten minutes, and has CuPy, numba-cuda,
pytest, hypothesis, pandas, SciPy and NetworkX but nothing else of ours and
no network.  So:

* ``prepare`` runs *here*, before the lease: it copies the shared real graphs
  into ``.gpu-data/`` and downloads the peers' wheels (NetworKit, igraph, the
  ``matching`` package) into ``.whl/``; both folders are git-ignored and go
  to the device as carried paths.
* every other part runs *there* (or anywhere, skipping what needs a GPU and
  saying so): it puts the checkout on ``PYTHONPATH``, installs the carried
  wheels into a temporary folder, points the tests at the carried data
  (``CUGRAPH_MATCH_DATA``), and writes ``OUT/<part>.log``, ``OUT/<part>.json``
  and the running summary ``OUT/summary.{json,md}``.

Parts (each well inside ten minutes on an H100 with 16 cores):

``info``            device, driver, CUDA, package versions, git commit, the probe's verdict
``check``           the GPU test files (every kernel, launch configurations, index widths,
                    weight dtypes, streams, Louvain's global buckets), contention-heavy
                    cases repeated 20 times, ``auto`` choosing the GPU
``sanitize``        compute-sanitizer memcheck and racecheck over ``ci/gpu_small.py``
``bench-20``        every benchmark script at R-MAT 20 (GPU, CPU backend, peers)
``bench-22``        matchings and Louvain at R-MAT 22
``bench-24``        the matchings at R-MAT 24
``bench-marriage``  the marriage family: easy n = 5·10⁶ … 2.5·10⁷, hard n = 10⁵ … 5·10⁵

``--dry-run OUT`` runs ``info`` and the parts' self-checks without a GPU.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / ".gpu-data"
WHEELS = REPO / ".whl"
SHARED = REPO.parent / "shared" / "data"
SITE = Path("/tmp/cugraph_match_site")
# Wheels the peers need on the device (Python 3.12 there); pip downloads them here.
PEER_WHEELS = ["networkit", "igraph", "texttable", "matching"]
PARTS = ["info", "check", "sanitize", "bench-20", "bench-22", "bench-24", "bench-marriage"]
NEEDS_GPU = {"check", "sanitize", "bench-22", "bench-24"}


# --------------------------------------------------------------------------
# environment
# --------------------------------------------------------------------------


def environment() -> dict:
    """The variables every part runs under: our checkout first on the path,
    the carried wheels, the carried data."""
    env = dict(os.environ)
    paths = [str(REPO)]
    if SITE.exists():
        paths.append(str(SITE))
    env["PYTHONPATH"] = os.pathsep.join(paths + [env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    if DATA.exists():
        env["CUGRAPH_MATCH_DATA"] = str(DATA)
    env["PYTHONUNBUFFERED"] = "1"
    return env


def install_wheels(log) -> None:
    wheels = sorted(WHEELS.glob("*.whl")) if WHEELS.exists() else []
    if not wheels or SITE.exists():
        return
    cmd = [sys.executable, "-m", "pip", "install", "-q", "--no-index", "--no-deps",
           "--no-compile", "--target", str(SITE)] + [str(w) for w in wheels]
    result = subprocess.run(cmd, capture_output=True, text=True)
    log(f"installed {len(wheels)} carried wheel(s): exit {result.returncode} "
        f"{result.stderr.strip()[-300:]}")


def gpu_verdict(env) -> tuple[bool, str]:
    code = ("from cugraph_match.structure.device import probe; import json; "
            "print(json.dumps(probe()))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    try:
        usable, reason = json.loads(out.stdout.strip().splitlines()[-1])
    except Exception:
        return False, f"the probe did not run: {out.stderr.strip()[-400:]}"
    return bool(usable), reason


def run(cmd, out: Path, name: str, env, timeout: int = 560) -> dict:
    """Run a command, its output into OUT/<name>.log; the record of how it went."""
    start = time.perf_counter()
    with open(out / f"{name}.log", "w") as fh:
        fh.write(f"$ {' '.join(map(str, cmd))}\n")
        fh.flush()
        try:
            result = subprocess.run(cmd, stdout=fh, stderr=subprocess.STDOUT, env=env,
                                    cwd=REPO, timeout=timeout)
            code = result.returncode
        except subprocess.TimeoutExpired:
            code = "timeout"
    return {"command": " ".join(map(str, cmd)), "exit": code,
            "seconds": round(time.perf_counter() - start, 1)}


# --------------------------------------------------------------------------
# the parts
# --------------------------------------------------------------------------


def part_info(out: Path, env, gpu: tuple[bool, str]) -> dict:
    info = {"date": dt.datetime.now().isoformat(timespec="seconds"),
            "python": sys.version.split()[0], "gpu": {"usable": gpu[0], "probe": gpu[1]}}
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                            cwd=REPO)
    info["git_commit"] = commit.stdout.strip() or "unknown (no git metadata)"
    smi = shutil.which("nvidia-smi")
    if smi:
        query = subprocess.run([smi, "--query-gpu=name,driver_version,memory.total,"
                                "compute_cap", "--format=csv,noheader"],
                               capture_output=True, text=True)
        info["nvidia_smi"] = query.stdout.strip() or query.stderr.strip()
    else:
        info["nvidia_smi"] = "nvidia-smi not found"
    versions = {}
    for name in ("numpy", "pandas", "numba", "numba-cuda", "cupy-cuda13x", "cupy-cuda12x",
                 "scipy", "networkx", "networkit", "igraph", "hypothesis", "pytest"):
        try:
            from importlib.metadata import version

            versions[name] = version(name)
        except Exception:
            continue
    info["versions"] = versions
    try:
        import numba.cuda

        info["cuda_runtime"] = ".".join(map(str, numba.cuda.runtime.get_version()))
    except Exception as err:
        info["cuda_runtime"] = f"unavailable ({type(err).__name__})"
    info["cpu_cores"] = len(os.sched_getaffinity(0))
    (out / "info.json").write_text(json.dumps(info, indent=2))
    return {"exit": 0, "info": info}


def part_check(out: Path, env) -> dict:
    env = dict(env, CUGRAPH_MATCH_GPU_REPEAT="20")
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs",
           "tests/test_gpu.py", "tests/test_marriage_gpu.py",
           f"--junitxml={out / 'check.xml'}"]
    return run(cmd, out, "check", env)


def part_sanitize(out: Path, env) -> dict:
    tool = shutil.which("compute-sanitizer")
    if not tool:
        return {"exit": "skipped", "why": "compute-sanitizer not on PATH"}
    records = {}
    for check in ("memcheck", "racecheck"):
        cmd = [tool, "--tool", check, "--error-exitcode", "3", sys.executable,
               "ci/gpu_small.py"]
        records[check] = run(cmd, out, f"sanitize-{check}", env, timeout=280)
    worst = max((r["exit"] for r in records.values() if isinstance(r["exit"], int)),
                default="timeout")
    return {"exit": worst, "runs": records}


def _bench(script, args, out: Path, name: str, env, timeout=560) -> dict:
    cmd = [sys.executable, f"benchmarks/{script}", "--out-dir", str(out), "--out-name", name,
           "--data-dir", str(DATA / "graphs" if DATA.exists() else SHARED / "graphs")] + args
    return run(cmd, out, name, env, timeout=timeout)


def part_bench(out: Path, env, which: str) -> dict:
    if which == "bench-20":
        return {"runs": [
            _bench("bench_matching.py", ["--scales", "20", "--repeat", "3", "--no-rss"], out,
                   "matching_20", env, timeout=240),
            _bench("bench_bmatching.py", ["--scales", "20", "--repeat", "2", "--no-rss",
                                          "--no-real"], out, "bmatching_20", env, timeout=150),
            _bench("bench_louvain.py", ["--scales", "20", "--repeat", "1", "--no-rss",
                                        "--no-real", "--peer-repeat", "1", "--peer-warmup",
                                        "0"], out, "louvain_20", env, timeout=160)]}
    if which == "bench-22":
        return {"runs": [
            _bench("bench_matching.py", ["--scales", "22", "--repeat", "2", "--no-rss",
                                         "--no-real"], out, "matching_22", env, timeout=300),
            _bench("bench_louvain.py", ["--scales", "22", "--repeat", "1", "--no-rss",
                                        "--no-real", "--peer-repeat", "1", "--peer-warmup",
                                        "0"], out, "louvain_22", env, timeout=250)]}
    if which == "bench-24":
        return {"runs": [_bench("bench_matching.py", ["--scales", "24", "--repeat", "1",
                                                      "--no-rss", "--no-real"], out,
                                "matching_24", env, timeout=560)]}
    return {"runs": [_bench("bench_marriage.py",
                            ["--easy", "5000000", "25000000", "--hard", "100000", "500000",
                             "--repeat", "1"], out, "marriage_paper_sizes", env, timeout=560)]}


# --------------------------------------------------------------------------
# prepare (here) and the summary
# --------------------------------------------------------------------------


def prepare() -> int:
    if SHARED.exists():
        if DATA.exists():
            shutil.rmtree(DATA)
        shutil.copytree(SHARED, DATA, ignore=shutil.ignore_patterns("*.md"))
        print(f"copied {SHARED} -> {DATA}")
    else:
        print(f"no {SHARED}: the GPU tests that need the real graphs will skip")
    WHEELS.mkdir(exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
           "--python-version", "3.12", "--implementation", "cp", "-d", str(WHEELS)]
    for tag in ("manylinux_2_28_x86_64", "manylinux_2_27_x86_64", "manylinux_2_17_x86_64",
                "manylinux2014_x86_64", "manylinux1_x86_64", "any"):
        cmd += ["--platform", tag]
    result = subprocess.run(cmd + PEER_WHEELS)
    size = sum(p.stat().st_size for p in list(WHEELS.glob("*")) + list(DATA.rglob("*"))
               if p.is_file()) / 2**20
    print(f"carry .gpu-data and .whl ({size:.1f} MiB together; the device takes 64 MiB)")
    return result.returncode


def write_summary(out: Path, results: dict) -> None:
    path = out / "summary.json"
    summary = json.loads(path.read_text()) if path.exists() else {}
    summary.update(results)
    path.write_text(json.dumps(summary, indent=2, default=str))
    lines = ["# ci/gpu.sh summary", ""]
    info = summary.get("info", {}).get("info", {})
    if info:
        lines += [f"- date: {info.get('date')}", f"- git commit: {info.get('git_commit')}",
                  f"- GPU: {info.get('nvidia_smi')}", f"- probe: {info.get('gpu')}",
                  f"- CUDA runtime: {info.get('cuda_runtime')}",
                  f"- versions: {info.get('versions')}", ""]
    lines += ["| part | result | seconds |", "|---|---|---:|"]
    for name, record in summary.items():
        if name == "info":
            continue
        runs = record.get("runs")
        if isinstance(runs, list):
            exits = [r.get("exit") for r in runs]
            seconds = sum(r.get("seconds", 0) for r in runs)
            lines.append(f"| {name} | exits {exits} | {seconds:.0f} |")
        else:
            lines.append(f"| {name} | {record.get('exit')} {record.get('why', '')} | "
                         f"{record.get('seconds', '')} |")
    (out / "summary.md").write_text("\n".join(lines) + "\n")


def main(argv: list[str]) -> int:
    if argv[:1] == ["prepare"]:
        return prepare()
    dry = argv[:1] == ["--dry-run"]
    if dry:
        argv = argv[1:]
    if not argv:
        print(__doc__)
        return 2
    out = Path(argv[0])
    parts = argv[1:] or (["info"] if dry else PARTS)
    unknown = [p for p in parts if p not in PARTS]
    if unknown:
        print(f"unknown part(s) {unknown}; parts: {PARTS}")
        return 2
    out.mkdir(parents=True, exist_ok=True)
    log_lines = []

    def log(text):
        print(text, flush=True)
        log_lines.append(text)

    install_wheels(log)
    env = environment()
    gpu = gpu_verdict(env)
    log(f"GPU: {'usable' if gpu[0] else 'NOT usable'} ({gpu[1]})")
    if dry:
        parts = ["info"] + [p for p in PARTS if p != "info"]
    results, status = {}, 0
    for part in parts:
        if part != "info" and (dry or (part in NEEDS_GPU and not gpu[0])):
            why = "dry run" if dry else f"no usable GPU: {gpu[1]}"
            results[part] = {"exit": "skipped", "why": why}
            log(f"{part}: skipped ({why})")
            continue
        log(f"{part}: running")
        if part == "info":
            record = part_info(out, env, gpu)
        elif part == "check":
            record = part_check(out, env)
        elif part == "sanitize":
            record = part_sanitize(out, env)
        else:
            record = part_bench(out, env, part)
        results[part] = record
        exits = [r.get("exit") for r in record.get("runs", [record])]
        bad = [e for e in exits if e not in (0, "skipped")]
        status = status or (1 if bad else 0)
        log(f"{part}: exit {exits}")
        write_summary(out, results)
    write_summary(out, results)
    (out / "driver.log").write_text("\n".join(log_lines) + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
