//! Presets shipped in `configs/`, embedded so `flashlab run NAME` works from any directory.

pub struct Preset {
    pub name: &'static str,
    pub text: &'static str,
}

macro_rules! preset {
    ($name:literal) => {
        Preset { name: $name, text: include_str!(concat!("../../../configs/", $name, ".toml")) }
    };
}

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

pub fn find(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name)
}
