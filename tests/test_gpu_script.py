"""``ci/gpu.sh`` stays runnable where there is no GPU and cannot pass quietly
where it should fail.

The dry run reports the machine, lists the wheels a device run would carry,
skips every GPU part and says why; nothing here downloads (``prepare`` is
the only part that does, and it runs by hand before a lease).  The carry
check (install into a clean target with ``--no-index`` as the device does,
every requirement met) is exercised on small wheels built here; the real
ones are checked by the dry run whenever ``.whl/`` holds them.
"""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from importlib import util
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _gpu_run():
    spec = util.spec_from_file_location("gpu_run", REPO / "ci" / "gpu_run.py")
    module = util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gpu_run = _gpu_run()


def test_dry_run_reports_lists_the_carry_and_skips(tmp_path):
    out = tmp_path / "out"
    result = subprocess.run(["bash", "ci/gpu.sh", "--dry-run", str(out)], cwd=REPO,
                            capture_output=True, text=True, timeout=120,
                            env={"PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin",
                                 "PYTHON": sys.executable, "HOME": str(tmp_path),
                                 "CUGRAPH_MATCH_WHEELS": str(tmp_path / "no-wheels")})
    assert result.returncode == 0, result.stdout + result.stderr
    summary = json.loads((out / "summary.json").read_text())
    info = summary["info"]["info"]
    assert info["git_commit"] and info["versions"]["numpy"]
    for part in gpu_run.PARTS[1:]:
        assert summary[part]["exit"] == "skipped", part
    # our dependencies the device image lacks, and the peers', pinned to the tested versions
    roots = summary["carry"]["roots"]
    for name in ("dask[dataframe]==", "distributed==", "rustworkx==", "networkit==", "igraph==",
                 "matching=="):
        assert any(r.startswith(name) for r in roots), (name, roots)
    assert not any(r.split("[")[0].split("=")[0] in ("pandas", "numba") for r in roots)
    # the image's NumPy is carried anyway, at the version installed here: the
    # image's numba cannot compile under the image's NumPy (gpu_run.IMAGE_OVERRIDES)
    from importlib.metadata import version

    assert [r for r in roots if r.startswith("numpy")] == [f"numpy=={version('numpy')}"]
    # and what those need beyond the image (read from the metadata installed here)
    planned = {p.split("==")[0].lower() for p in summary["carry"]["planned"]}
    assert {"dask", "distributed", "partd", "tornado", "zict", "tblib", "locket"} <= planned
    assert not planned & {"pandas", "toolz", "cloudpickle", "pyarrow"}  # the image's
    assert "would fetch" in result.stdout and "GPU:" in result.stdout
    text = (out / "summary.md").read_text()
    assert "skipped" in text and "git commit" in text


def test_parts_refer_to_existing_files():
    for script in ("bench_matching.py", "bench_bmatching.py", "bench_louvain.py",
                   "bench_marriage.py"):
        assert (REPO / "benchmarks" / script).exists()
    for name in ("test_gpu.py", "test_marriage_gpu.py", "test_roma_gpu.py"):
        assert (REPO / "tests" / name).exists()
    for name in ("gpu_small.py", "gpu_registers.py"):  # device-only scripts: at least they parse
        compile((REPO / "ci" / name).read_text(), name, "exec")
    assert gpu_run.NEEDS_GPU == set(gpu_run.PARTS) - {"info", "bench-dask-cpu"}
    assert (REPO / "benchmarks" / "bench_dask.py").exists()


def test_unknown_part_is_refused(tmp_path):
    result = subprocess.run([sys.executable, "ci/gpu_run.py", str(tmp_path), "bogus"],
                            cwd=REPO, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "unknown part" in result.stdout


# -- the carry check on wheels built here ----------------------------------------------


def _wheel(folder: Path, name: str, version: str, requires=()) -> Path:
    """A pure-Python wheel of one module, as pip builds them."""
    dist = f"{name}-{version}.dist-info"
    path = folder / f"{name}-{version}-py3-none-any.whl"
    meta = "Metadata-Version: 2.1\nName: {}\nVersion: {}\n{}\n".format(
        name, version, "".join(f"Requires-Dist: {r}\n" for r in requires))
    files = {f"{name}/__init__.py": f"VERSION = {version!r}\n", f"{dist}/METADATA": meta,
             f"{dist}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
                              "Tag: py3-none-any\n"}
    files[f"{dist}/RECORD"] = "".join(f"{f},,\n" for f in files) + f"{dist}/RECORD,,\n"
    with zipfile.ZipFile(path, "w") as archive:
        for member, text in files.items():
            archive.writestr(member, text)
    return path


def test_carry_check_finds_unmet_requirements(tmp_path):
    _wheel(tmp_path, "alpha", "1.0", ["beta>=2", "numpy>=1.26", "gamma; extra == 'more'",
                                      "delta; python_version < '3.12'"])
    _wheel(tmp_path, "beta", "1.5")
    wheels = gpu_run.carried_wheels(tmp_path)
    assert set(wheels) == {"alpha", "beta"}
    roots = [gpu_run._requirement("alpha>=1"), gpu_run._requirement("epsilon")]
    problems = gpu_run.closure_problems(wheels, roots)
    # beta too old, epsilon nowhere; numpy is the image's, gamma/delta do not apply on 3.12
    assert len(problems) == 2, problems
    assert any("beta>=2" in p and "carried 1.5" in p for p in problems)
    assert any("epsilon" in p and "neither carried nor in the device image" in p
               for p in problems)
    roots = [gpu_run._requirement("alpha[more]")]
    assert any("gamma" in p for p in gpu_run.closure_problems(wheels, roots))


def test_carry_installs_into_a_clean_target_as_on_the_device(tmp_path):
    wheels_dir = tmp_path / "wheels"
    wheels_dir.mkdir()
    _wheel(wheels_dir, "alpha", "1.0", ["beta>=1"])
    _wheel(wheels_dir, "beta", "1.5")
    wheels = gpu_run.carried_wheels(wheels_dir)
    assert gpu_run.closure_problems(wheels, [gpu_run._requirement("alpha")]) == []
    code, text = gpu_run.install_carried(tmp_path / "site", wheels, for_device_here=True)
    assert code == 0, text
    assert (tmp_path / "site" / "alpha" / "__init__.py").exists()
    (wheels_dir / "beta-1.5-py3-none-any.whl").write_bytes(b"not a wheel")
    with pytest.raises(Exception):
        gpu_run.carried_wheels(wheels_dir)  # an unreadable wheel is an error, not a skip
    _wheel(wheels_dir, "beta", "1.5")
    _wheel(wheels_dir, "beta", "1.6")
    with pytest.raises(SystemExit, match="two wheels of beta"):
        gpu_run.carried_wheels(wheels_dir)


# -- a device run that must fail, and says why ---------------------------------------------


def _device_run(monkeypatch, tmp_path, check, parts, carried=None):
    monkeypatch.setattr(gpu_run, "device_check", lambda env, wheels: check)
    monkeypatch.setattr(gpu_run, "carried_wheels", lambda folder=None: carried or {})
    monkeypatch.setattr(gpu_run, "SITE", tmp_path / "site")
    out = tmp_path / "out"
    status = gpu_run.main([str(out), *parts])
    return status, json.loads((out / "summary.json").read_text()), \
        (out / "driver.log").read_text()


def test_a_package_that_does_not_import_fails_the_run(monkeypatch, tmp_path):
    check = {"unmet": [], "probe": None, "import_error": "ModuleNotFoundError: No module named "
                                                         "'scipy'"}
    status, summary, log = _device_run(monkeypatch, tmp_path, check, ["info", "check"])
    assert status == 1
    assert "does not import" in summary["probe"]["why"] and "scipy" in log
    assert "check" not in summary  # nothing ran, nothing reported as skipped


def test_an_unmet_requirement_fails_the_run(monkeypatch, tmp_path):
    check = {"unmet": ["pandas>=2.1 (cugraph_match): found 1.5.3"], "probe": [True, "H100"],
             "import_error": None}
    status, summary, log = _device_run(monkeypatch, tmp_path, check, ["info"])
    assert status == 1 and "found 1.5.3" in log
    assert summary["probe"]["unmet"] == check["unmet"]


def test_a_gpu_part_without_a_gpu_fails_the_run(monkeypatch, tmp_path):
    check = {"unmet": [], "probe": [False, "numba-cuda sees no CUDA driver or device"],
             "import_error": None}
    status, summary, log = _device_run(monkeypatch, tmp_path, check, ["info", "check"])
    assert status == 1
    assert summary["info"]["exit"] == 0
    assert summary["check"]["exit"] == "failed" and "no CUDA driver" in summary["check"]["why"]


def test_a_failed_wheel_install_fails_the_run(monkeypatch, tmp_path):
    bad = tmp_path / "broken-1.0-py3-none-any.whl"
    bad.write_bytes(b"not a wheel")
    check = {"unmet": [], "probe": [True, "H100"], "import_error": None}
    status, summary, log = _device_run(monkeypatch, tmp_path, check, ["info"],
                                       carried={"broken": (bad, "1.0", [])})
    assert status == 1 and "did not install" in log
    assert "info" not in summary


def test_the_cpu_part_runs_without_a_gpu(monkeypatch, tmp_path):
    """``bench-dask-cpu`` needs the device machine's cores, not its GPU: it
    runs where no GPU works (its command captured here, not run)."""
    commands = []

    def run(cmd, out, name, env, timeout=gpu_run.BUDGET):
        commands.append(cmd)
        return {"exit": 0, "name": name}

    monkeypatch.setattr(gpu_run, "run", run)
    check = {"unmet": [], "probe": [False, "numba-cuda sees no CUDA driver or device"],
             "import_error": None}
    status, summary, _ = _device_run(monkeypatch, tmp_path, check, ["bench-dask-cpu", "check"])
    assert [r["exit"] for r in summary["bench-dask-cpu"]["runs"]] == [0, 0]
    assert summary["check"]["exit"] == "failed"  # a GPU part still fails without a GPU
    assert status == 1
    assert [cmd[cmd.index("--graphs") + 1] for cmd in commands] == ["rmat20:int64", "mesh2048"]
    for cmd in commands:
        assert cmd[1] == "benchmarks/bench_dask.py" and "--backend" not in cmd
        assert cmd[cmd.index("--workers") + 1:cmd.index("--workers") + 3] == ["2", "4"]
