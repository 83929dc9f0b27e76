//! The processor's session store: each key's open sessions by start, through which an event's
//! proto-window finds the sessions it overlaps, and every open session by end, through which
//! the watermark finds the sessions it passes and the ones past their grace. It holds the
//! sessions and their cells' state only; how an arrival merges into it is `sessions.rs`.

use std::collections::{BTreeMap, BTreeSet};

use super::super::stream::KeyId;
use super::super::trigger::CellState;
use super::super::window::{floor_to_i64, CellId, WindowId};

/// Estimated bytes of one open session's place in the session index, besides its cell (counted
/// in [`super::CELL_BYTES`]): its entry by key and start (key, start and end) and its entry by
/// end (end, start and key), each with a share of the ordered maps' node overhead.
pub const SESSION_BYTES: usize =
    std::mem::size_of::<(KeyId, i64, i64)>() + std::mem::size_of::<(i64, i64, KeyId)>() + 2 * 16;

#[derive(Debug, Clone)]
struct Session {
    end: i64,
    state: CellState,
}

/// The open sessions: per key by start, and all of them by end.
#[derive(Debug, Clone, Default)]
pub(super) struct SessionStore {
    /// Per key, its open sessions by start: `(key, start) → (end, state)`.
    by_key: BTreeMap<(KeyId, i64), Session>,
    /// Every open session by end: `(end, start, key)`.
    by_end: BTreeSet<(i64, i64, KeyId)>,
}

impl SessionStore {
    /// Open sessions, over every key.
    pub(super) fn len(&self) -> usize {
        self.by_key.len()
    }

    /// The state of session `cell`, if it is open.
    pub(super) fn get(&self, cell: CellId) -> Option<&CellState> {
        self.by_key
            .get(&(cell.key, cell.window.start_ms()))
            .filter(|s| s.end == cell.window.end_ms())
            .map(|s| &s.state)
    }

    /// The state of session `cell`, to change, if it is open.
    pub(super) fn get_mut(&mut self, cell: CellId) -> Option<&mut CellState> {
        self.by_key
            .get_mut(&(cell.key, cell.window.start_ms()))
            .filter(|s| s.end == cell.window.end_ms())
            .map(|s| &mut s.state)
    }

    /// The open sessions with their state, by key then start.
    pub(super) fn iter(&self) -> impl Iterator<Item = (CellId, &CellState)> + '_ {
        self.by_key.iter().map(|(&(key, start), s)| {
            let window = WindowId::new(start, s.end);
            (CellId { window, key }, &s.state)
        })
    }

    /// Opens session `cell` with `state`.
    pub(super) fn insert(&mut self, cell: CellId, state: CellState) {
        let (start, end) = (cell.window.start_ms(), cell.window.end_ms());
        self.by_key
            .insert((cell.key, start), Session { end, state });
        self.by_end.insert((end, start, cell.key));
    }

    /// Closes session `cell`: its state, if it was open.
    pub(super) fn remove(&mut self, cell: CellId) -> Option<CellState> {
        let (start, end) = (cell.window.start_ms(), cell.window.end_ms());
        let s = self.by_key.remove(&(cell.key, start))?;
        self.by_end.remove(&(s.end, start, cell.key));
        debug_assert_eq!(s.end, end);
        Some(s.state)
    }

    /// The open sessions of `key` that overlap `window`, into `into` (latest first). A key's
    /// sessions are disjoint, so those starting before `window` ends and ending after it starts
    /// are the last few of them by start.
    ///
    /// With `touching`, sessions that only touch `window` merge with it too (Flink's rule).
    pub(super) fn overlapping(
        &self,
        key: KeyId,
        window: WindowId,
        touching: bool,
        into: &mut Vec<CellId>,
    ) {
        into.clear();
        let last = if touching {
            window.end_ms().saturating_add(1)
        } else {
            window.end_ms()
        };
        for (&(key, start), s) in self.by_key.range((key, i64::MIN)..(key, last)).rev() {
            let session = WindowId::new(start, s.end);
            let merges = session.overlaps(window)
                || (touching
                    && (session.end_ms() == window.start_ms() || start == window.end_ms()));
            if !merges {
                break;
            }
            into.push(CellId {
                window: session,
                key,
            });
        }
    }

    /// The session that ends first, if any is open.
    pub(super) fn first_by_end(&self) -> Option<CellId> {
        self.by_end.first().map(|&(end, start, key)| CellId {
            window: WindowId::new(start, end),
            key,
        })
    }

    /// The sessions ending in `(after, through]` (ends are whole milliseconds), by end, into
    /// `into`.
    pub(super) fn ending_in(&self, after: f64, through: f64, into: &mut Vec<CellId>) {
        into.clear();
        // An end `e` is above `after` iff `e ≥ ⌊after⌋ + 1`, and at most `through` iff
        // `e ≤ ⌊through⌋` (the casts saturate at the ends of the range).
        let from = floor_to_i64(after).saturating_add(1);
        let to = floor_to_i64(through);
        if after.is_nan() || through.is_nan() || from > to {
            return;
        }
        let range = (from, i64::MIN, KeyId::MIN)..=(to, i64::MAX, KeyId::MAX);
        into.extend(self.by_end.range(range).map(|&(end, start, key)| CellId {
            window: WindowId::new(start, end),
            key,
        }));
    }
}
