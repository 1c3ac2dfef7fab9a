//! Reading the small text files a run is given (a config, a results.json): bounded, so that a
//! device file or a runaway file is an error naming it rather than a process that reads until
//! memory runs out (`flashlab run /dev/zero` grew to 4 GB in 5 s). Traces are streamed and
//! are not read through here.

use std::io::Read;
use std::path::Path;

use crate::error::{Error, Location};

/// The largest config or results file read: 64 MiB (a config is a few KiB; the largest
/// results.json, with a long series, a few MiB).
pub const MAX_TEXT_BYTES: u64 = 64 << 20;

/// The text of `path`, a regular file of at most [`MAX_TEXT_BYTES`] holding UTF-8; `what` names
/// it in errors ("config", "results"). A directory, device, FIFO or socket is refused before
/// anything is read; a file that grows past the cap while being read is refused too.
pub fn read_text(path: &Path, what: &str) -> Result<String, Error> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let meta = file.metadata().map_err(|e| Error::io(path, e))?;
    let refuse = |msg: String| Error::input(Location::file(path), msg);
    if !meta.is_file() {
        return Err(refuse(format!("not a regular file (a {what} file is read whole; give a file)")));
    }
    if meta.len() > MAX_TEXT_BYTES {
        return Err(refuse(format!("{} bytes, over the {MAX_TEXT_BYTES}-byte limit of a {what} file", meta.len())));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(MAX_TEXT_BYTES + 1).read_to_end(&mut bytes).map_err(|e| Error::io(path, e))?;
    if bytes.len() as u64 > MAX_TEXT_BYTES {
        return Err(refuse(format!("grew past the {MAX_TEXT_BYTES}-byte limit of a {what} file while being read")));
    }
    String::from_utf8(bytes).map_err(|e| {
        refuse(format!(
            "not UTF-8 text (byte {} is not valid UTF-8): is this a {what} file?",
            e.utf8_error().valid_up_to()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_a_directory_and_an_oversized_file_are_refused_naming_them() {
        let dir = std::env::temp_dir().join(format!("flashlab-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let e = read_text(&dir, "config").unwrap_err().to_string();
        assert!(e.contains(&dir.display().to_string()) && e.contains("not a regular file"), "{e}");
        if Path::new("/dev/zero").exists() {
            let e = read_text(Path::new("/dev/zero"), "config").unwrap_err().to_string();
            assert!(e.starts_with("/dev/zero: not a regular file"), "{e}");
        }
        let big = dir.join("big.toml");
        let f = std::fs::File::create(&big).unwrap();
        f.set_len(MAX_TEXT_BYTES + 1).unwrap();
        let e = read_text(&big, "config").unwrap_err().to_string();
        assert!(e.contains("big.toml") && e.contains("over the 67108864-byte limit of a config file"), "{e}");
        let ok = dir.join("ok.toml");
        std::fs::write(&ok, "seed = 1\n").unwrap();
        assert_eq!(read_text(&ok, "config").unwrap(), "seed = 1\n");
        std::fs::write(&ok, b"\xff\xfe").unwrap();
        let e = read_text(&ok, "config").unwrap_err().to_string();
        assert!(e.contains("not UTF-8"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
