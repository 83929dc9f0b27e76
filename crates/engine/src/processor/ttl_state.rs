//! The TTL's running state, part of the processor's: each live key's last update and the
//! deadlines in a min-heap, ordered by time then key. It holds the bookkeeping only; when keys
//! expire and what an expiry emits is `ttl.rs`.

use std::cmp::{Ordering, Reverse};
use std::collections::{BTreeMap, BinaryHeap};

use crate::stream::KeyId;
use crate::window::Ttl;

/// A key's expiry deadline, ordered by time then key.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Deadline {
    pub(super) at: f64,
    pub(super) key: KeyId,
}

impl Eq for Deadline {}

impl PartialOrd for Deadline {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Deadline {
    fn cmp(&self, other: &Self) -> Ordering {
        self.at.total_cmp(&other.at).then(self.key.cmp(&other.key))
    }
}

/// The TTL's running state: each live key's last update and the deadlines in time order.
#[derive(Debug, Clone)]
pub(super) struct TtlState {
    pub(super) ttl: Ttl,
    /// Per live key: the time of its last update (`L` of the boundary rule).
    pub(super) last: BTreeMap<KeyId, f64>,
    pub(super) deadlines: BinaryHeap<Reverse<Deadline>>,
}

impl TtlState {
    /// No key live yet.
    pub(super) fn new(ttl: Ttl) -> Self {
        TtlState {
            ttl,
            last: BTreeMap::new(),
            deadlines: BinaryHeap::new(),
        }
    }
}
