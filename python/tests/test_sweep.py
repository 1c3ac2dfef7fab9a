"""Sweeps: one row per run with the swept keys as columns, identical on every backend."""

import os
import re
import signal
import subprocess
import sys
import textwrap
import time

import pandas as pd
import pytest

import flashlab
from conftest import SMALL, WALL, lone_ray_env, require_ray, strip_wall

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
    """No address, no RAY_ADDRESS and no cluster running: the sweep starts a local Ray (in a
    fresh interpreter, since this one is connected to the test cluster)."""
    require_ray()
    script = textwrap.dedent(
        f"""
        import flashlab, ray
        assert not ray.is_initialized()
        df = flashlab.sweep("default", {GRID!r}, backend="ray", overrides={SMALL!r}, progress=False)
        assert ray.is_initialized() and len(ray.nodes()) == 1
        df.to_pickle({str(tmp_path / "df.pkl")!r})
        """
    )
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=lone_ray_env(), cwd=tmp_path)
    assert p.returncode == 0, p.stderr[-3000:]
    df = pd.read_pickle(tmp_path / "df.pkl")
    pd.testing.assert_frame_equal(df.drop(columns=WALL), on_processes.drop(columns=WALL))


def test_seeds_as_replicates():
    df = flashlab.sweep("default", {"seed": [1, 2, 1]}, backend="thread", overrides=SMALL, progress=False)
    assert df.loc[0, "flash.programs"] == df.loc[2, "flash.programs"]
    assert df.loc[0, "flash.programs"] != df.loc[1, "flash.programs"]


def test_list_of_points_and_swept_result_names():
    pts = [{"ftl.gc": "greedy"}, {"ftl.gc": "cost-benefit", "device.over_provisioning": 0.25}]
    df = flashlab.sweep("default", pts, backend="thread", overrides=SMALL, progress=False)
    assert list(df["ftl.gc"]) == ["greedy", "cost-benefit"]
    # A point without the key shows the value its config has (the preset's 10%) ...
    assert list(df["device.over_provisioning"]) == [0.1, 0.25]
    # ... and the result of the same name (the realised share) is kept beside it.
    assert abs(df.loc[1, "result.device.over_provisioning"] - 0.25) < 0.001
    assert df.loc[1, "result.device.over_provisioning"] != 0.25


def test_numpy_grids():
    np = pytest.importorskip("numpy")
    df = flashlab.sweep("default", {"seed": np.arange(2), "workload.theta": np.linspace(0.5, 0.9, 2)},
                        backend="thread", overrides=SMALL, progress=False)
    assert list(df["seed"]) == [0, 0, 1, 1]
    assert "buffer.counters" not in df.columns and "hybrid" not in df.columns  # None: not measured


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
    for grid in ["ftl.gc=greedy", ["greedy", "fifo"], [("ftl.gc", "greedy")], None]:
        with pytest.raises(TypeError, match="a grid is"):
            flashlab.sweep("default", grid)
    with pytest.raises(ValueError, match=r"grid\['ftl.gc'\] is empty"):
        flashlab.sweep("default", {"ftl.gc": []})
    with pytest.raises(ValueError, match="the grid has no points"):
        flashlab.sweep("default", [])
    for bad in ["2", 0, -1, True]:
        with pytest.raises(ValueError, match="max_workers must be a whole number"):
            flashlab.sweep("default", {"seed": [1]}, max_workers=bad)
    with pytest.raises(TypeError, match="overrides must be a dict"):
        flashlab.sweep("default", {"seed": [1]}, overrides=["ftl.gc=fifo"])


@pytest.mark.parametrize("backend, group", [("thread", False), ("process", False), ("process", True), ("ray", False)])
def test_ctrl_c_stops_a_sweep_and_its_runs(backend, group, tmp_path):
    """SIGINT to the driver (a Jupyter interrupt) or to its process group (Ctrl-C in a
    terminal) stops the sweep and the simulations it is running, which would otherwise take
    minutes each."""
    if backend == "ray":
        require_ray()
    start_ray = 'import ray; ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)' if backend == "ray" else ""
    script = textwrap.dedent(
        f"""
        import signal, sys, flashlab
        signal.signal(signal.SIGINT, signal.default_int_handler)
        if __name__ == "__main__":
            {start_ray}
            print("start", flush=True)
            try:
                flashlab.sweep("default", {{"seed": [1, 2, 3, 4]}}, backend={backend!r}, max_workers=2,
                               overrides={{"workload.volume_ratio": 1000.0}}, progress=False)
                print("finished")
            except KeyboardInterrupt:
                print("interrupted", flush=True)
                sys.exit(3)
        """
    )
    (tmp_path / "sweep_sigint.py").write_text(script)
    p = subprocess.Popen([sys.executable, str(tmp_path / "sweep_sigint.py")], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=group,
                         env=lone_ray_env() if backend == "ray" else None)
    assert p.stdout.readline().strip() == "start"
    time.sleep(2)  # the runs are under way
    if group:
        os.killpg(p.pid, signal.SIGINT)
    else:
        p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        raise AssertionError("the sweep did not stop on SIGINT")
    assert p.returncode == 3, (out, err[-2000:])


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


# --- Points whose worker dies: the sweep finishes, the point fails with a clear message ---

DYING = {"seed": [1, 666, 2]}  # sweep_hooks.DIE_SEED in the middle
DEATHS = {"panic": r"the simulator panicked \(a bug, please report it\): .*a panic on purpose",
          "abort": r"worker process died \(SIGABRT\) while running this point",
          "kill": r"worker process died \(SIGKILL\) while running this point"}
RAY_DEATHS = {**DEATHS, "abort": r"Ray worker process died", "kill": r"Ray worker process died"}
#: (backend, kind) pairs a sweep survives: a thread shares its process, so an abort or a
#: SIGKILL there ends the interpreter (documented in sweep's docstring).
SURVIVABLE = [(b, k) for b in ("process", "thread", "ray") for k in DEATHS if b != "thread" or k == "panic"]


@pytest.fixture(scope="module")
def healthy():
    """The sweep without the dying point, to compare the other points with."""
    return flashlab.sweep("default", {"seed": [1, 2]}, backend="thread", overrides=SMALL, progress=False)


def _dying_sweep(backend, kind, errors, ray_address=None):
    import sweep_hooks

    if backend == "ray":
        ray = require_ray()
        ray.cloudpickle.register_pickle_by_value(sweep_hooks)  # Ray workers do not see tests/
    return flashlab.sweep("default", DYING, backend=backend, max_workers=2, overrides=SMALL, progress=False,
                          errors=errors, _runner=sweep_hooks.RUNNERS[kind], ray_address=ray_address)


@pytest.mark.parametrize("backend, kind", SURVIVABLE)
def test_a_dying_point_is_recorded_and_the_others_run(backend, kind, healthy, request):
    address = request.getfixturevalue("ray_cluster") if backend == "ray" else None
    df = _dying_sweep(backend, kind, "record", address)
    assert list(df["seed"]) == [1, 666, 2]
    assert list(df.columns[:2]) == ["seed", "error"]
    assert df["error"].isna().tolist() == [False if s == 666 else True for s in df["seed"]]
    died = df.loc[1, "error"]
    assert re.search(RAY_DEATHS[kind] if backend == "ray" else DEATHS[kind], died), died
    assert df.loc[1, ["waf", "flash.erases", "latency_us.write.p99"]].isna().all()
    fine = df.drop(index=1).drop(columns=["error", *WALL]).reset_index(drop=True)
    pd.testing.assert_frame_equal(fine, healthy.drop(columns=WALL), check_dtype=False)


@pytest.mark.parametrize("backend, kind", SURVIVABLE)
def test_a_dying_point_raises_naming_it(backend, kind, request):
    address = request.getfixturevalue("ray_cluster") if backend == "ray" else None
    pattern = RAY_DEATHS[kind] if backend == "ray" else DEATHS[kind]
    with pytest.raises(flashlab.FlashlabError, match=r"^sweep point seed=666: " + pattern):
        _dying_sweep(backend, kind, "raise", address)


def test_a_worker_lost_once_on_ray_is_retried(healthy, ray_cluster, tmp_path):
    """A Ray worker that dies once (the first run of the sweep kills it) is not the point's
    fault: the point runs again on a fresh worker and every point is answered."""
    import sweep_hooks

    ray = require_ray()
    ray.cloudpickle.register_pickle_by_value(sweep_hooks)
    marker = tmp_path / "died"
    sweep_hooks.LOST_ONCE_MARKER = str(marker)
    df = flashlab.sweep("default", {"seed": [1, 2]}, backend="ray", max_workers=1, overrides=SMALL, progress=False,
                        _runner=sweep_hooks.dies_once, ray_address=ray_cluster)
    assert marker.exists()  # a worker did die
    pd.testing.assert_frame_equal(df.drop(columns=WALL), healthy.drop(columns=WALL), check_dtype=False)


def test_many_deaths_on_few_workers_finish():
    """Every other point kills its worker: each is replaced, and every point is answered."""
    import sweep_hooks

    df = flashlab.sweep("default", {"seed": [666, 1, 666, 666, 2, 666]}, backend="process", max_workers=2,
                        overrides={**SMALL, "workload.requests": 2000}, progress=False, errors="record",
                        _runner=sweep_hooks.aborts)
    assert df["error"].notna().tolist() == [True, False, True, True, False, True]
    assert df["waf"].notna().tolist() == [False, True, False, False, True, False]


def test_record_keeps_invalid_points_and_runs_the_rest():
    df = flashlab.sweep("default", {"ftl.gc": ["greedy", "nope"]}, backend="thread", overrides=SMALL,
                        progress=False, errors="record")
    assert df["error"].isna().tolist() == [True, False]
    assert df.loc[0, "error"] is None, "a successful point's error is None, as documented"
    assert "unknown GC policy `nope`" in df.loc[1, "error"]
    assert pd.isna(df.loc[1, "waf"]) and not pd.isna(df.loc[0, "waf"])


def test_errors_argument_is_checked():
    with pytest.raises(ValueError, match=r"errors must be 'raise' or 'record', not 'ignore'"):
        flashlab.sweep("default", {"seed": [1]}, errors="ignore")
    with pytest.raises(TypeError, match=r"errors must be 'raise' or 'record', not bool"):
        flashlab.sweep("default", {"seed": [1]}, errors=True)


def test_validation_is_done_once_per_config_but_seed(monkeypatch):
    """A sweep over seeds validates its config once (a zipf set-up costs milliseconds per
    validation): counted through the cache the sweep hands the core."""
    import importlib

    sweep_module = importlib.import_module("flashlab.sweep")  # flashlab.sweep is the function

    caches = []
    real = sweep_module._flashlab.CheckCache

    def spy():
        caches.append(real())
        return caches[-1]

    monkeypatch.setattr(sweep_module._flashlab, "CheckCache", spy)
    flashlab.sweep("default", {"seed": list(range(6)), "ftl.gc": ["greedy", "fifo"]}, backend="thread",
                   overrides={**SMALL, "workload.requests": 1000}, progress=False)
    assert len(caches) == 1 and len(caches[0]) == 2  # one per GC policy


def test_validation_shows_progress(capsys):
    flashlab.sweep("default", {"seed": [1, 2]}, backend="thread", overrides={**SMALL, "workload.requests": 1000},
                   progress=True)
    err = capsys.readouterr().err
    assert "validate" in err and "sweep" in err, err[-500:]
