//! Presets shipped in `configs/`, embedded so `flashlab run NAME` works from any directory.

/// A config shipped with flashlab: its name and its TOML text.
pub struct Preset {
    /// Its name, the file stem in `configs/` (`flashlab run NAME`).
    pub name: &'static str,
    /// The TOML text, compiled in.
    pub text: &'static str,
}

macro_rules! preset {
    ($name:literal) => {
        Preset { name: $name, text: include_str!(concat!("../../../configs/", $name, ".toml")) }
    };
}

/// Every preset, in listing order.
pub const PRESETS: &[Preset] = &[
    preset!("default"),
    preset!("trace"),
    preset!("femu-8gb"),
    preset!("femu-10gb"),
    preset!("wadpm-4gb"),
    preset!("dwb-64gb"),
    preset!("bench-accounting"),
    preset!("bench-timing"),
];

/// First line of a preset that starts with `# ` (its description).
pub fn about(p: &Preset) -> &'static str {
    p.text.lines().next().and_then(|l| l.strip_prefix("# ")).unwrap_or("")
}

/// The preset called `name`, if any.
pub fn find(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name)
}
