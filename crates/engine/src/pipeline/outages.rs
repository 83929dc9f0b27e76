//! What the pipeline does about its partitions: outages given, cut and healed (checked against
//! the job's shape), each partition's record as a [`PartitionView`], and the combined
//! watermark's stalls and peak state tracked as the run goes. The outages, the views and the
//! tracker themselves are `partition.rs`.

use std::borrow::Borrow;

use super::config::PipelineError;
use super::partition::{Outage, PartitionView, WatermarkStats};
use super::Pipeline;
use crate::stream::Stream;

impl<S: Borrow<Stream>> Pipeline<S> {
    /// The same pipeline with these outages (replacing any given before): each must name a
    /// partition the pipeline has, start at a finite time and end after it starts (+∞: not
    /// healed). They apply from the clock on, and to any replay.
    pub fn with_outages(mut self, outages: Vec<Outage>) -> Result<Self, PipelineError> {
        for o in &outages {
            self.check_outage(o)?;
        }
        self.outages.set(outages);
        self.refresh_due();
        Ok(self)
    }

    fn check_outage(&self, o: &Outage) -> Result<(), PipelineError> {
        if o.partition >= self.cfg.partitions {
            return Err(PipelineError::NoSuchPartition(
                o.partition,
                self.cfg.partitions,
            ));
        }
        if !o.from.is_finite() || o.until.is_nan() || o.until <= o.from {
            return Err(PipelineError::Outage(o.from, o.until));
        }
        Ok(())
    }

    /// The outages, sorted by partition and start.
    pub fn outages(&self) -> &[Outage] {
        &self.outages.list
    }

    /// Cuts partition `p` off now, until [`Pipeline::heal_partition`]: an outage from the
    /// clock to +∞. False if it is already cut off.
    pub fn cut_partition(&mut self, p: usize) -> Result<bool, PipelineError> {
        self.cut_partition_at(p, self.now)
    }

    /// Cuts partition `p` off at processing time `t`, no earlier than the clock (a moment
    /// between steps, as a press in a job run to `t`): [`Pipeline::cut_partition`] at `t`.
    pub fn cut_partition_at(&mut self, p: usize, t: f64) -> Result<bool, PipelineError> {
        let t = t.max(self.now);
        let o = Outage {
            partition: p,
            from: t,
            until: f64::INFINITY,
        };
        self.check_outage(&o)?;
        if self.outages.due(p, t).is_infinite() {
            return Ok(false);
        }
        let mut list = self.outages.list.clone();
        list.push(o);
        self.outages.set(list);
        self.refresh_due();
        Ok(true)
    }

    /// Heals partition `p` now: its outage not healed yet ends at the clock, and what it held
    /// back is emitted (healed the instant it was cut, the outage is forgotten). False if it
    /// was not cut off.
    pub fn heal_partition(&mut self, p: usize) -> bool {
        self.heal_partition_at(p, self.now)
    }

    /// Heals partition `p` at processing time `t`, no earlier than the clock (a moment
    /// between steps): [`Pipeline::heal_partition`] at `t`.
    pub fn heal_partition_at(&mut self, p: usize, t: f64) -> bool {
        let now = t.max(self.now);
        let mut list = self.outages.list.clone();
        let Some(i) = list
            .iter()
            .rposition(|o| o.partition == p && o.until.is_infinite())
        else {
            return false;
        };
        if now <= list[i].from {
            list.remove(i);
        } else {
            list[i].until = now;
        }
        self.outages.set(list);
        self.refresh_due();
        true
    }

    /// Every source partition: events emitted, outages, idle spans and its watermark.
    pub fn partitions(&self) -> Vec<PartitionView> {
        self.sources
            .iter()
            .enumerate()
            .map(|(p, s)| {
                let mut idle: Vec<(f64, Option<f64>)> = self.idle_log[p]
                    .iter()
                    .map(|&(from, until)| (from, Some(until)))
                    .collect();
                if let Some(since) = s.idle_since {
                    idle.push((since, None));
                }
                let wm = s.watermark.current();
                PartitionView {
                    partition: p,
                    events: s.offset,
                    len: self.partitions[p].len(),
                    out: self
                        .outages
                        .list
                        .iter()
                        .filter(|o| o.partition == p)
                        .map(|o| (o.from, o.until))
                        .collect(),
                    idle,
                    last_watermark: wm.is_finite().then_some(wm),
                    is_out: !s.ended && self.outages.due(p, self.now) > self.now,
                    is_idle: s.idle_since.is_some(),
                }
            })
            .collect()
    }

    /// Each source partition's watermark now (−∞ before its first record), by partition.
    pub fn partition_watermarks(&self) -> Vec<f64> {
        self.sources.iter().map(|s| s.watermark.current()).collect()
    }

    /// What the combined watermark did so far: its longest stall, the peak state.
    pub fn watermark_stats(&self) -> WatermarkStats {
        self.tracker.stats
    }

    /// The combined watermark's stalls of at least
    /// `STALL_KEPT` (1 s) closed so far in the current timeline (a
    /// crash forgets those it undoes), in order: processing-time spans `[from, until)`, each
    /// ended by an advance or by the end of input. The stall still going on is
    /// [`Pipeline::watermark_stalled_since`].
    pub fn watermark_stalls(&self) -> &[(f64, f64)] {
        &self.tracker.stalls
    }

    /// The events an outage holds back, as `(offset, heal)` in offset order: those of a
    /// partition whose processing time falls in one of its outages, which it emits at the
    /// outage's end (+∞: not healed) instead of at their own time.
    pub fn held_back(&self) -> Vec<(usize, f64)> {
        let events = &self.stream.borrow().events;
        let mut v = Vec::new();
        for (p, spans) in self.outages.spans.iter().enumerate() {
            let offsets = &self.partitions[p];
            let at = |i: usize| events.get(i).map_or(f64::INFINITY, |e| e.proc_time);
            for &(from, until) in spans {
                let a = offsets.partition_point(|&i| at(i as usize) < from);
                let b = offsets.partition_point(|&i| at(i as usize) < until);
                v.extend(offsets[a..b].iter().map(|&i| (i as usize, until)));
            }
        }
        v.sort_unstable_by_key(|&(i, _)| i);
        v
    }

    /// Since when (processing time, ms) the combined watermark has not advanced, while the
    /// input has not ended; None once every source has ended.
    pub fn watermark_stalled_since(&self) -> Option<f64> {
        (!self.tracker.input_ended).then_some(self.tracker.since)
    }

    /// Takes in operator `i`'s watermark and state after a delivery to it.
    #[inline]
    pub(super) fn track_watermark(&mut self, i: usize) {
        let op = &self.operators[i];
        let (wm, cells, bytes) = (
            op.processor.watermark(),
            op.processor.open_cells(),
            op.state_bytes(),
        );
        self.tracker.watermark(self.now, i, wm);
        self.tracker.state(i, cells, bytes);
    }

    /// A source has ended: when the last one has, the input has, and stalls stop counting.
    pub(super) fn track_input_end(&mut self) {
        if !self.tracker.input_ended && self.sources.iter().all(|s| s.ended) {
            self.tracker.close_stall(self.now);
            self.tracker.input_ended = true;
        }
    }

    /// After a restore: the idle record goes back with the sources, and the stall count
    /// starts again at the restored clock from the restored watermark (not an advance).
    pub(super) fn track_restore(&mut self) {
        for (log, s) in self.idle_log.iter_mut().zip(&self.sources) {
            log.truncate(s.idle_closed);
        }
        let t = &mut self.tracker;
        t.since = self.now;
        let now = self.now;
        t.stalls.retain(|&(_, until)| until <= now);
        t.input_ended = self.sources.iter().all(|s| s.ended);
        for (seen, op) in t.operators.iter_mut().zip(&self.operators) {
            *seen = (
                op.processor.watermark(),
                op.processor.open_cells(),
                op.state_bytes(),
            );
        }
        t.cells = t.operators.iter().map(|o| o.1).sum();
        t.bytes = t.operators.iter().map(|o| o.2).sum();
        t.stats.combined = t.operators.iter().fold(f64::INFINITY, |m, o| m.min(o.0));
        t.stats.peak_open_cells = t.stats.peak_open_cells.max(t.cells);
        t.stats.peak_state_bytes = t.stats.peak_state_bytes.max(t.bytes);
    }
}
