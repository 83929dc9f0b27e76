//! Block 2, windowing: which windows an event belongs to is a pure function of its event time,
//! never of its arrival. Windows are half-open `[start, end)` intervals on whole milliseconds,
//! identified by their span ([`WindowId`]). Tumbling and sliding windows are numbered by their
//! start over the slide, and reports print the number; sessions are not numbered, and reports
//! print their span.
//!
//! Tumbling and sliding windows lie on the epoch's grid, moved by an offset (0 unless asked, as
//! Flink's and Beam's): on a wall clock in a zone other than UTC, windows of hours or days fall
//! on the zone's hours and midnights ([`WindowFn::aligned_to`]).
//!
//! A window kind is one file: its dials as a type implementing `WindowShape` (assignment, which
//! windows a time has completed, its name, and its validation as a constructor). It is
//! registered by one entry in the `window_kinds!` list below, which makes it a variant of
//! [`WindowFn`] and routes every question about the kind to its file.
//!
//! Merging windows (sessions, [`WindowFn::is_merging`]) assign each event a proto-window
//! `[t, t + gap)`; windows of one key that overlap ([`WindowId::overlaps`]) merge into the span
//! covering them ([`WindowId::cover`]). The processor's session store merges them as events
//! arrive, and the oracle merges the proto-windows of all events, by the same rule. The window
//! store of non-merging windows relies on them ending in the order they start; the session
//! store keeps its own index by end.

use std::collections::BTreeMap;

use super::clock::Clock;
use super::conventions::Conventions;
use super::duration::Duration;

use super::stream::{KeyId, Stream};

mod floor;
mod global;
mod periodic;
mod session;
mod sliding;
mod spec;
mod true_counts;
mod tumbling;

pub(crate) use floor::floor_to_i64;
pub use global::{Ttl, TtlTime};
pub use true_counts::OracleCounts;

/// A window's identity: its span `[start, end)` in whole milliseconds. Windows order by start
/// (then end), which for tumbling and sliding windows is the order of their numbers and of
/// their ends. Nothing about a window is assumed from a number: merging windows (sessions) are
/// identified by their span per key just as well.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct WindowId {
    start: i64,
    end: i64,
}

impl WindowId {
    /// Below every window: "none yet" where windows are counted off in order.
    pub const MIN: WindowId = WindowId {
        start: i64::MIN,
        end: i64::MIN,
    };
    /// Above every window: "all of them" (the end of input).
    pub const MAX: WindowId = WindowId {
        start: i64::MAX,
        end: i64::MAX,
    };

    /// The window `[start, end)`, whole milliseconds.
    #[inline]
    pub const fn new(start: i64, end: i64) -> Self {
        WindowId { start, end }
    }

    /// Start of the window, ms (inclusive).
    #[inline]
    pub fn start(self) -> f64 {
        self.start as f64
    }

    /// End of the window, ms (exclusive).
    #[inline]
    pub fn end(self) -> f64 {
        self.end as f64
    }

    /// Start of the window in whole milliseconds.
    #[inline]
    pub const fn start_ms(self) -> i64 {
        self.start
    }

    /// End of the window in whole milliseconds.
    #[inline]
    pub const fn end_ms(self) -> i64 {
        self.end
    }

    /// The window's last instant, ms: `end − 1` (Beam's `maxTimestamp`).
    #[inline]
    pub const fn max_timestamp(self) -> i64 {
        self.end.saturating_sub(1)
    }

    /// Whether the two windows share at least one millisecond. Windows that only touch
    /// (`[a, b)` and `[b, c)`) do not overlap, so sessions that touch do not merge, as in Beam.
    #[inline]
    pub const fn overlaps(self, other: WindowId) -> bool {
        self.start < other.end && other.start < self.end
    }

    /// The smallest window covering both: what two overlapping sessions merge into.
    #[inline]
    pub fn cover(self, other: WindowId) -> WindowId {
        WindowId {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// The same span moved by `by` ms, saturating at the ends of the millisecond range.
    #[inline]
    fn shifted(self, by: i64) -> Self {
        WindowId {
            start: self.start.saturating_add(by),
            end: self.end.saturating_add(by),
        }
    }
}

/// Hashes the start alone: equal windows have equal starts, and windows of one tumbling or
/// sliding function never share one, so the open-window map finds a window with half the work.
impl std::hash::Hash for WindowId {
    #[inline]
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.start.hash(state);
    }
}

/// The windows one event belongs to, earliest first: `len` windows, each `step` ms after the
/// one before. An iterator, as the windows are usually walked once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Assignment {
    next: WindowId,
    left: u32,
    step: i64,
}

impl Assignment {
    /// The single window `id`.
    #[inline]
    pub fn one(id: WindowId) -> Self {
        Assignment {
            next: id,
            left: 1,
            step: 0,
        }
    }

    /// `len` windows from `first`, each `step` ms after the one before.
    #[inline]
    pub fn new(first: WindowId, len: u32, step: i64) -> Self {
        Assignment {
            next: first,
            left: len,
            step,
        }
    }
}

impl Iterator for Assignment {
    type Item = WindowId;

    #[inline]
    fn next(&mut self) -> Option<WindowId> {
        if self.left == 0 {
            return None;
        }
        let id = self.next;
        self.left -= 1;
        // Plain adds on the hot path: exact while the bounds stay within ±2^63 ms, far beyond
        // the ±2^53 ms of event time the engine accepts.
        self.next = WindowId {
            start: id.start.wrapping_add(self.step),
            end: id.end.wrapping_add(self.step),
        };
        Some(id)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left as usize, Some(self.left as usize))
    }
}

impl ExactSizeIterator for Assignment {}

/// Why a window definition was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WindowError {
    /// The window is shorter than 1 ms.
    #[error("window size must be at least 1 ms, got {0} ms")]
    Size(i64),
    /// The slide is below 1 ms or above the window size.
    #[error("window slide must be at least 1 ms and at most the size ({size} ms), got {slide} ms")]
    Slide {
        /// The window size asked for, ms.
        size: i64,
        /// The slide asked for, ms.
        slide: i64,
    },
    /// The windows overlap so much that one event would fall in too many of them.
    #[error(
        "a {size} ms window sliding every {slide} ms puts each event in {per_event} windows; at most {} are allowed",
        WindowFn::MAX_WINDOWS_PER_EVENT
    )]
    TooManyWindows {
        /// The window size asked for, ms.
        size: i64,
        /// The slide asked for, ms.
        slide: i64,
        /// How many windows each event would fall in.
        per_event: i64,
    },
    /// The session gap is shorter than 1 ms.
    #[error("session gap must be at least 1 ms, got {0} ms")]
    Gap(i64),
    /// The state TTL is shorter than 1 ms.
    #[error("--ttl must be at least 1 ms, got {0} ms")]
    Ttl(i64),
    /// An offset given to windows that lie on no grid (sessions, the global window).
    #[error("{0} windows have no offset: only tumbling and sliding windows lie on a grid to move")]
    Offset(String),
}

/// What a window kind defines, given its dials (the fields of its [`WindowFn`] variant).
trait WindowShape: Copy {
    /// Whether windows of this kind merge (sessions).
    fn is_merging(self) -> bool {
        false
    }

    /// Length of a window, ms.
    fn size(self) -> i64;

    /// Distance between the starts of consecutive windows, ms.
    fn slide(self) -> i64;

    /// How far the windows' starts lie past the epoch's grid, ms (`0 ≤ offset < slide`).
    fn offset(self) -> i64 {
        0
    }

    /// The windows that contain `event_time`, earliest first; `inv_slide` is `1 / slide`.
    fn assign(self, event_time: f64, inv_slide: f64) -> Assignment;

    /// The last window whose end is ≤ `t` (windows up to it are complete at `t`).
    fn last_ended_by(self, t: f64) -> Option<WindowId>;

    /// The window after `id`.
    fn next(self, id: WindowId) -> WindowId;

    /// The window before `id`.
    fn prev(self, id: WindowId) -> WindowId;

    /// The number reports print for window `id`.
    fn index(self, id: WindowId) -> i64;

    /// The window reports number `index`.
    fn at_index(self, index: i64) -> WindowId;

    /// A short human name: `60s tumbling`.
    fn describe(self) -> String;
}

/// Declares the window kinds: [`WindowFn`] with a variant per kind, and `with_kind!`, which
/// hands a kind's dials to its file. Each entry is `Variant => file::Type { fields }`.
macro_rules! window_kinds {
    ($d:tt $(
        $(#[$doc:meta])*
        $variant:ident => $module:ident :: $ty:ident {
            $( $(#[$field_doc:meta])* $field:ident : $field_ty:ty ),* $(,)?
        }
    ),* $(,)?) => {
        /// How events are assigned to windows.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum WindowFn {
            $( $(#[$doc])* $variant { $( $(#[$field_doc])* $field: $field_ty ),* }, )*
        }

        /// Evaluates `body` with `k` bound to the dials of `window_fn` as its file's type.
        macro_rules! with_kind {
            ($d window_fn:expr, $d k:ident => $d body:expr) => {
                match $d window_fn {
                    $( WindowFn::$variant { $($field),* } => {
                        let $d k = $module::$ty { $($field),* };
                        $d body
                    } )*
                }
            };
        }
    };
}

window_kinds! { $
    /// Back-to-back windows of `size` ms: window `i` is `[i·size + offset, (i+1)·size + offset)`.
    Tumbling => tumbling::Tumbling {
        /// Length of a window, ms.
        size: i64,
        /// How far the windows start past the epoch's grid, ms (`0 ≤ offset < size`; 0 but for
        /// windows on a zone's hours or days, or `--window-offset`).
        offset: i64,
    },
    /// Windows of `size` ms starting every `slide` ms: window `i` is
    /// `[i·slide + offset, i·slide + offset + size)`.
    Sliding => sliding::Sliding {
        /// Length of a window, ms.
        size: i64,
        /// Distance between the starts of consecutive windows, ms.
        slide: i64,
        /// How far the windows start past the epoch's grid, ms (`0 ≤ offset < slide`).
        offset: i64,
    },
    /// Sessions: per key, events whose proto-windows `[t, t + gap)` overlap share a session,
    /// which ends `gap` ms after its last event.
    Session => session::Session {
        /// The gap of inactivity that ends a session, ms.
        gap: i64,
    },
    /// One window per key that never closes: a running count, its state optionally expiring
    /// under a TTL.
    Global => global::Global {
        /// The state's time-to-live, if any.
        ttl: Option<Ttl>,
    },
}

impl WindowFn {
    /// The most windows one event may belong to (size / slide).
    pub const MAX_WINDOWS_PER_EVENT: i64 = 1000;

    /// Tumbling windows of `size` ms, if the size is valid.
    pub fn tumbling(size: i64) -> Result<Self, WindowError> {
        tumbling::Tumbling::checked(size)
    }

    /// Windows of `size` ms starting every `slide` ms, if the two are valid (tumbling windows
    /// when they are equal).
    pub fn sliding(size: i64, slide: i64) -> Result<Self, WindowError> {
        sliding::Sliding::checked(size, slide)
    }

    /// The same windows with their starts moved `offset` ms past the epoch's grid (Flink's
    /// `TumblingEventTimeWindows.of(size, offset)`, Beam's `withOffset`): window `i` becomes
    /// `[i·slide + offset, …)`. The offset is taken modulo the slide, as the windows repeat
    /// every slide, so −5 h and 19 h give one-day windows alike. Sessions and the global window
    /// lie on no grid: an error.
    pub fn with_offset(&self, offset: i64) -> Result<Self, WindowError> {
        match *self {
            WindowFn::Tumbling { size, .. } => Ok(WindowFn::Tumbling {
                size,
                offset: offset.rem_euclid(size),
            }),
            WindowFn::Sliding { size, slide, .. } => Ok(WindowFn::Sliding {
                size,
                slide,
                offset: offset.rem_euclid(slide),
            }),
            _ => Err(WindowError::Offset(self.describe())),
        }
    }

    /// How far the windows' starts lie past the epoch's grid, ms: `0 ≤ offset < slide`, and 0
    /// for sessions and the global window.
    pub fn offset(&self) -> i64 {
        with_kind!(*self, k => k.offset())
    }

    /// The windows as they fall in the zone in force: on a wall clock whose zone is not UTC,
    /// tumbling or sliding windows whose size and slide each divide a day or are whole days
    /// start on the zone's hours and midnights. Their offset is the zone's distance from UTC
    /// at `at_ms` (the log's first event time), modulo the slide: New York's day windows
    /// start at 05:00 UTC, India's hour windows at half past. A fixed offset, as Flink's and
    /// Beam's: across a change to daylight-saving time the windows keep to the first offset
    /// (New York's summer days then run 01:00–01:00). Any other windows, a relative clock, UTC
    /// or an `at_ms` that is not finite leave the windows on the epoch's grid, offset 0.
    pub fn aligned_to(&self, clock: &Clock, at_ms: f64) -> WindowFn {
        const DAY: i64 = 86_400_000;
        let calendar = |ms: i64| ms > 0 && (DAY % ms == 0 || ms % DAY == 0);
        let grid = match *self {
            WindowFn::Tumbling { size, .. } | WindowFn::Sliding { size, .. } => size,
            _ => return *self,
        };
        let on_grid = self.with_offset(0).unwrap_or(*self);
        let zone = match clock.zone() {
            Some(zone) if at_ms.is_finite() => zone,
            _ => return on_grid,
        };
        if !calendar(grid) || !calendar(self.slide()) {
            return on_grid;
        }
        // Local midnight is UTC midnight less the zone's offset.
        self.with_offset(-zone.offset_ms(at_ms)).unwrap_or(on_grid)
    }

    /// Session windows with a gap of `gap` ms, if the gap is valid (at least 1 ms).
    pub fn session(gap: i64) -> Result<Self, WindowError> {
        session::Session::checked(gap)
    }

    /// The global window, its state under `ttl` if given (a TTL of at least 1 ms).
    pub fn global(ttl: Option<Ttl>) -> Result<Self, WindowError> {
        global::Global::checked(ttl)
    }

    /// Whether this is the global window, which never ends.
    #[inline]
    pub fn is_global(&self) -> bool {
        matches!(self, WindowFn::Global { .. })
    }

    /// The global window's state TTL, if it has one.
    #[inline]
    pub fn ttl(&self) -> Option<Ttl> {
        match self {
            WindowFn::Global { ttl } => *ttl,
            _ => None,
        }
    }

    /// Whether windows of this function merge (sessions): per key, overlapping windows become
    /// one, so a window is known by its span alone and has no number.
    pub fn is_merging(&self) -> bool {
        with_kind!(*self, k => k.is_merging())
    }

    /// Whether every event falls in exactly one window (tumbling, sessions, the global
    /// window), so counting events and counting placements are the same; with sliding windows
    /// an event is placed once per window it falls in.
    pub fn places_once(&self) -> bool {
        self.is_merging() || self.is_global() || self.slide() >= self.size()
    }

    /// Length of a window, ms.
    pub fn size(&self) -> i64 {
        with_kind!(*self, k => k.size())
    }

    /// Distance between the starts of consecutive windows, ms (the size for tumbling windows).
    pub fn slide(&self) -> i64 {
        with_kind!(*self, k => k.slide())
    }

    /// Start of window `id`, ms (exact for the ±2^53 ms the engine accepts).
    #[inline]
    pub fn start(&self, id: WindowId) -> f64 {
        id.start()
    }

    /// End of window `id` (exclusive), ms.
    #[inline]
    pub fn end(&self, id: WindowId) -> f64 {
        id.end()
    }

    /// The windows that contain `event_time`, earliest first.
    pub fn assign(&self, event_time: f64) -> impl ExactSizeIterator<Item = WindowId> + Clone {
        self.assignment(event_time)
    }

    /// [`WindowFn::assign`] as the engine keeps it, to hand to a processor's step.
    pub(crate) fn assignment(&self, event_time: f64) -> Assignment {
        self.assign_with(event_time, 1.0 / self.slide() as f64)
    }

    /// [`WindowFn::assign`] with `inv_slide = 1 / slide` computed once by the caller.
    // Always inlined: it is on every event's path, and the processor's step is faster with
    // the kinds' match in it.
    #[inline(always)]
    pub(crate) fn assign_with(&self, event_time: f64, inv_slide: f64) -> Assignment {
        with_kind!(*self, k => k.assign(event_time, inv_slide))
    }

    /// The latest window whose end is ≤ `t` (windows up to it are complete at `t`):
    /// [`WindowId::MAX`] at +∞, `None` at −∞ or NaN.
    pub fn last_ended_by(&self, t: f64) -> Option<WindowId> {
        with_kind!(*self, k => k.last_ended_by(t))
    }

    /// The window after `id` (windows of one function follow each other in order).
    #[inline]
    pub fn next(&self, id: WindowId) -> WindowId {
        with_kind!(*self, k => k.next(id))
    }

    /// The window before `id`.
    #[inline]
    pub fn prev(&self, id: WindowId) -> WindowId {
        with_kind!(*self, k => k.prev(id))
    }

    /// The number reports print for window `id`: its start over the slide (for sessions, which
    /// are not numbered, its start; reports print [`WindowFn::number`]).
    pub fn index(&self, id: WindowId) -> i64 {
        with_kind!(*self, k => k.index(id))
    }

    /// The number reports print for window `id`, if windows of this function are numbered:
    /// `None` for merging windows (sessions), which are named by their span alone.
    /// The global window is not numbered either (reports print `global`).
    pub fn number(&self, id: WindowId) -> Option<i64> {
        (!self.is_merging() && !self.is_global()).then(|| self.index(id))
    }

    /// The window reports number `index`: `[index·slide + offset, index·slide + offset + size)`.
    pub fn at_index(&self, index: i64) -> WindowId {
        with_kind!(*self, k => k.at_index(index))
    }

    /// A short human name: `60s tumbling`, `60s/10s sliding`, `30s-gap session`.
    pub fn describe(&self) -> String {
        with_kind!(*self, k => k.describe())
    }
}

/// How a description names the windows' offset: nothing for none, else ` (offset 5h)`.
fn describe_offset(offset: i64) -> String {
    if offset == 0 {
        String::new()
    } else {
        format!(" (offset {})", Duration::human(offset as f64))
    }
}

/// A window and key: the unit that holds state and emits panes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CellId {
    /// The window.
    pub window: WindowId,
    /// The key.
    pub key: KeyId,
}

impl CellId {
    /// The cells of `window` a selection covers: `key`'s, or (None) each of `keys` keys'.
    pub fn selected(window: WindowId, key: Option<KeyId>, keys: usize) -> Vec<CellId> {
        match key {
            Some(key) => vec![CellId { window, key }],
            None => (0..keys as KeyId)
                .map(|key| CellId { window, key })
                .collect(),
        }
    }
}

/// The oracle: the true count of every (window, key), from the whole stream at once. For
/// merging windows, the sessions of all events: per key, the proto-windows of every event
/// merged where they overlap, each with the number of events in it.
#[cfg(test)]
pub(crate) fn oracle(stream: &Stream, windows: &WindowFn) -> BTreeMap<CellId, u64> {
    oracle_under(stream, windows, Conventions::Beam)
}

/// [`oracle`] under `conventions`: sessions merge by its rule (Flink's merges touching
/// proto-windows too); other windows are the same under every convention.
pub(crate) fn oracle_under(
    stream: &Stream,
    windows: &WindowFn,
    conventions: Conventions,
) -> BTreeMap<CellId, u64> {
    let mut counts = OracleCounts::new(windows, stream.keys.len());
    for e in &stream.events {
        counts.add(e);
    }
    let mut truth = counts.into_truth();
    if windows.is_merging() {
        truth = merge_overlapping(truth, conventions);
    }
    truth
}

/// Per key, the windows that overlap merged into the span covering them, with their counts
/// summed: a key's windows in order of start, each merged into the one before while it
/// overlaps what has been merged so far.
fn merge_overlapping(
    cells: BTreeMap<CellId, u64>,
    conventions: Conventions,
) -> BTreeMap<CellId, u64> {
    let mut by_key: Vec<(KeyId, WindowId, u64)> = cells
        .into_iter()
        .map(|(c, n)| (c.key, c.window, n))
        .collect();
    by_key.sort_unstable();
    let mut merged = BTreeMap::new();
    let mut current: Option<(KeyId, WindowId, u64)> = None;
    for (key, window, n) in by_key {
        match &mut current {
            Some((k, span, total))
                if *k == key
                    && conventions.sessions_merge(
                        (span.start_ms(), span.end_ms()),
                        (window.start_ms(), window.end_ms()),
                    ) =>
            {
                *span = span.cover(window);
                *total += n;
            }
            _ => {
                if let Some((key, window, n)) = current.replace((key, window, n)) {
                    merged.insert(CellId { window, key }, n);
                }
            }
        }
    }
    if let Some((key, window, n)) = current {
        merged.insert(CellId { window, key }, n);
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sliding_assignment_covers_the_event() {
        let w = WindowFn::sliding(60_000, 20_000).unwrap();
        for t in [
            0.0, 1.0, 19_999.0, 20_000.0, 59_999.5, 60_000.0, -5.0, 123_456.7,
        ] {
            let r = w.assign(t);
            assert_eq!(r.clone().count(), 3, "t={t}");
            for id in r {
                assert!(w.start(id) <= t && t < w.end(id), "t={t} id={id:?}");
            }
        }
        let w = WindowFn::sliding(50, 20).unwrap();
        for t in [0.0, 9.0, 10.0, 29.0, 30.0, 45.5] {
            let r = w.assign(t);
            for id in r.clone() {
                assert!(w.start(id) <= t && t < w.end(id), "t={t} id={id:?}");
            }
            assert!(w.end(w.prev(r.clone().next().unwrap())) <= t);
            assert!(w.start(w.next(r.last().unwrap())) > t);
        }
    }

    #[test]
    fn last_ended_by_is_exact() {
        let w = WindowFn::tumbling(60_000).unwrap();
        assert_eq!(w.last_ended_by(59_999.0), Some(w.at_index(-1)));
        assert_eq!(w.last_ended_by(60_000.0), Some(w.at_index(0)));
        assert_eq!(w.last_ended_by(f64::NEG_INFINITY), None);
        let s = WindowFn::sliding(60_000, 20_000).unwrap();
        assert_eq!(s.last_ended_by(59_999.0), Some(s.at_index(-1)));
        assert_eq!(s.last_ended_by(60_000.0), Some(s.at_index(0)));
        assert_eq!(s.last_ended_by(80_000.0), Some(s.at_index(1)));
    }

    #[test]
    fn last_ended_by_ends_for_times_beyond_the_window_ids() {
        // A watermark far below any window (a huge lag) or far above: the answer saturates at
        // the ends of the id range instead of stepping one window at a time.
        for w in [
            WindowFn::tumbling(1).unwrap(),
            WindowFn::tumbling(60_000).unwrap(),
            WindowFn::sliding(60_000, 1_000).unwrap(),
        ] {
            let (low, high) = (w.last_ended_by(-1e16), w.last_ended_by(1e16));
            for t in [-1e19, -1e300, -f64::MAX] {
                assert!(w.last_ended_by(t) <= low, "{w:?} {t}");
            }
            assert_eq!(w.last_ended_by(-f64::MAX), Some(WindowId::MIN));
            for t in [1e19, 1e300, f64::MAX] {
                assert!(w.last_ended_by(t) >= high, "{w:?} {t}");
            }
            assert_eq!(w.last_ended_by(f64::MAX), Some(WindowId::MAX));
            for t in [
                -9.007_199_254_740e15,
                -1e15 - 0.5,
                1e15 + 0.5,
                9.007_199_254_740e15,
            ] {
                let k = w.last_ended_by(t).unwrap();
                assert!(w.end(k) <= t && w.end(w.next(k)) > t, "{w:?} {t} {k:?}");
            }
        }
    }

    #[test]
    fn windows_order_as_their_numbers_and_step_to_their_neighbours() {
        for w in [
            WindowFn::tumbling(60_000).unwrap(),
            WindowFn::sliding(60_000, 20_000).unwrap(),
            WindowFn::sliding(50, 20).unwrap(),
        ] {
            for i in -5..5 {
                let id = w.at_index(i);
                assert_eq!(w.index(id), i);
                assert_eq!(id.start(), (i * w.slide()) as f64);
                assert_eq!(id.end(), (i * w.slide() + w.size()) as f64);
                assert!(w.at_index(i - 1) < id && id < w.at_index(i + 1));
                assert_eq!(w.next(id), w.at_index(i + 1));
                assert_eq!(w.prev(id), w.at_index(i - 1));
                assert!(WindowId::MIN < id && id < WindowId::MAX);
            }
            let all: Vec<i64> = w.assign(45.5).map(|id| w.index(id)).collect();
            let expect: Vec<i64> = (-1000..1000)
                .filter(|&i| w.start(w.at_index(i)) <= 45.5 && 45.5 < w.end(w.at_index(i)))
                .collect();
            assert_eq!(all, expect, "{w:?}");
        }
    }

    /// Windows with an offset, brute force: every window that holds `t`, from the numbers
    /// around its own.
    fn holding(w: &WindowFn, t: f64) -> Vec<WindowId> {
        let guess = ((t - w.offset() as f64) / w.slide() as f64).floor() as i64;
        let per = w.size() / w.slide() + 2;
        (guess - per..=guess + 2)
            .map(|i| w.at_index(i))
            .filter(|id| id.start() <= t && t < id.end())
            .collect()
    }

    #[test]
    fn an_offset_moves_every_window_and_keeps_each_rule_exact() {
        let windows = [
            WindowFn::tumbling(60_000)
                .unwrap()
                .with_offset(7_000)
                .unwrap(),
            WindowFn::tumbling(86_400_000)
                .unwrap()
                .with_offset(5 * 3_600_000)
                .unwrap(),
            WindowFn::sliding(60_000, 20_000)
                .unwrap()
                .with_offset(-1)
                .unwrap(),
            WindowFn::sliding(50, 20).unwrap().with_offset(13).unwrap(),
        ];
        let times = [
            0.0,
            -0.5,
            6_999.0,
            7_000.0,
            7_000.5,
            66_999.999,
            67_000.0,
            -53_000.0,
            -53_000.25,
            1_357_016_400_000.0,
            1_357_034_399_999.0,
            1_357_034_400_000.0,
            123_456.7,
        ];
        for w in windows {
            assert!(0 <= w.offset() && w.offset() < w.slide(), "{w:?}");
            for i in -5..5 {
                let id = w.at_index(i);
                assert_eq!(w.index(id), i, "{w:?}");
                assert_eq!(id.start_ms(), i * w.slide() + w.offset());
                assert_eq!(id.end_ms(), id.start_ms() + w.size());
                assert_eq!(w.next(id), w.at_index(i + 1));
                assert_eq!(w.prev(id), w.at_index(i - 1));
            }
            for t in times {
                let assigned: Vec<WindowId> = w.assign(t).collect();
                assert_eq!(assigned, holding(&w, t), "{w:?} t={t}");
                if !w.places_once() {
                    continue;
                }
                assert_eq!(assigned.len(), 1, "{w:?} t={t}");
            }
            for t in times {
                let k = w.last_ended_by(t).unwrap();
                assert!(w.end(k) <= t && w.end(w.next(k)) > t, "{w:?} t={t} {k:?}");
            }
        }
    }

    #[test]
    fn an_offset_is_taken_modulo_the_slide_and_sessions_have_none() {
        let day = 86_400_000;
        let w = WindowFn::tumbling(day).unwrap();
        assert_eq!(w.with_offset(-19 * 3_600_000), w.with_offset(5 * 3_600_000));
        assert_eq!(w.with_offset(day + 5), w.with_offset(5));
        assert_eq!(w.with_offset(0).unwrap(), w);
        let s = WindowFn::sliding(day, 3_600_000).unwrap();
        assert_eq!(s.with_offset(5 * 3_600_000).unwrap().offset(), 0);
        assert_eq!(s.with_offset(-30 * 60_000).unwrap().offset(), 30 * 60_000);
        assert!(WindowFn::session(1_000).unwrap().with_offset(5).is_err());
        assert!(WindowFn::global(None).unwrap().with_offset(5).is_err());
        assert_eq!(
            w.with_offset(5 * 3_600_000).unwrap().describe(),
            "24h tumbling (offset 5h)"
        );
        assert_eq!(w.describe(), "24h tumbling");
        assert_eq!(
            s.with_offset(-30 * 60_000).unwrap().describe(),
            "24h/60m sliding (offset 30m)"
        );
    }

    #[test]
    fn windows_of_hours_and_days_fall_on_the_zone_s_hours_and_midnights() {
        use crate::clock::Zone;
        use jiff::tz::{Offset, TimeZone};
        let zone = |seconds: i32| {
            Clock::Wall(Zone::new(TimeZone::fixed(
                Offset::from_seconds(seconds).unwrap(),
            )))
        };
        let new_york = zone(-5 * 3600);
        let kolkata = zone(5 * 3600 + 1800);
        let first = 1_357_017_300_000.0; // 2013-01-01 05:15 UTC, 00:15 in New York
        let (hour, day) = (3_600_000, 86_400_000);
        let days = WindowFn::tumbling(day).unwrap();
        let ny_days = days.aligned_to(&new_york, first);
        assert_eq!(ny_days.offset(), 5 * hour);
        // The day the first departure falls in starts at New York's midnight, 05:00 UTC.
        let first_day = ny_days.assign(first).next().unwrap();
        assert_eq!(first_day.start_ms(), 1_357_016_400_000);
        assert_eq!(new_york.at(first_day.start()), "2013-01-01 00:00");
        let hours = WindowFn::sliding(day, hour).unwrap();
        assert_eq!(hours.aligned_to(&new_york, first).offset(), 0);
        assert_eq!(hours.aligned_to(&kolkata, first).offset(), 30 * 60_000);
        assert_eq!(
            days.aligned_to(&kolkata, first).offset(),
            18 * hour + 30 * 60_000
        );
        let week = WindowFn::tumbling(7 * day).unwrap();
        assert_eq!(week.aligned_to(&new_york, first).offset(), 5 * hour);
        // Windows that do not divide a day stay on the epoch's grid, as does every window on
        // a relative clock, in UTC, or with no first event.
        for (w, clock, at) in [
            (WindowFn::tumbling(7 * 60_000).unwrap(), &new_york, first),
            (
                WindowFn::sliding(day, 7 * 60_000).unwrap(),
                &new_york,
                first,
            ),
            (days, &Clock::Relative, first),
            (days, &Clock::wall_utc(), first),
            (days, &new_york, f64::NAN),
        ] {
            assert_eq!(w.aligned_to(clock, at), w, "{w:?} {clock:?}");
        }
        // A moved window is put back on the grid where the zone does not move it.
        assert_eq!(ny_days.aligned_to(&Clock::wall_utc(), first), days);
        for w in [
            WindowFn::session(60_000).unwrap(),
            WindowFn::global(None).unwrap(),
        ] {
            assert_eq!(w.aligned_to(&new_york, first), w);
        }
    }
}
