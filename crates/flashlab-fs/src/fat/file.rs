//! Files: create, open, read, write (extending), append, seek, close, delete. An open file
//! keeps its chain, size and position; the directory entry is rewritten whenever size or first
//! cluster change. A write that needs more clusters than are free fails whole, before any
//! write reaches the device.

use super::dir::{make_entry, Slot, ATTR_ARCHIVE};
use super::name::path_err;
use super::{FatFs, Fd};
use crate::alloc::AllocRequest;
use crate::blockdev::BlockDevice;
use flashlab::error::{Error, Location};

pub(crate) struct OpenFile {
    pub path: String,
    pub slot: Slot,
    pub chain: Vec<u32>,
    pub size: u32,
    pub pos: u32,
}

impl<D: BlockDevice> FatFs<D> {
    fn fd_err(fd: Fd) -> Error {
        Error::input(Location::file("file descriptor"), format!("{fd:?} is not open"))
    }
    fn file(&mut self, fd: Fd) -> Result<&mut OpenFile, Error> {
        self.open.get_mut(fd.0 as usize).and_then(|f| f.as_mut()).ok_or_else(|| Self::fd_err(fd))
    }
    pub(crate) fn is_open(&self, slot: Slot) -> Option<usize> {
        self.open.iter().position(|f| f.as_ref().is_some_and(|f| f.slot == slot))
    }

    fn add_open(&mut self, f: OpenFile) -> Fd {
        match self.open.iter().position(|f| f.is_none()) {
            Some(i) => {
                self.open[i] = Some(f);
                Fd(i as u32)
            }
            None => {
                self.open.push(Some(f));
                Fd(self.open.len() as u32 - 1)
            }
        }
    }

    /// Create an empty file and open it (error if `path` exists). Writes: [directory growth],
    /// the new entry's sector.
    pub fn create(&mut self, path: &str) -> Result<Fd, Error> {
        let (dir, name, scan) = self.locate(path)?;
        if scan.found.is_some() {
            return Err(path_err(path, "already exists"));
        }
        let slot = self.free_slot(dir, &scan, path)?;
        self.write_entry(slot, &make_entry(&name, ATTR_ARCHIVE, 0, 0))?;
        let fd = self.add_open(OpenFile { path: path.to_string(), slot, chain: Vec::new(), size: 0, pos: 0 });
        self.op_done()?;
        Ok(fd)
    }

    /// Open an existing file at position 0 (a file may be open once).
    pub fn open(&mut self, path: &str) -> Result<Fd, Error> {
        let e = self.entry(path)?;
        if e.is_dir() {
            return Err(path_err(path, "is a directory"));
        }
        if self.is_open(e.slot).is_some() {
            return Err(path_err(path, "already open"));
        }
        let chain = self.fat_chain(e.first, path)?;
        let cb = self.layout.cluster_bytes() as u64;
        // A chain longer than the size is an extension cut short after its FAT write (the
        // bytes up to the size are intact): it opens, and the next extending write reuses it.
        if (chain.len() as u64) < (e.size as u64).div_ceil(cb) {
            return Err(path_err(path, format!("size {} bytes exceeds its {}-cluster chain", e.size, chain.len())));
        }
        Ok(self.add_open(OpenFile { path: path.to_string(), slot: e.slot, chain, size: e.size, pos: 0 }))
    }

    /// Close `fd`; with [`Metadata::WriteBack`](super::Metadata) pending metadata is written.
    pub fn close(&mut self, fd: Fd) -> Result<(), Error> {
        self.file(fd)?;
        self.open[fd.0 as usize] = None;
        if self.metadata == super::Metadata::WriteBack {
            self.flush_metadata()?;
        }
        self.op_done()
    }

    /// Move the position to `pos` (at most the file size).
    pub fn seek(&mut self, fd: Fd, pos: u64) -> Result<(), Error> {
        let f = self.file(fd)?;
        if pos > f.size as u64 {
            return Err(path_err(&f.path, format!("seek to {pos} past the end ({} bytes)", f.size)));
        }
        f.pos = pos as u32;
        Ok(())
    }

    /// Size of an open file, bytes.
    pub fn size(&mut self, fd: Fd) -> Result<u64, Error> {
        Ok(self.file(fd)?.size as u64)
    }

    /// Read from the position; returns the bytes read (0 at the end).
    pub fn read(&mut self, fd: Fd, buf: &mut [u8]) -> Result<usize, Error> {
        let f = self.file(fd)?;
        let n = buf.len().min((f.size - f.pos) as usize);
        let (start, chain) = (f.pos as u64, f.chain.clone());
        let cb = self.layout.cluster_bytes() as u64;
        let bps = self.layout.bytes_per_sector as u64;
        let mut done = 0usize;
        while done < n {
            let at = start + done as u64;
            let (ci, off) = ((at / cb) as usize, at % cb);
            let len = (cb - off).min((n - done) as u64);
            let (s0, s1) = (off / bps, (off + len).div_ceil(bps));
            let mut tmp = vec![0u8; ((s1 - s0) * bps) as usize];
            self.dev.read(self.layout.cluster_first_sector(chain[ci]) + s0, &mut tmp)?;
            let skip = (off - s0 * bps) as usize;
            buf[done..done + len as usize].copy_from_slice(&tmp[skip..skip + len as usize]);
            done += len as usize;
        }
        self.file(fd)?.pos += n as u32;
        Ok(n)
    }

    /// Append at the end of the file.
    pub fn append(&mut self, fd: Fd, data: &[u8]) -> Result<(), Error> {
        let f = self.file(fd)?;
        f.pos = f.size;
        self.write(fd, data)
    }

    /// Write at the position, extending the file as needed. Writes: data (per cluster), FAT
    /// (both copies) if clusters were added, directory entry if size or first cluster changed.
    pub fn write(&mut self, fd: Fd, data: &[u8]) -> Result<(), Error> {
        let f = self.file(fd)?;
        let end = f.pos as u64 + data.len() as u64;
        if end > u32::MAX as u64 {
            return Err(path_err(&f.path, format!("a FAT file is below 4 GiB; this write would end at byte {end}")));
        }
        if data.is_empty() {
            return Ok(());
        }
        let (path, old_len, size, start) = (f.path.clone(), f.chain.len(), f.size, f.pos as u64);
        let mut chain = f.chain.clone();
        self.extend_chain(&mut chain, end, size.max(end as u32) as u64, &path)?;

        let cb = self.layout.cluster_bytes() as u64;
        let bps = self.layout.bytes_per_sector as u64;
        let mut done = 0usize;
        while done < data.len() {
            let at = start + done as u64;
            let (ci, off) = ((at / cb) as usize, at % cb);
            let len = (cb - off).min((data.len() - done) as u64);
            let (s0, s1) = (off / bps, (off + len).div_ceil(bps));
            let first = self.layout.cluster_first_sector(chain[ci]) + s0;
            let mut tmp = vec![0u8; ((s1 - s0) * bps) as usize];
            let skip = (off - s0 * bps) as usize;
            if ci < old_len {
                // Existing cluster: keep the bytes around the range in its edge sectors.
                if skip != 0 {
                    self.dev.read(first, &mut tmp[..bps as usize])?;
                }
                let tail = (s1 - s0 - 1) * bps;
                if !(skip + len as usize).is_multiple_of(bps as usize) && (tail != 0 || skip == 0) {
                    self.dev.read(first + s1 - s0 - 1, &mut tmp[tail as usize..])?;
                }
            }
            tmp[skip..skip + len as usize].copy_from_slice(&data[done..done + len as usize]);
            self.dev.write(first, &tmp)?;
            done += len as usize;
        }
        self.flush_fat()?;
        let new_size = size.max(end as u32);
        let f = self.file(fd)?;
        f.pos = end as u32;
        let changed = new_size != f.size || (old_len == 0 && !chain.is_empty());
        f.size = new_size;
        f.chain = chain;
        let (slot, first) = (f.slot, f.chain[0]);
        if changed {
            self.update_entry(slot, first, new_size)?;
        }
        self.op_done()
    }

    /// Add clusters to `chain` (in the FAT mirror only) until it covers `end` bytes; on a full
    /// volume undo them and fail.
    fn extend_chain(&mut self, chain: &mut Vec<u32>, end: u64, size_after: u64, path: &str) -> Result<(), Error> {
        let cb = self.layout.cluster_bytes() as u64;
        let need = end.div_ceil(cb) as usize;
        let old_len = chain.len();
        while chain.len() < need {
            let req = AllocRequest {
                file_size_bytes: size_after,
                last_cluster: chain.last().copied(),
                first_cluster: chain.first().copied(),
            };
            let Some(c) = self.alloc_cluster(req)? else {
                for &c in &chain[old_len..] {
                    self.table.set(c, 0);
                }
                if let Some(&last) = chain.get(old_len.wrapping_sub(1)) {
                    let eoc = self.table.eoc();
                    self.table.set(last, eoc);
                }
                if self.metadata == super::Metadata::WriteThrough {
                    // Write-back keeps earlier operations' pending sectors (now holding the
                    // rolled-back mirror, which is what the disk should get).
                    self.table.discard_dirty();
                }
                chain.truncate(old_len);
                return Err(self.full_err(path));
            };
            if let Some(&last) = chain.last() {
                self.fat_set(last, c)?;
            }
            chain.push(c);
        }
        Ok(())
    }

    /// Delete file `path` (not open): entry first, then its chain is freed in the FAT.
    pub fn delete(&mut self, path: &str) -> Result<(), Error> {
        let e = self.entry(path)?;
        if e.is_dir() {
            return Err(path_err(path, "is a directory (use rmdir)"));
        }
        if self.is_open(e.slot).is_some() {
            return Err(path_err(path, "is open; close it first"));
        }
        let chain = self.fat_chain(e.first, path)?;
        self.delete_entry(e.slot)?;
        for c in chain {
            self.fat_set(c, 0)?;
        }
        self.flush_fat()?;
        self.op_done()
    }
}
