//! Crashes and restore: what fails ([`CrashTarget`]), what a crash did ([`CrashRecord`]) and
//! how every instance restarts from the latest completed checkpoint.

use std::borrow::Borrow;
use std::collections::BTreeMap;
use std::fmt;

use super::config::CheckpointMode;
use super::Pipeline;
use crate::stream::Stream;
use crate::window::CellId;

/// What fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrashTarget {
    /// The whole job.
    Job,
    /// One operator instance (the others restart with it: every channel crosses it).
    Operator(usize),
}

/// What a crash did.
#[derive(Debug, Clone, PartialEq)]
pub struct CrashRecord {
    /// Processing time of the crash.
    pub time: f64,
    /// What failed: the whole job or one operator instance.
    pub target: CrashTarget,
    /// The checkpoint restored (`None`: none had completed; the job restarted from the start).
    pub restored: Option<u32>,
    /// Processing time of the restored checkpoint (the start of the stream without one).
    pub restored_time: f64,
    /// Source offsets restored, per partition.
    pub offsets: Vec<usize>,
    /// Events the sources had emitted past those offsets: they replay.
    pub replayed: usize,
    /// Panes the sink had applied since the restored checkpoint: the replay delivers them again.
    pub duplicate_panes: usize,
    /// By how much each cell's additive total goes over: the values of those panes (exact with
    /// aligned and unaligned barriers; at-least-once replays more than this).
    pub overcount: BTreeMap<CellId, i64>,
    /// Panes the transactional sink had staged and lost.
    pub staged_lost: usize,
    /// Checkpoints in progress, abandoned.
    pub abandoned: Vec<u32>,
}

impl CrashRecord {
    /// The additive sink's total over-count from this crash.
    pub fn overcount_total(&self) -> i64 {
        self.overcount.values().sum()
    }

    /// Events the sources had emitted before the restored checkpoint's barriers, in all: where
    /// the replay starts (a stream offset, with one partition).
    pub fn restored_offset(&self) -> usize {
        self.offsets.iter().sum()
    }

    /// Events the sources had emitted when the job crashed, in all: where the replay ends.
    pub fn offset(&self) -> usize {
        self.restored_offset() + self.replayed
    }
}

fn secs(ms: f64) -> String {
    format!("{:.1} s", ms / 1000.0)
}

impl fmt::Display for CrashRecord {
    /// `crashed at 212.4 s; restored checkpoint #7 (taken at 200.0 s, source offsets 1667/1666);
    /// replaying 843 events`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let CrashTarget::Operator(i) = self.target {
            write!(f, "operator {i} ")?;
        }
        write!(f, "crashed at {}; ", secs(self.time))?;
        let offsets = self
            .offsets
            .iter()
            .map(|o| o.to_string())
            .collect::<Vec<_>>()
            .join("/");
        match self.restored {
            Some(id) => write!(
                f,
                "restored checkpoint #{id} (taken at {}, source offsets {offsets}); ",
                secs(self.restored_time)
            )?,
            None => write!(f, "no checkpoint yet, restarted from the start; ")?,
        }
        write!(f, "replaying {} events", self.replayed)
    }
}

impl<S: Borrow<Stream>> Pipeline<S> {
    /// Fails now: every instance restarts from the last completed checkpoint (or the start).
    /// `None` if the job had already finished.
    pub fn crash_now(&mut self, target: CrashTarget) -> Option<&CrashRecord> {
        if self.sink.state.finished {
            return None;
        }
        if let CrashTarget::Operator(i) = target {
            if i >= self.cfg.parallelism {
                return None;
            }
        }
        let ck = self.checkpoints.restore_point().clone();
        let ck_offsets = ck.offsets();
        let addressing = self.addressing();
        let now_offsets = self.offsets();
        let replayed = now_offsets
            .iter()
            .zip(&ck_offsets)
            .map(|(a, b)| a.saturating_sub(*b))
            .sum();
        let mut overcount = BTreeMap::new();
        for &(cell, v) in &self.sink.since_commit {
            *overcount.entry(cell).or_insert(0) += v;
        }
        let duplicate_panes = self.sink.since_commit.len();
        let staged_lost = self.staged();
        for s in &mut self.sink.sinks {
            s.abort();
        }
        self.sink.abort_outbox();
        self.sink.since_base += self.sink.since_commit.len();
        self.sink.since_commit.clear();
        self.channels.clear();
        for (p, snap) in ck.sources.into_iter().enumerate() {
            self.sources[p] = snap.source;
            for (i, link) in snap.links.into_iter().enumerate() {
                self.channels
                    .restore_link(addressing.source_to_operator(p, i), link);
            }
        }
        self.refresh_due();
        for (i, snap) in ck.operators.into_iter().enumerate() {
            self.operators[i] = snap.operator;
            self.channels
                .restore_link(addressing.operator_to_sink(i), snap.link);
        }
        self.sink.state = ck.sink;
        for (&c, r) in &ck.channel_state {
            for &m in self.in_flight.range(c, r.clone()) {
                self.channels.restore(c, m);
            }
        }
        let abandoned = self.pending.drain(..).map(|pc| pc.id).collect();
        if self.cfg.mode == CheckpointMode::Unaligned {
            self.release_in_flight();
        }
        let time = self.now;
        self.now = ck.time;
        self.next_tick = ck.next_tick;
        self.track_restore();
        self.crashes.push(CrashRecord {
            time,
            target,
            restored: (ck.id > 0).then_some(ck.id),
            restored_time: ck.time,
            offsets: ck_offsets,
            replayed,
            duplicate_panes,
            overcount,
            staged_lost,
            abandoned,
        });
        self.crashes.last()
    }
}
