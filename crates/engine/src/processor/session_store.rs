//! The processor's session store: each key's open sessions by start, through which an event's
//! proto-window finds the sessions it overlaps, and every open session by end, through which
//! the watermark finds the sessions it passes and the ones past their grace. It holds the
//! sessions and their cells' state only; how an arrival merges into it is `sessions.rs`.

use std::collections::BTreeSet;

use super::super::stream::KeyId;
use super::super::trigger::CellState;
use super::super::window::{floor_to_i64, CellId, WindowId};

/// Estimated bytes of one open session's place in the session index, besides its cell (counted
/// in [`super::CELL_BYTES`]): its entry by key and start (key, start and end) and its entry by
/// end (end, start and key), each with a share of an ordered map's node overhead. A model of
/// what an engine's session index holds, not of this store's layout: the state figures do
/// not move when the store's layout does.
pub const SESSION_BYTES: usize =
    std::mem::size_of::<(KeyId, i64, i64)>() + std::mem::size_of::<(i64, i64, KeyId)>() + 2 * 16;

#[derive(Debug, Clone)]
struct Session {
    start: i64,
    end: i64,
    state: CellState,
}

/// The open sessions: per key by start, and all of them by end.
#[derive(Debug, Clone, Default)]
pub(super) struct SessionStore {
    /// Per key id, its open sessions by start (a key has a few open at a time, so a sorted
    /// list is the quickest index).
    by_key: Vec<Vec<Session>>,
    /// Every open session by end: `(end, start, key)`.
    by_end: BTreeSet<(i64, i64, KeyId)>,
    /// Open sessions, over every key.
    len: usize,
}

impl SessionStore {
    /// Open sessions, over every key.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// `key`'s open sessions, by start.
    fn of_key(&self, key: KeyId) -> &[Session] {
        self.by_key.get(key as usize).map_or(&[], Vec::as_slice)
    }

    /// Where session `cell` is among its key's, if it is open.
    fn find(&self, cell: CellId) -> Option<usize> {
        let sessions = self.of_key(cell.key);
        let start = cell.window.start_ms();
        let i = sessions.partition_point(|s| s.start < start);
        sessions
            .get(i)
            .filter(|s| s.start == start && s.end == cell.window.end_ms())
            .map(|_| i)
    }

    /// The state of session `cell`, if it is open.
    pub(super) fn get(&self, cell: CellId) -> Option<&CellState> {
        let i = self.find(cell)?;
        Some(&self.of_key(cell.key)[i].state)
    }

    /// The state of session `cell`, to change, if it is open.
    pub(super) fn get_mut(&mut self, cell: CellId) -> Option<&mut CellState> {
        let i = self.find(cell)?;
        Some(&mut self.by_key[cell.key as usize][i].state)
    }

    /// The open sessions with their state, by key then start.
    pub(super) fn iter(&self) -> impl Iterator<Item = (CellId, &CellState)> + '_ {
        self.by_key.iter().enumerate().flat_map(|(key, sessions)| {
            sessions.iter().map(move |s| {
                let window = WindowId::new(s.start, s.end);
                let key = key as KeyId;
                (CellId { window, key }, &s.state)
            })
        })
    }

    /// Opens session `cell` with `state` (a key's sessions never overlap, so none of its
    /// open sessions starts where it starts).
    pub(super) fn insert(&mut self, cell: CellId, state: CellState) {
        let (start, end) = (cell.window.start_ms(), cell.window.end_ms());
        let k = cell.key as usize;
        if self.by_key.len() <= k {
            self.by_key.resize_with(k + 1, Vec::new);
        }
        let sessions = &mut self.by_key[k];
        let i = sessions.partition_point(|s| s.start < start);
        debug_assert!(sessions.get(i).is_none_or(|s| s.start != start));
        sessions.insert(i, Session { start, end, state });
        self.by_end.insert((end, start, cell.key));
        self.len += 1;
    }

    /// Closes session `cell`: its state, if it was open.
    pub(super) fn remove(&mut self, cell: CellId) -> Option<CellState> {
        let i = self.find(cell)?;
        let s = self.by_key[cell.key as usize].remove(i);
        self.by_end.remove(&(s.end, s.start, cell.key));
        self.len -= 1;
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
        let sessions = self.of_key(key);
        let before = sessions.partition_point(|s| s.start < last);
        for s in sessions[..before].iter().rev() {
            let session = WindowId::new(s.start, s.end);
            let merges = session.overlaps(window)
                || (touching
                    && (session.end_ms() == window.start_ms() || s.start == window.end_ms()));
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
