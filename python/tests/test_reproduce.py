"""``flashlab.reproduce``: a reproduction's runs on local processes and on a Ray cluster give the
CLI's report byte for byte (everything but the section stating what the run cost), and a rerun
after an interruption runs only what is missing."""

import json
from pathlib import Path

import pytest

import flashlab
from conftest import run_cli

COST = "\n## What this run cost\n"


def _without_cost(report: Path) -> str:
    text = report.read_text()
    assert COST in text, f"{report} states no cost"
    return text.split(COST)[0]


def _json_without_cost(path: Path) -> dict:
    v = json.loads(path.read_text())
    assert v.pop("cost")["wall_s"] >= 0
    return v


@pytest.mark.parametrize("backend", ["process", "ray"])
def test_reproduce_gives_the_cli_report(cli, tmp_path, backend, request):
    # wadpm runs in two phases (a window grid, then runs planned from its best point).
    ran = run_cli(cli, "reproduce", "wadpm", "--scale", "quick", "--quiet", "--out", str(tmp_path / "cli"))
    assert ran.returncode == 0, ran.stderr
    address = request.getfixturevalue("ray_cluster") if backend == "ray" else None
    reports = flashlab.reproduce(
        "wadpm", "quick", tmp_path / "py", backend=backend, ray_address=address, max_workers=2, progress=False
    )
    assert reports == [str(tmp_path / "py" / "wadpm" / "report.md")]
    cli_dir, py_dir = tmp_path / "cli" / "wadpm", tmp_path / "py" / "wadpm"
    assert _without_cost(py_dir / "report.md") == _without_cost(cli_dir / "report.md")
    assert _json_without_cost(py_dir / "results.json") == _json_without_cost(cli_dir / "results.json")
    names = sorted(p.name for p in cli_dir.iterdir())
    assert names == sorted(p.name for p in py_dir.iterdir())
    for svg in (n for n in names if n.endswith(".svg")):
        assert (py_dir / svg).read_bytes() == (cli_dir / svg).read_bytes(), svg


def test_reproduce_reruns_only_missing_runs(tmp_path):
    runs = tmp_path / "runs"
    flashlab.reproduce("wadpm", "quick", tmp_path / "a", backend="thread", runs=runs, progress=False)
    kept = sorted((runs / "wadpm").glob("*.json"))
    assert len(kept) > 50
    report = _without_cost(tmp_path / "a" / "wadpm" / "report.md")
    # An interruption that lost a few runs: only those are run again.
    lost = kept[::10]
    for p in lost:
        p.unlink()
    before = {p: p.stat().st_mtime_ns for p in kept if p not in lost}
    flashlab.reproduce("wadpm", "quick", tmp_path / "b", backend="thread", runs=runs, progress=False)
    assert all(p.exists() for p in lost), "the lost runs were run again"
    assert all(p.stat().st_mtime_ns == t for p, t in before.items()), "a kept run was run again"
    assert _without_cost(tmp_path / "b" / "wadpm" / "report.md") == report


def test_reproduce_rejects_an_unknown_name_and_backend(tmp_path):
    with pytest.raises(flashlab.FlashlabError, match="unknown reproduction `nope`"):
        flashlab.reproduce("nope", out=tmp_path)
    with pytest.raises(ValueError, match="backend must be one of"):
        flashlab.reproduce("wadpm", out=tmp_path, backend="gpu")
