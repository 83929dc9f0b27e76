//! The audit of a checkpoint's cut: which records each operator's state has absorbed
//! ([`Ledger`]), and whether every record before the source offsets is held exactly once
//! ([`Audit`]).

use std::borrow::Borrow;
use std::collections::BTreeMap;

use super::super::channel::Message;
use super::super::stream::Stream;
use super::checkpoint::{CompletedCheckpoint, RestorePoint};
use super::Pipeline;

/// Which records (by stream offset) an operator's state has absorbed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ledger {
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

impl<S: Borrow<Stream>> Pipeline<S> {
    /// Alignment against a completed checkpoint (audit runs only), as measured when it
    /// completed.
    pub fn audit(&self, ck: &CompletedCheckpoint) -> Option<Audit> {
        ck.audit
    }

    /// Alignment of a checkpoint's state against its source offsets (audit runs only).
    pub(super) fn audit_restore_point(
        &self,
        ck: &RestorePoint,
        offsets: &[usize],
    ) -> Option<Audit> {
        let ledgers: Option<Vec<&Ledger>> = ck
            .operators
            .iter()
            .map(|s| s.operator.ledger.as_ref())
            .collect();
        let stored: Vec<usize> = ck
            .channel_state
            .iter()
            .filter_map(|(_, m)| match m.message {
                Message::Record { stream_offset, .. } => Some(stream_offset),
                _ => None,
            })
            .collect();
        Some(self.audit_ledgers(&ledgers?, &stored, offsets))
    }

    /// Every record's effect in the operators' states now: after the end, each must be there
    /// exactly once (audit runs only).
    pub fn audit_now(&self) -> Option<Audit> {
        let ledgers: Option<Vec<&Ledger>> =
            self.operators.iter().map(|o| o.ledger.as_ref()).collect();
        Some(self.audit_ledgers(&ledgers?, &[], &self.offsets()))
    }

    pub(super) fn audit_ledgers(
        &self,
        ledgers: &[&Ledger],
        stored: &[usize],
        offsets: &[usize],
    ) -> Audit {
        let mut a = Audit::default();
        let mut in_flight: BTreeMap<usize, usize> = BTreeMap::new();
        for &i in stored {
            *in_flight.entry(i).or_insert(0) += 1;
        }
        for (p, part) in self.partitions.iter().enumerate() {
            for (j, &idx) in part.iter().enumerate() {
                let n = ledgers.iter().filter(|l| l.contains(idx as usize)).count()
                    + in_flight.get(&(idx as usize)).copied().unwrap_or(0);
                if j < offsets[p] {
                    if n == 0 {
                        a.missing += 1;
                    } else if n > 1 {
                        a.duplicated += 1;
                    }
                } else if n > 0 {
                    a.after_cut += 1;
                }
            }
        }
        a
    }
}
