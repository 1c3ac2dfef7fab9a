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

impl From<crate::registry::Listing> for Registry {
    fn from(l: crate::registry::Listing) -> Self {
        Registry {
            id: l.id,
            title: l.title,
            entries: l.entries.into_iter().map(|(name, about, _)| (name.into(), about.into())).collect(),
        }
    }
}

fn reg<T>(id: &'static str, title: &'static str, items: &[T], f: impl Fn(&T) -> (String, String)) -> Registry {
    Registry { id, title, entries: items.iter().map(f).collect() }
}

/// All registries, in the order `flashlab list` shows them.
pub fn registries() -> Vec<Registry> {
    let mut generators = Registry::from(workload::gen::GENERATORS.listing());
    generators
        .entries
        .push(("trace".into(), "replay a trace file (path, format, device, time_scale, time_unit, repeat)".into()));
    generators.entries.push((workload::gen::STREAMS.into(), workload::gen::STREAMS_ABOUT.into()));
    let mut schedules = Registry::from(ftl::schedule::GC_SCHEDULES.listing());
    for (name, about) in &mut schedules.entries {
        if name == ftl::schedule::DEFAULT {
            about.push_str(" (default)");
        }
    }
    vec![
        ftl::MAPPINGS.listing().into(),
        ftl::gc::GC_POLICIES.listing().into(),
        schedules,
        buffer::BUFFERS.listing().into(),
        host::HOST_LAYERS.listing().into(),
        host::placement::PLACEMENTS.listing().into(),
        generators,
        workload::trace::FORMATS.listing().into(),
        reg(
            "builtin",
            "built-in traces ([workload] path = \"builtin:NAME\")",
            workload::trace::builtin::BUILTINS,
            |b| (format!("{}{}", workload::trace::builtin::PREFIX, b.name), format!("{} ({})", b.about, b.format)),
        ),
        reg("preset", "presets (flashlab run NAME)", presets::PRESETS, |p| (p.name.into(), presets::about(p).into())),
    ]
}
