//! Block 6, checkpoint and replay: a job's state and its source offset are snapshotted
//! together and restored together, so events after a checkpoint are processed twice by the
//! machine and once by the world. Sinks are the world: an `additive` sink adds every pane it
//! receives (replays and refinements included: the classic bug), an `idempotent` sink upserts
//! on (window, key, pane index), a `transactional` sink stages output (`Staging`) and commits
//! it only when a checkpoint completes.
//!
//! There is one checkpoint model, the parallel pipeline's (`engine::pipeline`): it keeps its
//! completed checkpoints in a `CheckpointLog` (every checkpoint's small record, the latest
//! one's whole state alone) and writes to the [`Sink`]s here, whose transactional staging
//! pre-commits at a checkpoint's barrier and commits when the checkpoint completes. The single
//! job of the report's block 6 ([`Job`]) is that pipeline at width one, run by source offsets
//! along a schedule ([`ScheduleStep`],
//! [`reference_schedule`](ScheduleStep::reference_schedule)), in `job.rs`.

mod job;

use std::collections::BTreeMap;
use std::fmt;

use super::trigger::{Accumulation, Pane};
use super::window::CellId;
pub use job::Job;

/// How a sink applies the panes it receives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SinkKind {
    /// `+=` every pane's value.
    Additive,
    /// Upsert on (window, key, pane index): a replayed pane overwrites itself.
    Idempotent,
    /// Staged until the next completed checkpoint; a crash discards what was staged.
    Transactional,
}

impl SinkKind {
    /// The three kinds, in the order the pipeline feeds and reports them.
    pub const ALL: [SinkKind; 3] = [
        SinkKind::Additive,
        SinkKind::Idempotent,
        SinkKind::Transactional,
    ];

    /// The kind's name on the command line and on screen: `additive`, `idempotent` or
    /// `transactional`.
    pub fn name(&self) -> &'static str {
        match self {
            SinkKind::Additive => "additive",
            SinkKind::Idempotent => "idempotent",
            SinkKind::Transactional => "transactional",
        }
    }
}

impl fmt::Display for SinkKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The transactional sink's staging: the open transaction (panes delivered since the last
/// pre-commit) and the transactions pre-committed at a checkpoint's barrier, each waiting for
/// its checkpoint to complete. A crash loses all of it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Staging {
    open: Vec<Pane>,
    precommitted: Vec<(u32, Vec<Pane>)>,
}

impl Staging {
    /// Adds a pane to the open transaction.
    pub fn stage(&mut self, pane: Pane) {
        self.open.push(pane);
    }

    /// The open transaction belongs to `checkpoint` from now on; a new one opens.
    pub fn precommit(&mut self, checkpoint: u32) {
        let txn = std::mem::take(&mut self.open);
        self.precommitted.push((checkpoint, txn));
    }

    /// The transaction pre-committed for `checkpoint`, taken off (empty when there is none).
    pub fn take(&mut self, checkpoint: u32) -> Vec<Pane> {
        match self
            .precommitted
            .iter()
            .position(|(id, _)| *id == checkpoint)
        {
            Some(at) => self.precommitted.remove(at).1,
            None => Vec::new(),
        }
    }

    /// Everything staged, taken off: the pre-committed transactions in order, then the open
    /// one.
    pub fn take_all(&mut self) -> Vec<Pane> {
        let mut txn = Vec::new();
        for (_, t) in std::mem::take(&mut self.precommitted) {
            txn.extend(t);
        }
        txn.append(&mut self.open);
        txn
    }

    /// A crash: everything staged is lost.
    pub fn clear(&mut self) {
        self.open.clear();
        self.precommitted.clear();
    }

    /// Panes staged: the open transaction and the pre-committed ones.
    pub fn len(&self) -> usize {
        self.open.len()
            + self
                .precommitted
                .iter()
                .map(|(_, t)| t.len())
                .sum::<usize>()
    }
}

/// A sink: what the outside world holds of the job's output.
#[derive(Debug, Clone)]
pub struct Sink {
    kind: SinkKind,
    mode: Accumulation,
    /// Additive and transactional: the value per cell.
    values: BTreeMap<CellId, i64>,
    /// Idempotent: the latest value per (cell, pane index).
    upserts: BTreeMap<(CellId, u32), Pane>,
    /// Transactional: panes waiting for their checkpoint.
    staging: Staging,
    /// Panes delivered to the sink, replays included.
    received: u64,
}

impl Sink {
    /// An empty sink of `kind`, applying panes the way accumulation `mode` means them.
    pub fn new(kind: SinkKind, mode: Accumulation) -> Self {
        Sink {
            kind,
            mode,
            values: BTreeMap::new(),
            upserts: BTreeMap::new(),
            staging: Staging::default(),
            received: 0,
        }
    }

    /// How it applies the panes it receives.
    pub fn kind(&self) -> SinkKind {
        self.kind
    }

    /// Panes delivered to the sink, replays included.
    pub fn received(&self) -> u64 {
        self.received
    }

    /// Delivers one pane.
    pub fn deliver(&mut self, pane: &Pane) {
        self.received += 1;
        match self.kind {
            SinkKind::Additive => *self.values.entry(pane.cell).or_insert(0) += pane.value,
            SinkKind::Idempotent => {
                self.upserts.insert((pane.cell, pane.index), *pane);
            }
            SinkKind::Transactional => self.staging.stage(*pane),
        }
    }

    /// The end of input: commits everything staged, pre-committed or open (no checkpoint
    /// follows to commit it).
    pub fn commit_all(&mut self) {
        if self.kind != SinkKind::Transactional {
            return;
        }
        let txn = self.staging.take_all();
        self.apply_all(&txn);
    }

    /// A checkpoint's barrier reached the sink: what is staged so far belongs to it.
    pub fn precommit(&mut self, checkpoint: u32) {
        if self.kind == SinkKind::Transactional {
            self.staging.precommit(checkpoint);
        }
    }

    /// Checkpoint `checkpoint` completed: commits the transaction pre-committed for it;
    /// returns how many panes it held.
    pub fn commit_checkpoint(&mut self, checkpoint: u32) -> usize {
        if self.kind != SinkKind::Transactional {
            return 0;
        }
        let txn = self.staging.take(checkpoint);
        self.apply_all(&txn);
        txn.len()
    }

    fn apply_all(&mut self, txn: &[Pane]) {
        for pane in txn {
            apply(&mut self.values, pane, self.mode);
        }
    }

    /// The job crashed: what was staged is lost with it.
    pub fn abort(&mut self) {
        self.staging.clear();
    }

    /// Panes staged and not yet committed.
    pub fn staged(&self) -> usize {
        self.staging.len()
    }

    /// The idempotent kind: Σ of the values of the panes it holds, each pane once (its latest
    /// delivery), whatever they mean under the accumulation mode; 0 for the other kinds.
    pub fn panes_once_total(&self) -> i64 {
        self.upserts.values().map(|p| p.value).sum()
    }

    /// [`Sink::panes_once_total`] for one cell: Σ of the values of its panes, each once.
    pub fn panes_once_of(&self, cell: CellId) -> i64 {
        self.upserts
            .range((cell, 0)..=(cell, u32::MAX))
            .map(|(_, p)| p.value)
            .sum()
    }

    /// The value of every cell as the sink holds it now.
    pub fn output(&self) -> BTreeMap<CellId, i64> {
        match self.kind {
            SinkKind::Additive | SinkKind::Transactional => self.values.clone(),
            SinkKind::Idempotent => {
                let mut out = BTreeMap::new();
                for pane in self.upserts.values() {
                    apply(&mut out, pane, self.mode);
                }
                out
            }
        }
    }
}

/// Applies a pane the way its accumulation mode means it (panes of a cell in index order).
fn apply(values: &mut BTreeMap<CellId, i64>, pane: &Pane, mode: Accumulation) {
    let v = values.entry(pane.cell).or_insert(0);
    match mode {
        Accumulation::Accumulating => *v = pane.value,
        Accumulation::Discarding => *v += pane.value,
        Accumulation::Retracting => *v += pane.value - pane.retraction.unwrap_or(0),
    }
}

/// A job's completed checkpoints: the record of each, in order, and the whole state of the
/// latest one alone, which is what a crash restores (the start's state before the first). Memory
/// follows the state, not how many checkpoints were taken.
#[derive(Debug, Clone)]
pub(crate) struct CheckpointLog<R, S> {
    records: Vec<R>,
    restore: S,
}

impl<R, S> CheckpointLog<R, S> {
    /// No checkpoint yet: a crash restores `start`.
    pub fn new(start: S) -> Self {
        CheckpointLog {
            records: Vec::new(),
            restore: start,
        }
    }

    /// A checkpoint completed: its record is kept, its state replaces the previous one's.
    pub fn complete(&mut self, record: R, state: S) -> &R {
        self.restore = state;
        self.records.push(record);
        self.records.last().expect("just pushed")
    }

    /// The completed checkpoints' records, in order.
    pub fn records(&self) -> &[R] {
        &self.records
    }

    /// The latest completed checkpoint's record (`None` before the first).
    pub fn last(&self) -> Option<&R> {
        self.records.last()
    }

    /// What a crash restores: the latest completed checkpoint's state, or the start's.
    pub fn restore_point(&self) -> &S {
        &self.restore
    }

    /// Checkpoints whose whole state is held in memory to be restored: the latest one only
    /// (none before the first).
    pub fn snapshots_held(&self) -> usize {
        usize::from(!self.records.is_empty())
    }
}

/// A completed checkpoint, as its record: the pipeline's
/// ([`CompletedCheckpoint`](super::pipeline::CompletedCheckpoint)), the one checkpoint model,
/// which block 6's [`Job`] keeps too.
pub use super::pipeline::CompletedCheckpoint as Checkpoint;

/// One step of a crash schedule; `at` is a source offset (events emitted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScheduleStep {
    /// Run to `at`, then take a checkpoint.
    Checkpoint {
        /// Events the sources have emitted in all when the barriers are injected.
        at: usize,
    },
    /// Run to `at`, then crash and restore the last checkpoint.
    Crash {
        /// Events the sources have emitted in all when the job crashes.
        at: usize,
    },
}

impl ScheduleStep {
    /// The reference's schedule: five times, run to `n·i/6`, checkpoint, run 800 events on,
    /// crash.
    pub fn reference_schedule(n: usize) -> Vec<ScheduleStep> {
        (1..=5)
            .flat_map(|i| {
                let at = ((n * i) as f64 / 6.0) as usize;
                [
                    ScheduleStep::Checkpoint { at },
                    ScheduleStep::Crash { at: at + 800 },
                ]
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_schedule_offsets() {
        let s = ScheduleStep::reference_schedule(20_000);
        assert_eq!(s[0], ScheduleStep::Checkpoint { at: 3333 });
        assert_eq!(s[1], ScheduleStep::Crash { at: 4133 });
        assert_eq!(s[9], ScheduleStep::Crash { at: 17466 });
    }
}
