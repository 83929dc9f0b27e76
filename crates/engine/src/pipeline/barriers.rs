//! What the pipeline does with barriers and checkpoints: injecting a checkpoint's barriers,
//! storing unaligned checkpoints' in-flight data, settling a receiver's barriers once they are
//! aligned (an operator snapshots and acknowledges, the sink pre-commits), completing a
//! checkpoint (the transactional sink commits) and auditing its cut. The bookkeeping itself is
//! `alignment.rs` ([`Alignment`]), `checkpoint.rs` (the checkpoints in progress and completed,
//! the restore point) and `audit.rs` ([`Ledger`](super::Ledger), [`Audit`]).

use std::borrow::Borrow;
use std::collections::BTreeMap;

use super::addressing::{bit, full, Receiver};
use super::alignment::Alignment;
use super::audit::{Audit, Ledger};
use super::checkpoint::{CompletedCheckpoint, PendingCheckpoint, RestorePoint};
use super::config::CheckpointMode;
use super::steps::Outcome;
use super::Pipeline;
use crate::channel::{InFlight, Message};
use crate::stream::Stream;
use crate::trigger::Pane;

impl<S: Borrow<Stream>> Pipeline<S> {
    fn alignment_mut(&mut self, r: Receiver) -> &mut Alignment {
        match r {
            Receiver::Operator(i) => &mut self.operators[i].alignment,
            Receiver::Sink => &mut self.sink.state.alignment,
        }
    }

    /// Stores a message receiver `r` took from input `input` (channel `c`) with every
    /// unaligned checkpoint whose barrier has not yet come on that input: it is kept once in
    /// the log, each such checkpoint's range on the channel reaching past it. A channel's
    /// barriers come in order, so the checkpoints aligning whose barrier came on an input are
    /// the oldest ones: the newest tells whether any still waits for it.
    pub(super) fn store_in_flight(&mut self, r: Receiver, input: usize, c: usize, m: InFlight) {
        let alignment = match r {
            Receiver::Operator(i) => &self.operators[i].alignment,
            Receiver::Sink => &self.sink.state.alignment,
        };
        if alignment
            .aligning
            .last()
            .is_some_and(|&(_, mask)| mask & bit(input) == 0)
        {
            self.in_flight.push(c, m);
        }
    }

    /// The checkpoint in progress numbered `k` (they are kept in order of their numbers).
    pub(super) fn pending_mut(&mut self, k: u32) -> Option<&mut PendingCheckpoint> {
        let at = self.pending.binary_search_by_key(&k, |pc| pc.id).ok()?;
        Some(&mut self.pending[at])
    }

    /// The channels into receiver `r`.
    fn input_channels(&self, r: Receiver) -> Vec<usize> {
        let a = self.addressing();
        match r {
            Receiver::Operator(i) => (0..self.cfg.partitions)
                .map(|p| a.source_to_operator(p, i))
                .collect(),
            Receiver::Sink => (0..self.cfg.parallelism)
                .map(|i| a.operator_to_sink(i))
                .collect(),
        }
    }

    /// Unaligned: barrier `k` came to receiver `r` on channel `c` (`first`: its first
    /// barrier of `k` there). From the first, what `r` takes from each input is stored with
    /// `k` until the barrier comes on it.
    pub(super) fn barrier_in_flight(&mut self, r: Receiver, c: usize, k: u32, first: bool) {
        let inputs = if first {
            self.input_channels(r)
        } else {
            Vec::new()
        };
        let next: Vec<(usize, usize)> = inputs
            .iter()
            .map(|&d| (d, self.in_flight.next(d)))
            .collect();
        let end = self.in_flight.next(c);
        if let Some(pc) = self.pending_mut(k) {
            for (d, n) in next {
                pc.channel_state.insert(d, (n, None));
            }
            if let Some((_, e)) = pc.channel_state.get_mut(&c) {
                *e = Some(end);
            }
        }
    }

    /// Unaligned: checkpoint `k` is aligned at receiver `r`; inputs that ended without its
    /// barrier store nothing more.
    fn close_in_flight(&mut self, r: Receiver, k: u32) {
        let ends: Vec<(usize, usize)> = self
            .input_channels(r)
            .into_iter()
            .map(|d| (d, self.in_flight.next(d)))
            .collect();
        if let Some(pc) = self.pending_mut(k) {
            for (d, n) in ends {
                if let Some((_, e @ None)) = pc.channel_state.get_mut(&d) {
                    *e = Some(n);
                }
            }
        }
    }

    /// Lets go of the in-flight messages no checkpoint in progress and not the restore point
    /// stores: per channel, those before the restore point's range, or before the oldest
    /// checkpoint in progress's (a channel's ranges start in the checkpoints' order).
    pub(super) fn release_in_flight(&mut self) {
        for c in 0..self.in_flight.channels() {
            let kept = self
                .checkpoints
                .restore_point()
                .channel_state
                .get(&c)
                .map(|r| r.start)
                .or_else(|| {
                    self.pending
                        .iter()
                        .find_map(|pc| pc.channel_state.get(&c).map(|&(n, _)| n))
                })
                .unwrap_or_else(|| self.in_flight.next(c));
            self.in_flight.release_before(c, kept);
        }
    }

    /// Settles receiver `r`'s barriers, for every checkpoint whose barrier it now has on all
    /// live inputs, oldest first. An operator snapshots (aligned and at-least-once modes;
    /// unaligned mode snapshotted at the first barrier and stops storing in-flight data) and
    /// acknowledges the checkpoint; the sink pre-commits its transaction (aligned modes; the
    /// unaligned sink pre-committed at the first barrier) and is done with the checkpoint.
    /// Then every checkpoint done at the sink and acknowledged by every operator completes.
    pub(super) fn settle(&mut self, r: Receiver) -> Option<Outcome> {
        let inputs = self.addressing().inputs(r);
        let unaligned = self.cfg.mode == CheckpointMode::Unaligned;
        let mut done = None;
        while let Some(k) = self.alignment_mut(r).next_aligned(inputs) {
            if unaligned {
                self.close_in_flight(r, k);
            }
            match r {
                Receiver::Operator(i) => {
                    if !unaligned {
                        done = Some(self.snapshot_operator(i, k));
                    }
                    if let Some(pc) = self.pending_mut(k) {
                        pc.acked |= bit(i);
                    }
                    if let Some(c) = self.complete_ready() {
                        done = Some(c);
                    }
                }
                Receiver::Sink => {
                    if self.pending_mut(k).is_none() {
                        continue;
                    }
                    if !unaligned {
                        self.precommit(k);
                    }
                    if let Some(pc) = self.pending_mut(k) {
                        pc.sink_done = true;
                    }
                }
            }
        }
        match r {
            Receiver::Operator(_) => done,
            Receiver::Sink => self.complete_ready(),
        }
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
        let ledgers = ledgers?;
        let stored: Vec<usize> = ck
            .channel_state
            .iter()
            .flat_map(|(&c, r)| self.in_flight.range(c, r.clone()))
            .filter_map(|m| match m.message {
                Message::Record { stream_offset, .. } => Some(stream_offset),
                _ => None,
            })
            .collect();
        Some(self.audit_ledgers(&ledgers, &stored, offsets))
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

impl<S: Borrow<Stream>> Pipeline<S> {
    /// Injects a checkpoint's barriers at every live source now. `None` when every source has
    /// ended (nothing left to checkpoint).
    pub fn checkpoint_now(&mut self) -> Option<u32> {
        if self.sources.iter().all(|s| s.ended) {
            return None;
        }
        let id = self.next_id;
        self.next_id += 1;
        let nn = self.cfg.parallelism;
        let addressing = self.addressing();
        for p in 0..self.cfg.partitions {
            if self.sources[p].ended {
                continue;
            }
            for i in 0..nn {
                self.channels.send(
                    addressing.source_to_operator(p, i),
                    self.now,
                    Message::Barrier { checkpoint: id },
                );
            }
        }
        let sources = self.source_snapshots();
        self.pending.push(PendingCheckpoint {
            id,
            time: self.now,
            next_tick: self.next_tick,
            sources,
            operators: vec![None; nn],
            alignment: vec![0.0; nn],
            channel_state: BTreeMap::new(),
            sink: None,
            sink_done: false,
            acked: 0,
        });
        Some(id)
    }

    /// Completes, in order, the checkpoints done at the sink and acknowledged by every operator.
    pub(super) fn complete_ready(&mut self) -> Option<Outcome> {
        let nn = self.cfg.parallelism;
        let mut done = None;
        while let Some(pc) = self.pending.first() {
            if !pc.sink_done || pc.acked & full(nn) != full(nn) {
                break;
            }
            let pc = self.pending.remove(0);
            let k = pc.id;
            let Some(operators) = pc.operators.into_iter().collect::<Option<Vec<_>>>() else {
                continue;
            };
            let Some((state, mark)) = pc.sink else {
                continue;
            };
            let sink = &mut self.sink;
            // What the sink took after the cut is delivered again on restore.
            let drop = mark
                .saturating_sub(sink.since_base)
                .min(sink.since_commit.len());
            sink.since_commit.drain(..drop);
            sink.since_base += drop;
            let mut staged = 0;
            for s in &mut sink.sinks {
                staged += s.commit_checkpoint(k);
            }
            sink.commit_outbox(k);
            let operator_bytes: usize = operators.iter().map(|s| s.operator.state_bytes()).sum();
            let source_bytes: usize = pc
                .sources
                .iter()
                .map(|s| 16 + s.source.sent_watermark.len() * 8)
                .sum();
            let channel_state: BTreeMap<usize, std::ops::Range<usize>> = pc
                .channel_state
                .into_iter()
                .map(|(c, (start, end))| (c, start..end.unwrap_or(start).max(start)))
                .collect();
            let restore = RestorePoint {
                id: k,
                time: pc.time,
                next_tick: pc.next_tick,
                channel_state,
                sources: pc.sources,
                operators,
                sink: state,
            };
            let in_flight = restore.in_flight();
            let bytes = operator_bytes
                + source_bytes
                + staged * Pane::CHECKPOINT_BYTES
                + in_flight * InFlight::CHECKPOINT_BYTES;
            let offsets = restore.offsets();
            let audit = self.audit_restore_point(&restore, &offsets);
            // The one a crash restores from now on: the previous one's state is freed.
            self.checkpoints.complete(
                CompletedCheckpoint {
                    id: k,
                    time: pc.time,
                    completed_at: self.now,
                    offsets,
                    bytes,
                    sink_pending: staged,
                    alignment: pc.alignment,
                    in_flight,
                    audit,
                },
                restore,
            );
            if self.cfg.mode == CheckpointMode::Unaligned {
                self.release_in_flight();
            }
            done = Some(Outcome::CheckpointCompleted { checkpoint: k });
        }
        done
    }
}
