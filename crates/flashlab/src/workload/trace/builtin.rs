//! Trace excerpts compiled into the library, opened with `workload.path = "builtin:NAME"`, so
//! reproductions and examples run on a fresh clone without `shared/traces`. Provenance (origin,
//! commit, cut, checksums): `crates/flashlab/data/traces/PROVENANCE.md`.

use crate::error::Error;

/// A trace excerpt compiled into the library.
pub struct Builtin {
    /// Its name: the path `builtin:NAME` opens it.
    pub name: &'static str,
    /// Its trace format (a `FORMATS` name), used unless `workload.format` names one.
    pub format: &'static str,
    /// Origin and content in one line, for `flashlab list`.
    pub about: &'static str,
    /// The trace file, zstd-compressed (recognised by its magic bytes when read).
    pub bytes: &'static [u8],
}

/// The path prefix that names a built-in trace: `builtin:NAME`.
pub const PREFIX: &str = "builtin:";

/// Every built-in trace, in listing order.
pub const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "msnfs",
        format: "disksim",
        about: "MSN File Server, requests 40,001-70,000 (30,000; 19% writes)",
        bytes: include_bytes!("../../../data/traces/msnfs-40k-70k.zst"),
    },
    Builtin {
        name: "cloudphysics",
        format: "cloudphysics",
        about: "CloudPhysics VSCSI trace, first 20,000 requests (79% writes)",
        bytes: include_bytes!("../../../data/traces/cloudphysics-20k.csv.zst"),
    },
    Builtin {
        name: "financial1",
        format: "ssdsim",
        about: "UMass/SPC Financial1 sample shipped with SSDsim (10,000 requests; 59% writes)",
        bytes: include_bytes!("../../../data/traces/financial1-10k.zst"),
    },
    Builtin {
        name: "tpcc-mdb",
        format: "blkrq",
        about: "TPC-C on MariaDB/InnoDB (block_rq_issue capture), 1/128 spatial sample: 66,693 requests, 33 writes per page",
        bytes: include_bytes!("../../../data/traces/tpcc-mdb-s128.blk.zst"),
    },
    Builtin {
        name: "linkbench-mdb",
        format: "blkrq",
        about: "LinkBench on MariaDB/InnoDB (block_rq_issue capture), 1/64 spatial sample: 55,618 requests, 10 writes per page",
        bytes: include_bytes!("../../../data/traces/linkbench-mdb-s64.blk.zst"),
    },
    Builtin {
        name: "tpcc-pg",
        format: "blkrq",
        about: "TPC-C on PostgreSQL 15 (block_rq_issue capture), 1/64 spatial sample: 30,576 requests, 7.6 writes per page",
        bytes: include_bytes!("../../../data/traces/tpcc-pg-s64.blk.zst"),
    },
    Builtin {
        name: "bonnie-1g",
        format: "blkrq",
        about: "Bonnie++ with a 1 GiB file on ext4 (block_rq_issue capture, whole): 8,596 requests, mean 495 KiB",
        bytes: include_bytes!("../../../data/traces/bonnie-1g.blk.zst"),
    },
    Builtin {
        name: "iozone-like-1g",
        format: "blkrq",
        about: "IOzone's six phases as fio jobs on a 1 GiB ext4 file (block_rq_issue capture, whole): 64,315 requests",
        bytes: include_bytes!("../../../data/traces/iozone-like-1g.blk.zst"),
    },
    Builtin {
        name: "randrw5050",
        format: "blkrq",
        about: "fio randrw 50/50, 4 KiB, O_DIRECT on a 2.81 GB ext4 file (block_rq_issue capture), 1/64 spatial sample",
        bytes: include_bytes!("../../../data/traces/randrw5050-s64.blk.zst"),
    },
];

/// The built-in traces' names (without [`PREFIX`]), in listing order.
pub fn names() -> Vec<&'static str> {
    BUILTINS.iter().map(|b| b.name).collect()
}

/// The built-in trace a `builtin:NAME` path names (`None` for an ordinary path).
pub fn find(path: &std::path::Path) -> Option<Result<&'static Builtin, Error>> {
    let name = path.to_str()?.strip_prefix(PREFIX)?;
    Some(BUILTINS.iter().find(|b| b.name == name).ok_or_else(|| {
        let valid: Vec<String> = names().iter().map(|n| format!("{PREFIX}{n}")).collect();
        Error::config("workload.path", format!("unknown built-in trace `{name}`; valid: {}", valid.join(", ")))
    }))
}
