//! The run's watermark over processing time as the plot's line and the watermark panel's
//! sparkline read it: (processing time, watermark) points, a single run's one per arrival,
//! a parallel run's sampled.

use twoclocks_engine::trace::Trace;
use twoclocks_engine::Event;

/// The run's watermark over processing time, as (processing time, watermark) points, oldest
/// first: a single run's after each arrival, a parallel run's sampled every
/// watermark sample (1 s).
#[derive(Debug, Clone, Copy)]
pub struct WatermarkHistory<'a>(Points<'a>);

#[derive(Debug, Clone, Copy)]
enum Points<'a> {
    PerArrival {
        events: &'a [Event],
        watermarks: &'a [f64],
    },
    Sampled(&'a [(f64, f64)]),
}

impl WatermarkHistory<'_> {
    /// The watermark of `trace`'s run over processing time.
    pub fn of(trace: &Trace) -> WatermarkHistory<'_> {
        WatermarkHistory(match (trace.timeline(), trace.job()) {
            (Some(timeline), _) => Points::PerArrival {
                events: &trace.stream().events[..timeline.arrived()],
                watermarks: timeline.watermarks(),
            },
            (None, Some(j)) => Points::Sampled(j.watermarks()),
            (None, None) => Points::Sampled(&[]),
        })
    }

    /// Points in the history.
    pub fn len(&self) -> usize {
        match self.0 {
            Points::PerArrival { watermarks, .. } => watermarks.len(),
            Points::Sampled(p) => p.len(),
        }
    }

    /// Whether the history has no point yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `i`-th point: (processing time, watermark).
    pub fn get(&self, i: usize) -> Option<(f64, f64)> {
        match self.0 {
            Points::PerArrival { events, watermarks } => {
                Some((events.get(i)?.proc_time, *watermarks.get(i)?))
            }
            Points::Sampled(p) => p.get(i).copied(),
        }
    }

    /// The first point whose watermark has reached `event_time`, if any has.
    pub fn first_reaching(&self, event_time: f64) -> Option<(f64, f64)> {
        match self.0 {
            Points::PerArrival { events, watermarks } => {
                let i = watermarks.partition_point(|&wm| wm < event_time);
                Some((events.get(i)?.proc_time, watermarks[i]))
            }
            Points::Sampled(p) => p
                .get(p.partition_point(|&(_, wm)| wm < event_time))
                .copied(),
        }
    }

    /// The latest point at or before processing time `t`, if any.
    pub fn at(&self, t: f64) -> Option<(f64, f64)> {
        match self.0 {
            Points::PerArrival { events, watermarks } => {
                let n = events.partition_point(|e| e.proc_time <= t);
                let i = n.checked_sub(1)?;
                Some((events[i].proc_time, *watermarks.get(i)?))
            }
            Points::Sampled(p) => {
                let i = p.partition_point(|&(pt, _)| pt <= t).checked_sub(1)?;
                p.get(i).copied()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use twoclocks_engine::trace::Progress;
    use twoclocks_engine::{EngineConfig, Stream};

    use super::*;

    #[test]
    fn a_single_runs_history_has_a_point_per_arrival_ending_at_its_watermark() {
        let s = Arc::new(Stream::classroom());
        let span = (0.0, s.events.last().map_or(1.0, |e| e.proc_time));
        let mut t = Trace::single_start(EngineConfig::fixed(20_000.0, 0.0), s.clone(), span);
        let start = Progress {
            now: 0.0,
            arrived: 0,
            finished: false,
        };
        t.play_to(start, 200_000.0);
        let history = WatermarkHistory::of(&t);
        assert_eq!(history.len(), t.arrived());
        let (pt, wm) = history.get(history.len() - 1).unwrap();
        assert_eq!(wm, t.watermark());
        assert_eq!(history.at(pt), Some((pt, wm)));
        assert_eq!(t.watermark_at(pt), Some(wm));
        assert!(history.first_reaching(wm).is_some_and(|(_, w)| w >= wm));
    }
}
