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
from typing import Any, Callable, Iterable, List, Mapping, Optional, Sequence, Union

from . import _flashlab
from .api import ConfigLike, Result, WorkloadLike, _args, _check_progress, _disable

BACKENDS = ("process", "thread", "ray")

#: What a failed point does: raise at once, or be recorded in the table's ``error`` column.
ERRORS = ("raise", "record")

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


def _is_panic(e: BaseException) -> bool:
    """A Rust panic seen from Python (pyo3's ``PanicException``, a ``BaseException``), also
    as a copy of the class that Ray pickled by value from a worker."""
    t = type(e)
    return isinstance(e, _flashlab.PanicException) or (t.__module__, t.__name__) == ("pyo3_runtime", "PanicException")


def _point_error(e: BaseException) -> Optional[str]:
    """The message a point fails with for an exception its run raised; ``None`` for an
    interruption (Ctrl-C, exit), which stops the sweep instead."""
    if isinstance(e, _flashlab.FlashlabError):
        return str(e)
    if _is_panic(e):
        return f"the simulator panicked (a bug, please report it): {e}"
    if isinstance(e, Exception):
        return f"{type(e).__name__}: {e}"
    return None


def _worker_main(conn, runner) -> None:
    """A process-backend worker: runs the ``(index, args)`` jobs it receives until ``None``,
    answering each with ``(index, flat results, error message)``. A run that raises fails its
    point; a run that kills the process (abort, signal) is noticed by the driver."""
    _ignore_sigint()
    while True:
        job = conn.recv()
        if job is None:
            return
        i, args = job
        try:
            answer = (i, runner(args), None)
        except BaseException as e:  # noqa: B902 - PanicException is a BaseException
            msg = _point_error(e)
            if msg is None:
                raise
            answer = (i, None, msg)
        conn.send(answer)


def _ignore_sigint() -> None:
    """Workers leave Ctrl-C to the driver, which then terminates them."""
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


class _Outcomes:
    """Each point's flat results or error message; with ``errors="raise"`` the first error
    raises (the backend then stops the runs in flight)."""

    def __init__(self, pts: List[dict], errors: str, bar):
        self.pts, self.raise_errors, self.bar = pts, errors == "raise", bar
        self.rows: List[Optional[dict]] = [None] * len(pts)
        self.errors: List[Optional[str]] = [None] * len(pts)

    def fail(self, i: int, msg: str) -> None:
        assert self.rows[i] is None and self.errors[i] is None, f"point {i} answered twice"
        if self.raise_errors:
            raise _failed(self.pts[i], msg)
        self.errors[i] = msg
        self.bar.update(1)

    def done(self, i: int, flat: dict) -> None:
        assert self.rows[i] is None and self.errors[i] is None, f"point {i} answered twice"
        self.rows[i] = flat
        self.bar.update(1)


def _lookup(config: Mapping[str, Any], dotted: str) -> Any:
    cur: Any = config
    for part in dotted.split("."):
        if not isinstance(cur, Mapping) or part not in cur:
            return math.nan
        cur = cur[part]
    return math.nan if cur is None else cur


def _signal_name(exitcode: Optional[int]) -> str:
    """How a worker process ended: ``SIGKILL``, ``exit code 3``."""
    if exitcode is not None and exitcode < 0:
        try:
            return signal.Signals(-exitcode).name
        except ValueError:
            return f"signal {-exitcode}"
    return f"exit code {exitcode}"


def _check_batch(batch, cache, want_config: bool, raise_errors: bool):
    """Validate a batch of ``(index, args)``: ``[(index, config dict or None, error or None)]``
    (with ``raise_errors``, stops at the first error)."""
    out = []
    for i, args in batch:
        try:
            text = _flashlab.check(*args, cache, want_config)
        except _flashlab.FlashlabError as e:
            out.append((i, None, str(e)))
            if raise_errors:
                break
            continue
        out.append((i, json.loads(text) if text is not None else None, None))
    return out


#: Points validated per task of the validation pool (each task costs a few microseconds).
_CHECK_BATCH = 64


def _validate(jobs, pts, threads: int, want_config: bool, errors: str, progress):
    """Every point validated before any runs, on ``threads`` threads (the core releases the GIL),
    each distinct config but for its seed once: ``(configs, messages)``, by point. With
    ``errors="raise"`` the first bad point in grid order raises."""
    import concurrent.futures as cf

    from tqdm.auto import tqdm

    cache = _flashlab.CheckCache()
    configs: List[Optional[dict]] = [None] * len(jobs)
    messages: List[Optional[str]] = [None] * len(jobs)
    indexed = list(enumerate(jobs))
    batches = [indexed[k:k + _CHECK_BATCH] for k in range(0, len(indexed), _CHECK_BATCH)]
    bar = tqdm(total=len(jobs), desc="validate", unit="point", disable=_disable(progress), leave=False)
    pool = cf.ThreadPoolExecutor(max(1, min(threads, len(batches) - 1)))  # one batch: here
    try:
        first = [_check_batch(batches[0], cache, want_config, errors == "raise")]
        rest = pool.map(lambda b: _check_batch(b, cache, want_config, errors == "raise"), batches[1:])
        answers = itertools.chain(first, rest)
        for answer in answers:
            for i, cfg, msg in answer:
                if msg is not None and errors == "raise":
                    raise _failed(pts[i], msg)
                configs[i], messages[i] = cfg, msg
            bar.update(len(answer))
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        bar.close()
    return configs, messages


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
    errors: str = "raise",
    _runner: Optional[Callable[..., dict]] = None,
):
    """Run ``base_config`` once per point of ``grid`` and return a pandas DataFrame: one row per
    run, in grid order, the swept keys as the first columns, then every scalar result under
    its dotted name (``waf``, ``flash.erases``, ``buffer.hit_ratio``, ``latency_us.write.p99``...;
    see ``Result.flat``). A result named like a swept key is kept as ``result.<name>``.

    ``grid``: ``{"ftl.gc": ["greedy", "2r"], "workload.theta": [0.5, 0.9]}`` (cartesian
    product; any config key, ``seed`` too for replicates) or a list of point dicts (a point
    without one of the keys shows the value its config has).
    ``backend``: ``"process"`` (local worker processes, the default), ``"thread"`` (the simulator
    releases the GIL, so threads run in parallel too) or ``"ray"`` (one Ray task per run on the
    cluster ``ray.init`` connects to: ``ray_address``, else ``RAY_ADDRESS``, else a cluster
    already running on this machine, else a new local one; flashlab must be installed on the
    nodes, and config and trace files must exist at the same absolute path on every node — or
    use presets, dicts, ``builtin:`` traces, generators).
    ``max_workers``: runs at once (default: the CPUs of this machine; for Ray, the cluster's).
    ``workload`` / ``overrides``: as in ``run``, applied to every point before the grid's keys.
    ``progress``: ``None`` shows bars (validation, then runs) in terminals and notebooks only.
    ``errors``: what a failed point does. ``"raise"`` (the default): the first failure raises
    ``FlashlabError`` naming the point and the cause, after the runs still in flight are
    stopped. ``"record"``: every point is tried; the table gets an ``error`` column (after the
    swept keys): ``None`` where the run succeeded, the message where it failed, whose result
    columns are then NaN. A point fails when its config is invalid, its run raises an error,
    the simulator panics (a bug), or its worker process dies (an abort, a signal such as
    SIGKILL from the kernel's out-of-memory killer: "worker process died (SIGKILL)"); on the
    process backend the dead worker is replaced and the other points run on. On Ray a point
    whose worker dies is run once more on a fresh worker (Ray's ``max_retries=1``: a worker
    can also be lost to the cluster, not the point) and fails, "Ray worker process died",
    when that one dies too. The thread backend survives panics and errors, but an abort or a
    signal ends the whole interpreter (one process holds every thread): use the process
    backend when that is a risk.

    In a script, call it under ``if __name__ == "__main__":`` (process workers may start by
    importing the main module). Every point is validated before any runs (a bar shows the
    progress; on threads, the core releasing the GIL, and configs that differ only in
    ``seed`` are validated once), so with ``errors="raise"`` a bad key or value fails at once
    with its message; with ``"record"`` bad points are recorded and the others run. Ctrl-C
    stops the sweep and its running simulations. The same base, grid and seeds give the same
    table on every backend, apart from the wall-clock columns ``sim.wall_s``,
    ``sim.precondition_wall_s``, ``sim.host_pages_per_s``.
    """
    import pandas as pd
    from tqdm.auto import tqdm

    _check_sweep_args(backend, max_workers, overrides, progress, ray_address, errors)
    pts = points(grid)
    base_sets = dict(overrides or {})
    jobs = [_args(base_config, workload, {k: v for k, v in base_sets.items() if k not in p}, grid=p) for p in pts]
    # The swept keys (union over the points) first, each with the value the run used: a point
    # without one of them shows its config's value.
    params = list(dict.fromkeys(k for p in pts for k in p))
    want_config = any(k not in p for p in pts for k in params)
    threads = max_workers or os.cpu_count() or 1
    configs, messages = _validate(jobs, pts, threads, want_config, errors, progress)
    out = _Outcomes(pts, errors, tqdm(total=len(jobs), desc="sweep", unit="run", disable=_disable(progress)))
    todo = []
    for i, msg in enumerate(messages):
        if msg is None:
            todo.append(i)
        else:
            out.fail(i, msg)
    runner = _runner or _run_point
    try:
        if todo:  # else every point was invalid (and recorded)
            _dispatch(backend, jobs, todo, out, max_workers, ray_address, runner)
    finally:
        out.bar.close()
    table = []
    for i, p in enumerate(pts):
        row = {k: p[k] if k in p else _lookup(configs[i], k) for k in params}
        if errors == "record":
            row["error"] = out.errors[i]
        row.update({(f"result.{k}" if k in row else k): v for k, v in (out.rows[i] or {}).items()})
        table.append(row)
    df = pd.DataFrame(table)
    if errors == "record":
        # Object dtype, so a successful point reads None (pandas 3 would infer a string column
        # and turn None into NaN).
        df["error"] = pd.Series(out.errors, dtype=object, index=df.index)
    return df


def _dispatch(backend, jobs, todo, out: "_Outcomes", max_workers, ray_address, runner) -> None:
    """Run ``jobs[i]`` for each ``i`` in ``todo`` with ``runner`` on ``backend``."""
    if backend == "ray":
        _on_ray(jobs, todo, out, max_workers, ray_address, runner)
    elif backend == "thread":
        _on_threads(jobs, todo, out, max_workers, runner)
    else:
        _on_processes(jobs, todo, out, max_workers, runner)


def _check_sweep_args(backend, max_workers, overrides, progress, ray_address, errors) -> None:
    if not isinstance(backend, str):
        raise TypeError(f"backend must be a string ({', '.join(BACKENDS)}), not {type(backend).__name__}")
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; valid: {', '.join(BACKENDS)}")
    if max_workers is not None and (not isinstance(max_workers, int) or isinstance(max_workers, bool) or max_workers < 1):
        raise ValueError(f"max_workers must be a whole number >= 1 (or None), not {max_workers!r}")
    if overrides is not None and not isinstance(overrides, Mapping):
        raise TypeError(f"overrides must be a dict of {{'dotted.key': value}}, not {type(overrides).__name__}")
    _check_progress(progress)
    if ray_address is not None and not isinstance(ray_address, str):
        raise TypeError(f"ray_address must be a string such as 'ray://host:10001' (or None), not {type(ray_address).__name__}")
    if not isinstance(errors, str):
        raise TypeError(f"errors must be 'raise' or 'record', not {type(errors).__name__}")
    if errors not in ERRORS:
        raise ValueError(f"errors must be 'raise' or 'record', not {errors!r}")


def _on_threads(jobs, todo, out: _Outcomes, max_workers, runner) -> None:
    import concurrent.futures as cf

    token = _flashlab.CancelToken()
    pool = cf.ThreadPoolExecutor(max_workers or os.cpu_count() or 1)
    try:
        futures = {pool.submit(runner, jobs[i], token): i for i in todo}
        for f in cf.as_completed(futures):
            i = futures[f]
            try:
                flat = f.result()
            except BaseException as e:  # noqa: B902 - PanicException is a BaseException
                msg = _point_error(e)
                if msg is None:
                    raise
                out.fail(i, msg)
                continue
            out.done(i, flat)
    except BaseException:
        token.cancel()  # worker threads never see Ctrl-C: stop their runs
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


class _Worker:
    """One worker process of the process backend, its end of the job pipe, and the point it
    runs (``None``: idle)."""

    def __init__(self, ctx, runner):
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_main, args=(child, runner), daemon=True)
        self.proc.start()
        child.close()  # the driver keeps one end only: later workers do not inherit this one
        self.job: Optional[int] = None
        self.stopped = False

    def give(self, i: Optional[int], jobs) -> None:
        """Send point ``i`` (``None``: stop). A worker found dead keeps the point: the driver
        sees its exit and fails the point."""
        self.job = i
        if self.stopped:
            return
        try:
            self.conn.send(None if i is None else (i, jobs[i]))
        except OSError:  # BrokenPipeError, ConnectionResetError: the process is gone
            pass

    def answer(self):
        """``(index, flat, error)``, or ``None`` when the process died without answering."""
        try:
            if self.conn.poll():
                return self.conn.recv()
        except (EOFError, ConnectionResetError, OSError):
            pass
        return None

    def stop(self) -> None:
        """End the process (at once if it runs a point) and close the pipe; idempotent."""
        if self.proc.is_alive():
            self.proc.terminate()
        self.proc.join()
        self.conn.close()
        self.stopped = True


def _on_processes(jobs, todo, out: _Outcomes, max_workers, runner) -> None:
    """At most ``max_workers`` worker processes, each running one point at a time; a worker
    that dies fails its point (named by its signal or exit code) and a new one takes its
    place. Workers are reused from point to point (a fork per point costs more)."""
    import multiprocessing
    from multiprocessing.connection import wait

    ctx = multiprocessing.get_context()
    waiting = list(reversed(todo))
    workers: List[_Worker] = []
    try:
        for _ in range(min(max_workers or os.cpu_count() or 1, len(waiting))):
            workers.append(_Worker(ctx, runner))
        for w in workers:
            _next(w, waiting, jobs)
        while any(w.job is not None for w in workers):
            busy = [w for w in workers if w.job is not None]
            ready = set(wait([w.conn for w in busy] + [w.proc.sentinel for w in busy]))
            for k, w in enumerate(workers):
                if w.job is None or (w.conn not in ready and w.proc.sentinel not in ready):
                    continue
                answer = w.answer()
                if answer is None:  # the run killed its process
                    w.proc.join()
                    i, w.job = w.job, None
                    code = w.proc.exitcode
                    w.stop()
                    if waiting:
                        workers[k] = w = _Worker(ctx, runner)
                    out.fail(i, f"worker process died ({_signal_name(code)}) while running this point")
                else:
                    i, flat, msg = answer
                    assert i == w.job, f"worker answered point {i} while running {w.job}"
                    w.job = None
                    if msg is None:
                        out.done(i, flat)
                    else:
                        out.fail(i, msg)
                _next(w, waiting, jobs)
        for w in workers:
            w.give(None, jobs)
    finally:
        # At once on Ctrl-C or a failed run (idle workers have been told to stop); a second
        # Ctrl-C must not interrupt the clean-up halfway.
        with _sigint_held():
            for w in workers:
                w.stop()


def _next(w: _Worker, waiting, jobs) -> None:
    """Give worker ``w`` the next point, if any."""
    if waiting and not w.stopped:
        w.give(waiting.pop(), jobs)


def _ray_error(e: BaseException) -> Optional[str]:
    """The message a Ray task's failure gives its point (``None``: not a Ray failure)."""
    import ray

    if isinstance(e, ray.exceptions.RayTaskError):
        cause = getattr(e, "cause", None)
        return _point_error(cause) if isinstance(cause, BaseException) and _point_error(cause) else str(e)
    if isinstance(e, ray.exceptions.WorkerCrashedError):
        return "Ray worker process died (crashed, aborted or killed) while running this point"
    if isinstance(e, ray.exceptions.RayError):
        first = str(e).strip().splitlines()[0] if str(e).strip() else ""
        return f"Ray: {type(e).__name__}: {first}"
    return None


def _on_ray(jobs, todo, out: _Outcomes, max_workers, ray_address, runner) -> None:
    try:
        import ray
    except ImportError:
        raise ImportError("backend='ray' needs Ray: pip install 'ray' (or flashlab[ray])") from None
    if not ray.is_initialized():
        ray.init(address=ray_address, include_dashboard=False, log_to_driver=False)
    # One retry on a dead worker: Ray also loses workers for reasons that are not the point's
    # (a node lost, a worker being torn down); a point that kills its worker dies twice.
    task = ray.remote(num_cpus=1, max_retries=1)(runner)
    limit = max_workers or max(len(todo), 1)
    waiting = list(reversed(todo))
    running = {}
    try:
        while waiting or running:
            while waiting and len(running) < limit:
                i = waiting.pop()
                running[task.remote(jobs[i])] = i
            done, _ = ray.wait(list(running), num_returns=1)
            for ref in done:
                i = running.pop(ref)
                try:
                    flat = ray.get(ref)
                except Exception as e:
                    msg = _ray_error(e)
                    if msg is None:
                        raise
                    out.fail(i, msg)
                    continue
                out.done(i, flat)
    except BaseException:
        for ref in running:
            ray.cancel(ref, force=True)
        # Until the cancelled tasks have ended: a worker still being killed must not be
        # handed the next sweep's first task.
        if running:
            ray.wait(list(running), num_returns=len(running), timeout=30)
        raise
