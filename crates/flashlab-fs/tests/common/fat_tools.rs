//! Shared by the FAT tests: the real dosfstools / mtools binaries, temp files, and strict
//! `fsck.fat -n` checking. Missing tools skip the checks with a message recorded in the skip
//! log (see `skip.rs`), unless `FLASHLAB_REQUIRE_FAT_TOOLS` is set (CI), where a missing tool
//! fails the test.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

pub struct Tools {
    pub fsck: PathBuf,
    pub mkfs: PathBuf,
    pub mdir: PathBuf,
    pub mcopy: PathBuf,
}

pub fn find_tool(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/sbin", "/usr/bin"].map(PathBuf::from))
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// `name`, or `None` with a message; a failure instead when `require_var` is set.
pub fn tool(name: &str, require_var: &str, package: &str, why: &str) -> Option<PathBuf> {
    let found = find_tool(name);
    if found.is_none() {
        assert!(
            std::env::var_os(require_var).is_none(),
            "{require_var} is set but `{name}` is not installed ({package})"
        );
        super::skip::skipped(why, &format!("`{name}` not found (install {package})"));
    }
    found
}

/// The tools, or `None` with a message saying which is missing (`why` names the skipped part).
pub fn tools(why: &str) -> Option<Tools> {
    let found: Vec<_> = ["fsck.fat", "mkfs.fat", "mdir", "mcopy"].iter().map(|n| (n, find_tool(n))).collect();
    if let Some((n, _)) = found.iter().find(|(_, p)| p.is_none()) {
        assert!(
            std::env::var_os("FLASHLAB_REQUIRE_FAT_TOOLS").is_none(),
            "FLASHLAB_REQUIRE_FAT_TOOLS is set but `{n}` is not installed (dosfstools, mtools)"
        );
        super::skip::skipped(why, &format!("`{n}` not found (install dosfstools and mtools)"));
        return None;
    }
    let mut it = found.into_iter().map(|(_, p)| p.unwrap());
    Some(Tools {
        fsck: it.next().unwrap(),
        mkfs: it.next().unwrap(),
        mdir: it.next().unwrap(),
        mcopy: it.next().unwrap(),
    })
}

pub fn tmp(tag: &str) -> PathBuf {
    static N: AtomicU32 = AtomicU32::new(0);
    std::env::temp_dir().join(format!(
        "flashlab-fat-{}-{}-{tag}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ))
}

pub fn run(cmd: &mut Command) -> (bool, String) {
    let out = cmd.env("MTOOLS_SKIP_CHECK", "1").output().expect("spawn tool");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

/// Write `image` to a temp file and assert `fsck.fat -n` finds nothing; returns the file.
/// `fsck.fat -n` exits 0 even after reporting some errors (it changes nothing), so every
/// output line must be one of the clean ones; "free cluster summary uninitialized" is clean
/// (FSInfo's count is optional, see `flashlab_fs::fat`).
pub fn fsck_ok(t: &Tools, image: &[u8], tag: &str) -> PathBuf {
    assert_fat_copies_equal(image, tag);
    let path = tmp(&format!("{tag}.img"));
    std::fs::write(&path, image).unwrap();
    let (ok, text) = run(Command::new(&t.fsck).arg("-n").arg(&path));
    let clean = |l: &str| {
        l.starts_with("fsck.fat ") || l.contains(" files, ") || l.starts_with("Free cluster summary uninitialized")
    };
    assert!(ok && text.lines().all(clean), "fsck.fat -n reports problems on {tag} ({}):\n{text}", path.display());
    path
}

/// Every FAT copy holds the same bytes (fsck.fat only warns about a difference).
pub fn assert_fat_copies_equal(image: &[u8], tag: &str) {
    let u16_at = |o: usize| u16::from_le_bytes([image[o], image[o + 1]]) as usize;
    let bps = u16_at(11);
    let fats = image[16] as usize;
    let fat_sectors =
        if u16_at(22) != 0 { u16_at(22) } else { u32::from_le_bytes(image[36..40].try_into().unwrap()) as usize };
    let first = u16_at(14) * bps;
    let len = fat_sectors * bps;
    for k in 1..fats {
        assert!(
            image[first..first + len] == image[first + k * len..first + (k + 1) * len],
            "{tag}: FAT copy {} differs from copy 1",
            k + 1
        );
    }
}

pub fn mcopy_bytes(t: &Tools, img: &Path, fat_path: &str) -> Vec<u8> {
    let out = tmp("mcopy.out");
    let (ok, text) = run(Command::new(&t.mcopy).arg("-n").arg("-i").arg(img).arg(format!("::{fat_path}")).arg(&out));
    assert!(ok, "mcopy {fat_path} failed: {text}");
    let bytes = std::fs::read(&out).unwrap();
    std::fs::remove_file(&out).ok();
    bytes
}

pub fn mdir(t: &Tools, img: &Path, dir: &str) -> String {
    let (ok, text) = run(Command::new(&t.mdir).arg("-i").arg(img).arg(format!("::{dir}")));
    assert!(ok, "mdir {dir} failed: {text}");
    text
}

/// A whole file read back through the file system in `chunk`-byte reads.
pub fn read_all<D: flashlab_fs::BlockDevice>(fs: &mut flashlab_fs::FatFs<D>, path: &str, chunk: usize) -> Vec<u8> {
    let fd = fs.open(path).unwrap();
    let mut out = Vec::new();
    let mut buf = vec![0u8; chunk];
    loop {
        let n = fs.read(fd, &mut buf).unwrap();
        if n == 0 {
            break;
        }
        out.extend_from_slice(&buf[..n]);
    }
    fs.close(fd).unwrap();
    out
}
