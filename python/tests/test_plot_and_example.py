"""Plot helpers draw what the tables hold; the example script runs end to end."""

import os
import subprocess
import sys

import pytest

import flashlab
from conftest import REPO, SMALL

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import flashlab.plot as fplot  # noqa: E402


def test_running_waf_draws_the_series():
    r = flashlab.run("default", overrides=SMALL, progress=False)
    ax = fplot.running_waf(r)
    lines = ax.get_lines()
    assert len(lines) == 2
    assert list(lines[0].get_ydata()) == list(r.series["running_waf"])
    assert list(lines[1].get_ydata()) == list(r.series["cumulative_waf"])
    assert lines[0].get_color() == lines[1].get_color()
    import flashlab as fresh

    assert fresh.plot is fplot  # `import flashlab` brings the helpers


def test_waf_by_policy_one_line_per_policy():
    df = flashlab.sweep("default", {"ftl.gc": ["greedy", "fifo"], "workload.theta": [0.5, 0.9]},
                        backend="thread", overrides=SMALL, progress=False)
    ax = fplot.waf_by_policy(df, x="workload.theta", policy="ftl.gc")
    lines = ax.get_lines()
    assert [l.get_label() for l in lines] == ["greedy", "fifo"]
    assert list(lines[1].get_ydata()) == list(df[df["ftl.gc"] == "fifo"]["waf"])
    bars = fplot.waf_by_policy(df, policy="ftl.gc")
    assert len(bars.patches) == 2


def test_hit_ratio_vs_buffer_in_mib():
    df = flashlab.sweep(
        "default",
        {"buffer.policy": ["lru", "clock"], "buffer.dram": ["1MiB", "4MiB"]},
        backend="thread",
        overrides=SMALL,
        progress=False,
    )
    ax = fplot.hit_ratio_vs_buffer(df)
    lines = ax.get_lines()
    assert [l.get_label() for l in lines] == ["lru", "clock"]
    assert list(lines[0].get_xdata()) == [1.0, 4.0]
    assert list(lines[0].get_ydata()) == list(df[df["buffer.policy"] == "lru"]["buffer.hit_ratio"])


def test_example_gc_sweep_runs(tmp_path):
    out = tmp_path / "gc_sweep.png"
    p = subprocess.run(
        [sys.executable, str(REPO / "examples" / "gc_sweep.py"), "--quick", "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert p.returncode == 0, p.stderr
    assert out.stat().st_size > 10_000
    assert "greedy" in p.stdout and "waf" in p.stdout


def test_example_gc_sweep_without_matplotlib_prints_the_table_and_says_why(tmp_path):
    """`pip install .` has no matplotlib: the example still runs to the end, saying how to add it."""
    blocker = tmp_path / "block" / "matplotlib"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('matplotlib hidden for this test')\n")
    out = tmp_path / "gc_sweep.png"
    env = {**os.environ, "PYTHONPATH": str(blocker.parent)}
    p = subprocess.run(
        [sys.executable, str(REPO / "examples" / "gc_sweep.py"), "--quick", "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    assert p.returncode == 0, p.stderr
    assert "greedy" in p.stdout and "waf" in p.stdout
    assert 'matplotlib is not installed (pip install ".[plot]" adds it)' in p.stdout
    assert not out.exists()


def test_missing_columns_are_named():
    df = flashlab.sweep("default", {"seed": [1]}, backend="thread", overrides=SMALL, progress=False)
    with pytest.raises(KeyError, match="no column 'ftl.gc' in the table"):
        fplot.waf_by_policy(df)
    with pytest.raises(KeyError, match="no column 'host_writes'"):
        fplot.running_waf(df)


def test_example_placement_compares_none_fdp_and_zns(tmp_path):
    out = tmp_path / "placement.png"
    p = subprocess.run(
        [sys.executable, str(REPO / "examples" / "placement.py"), "--quick", "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert p.returncode == 0, p.stderr
    for name in ["none", "FDP address", "FDP size", "FDP sepbit", "ZNS + log"]:
        assert name in p.stdout
    assert "per handle (FDP):" in p.stdout
    assert out.stat().st_size > 10_000

