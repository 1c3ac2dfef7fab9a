"""Parameter sweeps: every point of a grid run as its own simulation, on local processes or
threads, or as Ray tasks on a cluster; one DataFrame back, one row per run."""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import os
import signal
import threading
from typing import Any, Iterable, List, Mapping, Optional, Sequence, Union

from . import _flashlab
from .api import ConfigLike, Result, WorkloadLike, _args, _disable

BACKENDS = ("process", "thread", "ray")

Grid = Union[Mapping[str, Sequence[Any]], Iterable[Mapping[str, Any]]]

_GRID_FORM = "a grid is {'dotted.key': [values, ...]} or a list of {'dotted.key': value} dicts"


def points(grid: Grid) -> List[dict]:
    """The runs of a grid: the cartesian product of ``{"key": [values]}`` in key order (the
    last key varies fastest), or a list of ``{"key": value}`` dicts taken as they are."""
    if isinstance(grid, Mapping):
        keys = list(grid)
        values = []
        for k in keys:
            v = grid[k]
            if not isinstance(k, str):
                raise TypeError(f"grid key {k!r} is not a string; {_GRID_FORM}")
            if isinstance(v, (str, bytes, Mapping)) or not isinstance(v, Iterable):
                raise TypeError(f"grid[{k!r}] must be a list of values, not {v!r}")
            v = list(v)
            if not v:
                raise ValueError(f"grid[{k!r}] is empty: a sweep over it has no runs")
            values.append(v)
        pts = [dict(zip(keys, combo)) for combo in itertools.product(*values)]
    elif isinstance(grid, Iterable) and not isinstance(grid, (str, bytes)):
        pts = []
        for p in grid:
            if not isinstance(p, Mapping) or not all(isinstance(k, str) for k in p):
                raise TypeError(f"grid point {p!r} is not a dict of 'dotted.key': value; {_GRID_FORM}")
            pts.append(dict(p))
    else:
        raise TypeError(f"{_GRID_FORM}, not {grid!r}")
    if not pts:
        raise ValueError("the grid has no points")
    return pts


def _run_point(args, token=None) -> dict:
    """One run: its flat scalar results."""
    name, tree, sets = args
    return Result(_flashlab.run(name, tree, sets, None, token)).flat()


def _run_in_process(job):
    """One run in a pool process: (index, results, error message) — a run's error comes back
    as text, so the driver names its point."""
    i, args = job
    try:
        return i, _run_point(args), None
    except _flashlab.FlashlabError as e:
        return i, None, str(e)


def _ignore_sigint() -> None:
    """Pool processes leave Ctrl-C to the driver, which then terminates them (a worker killed
    by KeyboardInterrupt would leave its task unanswered and the pool hanging)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextlib.contextmanager
def _sigint_held():
    """SIGINT ignored for the duration (main thread only: elsewhere signals are not ours)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _describe(point: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in point.items())


def _failed(point: Mapping[str, Any], msg: Any) -> Exception:
    return _flashlab.FlashlabError(f"sweep point {_describe(point)}: {msg}")


def _lookup(config: Mapping[str, Any], dotted: str) -> Any:
    cur: Any = config
    for part in dotted.split("."):
        if not isinstance(cur, Mapping) or part not in cur:
            return math.nan
        cur = cur[part]
    return math.nan if cur is None else cur


def sweep(
    base_config: ConfigLike,
    grid: Grid,
    backend: str = "process",
    max_workers: Optional[int] = None,
    *,
    workload: WorkloadLike = None,
    overrides: Optional[Mapping[str, Any]] = None,
    progress: Optional[bool] = None,
    ray_address: Optional[str] = None,
):
    """Run ``base_config`` once per point of ``grid`` and return a pandas DataFrame: one row per
    run, in grid order, the swept keys as the first columns, then every scalar result under
    its dotted name (``waf``, ``flash.erases``, ``buffer.hit_ratio``, ``latency_us.write.p99``...;
    see ``Result.flat``). A result named like a swept key is kept as ``result.<name>``.

    ``grid``: ``{"ftl.gc": ["greedy", "2r"], "workload.theta": [0.5, 0.9]}`` (cartesian
    product; any config key, ``seed`` too for replicates) or a list of point dicts (a point
    without one of the keys shows the value its config has).
    ``backend``: ``"process"`` (local process pool, the default), ``"thread"`` (the simulator
    releases the GIL, so threads run in parallel too) or ``"ray"`` (one Ray task per run on the
    cluster ``ray.init`` connects to: ``ray_address``, else ``RAY_ADDRESS``, else a cluster
    already running on this machine, else a new local one; flashlab must be installed on the
    nodes, and config and trace files must exist at the same absolute path on every node — or
    use presets, dicts, ``builtin:`` traces, generators).
    ``max_workers``: runs at once (default: the CPUs of this machine; for Ray, the cluster's).
    ``workload`` / ``overrides``: as in ``run``, applied to every point before the grid's keys.
    ``progress``: ``None`` shows a bar in terminals and notebooks only.

    In a script, call it under ``if __name__ == "__main__":`` (process pools may start workers
    by importing the main module). Every point is validated before any runs, so a bad key or
    value fails at once with its message. Ctrl-C stops the sweep and its running simulations.
    The same base, grid and seeds give the same table on every backend, apart from the
    wall-clock columns ``sim.wall_s``, ``sim.precondition_wall_s``, ``sim.host_pages_per_s``.
    """
    import pandas as pd
    from tqdm.auto import tqdm

    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; valid: {', '.join(BACKENDS)}")
    if max_workers is not None and (not isinstance(max_workers, int) or isinstance(max_workers, bool) or max_workers < 1):
        raise ValueError(f"max_workers must be a whole number >= 1 (or None), not {max_workers!r}")
    pts = points(grid)
    if overrides is not None and not isinstance(overrides, Mapping):
        raise TypeError(f"overrides must be a dict of {{'dotted.key': value}}, not {type(overrides).__name__}")
    base_sets = dict(overrides or {})
    jobs, configs = [], []
    for p in pts:
        args = _args(base_config, workload, {k: v for k, v in base_sets.items() if k not in p}, grid=p)
        try:
            configs.append(json.loads(_flashlab.check(*args)))
        except _flashlab.FlashlabError as e:
            raise _failed(p, e) from None
        jobs.append(args)
    rows: List[Optional[dict]] = [None] * len(jobs)
    bar = tqdm(total=len(jobs), desc="sweep", unit="run", disable=_disable(progress))
    try:
        if backend == "ray":
            _on_ray(jobs, rows, max_workers, ray_address, bar, pts)
        elif backend == "thread":
            _on_threads(jobs, rows, max_workers, bar, pts)
        else:
            _on_processes(jobs, rows, max_workers, bar, pts)
    finally:
        bar.close()
    # The swept keys (union over the points) first, each with the value the run used.
    params = list(dict.fromkeys(k for p in pts for k in p))
    table = []
    for p, cfg, flat in zip(pts, configs, rows):
        row = {k: p[k] if k in p else _lookup(cfg, k) for k in params}
        row.update({(f"result.{k}" if k in row else k): v for k, v in flat.items()})
        table.append(row)
    return pd.DataFrame(table)


def _on_threads(jobs, rows, max_workers, bar, pts) -> None:
    import concurrent.futures as cf

    token = _flashlab.CancelToken()
    pool = cf.ThreadPoolExecutor(max_workers or os.cpu_count() or 1)
    try:
        futures = {pool.submit(_run_point, job, token): i for i, job in enumerate(jobs)}
        for f in cf.as_completed(futures):
            i = futures[f]
            try:
                rows[i] = f.result()
            except _flashlab.FlashlabError as e:
                raise _failed(pts[i], e) from None
            bar.update(1)
    except BaseException:
        token.cancel()  # worker threads never see Ctrl-C: stop their runs
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _on_processes(jobs, rows, max_workers, bar, pts) -> None:
    import multiprocessing

    workers = min(max_workers or os.cpu_count() or 1, len(jobs))
    pool = multiprocessing.get_context().Pool(workers, initializer=_ignore_sigint)
    try:
        for i, flat, err in pool.imap_unordered(_run_in_process, list(enumerate(jobs))):
            if err is not None:
                raise _failed(pts[i], err)
            rows[i] = flat
            bar.update(1)
        pool.close()
    finally:
        # At once on Ctrl-C or a failed run (after close()'s drain, only idle workers go); a
        # second Ctrl-C must not interrupt the clean-up halfway.
        with _sigint_held():
            pool.terminate()
            pool.join()


def _on_ray(jobs, rows, max_workers, ray_address, bar, pts) -> None:
    try:
        import ray
    except ImportError:
        raise ImportError("backend='ray' needs Ray: pip install 'ray' (or flashlab[ray])") from None
    if not ray.is_initialized():
        ray.init(address=ray_address, include_dashboard=False, log_to_driver=False)
    task = ray.remote(num_cpus=1, max_retries=0)(_run_point)
    limit = max_workers or len(jobs)
    waiting = list(enumerate(jobs))[::-1]
    running = {}
    try:
        while waiting or running:
            while waiting and len(running) < limit:
                i, job = waiting.pop()
                running[task.remote(job)] = i
            done, _ = ray.wait(list(running), num_returns=1)
            for ref in done:
                i = running.pop(ref)
                try:
                    rows[i] = ray.get(ref)
                except ray.exceptions.RayTaskError as e:
                    raise _failed(pts[i], e.cause if getattr(e, "cause", None) else e) from None
                bar.update(1)
    except BaseException:
        for ref in running:
            ray.cancel(ref, force=True)
        raise
