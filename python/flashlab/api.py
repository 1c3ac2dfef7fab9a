"""One run: configuration in, ``Result`` out. No simulation logic here: the Rust core does it."""

from __future__ import annotations

import json
import math
import os
import sys
from typing import Any, Callable, Mapping, Optional, Union

from . import _flashlab, schema

FlashlabError = _flashlab.FlashlabError

ConfigLike = Union[str, "os.PathLike[str]", Mapping[str, Any]]
WorkloadLike = Union[None, str, "os.PathLike[str]", Mapping[str, Any]]

#: Result keys whose values are lists (histograms, CDFs, traces) or the echoed config: left
#: out of ``Result.flat()`` and of sweep tables.
_NOT_SCALAR = ("config", "series")


class Result:
    """The results of one run.

    ``summary``: the ``results.json`` document as a dict (same keys as the CLI writes).
    ``series``: the per-interval series (``series.csv``) as a pandas DataFrame.
    ``to_json()``: the ``results.json`` text.
    """

    def __init__(self, json_text: str):
        self._json = json_text
        self.summary: "schema.Results" = json.loads(json_text)
        self._series = None

    @property
    def series(self):
        """Per-interval series, one row per interval; the columns are the results'
        ``series_columns`` (docs/results.md: interval, host_writes, running_waf, ...)."""
        if self._series is None:
            import pandas as pd

            columns = self.summary["series_columns"]
            series = pd.DataFrame(self.summary["series"], columns=columns)
            # Columns that may be null (frozen_share; the timing columns in accounting mode)
            # are floats with NaN for null, as pandas reads series.csv.
            nullable = {c: float for c in columns if series[c].dtype == object}
            self._series = series.astype(nullable)
        return self._series

    @property
    def handles(self):
        """Per FDP reclaim unit handle (``ftl.placement``), one row each: ``handle``,
        ``host_pages``, ``gc_moves``, ``waf``, ``ru_filled``, ``ru_reallocated``,
        ``held_pages``, ``valid_pages`` (docs/results.md, ``placement``). Empty without
        placement."""
        import pandas as pd

        columns = ["handle", "host_pages", "gc_moves", "waf", "ru_filled", "ru_reallocated", "held_pages", "valid_pages"]
        placement = self.summary.get("placement") or {"handles": []}
        rows = [
            {**{k: h[k] for k in ("handle", "host_pages", "gc_moves", "waf")}, **h["stored"]}
            for h in placement["handles"]
        ]
        return pd.DataFrame(rows, columns=columns).astype({"waf": float})

    @property
    def reclaim_groups(self):
        """Per FDP reclaim group (``ftl.placement.reclaim_groups``), one row each: ``group``,
        ``host_pages``, ``gc_moves``, ``waf`` on the group's planes (docs/results.md,
        ``placement``). Empty without placement."""
        import pandas as pd

        columns = ["group", "host_pages", "gc_moves", "waf"]
        placement = self.summary.get("placement") or {"reclaim_groups": []}
        return pd.DataFrame(placement["reclaim_groups"], columns=columns).astype({"waf": float})

    @property
    def waf(self) -> Optional[float]:
        """Flash programs / host page writes (device write amplification, buffer included)."""
        return self.summary["waf"]

    def to_json(self) -> str:
        """The ``results.json`` text, exactly as ``flashlab run`` writes it."""
        return self._json

    def flat(self) -> dict:
        """Every scalar of ``summary`` under a dotted name (``flash.erases``,
        ``latency_us.write.p99``); lists (histograms, CDFs), the echoed config and values not
        measured in this run (``None``: no buffer, no hybrid FTL, ...) left out."""
        out: dict = {}

        def walk(d: Mapping[str, Any], prefix: str) -> None:
            for k, v in d.items():
                if isinstance(v, Mapping):
                    walk(v, f"{prefix}{k}.")
                elif v is not None and not isinstance(v, list):
                    out[prefix + k] = v

        walk({k: v for k, v in self.summary.items() if k not in _NOT_SCALAR}, "")
        return out

    def __getitem__(self, dotted: str) -> Any:
        """``r["flash.erases"]``: a value by dotted path into ``summary``."""
        if not isinstance(dotted, str):
            raise TypeError(f"index a Result by a dotted key such as 'flash.erases', not {dotted!r}")
        cur: Any = self.summary
        for part in dotted.split("."):
            if not isinstance(cur, Mapping) or part not in cur:
                raise KeyError(f"{dotted!r}: no such result (see Result.flat() for the names)")
            cur = cur[part]
        return cur

    def __repr__(self) -> str:
        s = self.summary
        waf = "-" if s["waf"] is None else f"{s['waf']:.3f}"
        name = f" {s['name']}" if s.get("name") else ""
        return (
            f"<flashlab.Result{name} workload={s['workload']!r} waf={waf} "
            f"erases={s['flash']['erases']} host_requests={s['host']['requests']}>"
        )


def _path(p: Any, where: str) -> str:
    """A str or ``os.PathLike`` as a ``str`` path; anything else (bytes paths too) refused
    naming ``where``."""
    if isinstance(p, (str, os.PathLike)):
        try:
            text = os.fspath(p)
        except TypeError as e:  # __fspath__ returned neither str nor bytes
            raise TypeError(f"{where} must be a path (str or os.PathLike of str): {e}") from None
        if isinstance(text, str):
            return _text(text, where)
    raise TypeError(f"{where} must be a path (str or os.PathLike of str), not {type(p).__name__}")


def _text(s: str, where: str) -> str:
    """``s``, refused naming ``where`` when it has no UTF-8 form (a lone surrogate) or holds a
    NUL character (neither can reach the core)."""
    try:
        s.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ValueError(f"{where}: {s!r} is not valid Unicode ({e.reason} at position {e.start})") from None
    if "\0" in s:
        raise ValueError(f"{where}: {s!r} contains a NUL character")
    return s


def _key_name(k: str) -> str:
    """A key as errors name it: as written, or quoted when empty."""
    return k if k.strip() else repr(k)


def _check_progress(progress: Any) -> None:
    """``progress`` is ``True``, ``False`` or ``None``."""
    if progress is not None and not isinstance(progress, bool):
        raise TypeError(f"progress must be True, False or None, not {progress!r}")


def _absolute(path: str) -> str:
    if path.startswith("builtin:") or os.path.isabs(path):
        return path
    return os.path.abspath(path)


def _anchored(key: str, v: Any) -> Any:
    """A (plain) value with its trace path made absolute: ``x.path = "t.csv"``, or a table
    holding ``path`` (``workload = {kind = "trace", path = "t.csv"}``)."""
    if key.endswith("path") and isinstance(v, str):
        return _absolute(v)
    if isinstance(v, dict) and isinstance(v.get("path"), str):
        return {**v, "path": _absolute(v["path"])}
    return v


#: TOML integers are 64-bit signed.
_TOML_INT = (-(2**63), 2**63 - 1)

#: The largest value a count given to the core may take (a Rust ``u64``).
_U64_MAX = 2**64 - 1


def _plain(v: Any, where: str, within: tuple = ()) -> Any:
    """``v`` as plain JSON-ready Python (NumPy scalars and arrays, paths and tuples converted);
    anything without a TOML form is refused naming ``where``. ``within``: the ids of the
    containers holding ``v`` (one that holds itself has no TOML form)."""
    if id(v) in within:
        raise ValueError(f"{where}: a dict or list that contains itself has no TOML form")
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        if not _TOML_INT[0] <= v <= _TOML_INT[1]:
            raise FlashlabError(f"{where}: {v} is out of range (TOML integers are 64-bit: -2**63 to 2**63-1)")
        return int(v)  # an int subclass (IntEnum...) as a plain int
    if isinstance(v, float):
        if not math.isfinite(v):
            raise FlashlabError(f"{where}: {v} is not a valid value (NaN and infinity have no TOML form)")
        return v
    if isinstance(v, os.PathLike):
        return _path(v, where)
    if isinstance(v, Mapping):
        out = {}
        for k, x in v.items():
            if not isinstance(k, str):
                raise TypeError(f"{where}: key {k!r} is not a string")
            out[k] = _plain(x, f"{where}.{k}" if where else _key_name(k), within + (id(v),))
        return out
    if isinstance(v, (list, tuple)):
        return [_plain(x, f"{where}[{i}]", within + (id(v),)) for i, x in enumerate(v)]
    if hasattr(v, "tolist") and callable(v.tolist) and not isinstance(v, type):  # NumPy scalars and arrays
        try:
            listed = v.tolist()
        except Exception:  # not NumPy's tolist: refused below
            listed = None
        if isinstance(listed, (list, bool, int, float, str)):
            return _plain(listed, where, within + (id(v),))
    raise TypeError(f"{where}: a {type(v).__name__} has no TOML form (use numbers, strings, booleans, lists and dicts)")


def _args(config: ConfigLike, workload: WorkloadLike, overrides: Optional[Mapping[str, Any]],
          grid: Optional[Mapping[str, Any]] = None):
    """(name, tree_json, overrides_json) for the core: absolute paths, dotted keys as overrides,
    so the same arguments mean the same run in another process, directory or machine. Each
    override carries a label naming it as the caller wrote it (``overrides['ftl.gc'] = 'fifo'``),
    which error messages quote."""
    sets: list = []  # (key, value, label)
    if isinstance(config, Mapping):
        tree: dict = {}
        for k, v in config.items():
            if not isinstance(k, str):
                raise TypeError(f"config dict: key {k!r} is not a string")
            if "." in k:
                sets.append((k, v, f"config[{k!r}] = {v!r}"))  # {"ftl.gc": "fifo"} at the top: an override
            else:
                tree[k] = _anchored(k, _plain(v, _key_name(k)))
        name, tree_json = "config dict", json.dumps(tree)
    elif isinstance(config, (str, os.PathLike)):
        name, tree_json = _path(config, "config"), None
        if os.path.exists(name):
            name = os.path.abspath(name)
    else:
        raise TypeError(f"config must be a preset name, a TOML path or a dict, not {type(config).__name__}")
    if workload is not None:
        if isinstance(workload, Mapping):
            sets.append(("workload", workload, f"workload={workload!r}"))
        elif isinstance(workload, (str, os.PathLike)):
            path = _path(workload, "workload")
            sets.append(("workload", {"kind": "trace", "path": path}, f"workload={path!r}"))
        else:
            raise TypeError(f"workload must be a trace path or a dict, not {type(workload).__name__}")
    if overrides is not None and not isinstance(overrides, Mapping):
        raise TypeError(f"overrides must be a dict of {{'dotted.key': value}}, not {type(overrides).__name__}")
    sets.extend((k, v, f"overrides[{k!r}] = {v!r}") for k, v in (overrides or {}).items())
    sets.extend((k, v, f"grid point {k!r} = {v!r}") for k, v in (grid or {}).items())
    pairs = []
    for k, v, label in sets:
        if not isinstance(k, str):
            raise TypeError(f"overrides: key {k!r} is not a string (use 'section.key')")
        pairs.append((k, _anchored(k, _plain(v, _key_name(k))), label))
    return name, tree_json, json.dumps(pairs)


def check_config(config: ConfigLike, workload: WorkloadLike = None, overrides: Optional[Mapping[str, Any]] = None) -> dict:
    """Parse and validate a configuration without running it; returns the full config (every
    default filled in) as a dict. Raises ``FlashlabError`` naming the file, line and field."""
    return json.loads(_flashlab.check(*_args(config, workload, overrides)) or "null")


def _disable(progress: Optional[bool]) -> Optional[bool]:
    """tqdm's ``disable`` for our ``progress``: ``None`` shows bars on a terminal (tqdm's own
    check) and in a Jupyter kernel, whose output streams are not terminals."""
    if progress is not None:
        return not progress
    return False if "ipykernel" in sys.modules else None


def _bar(progress: Optional[bool]) -> Optional[Callable[[str, int, int], None]]:
    """A tqdm bar per phase (``_disable`` says where)."""
    if progress is False:
        return None
    from tqdm.auto import tqdm

    state: dict = {}

    def update(phase: str, done: int, total: int) -> None:
        bar = state.get("bar")
        if bar is None or state.get("phase") != phase:
            if bar is not None:
                bar.close()
            # Units vary (pages, bytes of volume, bytes of trace file): show shares and times.
            bar = tqdm(total=total or None, desc=phase, disable=_disable(progress), leave=False,
                       bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}<{remaining}")
            state["bar"], state["phase"] = bar, phase
        bar.n = done
        bar.refresh()
        if total and done >= total:
            bar.close()
            state["bar"] = None

    return update


def run(
    config: ConfigLike,
    workload: WorkloadLike = None,
    overrides: Optional[Mapping[str, Any]] = None,
    progress: Optional[bool] = None,
) -> Result:
    """Run one simulation and return its ``Result``.

    ``config``: a preset name (``"default"``; see ``presets()``), a TOML file path, or a dict
    shaped like the TOML file (``{"device": {...}, "workload": {...}}``); top-level dotted keys
    (``{"ftl.gc": "fifo"}``) apply as overrides.
    ``workload``: optional; a trace path (or ``"builtin:msnfs"``) to replay, or a dict replacing
    the ``[workload]`` table.
    ``overrides``: ``{"dotted.key": value}`` applied on top, as ``flashlab run --set``;
    ``None`` as a value removes the key.
    ``progress``: ``None`` shows a bar in terminals and notebooks only; ``True``/``False`` force it.

    The GIL is released while simulating (threads run in parallel); Ctrl-C stops the run.
    Raises ``FlashlabError`` with the CLI's message (file, line, field) on bad input.
    """
    _check_progress(progress)
    name, tree, sets = _args(config, workload, overrides)
    return Result(_flashlab.run(name, tree, sets, _bar(progress), None))


def presets() -> dict:
    """The built-in presets: ``{name: description}`` (run one with ``run(name)``)."""
    return dict(_flashlab.presets())


def policies() -> dict:
    """Every registry: ``{"mapping": {name: description}, "gc": {...}, "buffer": {...},
    "host": {...}, "workload": {...}, "format": {...}, "builtin": {...}, "preset": {...}}`` —
    what ``flashlab list`` prints, less the reproductions (a CLI command, ``flashlab reproduce``,
    not part of the simulator this package binds)."""
    return {rid: dict(entries) for rid, _title, entries in _flashlab.registries()}


def trace_stats(path: Union[str, "os.PathLike[str]"], format: Optional[str] = None,
                device: Optional[int] = None, page_size: int = 4096) -> dict:
    """Statistics of a trace file (``flashlab trace stats --json``); the format is detected
    unless given. ``path`` may be a built-in trace (``"builtin:msnfs"``).

    ``format``: a format name (``policies()["format"]``) or ``None`` to detect it; ``device``:
    keep only the records of this device number (``None``: all); ``page_size``: bytes per page
    for the page counts, a power of two from 512 B to 2 GiB. Wrong types raise ``TypeError``,
    out-of-range numbers ``ValueError``, a bad file or format ``FlashlabError``.
    """
    text = _path(path, "path")
    if format is not None:
        if not isinstance(format, str):
            raise TypeError(f"format must be a trace format name (a string; see policies()['format']) or None, not {format!r}")
        _text(format, "format")
    if device is not None:
        if not isinstance(device, int) or isinstance(device, bool):
            raise TypeError(f"device must be a device number (an int >= 0) or None, not {device!r}")
        if not 0 <= device <= _U64_MAX:
            raise ValueError(f"device must be a device number from 0 to 2**64-1, not {device!r}")
    if not isinstance(page_size, int) or isinstance(page_size, bool):
        raise TypeError(f"page_size must be a number of bytes (an int), not {page_size!r}")
    if not 0 < page_size <= _U64_MAX:
        raise ValueError(f"page_size must be a power of two from 512 B to 2 GiB, not {page_size!r}")
    return json.loads(_flashlab.trace_stats(_absolute(text), format, device, page_size))

