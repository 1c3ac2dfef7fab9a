# %% [markdown]
# # GC policies over workload skew
#
# Sweep flashlab's garbage-collection victim policies over the skew (zipf θ) of a random-write
# workload on a filled SSD, and plot the write amplification (WAF) each one gives.
# Runs as a script (`python examples/gc_sweep.py`) or cell by cell in Jupyter / VS Code.
#
#   python examples/gc_sweep.py                 # local processes
#   python examples/gc_sweep.py --backend ray   # Ray tasks (local cluster, or RAY_ADDRESS)
#   python examples/gc_sweep.py --quick         # half the device, half the writes per page

# %%
"""Sweep flashlab's GC policies over zipf skew and plot the WAF of each."""
import argparse

import flashlab
import flashlab.plot

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--backend", default="process", choices=["process", "thread", "ray"])
parser.add_argument("--quick", action="store_true", help="small device, short runs (seconds)")
parser.add_argument("--out", default="gc_sweep.png", help="where to save the figure")
args, _ = parser.parse_known_args()  # tolerate notebook kernels' own arguments

# %% [markdown]
# The base is the `default` preset: page mapping, 4 KiB pages, 10% over-provisioning, 2 GiB
# physical; every page written once before measuring (`precondition.fill`), then 4× the
# logical capacity of zipf writes, so the measured phase runs from a full device into steady
# state. Counting mode (no timing model): WAF needs only the counts. `--quick` halves the
# device and writes 2× its capacity. Every policy in the GC registry is swept;
# `flashlab.policies()["gc"]` lists them.

# %%
base = {"sim.mode": "accounting", "workload.read_share": 0.0}
if args.quick:
    base.update({"device.blocks_per_plane": 128, "workload.volume_ratio": 2.0})
grid = {
    "ftl.gc": list(flashlab.policies()["gc"]),
    "workload.theta": [0.2, 0.5, 0.8, 0.99, 1.2],
}

# %%
if __name__ == "__main__":  # process pools re-import this file in their workers
    df = flashlab.sweep("default", grid, backend=args.backend, overrides=base)
    table = df.pivot(index="workload.theta", columns="ftl.gc", values="waf")
    print("waf by GC policy (columns) and zipf theta (rows):")
    print(table.round(3).to_string())

    # %%
    import sys

    try:
        import matplotlib
    except ImportError:
        # `pip install .` leaves plotting out; the table above is the whole result.
        print('figure       skipped: matplotlib is not installed (pip install ".[plot]" adds it)')
        sys.exit(0)

    if "ipykernel" not in sys.modules:
        matplotlib.use("Agg")  # a script saves the figure; a notebook also shows it inline
    ax = flashlab.plot.waf_by_policy(df, x="workload.theta", policy="ftl.gc")
    ax.set_title("WAF by GC policy over zipf skew")
    ax.figure.savefig(args.out, dpi=120, bbox_inches="tight")
    print(f"figure       {args.out}")
