//! The arrived events the plot draws: every one while there are few, an even sample of huge
//! runs, each with the number of events it stands for, the row it arrived on (an event an
//! outage held back: the heal's) and whether a replay took it again.

use twoclocks_engine::trace::Trace;
use twoclocks_engine::{Event, Fate};

/// An arrived event as a sample of the plot draws it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sampled {
    /// Its stream offset.
    pub offset: usize,
    /// The event.
    pub event: Event,
    /// When the run took it: its processing time, or (a parallel run's event an outage held
    /// back) the heal that released it.
    pub arrival: f64,
    /// An outage held it back: it arrived at the heal, not at its own processing time.
    pub held: bool,
    /// The fate the run gave it.
    pub fate: Fate,
    /// How many arrived events it stands for (1 unless the run is sampled).
    pub weight: usize,
    /// A parallel run's operators took it more than once (a replay).
    pub replayed: bool,
}

/// The arrived events of `trace`'s run the plot draws, each with the number of events it
/// stands for. A single run samples its on-time events (only `with_on_time`) and its late and
/// dropped ones apart, at most `on_time` and `exceptions` of each; a parallel run keeps no
/// list of the late and dropped (a replay changes them), so it samples every record it took
/// together, at most `on_time`.
pub fn sample(
    trace: &Trace,
    on_time: usize,
    exceptions: usize,
    with_on_time: bool,
    mut f: impl FnMut(Sampled),
) {
    if let Some(timeline) = trace.timeline() {
        let events = &trace.stream().events[..timeline.arrived()];
        let fates = timeline.fates();
        if with_on_time {
            let stride = (events.len() / on_time).max(1);
            for k in (0..events.len()).step_by(stride) {
                if fates[k] == Fate::OnTime {
                    f(Sampled {
                        offset: k,
                        event: events[k],
                        arrival: events[k].proc_time,
                        held: false,
                        fate: Fate::OnTime,
                        weight: stride,
                        replayed: false,
                    });
                }
            }
        }
        let x = timeline.exceptions();
        let stride = (x.len() / exceptions).max(1);
        for e in x.iter().step_by(stride) {
            f(Sampled {
                offset: e.offset,
                event: e.event,
                arrival: e.event.proc_time,
                held: false,
                fate: e.fate,
                weight: stride,
                replayed: false,
            });
        }
    } else if let Some(j) = trace.job() {
        let n = trace.arrived().min(j.fates().len());
        let events = &j.pipeline().stream().events[..n];
        let (fates, again) = (j.fates(), j.deliveries());
        let held = j.pipeline().held_back();
        let stride = (events.len() / on_time).max(1);
        for k in (0..events.len()).step_by(stride) {
            let Some(fate) = fates.get(k).copied().flatten() else {
                continue;
            };
            let heal = held
                .binary_search_by_key(&k, |h| h.0)
                .ok()
                .map(|i| held[i].1);
            f(Sampled {
                offset: k,
                event: events[k],
                arrival: heal.unwrap_or(events[k].proc_time),
                held: heal.is_some(),
                fate,
                weight: stride,
                replayed: again.get(k).is_some_and(|&d| d >= 2),
            });
        }
    }
}
