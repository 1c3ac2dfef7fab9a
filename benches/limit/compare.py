#!/usr/bin/env python3
"""flashlab against the C limit (pageftl) on bench-accounting, in alternating runs.

Each round runs every flashlab binary given, then pageftl in modes a, b, c and d, one process at
a time, so that the machine's load changes hit all of them alike. Reports per program the median
host pages/s of the measured phase with min-max, the WAF (which must agree), and the ratio of
each flashlab median to each pageftl median.

With --instructions, instead counts instructions with cachegrind (--cache-sim=no) at two volume
ratios (4 and 2) and reports the difference per host write of the measured phase:
(I(4) - I(2)) / (2 x 2^21), which cancels start-up, zeta and preconditioning.

    python3 benches/limit/compare.py --runs 5 target/release/flashlab /path/to/other/flashlab
    python3 benches/limit/compare.py --instructions target/release/flashlab
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
LOGICAL_PAGES = 1 << 21  # bench-accounting: 8 GiB / 4 KiB


def run_flashlab(binary, out, volume_ratio=None, prefix=()):
    cmd = [*prefix, binary, "run", "bench-accounting", "--quiet", "--force", "--out", out]
    if volume_ratio is not None:
        cmd += ["--set", f"workload.volume_ratio={volume_ratio}"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{proc.stderr}")
    with open(os.path.join(out, "results.json")) as f:
        r = json.load(f)
    return r["sim"]["host_pages_per_s"], r["waf"], proc.stderr


def run_pageftl(binary, mode, volume_ratio=4, prefix=()):
    cmd = [*prefix, binary, "-m", mode, "-v", str(volume_ratio)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{proc.stderr}")
    kv = dict(item.split("=", 1) for item in proc.stdout.split())
    return float(kv["host_pages_per_s"]), float(kv["waf"]), proc.stderr


def instructions(stderr):
    m = re.findall(r"I\s+refs:\s+([\d,]+)", stderr)
    if not m:
        sys.exit(f"no cachegrind total in:\n{stderr}")
    return int(m[-1].replace(",", ""))


def fmt_rate(values):
    return f"{statistics.median(values) / 1e6:.2f} M/s ({min(values) / 1e6:.2f}-{max(values) / 1e6:.2f})"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("flashlab", nargs="*", help="flashlab binaries to compare")
    ap.add_argument("--runs", type=int, default=5, help="alternating rounds (default 5)")
    ap.add_argument("--pageftl", default=os.path.join(HERE, "pageftl"), help="the C limit (make -C benches/limit)")
    ap.add_argument("--modes", default="abcd", help="pageftl modes to run (default abcd)")
    ap.add_argument("--instructions", action="store_true", help="cachegrind instruction counts instead of rates")
    args = ap.parse_args()
    if not os.access(args.pageftl, os.X_OK):
        sys.exit(f"{args.pageftl} is not built: run `make -C {HERE}`")
    programs = [(f"flashlab {b}", "fl", b) for b in args.flashlab]
    programs += [(f"pageftl -m {m}", m, args.pageftl) for m in args.modes]
    tmp = tempfile.mkdtemp(prefix="flashlab-limit-")

    if args.instructions:
        prefix = ("valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null")
        per_write = {}
        for name, kind, binary in programs:
            counts = []
            for v in (4, 2):
                if kind == "fl":
                    _, _, err = run_flashlab(binary, os.path.join(tmp, "out"), v, prefix)
                else:
                    _, _, err = run_pageftl(binary, kind, v, prefix)
                counts.append(instructions(err))
            per_write[name] = (counts[0] - counts[1]) / (2 * LOGICAL_PAGES)
            print(f"{name}: {counts[0]:,} instructions at volume ratio 4, {counts[1]:,} at 2: "
                  f"{per_write[name]:.0f} per host write", flush=True)
        return

    rates = {name: [] for name, _, _ in programs}
    wafs = {}
    for i in range(args.runs):
        for name, kind, binary in programs:
            if kind == "fl":
                rate, waf, _ = run_flashlab(binary, os.path.join(tmp, "out"))
            else:
                rate, waf, _ = run_pageftl(binary, kind)
            rates[name].append(rate)
            wafs[name] = waf
        print(f"round {i + 1}/{args.runs}: " + ", ".join(f"{n} {rates[n][-1] / 1e6:.2f}" for n in rates), flush=True)
    print(f"\nmedian of {args.runs} alternating runs (min-max), host pages/s of the measured phase:")
    for name in rates:
        print(f"  {name}: {fmt_rate(rates[name])}, WAF {wafs[name]:.4f}")
    if len({round(w, 9) for w in wafs.values()}) != 1:
        print("  WARNING: the WAFs differ: not the same work")
    limits = [n for n, k, _ in programs if k != "fl"]
    for name, kind, _ in programs:
        if kind == "fl":
            med = statistics.median(rates[name])
            for m in limits:
                per_round = [a / b for a, b in zip(rates[name], rates[m])]
                print(f"  {name} / {m}: {med / statistics.median(rates[m]):.2f} (ratio of medians; "
                      f"per round: median {statistics.median(per_round):.2f}, "
                      f"{min(per_round):.2f}-{max(per_round):.2f})")


if __name__ == "__main__":
    main()
