"""How a sweep scales with workers on this machine: runs per second and simulated requests per
second for each backend at 1 and 2..N workers (a benchmark, not a test).

    python examples/sweep_scaling.py            # process and thread backends
    python examples/sweep_scaling.py --ray      # and Ray (local cluster)
"""
import argparse
import os
import time

import flashlab

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=8, help="runs per sweep (seeds 0..runs-1)")
    parser.add_argument("--ray", action="store_true", help="also the Ray backend")
    args = parser.parse_args()
    grid = {"seed": list(range(args.runs))}
    base = {"sim.mode": "accounting", "workload.volume_ratio": 2.0}  # the default preset, ~1 M requests a run
    cpus = os.cpu_count() or 1
    backends = ["process", "thread"] + (["ray"] if args.ray else [])
    for backend in backends:
        for workers in sorted({1, cpus}):
            t = time.perf_counter()
            df = flashlab.sweep("default", grid, backend=backend, max_workers=workers, overrides=base, progress=False)
            wall = time.perf_counter() - t
            print(f"{backend:8} {workers} worker(s): {len(df) / wall:6.2f} runs/s, "
                  f"{df['host.requests'].sum() / wall / 1e6:6.2f} M requests/s ({wall:.1f} s)")
