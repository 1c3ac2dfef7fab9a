#!/usr/bin/env python3
"""Side-by-side runs of flashlab and SSD-iq's GC simulator on the femu-8gb geometry (see
benches/README.md). Alternates the two programs RUNS times and prints, for each, the median (min,
max) of the measured phase's time and host writes per second, the WAF and the peak RSS (GNU time).

usage: compare.py FLASHLAB SSDIQ_SIM [--pattern uniform|zipf] [--runs N] [--gc greedy|2r]
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
# femu-8gb: 2,048 lines of 64 planes x 18 pages of 4 KiB = 9 GiB physical, 8 GiB logical.
SSDIQ_ARGS = ["--capacity=9G", "--erase=4608K", "--page=4K", "--ssdfill=0.888888889", "--writes=4", "--print-every=1"]


def timed(cmd, cwd):
    """Run cmd under GNU time; returns (stdout, wall s, peak RSS bytes)."""
    fmt = "%e %M"
    p = subprocess.run(["/usr/bin/time", "-f", fmt, *cmd], cwd=cwd, capture_output=True, text=True, check=True)
    wall, rss_kib = p.stderr.strip().splitlines()[-1].split()
    return p.stdout, float(wall), int(rss_kib) * 1024


def flashlab(exe, pattern, gc, tmp):
    cfg = HERE / f"femu-8gb-{pattern}.toml"
    out = os.path.join(tmp, "fl")
    cmd = [exe, "run", str(cfg), "--quiet", "--force", "--out", out, "--set", f"ftl.gc={gc}"]
    _, wall, rss = timed(cmd, tmp)
    r = json.load(open(os.path.join(out, "results.json")))
    pages = r["host"]["write_pages"]
    return {"time": r["sim"]["wall_s"], "rate": r["sim"]["host_pages_per_s"], "waf": r["waf"], "wall": wall, "rss": rss, "pages": pages}


# flashlab's GC policy names to SSD-iq's: flashlab's 2R scans FIFO from a cursor, SSD-iq's
# `2r-fifo` (SSD-iq has no plain `2r`: it stops with "unknown GC algorithm").
SSDIQ_GC = {"greedy": "greedy", "2r": "2r-fifo"}


def ssdiq(exe, pattern, gc, tmp):
    pat = ["--pattern=uniform"] if pattern == "uniform" else ["--pattern=zipf", "--zipf=0.9"]
    stdout, wall, rss = timed([exe, *SSDIQ_ARGS, *pat, f"--gc={SSDIQ_GC[gc]}"], tmp)
    rows = [l.split(",") for l in stdout.splitlines() if l.startswith("bench,")]
    last = rows[-1]
    seconds, waf = float(last[5]), float(last[-1])
    info = next(l for l in stdout.splitlines() if l.startswith("blockCnt:")).split()
    logical = int(info[info.index("logicalPages:") + 1])
    pages = logical * len(rows)
    return {"time": seconds, "rate": pages / seconds, "waf": waf, "wall": wall, "rss": rss, "pages": pages}


def summary(name, runs):
    def med(key):
        v = sorted(r[key] for r in runs)
        return statistics.median(v), v[0], v[-1]

    t, r, w = med("time"), med("rate"), med("wall")
    print(
        f"{name:<9} measured {t[0]:6.2f} s ({t[1]:.2f}-{t[2]:.2f}), {r[0] / 1e6:5.2f} M host writes/s "
        f"({r[1] / 1e6:.2f}-{r[2] / 1e6:.2f}), WAF {statistics.median(x['waf'] for x in runs):.3f}, "
        f"process wall {w[0]:.2f} s, peak RSS {statistics.median(x['rss'] for x in runs) / 2**20:.0f} MiB, "
        f"{runs[0]['pages']} host writes"
    )
    return t[0], w[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("flashlab")
    ap.add_argument("ssdiq")
    ap.add_argument("--pattern", choices=["uniform", "zipf"], default="uniform")
    ap.add_argument("--gc", choices=["greedy", "2r"], default="greedy")
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    # The programs run in a temporary directory: a path relative to here must still find them.
    a.flashlab, a.ssdiq = (os.path.abspath(p) if os.sep in p else p for p in (a.flashlab, a.ssdiq))
    fl, sq = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(a.runs):
            fl.append(flashlab(a.flashlab, a.pattern, a.gc, tmp))
            sq.append(ssdiq(a.ssdiq, a.pattern, a.gc, tmp))
    print(f"femu-8gb, {a.pattern}, {a.gc}, median of {a.runs} alternating runs")
    ft, fw = summary("flashlab", fl)
    st, sw = summary("SSD-iq", sq)
    print(f"time ratio flashlab/SSD-iq: measured phase {ft / st:.2f}, whole process {fw / sw:.2f}")


if __name__ == "__main__":
    main()
