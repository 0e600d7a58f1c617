"""The driver behind ``ci/gpu.sh``: one lent GPU, a few commands, every result kept.

A lent GPU machine (see the device tool's README) receives the checkout only,
runs one command at a time for at most ten minutes, has no network, and
carries an image with CuPy, numba-cuda, pytest, hypothesis, NumPy, pandas,
SciPy, NetworkX and more (``DEVICE_IMAGE`` below) but nothing else of ours.
So:

* ``prepare`` runs *here*, before the lease: it copies the shared real graphs
  into ``.gpu-data/`` and downloads into ``.whl/`` the Python 3.12 manylinux
  wheels of every dependency the device image lacks: this package's own
  runtime, test and Dask requirements, the peers' (NetworKit, igraph, the
  ``matching`` package), and their dependencies in turn, each at the version
  installed here (the one the tests pass with) when there is one.  Both
  folders are git-ignored and go to the device as carried paths.
* every other part runs *there* (or anywhere with ``--dry-run``): it installs
  the carried wheels into a temporary folder (``--no-index --no-deps``; a
  failed install ends the run), puts the checkout and that folder on
  ``PYTHONPATH``, checks that every requirement of ours and of each carried
  wheel is met by the versions it finds, imports the package and probes the
  GPU.  A requirement not met, a package that does not import, or a GPU part
  asked for where no GPU works ends the run with a non-zero status and the
  reason; nothing is skipped quietly.  Results go to ``OUT/<part>.log``,
  ``OUT/<part>.json`` and the running summary ``OUT/summary.{json,md}``.

Parts, one device command each (each well inside ten minutes on an H100 with
16 cores, Numba's compilation included):

``info``                device, driver, CUDA, package versions, git commit, the probe's verdict
``registers``           every kernel compiled (small calls), registers per thread, the largest
                        block the driver allows, spills; a caller-sized kernel that cannot take
                        1,024 threads fails
``check``               tests/test_gpu.py: matchings, b-matching, handshake, coarsening,
                        Louvain's buckets, streams, index widths, contention cases x20
``check-roma-marriage`` tests/test_roma_gpu.py and tests/test_marriage_gpu.py
``check-dask``          tests/test_dask_gpu.py: the Dask matchings' supersteps on a one-GPU
                        cluster (dask_cuda's LocalCUDACluster when installed, else one worker
                        process) against the single-GPU call and the CPU workers
``sanitize-memcheck``   compute-sanitizer memcheck over ``ci/gpu_small.py``
``sanitize-racecheck``  compute-sanitizer racecheck over ``ci/gpu_small.py``
``bench-20``            every benchmark script at R-MAT 20 (GPU, CPU backend, peers)
``bench-22``            matchings and Louvain at R-MAT 22
``bench-24``            the matchings at R-MAT 24
``bench-dask``          benchmarks/bench_dask.py at R-MAT 20 with the supersteps on the GPU, 1 and
                        2 worker processes sharing the machine's GPU, beside the single GPU call
``bench-dask-cpu``      benchmarks/bench_dask.py on the CPU (no GPU needed): R-MAT 20 and the
                        2048² grid on 2 and 4 workers, three clusters each, where the workers do
                        not share two cores (the CPU target of the distributed matching)
``bench-marriage``      the marriage family: easy n = 5·10⁶ … 2.5·10⁷, hard n = 10⁵ … 5·10⁵

``--dry-run OUT`` runs ``info`` and the checks that need no GPU: the wheels it
would carry (those of ``.whl/`` and what a ``prepare`` would fetch), their
install into a clean target as the device does and their requirements, when
``.whl/`` holds them.
"""

from __future__ import annotations

import datetime as dt
import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / ".gpu-data"
WHEELS = Path(os.environ.get("CUGRAPH_MATCH_WHEELS", REPO / ".whl"))
SITE = Path(os.environ.get("CUGRAPH_MATCH_SITE", "/tmp/cugraph_match_site"))
# Peers the benchmarks time (bench_*.py import them when present).
PEER_REQUIREMENTS = ["networkit>=11.0", "igraph>=0.11", "matching>=1.4"]
# Extras of ours whose requirements the device needs: the tests and the Dask path.
EXTRAS = ("test", "dask")
# The packages the device image holds (KINDS.md's list, read off a machine on
# 2026-11-17; versions seen there: numpy 2.5.2, cupy-cuda13x 14.2.0).  They
# are used from the image; the device run checks their versions against our
# requirements and names any that falls short (carry it with
# CUGRAPH_MATCH_CARRY="name==version" at prepare time).
DEVICE_IMAGE = frozenset("""
absl-py accelerate aiofiles aiohappyeyeballs aiohttp aiosignal annotated-doc anyio attrs botorch
build certifi charset-normalizer chex click cloudpickle cmake colorama contourpy coverage
cuda-bindings cuda-core cuda-pathfinder cuda-toolkit cupy-cuda13x cycler cython diffrax e3nn
einops equinox etils execnet filelock flatbuffers flax fonttools formulaic frozenlist fsspec
gpytorch grpcio h11 h5py hf-xet httpcore httpx huggingface-hub humanize hypothesis idna imageio
iniconfig interface-meta jax jax-cuda13-pjrt jax-cuda13-plugin jaxlib jaxtyping jinja2 joblib
kiwisolver lazy-loader lightning lightning-utilities linear-operator lineax llvmlite lxml
markdown markdown-it-py markupsafe matplotlib mdurl meson ml-dtypes mpi4py mpmath msgpack
multidict multipledispatch mypy-extensions nanobind narwhals networkx ninja numba numba-cuda
numpy numpyro nvidia-cublas nvidia-cuda-cupti nvidia-cuda-nvrtc nvidia-cuda-runtime
nvidia-cudnn-cu13 nvidia-cufft nvidia-cufile nvidia-curand nvidia-cusolver nvidia-cusparse
nvidia-cusparselt-cu13 nvidia-ml-py nvidia-nccl-cu13 nvidia-nvjitlink nvidia-nvshmem-cu13
nvidia-nvtx onnx onnx-ir onnxruntime onnxscript opencv-python-headless optax opt-einsum
opt-einsum-fx optimistix orbax-checkpoint packaging pandas pathspec patsy peft pillow pip pluggy
portalocker prometheus-client propcache protobuf psutil pyarrow pybind11 py-cpuinfo pygments
pyparsing pyproject-hooks pyre-extensions pytest pytest-benchmark pytest-cov pytest-mock
pytest-timeout pytest-xdist python-dateutil pytorch-lightning pyyaml regex requests rich
sacrebleu safetensors scikit-build-core scikit-image scikit-learn scipy seaborn sentencepiece
sentence-transformers setuptools shellingham simplejson six sortedcontainers statsmodels sympy
tabulate tensorboard tensorboard-data-server tensorstore threadpoolctl tifffile tiktoken timm
tokenizers toolz torch torchaudio torchdiffeq torch-geometric torchmetrics torchvision tqdm
transformers treescope triton typer typing-extensions typing-inspect urllib3 uvloop
wadler-lindig werkzeug wheel wrapt xarray xxhash yarl zipp
""".split())
# Where the device's Python stands (python3 is 3.12 there), for markers and wheel tags.
DEVICE_MARKERS = {"python_version": "3.12", "python_full_version": "3.12.3",
                  "sys_platform": "linux", "platform_system": "Linux",
                  "platform_machine": "x86_64", "os_name": "posix",
                  "implementation_name": "cpython", "platform_python_implementation": "CPython"}
WHEEL_TARGET = ["--only-binary=:all:", "--python-version", "3.12", "--implementation", "cp",
                "--platform", "manylinux_2_28_x86_64", "--platform", "manylinux_2_27_x86_64",
                "--platform", "manylinux_2_17_x86_64", "--platform", "manylinux2014_x86_64",
                "--platform", "manylinux1_x86_64", "--platform", "any"]
PARTS = ["info", "registers", "check", "check-roma-marriage", "check-dask",
         "sanitize-memcheck", "sanitize-racecheck", "bench-20", "bench-22", "bench-24",
         "bench-marriage", "bench-dask", "bench-dask-cpu"]
#: Parts that run on the device machine's CPUs only.
CPU_PARTS = {"info", "bench-dask-cpu"}
NEEDS_GPU = set(PARTS) - CPU_PARTS
# seconds each part's command may run: the device command's ten minutes less
# the wheel install and the probe (about half a minute)
BUDGET = 540


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


# --------------------------------------------------------------------------
# requirements and wheels
# --------------------------------------------------------------------------


def our_requirements() -> list[str]:
    """The requirement strings of this package: runtime, and the extras in EXTRAS."""
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    wanted = list(project.get("dependencies", []))
    for extra in EXTRAS:
        wanted += project.get("optional-dependencies", {}).get(extra, [])
    return wanted


def _requirement(text: str):
    from packaging.requirements import Requirement

    return Requirement(text)


def applies(requirement, extras=()) -> bool:
    """Whether a requirement holds on the device's Python (3.12, Linux) for these extras."""
    if requirement.marker is None:
        return True
    return any(requirement.marker.evaluate(dict(DEVICE_MARKERS, extra=e))
               for e in (tuple(extras) or ("",)))


def wheel_metadata(path: Path) -> tuple[str, str, list[str]]:
    """(name, version, Requires-Dist lines) read from a wheel's METADATA."""
    with zipfile.ZipFile(path) as archive:
        meta = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        text = archive.read(meta).decode("utf-8", "replace")
    headers = text.split("\n\n", 1)[0]
    name = re.search(r"^Name: (.+)$", headers, re.M).group(1).strip()
    version = re.search(r"^Version: (.+)$", headers, re.M).group(1).strip()
    requires = [m.strip() for m in re.findall(r"^Requires-Dist: (.+)$", headers, re.M)]
    return name, version, requires


def carried_wheels(folder: Path = WHEELS) -> dict[str, tuple[Path, str, list[str]]]:
    """canonical name -> (wheel, version, requirements) of the wheels in ``folder``."""
    found: dict = {}
    for path in sorted(folder.glob("*.whl")) if folder.exists() else []:
        name, version, requires = wheel_metadata(path)
        key = canonical(name)
        if key in found:
            raise SystemExit(f"two wheels of {name} in {folder} ({found[key][0].name}, "
                             f"{path.name}): the device install takes one; remove one")
        found[key] = (path, version, requires)
    return found


def IMAGE_OVERRIDES() -> list[str]:  # noqa: N802 - a constant read when needed
    """Image packages carried anyway, at the version installed here: the
    image's NumPy (2.5.2) has no ``np.row_stack``, which its numba 0.68.0
    still uses, so no kernel compiled there (seen on the first lent H100,
    2026-11-27); the NumPy the tests pass with here does."""
    from importlib.metadata import version

    return [f"numpy=={version('numpy')}"]


def plan_roots() -> list:
    """The requirements a carry starts from: ours and the peers', less the
    image's, one per distribution (specifiers and extras merged)."""
    merged: dict = {}
    forced = os.environ.get("CUGRAPH_MATCH_CARRY", "").split()  # image packages too old there
    forced += [text for text in IMAGE_OVERRIDES()
               if canonical(_requirement(text).name) not in
               {canonical(_requirement(f).name) for f in forced}]
    for text in our_requirements() + PEER_REQUIREMENTS + forced:
        requirement = _requirement(text)
        key = canonical(requirement.name)
        if not applies(requirement) or (key in DEVICE_IMAGE and text not in forced):
            continue
        if key in merged:
            first = merged[key]
            first.extras |= requirement.extras
            first.specifier &= requirement.specifier
        else:
            merged[key] = requirement
    return list(merged.values())


def pinned(requirement) -> str:
    """``name==version`` at the version installed here (the tested one) when it
    satisfies the requirement, else the requirement as it stands."""
    try:
        here = importlib.metadata.version(requirement.name)
    except importlib.metadata.PackageNotFoundError:
        here = None
    extras = f"[{','.join(sorted(requirement.extras))}]" if requirement.extras else ""
    if here is not None and requirement.specifier.contains(here, prereleases=True):
        return f"{requirement.name}{extras}=={here}"
    return f"{requirement.name}{extras}{requirement.specifier}"


def planned_carry() -> list[str]:
    """Every wheel ``prepare`` would fetch, as ``name==version``, worked out from
    the distributions installed here (their metadata; no download): the roots
    and, recursively, their requirements the image lacks.  A distribution not
    installed here is listed by its requirement (``prepare`` takes PyPI's latest)."""
    extras: dict = {}
    queue, listed = plan_roots(), {}
    while queue:
        requirement = queue.pop(0)
        key = canonical(requirement.name)
        fresh = set(requirement.extras) - extras.get(key, set())
        if key in listed and not fresh:
            continue
        extras[key] = extras.get(key, set()) | set(requirement.extras)
        try:
            distribution = importlib.metadata.distribution(requirement.name)
        except importlib.metadata.PackageNotFoundError:
            listed[key] = str(requirement)
            continue
        listed[key] = f"{distribution.metadata['Name']}=={distribution.version}"
        for text in distribution.requires or []:
            needed = _requirement(text)
            if applies(needed, extras[key]) and canonical(needed.name) not in DEVICE_IMAGE:
                queue.append(needed)
    return sorted(listed.values(), key=str.lower)


def closure_problems(wheels: dict, roots, image=DEVICE_IMAGE) -> list[str]:
    """What the carried wheels leave unmet on the device: a root or a carried
    wheel's requirement that is neither in the image nor carried at a version
    that satisfies it.  Image packages' versions are checked on the device."""
    problems = []
    wanted = [(r, tuple(r.extras), "required by cugraph_match or a peer") for r in roots]
    for key, (path, _, requires) in wheels.items():
        extras = _extras_wanted(key, roots, wheels)
        for text in requires:
            requirement = _requirement(text)
            if applies(requirement, extras):
                wanted.append((requirement, tuple(requirement.extras), f"required by {path.name}"))
    for requirement, _, why in wanted:
        key = canonical(requirement.name)
        if key in wheels:
            version = wheels[key][1]
            if not requirement.specifier.contains(version, prereleases=True):
                problems.append(f"{requirement} ({why}): carried {version}")
        elif key not in image:
            problems.append(f"{requirement} ({why}): neither carried nor in the device image")
    return problems


def _extras_wanted(key: str, roots, wheels) -> set[str]:
    extras = {e for r in roots if canonical(r.name) == key for e in r.extras}
    for _, _, requires in wheels.values():
        for text in requires:
            requirement = _requirement(text)
            if canonical(requirement.name) == key and applies(requirement):
                extras |= set(requirement.extras)
    return extras


def prepare_wheels(log=print) -> int:
    """Download the carry: the roots, then every requirement of a downloaded
    wheel the image lacks, level by level, one wheel per distribution."""
    WHEELS.mkdir(parents=True, exist_ok=True)
    for stale in WHEELS.glob("*.whl"):
        stale.unlink()
    queue, seen, status = plan_roots(), set(), 0
    while queue:
        level = [r for r in queue if canonical(r.name) not in seen]
        seen |= {canonical(r.name) for r in level}
        if not level:
            break
        specs = sorted({pinned(r) for r in level})
        log(f"downloading {' '.join(specs)}")
        result = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                                 "-d", str(WHEELS)] + WHEEL_TARGET + specs)
        status = status or result.returncode
        wheels = carried_wheels()
        queue = []
        for key in {canonical(r.name) for r in level} & set(wheels):
            extras = _extras_wanted(key, plan_roots(), wheels)
            for text in wheels[key][2]:
                requirement = _requirement(text)
                if applies(requirement, extras) and canonical(requirement.name) not in seen \
                        and canonical(requirement.name) not in DEVICE_IMAGE:
                    queue.append(requirement)
    return status


def install_carried(target: Path, wheels: dict, for_device_here: bool) -> tuple[int, str]:
    """``pip install --no-index --no-deps`` of the carried wheels into a clean
    ``target``, as the device does (``for_device_here``: with the device's
    Python 3.12 tags, from this machine)."""
    if target.exists():
        shutil.rmtree(target)
    cmd = [sys.executable, "-m", "pip", "install", "-q", "--no-index", "--no-deps",
           "--no-compile", "--no-cache-dir", "--target", str(target)]
    if for_device_here:
        cmd += WHEEL_TARGET
    cmd += [str(path) for path, _, _ in wheels.values()]
    result = subprocess.run(cmd, capture_output=True, text=True)
    return result.returncode, (result.stderr or result.stdout).strip()[-2000:]


# --------------------------------------------------------------------------
# the device side: environment, requirement check, probe
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


# Run in the parts' environment: every requirement of ours and of the carried
# wheels against the versions found, then the package's import and the probe.
_PROBE = r"""
import importlib.metadata as md, json, sys
from packaging.requirements import Requirement
out = {"unmet": [], "import_error": None, "probe": None}
for text, why, extras in json.loads(sys.argv[1]):
    r = Requirement(text)
    if r.marker is not None and not any(r.marker.evaluate({"extra": e}) for e in extras or [""]):
        continue
    try:
        found = md.version(r.name)
    except md.PackageNotFoundError:
        out["unmet"].append(f"{r} ({why}): not installed")
        continue
    if not r.specifier.contains(found, prereleases=True):
        out["unmet"].append(f"{r} ({why}): found {found}")
try:
    import cugraph_match
    from cugraph_match.structure.device import probe
    out["probe"] = list(probe())
    out["package"] = cugraph_match.__file__
except BaseException as err:
    import traceback
    out["import_error"] = "".join(traceback.format_exception_only(type(err), err)).strip()
print(json.dumps(out))
"""


def device_check(env, carried: dict) -> dict:
    """Requirements met (ours, and the ``carried`` wheels' with the extras
    asked of them), package imported, GPU probed, in a fresh interpreter."""
    wanted = [(text, "cugraph_match", []) for text in our_requirements()]
    roots = plan_roots()
    for key, (path, _, requires) in carried.items():
        extras = sorted(_extras_wanted(key, roots, carried))
        wanted += [(text, path.name, extras) for text in requires]
    cmd = [sys.executable, "-c", _PROBE, json.dumps(wanted)]
    result = subprocess.run(cmd, capture_output=True, text=True, env=env,
                            cwd=tempfile.gettempdir())
    try:
        return json.loads(result.stdout.strip().splitlines()[-1])
    except Exception:
        return {"unmet": [], "probe": None,
                "import_error": f"the probe did not run: {result.stderr.strip()[-800:]}"}


def verdict(check: dict) -> tuple[str, str]:
    """("broken" | "no-gpu" | "gpu", reason)."""
    if check.get("import_error"):
        return "broken", f"cugraph_match does not import: {check['import_error']}"
    usable, reason = check["probe"]
    return ("gpu" if usable else "no-gpu"), reason


def run(cmd, out: Path, name: str, env, timeout: int = BUDGET) -> dict:
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


def part_info(out: Path, env, check: dict, carried: dict) -> dict:
    info = {"date": dt.datetime.now().isoformat(timespec="seconds"),
            "python": sys.version.split()[0], "gpu": {"probe": check.get("probe")},
            "carried_wheels": sorted(p.name for p, _, _ in carried.values()),
            "unmet_requirements": check.get("unmet", [])}
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
    names = ("numpy", "pandas", "numba", "numba-cuda", "cupy-cuda13x", "cupy-cuda12x", "scipy",
             "networkx", "dask", "distributed", "rustworkx", "networkit", "igraph", "matching",
             "hypothesis", "pytest")
    code = ("import importlib.metadata as md, json, sys; v = {}\n"
            "for n in sys.argv[1:]:\n"
            "    try: v[n] = md.version(n)\n"
            "    except md.PackageNotFoundError: pass\n"
            "try:\n"
            "    import numba.cuda\n"
            "    v['cuda_runtime'] = '.'.join(map(str, numba.cuda.runtime.get_version()))\n"
            "except Exception as err: v['cuda_runtime'] = f'unavailable ({type(err).__name__})'\n"
            "print(json.dumps(v))")
    found = subprocess.run([sys.executable, "-c", code, *names], capture_output=True, text=True,
                           env=env, cwd=tempfile.gettempdir())
    try:
        versions = json.loads(found.stdout.strip().splitlines()[-1])
    except Exception:
        versions = {"error": found.stderr.strip()[-400:]}
    info["cuda_runtime"] = versions.pop("cuda_runtime", "unknown")
    info["versions"] = versions
    info["cpu_cores"] = len(os.sched_getaffinity(0))
    (out / "info.json").write_text(json.dumps(info, indent=2))
    return {"exit": 0, "info": info}


def part_registers(out: Path, env) -> dict:
    cmd = [sys.executable, "ci/gpu_registers.py", str(out / "registers.json")]
    return run(cmd, out, "registers", env)


def part_check(out: Path, env, name: str, files: list[str]) -> dict:
    env = dict(env, CUGRAPH_MATCH_GPU_REPEAT="20")
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", *files,
           f"--junitxml={out / (name + '.xml')}"]
    return run(cmd, out, name, env)


def part_sanitize(out: Path, env, check: str) -> dict:
    tool = shutil.which("compute-sanitizer")
    if not tool:
        return {"exit": "failed", "why": "compute-sanitizer not on PATH"}
    cmd = [tool, "--tool", check, "--error-exitcode", "3", sys.executable, "ci/gpu_small.py"]
    return run(cmd, out, f"sanitize-{check}", env)


def _bench(script, args, out: Path, name: str, env, timeout) -> dict:
    cmd = [sys.executable, f"benchmarks/{script}", "--out-dir", str(out), "--out-name", name,
           "--data-dir", str(DATA / "graphs" if DATA.exists() else shared_data() / "graphs")]
    return run(cmd + args, out, name, env, timeout=timeout)


def part_bench(out: Path, env, which: str) -> dict:
    if which == "bench-dask":  # the Dask matching's supersteps on the GPU, 1 and 2 workers
        name = "dask_gpu_20"
        return {"runs": [run([sys.executable, "benchmarks/bench_dask.py", "--graphs", "rmat20",
                              "--workers", "1", "2", "--backend", "gpu", "--out",
                              str(out / name)], out, name, env, timeout=BUDGET)]}
    if which == "bench-dask-cpu":  # the workers' CPU over one machine's, 16 cores
        return {"runs": [run([sys.executable, "benchmarks/bench_dask.py", "--graphs", graph,
                              "--workers", "2", "4", "--repeat", "3", "--out", str(out / name)],
                             out, name, env, timeout=seconds)
                         for graph, name, seconds in (("rmat20:int64", "dask_cpu_rmat20", 300),
                                                      ("mesh2048", "dask_cpu_grid", 230))]}
    if which == "bench-20":
        return {"runs": [
            _bench("bench_matching.py", ["--scales", "20", "--repeat", "3", "--no-rss"], out,
                   "matching_20", env, timeout=230),
            _bench("bench_bmatching.py", ["--scales", "20", "--repeat", "2", "--no-rss",
                                          "--no-real"], out, "bmatching_20", env, timeout=150),
            _bench("bench_louvain.py", ["--scales", "20", "--repeat", "1", "--no-rss",
                                        "--no-real", "--peer-repeat", "1", "--peer-warmup",
                                        "0"], out, "louvain_20", env, timeout=150)]}
    if which == "bench-22":
        return {"runs": [
            _bench("bench_matching.py", ["--scales", "22", "--repeat", "2", "--no-rss",
                                         "--no-real"], out, "matching_22", env, timeout=290),
            _bench("bench_louvain.py", ["--scales", "22", "--repeat", "1", "--no-rss",
                                        "--no-real", "--peer-repeat", "1", "--peer-warmup",
                                        "0"], out, "louvain_22", env, timeout=240)]}
    if which == "bench-24":
        return {"runs": [_bench("bench_matching.py", ["--scales", "24", "--repeat", "1",
                                                      "--no-rss", "--no-real"], out,
                                "matching_24", env, timeout=BUDGET)]}
    return {"runs": [_bench("bench_marriage.py",
                            ["--easy", "5000000", "25000000", "--hard", "100000", "500000",
                             "--repeat", "1"], out, "marriage_paper_sizes", env, timeout=BUDGET)]}


def run_part(part: str, out: Path, env, check: dict, carried: dict) -> dict:
    if part == "info":
        return part_info(out, env, check, carried)
    if part == "registers":
        return part_registers(out, env)
    if part == "check":
        return part_check(out, env, "check", ["tests/test_gpu.py"])
    if part == "check-roma-marriage":
        return part_check(out, env, "check-roma-marriage",
                          ["tests/test_roma_gpu.py", "tests/test_marriage_gpu.py"])
    if part == "check-dask":  # a one-GPU Dask cluster against the single-GPU call
        return part_check(out, env, "check-dask", ["tests/test_dask_gpu.py"])
    if part.startswith("sanitize-"):
        return part_sanitize(out, env, part.split("-", 1)[1])
    return part_bench(out, env, part)


# --------------------------------------------------------------------------
# prepare (here), the dry run's carry check, and the summary
# --------------------------------------------------------------------------


def shared_data() -> Path:
    """The shared real graphs: $CUGRAPH_MATCH_DATA, or ../shared/data beside the
    main checkout (a worktree's own parent has none)."""
    if os.environ.get("CUGRAPH_MATCH_DATA"):
        return Path(os.environ["CUGRAPH_MATCH_DATA"])
    common = subprocess.run(["git", "rev-parse", "--path-format=absolute", "--git-common-dir"],
                            capture_output=True, text=True, cwd=REPO).stdout.strip()
    main = Path(common).parent if common else REPO
    return main.parent / "shared" / "data"


def prepare() -> int:
    shared = shared_data()
    if shared.exists():
        if DATA.exists():
            shutil.rmtree(DATA)
        shutil.copytree(shared, DATA, ignore=shutil.ignore_patterns("*.md"))
        print(f"copied {shared} -> {DATA}")
    else:
        print(f"no {shared}: the GPU tests that need the real graphs will skip")
    status = prepare_wheels()
    wheels = carried_wheels()
    problems = closure_problems(wheels, plan_roots())
    with tempfile.TemporaryDirectory() as target:
        code, text = install_carried(Path(target) / "site", wheels, for_device_here=True)
    for path, version, _ in wheels.values():
        print(f"  carry {path.name}")
    for problem in problems:
        print(f"  unmet: {problem}")
    if code:
        print(f"the carried wheels do not install into a clean target: {text}")
    size = sum(p.stat().st_size for p in list(WHEELS.glob("*")) + list(DATA.rglob("*"))
               if p.is_file()) / 2**20
    print(f"carry .gpu-data and .whl ({size:.1f} MiB together; the device takes 64 MiB with "
          f"the checkout)")
    return status or code or (1 if problems else 0)


def dry_carry(log) -> tuple[dict, bool]:
    """What the device would get: the wheels present (installed into a clean
    target as there, requirements closed), or the roots a prepare would fetch."""
    wheels = carried_wheels()
    roots = plan_roots()
    record: dict = {"roots": [pinned(r) for r in roots], "planned": planned_carry()}
    if not wheels:
        log(f"carry: no wheels in {WHEELS}; `bash ci/gpu.sh prepare` would fetch "
            f"{len(record['planned'])} (as installed here): {' '.join(record['planned'])}")
        record["wheels"] = []
        return record, True
    record["wheels"] = sorted(p.name for p, _, _ in wheels.values())
    for name in record["wheels"]:
        log(f"carry: {name}")
    missing = [p for p in record["planned"] if canonical(_requirement(p).name) not in wheels]
    problems = [f"{m}: no wheel in {WHEELS} (run prepare)" for m in missing]
    problems += closure_problems(wheels, roots)
    with tempfile.TemporaryDirectory() as target:
        code, text = install_carried(Path(target) / "site", wheels, for_device_here=True)
    if code:
        problems.append(f"the wheels do not install into a clean target: {text}")
    record["problems"] = problems
    for problem in problems:
        log(f"carry problem: {problem}")
    if not problems:
        log(f"carry: {len(wheels)} wheel(s) install into a clean target with --no-index and "
            f"meet every requirement not left to the device image")
    return record, not problems


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
                  f"- versions: {info.get('versions')}",
                  f"- carried wheels: {len(info.get('carried_wheels', []))}", ""]
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

    def finish(results, status):
        write_summary(out, results)
        (out / "driver.log").write_text("\n".join(log_lines) + "\n")
        return status

    results: dict = {}
    carried = carried_wheels()
    if dry:
        record, ok = dry_carry(log)
        results["carry"] = {"exit": 0 if ok else 1, **record}
        if not ok:
            return finish(results, 1)
    elif carried:
        code, text = install_carried(SITE, carried, for_device_here=False)
        log(f"installed {len(carried)} carried wheel(s) into {SITE}: exit {code}")
        if code:
            log(f"ERROR: the carried wheels did not install: {text}")
            results["install"] = {"exit": code, "why": text[-300:]}
            return finish(results, 1)
    env = environment()
    # a dry run checks our requirements here; the carried wheels' are the device's
    check = device_check(env, {} if dry else carried)
    state, reason = verdict(check)
    for problem in check.get("unmet", []):
        log(f"ERROR: requirement not met: {problem}")
    if state == "broken" or check.get("unmet"):
        why = reason if state == "broken" else f"{len(check['unmet'])} requirement(s) not met"
        log(f"ERROR: {why}")
        results["probe"] = {"exit": 1, "why": why, "unmet": check.get("unmet", [])}
        return finish(results, 1)
    log(f"GPU: {'usable' if state == 'gpu' else 'NOT usable'} ({reason})")
    if dry:
        parts = ["info"] + [p for p in PARTS if p != "info"]
    status = 0
    for part in parts:
        if part != "info" and dry:
            results[part] = {"exit": "skipped", "why": "dry run"}
            log(f"{part}: skipped (dry run)")
            continue
        if part in NEEDS_GPU and state != "gpu":
            results[part] = {"exit": "failed", "why": f"no usable GPU: {reason}"}
            log(f"ERROR: {part} needs a GPU and none is usable here: {reason}")
            status = 1
            continue
        log(f"{part}: running")
        record = run_part(part, out, env, check, carried)
        results[part] = record
        exits = [r.get("exit") for r in record.get("runs", [record])]
        status = status or (1 if [e for e in exits if e != 0] else 0)
        log(f"{part}: exit {exits}")
        write_summary(out, results)
    return finish(results, status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
