#!/usr/bin/env python3
"""Spatially sample a `blkrq` block trace (the `block:block_rq_issue` captures under
shared/traces): keep the parts of requests that fall in a pseudo-random 1/RATE of the EXTENT-byte
extents of the address space, drop the rest.

Every request is clipped to the sampled extents it touches (a request spanning several sampled
extents becomes one record per extent, with the same time and op). Whether an extent is kept
depends only on its number (splitmix64(offset // EXTENT) % RATE == 0), so every access to a kept
page is kept: per-page write and re-write counts are those of the full trace, on 1/RATE of its
footprint (the idea of SHARDS, Waldspurger et al., FAST 2015, applied to addresses). The header
line is kept and told how the file was cut. Used to build flashlab's built-in OLTP excerpts:

    zstdcat tpcc_mdb_w10.blk.txt.zst | scripts/spatial_sample.py 128 65536 | zstd -19 > tpcc-mdb-s128.blk.zst
"""
import sys

MASK = (1 << 64) - 1


def splitmix64(x):
    x = (x + 0x9E3779B97F4A7C15) & MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK
    return x ^ (x >> 31)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: spatial_sample.py RATE EXTENT_BYTES < trace > sample")
    rate, extent = int(sys.argv[1]), int(sys.argv[2])
    out = sys.stdout
    for n, line in enumerate(sys.stdin, 1):
        if line.startswith("#"):
            if n > 1:
                sys.exit(f"line {n}: a header line after the first record")
            out.write(
                line.rstrip("\n")
                + f" | spatial sample (scripts/spatial_sample.py {rate} {extent}): requests clipped to the"
                f" {extent}-byte extents e with splitmix64(e) % {rate} == 0\n"
            )
            continue
        time_us, op, offset, length = line.split()
        start, end = int(offset), int(offset) + int(length)
        e = start // extent
        while e * extent < end:
            if splitmix64(e) % rate == 0:
                a, b = max(start, e * extent), min(end, (e + 1) * extent)
                out.write(f"{time_us} {op} {a} {b - a}\n")
            e += 1


if __name__ == "__main__":
    main()
