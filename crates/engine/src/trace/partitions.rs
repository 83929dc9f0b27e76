//! The read model's source partitions: what each did (cut off, idle, healed), how long the
//! job's combined watermark has stood still ([`Trace::STALL_SHOWN`] or longer), and
//! the events an outage held back ([`HeldBack`]: emitted at the heal instead of at their own
//! time), for a parallel run at its playhead. A single run has no partitions: empty, None.
//! And each partition's watermark as a lane over processing time (its lag behind the clock,
//! its outages and idle spans marked), with the combined watermark's lane above them.

use super::history::slice;
use super::Trace;
use crate::pipeline::PartitionView;

/// What a lane's column is marked with, besides the watermark's lag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaneMark {
    /// The partition delivered (or, on the combined lane, the watermark is not stalled).
    Flowing,
    /// The partition was cut off in this slice and not (yet) idle.
    Out,
    /// The partition was idle in this slice: operators left it out of their watermark.
    Idle,
}

/// One column of a lane: a slice of processing time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LaneCell {
    /// Processing time − the lane's watermark at the end of the slice, ms (None: no watermark
    /// yet, or past the end of input).
    pub lag: Option<f64>,
    /// Out or idle in the slice.
    pub mark: LaneMark,
}

/// One watermark's lane over processing time, from the first sample to the clock now.
#[derive(Debug, Clone, PartialEq)]
pub struct Lane {
    /// The partition (None: the combined watermark, the smallest of the operators').
    pub partition: Option<usize>,
    /// One cell per column, oldest first.
    pub cells: Vec<LaneCell>,
    /// The watermark now (None: none yet; +∞ after the end of input).
    pub watermark: Option<f64>,
    /// What the lane is now: out, idle or flowing.
    pub now: LaneMark,
}

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

    /// The combined watermark's lane and each partition's, `n` columns over processing time
    /// from the first watermark sample to the run's end ([`Trace::lanes_end`]), so a column's
    /// span stays put as the run plays: per column the lag behind the clock at its end, and
    /// whether the partition was out or idle in it; a column after the clock is blank (no
    /// lag, flowing). Empty for a single run and before the first sample.
    pub fn watermark_lanes(&self, n: usize) -> Vec<Lane> {
        let Some(j) = self.job() else {
            return Vec::new();
        };
        let combined = j.watermarks();
        let Some(&(from, _)) = combined.first() else {
            return Vec::new();
        };
        let now = j.now();
        let span = (self.lanes_end() - from).max(0.0);
        let blank = LaneCell {
            lag: None,
            mark: LaneMark::Flowing,
        };
        let lag_at = |points: &[(f64, f64)], t: f64| {
            let k = points.partition_point(|&(pt, _)| pt <= t).checked_sub(1)?;
            let (pt, wm) = points[k];
            let lag = pt - wm;
            lag.is_finite().then_some(lag.max(0.0))
        };
        let mut lanes = vec![Lane {
            partition: None,
            cells: (0..n)
                .map(|i| {
                    let (a, b) = slice(from, span, i, n);
                    if a > now {
                        return blank;
                    }
                    LaneCell {
                        lag: lag_at(combined, b.min(now)),
                        mark: LaneMark::Flowing,
                    }
                })
                .collect(),
            watermark: Some(j.watermark()).filter(|w| !w.is_nan() && *w > f64::NEG_INFINITY),
            now: LaneMark::Flowing,
        }];
        let views = self.partitions();
        for (p, points) in j.partition_watermarks().iter().enumerate() {
            let Some(v) = views.get(p) else { continue };
            let mark_in = |a: f64, b: f64| {
                let idle = v.idle.iter().map(|&(x, y)| (x, y.unwrap_or(f64::INFINITY)));
                if overlaps(idle, a, b) {
                    LaneMark::Idle
                } else if overlaps(v.out.iter().copied(), a, b) {
                    LaneMark::Out
                } else {
                    LaneMark::Flowing
                }
            };
            lanes.push(Lane {
                partition: Some(p),
                cells: (0..n)
                    .map(|i| {
                        let (a, b) = slice(from, span, i, n);
                        if a > now {
                            return blank;
                        }
                        LaneCell {
                            lag: lag_at(points, b.min(now)),
                            mark: mark_in(a, b.min(now)),
                        }
                    })
                    .collect(),
                watermark: v.last_watermark,
                now: if v.is_idle {
                    LaneMark::Idle
                } else if v.is_out {
                    LaneMark::Out
                } else {
                    LaneMark::Flowing
                },
            });
        }
        lanes
    }
}

/// Whether any of the processing-time spans `[from, until)` meets the slice `[a, b]`.
fn overlaps(mut spans: impl Iterator<Item = (f64, f64)>, a: f64, b: f64) -> bool {
    spans.any(|(from, until)| from <= b && a < until)
}
