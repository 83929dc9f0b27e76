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
    pub(super) list: Vec<Outage>,
    /// Per partition, disjoint `[from, until)` spans in order (touching ones joined).
    pub(super) spans: Vec<Vec<(f64, f64)>>,
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
    pub(super) fn set(&mut self, mut list: Vec<Outage>) {
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
    pub(super) stats: WatermarkStats,
    /// Since when the combined watermark has not advanced.
    pub(super) since: f64,
    /// Every source has ended: stalls are no longer counted.
    pub(super) input_ended: bool,
    /// The stalls of at least [`STALL_KEPT`] closed so far in the current timeline, in order:
    /// processing-time spans `[from, until)`.
    pub(super) stalls: Vec<(f64, f64)>,
    /// Per operator: its watermark, open cells and state bytes as last seen.
    pub(super) operators: Vec<(f64, usize, usize)>,
    /// Their open cells and state bytes, summed.
    pub(super) cells: usize,
    pub(super) bytes: usize,
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

    pub(super) fn close_stall(&mut self, now: f64) {
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
    pub(super) fn watermark(&mut self, now: f64, i: usize, wm: f64) {
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
    pub(super) fn state(&mut self, i: usize, cells: usize, bytes: usize) {
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
