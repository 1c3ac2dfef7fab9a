#!/usr/bin/env python3
"""raw.txt (block_rq_issue between the CAPFMARK START/END markers) + extents.txt (filefrag -e of each
file after the run) -> files.csv: time_us,op,offset,size,file. A write's file is the one whose extent
holds its first byte; a request outside every file (journal, metadata) has an empty file field. Requests of
0 sectors (pure flushes) are dropped and counted. File ids: db 1, log 2, cold 3, tmp.N 10+N."""
import bisect, re, sys
BLOCK = 4096
ids = {"db.dat": 1, "log.dat": 2, "cold.dat": 3}
extents = []  # (start_byte, end_byte, file id)
cur = None
for line in open("extents.txt"):
    if line.startswith("FILE "):
        name = line.split("/")[-1].strip()
        cur = ids.get(name, 10 + int(name.split(".")[1]) if name.startswith("tmp.") else None)
        continue
    m = re.match(r"\s*\d+:\s*\d+\.\.\s*\d+:\s*(\d+)\.\.\s*(\d+):", line)
    if m and cur is not None:
        extents.append((int(m.group(1)) * BLOCK, (int(m.group(2)) + 1) * BLOCK, cur))
extents.sort()
starts = [e[0] for e in extents]
def file_of(off):
    i = bisect.bisect_right(starts, off) - 1
    return extents[i][2] if i >= 0 and off < extents[i][1] else None
rx = re.compile(r"\s(\d+\.\d+): block_rq_issue: \S+ (\S+) \d+ \(\S*\) (\d+) \+ (\d+)")
t0 = None; inside = False; kept = dropped = nofile = 0; out = open("files.csv", "w")
out.write("time_us,op,offset,size,file\n")
for line in open("raw.txt"):
    if "CAPFMARK START" in line:
        inside = True; t0 = float(line.split(": tracing_mark_write")[0].split()[-1]); continue
    if "CAPFMARK END" in line:
        break
    m = rx.search(line)
    if not (inside and m):
        continue
    t, rwbs, sector, n = float(m.group(1)), m.group(2), int(m.group(3)), int(m.group(4))
    if n == 0:
        dropped += 1; continue
    op = "T" if "D" in rwbs else ("W" if "W" in rwbs else "R")
    f = file_of(sector * 512)
    nofile += f is None
    out.write(f"{(t - t0) * 1e6:.0f},{op},{sector * 512},{n * 512},{'' if f is None else f}\n")
    kept += 1
print(f"kept {kept}, dropped {dropped} empty, {nofile} outside every file; {len(extents)} extents", file=sys.stderr)
