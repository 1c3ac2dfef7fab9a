//! Integration tests of the trace readers: every shipped excerpt and hand-written file, format
//! detection, compression, options, error messages, a fuzz test over every registered format,
//! and (when `../shared/traces` is present) every full real trace against its published counts.

use std::path::{Path, PathBuf};
use std::time::Instant;

use flashlab::workload::trace::{self, detect_format, open, open_stream, stats, TraceOptions, FORMATS};
use flashlab::workload::{Op, Request};
use flashlab::Error;
use proptest::prelude::*;

#[path = "common/results.rs"]
mod results;
#[path = "common/skip.rs"]
mod skip;

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/traces").join(rel)
}

/// A scratch file path for files the tests write (under the target dir, unique per process).
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("traces-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir is writable");
    dir.join(name)
}

fn opts(path: PathBuf, format: Option<&str>) -> TraceOptions {
    let mut o = TraceOptions::new(path);
    o.format = format.map(str::to_string);
    o
}

fn read_all(o: &TraceOptions) -> Result<Vec<Request>, Error> {
    let mut w = open(o)?;
    let mut out = Vec::new();
    while let Some(r) = w.next_request()? {
        out.push(r);
    }
    Ok(out)
}

fn err_text<T>(r: Result<T, Error>) -> String {
    match r {
        Ok(_) => String::from("<no error>"),
        Err(e) => e.to_string(),
    }
}

fn req(time_ns: u64, op: Op, offset: u64, len: u64) -> Request {
    Request { time_ns, op, offset, len, placement: None, file: None }
}

/// What one shipped file must give.
struct Expect {
    file: &'static str,
    format: &'static str,
    records: u64,
    reads: u64,
    writes: u64,
    trims: u64,
    first: Request,
}

const fn ex(file: &'static str, format: &'static str, counts: [u64; 4], first: (Op, u64, u64)) -> Expect {
    let [records, reads, writes, trims] = counts;
    Expect {
        file,
        format,
        records,
        reads,
        writes,
        trims,
        first: Request { time_ns: 0, op: first.0, offset: first.1, len: first.2, placement: None, file: None },
    }
}

const EXCERPTS: &[Expect] = &[
    ex("mqsim/tpcc-small.trace", "mqsim", [100, 27, 73, 0], (Op::Write, 264_719_034 * 512, 8192)),
    ex("mqsim/wsrch-small.trace", "mqsim", [100, 100, 0, 0], (Op::Read, 657_728 * 512, 8192)),
    ex(
        "cloudphysics_libcachesim/cloudPhysicsIO.csv",
        "cloudphysics",
        [100, 0, 100, 0],
        (Op::Write, 42_932_745 * 512, 512),
    ),
    ex("cloudphysics_libcachesim/cloudPhysicsIO.vscsi", "vscsi", [100, 0, 100, 0], (Op::Write, 42_932_745 * 512, 512)),
    ex("msnfs_replayer/MSN-FS-30s-ms", "disksim", [300, 299, 1, 0], (Op::Read, 174_224_064 * 512, 8192)),
    ex("snia_samples_caffeine/msr-cambridge1-sample.csv", "msr", [200, 1, 199, 0], (Op::Write, 9_056_014_336, 2048)),
    ex(
        "snia_samples_caffeine/systor17-traces-sample.csv.gz",
        "systor",
        [100, 83, 17, 0],
        (Op::Read, 899_056_122_368, 131_072),
    ),
    ex(
        "snia_samples_caffeine/systor17-additional-sample.csv.gz",
        "systor",
        [100, 52, 48, 0],
        (Op::Read, 203_468_398_592, 32_768),
    ),
    ex(
        "snia_samples_caffeine/cloud_storage-sample.bz2",
        "tencent",
        [200, 88, 112, 0],
        (Op::Write, 4_247_200 * 512, 65_536),
    ),
    ex("umass_financial1_ssdsim/example.ascii", "ssdsim", [100, 13, 87, 0], (Op::Write, 303_567 * 512, 3584)),
    ex(
        "wiscsee_sqlite/sqlitewal-update/blkparse-events-for-ftlsim.txt",
        "wiscsee",
        [100, 4, 95, 1],
        (Op::Read, 299_008, 4096),
    ),
    ex(
        "wiscsee_sqlite/sqlitewal-reqscale-240000-inserts-3/blkparse-events-for-ftlsim.txt",
        "wiscsee",
        [100, 100, 0, 0],
        (Op::Read, 136_318_976, 4096),
    ),
    ex("handmade/sda.blkparse.txt", "blkparse", [5, 1, 3, 1], (Op::Write, 223_490 * 512, 4096)),
    ex("handmade/job-v2.iolog", "fio", [5, 1, 3, 1], (Op::Write, 0, 4096)),
    ex("handmade/job-v3.iolog", "fio", [5, 1, 3, 1], (Op::Write, 0, 4096)),
    ex("handmade/plain.csv", "csv", [5, 2, 2, 1], (Op::Write, 0, 4096)),
    Expect {
        file: "handmade/placement.csv",
        format: "csv",
        records: 6,
        reads: 1,
        writes: 4,
        trims: 1,
        first: Request { time_ns: 0, op: Op::Write, offset: 0, len: 4096, placement: Some(1), file: None },
    },
    Expect {
        file: "handmade/placement.blk.txt",
        format: "blkrq",
        records: 4,
        reads: 1,
        writes: 3,
        trims: 0,
        first: Request { time_ns: 0, op: Op::Write, offset: 8192, len: 4096, placement: Some(2), file: None },
    },
    ex("handmade/msr-cambridge1-sample.csv.zst", "msr", [200, 1, 199, 0], (Op::Write, 9_056_014_336, 2048)),
];

#[test]
fn every_excerpt_is_detected_and_loads_with_the_right_counts() {
    for e in EXCERPTS {
        let path = data(e.file);
        assert_eq!(detect_format(&path).expect(e.file), e.format, "{}", e.file);
        let reqs = read_all(&opts(path.clone(), None)).expect(e.file);
        assert_eq!(reqs.first(), Some(&e.first), "{}", e.file);
        let s = stats(&opts(path, None), 4096).expect(e.file);
        assert_eq!((s.records, s.reads, s.writes, s.trims), (e.records, e.reads, e.writes, e.trims), "{}", e.file);
        assert_eq!(s.records, reqs.len() as u64, "{}", e.file);
        assert_eq!(s.format, e.format);
    }
}

#[test]
fn compressed_files_read_exactly_like_the_plain_file() {
    let plain = read_all(&opts(data("snia_samples_caffeine/msr-cambridge1-sample.csv"), None)).expect("plain");
    assert_eq!(plain.len(), 200);
    for ext in ["gz", "bz2", "zst"] {
        let path = data(&format!("handmade/msr-cambridge1-sample.csv.{ext}"));
        assert_eq!(read_all(&opts(path, None)).expect(ext), plain, "{ext}");
    }
}

#[test]
fn compression_is_recognised_by_magic_and_a_lying_name_is_an_error() {
    let gz = std::fs::read(data("handmade/msr-cambridge1-sample.csv.gz")).expect("shipped file");
    let renamed = scratch("msr-no-extension");
    std::fs::write(&renamed, &gz).expect("write temp");
    assert_eq!(detect_format(&renamed).expect("detect"), "msr");
    assert_eq!(read_all(&opts(renamed, None)).expect("read").len(), 200);

    let lying = scratch("plain-text.csv.gz");
    std::fs::write(&lying, b"0,303567,3584,w,0.0\n").expect("write temp");
    let msg = err_text(read_all(&opts(lying, Some("spc"))));
    assert!(msg.contains("plain-text.csv.gz") && msg.contains("gzip"), "{msg}");
}

#[test]
fn times_are_relative_ns_in_each_formats_unit() {
    let times =
        |file: &str| -> Vec<u64> { read_all(&opts(data(file), None)).expect(file).iter().map(|r| r.time_ns).collect() };
    assert_eq!(times("handmade/job-v2.iolog"), vec![0, 0, 2_000_000, 2_000_000, 2_500_000]);
    assert_eq!(times("handmade/job-v3.iolog"), vec![0, 0, 2_000_000, 6_000_000, 11_000_000]);
    assert_eq!(times("handmade/sda.blkparse.txt"), vec![0, 991_000, 3_988_000, 4_488_000, 1_249_988_000]);
    assert_eq!(times("handmade/plain.csv"), vec![0, 10_000, 15_500, 20_000, 40_000]);
    assert_eq!(
        times("snia_samples_caffeine/msr-cambridge1-sample.csv")[1],
        (128_166_385_295_514_878 - 128_166_385_295_514_663) * 100
    );
    assert_eq!(times("msnfs_replayer/MSN-FS-30s-ms")[1], 221_000, "DiskSim times are ms");
    assert_eq!(times("mqsim/tpcc-small.trace")[1], 938_828_000 - 938_513_000, "MQSim times are ns");
    // SYSTOR'17 is ordered by completion: the second request arrived before the first.
    assert_eq!(times("snia_samples_caffeine/systor17-traces-sample.csv.gz")[1], 0);
}

#[test]
fn time_scale_and_time_unit() {
    let path = data("mqsim/tpcc-small.trace");
    let base = read_all(&opts(path.clone(), None)).expect("base");
    let mut half = opts(path.clone(), None);
    half.time_scale = 0.5;
    let scaled = read_all(&half).expect("scaled");
    for (b, s) in base.iter().zip(&scaled) {
        assert_eq!(s.time_ns, (b.time_ns as f64 * 0.5).round() as u64);
        assert_eq!((s.op, s.offset, s.len), (b.op, b.offset, b.len));
    }
    let mut us = opts(path.clone(), Some("mqsim"));
    us.time_unit = Some("us".into());
    let micro = read_all(&us).expect("us");
    assert_eq!(micro[1].time_ns, base[1].time_ns * 1000);

    let mut bad = opts(data("snia_samples_caffeine/msr-cambridge1-sample.csv"), None);
    bad.time_unit = Some("us".into());
    assert!(err_text(read_all(&bad)).contains("fixed time unit"));
    let mut bad = opts(path, None);
    bad.time_scale = 0.0;
    assert!(err_text(read_all(&bad)).contains("time_scale"));
}

#[test]
fn device_filter_keeps_one_device() {
    let mut o = opts(data("snia_samples_caffeine/cloud_storage-sample.bz2"), None);
    o.device = Some(1063);
    let s = stats(&o, 4096).expect("filtered stats");
    assert_eq!(s.devices, Some(1));
    assert_eq!(s.per_device[0].device, 1063);
    assert!(s.records > 0 && s.records < 200);

    let mut o = opts(data("handmade/sda.blkparse.txt"), None);
    o.device = Some((8 << 20) | 16);
    assert_eq!(read_all(&o).expect("8,16"), vec![req(0, Op::Write, 0, 4096)]);

    let mut o = opts(data("handmade/plain.csv"), None);
    o.device = Some(1);
    let reqs = read_all(&o).expect("device 1");
    assert_eq!(reqs, vec![req(0, Op::Read, 0, 8192), req(24_500, Op::Read, 1_048_576, 65_536)]);

    let mut o = opts(data("handmade/job-v2.iolog"), None);
    o.device = Some(0);
    let msg = err_text(read_all(&o));
    assert!(msg.contains("workload.device") && msg.contains("no device column"), "{msg}");
}

/// Write `text` as `name` in the scratch dir and read it with `format`.
fn read_text(name: &str, format: &str, text: &str) -> String {
    let path = scratch(name);
    std::fs::write(&path, text).expect("write temp");
    err_text(read_all(&opts(path, Some(format))))
}

#[test]
fn malformed_lines_name_file_line_and_field() {
    let cases = [
        ("bad.msr.csv", "msr", "1,hm,0,Read,0,512,1\n\n1,hm,0,Read,12x,512,1\n", ":3: field `offset`: `12x` is not"),
        ("bad.spc", "spc", "0,1,512,r,0\n0,1,512,r,0\n0,1,512,q,0\n", ":3: field `opcode`"),
        ("bad.mqsim", "mqsim", "1 0 1 1 0\n2 0 1 1 0\n3 0 1 1\n", ":3: expected 5 space-separated fields, found 4"),
        (
            "bad.blk",
            "blkparse",
            "8,0 0 1 0.0 1 D W 1 + 8 [a]\n8,0 0 2 0.0 1 Q W 1 + 8 [a]\n8,0 0 3 0.x 1 D W 1 + 8 [a]\n",
            ":3: field `time`",
        ),
        ("bad.csv", "csv", "op,offset,size\nW,0,1\nW,0,0\n", ":3: field `size`: size 0"),
        ("bad.cp.csv", "cloudphysics", "version,time,op,size,lbn\n1,1,28,512,0\n1,1,2a,512,-4\n", ":3: field `lbn`"),
        ("bad.tencent", "tencent", "1,0,8,0,1\n1,0,8,0,1\n1,0,8,0,x\n", ":3: field `volume_id`"),
        ("bad.blk.txt", "blkrq", "# capture\n1 W 0 4096\n2 D 0 4096\n", ":3: field `op`: `D` is not R or W"),
        ("zero.blk.txt", "blkrq", "# capture\n1 W 0 4096\n2 W 512 0\n", ":3: field `length_bytes`"),
        ("hex.blk.txt", "blkrq", "# capture\n1 W 0x10 4096\n", ":2: field `offset_bytes`"),
        (
            "neg.placement.csv",
            "csv",
            "op,offset,size,placement\nW,0,4096,1\nW,0,4096,-1\n",
            ":3: field `placement`: `-1` is not a placement identifier (an integer from 0 to 65535)",
        ),
        (
            "big.placement.csv",
            "csv",
            "op,offset,size,placement\nW,0,4096,65536\n",
            ":2: field `placement`: 65536 is more than 65535",
        ),
        (
            "bad.placement.blk.txt",
            "blkrq",
            "# fields: time_us op offset_bytes length_bytes placement\n1 W 0 4096 1\n2 W 0 4096 x\n",
            ":3: field `placement`: `x` is not a placement identifier",
        ),
        (
            "short.placement.blk.txt",
            "blkrq",
            "# fields: time_us op offset_bytes length_bytes placement\n1 W 0 4096\n",
            ":2: expected at least 5 space-separated fields (as the `# fields:` line 1 declares), found 4",
        ),
        (
            "decl.blk.txt",
            "blkrq",
            "# capture\n# fields: time_us op offset_bytes length_bytes stream_id\n1 W 0 4096 1\n",
            ":2: `# fields:` declaration: unknown field `stream_id`",
        ),
        (
            "decl4.blk.txt",
            "blkrq",
            "# fields: time_us offset_bytes length_bytes placement\n1 W 0 4096 1\n",
            ":1: `# fields:` declaration: the first four columns must be",
        ),
        (
            "cut.systor",
            "systor",
            "Timestamp,Response,IOType,LUN,Offset,Size\n1.0,0.1,R,0,0,512\n1.0,0.1,R,0",
            ":3: expected 6",
        ),
    ];
    for (file, format, text, want) in cases {
        let msg = read_text(file, format, text);
        assert!(msg.contains(file) && msg.contains(want), "{file}: {msg}");
    }
}

/// A `block:block_rq_issue` capture (format `blkrq`), plain and zstd-compressed as the shared
/// captures are: detected from its content, read exactly as written (times in µs, relative to
/// the first record), the `#` header carrying no request, 512-byte redo writes kept as they are.
#[test]
fn blkrq_capture_is_detected_and_read_as_written() {
    let text = "# tpcc_mdb_w10: TPC-C | phase markers: load_start=0 load_end=113441099 run_start=113449129 run_end=1913532268 | dropped flush/empty=437235\n\
                25124 W 6583328768 4096\n\
                25124 W 6583332864 16384\n\
                30699.5 R 4437733376 16384\n\
                31000 W 1073741824 512\n";
    let plain = scratch("inline.blk.txt");
    std::fs::write(&plain, text).expect("write temp");
    let zst = scratch("inline.blk.txt.zst");
    std::fs::write(&zst, zstd::encode_all(text.as_bytes(), 19).expect("compress")).expect("write temp");
    let want = vec![
        req(0, Op::Write, 6_583_328_768, 4096),
        req(0, Op::Write, 6_583_332_864, 16_384),
        req(5_575_500, Op::Read, 4_437_733_376, 16_384),
        req(5_876_000, Op::Write, 1_073_741_824, 512),
    ];
    for path in [plain, zst] {
        assert_eq!(detect_format(&path).expect("detect"), "blkrq", "{}", path.display());
        assert_eq!(read_all(&opts(path.clone(), None)).expect("read"), want, "{}", path.display());
        let s = stats(&opts(path.clone(), None), 4096).expect("stats");
        assert_eq!((s.records, s.reads, s.writes, s.duration_ns), (4, 1, 3, 5_876_000), "{}", path.display());
        assert_eq!(s.devices, None, "no device column");
    }
    // Times are µs: no `time_unit` override, and no device filter.
    let mut o = opts(scratch("inline.blk.txt"), None);
    o.time_unit = Some("ns".into());
    let e = err_text(read_all(&o));
    // The formats that do take one, read from the registry (a new one is listed without edits).
    let takers: Vec<&str> = FORMATS.iter().filter(|f| f.caps.time_unit_override).map(|f| f.name).collect();
    assert!(e.contains("fixed time unit") && e.contains(&format!("only {} take", takers.join(", "))), "{e}");
    let mut o = opts(scratch("inline.blk.txt"), None);
    o.device = Some(0);
    assert!(err_text(read_all(&o)).contains("no device column"));
}

/// A capture that logs a fifth column (the request's tag) replays exactly as its four-column
/// copy: the same requests, and the same simulation results through the whole stack.
#[test]
fn blkrq_fifth_column_replays_as_the_four_column_copy() {
    let mut four = String::from("# capture\n");
    let mut five = String::from("# capture\n");
    let mut x: u64 = 12345;
    for i in 0..20_000u64 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let op = if x >> 60 < 4 { 'R' } else { 'W' };
        let offset = (x >> 20) % (40 << 20) / 512 * 512;
        let len = [512, 4096, 16384][(x >> 8) as usize % 3];
        four.push_str(&format!("{} {op} {offset} {len}\n", i * 10));
        five.push_str(&format!("{} {op} {offset} {len} {}\n", i * 10, x % 64));
    }
    let (p4, p5) = (scratch("four.blk.txt"), scratch("five.blk.txt"));
    std::fs::write(&p4, four).expect("write temp");
    std::fs::write(&p5, five).expect("write temp");
    assert_eq!(read_all(&opts(p5.clone(), None)).expect("read"), read_all(&opts(p4.clone(), None)).expect("read"));
    let run = |path: &Path| {
        let sets = [
            "workload.kind=\"trace\"".to_string(),
            format!("workload.path={}", toml::Value::String(path.display().to_string())),
            "device.logical_capacity=\"48MiB\"".into(),
            "device.blocks_per_plane=64".into(),
            "ftl.gc=\"2r++\"".into(),
        ];
        let cfg = flashlab::config::Config::from_toml_str(
            "seed = 1\n[device]\nchannels = 2\nchips_per_channel = 1\ndies_per_chip = 1\nplanes_per_die = 2\npages_per_block = 64\npage_size = \"4KiB\"\n[workload]\n",
            "blkrq replay",
            &sets,
        )
        .expect("a valid config");
        flashlab::sim::run(&cfg, &mut flashlab::sim::Quiet).expect("runs")
    };
    let (r4, r5) = (run(&p4), run(&p5));
    assert!(r4.ftl.host_writes > 10_000 && r4.ftl.gc_copies > 0, "the replay writes and collects");
    // Everything but the trace's path (in the config echo and the workload line) is the same.
    let strip = |r| {
        let mut v = results::without_wall_clock(r);
        let o = v.as_object_mut().expect("results are an object");
        o.remove("workload");
        o["config"]["workload"].as_object_mut().expect("a workload table").remove("path");
        v
    };
    assert_eq!(strip(&r5), strip(&r4));
}

/// A placement column reaches the requests through the public reader (file, detected format;
/// and a stream): csv's `placement` column, empty fields meaning none; blkrq's column declared by
/// a `# fields:` line, and without that line the same column is ignored.
#[test]
fn placement_columns_reach_the_requests() {
    let placements = |reqs: &[Request]| reqs.iter().map(|r| r.placement).collect::<Vec<_>>();
    let csv = read_all(&opts(data("handmade/placement.csv"), None)).expect("csv");
    assert_eq!(placements(&csv), [Some(1), None, None, Some(65_535), None, Some(0)]);
    assert_eq!(
        csv[3],
        Request { time_ns: 10_000, op: Op::Write, offset: 12_288, len: 4096, placement: Some(65_535), file: None }
    );
    let text = std::fs::read(data("handmade/placement.csv")).expect("shipped");
    let mut w = open_stream(Box::new(std::io::Cursor::new(text)), &opts(PathBuf::from("mem.csv"), Some("csv")))
        .expect("a stream");
    let mut streamed = Vec::new();
    while let Some(r) = w.next_request().expect("valid") {
        streamed.push(r);
    }
    assert_eq!(streamed, csv, "a stream reads as the file does");

    let blk = read_all(&opts(data("handmade/placement.blk.txt"), None)).expect("blkrq");
    assert_eq!(placements(&blk), [Some(2), Some(0), Some(0), Some(65_535)]);
    assert_eq!(
        blk[1],
        Request { time_ns: 50_500, op: Op::Write, offset: 1_048_576, len: 16_384, placement: Some(0), file: None }
    );
    // The same capture without its `# fields:` line: the columns after the fourth are ignored.
    let shipped = std::fs::read_to_string(data("handmade/placement.blk.txt")).expect("shipped");
    let undeclared: String =
        shipped.lines().filter(|l| !l.starts_with("# fields:")).map(|l| format!("{l}\n")).collect();
    let path = scratch("undeclared.blk.txt");
    std::fs::write(&path, undeclared).expect("write temp");
    assert_eq!(detect_format(&path).expect("detect"), "blkrq");
    let plain = read_all(&opts(path, None)).expect("undeclared");
    assert_eq!(placements(&plain), [None; 4]);
    let strip = |reqs: &[Request]| reqs.iter().map(|r| Request { placement: None, ..*r }).collect::<Vec<_>>();
    assert_eq!(plain, strip(&blk), "the same requests but for their placement");
}

#[test]
fn truncated_binary_record_is_an_error() {
    let bytes = std::fs::read(data("cloudphysics_libcachesim/cloudPhysicsIO.vscsi")).expect("shipped");
    let path = scratch("cut.vscsi");
    std::fs::write(&path, &bytes[..32 * 3 + 5]).expect("write temp");
    let msg = err_text(read_all(&opts(path, None)));
    assert!(msg.contains("cut.vscsi:4") && msg.contains("truncated record at byte offset 96"), "{msg}");
}

#[test]
fn unknown_format_undetectable_file_and_missing_file() {
    let msg = err_text(read_all(&opts(data("handmade/plain.csv"), Some("parquet"))));
    assert!(msg.contains("unknown trace format `parquet`"), "{msg}");
    for f in FORMATS {
        assert!(msg.contains(f.name), "{msg} lacks {}", f.name);
    }
    assert_eq!(trace::format_names().len(), FORMATS.len());

    let path = scratch("mystery.txt");
    std::fs::write(&path, "hello, world\n").expect("write temp");
    let msg = err_text(detect_format(&path));
    assert!(msg.contains("mystery.txt") && msg.contains("--format") && msg.contains("tencent"), "{msg}");

    match read_all(&opts(data("no/such/file.trace"), Some("mqsim"))) {
        Err(Error::Io { path, .. }) => assert!(path.contains("file.trace")),
        other => panic!("expected an I/O error, got {other:?}"),
    }
}

#[test]
fn workload_reports_location_and_progress() {
    let path = data("snia_samples_caffeine/msr-cambridge1-sample.csv");
    let mut w = open(&opts(path.clone(), None)).expect("open");
    w.next_request().expect("first").expect("a request");
    w.next_request().expect("second").expect("a request");
    let at = w.location().expect("traces know their location");
    assert_eq!(at.line, Some(2));
    while w.next_request().expect("valid").is_some() {}
    let size = std::fs::metadata(&path).expect("exists").len();
    assert_eq!(w.progress(), Some((size, size)));
}

#[test]
fn open_stream_reads_from_memory() {
    let text = std::fs::read(
        data("snia_samples_caffeine/msr-cambridge1-sample.csv.gz").with_file_name("msr-cambridge1-sample.csv"),
    )
    .expect("shipped");
    let o = opts(PathBuf::from("<stdin>"), Some("msr"));
    let mut w = open_stream(Box::new(std::io::Cursor::new(text)), &o).expect("open");
    let mut n = 0;
    while w.next_request().expect("valid").is_some() {
        n += 1;
    }
    assert_eq!(n, 200);
    let missing = opts(PathBuf::from("<stdin>"), None);
    assert!(err_text(open_stream(Box::new(std::io::empty()), &missing)).contains("format is required"));
}

#[test]
fn options_from_a_config_table() {
    let config = scratch("exp.toml");
    std::fs::write(&config, "# test config\n").expect("write temp");
    let table: toml::Table =
        toml::from_str("path = \"traces/a.csv\"\nformat = \"msr\"\ndevice = 2\ntime_scale = 2.0").expect("toml");
    let o = TraceOptions::from_table(&table, &config.display().to_string()).expect("valid");
    assert_eq!(o.path, config.parent().expect("has a dir").join("traces/a.csv"));
    assert_eq!((o.format.as_deref(), o.device, o.time_scale, o.time_unit), (Some("msr"), Some(2), 2.0, None));

    let o = TraceOptions::from_table(&table, "<command line>").expect("valid");
    assert_eq!(o.path, PathBuf::from("traces/a.csv"), "no config file: path stays relative to the working dir");

    let table: toml::Table = toml::from_str("path = \"a\"\ndevcie = 2").expect("toml");
    let msg = err_text(TraceOptions::from_table(&table, "exp.toml"));
    assert!(msg.contains("workload.devcie"), "{msg}");
    let table: toml::Table = toml::from_str("path = \"a\"\nformat = \"nope\"").expect("toml");
    assert!(err_text(TraceOptions::from_table(&table, "exp.toml")).contains("unknown trace format `nope`"));
    let table: toml::Table = toml::from_str("format = \"msr\"").expect("toml");
    assert!(err_text(TraceOptions::from_table(&table, "exp.toml")).contains("path"));
}

#[test]
fn stats_table_and_json_are_deterministic() {
    let o = opts(data("mqsim/tpcc-small.trace"), None);
    let a = stats(&o, 4096).expect("stats");
    let b = stats(&o, 4096).expect("stats");
    let json = serde_json::to_string(&a).expect("serialise");
    assert_eq!(json, serde_json::to_string(&b).expect("serialise"));
    assert_eq!(a.to_string(), b.to_string());
    assert!(a.to_string().contains("records          100 (reads 27, writes 73, trims 0)"), "{a}");
    let mut sorted = a.per_device.clone();
    sorted.sort_by_key(|d| d.device);
    assert_eq!(a.per_device, sorted);
    assert_eq!(a.per_device.iter().map(|d| d.records).sum::<u64>(), 100);
    assert!(a.size_histogram.windows(2).all(|w| w[0].min_bytes < w[1].min_bytes));
    assert!(stats(&o, 0).is_err());
}

/// The full traces described in `shared/traces/SOURCES.md`, with the counts published there.
struct Full {
    file: &'static str,
    format: &'static str,
    /// records, reads, writes
    counts: [u64; 3],
    /// read bytes, write bytes
    bytes: [u64; 2],
    /// min offset, max end
    span: [u64; 2],
    /// distinct 4 KiB pages per device, and with all devices in one address space
    pages: [u64; 2],
    /// devices, for formats with a device column
    devices: Option<u64>,
    /// latest minus earliest timestamp (CloudPhysics CSV times are whole seconds)
    duration_ns: u64,
}

const FULL: &[Full] = &[
    Full {
        file: "mqsim/tpcc-small.trace",
        format: "mqsim",
        counts: [6999, 4381, 2618],
        bytes: [36_315_136, 23_403_520],
        span: [361_823_744, 232_713_410_560],
        pages: [20_470, 20_422],
        devices: Some(16),
        duration_ns: 136_489_000,
    },
    Full {
        file: "mqsim/wsrch-small.trace",
        format: "mqsim",
        counts: [24_783, 24_779, 4],
        bytes: [382_085_120, 32_768],
        span: [0, 17_902_723_072],
        pages: [93_029, 92_259],
        devices: Some(6),
        duration_ns: 60_055_212_000,
    },
    Full {
        file: "cloudphysics_libcachesim/cloudPhysicsIO.csv",
        format: "cloudphysics",
        counts: [113_872, 46_974, 66_898],
        bytes: [1_797_412_352, 2_408_565_760],
        span: [8_162_816, 33_584_938_496],
        pages: [269_210, 269_210],
        devices: None,
        duration_ns: 7_200_000_000_000,
    },
    Full {
        file: "cloudphysics_libcachesim/cloudPhysicsIO.vscsi",
        format: "vscsi",
        counts: [113_872, 46_974, 66_898],
        bytes: [1_797_412_352, 2_408_565_760],
        span: [8_162_816, 33_584_938_496],
        pages: [269_210, 269_210],
        devices: None,
        duration_ns: 7_200_089_885_000,
    },
    Full {
        file: "msnfs_replayer/MSN-FS-30s-ms",
        format: "disksim",
        counts: [149_999, 130_483, 19_516],
        bytes: [2_438_250_496, 184_393_728],
        span: [3_325_952, 182_089_064_448],
        pages: [538_027, 538_027],
        devices: Some(1),
        duration_ns: 143_068_077_000,
    },
    Full {
        file: "snia_samples_caffeine/msr-cambridge1-sample.csv",
        format: "msr",
        counts: [1000, 508, 492],
        bytes: [6_108_672, 3_580_928],
        span: [17_625_088, 13_575_029_248],
        pages: [1917, 1917],
        devices: Some(1),
        duration_ns: 127_233_494_100,
    },
    Full {
        file: "snia_samples_caffeine/systor17-traces-sample.csv.gz",
        format: "systor",
        counts: [999, 826, 173],
        bytes: [36_355_584, 2_766_848],
        span: [193_595_128_320, 5_029_321_633_280],
        pages: [9831, 9831],
        devices: Some(1),
        duration_ns: 2_447_767_000,
    },
    Full {
        file: "snia_samples_caffeine/systor17-additional-sample.csv.gz",
        format: "systor",
        counts: [999, 700, 299],
        bytes: [18_406_400, 2_286_080],
        span: [139_255_196_672, 4_982_565_600_256],
        pages: [5460, 5460],
        devices: Some(1),
        duration_ns: 1_330_616_000,
    },
    Full {
        file: "snia_samples_caffeine/cloud_storage-sample.bz2",
        format: "tencent",
        counts: [50_000, 24_521, 25_479],
        bytes: [646_755_328, 871_636_992],
        span: [0, 1_669_048_770_560],
        pages: [348_239, 334_782],
        devices: Some(2038),
        duration_ns: 1_000_000_000,
    },
    Full {
        file: "umass_financial1_ssdsim/example.ascii",
        format: "ssdsim",
        counts: [10_000, 4078, 5922],
        bytes: [25_438_208, 29_840_896],
        span: [67_584, 513_235_456],
        pages: [7322, 7_142],
        devices: Some(22),
        duration_ns: 259_601_203_125,
    },
    Full {
        file: "wiscsee_sqlite/sqlitewal-update/blkparse-events-for-ftlsim.txt",
        format: "wiscsee",
        counts: [5008, 4, 5003],
        bytes: [16_384, 69_115_904],
        span: [266_240, 542_076_928],
        pages: [2174, 2174],
        devices: None,
        duration_ns: 1_412_912_035,
    },
    Full {
        file: "wiscsee_sqlite/sqlitewal-reqscale-240000-inserts-3/blkparse-events-for-ftlsim.txt",
        format: "wiscsee",
        counts: [5000, 5000, 0],
        bytes: [23_371_776, 0],
        span: [134_549_504, 415_473_664],
        pages: [5327, 5327],
        devices: None,
        duration_ns: 827_652_373,
    },
];

/// Why a check of the full `shared/traces` files cannot run.
fn absent(root: &Path) -> String {
    format!("{} is absent (the full trace files are not part of a fresh clone)", root.display())
}

#[test]
fn full_shared_traces_match_their_published_counts() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/traces");
    if !root.is_dir() {
        skip::skipped("full shared traces against their published counts", &absent(&root));
        return;
    }
    for f in FULL {
        let path = root.join(f.file);
        assert_eq!(detect_format(&path).expect(f.file), f.format, "{}", f.file);
        let s = stats(&opts(path, None), 4096).expect(f.file);
        println!("{s}");
        assert_eq!([s.records, s.reads, s.writes], f.counts, "{}", f.file);
        assert_eq!([s.read_bytes, s.write_bytes], f.bytes, "{}", f.file);
        assert_eq!([s.offset_min, s.end_max], f.span, "{}", f.file);
        assert_eq!([s.footprint_pages, s.footprint_pages_merged], f.pages, "{}", f.file);
        assert_eq!(s.devices, f.devices, "{}", f.file);
        assert_eq!(s.duration_ns, f.duration_ns, "{}", f.file);
    }
}

/// The built-in `blkrq` traces (OLTP spatial samples, whole file-system captures) read with the
/// counts their provenance states (`crates/flashlab/data/traces/PROVENANCE.md`; the OLTP bytes
/// summed with awk over the decompressed files, the file-system ones from their capture's
/// `stats.json`).
#[test]
fn builtin_blkrq_traces_have_their_documented_counts() {
    for (name, counts, bytes, pages) in [
        ("builtin:tpcc-mdb", [66_693, 37_670, 29_023], [617_185_280u64, 458_982_912u64], 3_432),
        ("builtin:linkbench-mdb", [55_618, 30_897, 24_721], [506_216_448, 384_290_304], 9_351),
        ("builtin:tpcc-pg", [30_576, 11_752, 18_824], [149_319_680, 286_756_864], 9_215),
        ("builtin:bonnie-1g", [8_596, 5_831, 2_765], [2_182_840_320, 2_175_913_984], 265_798),
        ("builtin:iozone-like-1g", [64_315, 44_475, 19_840], [3_221_282_816, 3_221_409_792], 262_191),
        ("builtin:randrw5050", [12_226, 6_099, 6_127], [24_981_504, 25_116_672], 11_200),
    ] {
        assert_eq!(
            detect_format(Path::new(name)).ok(),
            None,
            "built-ins carry their format; nothing to detect on disk"
        );
        let s = stats(&opts(PathBuf::from(name), None), 4096).unwrap();
        assert_eq!(s.format, "blkrq");
        assert_eq!(
            ([s.records, s.reads, s.writes], [s.read_bytes, s.write_bytes], s.footprint_pages),
            (counts, bytes, pages),
            "{name}"
        );
    }
}

/// The block_rq_issue captures of `shared/traces/oltp` and `shared/traces/fs` (format `blkrq`)
/// against the statistics their capture scripts computed (`stats.json`, `NAME.stats.json`): an
/// independent reading of the same files.
#[test]
fn shared_blkrq_captures_match_their_capture_statistics() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/traces");
    if !root.is_dir() {
        skip::skipped("shared blkrq captures against their capture statistics", &absent(&root));
        return;
    }
    let read_json = |p: PathBuf| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(&p).expect("stats file")).expect("JSON")
    };
    let mut checked = 0;
    // (trace, its statistics): OLTP keeps one list, the file-system captures one file each.
    let mut cases: Vec<(PathBuf, serde_json::Value)> = Vec::new();
    if let serde_json::Value::Array(list) = read_json(root.join("oltp/stats.json")) {
        for v in list {
            cases.push((root.join("oltp").join(v["file"].as_str().expect("file")), v));
        }
    }
    for name in ["bonnie_1g", "iozone_like_1g", "randrw5050_2810m"] {
        cases
            .push((root.join(format!("fs/{name}.blk.txt.zst")), read_json(root.join(format!("fs/{name}.stats.json")))));
    }
    for (path, v) in cases {
        let u = |k: &str| v[k].as_u64().unwrap_or_else(|| panic!("{}: no {k}", path.display()));
        assert_eq!(detect_format(&path).unwrap(), "blkrq", "{}", path.display());
        let s = stats(&opts(path.clone(), None), 4096).unwrap();
        let pages =
            v.get("footprint_pages_4k").or(v.get("footprint_4k_pages")).and_then(|x| x.as_u64()).expect("footprint");
        assert_eq!([s.records, s.reads, s.writes], [u("records"), u("reads"), u("writes")], "{}", path.display());
        assert_eq!([s.read_bytes, s.write_bytes], [u("bytes_read"), u("bytes_written")], "{}", path.display());
        assert_eq!((s.footprint_pages, s.end_max - s.offset_min), (pages, u("lba_span_bytes")), "{}", path.display());
        let span_us = v
            .get("time_span_us")
            .and_then(|x| x.as_f64())
            .or(v.get("duration_s").and_then(|x| x.as_f64()).map(|d| d * 1e6))
            .expect("span");
        assert!(
            (s.duration_ns as f64 / 1e3 - span_us).abs() < 1.0,
            "{}: duration {} ns vs {span_us} µs",
            path.display(),
            s.duration_ns
        );
        checked += 1;
    }
    assert_eq!(checked, 6, "three OLTP and three file-system captures");
}

// ---- fuzzing: no input makes any reader panic -------------------------------------------------

/// A small valid input for each registered format (a new format must add one here).
fn sample(format: &str) -> Vec<u8> {
    let text: &str = match format {
        "msr" => "128166385295514663,hm,0,Write,9056014336,2048,2833\n128166386567849449,hm,0,Read,11946262528,4096,3654\n",
        "spc" => "0,303567,3584,w,0.0\n1,55590,3072,R,0.026214\n",
        "blkparse" => "  8,0    3        6     0.000012000   697  D   W 223490 + 8 [kjournald]\n  8,0    2        1     0.002000000   211  D FWS [jbd2]\n  8,0    0        3     0.004000000  3301  D  DS 2048 + 2048 [fstrim]\nCPU0 (8,0):\n",
        "wiscsee" => "39949 D read 299008 4096 0.000000000 0 False\n0 C read 299008 4096 0.000122793 0.000122793 False\n1386 D discard 136314880 4096 0.439239477 4.43e-06 False\n",
        "fio" => "fio version 2 iolog\n/dev/sdb add\n/dev/sdb write 0 4096\n/dev/sdb wait 100 0\n/dev/sdb read 4096 512\n",
        "disksim" => "0.000 5 174224064 16 1\n0.221 5 162947904 16 0\n",
        "mqsim" | "ssdsim" => "938513000 4 264719034 16 0\n938828000 3 197570570 16 1\n",
        "csv" => "time_us,op,offset,size,device,placement\n0,W,0,4096,0,3\n15.5,R,0,8192,1,\n",
        "cloudphysics" => "version,time,op,size,lbn\n1,5633898,2a,512,42932745\n1,5633899,28,4096,8\n",
        "systor" => "Timestamp,Response,IOType,LUN,Offset,Size\n1456095145.133076000,0.000806000,R,0,899056122368,131072\n",
        "tencent" => "1538323200,4247200,128,1,1058\n1538323199,13896880,128,0,1063\n",
        "blkrq" => "# capture header | run_start=5\n# fields: time_us op offset_bytes length_bytes - placement\n25124 W 6583328768 4096 7 2\n30699 R 4437733376 512 8 0\n",
        "vscsi" => return vscsi_sample(),
        other => panic!("add a fuzz sample for trace format `{other}`"),
    };
    text.as_bytes().to_vec()
}

fn vscsi_sample() -> Vec<u8> {
    let mut out = Vec::new();
    for (cmd, lbn) in [(0x2au16, 42_932_745u64), (0x28, 8)] {
        out.extend(244u32.to_le_bytes());
        out.extend(512u32.to_le_bytes());
        out.extend(1u32.to_le_bytes());
        out.extend(cmd.to_le_bytes());
        out.extend(0x100u16.to_le_bytes());
        out.extend(lbn.to_le_bytes());
        out.extend(5_633_898_368_802u64.to_le_bytes());
    }
    out
}

/// Read `bytes` as `format` to the end; the first insane request, if any.
fn drain(o: &TraceOptions, bytes: Vec<u8>) -> Result<Option<Request>, Error> {
    let mut w = open_stream(Box::new(std::io::Cursor::new(bytes)), o)?;
    for _ in 0..100_000 {
        match w.next_request()? {
            Some(r) if r.len == 0 || r.offset.checked_add(r.len).is_none() => return Ok(Some(r)),
            Some(_) => {}
            None => break,
        }
    }
    Ok(None)
}

/// Read `bytes` as `format`; every request must be sane and every error must name the stream
/// and a line.
fn survives(format: &str, bytes: Vec<u8>) -> Result<(), TestCaseError> {
    const NAME: &str = "fuzz-input.trace";
    match drain(&opts(PathBuf::from(NAME), Some(format)), bytes) {
        Ok(bad) => prop_assert!(bad.is_none(), "{format}: insane request {bad:?}"),
        Err(Error::Input { at, msg }) => {
            let text = format!("{at}: {msg}");
            // Only "no request at all" is about the whole file; every other error names its line.
            let whole_file = at.line.is_none() && msg.starts_with("no request");
            prop_assert!(
                at.file == NAME && (at.line.is_some() || whole_file),
                "{format}: error without file and line: {text}"
            );
            prop_assert!(text.starts_with("fuzz-input.trace:"), "{text}");
        }
        Err(other) => return Err(TestCaseError::fail(format!("{format}: unexpected error kind: {other}"))),
    }
    Ok(())
}

/// Bytes that make interesting edits to trace lines.
fn edit_byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        Just(b'0'),
        Just(b'9'),
        Just(b','),
        Just(b' '),
        Just(b'\n'),
        Just(b'.'),
        Just(b'-'),
        Just(b'e'),
        Just(b'D'),
        Just(b'+'),
        Just(b'['),
        Just(0xff),
        any::<u8>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(which in 0..FORMATS.len(), bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        survives(FORMATS[which].name, bytes)?;
    }

    #[test]
    fn mutated_valid_inputs_never_panic(
        which in 0..FORMATS.len(),
        edits in proptest::collection::vec((any::<prop::sample::Index>(), 0u8..4, edit_byte()), 1..6),
    ) {
        let format = FORMATS[which].name;
        let mut bytes = sample(format);
        for (at, kind, byte) in edits {
            if bytes.is_empty() {
                break;
            }
            let i = at.index(bytes.len());
            match kind {
                0 => bytes[i] = byte,
                1 => bytes.insert(i, byte),
                2 => { bytes.remove(i); }
                _ => bytes.truncate(i),
            }
        }
        survives(format, bytes)?;
    }
}

#[test]
fn every_fuzz_sample_is_valid() {
    for f in FORMATS {
        let o = opts(PathBuf::from("sample"), Some(f.name));
        let mut w = open_stream(Box::new(std::io::Cursor::new(sample(f.name))), &o).expect(f.name);
        let mut n = 0;
        while w.next_request().expect(f.name).is_some() {
            n += 1;
        }
        assert!(n >= 1, "{}", f.name);
    }
}

// ---- speed (not a timed test: run with --ignored to measure) ----------------------------------

/// `cargo test --release -p flashlab --test traces -- --ignored --nocapture msr_parse_speed`
#[test]
#[ignore = "measurement, not a test; run explicitly in release mode"]
fn msr_parse_speed() {
    let excerpt = std::fs::read(data("snia_samples_caffeine/msr-cambridge1-sample.csv")).expect("shipped");
    let path = scratch("msr-speed.csv");
    let target_bytes = 256 << 20;
    let copies = target_bytes / excerpt.len() + 1;
    std::fs::write(&path, excerpt.repeat(copies)).expect("write temp");
    let bytes = std::fs::metadata(&path).expect("exists").len();

    let raw_start = Instant::now();
    let raw = std::fs::read(&path).expect("read").len();
    let raw_s = raw_start.elapsed().as_secs_f64();

    let start = Instant::now();
    let mut w = open(&opts(path.clone(), Some("msr"))).expect("open");
    let mut n = 0u64;
    while w.next_request().expect("valid").is_some() {
        n += 1;
    }
    let secs = start.elapsed().as_secs_f64();
    assert_eq!(n, 200 * copies as u64);
    println!(
        "msr: {n} records, {:.1} MB in {secs:.3} s = {:.0} MB/s ({:.1} M records/s); plain file read {:.0} MB/s",
        bytes as f64 / 1e6,
        bytes as f64 / 1e6 / secs,
        n as f64 / 1e6 / secs,
        raw as f64 / 1e6 / raw_s
    );
    std::fs::remove_file(&path).ok();
}

/// `trace stats` names blkparse devices as blkparse prints them (`major,minor`) beside the
/// dev_t number the `device` filter takes; an undetectable file's error says how to name the
/// format from a config, the command line and Python.
#[test]
fn stats_show_blkparse_devices_as_major_minor_and_detection_hints_name_every_caller() {
    let f = scratch("two-devices.blk");
    std::fs::write(&f, "  8,0 1 1 0.000000000 1 D W 223490 + 8 [fio]\n  8,16 1 2 0.000100000 1 D R 1000 + 8 [fio]\n")
        .unwrap();
    let s = stats(&opts(f, None), 4096).unwrap();
    assert_eq!(s.format, "blkparse");
    let text = s.to_string();
    assert!(text.contains("8388608 (8,0): 1") && text.contains("8388624 (8,16): 1"), "{text}");
    let empty = scratch("nothing.txt");
    std::fs::write(&empty, "").unwrap();
    let e = err_text(stats(&opts(empty, None), 4096));
    assert!(
        e.contains("`format = \"...\"` in [workload]") && e.contains("`--format`") && e.contains("`format=` in Python"),
        "{e}"
    );
}
