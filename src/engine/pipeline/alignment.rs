//! Barrier alignment: what a receiver does when barriers arrive on its inputs, and the
//! in-flight data unaligned checkpoints store.

use std::borrow::Borrow;

use super::super::channel::InFlight;
use super::super::stream::Stream;
use super::addressing::{bit, full};
use super::config::CheckpointMode;
use super::trace::Outcome;
use super::Pipeline;

impl<S: Borrow<Stream>> Pipeline<S> {
    /// Stores a message a receiver took from input `input` (channel `c`) with every unaligned
    /// checkpoint whose barrier has not yet come on that input.
    pub(super) fn store_in_flight(
        &mut self,
        aligning: &[(u32, u64)],
        input: usize,
        c: usize,
        m: InFlight,
    ) {
        for &(k, mask) in aligning {
            if mask & bit(input) == 0 {
                if let Some(pc) = self.pending.iter_mut().find(|pc| pc.id == k) {
                    pc.channel_state.push((c, m));
                }
            }
        }
    }

    /// Settles operator `i`'s barriers: aligned and at-least-once modes snapshot for every
    /// checkpoint whose barrier it now has on all live inputs; unaligned mode, which snapshotted
    /// at the first barrier, stops storing in-flight data for them.
    pub(super) fn settle(&mut self, i: usize) -> Option<Outcome> {
        let np = self.cfg.partitions;
        let mut done = None;
        loop {
            let op = &mut self.operators[i];
            let Some(&(k, mask)) = op.aligning.first() else {
                break;
            };
            if (mask | op.ended) & full(np) != full(np) {
                break;
            }
            op.aligning.remove(0);
            if op.aligning.is_empty() {
                op.blocked = 0;
            }
            if self.cfg.mode != CheckpointMode::Unaligned {
                done = Some(self.snapshot_operator(i, k));
            }
            if let Some(pc) = self.pending.iter_mut().find(|pc| pc.id == k) {
                pc.acked |= bit(i);
            }
            if let Some(c) = self.complete_ready() {
                done = Some(c);
            }
        }
        done
    }

    /// Settles the sink's barriers: a checkpoint whose barrier the sink now has from every live
    /// operator is done at the sink (aligned modes pre-commit its transaction now); then every
    /// checkpoint done at the sink and acknowledged by every operator completes.
    pub(super) fn try_complete(&mut self) -> Option<Outcome> {
        let nn = self.cfg.parallelism;
        loop {
            let st = &mut self.sink.state;
            let Some(&(k, mask)) = st.aligning.first() else {
                break;
            };
            if (mask | st.ended) & full(nn) != full(nn) {
                break;
            }
            st.aligning.remove(0);
            if st.aligning.is_empty() {
                st.blocked = 0;
            }
            let unaligned = self.cfg.mode == CheckpointMode::Unaligned;
            let sink = &mut self.sink;
            let Some(pc) = self.pending.iter_mut().find(|pc| pc.id == k) else {
                continue;
            };
            if !unaligned {
                let txn = std::mem::take(&mut sink.open);
                sink.precommitted.push((k, txn));
                let mut state = sink.state.clone();
                state.aligning.clear();
                state.blocked = 0;
                pc.sink = Some((state, sink.since_base + sink.since_commit.len()));
            }
            pc.sink_done = true;
        }
        self.complete_ready()
    }
}
