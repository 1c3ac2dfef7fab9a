"""Sweeps: one row per run with the swept keys as columns, identical on every backend."""

import os
import subprocess
import sys
import textwrap

import pandas as pd
import pytest

import flashlab
from conftest import SMALL, WALL, require_ray, strip_wall

GRID = {"ftl.gc": ["greedy", "2r", "fifo"], "workload.theta": [0.5, 0.99]}


@pytest.fixture(scope="module")
def on_processes():
    return flashlab.sweep("default", GRID, backend="process", max_workers=2, overrides=SMALL, progress=False)


def test_rows_are_the_grid_in_order(on_processes):
    df = on_processes
    assert list(df.columns[:2]) == ["ftl.gc", "workload.theta"]
    assert list(zip(df["ftl.gc"], df["workload.theta"])) == [
        (gc, th) for gc in GRID["ftl.gc"] for th in GRID["workload.theta"]
    ]
    for col in ["waf", "waf_ftl", "flash.erases", "flash.programs", "gc.policy", "latency_us.write.p99", *WALL]:
        assert col in df.columns, col
    assert (df["gc.policy"] == df["ftl.gc"]).all()


def test_each_row_is_the_single_run(on_processes):
    row = on_processes.iloc[3]
    one = flashlab.run("default", overrides={**SMALL, "ftl.gc": row["ftl.gc"], "workload.theta": row["workload.theta"]}, progress=False)
    flat = one.flat()
    for col in ["waf", "flash.erases", "ftl.gc_copies", "latency_us.read.p50"]:
        assert row[col] == flat[col], col


def test_threads_match_processes(on_processes):
    df = flashlab.sweep("default", GRID, backend="thread", max_workers=2, overrides=SMALL, progress=False)
    pd.testing.assert_frame_equal(df.drop(columns=WALL), on_processes.drop(columns=WALL))


def test_ray_cluster_by_address_matches_processes(on_processes, ray_cluster):
    df = flashlab.sweep("default", GRID, backend="ray", ray_address=ray_cluster, overrides=SMALL, progress=False)
    pd.testing.assert_frame_equal(df.drop(columns=WALL), on_processes.drop(columns=WALL))
    import ray

    assert sum(n["Alive"] for n in ray.nodes()) == 2  # connected to the two-node cluster
    limited = flashlab.sweep("default", GRID, backend="ray", max_workers=1, overrides=SMALL, progress=False)
    pd.testing.assert_frame_equal(limited.drop(columns=WALL), on_processes.drop(columns=WALL))


def test_ray_starts_a_local_cluster_when_none_is_given(on_processes, tmp_path):
    """No address and no RAY_ADDRESS: the sweep starts a local Ray (in a fresh interpreter,
    since this one is connected to the test cluster)."""
    require_ray()
    script = textwrap.dedent(
        f"""
        import flashlab, ray
        df = flashlab.sweep("default", {GRID!r}, backend="ray", overrides={SMALL!r}, progress=False)
        assert ray.is_initialized()
        df.to_pickle({str(tmp_path / "df.pkl")!r})
        """
    )
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert p.returncode == 0, p.stderr[-3000:]
    df = pd.read_pickle(tmp_path / "df.pkl")
    pd.testing.assert_frame_equal(df.drop(columns=WALL), on_processes.drop(columns=WALL))


def test_seeds_as_replicates():
    df = flashlab.sweep("default", {"seed": [1, 2, 1]}, backend="thread", overrides=SMALL, progress=False)
    assert df.loc[0, "flash.programs"] == df.loc[2, "flash.programs"]
    assert df.loc[0, "flash.programs"] != df.loc[1, "flash.programs"]


def test_list_of_points_and_a_dict_config():
    pts = [{"ftl.gc": "greedy"}, {"ftl.gc": "cost-benefit", "device.over_provisioning": 0.25}]
    df = flashlab.sweep("default", pts, backend="thread", overrides=SMALL, progress=False)
    assert list(df["ftl.gc"]) == ["greedy", "cost-benefit"]
    assert pd.isna(df.loc[0, "device.over_provisioning"]) and df.loc[1, "device.over_provisioning"] == 0.25


def test_a_bad_point_fails_before_anything_runs():
    with pytest.raises(flashlab.FlashlabError, match=r"sweep point ftl.gc='nope'.*unknown GC policy `nope`"):
        flashlab.sweep("default", {"ftl.gc": ["greedy", "nope"]}, overrides=SMALL, progress=False)


def test_a_failing_run_names_its_point():
    # Valid config, but the FTL refuses the device when the run builds it.
    with pytest.raises(flashlab.FlashlabError, match=r"sweep point device.over_provisioning=0.001.*spare space"):
        flashlab.sweep("default", {"device.over_provisioning": [0.001]}, backend="thread",
                       overrides={**SMALL, "device.logical_capacity": None}, progress=False)


def test_grid_and_backend_errors():
    with pytest.raises(ValueError, match="unknown backend 'spark'; valid: process, thread, ray"):
        flashlab.sweep("default", {"seed": [1]}, backend="spark")
    with pytest.raises(TypeError, match="must be a list of values"):
        flashlab.sweep("default", {"ftl.gc": "greedy"})


def test_sweep_summary_equals_run_summary_without_wall():
    df = flashlab.sweep("default", {"seed": [5]}, backend="thread", overrides=SMALL, progress=False)
    r = flashlab.run("default", overrides={**SMALL, "seed": 5}, progress=False)
    flat = r.flat()
    row = df.iloc[0].to_dict()
    for k, v in flat.items():
        if k in WALL or k == "seed":
            continue
        assert (pd.isna(v) and pd.isna(row[k])) or row[k] == v, k
    assert strip_wall(r.summary)["sim"]["seed"] == 5
