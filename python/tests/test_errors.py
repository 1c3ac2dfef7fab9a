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
    line = p.stderr.strip().splitlines()[-1]
    assert line.startswith("error: ")
    return line[len("error: "):]


def test_is_a_value_error():
    assert issubclass(flashlab.FlashlabError, ValueError)


def test_unknown_policy_lists_the_valid_ones(cli, tmp_path):
    with pytest.raises(flashlab.FlashlabError) as e:
        flashlab.run("default", overrides={"ftl.gc": "bogus"})
    assert "unknown GC policy `bogus`; valid: greedy, cost-benefit, fifo, 2r, 2r++" in str(e.value)
    assert str(e.value) == cli_error(cli, tmp_path, "run", "default", "--set", 'ftl.gc="bogus"')


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
    with pytest.raises(flashlab.FlashlabError, match=r"config dict: field `device.channels`: None has no TOML form"):
        flashlab.run({"device": {"channels": None}, "workload": {"kind": "uniform"}})
    with pytest.raises(flashlab.FlashlabError, match=r"overrides: Out of range float values"):
        flashlab.run("default", overrides={"workload.theta": float("nan")})
    with pytest.raises(TypeError, match="config must be"):
        flashlab.run(42)


def test_impossible_device_is_an_error_not_a_crash():
    with pytest.raises(flashlab.FlashlabError, match="over_provisioning"):
        flashlab.run("default", overrides={"device.over_provisioning": 0.0, "device.logical_capacity": None})


def test_trace_stats_unknown_format_lists_formats(tmp_path):
    f = tmp_path / "t.csv"
    f.write_text("0,hm,0,Write,0,4096,0\n")
    with pytest.raises(flashlab.FlashlabError, match="unknown trace format `nope`; valid: msr"):
        flashlab.trace_stats(f, format="nope")


def test_exception_in_progress_callback_stops_the_run():
    seen = []

    def callback(phase, done, total):
        seen.append(phase)
        if phase == "simulating":
            raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        flashlab._flashlab.run("default", None, json.dumps(SMALL), callback)
    assert seen[0].startswith("precondition")


def test_ctrl_c_stops_a_run():
    """SIGINT during a long run raises KeyboardInterrupt in Python (the run checks for
    signals while it simulates) instead of running to the end."""
    script = textwrap.dedent(
        """
        import signal, sys, flashlab
        # A child started in the background may inherit SIGINT ignored: restore Python's handler.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        print("start", flush=True)
        try:
            flashlab.run("default", overrides={"workload.volume_ratio": 1000.0}, progress=False)
            print("finished")
        except KeyboardInterrupt:
            print("interrupted")
            sys.exit(3)
        """
    )
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "start"
    import time

    time.sleep(1.5)  # let the run get going; any point in it will do
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 3, (out, err)
    assert "interrupted" in out
