//! The watermark panel's lanes: the job's combined watermark and each source partition's as a
//! row of columns over processing time, each column the watermark's lag behind the clock at
//! its end, marked where the partition was cut off or idle.

use twoclocks_engine::trace::Trace;

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

/// The combined watermark's lane and each partition's of `trace`'s run, `n` columns over processing time
/// from the first watermark sample to the run's end ([`Trace::lanes_end`]), so a column's
/// span stays put as the run plays: per column the lag behind the clock at its end, and
/// whether the partition was out or idle in it; a column after the clock is blank (no
/// lag, flowing). Empty for a single run and before the first sample.
pub fn watermark_lanes(trace: &Trace, n: usize) -> Vec<Lane> {
    let Some(j) = trace.job() else {
        return Vec::new();
    };
    let combined = j.watermarks();
    let Some(&(from, _)) = combined.first() else {
        return Vec::new();
    };
    let now = j.now();
    let span = (trace.lanes_end() - from).max(0.0);
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
    // A lane's columns from its watermark samples and what marks a span of it.
    let cells = |points: &[(f64, f64)], mark_in: &dyn Fn(f64, f64) -> LaneMark| -> Vec<LaneCell> {
        (0..n)
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
            .collect()
    };
    let mut lanes = vec![Lane {
        partition: None,
        cells: cells(combined, &|_, _| LaneMark::Flowing),
        watermark: Some(j.watermark()).filter(|w| !w.is_nan() && *w > f64::NEG_INFINITY),
        now: LaneMark::Flowing,
    }];
    let views = trace.partitions();
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
            cells: cells(points, &mark_in),
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

/// The `i`-th of `n` equal slices of `span` ms from `from`: (start, end).
fn slice(from: f64, span: f64, i: usize, n: usize) -> (f64, f64) {
    let n = n.max(1) as f64;
    (from + span * i as f64 / n, from + span * (i + 1) as f64 / n)
}

/// Whether any of the processing-time spans `[from, until)` meets the slice `[a, b]`.
fn overlaps(mut spans: impl Iterator<Item = (f64, f64)>, a: f64, b: f64) -> bool {
    spans.any(|(from, until)| from <= b && a < until)
}
