//! The processor's session store: each key's open sessions by start, through which an event's
//! proto-window finds the sessions it overlaps, and every open session by end, through which
//! the watermark finds the sessions it passes and the ones past their grace. It holds the
//! sessions and their cells' state only; how an arrival merges into it is `sessions.rs`.

use std::collections::BTreeSet;

use crate::stream::KeyId;
use crate::trigger::CellState;
use crate::window::{floor_to_i64, CellId, WindowId};

/// Estimated bytes of one open session's place in the session index, besides its cell (counted
/// in [`super::CELL_BYTES`]): its entry by key and start (key, start and end) and its entry by
/// end (end, start and key), each with a share of an ordered map's node overhead. A model of
/// what an engine's session index holds, not of this store's layout: the state figures do
/// not move when the store's layout does.
pub(crate) const SESSION_BYTES: usize =
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
    /// Ends no open session has: `[quiet.0, quiet.1)`, where the watermark can pass without
    /// a look at `by_end` (the last look found where the next end is; an insert ending
    /// there shortens it, a removal leaves it true). Empty until the first look.
    quiet: (i64, i64),
}

impl SessionStore {
    /// Open sessions, over every key.
    pub(super) fn len(&self) -> usize {
        self.by_end.len()
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
        self.opened_ending(end);
    }

    /// Replaces `olds`, open sessions of `cell`'s key next to each other by start, latest
    /// first (as [`SessionStore::overlapping`] finds them), by `cell` with `state`: `cell`
    /// covers them all and overlaps no other session of its key, so it takes their place in
    /// the key's order. (Sessions not so are removed one by one, and `cell` inserted.)
    pub(super) fn replace(&mut self, olds: &[CellId], cell: CellId, state: CellState) {
        // `olds` latest first: where the earliest is, they are the run from there.
        let k = olds.len();
        let at = olds.last().and_then(|&c| self.find(c)).filter(|&i| {
            self.of_key(cell.key).get(i..i + k).is_some_and(|run| {
                run.iter().zip(olds.iter().rev()).all(|(s, c)| {
                    c.key == cell.key
                        && (s.start, s.end) == (c.window.start_ms(), c.window.end_ms())
                })
            })
        });
        let Some(i) = at else {
            for &old in olds {
                self.remove(old);
            }
            self.insert(cell, state);
            return;
        };
        let sessions = &mut self.by_key[cell.key as usize];
        for s in &sessions[i..i + k] {
            self.by_end.remove(&(s.end, s.start, cell.key));
        }
        let (start, end) = (cell.window.start_ms(), cell.window.end_ms());
        sessions[i] = Session { start, end, state };
        sessions.drain(i + 1..i + k);
        self.by_end.insert((end, start, cell.key));
        self.opened_ending(end);
    }

    /// A session ending at `end` has opened: the quiet ends stop short of it.
    fn opened_ending(&mut self, end: i64) {
        if (self.quiet.0..self.quiet.1).contains(&end) {
            self.quiet.1 = end;
        }
    }

    /// Closes session `cell`: its state, if it was open.
    pub(super) fn remove(&mut self, cell: CellId) -> Option<CellState> {
        let i = self.find(cell)?;
        let s = self.by_key[cell.key as usize].remove(i);
        self.by_end.remove(&(s.end, s.start, cell.key));
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
    pub(super) fn ending_in(&mut self, after: f64, through: f64, into: &mut Vec<CellId>) {
        into.clear();
        // An end `e` is above `after` iff `e ≥ ⌊after⌋ + 1`, and at most `through` iff
        // `e ≤ ⌊through⌋` (the casts saturate at the ends of the range).
        let from = floor_to_i64(after).saturating_add(1);
        let to = floor_to_i64(through);
        if after.is_nan() || through.is_nan() || from > to {
            return;
        }
        if self.quiet.0 <= from && to < self.quiet.1 {
            return;
        }
        let range = (from, i64::MIN, KeyId::MIN)..=(to, i64::MAX, KeyId::MAX);
        into.extend(self.by_end.range(range).map(|&(end, start, key)| CellId {
            window: WindowId::new(start, end),
            key,
        }));
        // Where the next end after `to` is: till there, the watermark passes nothing.
        self.quiet = match to.checked_add(1) {
            Some(next) => {
                let first = self.by_end.range((next, i64::MIN, KeyId::MIN)..).next();
                (next, first.map_or(i64::MAX, |&(end, _, _)| end))
            }
            None => (0, 0),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What is done to the store: open a session, close one, replace a run of a key's
    /// sessions by one covering them, or move the watermark on and ask what it passed.
    #[derive(Debug, Clone)]
    enum Op {
        Open {
            key: KeyId,
            start: i64,
            len: i64,
        },
        Close(usize),
        Replace {
            key: KeyId,
            from: usize,
            run: usize,
            longer: i64,
            earlier: i64,
        },
        Pass(i64),
        /// Any range at all, the watermark left where it was.
        Ask(f64, f64),
    }

    /// A bound for [`Op::Ask`]: a mark near the sessions' ends, or an extreme.
    fn bound() -> impl Strategy<Value = f64> {
        prop_oneof![
            (-2i64..80).prop_map(|m| m as f64),
            (-2.0f64..80.0),
            Just(f64::NAN),
            Just(f64::INFINITY),
            Just(f64::NEG_INFINITY),
            Just(9.3e18),
            Just(-9.3e18),
        ]
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (0u32..3, 0i64..60, 0i64..12).prop_map(|(key, start, len)| Op::Open {
                key,
                start,
                len
            }),
            (0usize..40).prop_map(Op::Close),
            (0u32..3, 0usize..8, 1usize..4, 0i64..8, 0i64..3).prop_map(
                |(key, from, run, longer, earlier)| Op::Replace {
                    key,
                    from,
                    run,
                    longer,
                    earlier,
                }
            ),
            (0i64..6).prop_map(Op::Pass),
            (bound(), bound()).prop_map(|(a, b)| Op::Ask(a, b)),
        ]
    }

    fn cell(key: KeyId, start: i64, end: i64) -> CellId {
        CellId {
            window: WindowId::new(start, end),
            key,
        }
    }

    /// What the store says ends in `(after, through]` is what the list of its sessions holds
    /// there (NaN bounds hold none), by end.
    fn ask(
        store: &mut SessionStore,
        model: &[(KeyId, i64, i64)],
        after: f64,
        through: f64,
    ) -> Result<(), TestCaseError> {
        let mut got = Vec::new();
        store.ending_in(after, through, &mut got);
        let mut want: Vec<(i64, i64, KeyId)> = model
            .iter()
            .filter(|&&(_, _, e)| (e as f64) > after && (e as f64) <= through)
            .map(|&(k, s, e)| (e, s, k))
            .collect();
        want.sort_unstable();
        let got: Vec<(i64, i64, KeyId)> = got
            .iter()
            .map(|c| (c.window.end_ms(), c.window.start_ms(), c.key))
            .collect();
        prop_assert_eq!(got, want);
        Ok(())
    }

    proptest! {
        /// The store answers as a plain list of its open sessions does: what the watermark
        /// passes (whatever it skips over as quiet), which is first by end, and each key's
        /// sessions by start.
        #[test]
        fn the_store_answers_as_a_list_of_its_sessions(ops in proptest::collection::vec(op(), 0..120)) {
            let mut store = SessionStore::default();
            // (key, start, end), open.
            let mut model: Vec<(KeyId, i64, i64)> = Vec::new();
            let mut mark = -1i64;
            for op in ops {
                match op {
                    Op::Open { key, start, len } => {
                        if model.iter().any(|&(k, s, _)| k == key && s == start) {
                            continue;
                        }
                        model.push((key, start, start + len));
                        store.insert(cell(key, start, start + len), CellState::default());
                    }
                    Op::Close(i) => {
                        if model.is_empty() {
                            continue;
                        }
                        let (k, s, e) = model.remove(i % model.len());
                        prop_assert!(store.remove(cell(k, s, e)).is_some());
                    }
                    Op::Replace { key, from, run, longer, earlier } => {
                        let mut mine: Vec<(KeyId, i64, i64)> =
                            model.iter().copied().filter(|&(k, _, _)| k == key).collect();
                        mine.sort_by_key(|&(_, s, _)| s);
                        if from + run > mine.len() {
                            continue;
                        }
                        let olds = &mine[from..from + run];
                        // It may start before the first it replaces, not at or before the
                        // session before them.
                        let before = from.checked_sub(1).map_or(i64::MIN, |j| mine[j].1);
                        let start = (olds[0].1 - earlier).max(before + 1);
                        let end = olds.iter().map(|o| o.2).max().unwrap() + longer;
                        let found: Vec<CellId> =
                            olds.iter().rev().map(|&(k, s, e)| cell(k, s, e)).collect();
                        model.retain(|o| !olds.contains(o));
                        model.push((key, start, end));
                        store.replace(&found, cell(key, start, end), CellState::default());
                    }
                    Op::Pass(by) => {
                        let to = mark + by;
                        ask(&mut store, &model, mark as f64, to as f64)?;
                        mark = to;
                    }
                    Op::Ask(after, through) => ask(&mut store, &model, after, through)?,
                }
                prop_assert_eq!(store.len(), model.len());
                let first = model.iter().map(|&(k, s, e)| (e, s, k)).min();
                prop_assert_eq!(
                    store.first_by_end().map(|c| (c.window.end_ms(), c.window.start_ms(), c.key)),
                    first
                );
                let listed: Vec<(KeyId, i64, i64)> = store
                    .iter()
                    .map(|(c, _)| (c.key, c.window.start_ms(), c.window.end_ms()))
                    .collect();
                let mut sorted = model.clone();
                sorted.sort_unstable();
                prop_assert_eq!(&listed, &sorted);
            }
        }
    }
}
