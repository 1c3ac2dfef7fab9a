//! Every name a user can choose, registry by registry: what the Python package's
//! `flashlab.policies()` returns and `flashlab list` prints (the CLI adds the reproductions,
//! which live above the core in `flashlab-repro`). Built from the registries themselves, so a
//! policy added with its one registry line appears here too.

use crate::{buffer, ftl, host, presets, workload};

/// One registry: its title, the config key (or command) that chooses from it, its entries.
pub struct Registry {
    /// Short identifier (`mapping`, `gc`, `buffer`, ...).
    pub id: &'static str,
    /// Heading for people, naming where the choice is made.
    pub title: &'static str,
    /// (name, one-line description), in registry order.
    pub entries: Vec<(String, String)>,
}

fn reg<T>(id: &'static str, title: &'static str, items: &[T], f: impl Fn(&T) -> (String, String)) -> Registry {
    Registry { id, title, entries: items.iter().map(f).collect() }
}

/// All registries, in the order `flashlab list` shows them.
pub fn registries() -> Vec<Registry> {
    let mut generators = reg("workload", "workload generators ([workload] kind)", workload::gen::GENERATORS, |g| {
        (g.name.into(), g.about.into())
    });
    generators
        .entries
        .push(("trace".into(), "replay a trace file (path, format, device, time_scale, time_unit)".into()));
    vec![
        reg("mapping", "mapping schemes ([ftl] mapping)", ftl::MAPPINGS, |m| (m.name.into(), m.about.into())),
        reg("gc", "GC policies ([ftl] gc)", ftl::gc::GC_POLICIES, |g| (g.name.into(), g.about.into())),
        reg("gc_schedule", "GC schedules ([ftl] gc_schedule; page-mapped schemes)", ftl::schedule::GC_SCHEDULES, |s| {
            let default = if s.name == ftl::schedule::DEFAULT { " (default)" } else { "" };
            (s.name.into(), format!("{}{default}", s.about))
        }),
        reg("buffer", "buffer policies ([buffer] policy)", buffer::BUFFERS, |b| (b.name.into(), b.about.into())),
        reg("host", "host layers ([host] layer)", host::HOST_LAYERS, |h| (h.name.into(), h.about.into())),
        generators,
        reg("format", "trace formats ([workload] format, --format)", workload::trace::FORMATS, |f| {
            (f.name.into(), f.about.into())
        }),
        reg(
            "builtin",
            "built-in traces ([workload] path = \"builtin:NAME\")",
            workload::trace::builtin::BUILTINS,
            |b| (format!("{}{}", workload::trace::builtin::PREFIX, b.name), format!("{} ({})", b.about, b.format)),
        ),
        reg("preset", "presets (flashlab run NAME)", presets::PRESETS, |p| (p.name.into(), presets::about(p).into())),
    ]
}
