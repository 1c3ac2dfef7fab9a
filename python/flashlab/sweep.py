"""Parameter sweeps: every point of a grid run as its own simulation, on local processes or
threads, or as Ray tasks on a cluster; one DataFrame back, one row per run."""

from __future__ import annotations

import itertools
import os
from typing import Any, Iterable, List, Mapping, Optional, Sequence, Union

from . import _flashlab
from .api import ConfigLike, Result, WorkloadLike, _args, _disable

BACKENDS = ("process", "thread", "ray")

Grid = Union[Mapping[str, Sequence[Any]], Iterable[Mapping[str, Any]]]


def points(grid: Grid) -> List[dict]:
    """The runs of a grid: the cartesian product of ``{"key": [values]}`` in key order (the
    last key varies fastest), or a list of ``{"key": value}`` dicts taken as they are."""
    if isinstance(grid, Mapping):
        keys = list(grid)
        for k in keys:
            if isinstance(grid[k], (str, bytes)) or not isinstance(grid[k], Iterable):
                raise TypeError(f"grid[{k!r}] must be a list of values, not {grid[k]!r}")
        return [dict(zip(keys, combo)) for combo in itertools.product(*(list(grid[k]) for k in keys))]
    return [dict(p) for p in grid]


def _run_point(args) -> dict:
    """One run (in a worker): the flat scalar results."""
    name, tree, sets = args
    return Result(_flashlab.run(name, tree, sets, None)).flat()


def _describe(point: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in point.items())


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
    its dotted name (``waf``, ``flash.erases``, ``buffer.hit_ratio``, ``latency_us.write.p99``...).

    ``grid``: ``{"ftl.gc": ["greedy", "2r"], "workload.theta": [0.5, 0.9]}`` (cartesian
    product; any config key, ``seed`` too for replicates) or a list of point dicts.
    ``backend``: ``"process"`` (local process pool, the default), ``"thread"`` (the simulator
    releases the GIL, so threads run in parallel too) or ``"ray"`` (one Ray task per run on the
    cluster ``ray.init`` connects to: ``ray_address``, else ``RAY_ADDRESS``, else a new local
    one; trace files must exist at the same absolute path on every node, or use ``builtin:``
    traces and generators).
    ``max_workers``: runs at once (default: the CPUs of this machine; for Ray, the cluster's).
    ``workload`` / ``overrides``: as in ``run``, applied to every point before the grid's keys.
    ``progress``: ``None`` shows a bar in terminals and notebooks only.

    Every point is validated before any runs, so a bad key or value fails at once with its
    message. The same base, grid and seeds give the same table on every backend (apart from
    the wall-clock columns ``sim.wall_s``, ``sim.precondition_wall_s``, ``sim.host_pages_per_s``).
    """
    import pandas as pd
    from tqdm.auto import tqdm

    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; valid: {', '.join(BACKENDS)}")
    pts = points(grid)
    base_sets = dict(overrides or {})
    jobs = []
    for p in pts:
        args = _args(base_config, workload, {**base_sets, **p})
        try:
            _flashlab.check(*args)
        except _flashlab.FlashlabError as e:
            raise _flashlab.FlashlabError(f"sweep point {_describe(p)}: {e}") from None
        jobs.append(args)
    rows: List[Optional[dict]] = [None] * len(jobs)
    bar = tqdm(total=len(jobs), desc="sweep", unit="run", disable=_disable(progress))
    try:
        if backend == "ray":
            _on_ray(jobs, rows, max_workers, ray_address, bar, pts)
        else:
            _on_pool(jobs, rows, backend, max_workers, bar, pts)
    finally:
        bar.close()
    # The swept keys (union over the points; a point without one gets NaN) come first; a
    # result of the same name (e.g. `device.over_provisioning`) is left to the parameter.
    params = list(dict.fromkeys(k for p in pts for k in p))
    table = [{**{k: p.get(k) for k in params}, **{k: v for k, v in flat.items() if k not in params}} for p, flat in zip(pts, rows)]
    return pd.DataFrame(table)


def _failed(point: Mapping[str, Any], e: BaseException) -> Exception:
    return _flashlab.FlashlabError(f"sweep point {_describe(point)}: {e}")


def _on_pool(jobs, rows, backend, max_workers, bar, pts) -> None:
    import concurrent.futures as cf

    workers = max_workers or os.cpu_count() or 1
    pool = cf.ThreadPoolExecutor(workers) if backend == "thread" else cf.ProcessPoolExecutor(workers)
    with pool:
        futures = {pool.submit(_run_point, job): i for i, job in enumerate(jobs)}
        try:
            for f in cf.as_completed(futures):
                i = futures[f]
                try:
                    rows[i] = f.result()
                except _flashlab.FlashlabError as e:
                    raise _failed(pts[i], e) from None
                bar.update(1)
        except BaseException:
            for f in futures:
                f.cancel()
            raise


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
            ray.cancel(ref)
        raise
