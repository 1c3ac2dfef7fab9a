//! Device geometry and the physical page numbering shared by the FTL and the NAND model.
//!
//! Planes are numbered channel-first (plane `p` sits on channel `p % channels`), so that
//! consecutive plane numbers spread over channels, then chips, dies and planes within a die.
//! A *segment* is the GC/erase unit the FTL manages: one block (`GcUnit::Block`) or one
//! superblock / "line" (`GcUnit::Line`: the same block index in every plane, as in FEMU).
//! A physical page number is `segment * pages_per_segment + offset`.
//! - Block unit: segment `s` is block `s % blocks_per_plane` of plane `s / blocks_per_plane`;
//!   offset `o` is page `o` of that block.
//! - Line unit: segment `s` is block index `s` in every plane; offset `o` is page `o / planes`
//!   of plane `o % planes`, so filling a line in offset order stripes over all planes and
//!   programs every block in page order.

use serde::{Deserialize, Serialize};

use crate::error::Error;

/// Raw counts describing a device. Validated by [`Geometry::validate`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Geometry {
    /// Flash channels (buses shared by their chips).
    pub channels: u32,
    /// Chips on each channel.
    pub chips_per_channel: u32,
    /// Dies in each chip.
    pub dies_per_chip: u32,
    /// Planes in each die.
    pub planes_per_die: u32,
    /// Erase blocks in each plane.
    pub blocks_per_plane: u32,
    /// Pages in each erase block.
    pub pages_per_block: u32,
    /// Page size in bytes.
    pub page_size: u32,
}

/// The erase / garbage-collection unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum GcUnit {
    /// A segment is one erase block; segments are pooled per plane.
    Block,
    /// A segment is a line (superblock): the same block index in every plane, one pool for the
    /// device.
    Line,
}

impl GcUnit {
    /// The name in configs (`ftl.gc_unit`).
    pub fn name(self) -> &'static str {
        match self {
            GcUnit::Block => "block",
            GcUnit::Line => "line",
        }
    }
}

/// Most physical pages we address with `u32` page numbers (the last value is a sentinel).
pub const MAX_PAGES: u64 = u32::MAX as u64 - 1;

/// The page-size rule (`key` names where the size came from): a power of two of at least 512
/// bytes (a sector), at most 2^31.
pub fn check_page_size(key: &str, bytes: u64) -> Result<u32, Error> {
    match u32::try_from(bytes) {
        Ok(b) if b >= 512 && b.is_power_of_two() => Ok(b),
        _ => Err(Error::config(key, format!("{bytes} bytes is not a power of two from 512 B to 2 GiB"))),
    }
}

impl Geometry {
    /// Validate the counts: every one positive, totals addressable with 32-bit page numbers.
    /// The products are formed in u128, one factor at a time, and each partial product (dies,
    /// planes, blocks, pages) is held to [`MAX_PAGES`] before the unchecked accessors
    /// ([`Geometry::planes`], [`Geometry::total_blocks`], …) may be called: every count being at
    /// least 1, a partial product never exceeds the total, so after this they all fit a `u32`
    /// and [`Geometry::physical_bytes`] (< 2^32 pages × 2^31 bytes) fits a `u64`.
    pub fn validate(&self) -> Result<(), Error> {
        let fields = [
            ("device.channels", self.channels),
            ("device.chips_per_channel", self.chips_per_channel),
            ("device.dies_per_chip", self.dies_per_chip),
            ("device.planes_per_die", self.planes_per_die),
            ("device.blocks_per_plane", self.blocks_per_plane),
            ("device.pages_per_block", self.pages_per_block),
        ];
        for (key, v) in fields {
            if v == 0 {
                return Err(Error::config(key, "must be at least 1"));
            }
        }
        check_page_size("device.page_size", self.page_size as u64)?;
        let units = ["channels", "chips", "dies", "planes", "blocks", "pages"];
        let mut product: u128 = 1;
        for (i, (key, v)) in fields.iter().enumerate() {
            product *= *v as u128;
            if product > MAX_PAGES as u128 {
                let chain: Vec<&str> = fields[..=i].iter().map(|f| f.0).collect();
                return Err(Error::config(
                    *key,
                    format!(
                        "{} = {product} {} exceed the simulator's limit of {MAX_PAGES} physical pages (32-bit page \
                         numbers); use larger pages or fewer blocks",
                        chain.join(" × "),
                        units[i]
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Planes in the device (channels × chips × dies × planes per die).
    pub fn planes(&self) -> u32 {
        self.channels * self.chips_per_channel * self.dies_per_chip * self.planes_per_die
    }
    /// Dies in the device (channels × chips × dies per chip).
    pub fn dies(&self) -> u32 {
        self.channels * self.chips_per_channel * self.dies_per_chip
    }
    /// Erase blocks in the device (planes × blocks per plane).
    pub fn total_blocks(&self) -> u32 {
        self.planes() * self.blocks_per_plane
    }
    /// Physical pages in the device, as a `u64`.
    pub fn total_pages_u64(&self) -> u64 {
        self.planes() as u64 * self.blocks_per_plane as u64 * self.pages_per_block as u64
    }
    /// Channel of `plane`: with channel-first numbering, `plane % channels`.
    pub fn channel_of_plane(&self, plane: u32) -> u32 {
        plane % self.channels
    }
    /// Die of a plane: planes of one die share `plane / planes_per_die` after channel-first order
    /// is undone. With channel-first numbering, plane `p` is die `p % dies`.
    pub fn die_of_plane(&self, plane: u32) -> u32 {
        plane % self.dies()
    }
    /// Raw flash capacity in bytes: every physical page times the page size.
    pub fn physical_bytes(&self) -> u64 {
        self.total_pages_u64() * self.page_size as u64
    }
}

/// Division of `u32`s by a fixed divisor with multiplications instead of `div` (the hot path
/// decodes a page address per operation). Lemire, Kaser & Kurz, "Faster remainder by direct
/// computation", 2019: with `m = ⌊(2^64 − 1)/d⌋ + 1`, `n / d = ⌊m·n / 2^64⌋` and
/// `n % d = ⌊(m·n mod 2^64)·d / 2^64⌋`, exact for all 32-bit `n` and `d`. A power of two (the
/// usual geometry) divides by a shift and a mask.
#[derive(Clone, Copy, Debug)]
pub struct Divisor {
    d: u32,
    m: u64,
    /// `log2 d` when `d` is a power of two.
    shift: Option<u32>,
}

impl Divisor {
    /// Precompute division by `d`. Panics if `d` is 0.
    pub fn new(d: u32) -> Self {
        assert!(d > 0, "division by zero");
        Divisor { d, m: (u64::MAX / d as u64).wrapping_add(1), shift: d.is_power_of_two().then(|| d.trailing_zeros()) }
    }
    /// `n / d`.
    #[inline]
    pub fn div(&self, n: u32) -> u32 {
        match self.shift {
            Some(s) => n >> s,
            None => ((self.m as u128 * n as u128) >> 64) as u32,
        }
    }
    /// `n % d`.
    #[inline]
    pub fn rem(&self, n: u32) -> u32 {
        match self.shift {
            Some(_) => n & (self.d - 1),
            None => {
                let low = self.m.wrapping_mul(n as u64);
                ((low as u128 * self.d as u128) >> 64) as u32
            }
        }
    }
}

/// Geometry plus GC unit: how physical page numbers decode to (plane, block, page).
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    /// The device geometry.
    pub geo: Geometry,
    /// The segment (GC / erase) unit.
    pub unit: GcUnit,
    /// Planes in the device (`geo.planes()`).
    pub planes: u32,
    /// Pages per segment: `pages_per_block` (block unit) or `pages_per_block × planes` (line
    /// unit).
    pub pages_per_segment: u32,
    /// Segments in the device: every block (block unit) or `blocks_per_plane` (line unit).
    pub segments: u32,
    /// Pools of segments that share a free list: planes (block unit) or one (line unit).
    pub pools: u32,
    by_pps: Divisor,
    by_bpp: Divisor,
    by_planes: Divisor,
}

/// A decoded physical page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageAddr {
    /// Plane, in channel-first numbering.
    pub plane: u32,
    /// Global block id: `plane * blocks_per_plane + block_in_plane`.
    pub block: u32,
    /// Page within the block, from 0 to `pages_per_block - 1`.
    pub page: u32,
}

impl Layout {
    /// The layout of `geo` with segments of `unit`. `geo` must be validated
    /// ([`Geometry::validate`]): the counts are multiplied in `u32`.
    pub fn new(geo: Geometry, unit: GcUnit) -> Self {
        let planes = geo.planes();
        let (pages_per_segment, segments, pools) = match unit {
            GcUnit::Block => (geo.pages_per_block, geo.total_blocks(), planes),
            GcUnit::Line => (geo.pages_per_block * planes, geo.blocks_per_plane, 1),
        };
        Layout {
            geo,
            unit,
            planes,
            pages_per_segment,
            segments,
            pools,
            by_pps: Divisor::new(pages_per_segment),
            by_bpp: Divisor::new(geo.blocks_per_plane),
            by_planes: Divisor::new(planes),
        }
    }

    /// Segment holding `ppn`.
    #[inline]
    pub fn segment_of(&self, ppn: u32) -> u32 {
        self.by_pps.div(ppn)
    }

    /// Is `ppn` the last page of its segment?
    #[inline]
    pub fn is_last_in_segment(&self, ppn: u32) -> bool {
        self.by_pps.rem(ppn) == self.pages_per_segment - 1
    }

    /// Plane of global block id `block`.
    #[inline]
    pub fn plane_of_block(&self, block: u32) -> u32 {
        self.by_bpp.div(block)
    }

    /// Physical pages in the device (`pages_per_segment × segments`).
    pub fn total_pages(&self) -> u32 {
        self.pages_per_segment * self.segments
    }

    /// Plane, global block and page in the block of physical page `ppn` (numbering in the module
    /// docs).
    #[inline]
    pub fn decode(&self, ppn: u32) -> PageAddr {
        let seg = self.by_pps.div(ppn);
        let off = ppn - seg * self.pages_per_segment;
        match self.unit {
            GcUnit::Block => PageAddr { plane: self.by_bpp.div(seg), block: seg, page: off },
            GcUnit::Line => {
                let page = self.by_planes.div(off);
                let plane = off - page * self.planes;
                PageAddr { plane, block: plane * self.geo.blocks_per_plane + seg, page }
            }
        }
    }

    /// Pool a segment belongs to.
    #[inline]
    pub fn pool_of(&self, seg: u32) -> u32 {
        match self.unit {
            GcUnit::Block => self.by_bpp.div(seg),
            GcUnit::Line => 0,
        }
    }

    /// Number of segments in one pool.
    pub fn segments_per_pool(&self) -> u32 {
        self.segments / self.pools
    }

    /// Physical blocks making up a segment.
    pub fn blocks_of(&self, seg: u32) -> impl Iterator<Item = u32> + '_ {
        let (first, step, count) = match self.unit {
            GcUnit::Block => (seg, 1, 1),
            GcUnit::Line => (seg, self.geo.blocks_per_plane, self.planes),
        };
        (0..count).map(move |i| first + i * step)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geo() -> Geometry {
        Geometry {
            channels: 2,
            chips_per_channel: 1,
            dies_per_chip: 2,
            planes_per_die: 2,
            blocks_per_plane: 8,
            pages_per_block: 4,
            page_size: 4096,
        }
    }

    #[test]
    fn decode_is_a_bijection_for_both_units() {
        for unit in [GcUnit::Block, GcUnit::Line] {
            let l = Layout::new(geo(), unit);
            let mut seen = std::collections::HashSet::new();
            for ppn in 0..l.total_pages() {
                let a = l.decode(ppn);
                assert!(a.plane < l.planes && a.page < 4);
                assert_eq!(a.block / 8, a.plane, "block belongs to its plane");
                assert!(seen.insert((a.block, a.page)), "{unit:?}: ppn {ppn} collides");
                let seg = ppn / l.pages_per_segment;
                assert!(l.blocks_of(seg).any(|b| b == a.block));
            }
            assert_eq!(seen.len() as u64, geo().total_pages_u64());
        }
    }

    #[test]
    fn fast_division_is_exact() {
        let ds = [1u32, 2, 3, 7, 18, 64, 1000, 1152, 65_537, 1 << 31, u32::MAX];
        let ns = [0u32, 1, 2, 17, 1151, 1152, 1153, 123_456_789, u32::MAX - 1, u32::MAX];
        for d in ds {
            let f = Divisor::new(d);
            for n in ns {
                assert_eq!((f.div(n), f.rem(n)), (n / d, n % d), "{n} / {d}");
            }
        }
    }

    #[test]
    fn line_offsets_stripe_over_planes_in_page_order() {
        let l = Layout::new(geo(), GcUnit::Line);
        assert_eq!(l.pages_per_segment, 32);
        assert_eq!(l.pools, 1);
        let a0 = l.decode(32 * 3);
        let a1 = l.decode(32 * 3 + 1);
        assert_eq!((a0.plane, a0.page), (0, 0));
        assert_eq!((a1.plane, a1.page), (1, 0));
        assert_eq!(l.decode(32 * 3 + 8).page, 1);
    }

    #[test]
    fn zero_and_oversized_geometries_are_rejected() {
        let mut g = geo();
        g.pages_per_block = 0;
        assert!(g.validate().unwrap_err().to_string().contains("pages_per_block"));
        let mut g = geo();
        g.blocks_per_plane = u32::MAX;
        assert!(g.validate().unwrap_err().to_string().contains("32-bit"));
        let mut g = geo();
        g.page_size = 1000;
        assert!(g.validate().is_err());
    }
}
