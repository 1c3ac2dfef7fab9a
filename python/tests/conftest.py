"""Shared fixtures: the CLI binary to compare against, a small fast config, a local Ray."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

#: A small, quick config: the default preset on a 256 MiB-logical device, 40,000 zipf requests.
SMALL = {
    "device.blocks_per_plane": 256,
    "precondition.overwrite": 0.5,
    "workload.volume_ratio": None,
    "workload.requests": 40_000,
}

#: Columns that hold wall-clock measurements (the only non-deterministic results).
WALL = ["sim.wall_s", "sim.precondition_wall_s", "sim.host_pages_per_s"]


def strip_wall(summary: dict) -> dict:
    """A results.json dict without its wall-clock fields."""
    d = dict(summary)
    d["sim"] = {k: v for k, v in d["sim"].items() if k not in ("wall_s", "precondition_wall_s", "host_pages_per_s")}
    return d


@pytest.fixture(scope="session")
def cli() -> Path:
    """The `flashlab` binary built from this checkout (FLASHLAB_BIN, else target/release, else
    built with cargo)."""
    given = os.environ.get("FLASHLAB_BIN")
    binary = Path(given) if given else REPO / "target" / "release" / "flashlab"
    if not binary.exists():
        if shutil.which("cargo") is None:
            pytest.skip("no flashlab binary and no cargo to build one (set FLASHLAB_BIN)")
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "flashlab-cli"], cwd=REPO, check=True)
    return binary


def run_cli(cli: Path, *args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([str(cli), *args], capture_output=True, text=True, cwd=cwd)


def require_ray():
    """Ray, or a skip when it is not installed — unless FLASHLAB_REQUIRE_RAY is set (CI), where
    that is a failure."""
    try:
        import ray
    except ImportError:
        if os.environ.get("FLASHLAB_REQUIRE_RAY"):
            pytest.fail("FLASHLAB_REQUIRE_RAY is set but ray is not installed (pip install ray)")
        pytest.skip("ray is not installed (pip install ray)")
    return ray


def lone_ray_env() -> dict:
    """Environment for a child process whose ``ray.init()`` must start a Ray of its own: Ray
    otherwise connects to any cluster already running on the machine (``RAY_ADDRESS``, or the
    one its temp dir records — e.g. the ``ray_cluster`` fixture's). A short temp dir: Ray's
    socket paths must fit in 107 bytes."""
    import tempfile

    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env["RAY_TMPDIR"] = tempfile.mkdtemp(prefix="ray", dir="/tmp")
    return env


@pytest.fixture(scope="session")
def ray_cluster():
    """An existing two-node Ray cluster (one CPU each, on this machine) to connect to by
    address, as a user connects to their cluster."""
    ray = require_ray()
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    cluster.add_node(num_cpus=1)
    yield cluster.address
    ray.shutdown()
    cluster.shutdown()
