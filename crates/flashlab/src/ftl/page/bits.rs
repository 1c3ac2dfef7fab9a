//! Ranges of bits in a `u64` bit set: the page-mapped FTL's valid bits, listed, set and cleared
//! a word at a time.

/// Mask of the bits of word `w` (bits `64w .. 64w + 64`) inside `[from, to)`.
#[inline]
pub(super) fn word_mask(w: u32, from: u32, to: u32) -> u64 {
    let lo = from.saturating_sub(w * 64).min(64);
    let hi = (to - w * 64).min(64);
    let upto = |b: u32| if b >= 64 { u64::MAX } else { (1u64 << b) - 1 };
    upto(hi) & !upto(lo)
}

/// Replace `out` with the set bits of `words` in `[from, to)`, in increasing order, and
/// `out_labels` with their labels, `labels[b - from]` for bit `b` (GC: a victim's valid pages
/// and their logical pages from its OOB). Sized by one count of the bits first, then written in
/// place.
pub(super) fn set_bits_in(
    words: &[u64],
    from: u32,
    to: u32,
    labels: &[u32],
    out: &mut Vec<u32>,
    out_labels: &mut Vec<u32>,
) {
    assert_eq!(labels.len(), (to - from) as usize, "a label per bit of the range");
    let span = &words[(from / 64) as usize..to.div_ceil(64) as usize];
    let masked = |i: usize, word: u64| word & word_mask(from / 64 + i as u32, from, to);
    let count = span.iter().enumerate().map(|(i, &word)| masked(i, word).count_ones() as usize).sum();
    out.clear();
    out.resize(count, 0);
    out_labels.clear();
    out_labels.resize(count, 0);
    let (out, out_labels) = (&mut out[..count], &mut out_labels[..count]);
    let mut k = 0;
    for (i, &word) in span.iter().enumerate() {
        let base = (from / 64 + i as u32) * 64;
        let mut bits = masked(i, word);
        while bits != 0 {
            let b = base + bits.trailing_zeros();
            out[k] = b;
            out_labels[k] = labels[(b - from) as usize];
            k += 1;
            bits &= bits - 1;
        }
    }
}

/// Set the bits `[from, to)` of `words`.
pub(super) fn set_bits(words: &mut [u64], from: u32, to: u32) {
    for w in from / 64..to.div_ceil(64) {
        words[w as usize] |= word_mask(w, from, to);
    }
}

/// Clear the bits `[from, to)` of `words`.
pub(super) fn clear_bits(words: &mut [u64], from: u32, to: u32) {
    for w in from / 64..to.div_ceil(64) {
        words[w as usize] &= !word_mask(w, from, to);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_ranges_match_a_bit_by_bit_walk() {
        let mut words = vec![0u64; 5];
        let mut seed = 0x1234_5678_9abc_def0u64;
        for w in words.iter_mut() {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            *w = seed;
        }
        let bit = |words: &[u64], b: u32| words[b as usize / 64] >> (b % 64) & 1 == 1;
        for (from, to) in [(0, 320), (3, 5), (63, 65), (64, 128), (70, 70), (1, 319), (100, 257)] {
            let (mut got, mut got_labels) = (Vec::new(), Vec::new());
            let labels: Vec<u32> = (from..to).map(|b: u32| b.wrapping_mul(2_654_435_761)).collect();
            set_bits_in(&words, from, to, &labels, &mut got, &mut got_labels);
            let want: Vec<u32> = (from..to).filter(|&b| bit(&words, b)).collect();
            assert_eq!(got, want, "[{from}, {to})");
            let want_labels: Vec<u32> = want.iter().map(|&b| labels[(b - from) as usize]).collect();
            assert_eq!(got_labels, want_labels, "[{from}, {to}) labels");
            let (mut set, mut clear) = (words.clone(), words.clone());
            set_bits(&mut set, from, to);
            clear_bits(&mut clear, from, to);
            for b in 0..320 {
                let inside = (from..to).contains(&b);
                assert_eq!(bit(&set, b), inside || bit(&words, b), "set [{from}, {to}) bit {b}");
                assert_eq!(bit(&clear, b), !inside && bit(&words, b), "clear [{from}, {to}) bit {b}");
            }
        }
    }
}
