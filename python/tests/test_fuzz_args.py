"""The Python argument fuzz target (flashlab._fuzz): a bounded run; the long run is
``python -m flashlab._fuzz --cases 1000000`` (README, Python section)."""

import subprocess
import sys

import flashlab
from flashlab import _fuzz


def test_bounded_run_has_no_failures():
    """5,000 seeded cases in a child process (a crash there is a failure here, not the end of
    the test session): every call succeeds or raises a documented error naming its argument."""
    p = subprocess.run([sys.executable, "-m", "flashlab._fuzz", "--cases", "5000", "--seed", "21"],
                       capture_output=True, text=True, timeout=600)
    summary = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
    assert p.returncode == 0 and ", 0 failures (" in summary, (p.returncode, p.stdout[-3000:], p.stderr[-3000:])


def _counts(outcomes: dict) -> dict:
    return {k: v for k, v in outcomes.items() if not k.startswith("slowest")}


def test_cases_are_deterministic():
    a = _fuzz.fuzz(300, seed=5, report_every=0)
    b = _fuzz.fuzz(300, seed=5, report_every=0)
    assert _counts(a[3]) == _counts(b[3]) and a[2] == b[2] == []
    c = _fuzz.fuzz(100, seed=5, start=200, report_every=0)
    assert sum(_counts(c[3]).values()) == 100


def test_the_fuzz_can_fail(monkeypatch):
    """An argument error that names nothing, or an OverflowError, is reported as a failure."""
    def overflowing(path, format=None, device=None, page_size=4096):
        raise OverflowError("int too big to convert")

    monkeypatch.setattr(flashlab, "trace_stats", overflowing)
    _n, _s, failures, _o = _fuzz.fuzz(300, seed=0, report_every=0)
    assert failures and all("OverflowError" in f for f in failures), failures[:3]

    def unnamed(config, workload=None, overrides=None):
        raise TypeError("'int' object is not an instance of 'str'")

    monkeypatch.setattr(flashlab, "check_config", unnamed)
    monkeypatch.setattr(flashlab, "trace_stats", lambda *a, **k: {})
    _n, _s, failures, _o = _fuzz.fuzz(300, seed=0, report_every=0)
    assert failures and any("naming none of" in f for f in failures), failures[:3]
