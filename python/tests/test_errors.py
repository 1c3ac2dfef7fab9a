"""Errors from the core are Python exceptions with the CLI's message (file, line, field)."""

import json
import signal
import subprocess
import sys
import textwrap

import pytest

import flashlab
from conftest import SMALL, run_cli


def cli_error(cli, tmp_path, *args) -> str:
    p = run_cli(cli, *args, "--quiet", "--out", str(tmp_path / "out"))
    assert p.returncode == 2, p.stderr
    lines = p.stderr.strip().splitlines()
    # A failure after the output directory was checked adds a line saying it is untouched.
    if lines[-1].startswith("(no output was written"):
        lines.pop()
    line = lines[-1]
    assert line.startswith("error: ")
    return line[len("error: "):]


def test_is_a_value_error():
    assert issubclass(flashlab.FlashlabError, ValueError)


def test_unknown_policy_lists_the_valid_ones(cli, tmp_path):
    with pytest.raises(flashlab.FlashlabError) as e:
        flashlab.run("default", overrides={"ftl.gc": "bogus"})
    valid = ", ".join(flashlab.policies()["gc"])  # the registry's order, whatever is added to it
    assert f"unknown GC policy `bogus`; valid: {valid}" in str(e.value)
    # The same message as the CLI's, the override named as each caller wrote it.
    cli_msg = cli_error(cli, tmp_path, "run", "default", "--set", 'ftl.gc="bogus"')
    assert cli_msg.startswith('--set ftl.gc="bogus": ') and cli_msg.count("ftl.gc=") == 1, cli_msg
    assert str(e.value) == cli_msg.replace('--set ftl.gc="bogus"', "overrides['ftl.gc'] = 'bogus'")


def test_python_errors_name_keys_as_the_caller_wrote_them():
    """No CLI syntax in Python errors: a dotted key in a config dict, an override, a grid point
    and the workload argument are each quoted in Python's own form."""
    with pytest.raises(flashlab.FlashlabError) as e:
        flashlab.run({"device": {"blocks_per_plane": 64, "pages_per_block": 64}, "workload": {"kind": "uniform"},
                      "ftl.gcc": "greedy"})
    assert str(e.value).startswith("config['ftl.gcc'] = 'greedy': field `ftl.gcc`: unknown field"), str(e.value)
    with pytest.raises(flashlab.FlashlabError) as e:
        flashlab.run("default", overrides={"ftl.gcc": "greedy"})
    assert str(e.value).startswith("overrides['ftl.gcc'] = 'greedy': field `ftl.gcc`"), str(e.value)
    with pytest.raises(flashlab.FlashlabError) as e:
        flashlab.sweep("default", {"ftl.gc": ["greedy", "bogus"]}, backend="thread")
    assert "grid point 'ftl.gc' = 'bogus'" in str(e.value) and "--set" not in str(e.value), str(e.value)
    with pytest.raises(flashlab.FlashlabError) as e:
        flashlab.run("default", workload={"kind": "uniform", "thetaa": 1})
    assert "--set" not in str(e.value) and "workload=" in str(e.value), str(e.value)


def test_misspelt_key_names_file_line_and_field(cli, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[device]\nchannels = 1\nchanels = 2\n')
    with pytest.raises(flashlab.FlashlabError) as e:
        flashlab.run(str(bad))
    msg = str(e.value)
    assert msg.startswith(f"{bad}:3: field `device.chanels`: unknown field `chanels`")
    assert msg == cli_error(cli, tmp_path, "run", str(bad))


def test_bad_trace_line_names_file_line_and_field(cli, tmp_path):
    trace = tmp_path / "bad.csv"
    trace.write_text("0,hm,0,Write,0,4096,0\n1,hm,0,Write,xx,4096,0\n")
    with pytest.raises(flashlab.FlashlabError) as e:
        flashlab.run("default", workload={"kind": "trace", "path": str(trace), "format": "msr"}, progress=False)
    assert str(e.value).startswith(f"{trace}:2: field `offset`")
    table = f'workload={{kind="trace", path={json.dumps(str(trace))}, format="msr"}}'
    assert str(e.value) == cli_error(cli, tmp_path, "run", "default", "--set", table)


def test_missing_trace_file():
    with pytest.raises(flashlab.FlashlabError, match="no/such.trace"):
        flashlab.run("default", workload="no/such.trace")


def test_unknown_preset_lists_the_presets():
    with pytest.raises(flashlab.FlashlabError, match=r"nosuch: no such file, and not a preset \(presets: default, trace"):
        flashlab.run("nosuch")


def test_bad_value_type_names_the_key():
    with pytest.raises(flashlab.FlashlabError, match=r"field `workload.theta`.*invalid type: string \"abc\""):
        flashlab.run("default", overrides={"workload.theta": "abc"})


def test_dict_config_errors_name_the_field():
    with pytest.raises(flashlab.FlashlabError, match=r"config dict: field `device`: missing field"):
        flashlab.run({"device": {"page_size": "4KiB"}, "workload": {"kind": "uniform"}})
    with pytest.raises(flashlab.FlashlabError, match=r"config dict: field `device.channels\[0\]`: None has no TOML form"):
        flashlab.run({"device": {"channels": [None]}, "workload": {"kind": "uniform"}})
    with pytest.raises(flashlab.FlashlabError, match=r"^config dict: missing field `device`$"):
        flashlab.run({})
    with pytest.raises(TypeError, match="config must be"):
        flashlab.run(42)


def test_nan_and_odd_types_name_the_key():
    with pytest.raises(flashlab.FlashlabError, match=r"^workload.theta: nan is not a valid value"):
        flashlab.run("default", overrides={"workload.theta": float("nan")})
    with pytest.raises(flashlab.FlashlabError, match=r"^device.over_provisioning: inf is not a valid value"):
        flashlab.sweep("default", {"device.over_provisioning": [0.1, float("inf")]})
    with pytest.raises(TypeError, match=r"^seed: a set has no TOML form"):
        flashlab.run("default", overrides={"seed": {1, 2}})
    with pytest.raises(TypeError, match=r"overrides must be a dict"):
        flashlab.run("default", overrides=[("ftl.gc", "fifo")])
    with pytest.raises(TypeError, match=r"overrides: key 1 is not a string"):
        flashlab.run("default", overrides={1: 2})


def test_overridden_values_are_blamed_on_the_override(tmp_path):
    with pytest.raises(flashlab.FlashlabError) as e:
        flashlab.run("default", overrides={"workload.theta": "high"})
    assert str(e.value).startswith("overrides['workload.theta'] = 'high': field `workload.theta`"), str(e.value)
    trace = tmp_path / "t.csv"
    trace.write_text("0,hm,0,Write,0,4096,0\n")
    with pytest.raises(flashlab.FlashlabError) as e:
        flashlab.run("default", workload=trace, overrides={"workload.volume_ratio": 0.2})
    assert "`workload.volume_ratio`: unknown key in overrides['workload.volume_ratio'] = 0.2 for a trace workload" in str(e.value)
    with pytest.raises(flashlab.FlashlabError) as e:
        flashlab.run("default", workload=tmp_path / "missing.csv")
    assert "`workload.path`" in str(e.value) and "missing.csv: No such file" in str(e.value)


def test_presets_are_the_embedded_text():
    """A preset's own keys are blamed on the preset, not on a file of the source tree it was
    built from: the installed package never reads the clone."""
    with pytest.raises(flashlab.FlashlabError) as e:
        flashlab.run("default", overrides={"workload.kind": "trace", "workload.path": "builtin:msnfs"})
    assert "unknown key in preset default for a trace workload" in str(e.value), str(e.value)


# --- Argument types and ranges: each wrong one names its parameter (issue 21) ---

class _BytesPath:
    """An os.PathLike whose path is bytes (the core takes text paths only)."""

    def __fspath__(self):
        return b"default"


@pytest.mark.parametrize("kwargs, error, pattern", [
    ({"page_size": 2**70}, ValueError, r"^page_size must be a power of two from 512 B to 2 GiB, not 1180591620717411303424$"),
    ({"page_size": -4096}, ValueError, r"^page_size must be"),
    ({"page_size": True}, TypeError, r"^page_size must be a number of bytes \(an int\), not True$"),
    ({"page_size": 4096.0}, TypeError, r"^page_size must be a number of bytes"),
    ({"page_size": 1000}, flashlab.FlashlabError, r"`page_size`: 1000 bytes is not a power of two"),
    ({"format": 3}, TypeError, r"^format must be a trace format name .* not 3$"),
    ({"format": "nope"}, flashlab.FlashlabError, r"nope"),
    ({"device": True}, TypeError, r"^device must be a device number \(an int >= 0\) or None, not True$"),
    ({"device": 2**64}, ValueError, r"^device must be a device number from 0 to 2\*\*64-1"),
    ({"device": -1}, ValueError, r"^device must be a device number"),
    ({"device": "0"}, TypeError, r"^device must be"),
])
def test_trace_stats_arguments(kwargs, error, pattern):
    with pytest.raises(error, match=pattern) as e:
        flashlab.trace_stats("builtin:msnfs", **kwargs)
    if error is not flashlab.FlashlabError:
        assert not isinstance(e.value, flashlab.FlashlabError)


@pytest.mark.parametrize("path, error, pattern", [
    (3, TypeError, r"^path must be a path \(str or os.PathLike of str\), not int$"),
    (b"builtin:msnfs", TypeError, r"^path must be a path"),
    (_BytesPath(), TypeError, r"^path must be a path"),
    ("bad\0name", ValueError, r"^path: .* contains a NUL character$"),
    ("\ud800", ValueError, r"^path: .* is not valid Unicode"),
])
def test_trace_stats_path(path, error, pattern):
    with pytest.raises(error, match=pattern):
        flashlab.trace_stats(path)


def test_run_and_check_arguments():
    for call in (flashlab.run, flashlab.check_config):
        with pytest.raises(TypeError, match=r"^config must be a path \(str or os.PathLike of str\), not _BytesPath$"):
            call(_BytesPath())
        with pytest.raises(TypeError, match=r"^config must be a preset name, a TOML path or a dict, not bytes$"):
            call(b"default")
        with pytest.raises(ValueError, match=r"^config: '\\ud800' is not valid Unicode"):
            call("\ud800")
        with pytest.raises(TypeError, match=r"^workload must be a trace path or a dict, not int$"):
            call("default", workload=3)
        with pytest.raises(flashlab.FlashlabError, match=r"^seed: 1180591620717411303424 is out of range \(TOML integers are 64-bit"):
            call("default", overrides={"seed": 2**70})
        with pytest.raises(flashlab.FlashlabError, match=r"^workload.theta: -9223372036854775809 is out of range"):
            call("default", overrides={"workload.theta": -(2**63) - 1})
    for bad in ["yes", 1, 0.5, []]:
        with pytest.raises(TypeError, match=r"^progress must be True, False or None, not"):
            flashlab.run("default", overrides=SMALL, progress=bad)


def test_sweep_arguments():
    for kwargs, error, pattern in [
        ({"backend": 3}, TypeError, r"^backend must be a string \(process, thread, ray\), not int$"),
        ({"progress": "no"}, TypeError, r"^progress must be True, False or None, not 'no'$"),
        ({"ray_address": 6379}, TypeError, r"^ray_address must be a string"),
        ({"errors": None}, TypeError, r"^errors must be 'raise' or 'record', not NoneType$"),
        ({"overrides": {"workload.requests": 2**64}}, flashlab.FlashlabError, r"^workload.requests: 18446744073709551616 is out"),
    ]:
        with pytest.raises(error, match=pattern):
            flashlab.sweep("default", {"seed": [1]}, **kwargs)
    with pytest.raises(flashlab.FlashlabError, match=r"^seed: 18446744073709551616 is out of range"):
        flashlab.sweep("default", {"seed": [1, 2**64]})


def test_plot_arguments():
    import pandas as pd

    df = pd.DataFrame({"ftl.gc": ["greedy"], "waf": [1.5], "workload.theta": [0.9]})
    with pytest.raises(TypeError, match=r"^x must be a column name \(a string\), not 3$"):
        flashlab.plot.waf_by_policy(df, x=3)
    with pytest.raises(TypeError, match=r"^size must be a column name"):
        flashlab.plot.hit_ratio_vs_buffer(df, size=["buffer.dram"])
    with pytest.raises(TypeError, match=r"^cumulative must be True or False, not 1$"):
        flashlab.plot.running_waf(df, cumulative=1)
