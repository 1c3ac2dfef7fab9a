//! The block-device interface a file system runs on: numbered sectors of one fixed size, read
//! and written in whole sectors. [`MemDisk`] keeps them in memory (tests, image dumps).

use flashlab::error::{Error, Location};

/// Sector-addressed storage. `buf` / `data` lengths are whole sectors; a transfer that is not,
/// or that runs past the last sector, is an [`Error`].
pub trait BlockDevice {
    /// Bytes per sector.
    fn sector_size(&self) -> u32;
    /// Number of sectors.
    fn sectors(&self) -> u64;
    fn read(&mut self, first_sector: u64, buf: &mut [u8]) -> Result<(), Error>;
    fn write(&mut self, first_sector: u64, data: &[u8]) -> Result<(), Error>;
    /// Copy `count` sectors from `src` to `tgt` inside the device (the defrag paper's
    /// `defrag_copy`). By default a read and a write through this interface; a device whose
    /// FTL can place the copy internally (copy-back) overrides it.
    fn defrag_copy(&mut self, src: u64, tgt: u64, count: u64) -> Result<(), Error> {
        let mut buf = vec![0u8; (count * self.sector_size() as u64) as usize];
        self.read(src, &mut buf)?;
        self.write(tgt, &buf)
    }
}

/// Check that `len` bytes from `first_sector` are whole sectors inside the device; returns the
/// byte offset of `first_sector`.
pub fn check_range(dev: &dyn BlockDevice, what: &str, first_sector: u64, len: usize) -> Result<u64, Error> {
    let ss = dev.sector_size() as u64;
    let at = || Location::file("block device").with_field(what.to_string());
    if !(len as u64).is_multiple_of(ss) {
        return Err(Error::input(
            at(),
            format!("{len} bytes at sector {first_sector} is not a whole number of {ss}-byte sectors"),
        ));
    }
    let count = len as u64 / ss;
    if first_sector.checked_add(count).is_none_or(|end| end > dev.sectors()) {
        return Err(Error::input(
            at(),
            format!("sectors {first_sector}..+{count} out of range (device has {} sectors)", dev.sectors()),
        ));
    }
    Ok(first_sector * ss)
}

/// An in-memory disk, zero-filled at creation.
pub struct MemDisk {
    sector_size: u32,
    bytes: Vec<u8>,
}

impl MemDisk {
    /// `sectors` sectors of `sector_size` bytes (a power of two, 512..=4096).
    pub fn new(sectors: u64, sector_size: u32) -> Result<Self, Error> {
        if !sector_size.is_power_of_two() || !(512..=4096).contains(&sector_size) {
            return Err(Error::config("sector_size", format!("{sector_size} is not a power of two in 512..=4096")));
        }
        let len = sectors
            .checked_mul(sector_size as u64)
            .filter(|&l| l <= isize::MAX as u64)
            .ok_or_else(|| Error::config("sectors", format!("{sectors} sectors do not fit in memory")))?;
        Ok(MemDisk { sector_size, bytes: vec![0; len as usize] })
    }
    /// Wrap an existing image (e.g. made by `mkfs.fat`); its length must be whole sectors.
    pub fn from_image(bytes: Vec<u8>, sector_size: u32) -> Result<Self, Error> {
        let mut d = MemDisk::new(0, sector_size)?;
        if !bytes.len().is_multiple_of(sector_size as usize) {
            return Err(Error::config(
                "image",
                format!("{} bytes is not a whole number of {sector_size}-byte sectors", bytes.len()),
            ));
        }
        d.bytes = bytes;
        Ok(d)
    }
    /// The whole disk contents.
    pub fn image(&self) -> &[u8] {
        &self.bytes
    }
}

impl BlockDevice for MemDisk {
    fn sector_size(&self) -> u32 {
        self.sector_size
    }
    fn sectors(&self) -> u64 {
        self.bytes.len() as u64 / self.sector_size as u64
    }
    fn read(&mut self, first_sector: u64, buf: &mut [u8]) -> Result<(), Error> {
        let at = check_range(self, "read", first_sector, buf.len())? as usize;
        buf.copy_from_slice(&self.bytes[at..at + buf.len()]);
        Ok(())
    }
    fn write(&mut self, first_sector: u64, data: &[u8]) -> Result<(), Error> {
        let at = check_range(self, "write", first_sector, data.len())? as usize;
        self.bytes[at..at + data.len()].copy_from_slice(data);
        Ok(())
    }
}
