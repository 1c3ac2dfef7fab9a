"""Argument fuzzing of the public Python API (issue 21): random values of many types for each
parameter of ``run``, ``check_config``, ``trace_stats``, ``sweep``, ``presets``, ``policies`` and
``Result[...]``. Every call must succeed or raise a documented exception — ``TypeError`` or
``ValueError`` naming the parameter (or, for a dict, one of its keys), ``FlashlabError`` from the
core, ``KeyError`` for a missing result — never a ``PanicException``, ``OverflowError``,
``SystemError``, a ``UnicodeError`` or a crash.

    python -m flashlab._fuzz --cases 1000000            # the long run (prints the figures)
    python -m flashlab._fuzz --cases 1 --start 123456   # one case again, printing its call

Each case draws from its own generator seeded by ``(seed, case number)``, so any case is
repeated by its number alone. Cases are cheap: one or two arguments of a small valid call are
replaced (a 512-page device, 50 requests; the thread backend, one worker), so most calls fail
in argument checking and the rest run tiny simulations. Never drawn, to keep cases cheap: Ray
(``backend="ray"`` is replaced by ``"thread"``) and in-range numbers for real config keys (the
config fuzz target covers values; here a real key gets an exotic value). The plot helpers are
left out (matplotlib).
"""

from __future__ import annotations

import argparse
import enum
import math
import os
import pathlib
import random
import sys
import tempfile
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

import flashlab
from flashlab import _flashlab

#: A device of 512 pages and 50 uniform requests: a run takes about a millisecond.
TINY = {
    "device": {"channels": 1, "chips_per_channel": 1, "dies_per_chip": 1, "planes_per_die": 1,
               "blocks_per_plane": 32, "pages_per_block": 16, "over_provisioning": 0.3},
    "workload": {"kind": "uniform", "requests": 50},
}

#: Exceptions a call may raise (``KeyError`` only from ``Result[...]``).
ALLOWED = (TypeError, ValueError)
#: Never acceptable, even though some are ``ValueError`` subclasses.
FORBIDDEN = (UnicodeError, OverflowError, SystemError, RecursionError)

#: Strings that mean something somewhere (names, paths, keys), beside random ones.
WORDS = ["default", "trace", "femu-8gb", "greedy", "fifo", "2r", "page", "dftl", "process", "thread", "raise",
         "record", "msr", "csv", "spc", "builtin:msnfs", "builtin:nope", "", " ", ".", "..", "/", "/dev/null",
         "nonexistent.toml", "x.csv", "a.b", "ftl.gc", "seed", "workload", "device", "\0", "\ud800", "é",
         "16MiB", "4K", "-1", "1e999", "nan", "None", "[", "{}", "ray://127.0.0.1:1"]

#: Real dotted keys (from the tiny config) and made-up ones, for overrides and grids.
KEYS = ["seed", "ftl.gc", "ftl.mapping", "workload.kind", "workload.requests", "workload.theta",
        "workload.path", "device.channels", "device.page_size", "buffer.policy", "buffer.dram",
        "host.queue_depth", "sim.intervals", "sim.mode", "name", "nope", "ftl.nope", "a..b", "", ".",
        "device", "workload", "ftl", "x.path"]


class _Path(os.PathLike):
    def __init__(self, p: Any):
        self.p = p

    def __fspath__(self):
        return self.p


class _Color(enum.IntEnum):
    RED = 1


class _Weird:
    """An object with odd dunder methods."""

    def __repr__(self) -> str:
        return "<weird>"

    def tolist(self):
        return self


class _Loop(dict):
    """A dict that holds itself."""


def _loop() -> dict:
    d = _Loop()
    d["self"] = d
    return d


def value(rng: random.Random, depth: int = 0) -> Any:
    """A random value of a random type: scalars at the edges of their ranges, strings,
    containers (nested, up to depth 2) and odd objects."""
    kind = rng.randrange(16 if depth < 2 else 11)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice([0, 1, -1, 2, 7, 512, 4096, 2**31 - 1, 2**31, 2**32, 2**53 + 1, 2**63 - 1, 2**63,
                           2**64 - 1, 2**64, 2**70, -(2**63), -(2**63) - 1, -(2**70), 10**100])
    if kind == 3:
        return rng.randint(-(2**66), 2**66) >> rng.randrange(66)
    if kind == 4:
        return rng.choice([0.0, -0.0, 0.5, 1.0, 1.5, -1.0, 1e-300, 1e300, 5e-324, float("nan"), float("inf"),
                           float("-inf"), 4096.0, 2.0**64])
    if kind == 5:
        return rng.uniform(-10, 10)
    if kind in (6, 7):
        return rng.choice(WORDS)
    if kind == 8:
        alphabet = "abc.-_/:0123456789 \t\né\u00ff\u2028\U0001f600\0"
        return "".join(rng.choice(alphabet) for _ in range(rng.randrange(12)))
    if kind == 9:
        return rng.choice([b"", b"default", b"\xff\xfe", bytearray(b"x"), memoryview(b"ab")])
    if kind == 10:
        return rng.choice([object(), _Weird(), _Color.RED, 3 + 4j, len, _Path(rng.choice(["not-a-preset", b"x", 3, None])),
                           pathlib.Path("no/such.trace"), frozenset(), {1, 2}, range(3), type, Ellipsis])
    if kind in (11, 12):
        return [value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if kind == 13:
        return tuple(value(rng, depth + 1) for _ in range(rng.randrange(3)))
    if kind == 14:
        return {k: value(rng, depth + 1) for k in (_key(rng) for _ in range(rng.randrange(4))) if _hashable(k)}
    return rng.choice([_loop(), {1: 2}, {None: 1}, {("a",): 1}, {"": None}])


def _hashable(k: Any) -> bool:
    try:
        hash(k)
    except TypeError:
        return False
    return True


def _key(rng: random.Random) -> Any:
    r = rng.random()
    if r < 0.6:
        return rng.choice(KEYS)
    if r < 0.9:
        return rng.choice(WORDS)
    return value(rng, 2)


def _exotic(rng: random.Random) -> Any:
    """A value for a real config key that the Python layer or the core's type check refuses
    (never an in-range number or None, which would run or remove a key of the tiny config)."""
    while True:
        v = value(rng, 1)
        if v is None or isinstance(v, bool):
            continue
        if isinstance(v, (int, float)) and not isinstance(v, _Color):
            if isinstance(v, int) and -(2**63) <= v < 2**63:
                continue
            if isinstance(v, float) and math.isfinite(v):
                continue
        return v


def _mapping(rng: random.Random) -> Dict[Any, Any]:
    """A dict of dotted keys for overrides: real keys with exotic values, other keys with any."""
    out: Dict[Any, Any] = {}
    for _ in range(rng.randrange(1, 4)):
        k = _key(rng)
        if not _hashable(k):
            continue
        out[k] = _exotic(rng) if k in KEYS[:14] else value(rng, 1)
    return out


def _arg(rng: random.Random, param: str) -> Any:
    """A random value for ``param``: mostly of any type, sometimes shaped like the parameter."""
    if param in ("overrides", "grid", "config", "workload", "base_config") and rng.random() < 0.5:
        m = _mapping(rng)
        if param == "grid" and rng.random() < 0.5:
            return {k: [v] if rng.random() < 0.7 else v for k, v in m.items()}
        if param == "grid" and rng.random() < 0.5:
            return [m]
        return m
    v = value(rng)
    if param == "backend" and v == "ray":
        v = "thread"
    if param in ("config", "base_config") and isinstance(v, str) and v in flashlab.presets():
        v = "not-a-preset"  # a preset's full run takes seconds
    return v


#: Per function: its cheap valid call (keyword arguments) and the parameters to fuzz.
def _calls(trace: str) -> Dict[str, Tuple[Callable, Dict[str, Any]]]:
    return {
        "run": (flashlab.run, {"config": TINY, "workload": None, "overrides": None, "progress": False}),
        "check_config": (flashlab.check_config, {"config": TINY, "workload": None, "overrides": None}),
        "trace_stats": (flashlab.trace_stats, {"path": trace, "format": None, "device": None, "page_size": 4096}),
        "sweep": (flashlab.sweep, {"base_config": TINY, "grid": {"seed": [1]}, "backend": "thread", "max_workers": 1,
                                    "workload": None, "overrides": None, "progress": False, "ray_address": None,
                                    "errors": "raise"}),
        "presets": (flashlab.presets, {}),
        "policies": (flashlab.policies, {}),
    }


def _names(param: str, arg: Any) -> List[str]:
    """Words an error about ``param`` set to ``arg`` may name: the parameter, and for a dict
    (or a grid's point dicts) its keys."""
    names = [param]
    if param == "base_config":
        names.append("config")
    if param == "grid":
        names.append("grid")
    dicts = [arg] if isinstance(arg, dict) else [p for p in arg if isinstance(p, dict)] if isinstance(arg, (list, tuple)) else []
    for d in dicts:
        names += [k if k.strip() else repr(k) for k in d if isinstance(k, str)]
    return names


class Failure(Exception):
    pass


def case(number: int, seed: int, calls, result: "flashlab.Result", verbose: bool = False) -> str:
    """Run case ``number``; the outcome's name (``ok`` or the exception's class); raises
    ``Failure`` describing the call when the outcome breaks the contract."""
    rng = random.Random(f"{seed}:{number}")
    if rng.random() < 0.03:  # Result[...] with a random key
        key = value(rng)
        try:
            result[key]
            return "ok"
        except (TypeError, KeyError) as e:
            return type(e).__name__
        except BaseException as e:  # noqa: B902 - a PanicException is a BaseException
            raise Failure(f"case {number}: Result[{key!r}] raised {type(e).__name__}: {e}") from e
    name = rng.choice(sorted(calls))
    fn, base = calls[name]
    kwargs = dict(base)
    fuzzed = rng.sample(sorted(kwargs), min(len(kwargs), rng.choice([1, 1, 1, 2]))) if kwargs else []
    for p in fuzzed:
        kwargs[p] = _arg(rng, p)
    positional = rng.random() < 0.2 and bool(kwargs)
    call = f"{name}({', '.join(f'{k}={v!r}' for k, v in kwargs.items())})"
    if verbose:
        print(f"case {number}: {call}", flush=True)
    try:
        if positional and name != "sweep":
            fn(*kwargs.values())
        else:
            fn(**kwargs)
        return "ok"
    except FORBIDDEN as e:
        raise Failure(f"case {number}: {call} raised {type(e).__name__}: {e}") from e
    except ALLOWED as e:
        if not isinstance(e, _flashlab.FlashlabError):
            msg = str(e)
            named = [n for p in fuzzed for n in _names(p, kwargs[p]) if n and n in msg]
            if not named:
                raise Failure(f"case {number}: {call} raised {type(e).__name__} naming none of "
                              f"{fuzzed}: {msg}") from e
        return type(e).__name__
    except BaseException as e:  # noqa: B902 - a PanicException is a BaseException
        if isinstance(e, KeyboardInterrupt):
            raise
        raise Failure(f"case {number}: {call} raised {type(e).__name__}: {e}") from e


def _trace_file(directory: str) -> str:
    path = os.path.join(directory, "fuzz.csv")
    with open(path, "w") as f:
        f.write("0,hm,0,Write,0,4096,0\n1,hm,0,Read,4096,8192,0\n2,hm,1,Write,0,512,0\n")
    return path


def fuzz(cases: int, seed: int = 0, start: int = 0, verbose: bool = False, out=sys.stdout,
         report_every: int = 100_000) -> Tuple[int, float, List[str], Dict[str, int]]:
    """Run cases ``start .. start + cases``: (cases, seconds, failures, outcome counts)."""
    failures: List[str] = []
    outcomes: Dict[str, int] = {}
    slowest = (0.0, -1)
    with tempfile.TemporaryDirectory(prefix="flashlab-fuzz") as tmp:
        calls = _calls(_trace_file(tmp))
        result = flashlab.run(TINY, progress=False)
        cwd = os.getcwd()
        os.chdir(tmp)  # relative paths drawn ("x.csv", ".") resolve in an empty directory
        t0 = time.perf_counter()
        try:
            for n in range(start, start + cases):
                t = time.perf_counter()
                try:
                    kind = case(n, seed, calls, result, verbose)
                except Failure as f:
                    failures.append(str(f))
                    kind = "FAILURE"
                    print(f, file=out, flush=True)
                outcomes[kind] = outcomes.get(kind, 0) + 1
                slowest = max(slowest, (time.perf_counter() - t, n))
                if report_every and (n + 1 - start) % report_every == 0:
                    print(f"{n + 1 - start} cases, {time.perf_counter() - t0:.0f} s, {len(failures)} failures, "
                          f"slowest case {slowest[1]} ({slowest[0]:.2f} s)", file=out, flush=True)
        finally:
            os.chdir(cwd)
        seconds = time.perf_counter() - t0
    outcomes[f"slowest case {slowest[1]} (s)"] = round(slowest[0], 3)
    return cases, seconds, failures, outcomes


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m flashlab._fuzz", description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=10_000, help="how many cases (default 10,000)")
    parser.add_argument("--seed", type=int, default=0, help="the run's seed (default 0)")
    parser.add_argument("--start", type=int, default=0, help="the first case number (to repeat one)")
    parser.add_argument("--verbose", action="store_true", help="print each call before making it")
    parser.add_argument("--report-every", type=int, default=100_000, help="a progress line every N cases (0: none)")
    args = parser.parse_args(argv)
    n, seconds, failures, outcomes = fuzz(args.cases, args.seed, args.start, args.verbose,
                                          report_every=args.report_every)
    counts = ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items()))
    print(f"cases {n}, seed {args.seed}, start {args.start}: {seconds:.1f} s, {len(failures)} failures ({counts})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
