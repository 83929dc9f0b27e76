//! The window store of non-merging windows (tumbling, sliding): the open windows by id, each
//! holding its cells by key. Windows live in a slab, are found by id in a hash map, and are
//! kept in id order, which is the order they end in, in an ordered map touched only when a
//! window opens or closes. Under tumbling windows the two windows last touched are cached: the
//! hot one, where the run of events falling in one window, the common case, finds its cells
//! without hashing, and the warm one before it, where a straggler's event swaps it with the
//! hot one.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use crate::conventions::Conventions;
use crate::stream::KeyId;
use crate::trigger::CellState;
use crate::window::WindowId;

/// One open window: its cells. Whether it has fired on time is not kept here: it is exactly
/// whether the watermark has passed it (`Processor::passed`).
#[derive(Debug, Clone)]
pub(super) struct WindowState {
    /// The window's cells, by key.
    pub(super) cells: Cells,
}

/// Key ids below this live in a window's dense slots; the rest in its ordered map, so that a
/// window's state follows the cells it holds, not the largest key id (logs keyed by user id).
const DENSE_KEYS: usize = 64;

/// The cells of one window, by key id, iterated in key order.
#[derive(Debug, Clone, Default)]
pub(super) struct Cells {
    dense: Vec<Option<CellState>>,
    sparse: BTreeMap<KeyId, CellState>,
}

impl Cells {
    /// The cell of `key`, if open.
    #[inline]
    pub(super) fn get(&self, key: KeyId) -> Option<&CellState> {
        match self.dense.get(key as usize) {
            Some(slot) => slot.as_ref(),
            None if (key as usize) < DENSE_KEYS => None,
            None => self.sparse.get(&key),
        }
    }

    /// The cell of `key`, to change, if open.
    #[inline]
    pub(super) fn get_mut(&mut self, key: KeyId) -> Option<&mut CellState> {
        if (key as usize) < DENSE_KEYS {
            self.dense.get_mut(key as usize).and_then(Option::as_mut)
        } else {
            self.sparse.get_mut(&key)
        }
    }

    /// The cell of `key`, made empty if absent; and whether it was just made.
    #[inline]
    pub(super) fn get_or_open(&mut self, key: KeyId) -> (&mut CellState, bool) {
        let k = key as usize;
        if k < DENSE_KEYS {
            if self.dense.len() <= k {
                self.dense.resize(k + 1, None);
            }
            let slot = &mut self.dense[k];
            let created = slot.is_none();
            (slot.get_or_insert_with(CellState::default), created)
        } else {
            let mut created = false;
            let c = self.sparse.entry(key).or_insert_with(|| {
                created = true;
                CellState::default()
            });
            (c, created)
        }
    }

    /// Takes the cell of `key` out, if open (a state TTL expiring it).
    pub(super) fn remove(&mut self, key: KeyId) -> Option<CellState> {
        if (key as usize) < DENSE_KEYS {
            self.dense.get_mut(key as usize).and_then(Option::take)
        } else {
            self.sparse.remove(&key)
        }
    }

    /// The open cells, in key order.
    #[inline]
    pub(super) fn iter(&self) -> impl Iterator<Item = (KeyId, &CellState)> + '_ {
        self.dense
            .iter()
            .enumerate()
            .filter_map(|(k, c)| c.as_ref().map(|c| (k as KeyId, c)))
            .chain(self.sparse.iter().map(|(k, c)| (*k, c)))
    }

    /// The open cells, to change, in key order.
    #[inline]
    pub(super) fn iter_mut(&mut self) -> impl Iterator<Item = (KeyId, &mut CellState)> + '_ {
        self.dense
            .iter_mut()
            .enumerate()
            .filter_map(|(k, c)| c.as_mut().map(|c| (k as KeyId, c)))
            .chain(self.sparse.iter_mut().map(|(k, c)| (*k, c)))
    }

    /// The open cells, taken, in key order.
    #[inline]
    pub(super) fn into_cells(self) -> impl Iterator<Item = (KeyId, CellState)> {
        self.dense
            .into_iter()
            .enumerate()
            .filter_map(|(k, c)| c.map(|c| (k as KeyId, c)))
            .chain(self.sparse)
    }
}

/// The open windows: their states in a slab of slots, found by id through a hash map, kept
/// in id order (which is end order for non-merging windows) in an ordered map touched only
/// when a window opens or closes. The window an event last opened or touched is the hot one:
/// the next event in the same window finds its cell by two comparisons of its event time and
/// no hashing ([`WindowStore::hot_cell`]).
#[derive(Debug, Clone)]
pub(super) struct WindowStore {
    slots: Vec<WindowState>,
    /// Slots freed by closed windows, to reuse.
    free: Vec<u32>,
    by_id: FxHashMap<WindowId, u32>,
    order: BTreeMap<WindowId, u32>,
    /// The window last touched, if any: the hot one.
    hot: Hot,
    /// The window touched before it (a straggler's window, or the one a straggler left):
    /// an event there swaps it with the hot one.
    warm: Hot,
    /// Whether it keeps the hot and warm windows: for tumbling windows, where an event's one
    /// window is usually the last one's. Under sliding windows each event touches several
    /// and the cache would only churn.
    caching: bool,
    /// Whose rules say when a window's end is passed (for [`WindowStore::hot_end`]).
    conventions: Conventions,
}

/// A cached open window: its id, its bounds as event times (NaN when there is none, so that
/// no time is in them) and its slot.
#[derive(Debug, Clone, Copy)]
struct Hot {
    id: Option<WindowId>,
    start: f64,
    end: f64,
    /// The watermark at which its end is passed ([`Conventions::pass_end`]).
    pass_end: f64,
    slot: u32,
}

impl Hot {
    const NONE: Hot = Hot {
        id: None,
        start: f64::NAN,
        end: f64::NAN,
        pass_end: f64::NAN,
        slot: 0,
    };

    /// Whether `t` falls in the window.
    #[inline(always)]
    fn holds(&self, t: f64) -> bool {
        t >= self.start && t < self.end
    }
}

impl WindowStore {
    /// An empty store, caching the windows last touched if `caching`.
    pub(super) fn new(caching: bool, conventions: Conventions) -> Self {
        WindowStore {
            slots: Vec::new(),
            free: Vec::new(),
            by_id: FxHashMap::default(),
            order: BTreeMap::new(),
            conventions,
            hot: Hot::NONE,
            warm: Hot::NONE,
            caching,
        }
    }
}

impl WindowStore {
    /// Open windows.
    #[inline]
    pub(super) fn len(&self) -> usize {
        self.by_id.len()
    }

    /// The window `id`, if open.
    #[inline]
    pub(super) fn get(&self, id: &WindowId) -> Option<&WindowState> {
        self.by_id.get(id).map(|&s| &self.slots[s as usize])
    }

    /// The window `id`, to change, if open.
    #[inline]
    pub(super) fn get_mut(&mut self, id: &WindowId) -> Option<&mut WindowState> {
        self.by_id.get(id).map(|&s| &mut self.slots[s as usize])
    }

    /// The window `id`, opened empty if it was not open; it becomes the hot window (when
    /// caching).
    #[inline]
    pub(super) fn get_or_open(&mut self, id: WindowId) -> &mut WindowState {
        if self.caching {
            if self.hot.id == Some(id) {
                return &mut self.slots[self.hot.slot as usize];
            }
            if self.warm.id == Some(id) {
                std::mem::swap(&mut self.hot, &mut self.warm);
                return &mut self.slots[self.hot.slot as usize];
            }
        }
        let slot = match self.by_id.get(&id) {
            Some(&s) => s,
            None => {
                let empty = WindowState {
                    cells: Cells::default(),
                };
                let s = match self.free.pop() {
                    Some(s) => {
                        self.slots[s as usize] = empty;
                        s
                    }
                    None => {
                        self.slots.push(empty);
                        (self.slots.len() - 1) as u32
                    }
                };
                self.by_id.insert(id, s);
                self.order.insert(id, s);
                s
            }
        };
        if !self.caching {
            return &mut self.slots[slot as usize];
        }
        // Bounds beyond ±2^53 ms are not exact as event times: such a window is never hot.
        const EXACT: i64 = 1 << 53;
        self.warm = self.hot;
        self.hot = if id.start_ms().abs() < EXACT && id.end_ms().abs() < EXACT {
            Hot {
                id: Some(id),
                start: id.start(),
                end: id.end(),
                pass_end: self.conventions.pass_end(id.end()),
                slot,
            }
        } else {
            Hot::NONE
        };
        &mut self.slots[slot as usize]
    }

    /// The open cell of `key` in the hot window, if `event_time` falls in that window (which
    /// is then the event's only window when windows tumble) and the cell is open and held
    /// densely; or else in the warm window, under the same conditions, which then becomes the
    /// hot one. `None` sends the caller down the general path.
    #[inline(always)]
    pub(super) fn hot_cell(
        &mut self,
        event_time: f64,
        key: KeyId,
    ) -> Option<(WindowId, &mut CellState)> {
        if !self.hot.holds(event_time) {
            if !self.warm.holds(event_time) {
                return None;
            }
            std::mem::swap(&mut self.hot, &mut self.warm);
        }
        let id = self.hot.id?;
        let cell = self.slots[self.hot.slot as usize]
            .cells
            .dense
            .get_mut(key as usize)
            .and_then(Option::as_mut)?;
        Some((id, cell))
    }

    /// The watermark at which the window `event_time` falls in has passed its end (its end,
    /// under Beam's rules), if it is the hot or the warm one (NaN otherwise).
    #[inline(always)]
    pub(super) fn hot_end(&self, event_time: f64) -> f64 {
        if self.hot.holds(event_time) {
            self.hot.pass_end
        } else {
            self.warm.pass_end
        }
    }

    /// The open window that starts, and so ends, first.
    #[inline]
    pub(super) fn first(&self) -> Option<WindowId> {
        self.order.first_key_value().map(|(id, _)| *id)
    }

    /// Closes window `id`: its state, if it was open.
    #[inline]
    pub(super) fn remove(&mut self, id: WindowId) -> Option<WindowState> {
        self.order.remove(&id);
        let s = self.by_id.remove(&id)?;
        if self.hot.id == Some(id) {
            self.hot = Hot::NONE;
        }
        if self.warm.id == Some(id) {
            self.warm = Hot::NONE;
        }
        self.free.push(s);
        Some(WindowState {
            cells: std::mem::take(&mut self.slots[s as usize].cells),
        })
    }

    /// The open windows from `from` through `through`, in order, into `into`.
    #[inline]
    pub(super) fn ids_in(&self, from: WindowId, through: WindowId, into: &mut Vec<WindowId>) {
        into.clear();
        into.extend(self.order.range(from..=through).map(|(id, _)| *id));
    }

    /// The open windows, in order.
    #[inline]
    pub(super) fn iter(&self) -> impl Iterator<Item = (WindowId, &WindowState)> + '_ {
        self.order
            .iter()
            .map(|(id, &s)| (*id, &self.slots[s as usize]))
    }
}
