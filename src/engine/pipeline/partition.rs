//! A partition that stalls the watermark: outages ([`Outage`]), what each source partition did
//! ([`PartitionView`]: events, outages, idle spans, its watermark) and what the job's combined
//! watermark did ([`WatermarkStats`]: its longest stall, the most state the operators held).
//!
//! - **Outage.** Partition `p` delivers nothing in processing time `[from, until)`: the events
//!   it would have emitted then (their processing times fall in the span) are emitted, in
//!   their order, at `until` (the heal). A source's next emission is due at its event's
//!   processing time, moved to the heal when it falls in an outage ([`Outages::due`]); its end
//!   of input likewise. Outages are data beside the dials, a function of processing time
//!   alone, so a replay after a crash meets them at the same points; `until` may be +∞ (cut
//!   off and not healed yet: the partition is silent for good, and the job cannot finish).
//!   Barriers still pass a silent partition: the outage is before the source (clients that
//!   cannot reach it), not in the job.
//! - **The watermark stalls.** A partition's watermark is carried by its records, so while
//!   it is silent it stays where its last record left it, and an operator's watermark, the
//!   smallest of its inputs', stays there too: windows are not closed, state piles up. The
//!   source's watermark generator reads the held-back records as they were logged (an outage
//!   delays when a record is read, not what it says), so after the heal the partition's
//!   watermark climbs through them as if they had come in time.
//! - **Idleness** (`idle_timeout`, as Flink's `withIdleness`) is in `source` and `operator`;
//!   here is its record: when each partition went idle and when it emitted again.
//! - **The combined watermark** is the smallest operator watermark. Its longest stall is the
//!   longest span of processing time, before the end of input (every source ended), in which
//!   it did not advance; the peak state is the most open cells (and state bytes) the operators
//!   held together at any moment. Both are kept over the run as it happened: a crash restarts
//!   the stall count at the restored time, and the peaks keep what the replays reached too.

use std::borrow::Borrow;

use super::super::stream::Stream;
use super::config::PipelineError;
use super::Pipeline;

/// A source partition delivers nothing in processing time `[from, until)`, then at `until`
/// everything it held back.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outage {
    /// The partition that falls silent.
    pub partition: usize,
    /// When it falls silent: processing time, ms.
    pub from: f64,
    /// When it heals: processing time, ms (+∞: not healed).
    pub until: f64,
}

/// The outages of every partition, merged per partition into sorted, disjoint spans.
#[derive(Debug, Clone, Default)]
pub(super) struct Outages {
    /// As given, sorted by partition and start.
    list: Vec<Outage>,
    /// Per partition, disjoint `[from, until)` spans in order (touching ones joined).
    spans: Vec<Vec<(f64, f64)>>,
}

impl Outages {
    /// No outage, over `partitions` partitions.
    pub(super) fn new(partitions: usize) -> Self {
        Outages {
            list: Vec::new(),
            spans: vec![Vec::new(); partitions],
        }
    }

    /// Replaces the outages with `list` (already checked).
    fn set(&mut self, mut list: Vec<Outage>) {
        list.sort_by(|a, b| {
            a.partition
                .cmp(&b.partition)
                .then(a.from.total_cmp(&b.from))
        });
        for spans in &mut self.spans {
            spans.clear();
        }
        for o in &list {
            let spans = &mut self.spans[o.partition];
            match spans.last_mut() {
                Some(last) if o.from <= last.1 => last.1 = last.1.max(o.until),
                _ => spans.push((o.from, o.until)),
            }
        }
        self.list = list;
    }

    /// No partition has an outage.
    pub(super) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// When partition `p` delivers what it would deliver at `t`: `t` itself, or the heal of
    /// the outage `t` falls in (+∞ for one not healed).
    #[inline]
    pub(super) fn due(&self, p: usize, t: f64) -> f64 {
        let spans = &self.spans[p];
        if spans.is_empty() {
            return t;
        }
        for &(from, until) in spans {
            if t < from {
                break;
            }
            if t < until {
                return until;
            }
        }
        t
    }
}

/// A source partition as the experiment of a silent partition reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct PartitionView {
    /// Its number.
    pub partition: usize,
    /// Events it has emitted in the current timeline (its offset; a crash rewinds it).
    pub events: usize,
    /// Events it carries in all.
    pub len: usize,
    /// Its outages, as given: processing-time spans `[from, until)` (`until` +∞: not healed).
    pub out: Vec<(f64, f64)>,
    /// When it went idle and when it emitted again (`None`: idle still, or until it ended),
    /// processing time, in the current timeline.
    pub idle: Vec<(f64, Option<f64>)>,
    /// Its watermark, where its last record left it (`None` before its first record).
    pub last_watermark: Option<f64>,
    /// It is in an outage now.
    pub is_out: bool,
    /// It has marked itself idle and not emitted since.
    pub is_idle: bool,
}

/// What the job's combined watermark (the smallest operator watermark) did over the run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WatermarkStats {
    /// The combined watermark now, event time, ms (+∞ once every operator has finished).
    pub combined: f64,
    /// The longest span of processing time before the end of input in which the combined
    /// watermark did not advance, ms.
    pub longest_stall: f64,
    /// Where that span began, processing time, ms.
    pub stall_from: f64,
    /// Where it ended (the advance, or the end of input), processing time, ms.
    pub stall_until: f64,
    /// The most open cells (window × key) the operators held together at any moment.
    pub peak_open_cells: usize,
    /// The most state the operators held together at any moment, bytes (the checkpoint
    /// estimate).
    pub peak_state_bytes: usize,
}

/// Stalls of the combined watermark at least this long (processing time, ms) are kept, each
/// with its span ([`Pipeline::watermark_stalls`]): a flowing stream's watermark advances far
/// more often, so the list holds the few spans a silent partition (or a quiet stream) caused.
pub const STALL_KEPT: f64 = 1_000.0;

/// The running record behind [`WatermarkStats`], kept up to date one operator at a time: a
/// delivery changes only the operator that took it, and most deliveries change neither the
/// smallest watermark nor the open cells.
#[derive(Debug, Clone)]
pub(super) struct WatermarkTracker {
    stats: WatermarkStats,
    /// Since when the combined watermark has not advanced.
    since: f64,
    /// Every source has ended: stalls are no longer counted.
    input_ended: bool,
    /// The stalls of at least [`STALL_KEPT`] closed so far in the current timeline, in order:
    /// processing-time spans `[from, until)`.
    stalls: Vec<(f64, f64)>,
    /// Per operator: its watermark, open cells and state bytes as last seen.
    operators: Vec<(f64, usize, usize)>,
    /// Their open cells and state bytes, summed.
    cells: usize,
    bytes: usize,
}

impl WatermarkTracker {
    /// Before the first step, at processing time `start`, over `operators` operators.
    pub(super) fn new(start: f64, operators: usize) -> Self {
        WatermarkTracker {
            stats: WatermarkStats {
                combined: f64::NEG_INFINITY,
                longest_stall: 0.0,
                stall_from: start,
                stall_until: start,
                peak_open_cells: 0,
                peak_state_bytes: 0,
            },
            since: start,
            input_ended: false,
            stalls: Vec::new(),
            operators: vec![(f64::NEG_INFINITY, 0, 0); operators],
            cells: 0,
            bytes: 0,
        }
    }

    fn close_stall(&mut self, now: f64) {
        if now - self.since >= STALL_KEPT {
            self.stalls.push((self.since, now));
        }
        if now - self.since > self.stats.longest_stall {
            self.stats.longest_stall = now - self.since;
            self.stats.stall_from = self.since;
            self.stats.stall_until = now;
        }
        self.since = now;
    }

    /// Operator `i`'s watermark after a step at `now`.
    #[inline]
    fn watermark(&mut self, now: f64, i: usize, wm: f64) {
        let before = std::mem::replace(&mut self.operators[i].0, wm);
        // Operators' watermarks only rise: only the smallest one's move can move the smallest.
        if wm != before && before <= self.stats.combined {
            let combined = self.operators.iter().fold(f64::INFINITY, |m, o| m.min(o.0));
            if combined > self.stats.combined && !self.input_ended {
                self.close_stall(now);
            }
            self.stats.combined = combined;
        }
    }

    /// Operator `i`'s open cells and state bytes after a step.
    #[inline]
    fn state(&mut self, i: usize, cells: usize, bytes: usize) {
        let seen = &mut self.operators[i];
        if (cells, bytes) == (seen.1, seen.2) {
            return;
        }
        self.cells = self.cells + cells - seen.1;
        self.bytes = self.bytes + bytes - seen.2;
        (seen.1, seen.2) = (cells, bytes);
        self.stats.peak_open_cells = self.stats.peak_open_cells.max(self.cells);
        self.stats.peak_state_bytes = self.stats.peak_state_bytes.max(self.bytes);
    }
}

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

    /// The combined watermark's stalls of at least [`STALL_KEPT`] closed so far in the current
    /// timeline (a crash forgets those it undoes), in order: processing-time spans `[from,
    /// until)`, each ended by an advance or by the end of input. The stall still going on is
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_emission_in_an_outage_waits_for_its_heal() {
        let mut o = Outages::new(2);
        let out = |partition, from, until| Outage {
            partition,
            from,
            until,
        };
        o.set(vec![
            out(0, 30.0, 40.0),
            out(0, 10.0, 20.0),
            out(0, 20.0, 25.0),
            out(1, 5.0, f64::INFINITY),
        ]);
        // Touching outages join: 10 to 25 is one silence, 30 to 40 another.
        assert_eq!(o.spans[0], vec![(10.0, 25.0), (30.0, 40.0)]);
        let due: Vec<f64> = [0.0, 10.0, 19.0, 25.0, 29.0, 30.0, 40.0]
            .iter()
            .map(|&t| o.due(0, t))
            .collect();
        assert_eq!(due, vec![0.0, 25.0, 25.0, 25.0, 29.0, 40.0, 40.0]);
        assert_eq!(o.due(1, 4.0), 4.0);
        assert_eq!(o.due(1, 5.0), f64::INFINITY);
    }
}
