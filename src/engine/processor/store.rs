//! The window store of non-merging windows (tumbling, sliding): the open windows by id, each
//! holding its cells by key. Windows are found by id in a hash map on every event, and kept in
//! id order, which is the order they end in, in a set touched only when a window opens or
//! closes.

use std::collections::{BTreeMap, BTreeSet};

use rustc_hash::FxHashMap;

use super::super::stream::KeyId;
use super::super::trigger::CellState;
use super::super::window::WindowId;

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

/// The open windows: found by id in a hash map on every event, kept in id order (which is
/// end order for non-merging windows) in a set touched only when a window opens or closes.
#[derive(Debug, Clone, Default)]
pub(super) struct WindowStore {
    by_id: FxHashMap<WindowId, WindowState>,
    order: BTreeSet<WindowId>,
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
        self.by_id.get(id)
    }

    /// The window `id`, to change, if open.
    #[inline]
    pub(super) fn get_mut(&mut self, id: &WindowId) -> Option<&mut WindowState> {
        self.by_id.get_mut(id)
    }

    /// The window `id`, opened empty if it was not open.
    #[inline]
    pub(super) fn get_or_open(&mut self, id: WindowId) -> &mut WindowState {
        let order = &mut self.order;
        self.by_id.entry(id).or_insert_with(|| {
            order.insert(id);
            WindowState {
                cells: Cells::default(),
            }
        })
    }

    /// The open window that starts, and so ends, first.
    #[inline]
    pub(super) fn first(&self) -> Option<WindowId> {
        self.order.first().copied()
    }

    /// Closes window `id`: its state, if it was open.
    #[inline]
    pub(super) fn remove(&mut self, id: WindowId) -> Option<WindowState> {
        self.order.remove(&id);
        self.by_id.remove(&id)
    }

    /// The open windows from `from` through `through`, in order, into `into`.
    #[inline]
    pub(super) fn ids_in(&self, from: WindowId, through: WindowId, into: &mut Vec<WindowId>) {
        into.clear();
        into.extend(self.order.range(from..=through).copied());
    }

    /// The open windows, in order.
    #[inline]
    pub(super) fn iter(&self) -> impl Iterator<Item = (WindowId, &WindowState)> + '_ {
        self.order.iter().map(|id| (*id, &self.by_id[id]))
    }
}
