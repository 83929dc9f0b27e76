//! Barrier alignment, one routine for operator instances and the sink. A receiver keeps, over
//! its numbered inputs, which have ended, which it holds back and, per checkpoint whose
//! barrier has arrived on some inputs, which ([`Alignment`]). When a checkpoint's barrier has
//! come on every live input it is aligned (`Pipeline::settle`): an operator snapshots (or,
//! unaligned, stops storing in-flight data for it) and acknowledges; the sink pre-commits
//! (aligned modes) and is done with it. Unaligned checkpoints store what a receiver takes
//! from an input before the barrier comes on it.

use super::addressing::{bit, full};

/// A receiver's barrier bookkeeping over its inputs (input `k` is bit `k`).
#[derive(Debug, Clone, Default)]
pub(super) struct Alignment {
    /// Inputs that have ended.
    pub(super) ended: u64,
    /// Inputs held back until the checkpoint being aligned has its barrier on all of them.
    pub(super) blocked: u64,
    /// Checkpoints whose barriers have arrived on some inputs: id and those inputs.
    pub(super) aligning: Vec<(u32, u64)>,
    /// `aligning` may be out of the checkpoints' order (a later checkpoint's first barrier
    /// came before an earlier one's), so a search must look at every entry. It is set when
    /// such a barrier is pushed and cleared when the list empties.
    unordered: bool,
}

/// Two alignments are the same bookkeeping whatever their search needs.
impl PartialEq for Alignment {
    fn eq(&self, other: &Self) -> bool {
        self.ended == other.ended
            && self.blocked == other.blocked
            && self.aligning == other.aligning
    }
}

impl Eq for Alignment {}

impl Alignment {
    /// Barrier `k` arrived on input `input`; `block` holds the input back until the barrier
    /// has come on every live input. `Some(idle)` when it is `k`'s first barrier, `idle` when
    /// no other checkpoint was aligning.
    pub(super) fn barrier(&mut self, k: u32, input: usize, block: bool) -> Option<bool> {
        if block {
            self.blocked |= bit(input);
        }
        match self.position(k) {
            Some(at) => {
                self.aligning[at].1 |= bit(input);
                None
            }
            None => {
                let idle = self.aligning.is_empty();
                if self.aligning.last().is_some_and(|&(last, _)| last > k) {
                    self.unordered = true;
                }
                self.aligning.push((k, bit(input)));
                Some(idle)
            }
        }
    }

    /// Where checkpoint `k` is in `aligning`. Checkpoints enter the list in the order their
    /// first barrier reaches the receiver and leave it without reordering it. That is nearly
    /// always the order of their numbers, and then a binary search finds one among the
    /// thousands a long transit and a short interval keep in progress (a linear search here was
    /// most of an unaligned run's time). It is not always (a random schedule under at-least-once
    /// with idle partitions and a crash brought barrier 279 to a receiver aligning 281), and
    /// then every entry is looked at.
    fn position(&self, k: u32) -> Option<usize> {
        if self.unordered {
            self.aligning.iter().position(|&(id, _)| id == k)
        } else {
            self.aligning.binary_search_by_key(&k, |&(id, _)| id).ok()
        }
    }

    /// Input `input` ended: it no longer counts, and is not held back.
    pub(super) fn end(&mut self, input: usize) {
        self.ended |= bit(input);
        self.blocked &= !bit(input);
    }

    /// Every one of `inputs` inputs has ended.
    pub(super) fn all_ended(&self, inputs: usize) -> bool {
        self.ended & full(inputs) == full(inputs)
    }

    pub(super) fn is_ended(&self, input: usize) -> bool {
        self.ended & bit(input) != 0
    }

    pub(super) fn is_blocked(&self, input: usize) -> bool {
        self.blocked & bit(input) != 0
    }

    /// The inputs that have ended, as a bit set.
    pub(super) fn ended(&self) -> u64 {
        self.ended
    }

    /// The inputs held back, as a bit set.
    pub(super) fn blocked(&self) -> u64 {
        self.blocked
    }

    /// The oldest checkpoint aligning and the inputs its barrier has come on.
    pub(super) fn current(&self) -> Option<(u32, u64)> {
        self.aligning.first().copied()
    }

    /// How many of `inputs` live inputs have not delivered barrier `k` yet; once `k` no longer
    /// aligns, its inputs count as `settled`.
    pub(super) fn waiting(&self, k: u32, inputs: usize, settled: u64) -> usize {
        let mask = self.position(k).map_or(settled, |at| self.aligning[at].1);
        (full(inputs) & !(mask | self.ended)).count_ones() as usize
    }

    /// The oldest checkpoint whose barrier every live input of `inputs` has delivered, taken
    /// off; when no other aligns, nothing is held back any more.
    pub(super) fn next_aligned(&mut self, inputs: usize) -> Option<u32> {
        let &(k, mask) = self.aligning.first()?;
        if (mask | self.ended) & full(inputs) != full(inputs) {
            return None;
        }
        self.aligning.remove(0);
        if self.aligning.is_empty() {
            self.blocked = 0;
            self.unordered = false;
        }
        Some(k)
    }

    /// What a snapshot keeps: the ended inputs; no checkpoint aligning, nothing held back.
    pub(super) fn at_cut(&self) -> Self {
        Alignment {
            ended: self.ended,
            blocked: 0,
            aligning: Vec::new(),
            unordered: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkpoint_is_found_when_first_barriers_come_out_of_order() {
        let mut a = Alignment::default();
        assert_eq!(a.barrier(281, 0, false), Some(true));
        assert_eq!(a.barrier(279, 2, false), Some(false));
        // Both are found: a binary search over [281, 279] misses 281.
        assert_eq!(a.barrier(281, 1, false), None);
        assert_eq!(a.barrier(279, 1, false), None);
        assert_eq!(a.waiting(281, 4, 0), 2);
        assert_eq!(a.waiting(279, 4, 0), 2);
        assert_eq!(a.aligning, vec![(281, 0b011), (279, 0b110)]);
    }
}
