//! The read model's source partitions: what each did (cut off, idle, healed), how long the
//! job's combined watermark has stood still ([`Trace::STALL_SHOWN`] or longer), and
//! the events an outage held back ([`HeldBack`]: emitted at the heal instead of at their own
//! time), for a parallel run at its playhead. A single run has no partitions: empty, None.
//! And where the partitions' watermark lanes end ([`Trace::lanes_end`]).

use super::Trace;
use crate::pipeline::PartitionView;

/// An event an outage held back: its partition emitted it at the heal, not at its own
/// processing time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeldBack {
    /// Its stream offset.
    pub offset: usize,
    /// When its partition emitted it: the outage's end, processing time, ms (+∞: not healed).
    pub heal: f64,
}

impl Trace {
    /// The combined watermark counts as stalled once it has not advanced for this long
    /// (processing time, ms): five watermark samples, longer than a flowing stream's gaps.
    pub const STALL_SHOWN: f64 = 5.0 * crate::job_timeline::WATERMARK_SAMPLE;

    /// The events an outage holds back (in the outages given and pressed so far), in offset
    /// order, each with the heal that releases it. Empty for a single run.
    pub fn held_back(&self) -> Vec<HeldBack> {
        self.job().map_or_else(Vec::new, |j| {
            j.pipeline()
                .held_back()
                .into_iter()
                .map(|(offset, heal)| HeldBack { offset, heal })
                .collect()
        })
    }

    /// Each source partition at the run's clock: events, outages, idle spans, watermark. A
    /// partition is out while the clock is inside one of its outages (a cut pressed at the
    /// clock counts at once). Empty for a single run.
    pub fn partitions(&self) -> Vec<PartitionView> {
        let Some(j) = self.job() else {
            return Vec::new();
        };
        let now = j.now();
        let mut v = j.pipeline().partitions();
        for p in &mut v {
            let ended = p.events >= p.len && p.out.iter().all(|&(_, until)| until <= now);
            p.is_out = !ended
                && p.out
                    .iter()
                    .any(|&(from, until)| from <= now && now < until);
        }
        v
    }

    /// When (processing time, ms) partition `p`'s outage the clock is in began; None while
    /// it delivers (or has ended).
    pub fn out_since(&self, p: usize) -> Option<f64> {
        let now = self.job()?.now();
        let v = self.partitions().into_iter().nth(p)?;
        if !v.is_out {
            return None;
        }
        v.out
            .iter()
            .filter(|&&(from, until)| from <= now && now < until)
            .map(|&(from, _)| from)
            .reduce(f64::min)
    }

    /// Partition `p` is cut off and not healed yet (an outage to +∞): `p` again heals it.
    pub fn is_cut_off(&self, p: usize) -> bool {
        self.partitions()
            .get(p)
            .is_some_and(|v| v.out.iter().any(|&(_, until)| until.is_infinite()))
    }

    /// How long (processing time, ms) the job's combined watermark has not advanced, when that is
    /// at least five watermark samples (5 s) and the input has not ended; None otherwise (and for a
    /// single run).
    pub fn watermark_stall(&self) -> Option<f64> {
        let j = self.job()?;
        let since = j.pipeline().watermark_stalled_since()?;
        let d = j.now() - since;
        (d >= Trace::STALL_SHOWN && !j.is_finished()).then_some(d)
    }

    /// Where the lanes' processing time ends: the run's whole extent, not the clock, so that a
    /// column keeps its span as the run plays: the last event's processing time, or an
    /// outage's heal after it, or the clock once past both.
    pub fn lanes_end(&self) -> f64 {
        let Some(j) = self.job() else {
            return f64::NEG_INFINITY;
        };
        let last = self.stream().events.last().map_or(0.0, |e| e.proc_time);
        let heals = j
            .pipeline()
            .outages()
            .iter()
            .map(|o| o.until)
            .filter(|u| u.is_finite())
            .fold(last, f64::max);
        heals.max(j.now())
    }
}
