//! Paths and 8.3 short names. Only upper-case short names are accepted (no long-file-name
//! entries are written); a bad name is an error naming the whole path.

use flashlab::error::{Error, Location};

/// Characters allowed in a short name besides A-Z and 0-9 (FAT spec, section 6.1).
const SPECIAL: &[u8] = b"!#$%&'()-@^_`{}~";

pub(crate) fn path_err(path: &str, msg: impl Into<String>) -> Error {
    Error::input(Location::file(path), msg)
}

/// "NAME.EXT" → the 11-byte directory form "NAME    EXT".
pub(crate) fn to_short(path: &str, comp: &str) -> Result<[u8; 11], Error> {
    let bad = |why: &str| path_err(path, format!("invalid 8.3 name `{comp}`: {why}"));
    let (base, ext) = match comp.split_once('.') {
        Some((b, e)) => (b, e),
        None => (comp, ""),
    };
    if base.is_empty() || base.len() > 8 {
        return Err(bad("the name needs 1 to 8 characters before the dot"));
    }
    if ext.len() > 3 || ext.contains('.') {
        return Err(bad("the extension is at most 3 characters after a single dot"));
    }
    if comp.ends_with('.') {
        return Err(bad("a dot must be followed by an extension"));
    }
    if let Some(ch) =
        comp.bytes().find(|&b| b != b'.' && !(b.is_ascii_uppercase() || b.is_ascii_digit() || SPECIAL.contains(&b)))
    {
        return Err(bad(&format!(
            "character `{}` not allowed (use A-Z, 0-9 or {})",
            ch as char,
            std::str::from_utf8(SPECIAL).unwrap()
        )));
    }
    let mut out = [b' '; 11];
    out[..base.len()].copy_from_slice(base.as_bytes());
    out[8..8 + ext.len()].copy_from_slice(ext.as_bytes());
    Ok(out)
}

/// The 11-byte form back to "NAME.EXT".
pub(crate) fn from_short(raw: &[u8; 11]) -> String {
    let base = String::from_utf8_lossy(&raw[..8]).trim_end().to_string();
    let ext = String::from_utf8_lossy(&raw[8..]).trim_end().to_string();
    if ext.is_empty() {
        base
    } else {
        format!("{base}.{ext}")
    }
}

/// Split an absolute path into validated short names ("/" → none).
pub(crate) fn split(path: &str) -> Result<Vec<[u8; 11]>, Error> {
    let rest = path.strip_prefix('/').ok_or_else(|| path_err(path, "paths must be absolute (start with `/`)"))?;
    if rest.is_empty() {
        return Ok(Vec::new());
    }
    rest.split('/')
        .map(|c| if c.is_empty() { Err(path_err(path, "empty path component")) } else { to_short(path, c) })
        .collect()
}

/// A volume label: up to 11 upper-case short-name characters or spaces, padded.
pub(crate) fn label(label: &str) -> Result<[u8; 11], Error> {
    let bad = |m: &str| Error::config("fs.format.label", format!("`{label}`: {m}"));
    if label.len() > 11 {
        return Err(bad("at most 11 characters"));
    }
    if label.bytes().any(|b| !(b == b' ' || b.is_ascii_uppercase() || b.is_ascii_digit() || SPECIAL.contains(&b))) {
        return Err(bad("use A-Z, 0-9, space or short-name punctuation"));
    }
    let mut out = *b"NO NAME    ";
    if !label.trim().is_empty() {
        out = [b' '; 11];
        out[..label.len()].copy_from_slice(label.as_bytes());
    }
    Ok(out)
}
