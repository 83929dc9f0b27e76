//! The audit of a checkpoint's cut: which records each operator's state has absorbed
//! ([`Ledger`]), and whether every record before the source offsets is held exactly once
//! ([`Audit`]).

/// Which records (by stream offset) an operator's state has absorbed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Ledger {
    words: Vec<u64>,
}

impl Ledger {
    pub(super) fn new(n: usize) -> Self {
        Ledger {
            words: vec![0; n.div_ceil(64)],
        }
    }

    pub(super) fn insert(&mut self, i: usize) {
        if let Some(w) = self.words.get_mut(i / 64) {
            *w |= 1 << (i % 64);
        }
    }

    /// Whether the record at stream offset `i` has been absorbed (false for offsets beyond the
    /// stream).
    pub fn contains(&self, i: usize) -> bool {
        self.words
            .get(i / 64)
            .is_some_and(|w| w & (1 << (i % 64)) != 0)
    }
}

/// Alignment measured against a checkpoint: every record before the source offsets must be in
/// exactly one operator's snapshot, and none after them in any.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Audit {
    /// Records before the offsets that no snapshot holds.
    pub missing: usize,
    /// Records held by more than one snapshot.
    pub duplicated: usize,
    /// Records after the offsets (they replay) that a snapshot holds too.
    pub after_cut: usize,
}

impl Audit {
    /// Whether the cut is exact: nothing missing, nothing held twice, nothing past the offsets.
    pub fn is_exact(&self) -> bool {
        *self == Audit::default()
    }
}
