//! The oracle of a stream: what is true of it as a whole, known before any run, against which
//! every run is scored and every window row compared. The true count of each (window, key)
//! cell; the windows the stream touches, in order (the rows of the windows table); for
//! sessions, each key's sessions (they merge, and differ from key to key); and the extent of
//! both clocks. A live input's oracle grows with each batch of events.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::conventions::Conventions;
use super::stream::{Event, KeyId, Stream};
use super::window::{oracle_under, CellId, WindowFn, WindowId};

/// What is true of a stream as a whole under a window function.
#[derive(Debug, Clone, PartialEq)]
pub struct Oracle {
    /// The true count per (window, key), from the whole stream (shared with the re-runs
    /// scored against it).
    pub truth: Arc<BTreeMap<CellId, u64>>,
    /// The windows the stream touches, in order. Sessions: every key's sessions, by start
    /// (the rows with all keys selected); the global window: the one window.
    pub windows: Vec<WindowId>,
    /// Sessions only: each key's sessions, by start (the rows with that key selected). Empty
    /// for other windows, whose rows are the same for every key.
    pub sessions: Vec<Vec<WindowId>>,
    /// The windows are sessions (they merge, and differ from key to key).
    pub merging: bool,
    /// The window is the global one: one window per key that never closes.
    pub global: bool,
    /// Event-time extent (ms): from min(0, earliest) to max(1, latest); a live input's from
    /// its earliest to its latest, at least a second wide.
    pub event_time: (f64, f64),
    /// Processing-time extent (ms), likewise; a live input's end is its live edge.
    pub proc_time: (f64, f64),
    /// Whose rules its sessions merge by.
    pub conventions: Conventions,
    /// The earliest and latest event time of the events counted (infinite before any): a
    /// live input's event-time extent follows from them, grown by each batch's events alone.
    pub event_times_seen: (f64, f64),
}

/// The windows a stream's true counts touch, in order.
fn touched(truth: &BTreeMap<CellId, u64>) -> Vec<WindowId> {
    let mut w: Vec<WindowId> = truth.keys().map(|c| c.window).collect();
    w.dedup();
    w
}

/// A live stream's extent: from its earliest to its latest time, at least `width` ms wide (a
/// stream read live need not start near 0).
fn live_extent(lo: f64, hi: f64, width: f64) -> (f64, f64) {
    if lo.is_finite() && hi.is_finite() {
        (lo, hi.max(lo + width))
    } else {
        (0.0, width)
    }
}

impl Oracle {
    /// The true count of every (window, key), from the whole stream at once, under Beam's
    /// conventions. For merging windows, the sessions of all events: per key, the
    /// proto-windows of every event merged where they overlap, each with the number of events
    /// in it.
    pub fn true_counts(stream: &Stream, windows: &WindowFn) -> BTreeMap<CellId, u64> {
        oracle_under(stream, windows, Conventions::Beam)
    }

    /// [`Oracle::true_counts`] under `conventions`: sessions merge by its rule (Flink's merges
    /// touching proto-windows too); other windows are the same under every convention.
    pub fn true_counts_under(
        stream: &Stream,
        windows: &WindowFn,
        conventions: Conventions,
    ) -> BTreeMap<CellId, u64> {
        oracle_under(stream, windows, conventions)
    }

    /// The oracle of `stream` under `window`, the extents from min(0, earliest) to
    /// max(1, latest), ms.
    pub fn new(stream: &Stream, window: &WindowFn) -> Oracle {
        Oracle::new_under(stream, window, Conventions::Beam)
    }

    /// [`Oracle::new`] under `conventions` (which decide how sessions merge).
    pub fn new_under(stream: &Stream, window: &WindowFn, conventions: Conventions) -> Oracle {
        let truth = oracle_under(stream, window, conventions);
        let mut windows = touched(&truth);
        let mut sessions = Vec::new();
        if window.is_merging() {
            // A key's sessions are disjoint; different keys' may share a span (one row).
            windows.sort_unstable();
            windows.dedup();
            sessions = vec![Vec::new(); stream.keys.len()];
            for c in truth.keys() {
                if let Some(v) = sessions.get_mut(c.key as usize) {
                    v.push(c.window);
                }
            }
            for v in &mut sessions {
                v.sort_unstable();
            }
        }
        let mut et = (0.0f64, 1.0f64);
        let mut pt = (0.0f64, 1.0f64);
        let mut seen = (f64::INFINITY, f64::NEG_INFINITY);
        for e in &stream.events {
            et = (et.0.min(e.event_time), et.1.max(e.event_time));
            pt = (pt.0.min(e.proc_time), pt.1.max(e.proc_time));
            seen = (seen.0.min(e.event_time), seen.1.max(e.event_time));
        }
        Oracle {
            truth: Arc::new(truth),
            windows,
            sessions,
            merging: window.is_merging(),
            global: window.is_global(),
            event_time: et,
            proc_time: pt,
            conventions,
            event_times_seen: seen,
        }
    }

    /// A live input's oracle before its first event: nothing true yet, the extents a second
    /// of event time and a millisecond of processing time.
    pub fn live(window: &WindowFn) -> Oracle {
        Oracle {
            event_time: live_extent(f64::NAN, f64::NAN, 1_000.0),
            proc_time: live_extent(f64::NAN, f64::NAN, 1.0),
            ..Oracle::new(&Stream::default(), window)
        }
    }

    /// The oracle of `stream`, which is this one's stream grown by `added` (already placed in
    /// it), as a live input's: the new events counted (sessions computed again, since they
    /// merge), the extents from the earliest to the latest event.
    pub fn grown(&self, stream: &Stream, added: &[Event], window: &WindowFn) -> Oracle {
        let mut o = if window.is_merging() {
            Oracle::new_under(stream, window, self.conventions)
        } else {
            let mut truth: BTreeMap<CellId, u64> = (*self.truth).clone();
            for e in added {
                for w in window.assign(e.event_time) {
                    *truth
                        .entry(CellId {
                            window: w,
                            key: e.key,
                        })
                        .or_insert(0) += 1;
                }
            }
            Oracle {
                windows: touched(&truth),
                truth: Arc::new(truth),
                ..self.clone()
            }
        };
        // From the batch alone, not the whole stream again (once a batch, that made a live
        // input's reading quadratic): the earliest and latest event times so far and the
        // batch's; the stream is in processing-time order, so its first and last events
        // bound processing time.
        let et = added.iter().fold(self.event_times_seen, |(lo, hi), e| {
            (lo.min(e.event_time), hi.max(e.event_time))
        });
        let pt = stream
            .events
            .first()
            .zip(stream.events.last())
            .map_or((f64::INFINITY, f64::NEG_INFINITY), |(a, b)| {
                (a.proc_time, b.proc_time)
            });
        o.event_times_seen = et;
        o.event_time = live_extent(et.0, et.1, 1_000.0);
        o.proc_time = live_extent(pt.0, pt.1, 1.0);
        o
    }

    /// The windows table's rows for a key selection, in order: for sessions, the selected
    /// key's sessions (all keys': every key's); for other windows, every window.
    pub fn windows_of(&self, key: Option<KeyId>) -> &[WindowId] {
        match key.and_then(|k| self.sessions.get(k as usize)) {
            Some(v) => v,
            None => &self.windows,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::Stream;

    #[test]
    fn a_live_oracle_grown_batch_by_batch_counts_as_the_whole_streams() {
        let s = Stream::classroom();
        let window = WindowFn::Tumbling {
            size: 60_000,
            offset: 0,
        };
        let whole = Oracle::new(&s, &window);
        let mut grown = Oracle::live(&window);
        let mut so_far = Stream {
            keys: s.keys.clone(),
            ..Stream::default()
        };
        for batch in s.events.chunks(4_096) {
            so_far.events.extend_from_slice(batch);
            grown = grown.grown(&so_far, batch, &window);
        }
        assert_eq!(grown.truth, whole.truth);
        assert_eq!(grown.windows, whole.windows);
        assert_eq!(grown.event_times_seen, whole.event_times_seen);
        let (lo, hi) = whole.event_times_seen;
        assert_eq!(grown.event_time, live_extent(lo, hi, 1_000.0));
        assert_eq!(grown.windows_of(Some(3)), whole.windows_of(None));
    }

    #[test]
    fn sessions_are_each_keys_own_and_every_keys_together() {
        let s = Stream::classroom();
        let o = Oracle::new(&s, &WindowFn::Session { gap: 5_000 });
        assert!(o.merging && !o.global);
        assert_eq!(o.sessions.len(), s.keys.len());
        let all: usize = o.sessions.iter().map(Vec::len).sum();
        assert_eq!(all, o.truth.len());
        assert!(o.windows.len() <= all);
        assert_eq!(o.windows_of(Some(0)), o.sessions[0].as_slice());
    }
}
