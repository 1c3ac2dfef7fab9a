//! Intrusive doubly linked lists of items over flat arrays: several lists (buckets, pools)
//! share one `next` / `prev` pair per item, and an item is in at most one list. O(1) push and
//! unlink. The GC policies keep their candidate segments in these and the block-level buffers
//! their blocks, so the structure sits at the bottom of the crate, below both layers.

/// No item: the head and tail of an empty list, the links past a list's ends and those of an
/// item in no list.
pub const NIL: u32 = u32::MAX;

/// Several intrusive doubly linked lists over the same items (segments or blocks), each item in
/// at most one list.
#[derive(Clone, Debug)]
pub struct SegLists {
    head: Vec<u32>,
    tail: Vec<u32>,
    /// Per segment `[prev, next]`: a segment's two links share a cache line.
    links: crate::hint::Table<[u32; 2]>,
}

const PREV: usize = 0;
const NEXT: usize = 1;

impl SegLists {
    /// Bytes of `lists` lists over `items` items (head and tail per list, links per item).
    pub fn memory(lists: u64, items: u64) -> u64 {
        crate::memory::vec_bytes::<u32>(lists)
            .saturating_mul(2)
            .saturating_add(crate::hint::table_bytes::<[u32; 2]>(items))
    }

    /// `lists` empty lists over items `0..segments`.
    pub fn new(lists: usize, segments: usize) -> Self {
        SegLists { head: vec![NIL; lists], tail: vec![NIL; lists], links: crate::hint::table(segments, [NIL; 2]) }
    }

    /// Start fetching `seg`'s links (`hint`).
    #[inline]
    pub fn prefetch(&self, seg: u32) {
        crate::hint::prefetch(&self.links, seg as usize);
    }

    /// First item of `list`, or [`NIL`] if it is empty.
    #[inline]
    pub fn head(&self, list: usize) -> u32 {
        self.head[list]
    }
    /// Last item of `list`, or [`NIL`] if it is empty.
    #[inline]
    pub fn tail(&self, list: usize) -> u32 {
        self.tail[list]
    }
    /// Item after `seg` in its list, or [`NIL`] at the end.
    #[inline]
    pub fn next(&self, seg: u32) -> u32 {
        self.links[seg as usize][NEXT]
    }
    /// Item before `seg` in its list, or [`NIL`] at the head.
    #[inline]
    pub fn prev(&self, seg: u32) -> u32 {
        self.links[seg as usize][PREV]
    }

    /// Append `seg` (in no list) to `list`.
    #[inline]
    pub fn push_back(&mut self, list: usize, seg: u32) {
        let t = self.tail[list];
        self.links[seg as usize][PREV] = t;
        self.links[seg as usize][NEXT] = NIL;
        if t == NIL {
            self.head[list] = seg;
        } else {
            self.links[t as usize][NEXT] = seg;
        }
        self.tail[list] = seg;
    }

    /// Put `seg` (in no list) at the head of `list`.
    #[inline]
    pub fn push_front(&mut self, list: usize, seg: u32) {
        let h = self.head[list];
        self.links[seg as usize][NEXT] = h;
        self.links[seg as usize][PREV] = NIL;
        if h == NIL {
            self.tail[list] = seg;
        } else {
            self.links[h as usize][PREV] = seg;
        }
        self.head[list] = seg;
    }

    /// Put `seg` (in no list) right after `after` (in `list`).
    #[inline]
    pub fn insert_after(&mut self, list: usize, seg: u32, after: u32) {
        let n = self.links[after as usize][NEXT];
        self.links[seg as usize][PREV] = after;
        self.links[seg as usize][NEXT] = n;
        self.links[after as usize][NEXT] = seg;
        if n == NIL {
            self.tail[list] = seg;
        } else {
            self.links[n as usize][PREV] = seg;
        }
    }

    /// Remove `seg` from `list`, the list it is in.
    #[inline]
    pub fn unlink(&mut self, list: usize, seg: u32) {
        let (p, n) = (self.links[seg as usize][PREV], self.links[seg as usize][NEXT]);
        if p == NIL {
            debug_assert_eq!(self.head[list], seg, "segment {seg} is not in list {list}");
            self.head[list] = n;
        } else {
            self.links[p as usize][NEXT] = n;
        }
        if n == NIL {
            self.tail[list] = p;
        } else {
            self.links[n as usize][PREV] = p;
        }
        self.links[seg as usize][PREV] = NIL;
        self.links[seg as usize][NEXT] = NIL;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(l: &SegLists, list: usize) -> Vec<u32> {
        let mut v = Vec::new();
        let mut s = l.head(list);
        while s != NIL {
            v.push(s);
            s = l.next(s);
        }
        v
    }

    #[test]
    fn push_and_unlink_keep_order_in_each_list() {
        let mut l = SegLists::new(2, 6);
        for s in [0, 2, 4] {
            l.push_back(0, s);
        }
        for s in [1, 3] {
            l.push_back(1, s);
        }
        l.unlink(0, 2);
        l.unlink(0, 0);
        l.push_back(0, 5);
        assert_eq!(items(&l, 0), [4, 5]);
        assert_eq!(items(&l, 1), [1, 3]);
        assert_eq!((l.tail(0), l.prev(5)), (5, 4));
        l.unlink(1, 3);
        assert_eq!((l.head(1), l.tail(1)), (1, 1));
        l.push_front(1, 3);
        l.push_front(0, 0);
        assert_eq!(items(&l, 1), [3, 1]);
        assert_eq!(items(&l, 0), [0, 4, 5]);
        assert_eq!(l.prev(4), 0);
        l.insert_after(0, 2, 5);
        l.insert_after(0, 1, 0);
        assert_eq!(items(&l, 0), [0, 1, 4, 5, 2]);
        assert_eq!((l.tail(0), l.prev(2), l.prev(4)), (2, 5, 1));
    }
}
