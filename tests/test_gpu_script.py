"""``ci/gpu.sh`` stays runnable where there is no GPU: a dry run reports the
machine, skips every GPU part and says why, and the parts it names exist."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_dry_run_reports_and_skips(tmp_path):
    out = tmp_path / "out"
    result = subprocess.run(["bash", "ci/gpu.sh", "--dry-run", str(out)], cwd=REPO,
                            capture_output=True, text=True, timeout=120,
                            env={"PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin",
                                 "PYTHON": sys.executable, "HOME": str(tmp_path)})
    assert result.returncode == 0, result.stdout + result.stderr
    summary = json.loads((out / "summary.json").read_text())
    info = summary["info"]["info"]
    assert info["git_commit"] and info["versions"]["numpy"]
    gpu_parts = ["check", "sanitize", "bench-20", "bench-22", "bench-24", "bench-marriage"]
    for part in gpu_parts:
        assert summary[part]["exit"] == "skipped", part
    text = (out / "summary.md").read_text()
    assert "skipped" in text and "git commit" in text
    assert "GPU:" in result.stdout


def test_parts_refer_to_existing_files():
    from importlib import util

    spec = util.spec_from_file_location("gpu_run", REPO / "ci" / "gpu_run.py")
    gpu_run = util.module_from_spec(spec)
    spec.loader.exec_module(gpu_run)
    for script in ("bench_matching.py", "bench_bmatching.py", "bench_louvain.py",
                   "bench_marriage.py"):
        assert (REPO / "benchmarks" / script).exists()
    for name in ("test_gpu.py", "test_marriage_gpu.py"):
        assert (REPO / "tests" / name).exists()
    assert (REPO / "ci" / "gpu_small.py").exists()
    assert set(gpu_run.NEEDS_GPU) <= set(gpu_run.PARTS)


def test_unknown_part_is_refused(tmp_path):
    result = subprocess.run([sys.executable, "ci/gpu_run.py", str(tmp_path), "bogus"],
                            cwd=REPO, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "unknown part" in result.stdout
