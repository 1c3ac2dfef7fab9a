#!/bin/bash
# Capture: block_rq_issue on a fresh 2 GiB ext4 loop device while files.fio runs; then each file's extents.
set -eu
# Run as root, in a directory holding files.fio (WORKDIR, default the current one).
W=${WORKDIR:-$PWD}; cd $W
T=/sys/kernel/tracing; INST=$T/instances/capf
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
truncate -s 2G img
LOOP=$(losetup -f --show --direct-io=on img); echo $LOOP > loopdev
MAJ=$(( 0x$(stat -c %t $LOOP) )); MIN=$(( 0x$(stat -c %T $LOOP) )); DEVNUM=$(( (MAJ<<20)|MIN ))
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 $LOOP
mkdir -p mnt; mount $LOOP mnt
# Lay the files out untraced.
fio --create_only=1 files.fio > layout.log
sync; echo 3 > /proc/sys/vm/drop_caches
[ -d $INST ] || mkdir $INST
echo 0 > $INST/tracing_on
echo "dev == $DEVNUM" > $INST/events/block/block_rq_issue/filter
echo mono > $INST/trace_clock; echo 65536 > $INST/buffer_size_kb; echo > $INST/trace
echo 1 > $INST/events/block/block_rq_issue/enable; echo 1 > $INST/tracing_on
cat $INST/trace_pipe > raw.txt & CAT=$!
sleep 1; echo "CAPFMARK START" > $INST/trace_marker
fio files.fio > fio.log
sync
echo "CAPFMARK END" > $INST/trace_marker; sleep 2
echo 0 > $INST/tracing_on; echo 0 > $INST/events/block/block_rq_issue/enable; sleep 2
kill $CAT; wait $CAT 2>/dev/null || true
for f in $INST/per_cpu/cpu*/stats; do grep -E 'overrun|dropped' $f; done > stats.txt
# Extents: one line per extent, file path then filefrag -e rows (units of the fs block).
for f in mnt/db.dat mnt/log.dat mnt/cold.dat mnt/tmp.*; do echo "FILE $f"; filefrag -e $f; done > extents.txt
umount mnt; losetup -d $LOOP; rmdir $INST; rm -f img loopdev
echo done
