"""Reproductions of published results (``flashlab reproduce``), with their simulations run on
local processes or as Ray tasks on a cluster; the reports are the CLI's, byte for byte apart
from the section stating what the run cost."""

from __future__ import annotations

import json
import os
import time
from typing import List, Optional

from . import _flashlab
from .sweep import _dispatch, _Outcomes, _disable

BACKENDS = ("process", "thread", "ray")


def _run_planned(args, token=None) -> dict:
    """One run of a reproduction's plan: its ``results.json`` text."""
    (config,) = args
    return {"json": _flashlab.run_planned(config, token)}


def _store(path: str, text: str) -> None:
    """Written whole, then renamed: an interrupted write leaves no file."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def reproduce(
    name: str,
    scale: str = "quick",
    out: "str | os.PathLike" = "out",
    backend: str = "process",
    max_workers: Optional[int] = None,
    *,
    ray_address: Optional[str] = None,
    traces: "str | os.PathLike | None" = None,
    excerpts: bool = False,
    runs: "str | os.PathLike | None" = None,
    progress: Optional[bool] = None,
) -> List[str]:
    """Run reproduction ``name`` (see ``flashlab list``; ``"all"`` for every one, which also
    writes ``out/index.html``) at ``scale`` (``"quick"`` or ``"paper"``) and write its report,
    ``results.json`` and plots into ``out/NAME/``; returns the report paths.

    The simulations of the reproduction's plan run on ``backend``, as in ``sweep``:
    ``"process"`` (local worker processes), ``"thread"`` or ``"ray"`` (one task per run on the
    cluster at ``ray_address``, else ``RAY_ADDRESS``, else a new local one; flashlab and the
    trace folder must be at the same paths on every node). Each run's results are kept in
    ``runs`` (default ``out/.runs``) as it finishes, so calling again after an interruption
    runs only what is missing; a reproduction in phases is planned phase by phase. The report
    is built by the same code as the CLI's from the same results, so it is the same bytes
    except its last section (wall time, threads, peak memory).

    ``traces`` / ``excerpts``: where paper scale finds the full traces (default
    ``FLASHLAB_TRACES``, else ``../shared/traces``), or the built-in excerpts instead (every
    output then says it is not paper scale).
    """
    from tqdm.auto import tqdm

    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
    start = time.monotonic()
    out = os.fspath(out)
    runs_dir = os.fspath(runs) if runs is not None else os.path.join(out, ".runs")
    threads = max_workers or os.cpu_count() or 1
    traces = os.fspath(traces) if traces is not None else None
    while True:
        step = json.loads(
            _flashlab.reproduce_step(
                name, scale, out, runs_dir, traces, excerpts, threads, time.monotonic() - start
            )
        )
        missing = step["missing"]
        if not missing:
            return step["reports"]
        jobs = [(m["config"],) for m in missing]
        pts = [{"reproduction": m["reproduction"], "run": m["label"]} for m in missing]
        bar = tqdm(total=len(jobs), desc=f"reproduce {missing[0]['reproduction']}", unit="run", disable=_disable(progress))
        done = _Outcomes(pts, "raise", bar)
        todo = list(range(len(jobs)))
        try:
            _dispatch(backend, jobs, todo, done, max_workers, ray_address, _run_planned)
        finally:
            bar.close()
            # What finished is kept, even when a run failed or Ctrl-C stopped the others.
            for m, row in zip(missing, done.rows):
                if row is not None:
                    _store(os.path.join(runs_dir, m["reproduction"], f"{m['id']}.json"), row["json"])
