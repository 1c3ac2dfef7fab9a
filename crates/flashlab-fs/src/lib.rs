//! File systems that run on top of a block device: a FAT16/FAT32 model ([`fat::FatFs`]) whose
//! images are real FAT (checked with `fsck.fat` and mtools in `tests/fat.rs`), with pluggable
//! cluster allocation ([`alloc`]) so flash-aware policies (AFCA) can be compared with the
//! classic next-free scan (SCA).
//!
//! The file system sees storage only through [`blockdev::BlockDevice`] (whole sectors), so the
//! same code runs on an in-memory disk ([`blockdev::MemDisk`]) or on the simulated SSD
//! ([`simdisk::SimDisk`]). [`defrag`] is the defrag paper's close-time defragmentation.
//!
//! [`postmark`] drives a [`fat::FatFs`] with the Postmark benchmark (and the fragmentation step
//! of defragmentation experiments) through the file system's public API.
//!
//! A host-side model, not a stage of the core's request pipeline: it drives a
//! [`flashlab::device::Device`] from above (through [`simdisk::SimDisk`]) as a reproduction
//! asks, so it lives in its own crate on top of the storage stack.

pub mod alloc;
pub mod blockdev;
pub mod defrag;
pub mod fat;
pub mod postmark;
pub mod simdisk;

pub use blockdev::{BlockDevice, MemDisk};
pub use fat::{DirEntryInfo, FatFs, FatType, Fd, FormatOptions, Metadata, MetadataStats};
