//! `streams`: several generators side by side, each on its own address range with its own
//! sizes, skew and share of the bytes, and each stamping its writes with a placement
//! identifier — a flash cache's small-object random region beside its large-object
//! sequential log, or a database's log beside its tables.
//!
//! ```toml
//! [workload]
//! kind = "streams"
//! volume = "8GiB"                  # or `requests`; the whole workload's length
//! [[workload.streams]]
//! kind = "uniform"                 # any other generator, with its own keys
//! footprint = 0.04
//! request_size = "4KiB"
//! share = 0.3                      # of the bytes requested
//! placement = 1                    # identifier on its writes (absent: none)
//! [[workload.streams]]
//! kind = "sequential"
//! start = "1GiB"
//! footprint = 0.9
//! request_size = "1MiB"
//! share = 0.7
//! placement = 2
//! ```
//!
//! Owns: the interleaving. The next request comes from the stream furthest behind its share
//! of the bytes requested so far (the lowest `bytes / share`, the first on a tie), so the
//! byte shares hold at every point of the run without drawing a random number; each stream
//! draws its own addresses from its own seed (`derive_seed(seed, "stream N")`). A stream's
//! table is a generator's table (its `kind` and keys, the common keys included) without a
//! length of its own: the workload's `volume` or `requests` ends every stream. Requests are
//! stamped `iat_ns` apart in the order they are issued.
//!
//! Fault model: no stream, a stream without `kind` or `share`, a share that is not positive,
//! a stream that sets its own length, and any error of a stream's generator are
//! configuration errors naming `workload.streams[N].KEY`.

use serde::Deserialize;

use super::params::{config, MAX_ARRIVAL_NS, MAX_RUN_PAGES};
use crate::error::{Error, Location};
use crate::workload::{Bound, GenContext, Request, Workload};

/// `streams`' own keys (a stream's keys are its generator's, plus `share` and `placement`).
#[derive(Clone, Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MultiParams {
    /// Stop after requesting this many bytes, all streams together (give this or
    /// `requests`).
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub volume: Option<toml::Value>,
    /// Stop after this many requests, all streams together.
    #[serde(default)]
    pub requests: Option<u64>,
    /// Fixed inter-arrival time stamped on requests, in issue order (0: all at time 0).
    #[serde(default)]
    pub iat_ns: u64,
    /// The workload's seed; default: derived from the run's `seed`.
    #[serde(default)]
    pub seed: Option<u64>,
    /// Required: the streams, each a generator's table (`kind` and its keys) plus `share` (of the
    /// bytes, > 0; shares are normalised) and `placement` (0 to 65535, the identifier its
    /// writes carry; absent: none).
    #[serde(default)]
    #[schemars(with = "Option<Vec<crate::registry::FreeTable>>")]
    pub streams: Option<Vec<toml::Table>>,
}

/// Keys a stream may not set: the length is the whole workload's.
const LENGTH_KEYS: &[&str] = &["volume", "requests", "volume_ratio", "capacity_multiple"];

struct Part {
    gen: Box<dyn Workload>,
    /// Share of the bytes, normalised to sum to 1.
    share: f64,
    placement: Option<u16>,
    bytes: u64,
}

/// The interleaved streams.
pub struct Multi {
    parts: Vec<Part>,
    limit_bytes: Option<u64>,
    limit_requests: Option<u64>,
    done_bytes: u64,
    done_requests: u64,
    iat_ns: u64,
}

fn stream_key(i: usize, key: &str) -> String {
    format!("streams[{i}].{key}")
}

/// A stream's generator error, renamed from `workload.KEY` to `workload.streams[N].KEY`.
fn in_stream(i: usize, e: Error) -> Error {
    let rename = |k: &str| match k.strip_prefix("workload.") {
        Some(rest) => format!("workload.{}", stream_key(i, rest)),
        None => format!("workload.{}: {k}", stream_key(i, "kind")),
    };
    match e {
        Error::Config { key, msg, at } => Error::Config { key: rename(&key), msg, at },
        Error::Input { at, msg } => {
            let field = Some(at.field.as_deref().map_or_else(|| format!("workload.streams[{i}]"), rename));
            Error::Input { at: Location { field, ..at }, msg }
        }
        e => e,
    }
}

/// Build `streams` from `[workload]` (without `kind`).
pub fn build(params: toml::Table, ctx: &GenContext) -> Result<Box<dyn Workload>, Error> {
    let p: MultiParams = params.try_into().map_err(|e: toml::de::Error| {
        Error::input(
            Location::file(&ctx.source).with_field("workload"),
            format!("generator `streams`: {}", crate::units::plain_types(e.message())),
        )
    })?;
    let streams = p.streams.unwrap_or_default();
    if streams.is_empty() {
        return Err(config("streams", "no stream: give at least one [[workload.streams]] table"));
    }
    let (limit_bytes, limit_requests) = match (&p.volume, p.requests) {
        (Some(_), Some(_)) => return Err(config("requests", "give `volume` or `requests`, not both")),
        (None, None) => return Err(config("volume", "give the workload's length: `volume` or `requests`")),
        (Some(v), None) => {
            let text = match v {
                toml::Value::String(s) => s.clone(),
                toml::Value::Integer(n) if *n > 0 => n.to_string(),
                other => return Err(config("volume", format!("a size such as \"8GiB\" (got {other})"))),
            };
            let bytes = crate::units::parse_size(&text).map_err(|e| config("volume", e))?;
            if bytes == 0 {
                return Err(config("volume", "must be positive"));
            }
            (Some(bytes), None)
        }
        (None, Some(0)) => return Err(config("requests", "must be positive")),
        (None, Some(n)) => (None, Some(n)),
    };
    if limit_bytes.is_some_and(|b| b / ctx.page_size > MAX_RUN_PAGES)
        || limit_requests.is_some_and(|n| n > MAX_RUN_PAGES)
    {
        return Err(config("volume", "longer than the most one run may hold (2^42 pages or requests)"));
    }
    let most_requests = limit_requests.unwrap_or_else(|| limit_bytes.unwrap_or(0) / ctx.page_size.max(1) + 1);
    if p.iat_ns.checked_mul(most_requests).is_none_or(|t| t >= MAX_ARRIVAL_NS) {
        return Err(config("iat_ns", "runs past the simulated clock's end (2^63 ns): lower iat_ns or the length"));
    }
    let seed = p.seed.unwrap_or(ctx.seed);
    let mut parts = Vec::with_capacity(streams.len());
    for (i, mut table) in streams.into_iter().enumerate() {
        if let Some(k) = LENGTH_KEYS.iter().find(|k| table.contains_key(**k)) {
            return Err(config(
                &stream_key(i, k),
                "a stream has no length of its own: the workload's `volume` or `requests` ends every stream",
            ));
        }
        let kind = match table.remove("kind") {
            Some(toml::Value::String(s)) if s != "streams" => s,
            Some(toml::Value::String(_)) => {
                return Err(config(&stream_key(i, "kind"), "a stream cannot itself be `streams`"))
            }
            Some(_) => return Err(config(&stream_key(i, "kind"), "a generator's name (a string)")),
            None => return Err(config(&stream_key(i, "kind"), "missing: each stream names its generator")),
        };
        let share = match table.remove("share") {
            Some(toml::Value::Float(f)) if f > 0.0 && f.is_finite() => f,
            Some(toml::Value::Integer(n)) if n > 0 => n as f64,
            Some(v) => return Err(config(&stream_key(i, "share"), format!("a positive number (got {v})"))),
            None => return Err(config(&stream_key(i, "share"), "missing: each stream's share of the bytes")),
        };
        let placement = match table.remove("placement") {
            Some(toml::Value::Integer(n)) if (0..=u16::MAX as i64).contains(&n) => Some(n as u16),
            Some(v) => return Err(config(&stream_key(i, "placement"), format!("an identifier 0 to 65535 (got {v})"))),
            None => None,
        };
        // Long enough never to end first: every stream may take the whole length.
        match (limit_bytes, limit_requests) {
            (Some(b), _) => table.insert("volume".into(), toml::Value::Integer(b.min(i64::MAX as u64) as i64)),
            (_, Some(n)) => table.insert("requests".into(), toml::Value::Integer(n.min(i64::MAX as u64) as i64)),
            _ => unreachable!("a length was required above"),
        };
        table.remove("iat_ns");
        let sub_ctx = GenContext { seed: crate::seed::derive_seed(seed, &format!("stream {i}")), ..ctx.clone() };
        let gen = super::build(&kind, table, &sub_ctx).map_err(|e| in_stream(i, e))?;
        parts.push(Part { gen, share, placement, bytes: 0 });
    }
    let total: f64 = parts.iter().map(|p| p.share).sum();
    parts.iter_mut().for_each(|p| p.share /= total);
    Ok(Box::new(Multi { parts, limit_bytes, limit_requests, done_bytes: 0, done_requests: 0, iat_ns: p.iat_ns }))
}

impl Multi {
    fn finished(&self) -> bool {
        self.limit_bytes.is_some_and(|b| self.done_bytes >= b)
            || self.limit_requests.is_some_and(|n| self.done_requests >= n)
    }
}

impl Workload for Multi {
    fn next_request(&mut self) -> Result<Option<Request>, Error> {
        if self.finished() {
            return Ok(None);
        }
        // The stream furthest behind its share of the bytes.
        let mut best = 0;
        let mut best_key = f64::INFINITY;
        for (i, p) in self.parts.iter().enumerate() {
            let key = p.bytes as f64 / p.share;
            if key < best_key {
                (best, best_key) = (i, key);
            }
        }
        let part = &mut self.parts[best];
        let Some(mut req) = part.gen.next_request()? else {
            return Ok(None);
        };
        part.bytes += req.len;
        req.placement = part.placement;
        req.time_ns = self.done_requests.saturating_mul(self.iat_ns);
        self.done_bytes += req.len;
        self.done_requests += 1;
        Ok(Some(req))
    }

    fn next_batch(&mut self, out: &mut Vec<Request>, max: usize) -> bool {
        while out.len() < max {
            match self.next_request() {
                Ok(Some(r)) => out.push(r),
                Ok(None) => break,
                Err(e) => unreachable!("generators do not fail: {e}"),
            }
        }
        true
    }

    fn progress(&self) -> Option<(u64, u64)> {
        match (self.limit_bytes, self.limit_requests) {
            (Some(b), _) => Some((self.done_bytes.min(b), b)),
            (_, Some(n)) => Some((self.done_requests.min(n), n)),
            _ => None,
        }
    }

    fn bound(&self) -> Option<Bound> {
        let bounds: Vec<Bound> = self.parts.iter().filter_map(|p| p.gen.bound()).collect();
        if bounds.len() != self.parts.len() {
            return None;
        }
        let align = bounds.iter().map(|b| b.align).fold(0, crate::units::gcd);
        let most_bytes = bounds.iter().map(|b| b.bytes).max().unwrap_or(0);
        Some(match (self.limit_bytes, self.limit_requests) {
            (_, Some(n)) => Bound { requests: n, bytes: most_bytes, align },
            _ => Bound { requests: bounds.iter().map(|b| b.requests).max().unwrap_or(0), bytes: most_bytes, align },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> GenContext {
        GenContext { capacity_bytes: 64 << 20, page_size: 4096, seed: 7, source: "t.toml".into() }
    }

    fn table(text: &str) -> toml::Table {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn streams_keep_their_byte_shares_ranges_and_placements() {
        let t = table(
            r#"volume = "16MiB"
            [[streams]]
            kind = "uniform"
            footprint = "1MiB"
            share = 0.25
            placement = 1
            [[streams]]
            kind = "sequential"
            start = "8MiB"
            footprint = "32MiB"
            request_size = "64KiB"
            share = 0.75
            placement = 2"#,
        );
        let mut w = build(t, &ctx()).unwrap();
        let (mut small, mut large) = (0u64, 0u64);
        let mut previous_large = None;
        while let Some(r) = w.next_request().unwrap() {
            match r.placement {
                Some(1) => {
                    assert!(r.offset + r.len <= 1 << 20 && r.len == 4096, "{r:?}");
                    small += r.len;
                }
                Some(2) => {
                    assert!(r.offset >= 8 << 20 && r.len == 64 << 10, "{r:?}");
                    if let Some(p) = previous_large {
                        assert_eq!(r.offset, p + (64 << 10), "the sequential stream runs on in order");
                    }
                    previous_large = Some(r.offset);
                    large += r.len;
                }
                other => panic!("placement {other:?}"),
            }
        }
        assert_eq!(small + large, 16 << 20);
        assert_eq!(small, 4 << 20, "a quarter of the bytes");
    }

    #[test]
    fn errors_name_the_stream_and_key() {
        let err = |text: &str| build(table(text), &ctx()).err().expect("refused").to_string();
        assert!(err("volume = \"1MiB\"").contains("workload.streams"));
        let e = err("volume = \"1MiB\"\n[[streams]]\nkind = \"uniform\"\nshare = 0.0");
        assert!(e.contains("workload.streams[0].share"), "{e}");
        let e = err("volume = \"1MiB\"\n[[streams]]\nkind = \"uniform\"\nshare = 1\nrequests = 3");
        assert!(e.contains("workload.streams[0].requests"), "{e}");
        let e = err("volume = \"1MiB\"\n[[streams]]\nkind = \"uniform\"\nshare = 1\nplacement = 70000");
        assert!(e.contains("workload.streams[0].placement"), "{e}");
        let e = err("volume = \"1MiB\"\n[[streams]]\nkind = \"uniform\"\nshare = 1\nfootprint = \"1TiB\"");
        assert!(e.contains("workload.streams[0].footprint"), "{e}");
        let e = err("volume = \"1MiB\"\n[[streams]]\nkind = \"hotcold\"\nshare = 1\nhot_space = 2.0");
        assert!(e.contains("workload.streams[0].hot_space"), "{e}");
        let e = err("requests = 5\n[[streams]]\nshare = 1");
        assert!(e.contains("workload.streams[0].kind"), "{e}");
    }

    #[test]
    fn same_seed_same_stream() {
        let text = "requests = 500\n[[streams]]\nkind = \"zipf\"\nshare = 1\nplacement = 0\n[[streams]]\nkind = \"uniform\"\nshare = 2";
        let collect = || {
            let mut w = build(table(text), &ctx()).unwrap();
            std::iter::from_fn(|| w.next_request().unwrap()).collect::<Vec<_>>()
        };
        let a = collect();
        assert_eq!(a.len(), 500);
        assert_eq!(a, collect());
        assert!(a.iter().any(|r| r.placement.is_none()) && a.iter().any(|r| r.placement == Some(0)));
    }
}
