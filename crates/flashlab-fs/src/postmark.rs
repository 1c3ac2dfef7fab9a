//! Postmark (J. Katcher, "PostMark: A New File System Benchmark", NetApp TR3022, 1997) driving a
//! [`FatFs`] through its public API, plus the defragmentation paper's fragmentation step
//! ([`fragment`]).
//!
//! Owns: the benchmark's one random number generator, its model of the live files (id → size;
//! contents are a function of (file id, offset), see [`file_data`]) and its counters.
//!
//! Semantics are postmark.c's (v1.51, which Debian's `postmark` 1.53 binary reports, and v1.54 at
//! github.com/milesd/postmark; behaviour read from the source, not its code):
//! - set-up: `initial_files` files, each `min_size + RND(max_size - min_size)` bytes — uniform in
//!   `[min_size, max_size)` (`RND(x)` is uniform in `[0, x)`, 0 when `x` is 0);
//! - a transaction has two parts, in this order: read-or-append (read when `RND(10) <
//!   read_bias`), then create-or-delete (create when `RND(10) < create_bias`); a bias of -1 skips
//!   its part; files are picked uniformly among the live ones;
//! - read: the whole file, `read_block` bytes per call (the last call shorter);
//! - append: only to a file below `max_size` (otherwise nothing happens and nothing is counted):
//!   `RND(max_size - size) + 1` bytes, so a file grows to at most `max_size`;
//! - every write (creation or append) goes in `write_block` calls, the last one shorter;
//! - create: skipped, uncounted, when `2 * initial_files` files are live (postmark's file table);
//! - a transaction starts only while some file is live ("out of files!" ends the run early);
//! - at the end every remaining file is deleted (here in creation order; postmark: table order).
//!
//! Random draws, in order: per set-up or created file its size; per transaction
//! `RND(10)` and the file (then, for an append below the maximum, its size) when read_bias is not
//! -1, then `RND(10)` and the new file's size or the file to delete when create_bias is not -1.
//! Same seed and configuration → the same operations, report and disk image.
//!
//! Fault model: an invalid configuration is an [`Error::Config`]; a file-system error (a full
//! volume included) ends the run with that error, the file it concerned closed.

use std::collections::BTreeMap;

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::blockdev::BlockDevice;
use crate::fat::{FatFs, Fd};
use flashlab::error::Error;

/// File ids are the 7 digits of an 8.3 name (`P0000001.DAT`).
const MAX_FILE_ID: u64 = 9_999_999;
/// Largest read or write block (bytes): one buffer of this size is allocated.
const MAX_BLOCK_BYTES: u32 = 16 << 20;

/// Postmark's parameters. The defaults are the defragmentation paper's Table 1 (500 files,
/// 1,000 transactions, 0.5–10 KB, both biases 5) with postmark's 512-byte blocks and seed 42.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PostmarkConfig {
    /// Files created before the transactions (`set number`).
    pub initial_files: u32,
    pub transactions: u32,
    /// Smallest size of a new file, bytes (`set size MIN MAX`).
    pub min_size: u32,
    /// Bound of a new file's size (exclusive) and of growth by appends (inclusive), bytes.
    pub max_size: u32,
    /// Read rather than append with probability `read_bias / 10`; 0..=10, or -1 to skip the
    /// read/append part of every transaction.
    pub read_bias: i8,
    /// Create rather than delete with probability `create_bias / 10`; 0..=10, or -1 to skip.
    pub create_bias: i8,
    /// Bytes per read call.
    pub read_block: u32,
    /// Bytes per write call.
    pub write_block: u32,
    /// Delete the remaining files at the end (postmark always does).
    pub delete_at_end: bool,
    pub seed: u64,
    /// Directory of the files (created when missing; its parent must exist).
    pub dir: String,
}

impl Default for PostmarkConfig {
    fn default() -> Self {
        PostmarkConfig {
            initial_files: 500,
            transactions: 1000,
            min_size: 512,
            max_size: 10240,
            read_bias: 5,
            create_bias: 5,
            read_block: 512,
            write_block: 512,
            delete_at_end: true,
            seed: 42,
            dir: "/PM".into(),
        }
    }
}

impl PostmarkConfig {
    pub fn validate(&self) -> Result<(), Error> {
        let bad = |key: &str, msg: String| Err(Error::config(format!("postmark.{key}"), msg));
        if self.initial_files == 0 {
            return bad("initial_files", "must be at least 1 (postmark starts from a pool of files)".into());
        }
        if self.min_size == 0 || self.min_size > self.max_size {
            return bad(
                "min_size",
                format!("need 1 <= min_size <= max_size, got {} and {}", self.min_size, self.max_size),
            );
        }
        for (key, bias) in [("read_bias", self.read_bias), ("create_bias", self.create_bias)] {
            if !(-1..=10).contains(&bias) {
                return bad(key, format!("{bias} is not in 0..=10 (or -1 to disable)"));
            }
        }
        for (key, block) in [("read_block", self.read_block), ("write_block", self.write_block)] {
            if block == 0 || block > MAX_BLOCK_BYTES {
                return bad(key, format!("{block} bytes is not in 1..={MAX_BLOCK_BYTES}"));
            }
        }
        let ids = self.initial_files as u64 + self.transactions as u64;
        if ids > MAX_FILE_ID {
            return bad(
                "transactions",
                format!("initial_files + transactions = {ids} could exceed the {MAX_FILE_ID} names P0000001.DAT.."),
            );
        }
        Ok(())
    }
}

/// Called by [`run_postmark`]; every method has a default that does nothing.
pub trait PostmarkHooks<D: BlockDevice> {
    /// After a file was closed (following its creation, a read or an append), with its path.
    fn after_close(&mut self, _fs: &mut FatFs<D>, _path: &str) -> Result<(), Error> {
        Ok(())
    }
}

/// No hooks.
pub struct NoHooks;
impl<D: BlockDevice> PostmarkHooks<D> for NoHooks {}

/// What a run did: postmark's own counts, plus what it skipped and a read-back check.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PostmarkReport {
    /// Transactions run (fewer than configured only when no file was left).
    pub transactions_run: u64,
    pub files_created_initial: u64,
    pub files_created_in_transactions: u64,
    pub files_deleted_in_transactions: u64,
    pub files_deleted_at_end: u64,
    pub files_read: u64,
    pub files_appended: u64,
    /// Creates skipped because `2 * initial_files` files were live.
    pub creates_skipped: u64,
    /// Appends skipped because the file had reached `max_size`.
    pub appends_skipped: u64,
    /// Whole files read.
    pub bytes_read: u64,
    /// Creations and appends.
    pub bytes_written: u64,
    /// Of `bytes_written`, by appends.
    pub bytes_appended: u64,
    /// Files read whose bytes differed from the model (0 unless the file system or a hook is wrong).
    pub read_mismatches: u64,
    /// Files live after the transactions, before the end phase.
    pub files_live_before_end: u64,
    /// Path → contents of every file left (empty when `delete_at_end`).
    pub live_files: BTreeMap<String, Vec<u8>>,
}

impl PostmarkReport {
    pub fn files_created(&self) -> u64 {
        self.files_created_initial + self.files_created_in_transactions
    }
    pub fn files_deleted(&self) -> u64 {
        self.files_deleted_in_transactions + self.files_deleted_at_end
    }
}

/// The contents of file `id` at bytes `offset .. offset + len`: a hash of (id, offset), so the
/// model keeps only sizes.
pub fn file_data(id: u64, offset: u64, len: usize) -> Vec<u8> {
    // Byte `o` is byte `o % 8` (little-endian) of the hash of (id, o / 8): one hash per word.
    let mut out = Vec::with_capacity(len);
    let end = offset + len as u64;
    let mut o = offset;
    while o < end {
        let word = mix64((id << 40) ^ (o >> 3)).to_le_bytes();
        let next = ((o | 7) + 1).min(end);
        out.extend_from_slice(&word[(o & 7) as usize..][..(next - o) as usize]);
        o = next;
    }
    out
}

/// splitmix64's finalizer (a bijection).
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn file_path(dir: &str, prefix: char, id: u64) -> String {
    assert!((1..=MAX_FILE_ID).contains(&id), "file id {id} outside the 8.3 name range");
    format!("{}/{prefix}{id:07}.DAT", dir.trim_end_matches('/'))
}

/// Make sure `dir` is a directory, creating it when missing.
fn ensure_dir<D: BlockDevice>(fs: &mut FatFs<D>, dir: &str) -> Result<(), Error> {
    match fs.stat(dir) {
        Ok(info) if info.is_dir => Ok(()),
        Ok(_) => Err(Error::config("postmark.dir", format!("`{dir}` is a file, not a directory"))),
        Err(_) => fs.mkdir(dir),
    }
}

/// Run Postmark on `fs` in `cfg.dir`, calling `hooks` after every close.
pub fn run_postmark<D, H>(fs: &mut FatFs<D>, cfg: &PostmarkConfig, hooks: &mut H) -> Result<PostmarkReport, Error>
where
    D: BlockDevice,
    H: PostmarkHooks<D> + ?Sized,
{
    cfg.validate()?;
    ensure_dir(fs, &cfg.dir)?;
    let mut run = Run {
        fs,
        cfg,
        hooks,
        rng: Xoshiro256PlusPlus::seed_from_u64(cfg.seed),
        live: Vec::new(),
        next_id: 1,
        report: PostmarkReport::default(),
    };
    for _ in 0..cfg.initial_files {
        let created = run.create()?;
        assert!(created, "the set-up never fills the 2 x initial_files table");
        run.report.files_created_initial += 1;
    }
    for _ in 0..cfg.transactions {
        if run.live.is_empty() {
            break;
        }
        run.transaction()?;
        run.report.transactions_run += 1;
    }
    run.finish()
}

struct LiveFile {
    id: u64,
    size: u32,
}

struct Run<'a, D: BlockDevice, H: PostmarkHooks<D> + ?Sized> {
    fs: &'a mut FatFs<D>,
    cfg: &'a PostmarkConfig,
    hooks: &'a mut H,
    rng: Xoshiro256PlusPlus,
    /// Live files; picks index this vector, deletes `swap_remove` from it.
    live: Vec<LiveFile>,
    next_id: u64,
    report: PostmarkReport,
}

impl<D: BlockDevice, H: PostmarkHooks<D> + ?Sized> Run<'_, D, H> {
    /// Postmark's `RND(n)`: uniform in `[0, n)`, 0 when `n` is 0 (widening multiply).
    fn rnd(&mut self, n: u64) -> u64 {
        ((self.rng.next_u64() as u128 * n as u128) >> 64) as u64
    }

    fn pick(&mut self) -> usize {
        assert!(!self.live.is_empty(), "a file is picked only while some are live");
        self.rnd(self.live.len() as u64) as usize
    }

    fn path(&self, id: u64) -> String {
        file_path(&self.cfg.dir, 'P', id)
    }

    fn transaction(&mut self) -> Result<(), Error> {
        if self.cfg.read_bias >= 0 {
            let read = self.rnd(10) < self.cfg.read_bias as u64;
            let i = self.pick();
            if read {
                self.read(i)?;
            } else {
                self.append(i)?;
            }
        }
        if self.cfg.create_bias >= 0 {
            if self.rnd(10) < self.cfg.create_bias as u64 {
                if self.create()? {
                    self.report.files_created_in_transactions += 1;
                } else {
                    self.report.creates_skipped += 1;
                }
            } else {
                let i = self.pick();
                let f = self.live.swap_remove(i);
                self.fs.delete(&self.path(f.id))?;
                self.report.files_deleted_in_transactions += 1;
            }
        }
        Ok(())
    }

    /// Create a file of a random size; `false` when postmark's table is full.
    fn create(&mut self) -> Result<bool, Error> {
        if self.live.len() as u64 >= 2 * self.cfg.initial_files as u64 {
            return Ok(false);
        }
        let (lo, hi) = (self.cfg.min_size as u64, self.cfg.max_size as u64);
        let size = (lo + self.rnd(hi - lo)) as u32;
        let id = self.next_id;
        self.next_id += 1;
        let path = self.path(id);
        let fd = self.fs.create(&path)?;
        let written = self.write_blocks(fd, id, 0, size);
        self.fs.close(fd)?;
        written?;
        self.live.push(LiveFile { id, size });
        self.report.bytes_written += size as u64;
        self.hooks.after_close(self.fs, &path)?;
        Ok(true)
    }

    /// Write file `id`'s bytes `offset .. offset + len` at the end of `fd`, a write block per call.
    fn write_blocks(&mut self, fd: Fd, id: u64, offset: u32, len: u32) -> Result<(), Error> {
        let end = offset as u64 + len as u64;
        let mut at = offset as u64;
        while at < end {
            let n = (end - at).min(self.cfg.write_block as u64) as usize;
            self.fs.append(fd, &file_data(id, at, n))?;
            at += n as u64;
        }
        Ok(())
    }

    fn append(&mut self, i: usize) -> Result<(), Error> {
        let (id, size) = (self.live[i].id, self.live[i].size);
        if size >= self.cfg.max_size {
            self.report.appends_skipped += 1;
            return Ok(());
        }
        let n = (self.rnd((self.cfg.max_size - size) as u64) + 1) as u32;
        let path = self.path(id);
        let fd = self.fs.open(&path)?;
        let written = self.write_blocks(fd, id, size, n);
        self.fs.close(fd)?;
        written?;
        self.live[i].size = size + n;
        self.report.files_appended += 1;
        self.report.bytes_written += n as u64;
        self.report.bytes_appended += n as u64;
        self.hooks.after_close(self.fs, &path)
    }

    /// Read the whole file, a read block per call, and compare it with the model.
    fn read(&mut self, i: usize) -> Result<(), Error> {
        let (id, size) = (self.live[i].id, self.live[i].size as u64);
        let path = self.path(id);
        let fd = self.fs.open(&path)?;
        let mut buf = vec![0u8; self.cfg.read_block as usize];
        let mut at = 0u64;
        let mut same = true;
        let result = loop {
            if at >= size {
                break Ok(());
            }
            let want = (size - at).min(buf.len() as u64) as usize;
            match self.fs.read(fd, &mut buf[..want]) {
                Ok(n) => {
                    same &= n == want && buf[..n] == file_data(id, at, n)[..];
                    if n == 0 {
                        break Ok(());
                    }
                    at += n as u64;
                }
                Err(e) => break Err(e),
            }
        };
        self.fs.close(fd)?;
        result?;
        self.report.read_mismatches += u64::from(!same || at != size);
        self.report.files_read += 1;
        self.report.bytes_read += size;
        self.hooks.after_close(self.fs, &path)
    }

    fn finish(mut self) -> Result<PostmarkReport, Error> {
        self.report.files_live_before_end = self.live.len() as u64;
        self.live.sort_by_key(|f| f.id);
        if self.cfg.delete_at_end {
            for f in std::mem::take(&mut self.live) {
                self.fs.delete(&self.path(f.id))?;
                self.report.files_deleted_at_end += 1;
            }
        } else {
            for f in &self.live {
                self.report.live_files.insert(self.path(f.id), file_data(f.id, 0, f.size as usize));
            }
        }
        let r = self.report;
        assert_eq!(
            r.files_created() - r.files_deleted_in_transactions,
            r.files_live_before_end,
            "every created file is live or deleted"
        );
        Ok(r)
    }
}

/// What [`fragment`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FragmentReport {
    pub files_created: u64,
    /// The odd-numbered ones.
    pub files_deleted: u64,
    pub file_size: u32,
    /// Free clusters when the volume was full (fewer than one file needs).
    pub free_clusters_at_full: u32,
    /// Free clusters after the deletions.
    pub free_clusters_after: u32,
    /// The last file was created but its data no longer fitted (the directory had grown into
    /// the clusters it needed), so it was deleted again; it is not counted as created.
    pub partial_file_removed: bool,
}

/// The fragmentation step: fill the volume with `file_size`-byte files `F0000001.DAT`, … in
/// `dir` (created when missing; use a subdirectory, FAT16's root holds few entries), then delete
/// the odd-numbered ones, so free space is spread in holes between the remaining files.
/// The volume is full when fewer clusters are free than a file needs; a file whose data no longer
/// fits (its directory took the last clusters) is deleted, not left half-created.
pub fn fragment<D: BlockDevice>(fs: &mut FatFs<D>, dir: &str, file_size: u32) -> Result<FragmentReport, Error> {
    fragment_leaving(fs, dir, file_size, 0)
}

/// [`fragment`], but the volume counts as full while `leave_free` clusters (plus less than one
/// file) are still free: that much free space stays unfragmented.
pub fn fragment_leaving<D: BlockDevice>(
    fs: &mut FatFs<D>,
    dir: &str,
    file_size: u32,
    leave_free: u32,
) -> Result<FragmentReport, Error> {
    if file_size == 0 {
        return Err(Error::config("fragment.file_size", "must be at least 1 byte (empty files never fill a volume)"));
    }
    ensure_dir(fs, dir)?;
    let need = (file_size as u64).div_ceil(fs.cluster_bytes() as u64) as u32;
    let mut created = 0u64;
    let mut partial_file_removed = false;
    while fs.free_clusters() >= need.saturating_add(leave_free) {
        let id = created + 1;
        if id > MAX_FILE_ID {
            return Err(Error::config(
                "fragment.file_size",
                format!("{file_size}-byte files need more than {MAX_FILE_ID} names to fill the volume"),
            ));
        }
        let path = file_path(dir, 'F', id);
        // At least `need` >= 1 clusters are free, so a directory growth in `create` fits.
        let fd = fs.create(&path)?;
        let written = fs.write(fd, &file_data(id, 0, file_size as usize));
        fs.close(fd)?;
        if let Err(e) = written {
            if fs.free_clusters() < need {
                fs.delete(&path)?;
                partial_file_removed = true;
                break;
            }
            return Err(e);
        }
        created += 1;
    }
    let free_clusters_at_full = fs.free_clusters();
    let mut deleted = 0u64;
    for id in (1..=created).step_by(2) {
        fs.delete(&file_path(dir, 'F', id))?;
        deleted += 1;
    }
    Ok(FragmentReport {
        files_created: created,
        files_deleted: deleted,
        file_size,
        free_clusters_at_full,
        free_clusters_after: fs.free_clusters(),
        partial_file_removed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word-at-a-time `file_data` gives each byte its definition: byte `o % 8` of the hash
    /// of (id, o / 8), at every alignment of offset and length.
    #[test]
    fn file_data_is_its_bytewise_definition() {
        let byte = |id: u64, o: u64| (mix64((id << 40) ^ (o >> 3)) >> ((o & 7) * 8)) as u8;
        for id in [1u64, 7, MAX_FILE_ID] {
            for offset in 0..20u64 {
                for len in 0..40usize {
                    let want: Vec<u8> = (offset..offset + len as u64).map(|o| byte(id, o)).collect();
                    assert_eq!(file_data(id, offset, len), want, "id {id} offset {offset} len {len}");
                }
            }
        }
        assert_eq!(file_data(3, 4093, 10_000).len(), 10_000);
    }
}
