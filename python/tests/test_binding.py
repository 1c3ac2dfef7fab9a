"""The binding returns what the CLI returns, for the same config and seed."""

import json
import threading

import pandas as pd
import pytest

import flashlab
from conftest import REPO, SMALL, run_cli, strip_wall


def toml_literal(v) -> str:
    """A TOML value for the CLI's --set (JSON's scalars are TOML's; tables go inline)."""
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} = {toml_literal(x)}" for k, x in v.items()) + "}"
    return json.dumps(v)


def sets(overrides: dict) -> list:
    """The CLI's --set arguments for an overrides dict (None removes the key)."""
    out = []
    for k, v in overrides.items():
        out += ["--set", f"{k}=" if v is None else f"{k}={toml_literal(v)}"]
    return out


def cli_results(cli, tmp_path, config: str, overrides: dict) -> tuple:
    out = tmp_path / "cli"
    p = run_cli(cli, "run", config, *sets(overrides), "--out", str(out), "--quiet")
    assert p.returncode == 0, p.stderr
    return json.loads((out / "results.json").read_text()), pd.read_csv(out / "series.csv")


@pytest.mark.parametrize(
    "config, overrides",
    [
        ("default", SMALL),
        ("default", {**SMALL, "ftl.gc": "2r++", "seed": 7}),
        ("default", {**SMALL, "sim.mode": "accounting", "ftl.mapping": "dftl"}),
        (
            "dwb-64gb",
            {
                "device.logical_capacity": "1GiB",
                "precondition.fill": False,
                "precondition.overwrite": 0.0,
                "host.out_of_range": "compact",
                "workload": {"kind": "trace", "path": "builtin:financial1"},
                "buffer.dram": "2MiB",
                "buffer.nvram": "512KiB",
            },
        ),
    ],
)
def test_run_matches_cli(cli, tmp_path, config, overrides):
    want, want_series = cli_results(cli, tmp_path, config, overrides)
    got = flashlab.run(config, overrides=overrides, progress=False)
    assert strip_wall(got.summary) == strip_wall(want)
    assert list(got.series.columns) == list(want_series.columns)
    pd.testing.assert_frame_equal(got.series, want_series, check_dtype=False, atol=1e-6, rtol=0)
    assert got.waf == want["waf"]
    assert got["flash.erases"] == want["flash"]["erases"]


def test_same_seed_same_numbers_other_seed_other_numbers():
    a = flashlab.run("default", overrides=SMALL, progress=False)
    b = flashlab.run("default", overrides=SMALL, progress=False)
    c = flashlab.run("default", overrides={**SMALL, "seed": 43}, progress=False)
    assert strip_wall(a.summary) == strip_wall(b.summary)
    assert a["flash.programs"] != c["flash.programs"]


def test_dict_config_is_the_toml_file():
    """A dict shaped like the TOML file runs exactly as the file does."""
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    path = REPO / "configs" / "default.toml"
    tree = tomllib.loads(path.read_text())
    from_file = flashlab.run(str(path), overrides=SMALL, progress=False)
    from_dict = flashlab.run(tree, overrides=SMALL, progress=False)
    dotted = flashlab.run({**tree, **SMALL}, progress=False)  # top-level dotted keys = overrides
    assert strip_wall(from_dict.summary) == strip_wall(from_file.summary)
    assert strip_wall(dotted.summary) == strip_wall(from_file.summary)


def test_workload_argument_replaces_the_workload():
    r = flashlab.run(
        "default",
        workload="builtin:msnfs",
        overrides={"precondition.overwrite": 0.0, "host.out_of_range": "wrap"},
        progress=False,
    )
    stats = flashlab.trace_stats("builtin:msnfs")
    assert r["host.requests"] == stats["records"]
    assert r["host.write_requests"] == stats["writes"]


def test_result_round_trips_as_json():
    r = flashlab.run("default", overrides=SMALL, progress=False)
    assert json.loads(r.to_json()) == r.summary
    flat = r.flat()
    assert flat["flash.erases"] == r.summary["flash"]["erases"]
    assert flat["latency_us.write.p99"] == r.summary["latency_us"]["write"]["p99"]
    assert not any(isinstance(v, (list, dict)) for v in flat.values())
    assert "config.seed" not in flat and "series" not in flat


def test_check_config_fills_defaults():
    cfg = flashlab.check_config("default", overrides={"ftl.gc": "fifo"})
    assert cfg["ftl"]["gc"] == "fifo"
    assert cfg["seed"] == 42


@pytest.mark.parametrize(
    "overrides, key",
    [
        ({"ftl.gc_params.window": 0.5}, "ftl.gc_params.window"),
        ({"ftl.gc_schedule": "femu", "ftl.gc_schedule_params": {"forced": 0.5, "background": 0.2}}, "forced"),
        ({"device.over_provisioning": 0.001}, "spare space"),
        ({"ftl.gc": "2r", "ftl.gc_params.threshold": 7}, "ftl.gc_params.threshold"),
    ],
)
def test_check_config_refuses_bad_ftl_parameters(overrides, key):
    """The FTL's own parameters are validated by check, not first by a run."""
    with pytest.raises(flashlab.FlashlabError, match=key.replace(".", r"\.")):
        flashlab.check_config("default", overrides=overrides)


def test_presets_and_policies_match_the_cli(cli):
    listing = run_cli(cli, "list").stdout
    policies = flashlab.policies()
    for registry in ("mapping", "gc", "buffer", "host", "workload", "format", "builtin", "preset"):
        assert policies[registry], registry
        for name, about in policies[registry].items():
            assert f"  {name:<16} {about}" in listing, (registry, name)
    assert {"greedy", "2r", "2r++"} <= set(policies["gc"])
    # The reproductions live above the simulator (flashlab-repro): the CLI lists them, the
    # binding of the core does not.
    assert "reproduction" not in policies and "reproductions (flashlab reproduce NAME):" in listing
    assert list(flashlab.presets()) == list(policies["preset"])
    assert "default" in flashlab.presets()


def test_trace_stats_matches_the_cli(cli, tmp_path):
    trace = tmp_path / "t.csv"
    trace.write_text("".join(f"{i * 1000},hm,0,{'Read' if i % 3 else 'Write'},{i * 8192},4096,10\n" for i in range(50)))
    want = json.loads(run_cli(cli, "trace", "stats", str(trace), "--json").stdout)
    got = flashlab.trace_stats(trace)
    assert got == want
    assert got["format"] == "msr" and got["records"] == 50


def test_gil_is_released_while_simulating():
    """Another Python thread keeps running while a simulation runs: with the GIL held the
    loop below could not advance until the run returned."""
    done = {}
    t = threading.Thread(target=lambda: done.setdefault("r", flashlab.run("default", overrides=SMALL, progress=False)))
    spins = 0
    t.start()
    while t.is_alive():
        spins += 1
    t.join()
    assert "r" in done
    assert spins > 1000


def test_threads_give_the_serial_numbers():
    serial = [flashlab.run("default", overrides={**SMALL, "seed": s}, progress=False) for s in (1, 2)]
    out = [None, None]

    def work(i, s):
        out[i] = flashlab.run("default", overrides={**SMALL, "seed": s}, progress=False)

    threads = [threading.Thread(target=work, args=(i, s)) for i, s in enumerate((1, 2))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for a, b in zip(serial, out):
        assert strip_wall(a.summary) == strip_wall(b.summary)


def test_progress_bars_when_asked(capsys):
    flashlab.run("default", overrides=SMALL, progress=True)
    err = capsys.readouterr().err
    assert "precondition: fill" in err and "simulating" in err and "100%" in err
    flashlab.run("default", overrides=SMALL, progress=False)
    assert capsys.readouterr().err == ""
    flashlab.sweep("default", {"seed": [1, 2]}, backend="thread", overrides=SMALL, progress=True)
    err = capsys.readouterr().err
    assert "sweep" in err and "2/2" in err


def test_check_config_output_runs_as_is():
    """The full config (unset options as None, trace paths absolute) feeds back into run()."""
    cfg = flashlab.check_config("default", overrides=SMALL)
    assert cfg["host"]["max_request"] is None
    a = flashlab.run(cfg, progress=False)
    b = flashlab.run("default", overrides=SMALL, progress=False)
    assert strip_wall(a.summary) == strip_wall(b.summary)


def test_trace_paths_in_a_file_are_relative_to_the_file(tmp_path, monkeypatch):
    (tmp_path / "t.csv").write_text("".join(f"{i},hm,0,Write,{i * 4096},4096,0\n" for i in range(100)))
    text = (REPO / "configs" / "default.toml").read_text().split("[workload]")[0]
    (tmp_path / "c.toml").write_text(text + '[workload]\nkind = "trace"\npath = "t.csv"\n')
    monkeypatch.chdir(REPO)  # elsewhere
    cfg = flashlab.check_config(tmp_path / "c.toml")
    assert cfg["workload"]["path"] == str(tmp_path / "t.csv")
    r = flashlab.run(cfg, overrides={"precondition.fill": False}, progress=False)
    assert r["host.write_requests"] == 100


def test_numpy_values_are_plain_numbers():
    np = pytest.importorskip("numpy")
    a = flashlab.run("default", overrides={**SMALL, "seed": np.int64(3), "workload.theta": np.float32(0.5)}, progress=False)
    b = flashlab.run("default", overrides={**SMALL, "seed": 3, "workload.theta": 0.5}, progress=False)
    assert strip_wall(a.summary) == strip_wall(b.summary)


def test_result_indexing_errors():
    r = flashlab.run("default", overrides=SMALL, progress=False)
    with pytest.raises(KeyError, match="'flash.erasez': no such result"):
        r["flash.erasez"]
    with pytest.raises(TypeError, match="dotted key"):
        r[0]
    assert "  " not in repr(flashlab.run({**flashlab.check_config("default", overrides=SMALL), "name": None}, progress=False))
    assert None not in r.flat().values()


def test_trace_stats_argument_errors():
    with pytest.raises(ValueError, match="page_size must be a power of two from 512 B to 2 GiB, not -1"):
        flashlab.trace_stats("builtin:msnfs", page_size=-1)


def test_relative_trace_paths_are_made_absolute_every_way_they_are_given(tmp_path, monkeypatch):
    """A run sent to another process or node must find the same file."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.csv").write_text("0,hm,0,Write,0,4096,0\n")
    want = str(tmp_path / "t.csv")
    trace = {"kind": "trace", "path": "t.csv"}
    ways = [
        dict(workload="t.csv"),
        dict(workload=trace),
        dict(overrides={"workload": trace}),
        dict(overrides={"workload.kind": "trace", "workload.path": "t.csv", "workload.read_share": None,
                        "workload.theta": None, "workload.request_size": None, "workload.volume_ratio": None}),
    ]
    for way in ways:
        assert flashlab.check_config("default", **way)["workload"]["path"] == want, way
    tree = {**flashlab.check_config("default"), "workload": trace}
    assert flashlab.check_config(tree)["workload"]["path"] == want


def test_summary_has_the_keys_of_the_generated_types():
    """flashlab.schema (generated from the Rust types) names exactly the keys a run returns, down
    through the nested documents; the series columns come from the results, not a Python copy."""
    r = flashlab.run("default", overrides={**SMALL, "buffer.policy": "lru", "buffer.dram": "256KiB"}, progress=False)

    def check(doc: dict, typed, where: str) -> None:
        hints = typed.__annotations__
        # Optional config tables left unset are not echoed (`[ftl.placement]`, `[host.placement]`).
        unset = {"placement"} if where.startswith("results.config.") else set()
        assert set(doc) <= set(hints) and set(hints) - set(doc) <= unset, f"{where}: {sorted(set(doc) ^ set(hints))}"
        for key, value in doc.items():
            name = getattr(hints[key], "__forward_arg__", None)
            if isinstance(value, dict) and name and isinstance(getattr(flashlab.schema, name, None), type):
                check(value, getattr(flashlab.schema, name), f"{where}.{key}")

    check(r.summary, flashlab.schema.Results, "results")
    assert list(r.series.columns) == r.summary["series_columns"]


def test_handles_give_per_handle_results_and_add_up_to_the_device():
    """Result.handles: one row per FDP reclaim unit handle; without placement, empty."""
    streams = {
        "kind": "streams",
        "volume": "64MiB",
        "streams": [
            {"kind": "uniform", "footprint": "8MiB", "share": 0.5, "placement": 0},
            {"kind": "zipf", "start": "8MiB", "footprint": "32MiB", "share": 0.5, "placement": 1},
        ],
    }
    base = {**SMALL, "sim.mode": "accounting", "device.over_provisioning": 0.25, "workload": streams}
    r = flashlab.run("default", overrides={**base, "ftl.placement.handles": 2})
    h = r.handles
    assert list(h["handle"]) == [0, 1]
    assert h["host_pages"].sum() == r["ftl.host_writes"]
    assert h["gc_moves"].sum() == r["ftl.gc_copies"]
    assert (h["waf"] >= 1.0).all()
    assert list(r.reclaim_groups["group"]) == [0]
    assert r.reclaim_groups["host_pages"].sum() == r["ftl.host_writes"]
    # Two reclaim groups: the second stream names handle 1 in group 1 (0x8001).
    streams["streams"][1]["placement"] = 0x8001
    grouped = flashlab.run(
        "default", overrides={**base, "ftl.placement.handles": 2, "ftl.placement.reclaim_groups": 2, "workload": streams}
    )
    g = grouped.reclaim_groups
    assert list(g["group"]) == [0, 1]
    assert g["host_pages"].sum() == grouped["ftl.host_writes"]
    assert (g["host_pages"] > 0).all() and grouped["placement.invalid_ids"] == 0
    plain = flashlab.run("default", overrides=base)
    assert plain.handles.empty and plain.reclaim_groups.empty
    assert any("placement identifier" in w for w in plain["warnings"])


def test_a_zoned_trace_with_zone_commands_and_files(tmp_path):
    """A csv trace's zone commands (A, ZF, ZR) on a zoned device, and its file column placed by
    the ``file`` host policy on an FDP device."""
    device = {"device.blocks_per_plane": 64, "device.pages_per_block": 32, "sim.mode": "accounting"}
    zns = {"ftl.mapping": "zns", "ftl.striping": "full", "precondition.fill": False}
    zone = 32 * 4096  # a zone is a block of 32 pages of 4 KiB
    zoned = tmp_path / "zoned.csv"
    zoned.write_text(f"op,offset,size\nA,0,8192\nA,0,4096\nZF,0,{zone}\nZR,0,{zone}\nA,{zone},4096\n")
    r = flashlab.run("default", workload=str(zoned), overrides={**device, **zns})
    assert r["host.zone_commands"] == 5 and r["host.write_pages"] == 4
    assert (r["zones.appends"], r["zones.finishes"], r["zones.resets"]) == (4, 1, 1)
    bad = tmp_path / "bad.csv"
    bad.write_text("op,offset,size\nA,4096,4096\n")
    with pytest.raises(flashlab.FlashlabError, match=r"bad.csv:2: field `offset`: zone error: zone append at page 1"):
        flashlab.run("default", workload=str(bad), overrides={**device, **zns})
    files = tmp_path / "files.csv"
    files.write_text("op,offset,size,file\n" + "".join(f"W,{i * 4096},4096,{i % 3}\n" for i in range(300)))
    placed = flashlab.run(
        "default",
        workload=str(files),
        overrides={
            **device,
            "device.over_provisioning": 0.25,
            "ftl.placement.handles": 3,
            "host.placement.policy": "file",
            "host.placement.handles": 3,
        },
    )
    assert list(placed.handles["host_pages"]) == [100, 100, 100]
