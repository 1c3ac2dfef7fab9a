//! Output files, written so that a run either replaces its outputs whole or leaves them as they
//! were:
//! - every file is first written to a temporary name in its own directory (so the final step is
//!   a rename on one file system) and renamed over its target only once every file of the
//!   command has been written ([`Staged`]); a full disk or an error leaves the earlier files
//!   untouched and no temporary behind;
//! - Ctrl-C ends the program at once, deleting the temporaries staged so far, except while the
//!   renames run, when it waits for them ([`on_interrupt`]); either way no output is
//!   half-replaced;
//! - a directory that already holds results is refused unless `--force` is given
//!   ([`refuse_overwrite`]);
//! - one command at a time writes into an output directory: [`OutDir`] holds an exclusive
//!   advisory lock (`.flashlab-lock`, holding the writer's pid) for the whole command, and a
//!   second writer is refused naming the holder;
//! - the renames are all-or-nothing: a rename that fails puts back every file already replaced
//!   ([`Staged::commit`]), so a directory never mixes two runs' files;
//! - an output directory the command created is removed again if the command fails or is
//!   interrupted before anything is written into it ([`OutDir`]).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use anyhow::{Context, Result};

/// Set while [`Staged::commit`] renames: Ctrl-C then waits for the renames to finish.
static COMMITTING: AtomicBool = AtomicBool::new(false);
/// Ctrl-C arrived during the renames: exit once they are done.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Temporaries staged and not yet renamed, for Ctrl-C to delete (the handler runs on a thread
/// of its own and exits the process, so no destructor would).
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Output directories this command created and has not kept, for Ctrl-C to remove when they
/// are still empty.
static CREATED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Lock files this command holds, for Ctrl-C to remove (the lock itself goes with the process).
static LOCKS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The lock file [`OutDir`] takes in an output directory.
pub const LOCK_FILE: &str = ".flashlab-lock";

/// Exit status after Ctrl-C (128 + SIGINT, as shells report it).
pub const INTERRUPTED_STATUS: i32 = 130;

/// Where a reproduction keeps finished runs, said on Ctrl-C ([`keep_runs_in`]).
static KEPT_RUNS: Mutex<Option<PathBuf>> = Mutex::new(None);

/// A reproduction keeps each finished run's results in `dir` (resumable): Ctrl-C says so.
pub fn keep_runs_in(dir: &Path) {
    if let Ok(mut k) = KEPT_RUNS.lock() {
        *k = Some(dir.to_path_buf());
    }
}

/// Install the handler for Ctrl-C, and for SIGTERM and SIGHUP alike (`kill`, a closed terminal):
/// outside the renames of [`Staged::commit`] the program stops at once, saying that nothing was
/// written (outputs are renamed into place only at the very end, so every earlier file is as it
/// was).
pub fn on_interrupt() {
    let installed = ctrlc::set_handler(|| {
        // The registries stay locked until the process exits: the main thread, still running,
        // creates temporaries, lock files and directories only while holding the registry's
        // lock (and registers them before letting go), so none appears after the sweep below.
        // The commit sets COMMITTING under PENDING's lock, so the two cannot interleave.
        let pending = registry(&PENDING);
        if COMMITTING.load(Ordering::SeqCst) {
            INTERRUPTED.store(true, Ordering::SeqCst);
            return;
        }
        sweep_and_exit(pending, INTERRUPTED_STATUS, true);
    });
    // Without a handler Ctrl-C still stops the program before any rename (the default action):
    // the guarantee holds, only the message is lost.
    if let Err(e) = installed {
        eprintln!("warning: cannot handle Ctrl-C ({e}); it will stop the program without a message");
    }
}

/// End the program now with `code` (a closed stdout, say), leaving what an interrupt leaves:
/// no temporary, no lock file, no empty directory this command created, earlier files as they
/// were. Not for use during [`Staged::commit`].
pub fn exit_now(code: i32) -> ! {
    sweep_and_exit(registry(&PENDING), code, false)
}

/// Delete the staged temporaries, the lock files and the empty directories this command
/// created, then exit with `code`, keeping every registry locked until the exit; `interrupted`:
/// say so on stderr.
fn sweep_and_exit(pending: std::sync::MutexGuard<'static, Vec<PathBuf>>, code: i32, interrupted: bool) -> ! {
    for tmp in pending.iter() {
        let _ = std::fs::remove_file(tmp);
    }
    let locks = registry(&LOCKS);
    for lock in locks.iter() {
        let _ = std::fs::remove_file(lock);
    }
    let created = registry(&CREATED);
    created.iter().for_each(|d| remove_if_empty(d));
    if interrupted {
        eprintln!("\ninterrupted: no output was written; files from earlier runs are untouched");
        if let Some(dir) = KEPT_RUNS.lock().ok().and_then(|k| k.clone()) {
            eprintln!(
                "the simulations that finished are kept in {}: the same command resumes from them",
                dir.display()
            );
        }
    }
    std::process::exit(code)
}

/// One of the registries above, locked (a panic elsewhere does not stop the cleanup).
fn registry(m: &'static Mutex<Vec<PathBuf>>) -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Refuse to write into `dir` when it already holds any of `names` (results of an earlier run),
/// unless `force`.
pub fn refuse_overwrite(dir: &Path, names: &[String], force: bool) -> Result<()> {
    if force {
        return Ok(());
    }
    let present: Vec<&str> = names.iter().filter(|n| dir.join(n).exists()).map(String::as_str).collect();
    if present.is_empty() {
        return Ok(());
    }
    anyhow::bail!(
        "{} already holds results of an earlier run ({}); pass --force to replace them, or choose another --out",
        dir.display(),
        present.join(", ")
    )
}

/// An output directory, created (with any missing parents) for a command that writes into it,
/// and locked for that command: while an `OutDir` lives, another flashlab asking for the same
/// directory is refused. Unless [`OutDir::keep`] is called, dropping it removes what it
/// created, if nothing but empty directories is left in it: a failed run leaves no empty
/// directory behind.
pub struct OutDir {
    /// The topmost directory created, if any.
    created: Option<PathBuf>,
    /// The lock: the open lock file and its path.
    lock: Option<(std::fs::File, PathBuf)>,
}

impl OutDir {
    /// Create `dir` if missing and take its lock; refused if another process holds it.
    pub fn create(dir: &Path) -> Result<OutDir> {
        let top =
            dir.ancestors().take_while(|a| !a.as_os_str().is_empty() && !a.exists()).last().map(Path::to_path_buf);
        {
            // Created and registered under the registry's lock (see `on_interrupt`).
            let mut created = registry(&CREATED);
            std::fs::create_dir_all(dir).with_context(|| format!("creating output directory {}", dir.display()))?;
            if let Some(t) = &top {
                created.push(t.clone());
            }
        }
        let mut out = OutDir { created: top, lock: None };
        // On an error `out` is dropped, removing a directory just created.
        out.lock = Some(lock(dir)?);
        Ok(out)
    }

    /// The command wrote its outputs: the directory stays (and its lock is released).
    pub fn keep(mut self) {
        self.unlock();
        self.forget();
    }

    fn unlock(&mut self) {
        if let Some((file, path)) = self.lock.take() {
            // Removed while still locked: a process that opened the old file and then gets its
            // lock sees that the path no longer names it, and starts again ([`lock`]). Under the
            // registry's lock, so a signal cannot remove the path again once another process
            // has made a new lock file there.
            let mut locks = registry(&LOCKS);
            let _ = std::fs::remove_file(&path);
            locks.retain(|l| *l != path);
            drop(file);
        }
    }

    fn forget(&mut self) {
        if let Some(t) = self.created.take() {
            registry(&CREATED).retain(|d| *d != t);
        }
    }
}

impl Drop for OutDir {
    fn drop(&mut self) {
        self.unlock();
        if let Some(t) = self.created.clone() {
            remove_if_empty(&t);
            self.forget();
        }
    }
}

/// Take the exclusive lock on `dir`: the lock file is created if missing, locked without
/// waiting, and given this process's pid (so that a refused writer can name the holder).
fn lock(dir: &Path) -> Result<(std::fs::File, PathBuf)> {
    let path = dir.join(LOCK_FILE);
    // A holder removes the file when it finishes; if that happened between our open and our
    // lock, the lock is on a file no longer in the directory: open the new one and try again.
    for _ in 0..100 {
        // Opened (perhaps created), locked and registered under the registry's lock.
        let mut locks = registry(&LOCKS);
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .with_context(|| format!("creating the lock file {}", path.display()))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let mut pid = String::new();
                let _ = std::io::Read::read_to_string(&mut file, &mut pid);
                let holder = match pid.trim() {
                    "" => "another flashlab".to_string(),
                    pid => format!("another flashlab (pid {pid})"),
                };
                anyhow::bail!(
                    "{holder} is writing into {}: wait for it to finish, or choose another --out \
                     (the lock is {}, released when that command ends)",
                    dir.display(),
                    path.display()
                );
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(e).with_context(|| format!("locking {}", path.display()));
            }
        }
        if !same_file(&file, &path) {
            continue;
        }
        file.set_len(0)
            .and_then(|()| writeln!(file, "{}", std::process::id()))
            .and_then(|()| file.flush())
            .with_context(|| format!("writing {}", path.display()))?;
        locks.push(path.clone());
        return Ok((file, path));
    }
    anyhow::bail!("{}: the lock file keeps being replaced by another process", path.display())
}

/// Whether `path` still names the open `file`.
#[cfg(unix)]
fn same_file(file: &std::fs::File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Whether `path` still names the open `file` (elsewhere: whether it exists at all).
#[cfg(not(unix))]
fn same_file(_file: &std::fs::File, path: &Path) -> bool {
    path.exists()
}

/// Remove `dir` if it holds nothing but empty directories (best effort).
fn remove_if_empty(dir: &Path) {
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                remove_if_empty(&e.path());
            }
        }
    }
    let _ = std::fs::remove_dir(dir);
}

/// Files written under temporary names, renamed into place together by [`Staged::commit`];
/// dropped uncommitted, the temporaries are deleted and the targets never touched.
pub struct Staged {
    dir: PathBuf,
    files: Vec<(PathBuf, tempfile::NamedTempFile)>,
}

impl Staged {
    /// Outputs under `dir` (created if missing).
    pub fn new(dir: &Path) -> Self {
        Staged { dir: dir.to_path_buf(), files: Vec::new() }
    }

    /// Stage `rel` (a path under the directory, e.g. `2rpp/report.md`) with this content.
    pub fn add(&mut self, rel: &str, bytes: &[u8]) -> Result<()> {
        self.add_with(rel, |f| f.write_all(bytes))
    }

    /// Stage `rel` with what `write` puts in the file (an error leaves no temporary behind).
    pub fn add_with(&mut self, rel: &str, write: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>) -> Result<()> {
        let target = self.dir.join(rel);
        let parent = target.parent().unwrap_or(&self.dir).to_path_buf();
        std::fs::create_dir_all(&parent).with_context(|| format!("creating output directory {}", parent.display()))?;
        let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let prefix = format!(".{name}.");
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(".tmp");
        // A temporary file is private (0600); an output is read by others like any file.
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644));
        // Created and registered under the registry's lock: known to Ctrl-C from its creation
        // on, so a signal while it is written deletes it too.
        let mut tmp = {
            let mut pending = registry(&PENDING);
            let tmp = builder
                .tempfile_in(&parent)
                .with_context(|| format!("creating a temporary file in {}", parent.display()))?;
            pending.push(tmp.path().to_path_buf());
            tmp
        };
        let written = write(tmp.as_file_mut()).and_then(|()| tmp.as_file().sync_all());
        if let Err(e) = written {
            registry(&PENDING).retain(|p| p != tmp.path());
            return Err(e)
                .with_context(|| format!("writing {} (its earlier version, if any, is untouched)", target.display()));
        }
        self.files.push((target, tmp));
        Ok(())
    }

    /// Rename every staged file over its target, in the order staged; returns the targets.
    /// All or nothing: each earlier file is first moved aside, and if any rename fails every
    /// file already replaced is put back, so the directory holds either every new file or every
    /// old one. Ctrl-C during the renames takes effect after them.
    pub fn commit(self) -> Result<Vec<PathBuf>> {
        self.commit_with(|from, to| std::fs::rename(from, to))
    }

    /// [`Staged::commit`] with the rename given (tests inject failures through it).
    fn commit_with(self, mut rename: impl FnMut(&Path, &Path) -> std::io::Result<()>) -> Result<Vec<PathBuf>> {
        // A target that is a directory cannot be replaced by a file: refused before any rename.
        if let Some((target, _)) = self.files.iter().find(|(t, _)| t.symlink_metadata().is_ok_and(|m| m.is_dir())) {
            anyhow::bail!(
                "{} is a directory, where an output file goes: nothing was replaced (the files in {} are as they were)",
                target.display(),
                self.dir.display()
            );
        }
        {
            // Under PENDING's lock, so that a signal handler either swept before (and exited) or
            // sees COMMITTING and waits for the renames.
            let mut pending = registry(&PENDING);
            COMMITTING.store(true, Ordering::SeqCst);
            pending.retain(|p| !self.files.iter().any(|(_, tmp)| tmp.path() == p));
        }
        let mut done: Vec<Replaced> = Vec::with_capacity(self.files.len());
        let mut result = Ok(());
        for (target, tmp) in self.files {
            let tmp = tmp.into_temp_path();
            let aside = backup_name(&target);
            let had_earlier = target.symlink_metadata().is_ok();
            if had_earlier {
                if let Err(e) = rename(&target, &aside) {
                    result = Err(anyhow::Error::new(e).context(format!("moving {} aside", target.display())));
                    break;
                }
            }
            let aside = had_earlier.then_some(aside);
            if let Err(e) = rename(&tmp, &target) {
                result = Err(anyhow::Error::new(e).context(format!("renaming into {}", target.display())));
                done.push(Replaced { target, aside, placed: false });
                break;
            }
            // The temporary is now the target: nothing to delete.
            let _ = tmp.keep();
            done.push(Replaced { target, aside, placed: true });
        }
        let result = match result {
            Ok(()) => {
                for r in &done {
                    if let Some(aside) = &r.aside {
                        let _ = std::fs::remove_file(aside);
                    }
                }
                Ok(done.into_iter().map(|r| r.target).collect())
            }
            Err(e) => Err(roll_back(e, done, &mut rename, &self.dir)),
        };
        COMMITTING.store(false, Ordering::SeqCst);
        if INTERRUPTED.load(Ordering::SeqCst) {
            // No destructor runs past exit: the lock files go here (the fuzz target `output`
            // found one left by a SIGTERM during the renames).
            let locks = registry(&LOCKS);
            for lock in locks.iter() {
                let _ = std::fs::remove_file(lock);
            }
            eprintln!("\ninterrupted after the outputs were written");
            std::process::exit(INTERRUPTED_STATUS);
        }
        result
    }
}

/// One target of a commit: its earlier file's name while moved aside, and whether the new file
/// is in place.
struct Replaced {
    target: PathBuf,
    aside: Option<PathBuf>,
    placed: bool,
}

/// Where a target's earlier file waits while the commit runs (beside it, hidden; the directory
/// is locked, so the pid makes it unique).
fn backup_name(target: &Path) -> PathBuf {
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    target.with_file_name(format!(".{name}.{}.old", std::process::id()))
}

/// A commit failed with `e`: put every earlier file back, newest first, and say what happened.
fn roll_back(
    e: anyhow::Error,
    done: Vec<Replaced>,
    rename: &mut impl FnMut(&Path, &Path) -> std::io::Result<()>,
    dir: &Path,
) -> anyhow::Error {
    let mut stuck = Vec::new();
    for r in done.into_iter().rev() {
        let restored = match (&r.aside, r.placed) {
            (Some(aside), _) => rename(aside, &r.target),
            (None, true) => std::fs::remove_file(&r.target),
            (None, false) => Ok(()),
        };
        if let Err(err) = restored {
            stuck.push(format!("{} ({err})", r.target.display()));
        }
    }
    if stuck.is_empty() {
        anyhow::anyhow!("{e:#}\n(nothing was replaced: the files in {} are as they were)", dir.display())
    } else {
        anyhow::anyhow!(
            "{e:#}\n(putting back the earlier files failed too, for {}: {} may mix old and new files)",
            stuck.join(", "),
            dir.display()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        v.sort();
        v
    }

    /// A directory created for a command that then fails is removed, with the parents it
    /// needed, when nothing was written into it; one that existed before, or that is kept, stays.
    #[test]
    fn a_created_output_directory_goes_when_the_command_fails() {
        let root = tempfile::tempdir().unwrap();
        let out = root.path().join("a").join("b");
        let dir = OutDir::create(&out).unwrap();
        assert!(out.is_dir());
        // A staged file dropped uncommitted leaves its parent directory empty.
        let mut staged = Staged::new(&out);
        staged.add("sub/report.md", b"x").unwrap();
        drop(staged);
        assert!(out.join("sub").is_dir());
        drop(dir);
        assert!(!root.path().join("a").exists(), "{:?}", names(root.path()));

        let dir = OutDir::create(&out).unwrap();
        dir.keep();
        assert!(out.is_dir());
        let again = OutDir::create(&out).unwrap();
        drop(again);
        assert!(out.is_dir(), "a directory that existed before is left alone");
    }

    /// A write that fails halfway (as on a full disk) leaves the earlier file as it was and no
    /// temporary behind; nothing staged before it is renamed either.
    #[test]
    fn a_failed_write_leaves_the_earlier_files_untouched() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("results.json"), "old json").unwrap();
        std::fs::write(dir.path().join("series.csv"), "old csv").unwrap();
        let mut staged = Staged::new(dir.path());
        staged.add("results.json", b"new json").unwrap();
        let err = staged
            .add_with("series.csv", |f| {
                f.write_all(b"new c")?;
                Err(std::io::Error::new(std::io::ErrorKind::StorageFull, "no space left on device"))
            })
            .unwrap_err();
        assert!(format!("{err:#}").contains("no space left on device"), "{err:#}");
        drop(staged);
        assert_eq!(std::fs::read_to_string(dir.path().join("results.json")).unwrap(), "old json");
        assert_eq!(std::fs::read_to_string(dir.path().join("series.csv")).unwrap(), "old csv");
        assert_eq!(names(dir.path()), ["results.json", "series.csv"]);
    }

    #[test]
    fn commit_replaces_every_file_and_creates_subdirectories() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("results.json"), "old").unwrap();
        let mut staged = Staged::new(dir.path());
        staged.add("results.json", b"new").unwrap();
        staged.add("a/report.md", b"report").unwrap();
        // Until the commit the targets are as they were.
        assert_eq!(std::fs::read_to_string(dir.path().join("results.json")).unwrap(), "old");
        assert!(!dir.path().join("a/report.md").exists());
        let written = staged.commit().unwrap();
        assert_eq!(written.len(), 2);
        assert_eq!(std::fs::read_to_string(dir.path().join("results.json")).unwrap(), "new");
        assert_eq!(std::fs::read_to_string(dir.path().join("a/report.md")).unwrap(), "report");
        assert_eq!(names(dir.path()), ["a", "results.json"]);
        assert_eq!(names(&dir.path().join("a")), ["report.md"]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join("results.json")).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o644, "outputs are readable by others, as plain files are");
        }
    }

    #[test]
    fn an_earlier_result_needs_force() {
        let dir = tempfile::tempdir().unwrap();
        let files = vec!["results.json".to_string(), "series.csv".to_string()];
        refuse_overwrite(dir.path(), &files, false).unwrap();
        std::fs::write(dir.path().join("series.csv"), "x").unwrap();
        let err = refuse_overwrite(dir.path(), &files, false).unwrap_err().to_string();
        assert!(err.contains("series.csv") && err.contains("--force"), "{err}");
        refuse_overwrite(dir.path(), &files, true).unwrap();
    }
    /// A rename that fails at any point of the commit leaves every target as it was, with no
    /// temporary or moved-aside file behind, and says that nothing was replaced.
    #[test]
    fn a_rename_failing_anywhere_replaces_nothing() {
        // Three targets, two with earlier files: 2 + 2 + 1 = 5 renames in a full commit.
        let renames = 5;
        for fail_at in 0..renames {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join("results.json"), "old json").unwrap();
            std::fs::create_dir(dir.path().join("a")).unwrap();
            std::fs::write(dir.path().join("a/report.md"), "old report").unwrap();
            let mut staged = Staged::new(dir.path());
            staged.add("results.json", b"new json").unwrap();
            staged.add("a/report.md", b"new report").unwrap();
            staged.add("series.csv", b"new csv").unwrap();
            let mut n = 0;
            let err = staged
                .commit_with(|from, to| {
                    n += 1;
                    if n == fail_at + 1 {
                        return Err(std::io::Error::from(std::io::ErrorKind::PermissionDenied));
                    }
                    std::fs::rename(from, to)
                })
                .unwrap_err();
            let msg = format!("{err:#}");
            assert!(msg.contains("nothing was replaced"), "rename {fail_at}: {msg}");
            assert_eq!(std::fs::read_to_string(dir.path().join("results.json")).unwrap(), "old json", "{fail_at}");
            assert_eq!(std::fs::read_to_string(dir.path().join("a/report.md")).unwrap(), "old report", "{fail_at}");
            assert_eq!(names(dir.path()), ["a", "results.json"], "rename {fail_at}");
            assert_eq!(names(&dir.path().join("a")), ["report.md"], "rename {fail_at}");
        }
        // And with no failure, all five renames happen and every file is new.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("results.json"), "old json").unwrap();
        let mut staged = Staged::new(dir.path());
        staged.add("results.json", b"new json").unwrap();
        staged.add("series.csv", b"new csv").unwrap();
        let mut n = 0;
        staged
            .commit_with(|from, to| {
                n += 1;
                std::fs::rename(from, to)
            })
            .unwrap();
        assert_eq!(n, 3);
        assert_eq!(std::fs::read_to_string(dir.path().join("results.json")).unwrap(), "new json");
        assert_eq!(names(dir.path()), ["results.json", "series.csv"]);
    }

    /// A directory where an output file goes is refused before any rename.
    #[test]
    fn a_directory_in_a_files_place_is_refused_before_any_rename() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("results.json"), "old").unwrap();
        std::fs::create_dir(dir.path().join("series.csv")).unwrap();
        let mut staged = Staged::new(dir.path());
        staged.add("results.json", b"new").unwrap();
        staged.add("series.csv", b"new").unwrap();
        let err = format!("{:#}", staged.commit().unwrap_err());
        assert!(err.contains("series.csv is a directory") && err.contains("nothing was replaced"), "{err}");
        assert_eq!(std::fs::read_to_string(dir.path().join("results.json")).unwrap(), "old");
        assert_eq!(names(dir.path()), ["results.json", "series.csv"]);
    }

    /// One writer at a time: a second lock on a directory is refused naming the holder's pid;
    /// once the first is kept or dropped the lock file is gone and the directory free again.
    #[test]
    fn a_second_writer_is_refused_naming_the_first() {
        let root = tempfile::tempdir().unwrap();
        let out = root.path().join("o");
        let first = OutDir::create(&out).unwrap();
        assert_eq!(names(&out), [LOCK_FILE]);
        let err = format!("{:#}", OutDir::create(&out).err().expect("a second writer is refused"));
        let pid = format!("another flashlab (pid {}) is writing into {}", std::process::id(), out.display());
        assert!(err.contains(&pid), "{err}");
        first.keep();
        assert!(names(&out).is_empty(), "the lock file is removed: {:?}", names(&out));
        let second = OutDir::create(&out).unwrap();
        drop(second);
        assert!(out.is_dir(), "kept before, so it stays");
        // A stale lock file (its holder gone) does not stand in the way.
        std::fs::write(out.join(LOCK_FILE), "999999999\n").unwrap();
        OutDir::create(&out).unwrap().keep();
    }
}
