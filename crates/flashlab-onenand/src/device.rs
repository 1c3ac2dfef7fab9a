//! The OneNAND chip as a raw flash (no FTL on this path, like Linux MTD): one NAND core and two
//! DataRAM buffers, driven by one host CPU (paper §2.1, Fig. 1–2).
//!
//! Time model. The host clock `now` is the CPU's: every host action (block-layer work, driver
//! calls, copying a DataRAM out, waiting) advances it and is charged to one [`Cost`] category, so
//! the categories always sum to the elapsed time. The core is a second clock (`core_free`): a
//! load (array → DataRAM) or program (DataRAM → array) is issued by the host at no CPU cost and
//! runs on the core when the core and its buffer are free; a read (DataRAM → host) or write
//! (host → DataRAM) is CPU work that first waits for its buffer. With two buffers the load of
//! page i+1 runs on the core while the host reads page i ("dual buffering"), so a run of M pages
//! takes Tload + Tread + (M−1)·max(Tload, Tread). Writes mirror it: write page i+1 while page i
//! programs.
//!
//! The low-level driver (`read_bytes`, `write_pages`: MTD's `onenand_read`/`onenand_write`)
//! keeps Linux 2.6.21's BufferRAM check: a page already in a DataRAM is not loaded again, so the
//! Original driver's four 512-byte calls into one 2 KB page load it once.

use crate::costs::{DeviceTiming, SECTOR_BYTES};
use flashlab::error::Error;

/// What the host CPU spends time on. The categories of one run sum to its elapsed time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Cost {
    /// Block layer: taking a request (or a segment) off the queue.
    GetRequest,
    /// Block layer: completing a segment / request, waking the waiter.
    EndRequest,
    /// Entering the low-level driver (one per call).
    Call,
    /// Creating a virtual segment (address range, page tables, cache flush).
    VmapCreate,
    /// Tearing it down (cache and TLB flush, unmap, free the range).
    VmapTeardown,
    /// Copying DataRAM → host memory.
    Read,
    /// Waiting for a page load that the host could not overlap.
    LoadWait,
    /// Copying host memory → DataRAM.
    Write,
    /// Waiting for a program to free a buffer or the core.
    ProgramWait,
}

impl Cost {
    pub const ALL: [Cost; 9] = [
        Cost::GetRequest,
        Cost::EndRequest,
        Cost::Call,
        Cost::VmapCreate,
        Cost::VmapTeardown,
        Cost::Read,
        Cost::LoadWait,
        Cost::Write,
        Cost::ProgramWait,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Cost::GetRequest => "get_request",
            Cost::EndRequest => "end_request",
            Cost::Call => "call",
            Cost::VmapCreate => "vmap_create",
            Cost::VmapTeardown => "vmap_teardown",
            Cost::Read => "read",
            Cost::LoadWait => "load_wait",
            Cost::Write => "write",
            Cost::ProgramWait => "program_wait",
        }
    }
}

/// CPU time per [`Cost`] category, in ns.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Accounting {
    ns: [u64; Cost::ALL.len()],
}

impl Accounting {
    pub fn get(&self, c: Cost) -> u64 {
        self.ns[c as usize]
    }
    pub fn total(&self) -> u64 {
        self.ns.iter().sum()
    }
    fn add(&mut self, c: Cost, ns: u64) {
        self.ns[c as usize] += ns;
    }
    /// `{category: µs}` for results.json.
    pub fn to_json_us(&self) -> serde_json::Value {
        let m: serde_json::Map<String, serde_json::Value> =
            Cost::ALL.iter().map(|&c| (c.name().to_string(), serde_json::json!(self.get(c) as f64 / 1000.0))).collect();
        serde_json::Value::Object(m)
    }
}

/// One event of the trace (when tracing is on): what the drivers asked and what the chip did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A low-level driver call for `bytes` at device byte `offset`, with or without dual buffering.
    Call { offset: u64, bytes: u64, dual: bool },
    /// Array → DataRAM `buffer`, on the core from `start_ns` to `end_ns`.
    Load { page: u64, buffer: usize, start_ns: u64, end_ns: u64 },
    /// DataRAM → host: `bytes` of `page` from byte `offset` within the page.
    Read { page: u64, buffer: usize, offset: u64, bytes: u64, start_ns: u64, end_ns: u64 },
    /// Host → DataRAM, a whole page.
    Write { page: u64, buffer: usize, start_ns: u64, end_ns: u64 },
    /// DataRAM → array.
    Program { page: u64, buffer: usize, start_ns: u64, end_ns: u64 },
}

#[derive(Clone, Copy, Debug, Default)]
struct DataRam {
    /// The page it holds (valid once `ready_ns` has passed).
    page: Option<u64>,
    /// When the core is done with it (load finished / program finished).
    ready_ns: u64,
}

/// A OneNAND chip and the host CPU driving it.
pub struct OneNand {
    timing: DeviceTiming,
    now_ns: u64,
    core_free_ns: u64,
    bufs: [DataRam; 2],
    /// The buffer the next load goes to when no page pins the choice.
    next_buf: usize,
    acct: Accounting,
    loads: u64,
    programs: u64,
    trace: Option<Vec<Event>>,
}

impl OneNand {
    pub fn new(timing: DeviceTiming) -> Result<Self, Error> {
        timing.validate()?;
        Ok(OneNand {
            timing,
            now_ns: 0,
            core_free_ns: 0,
            bufs: [DataRam::default(); 2],
            next_buf: 0,
            acct: Accounting::default(),
            loads: 0,
            programs: 0,
            trace: None,
        })
    }

    /// Record every call, load, read, write and program from now on.
    pub fn with_trace(mut self) -> Self {
        self.trace = Some(Vec::new());
        self
    }
    pub fn trace(&self) -> &[Event] {
        self.trace.as_deref().unwrap_or(&[])
    }
    pub fn timing(&self) -> &DeviceTiming {
        &self.timing
    }
    pub fn now_ns(&self) -> u64 {
        self.now_ns
    }
    pub fn accounting(&self) -> &Accounting {
        &self.acct
    }
    pub fn loads(&self) -> u64 {
        self.loads
    }
    pub fn programs(&self) -> u64 {
        self.programs
    }

    /// Forget what the DataRAMs hold (a new, unrelated request: another file's data was read in
    /// between). Time and accounting carry on.
    pub fn invalidate_buffers(&mut self) {
        for b in &mut self.bufs {
            b.page = None;
        }
    }

    /// Host CPU work of `ns` charged to `cost`.
    pub fn cpu(&mut self, cost: Cost, ns: u64) {
        self.now_ns += ns;
        self.acct.add(cost, ns);
    }

    fn wait_until(&mut self, t_ns: u64, cost: Cost) {
        if t_ns > self.now_ns {
            let d = t_ns - self.now_ns;
            self.cpu(cost, d);
        }
    }

    fn record(&mut self, e: Event) {
        if let Some(t) = &mut self.trace {
            t.push(e);
        }
    }

    /// The buffer holding `page`, if any (Linux's `onenand_check_bufferram`).
    pub fn holding(&self, page: u64) -> Option<usize> {
        (0..2).find(|&b| self.bufs[b].page == Some(page))
    }

    /// Issue a load of `page` into `buffer`; the host goes on at once.
    fn load(&mut self, buffer: usize, page: u64) {
        assert!(page < self.timing.pages(), "load beyond the device: the caller checked the range");
        let start = self.now_ns.max(self.core_free_ns).max(self.bufs[buffer].ready_ns);
        let end = start + self.timing.load_ns;
        self.core_free_ns = end;
        self.bufs[buffer] = DataRam { page: Some(page), ready_ns: end };
        self.next_buf = buffer ^ 1;
        self.loads += 1;
        self.record(Event::Load { page, buffer, start_ns: start, end_ns: end });
    }

    /// Copy `bytes` of the page in `buffer` from `offset` to the host, after its load.
    fn read(&mut self, buffer: usize, page: u64, offset: u64, bytes: u64) {
        assert_eq!(self.bufs[buffer].page, Some(page), "read from a DataRAM that does not hold the page");
        assert!(offset + bytes <= self.timing.page_bytes, "read within one page");
        let ready = self.bufs[buffer].ready_ns;
        self.wait_until(ready, Cost::LoadWait);
        let start = self.now_ns;
        self.cpu(Cost::Read, self.timing.read_ns * bytes / self.timing.page_bytes);
        self.record(Event::Read { page, buffer, offset, bytes, start_ns: start, end_ns: self.now_ns });
    }

    /// The buffer for `page`: the one holding it, else a load into the buffer not pinned by
    /// `keep` (the page the host is about to read).
    fn stage(&mut self, page: u64, keep: Option<usize>) -> usize {
        if let Some(b) = self.holding(page) {
            return b;
        }
        let b = match keep {
            Some(k) => k ^ 1,
            None => self.next_buf,
        };
        self.load(b, page);
        b
    }

    fn check_range(&self, offset: u64, bytes: u64) -> Result<(), Error> {
        if bytes == 0 || !offset.is_multiple_of(SECTOR_BYTES) || !bytes.is_multiple_of(SECTOR_BYTES) {
            return Err(Error::config(
                "onenand.request",
                format!("{bytes} bytes at {offset}: must be whole 512-byte sectors, at least one"),
            ));
        }
        if offset.checked_add(bytes).is_none_or(|end| end > self.timing.capacity_bytes) {
            return Err(Error::config(
                "onenand.request",
                format!("{bytes} bytes at {offset} run past the {}-byte device", self.timing.capacity_bytes),
            ));
        }
        Ok(())
    }

    /// One low-level read call: `bytes` from device byte `offset` into host memory. With `dual`
    /// the load of each next page overlaps the read of the current one; without, each page is
    /// loaded and then read. `during_first_load` is host work done after the first load is
    /// issued and before its data is read (Optimized hides virtual-segment creation there).
    pub fn read_bytes_overlapped(
        &mut self,
        offset: u64,
        bytes: u64,
        dual: bool,
        during_first_load: impl FnOnce(&mut OneNand),
    ) -> Result<(), Error> {
        self.check_range(offset, bytes)?;
        self.record(Event::Call { offset, bytes, dual });
        let p = self.timing.page_bytes;
        let (first, last) = (offset / p, (offset + bytes - 1) / p);
        let part = |page: u64| {
            let lo = offset.max(page * p);
            let hi = (offset + bytes).min((page + 1) * p);
            (lo - page * p, hi - lo)
        };
        let mut cur = self.stage(first, None);
        during_first_load(self);
        for page in first..=last {
            let next = (dual && page < last).then(|| self.stage(page + 1, Some(cur)));
            let (off, len) = part(page);
            self.read(cur, page, off, len);
            cur = match next {
                Some(b) => b,
                None if page < last => self.stage(page + 1, Some(cur)),
                None => cur,
            };
        }
        Ok(())
    }

    /// [`Self::read_bytes_overlapped`] with nothing to overlap.
    pub fn read_bytes(&mut self, offset: u64, bytes: u64, dual: bool) -> Result<(), Error> {
        self.read_bytes_overlapped(offset, bytes, dual, |_| {})
    }

    /// One low-level write call of whole pages from device byte `offset`: write (host →
    /// DataRAM) then program; with `dual` the write of page i+1 overlaps the program of page i.
    /// Returns when the last program is done.
    pub fn write_pages(&mut self, offset: u64, bytes: u64, dual: bool) -> Result<(), Error> {
        self.check_range(offset, bytes)?;
        let p = self.timing.page_bytes;
        if !offset.is_multiple_of(p) || !bytes.is_multiple_of(p) {
            return Err(Error::config(
                "onenand.write",
                format!("{bytes} bytes at {offset}: writes are whole {p}-byte pages"),
            ));
        }
        self.record(Event::Call { offset, bytes, dual });
        let mut buf = self.next_buf;
        for page in offset / p..(offset + bytes) / p {
            // The buffer must be free of its previous program; without dual buffering the host
            // also waits for the core before it writes the next page.
            let free = if dual { self.bufs[buf].ready_ns } else { self.core_free_ns };
            self.wait_until(free, Cost::ProgramWait);
            let start = self.now_ns;
            self.cpu(Cost::Write, self.timing.write_ns);
            self.bufs[buf].page = Some(page);
            self.record(Event::Write { page, buffer: buf, start_ns: start, end_ns: self.now_ns });
            let pstart = self.now_ns.max(self.core_free_ns);
            let end = pstart + self.timing.program_ns;
            self.core_free_ns = end;
            self.bufs[buf].ready_ns = end;
            self.programs += 1;
            self.record(Event::Program { page, buffer: buf, start_ns: pstart, end_ns: end });
            if dual {
                buf ^= 1;
            }
        }
        self.next_buf = buf;
        let idle = self.core_free_ns;
        self.wait_until(idle, Cost::ProgramWait);
        Ok(())
    }
}
