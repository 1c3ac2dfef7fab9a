//! A [`BlockDevice`] on the simulated SSD: sectors map onto the device's logical pages
//! (`page_size / sector_size` sectors a page) and every transfer becomes page operations on the
//! [`Device`] (buffer → FTL → NAND), so the FTL's page reads, writes, copy-backs and erases count
//! what the file system does. A write that covers only part of a page reads the page first
//! (read-modify-write inside the FTL; a never-written page costs no flash read).
//!
//! Data-carrying: the simulated device stores version tags, not bytes, so the bytes live in a
//! sidecar [`MemDisk`] kept in step with every write and copy; [`SimDisk::image`] is the
//! device's logical image, which real tools (`fsck.fat`, mtools) can check.
//!
//! The file system has no clock: every page operation is issued at t = 0.

use super::blockdev::{check_range, BlockDevice, MemDisk};
use flashlab::device::Device;
use flashlab::error::Error;
use flashlab::units::{Lpn, Nanos};

pub struct SimDisk {
    pub dev: Device,
    data: MemDisk,
    sectors_per_page: u64,
    /// Whether page-aligned `defrag_copy`s go to the FTL (copy-back); `false`: every move is a
    /// read and a write, as a file system without the paper's `fil_defrag_copy` would move.
    copyback_moves: bool,
}

impl SimDisk {
    /// The whole logical capacity of `dev` as sectors of `sector_size` bytes.
    pub fn new(dev: Device, sector_size: u32) -> Result<Self, Error> {
        let page = dev.page_size();
        if sector_size == 0 || !page.is_multiple_of(sector_size as u64) {
            return Err(Error::config(
                "fs.sector_size",
                format!("{sector_size}-byte sectors do not divide {page}-byte pages"),
            ));
        }
        let sectors_per_page = page / sector_size as u64;
        let data = MemDisk::new(dev.logical_pages() * sectors_per_page, sector_size)?;
        Ok(SimDisk { dev, data, sectors_per_page, copyback_moves: true })
    }

    /// Moves by the FTL's copy-back (`true`, the default) or as reads and writes.
    pub fn set_copyback_moves(&mut self, on: bool) {
        self.copyback_moves = on;
    }

    /// The logical image (every sector's bytes).
    pub fn image(&self) -> &[u8] {
        self.data.image()
    }

    /// Logical pages covering `count` sectors from `first`.
    fn pages(&self, first: u64, count: u64) -> std::ops::RangeInclusive<u64> {
        first / self.sectors_per_page..=(first + count - 1) / self.sectors_per_page
    }
}

impl BlockDevice for SimDisk {
    fn sector_size(&self) -> u32 {
        self.data.sector_size()
    }
    fn sectors(&self) -> u64 {
        self.data.sectors()
    }

    fn read(&mut self, first: u64, buf: &mut [u8]) -> Result<(), Error> {
        self.data.read(first, buf)?;
        for lpn in self.pages(first, buf.len() as u64 / self.sector_size() as u64) {
            self.dev.read(Lpn(lpn), Nanos::ZERO)?;
        }
        Ok(())
    }

    fn write(&mut self, first: u64, data: &[u8]) -> Result<(), Error> {
        self.data.write(first, data)?;
        let count = data.len() as u64 / self.sector_size() as u64;
        let (spp, end) = (self.sectors_per_page, first + count);
        for lpn in self.pages(first, count) {
            let whole = first <= lpn * spp && (lpn + 1) * spp <= end;
            if !whole {
                self.dev.read(Lpn(lpn), Nanos::ZERO)?;
            }
            self.dev.write(Lpn(lpn), Nanos::ZERO)?;
        }
        Ok(())
    }

    /// Page-aligned copies go to the FTL's `defrag_copy` (copy-back placement); others, and
    /// every copy when copy-back moves are off, take the default read + write.
    fn defrag_copy(&mut self, src: u64, tgt: u64, count: u64) -> Result<(), Error> {
        let spp = self.sectors_per_page;
        if count == 0 {
            return Ok(());
        }
        if !self.copyback_moves || !src.is_multiple_of(spp) || !tgt.is_multiple_of(spp) || !count.is_multiple_of(spp) {
            let mut buf = vec![0u8; (count * self.sector_size() as u64) as usize];
            self.read(src, &mut buf)?;
            return self.write(tgt, &buf);
        }
        let ss = self.sector_size() as usize;
        check_range(&self.data, "defrag_copy source", src, count as usize * ss)?;
        check_range(&self.data, "defrag_copy target", tgt, count as usize * ss)?;
        let mut buf = vec![0u8; count as usize * ss];
        self.data.read(src, &mut buf)?;
        self.data.write(tgt, &buf)?;
        self.dev.defrag_copy(Lpn(src / spp), Lpn(tgt / spp), count / spp, Nanos::ZERO)?;
        Ok(())
    }
}
