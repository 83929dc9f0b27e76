//! Tumbling windows: back-to-back windows of one length, each event in exactly one.

use super::{describe_offset, periodic, Assignment, WindowError, WindowFn, WindowId, WindowShape};
use crate::duration::Duration;

/// Tumbling windows of `size` ms: window `i` is `[i·size + offset, (i+1)·size + offset)`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Tumbling {
    /// Length of a window, ms.
    pub(super) size: i64,
    /// Where the windows start past the epoch's grid, ms (`0 ≤ offset < size`).
    pub(super) offset: i64,
}

impl Tumbling {
    /// Tumbling windows of `size` ms on the epoch's grid, checked: at least 1 ms.
    pub(super) fn checked(size: i64) -> Result<WindowFn, WindowError> {
        if size < 1 {
            return Err(WindowError::Size(size));
        }
        Ok(WindowFn::Tumbling { size, offset: 0 })
    }
}

impl WindowShape for Tumbling {
    #[inline]
    fn size(self) -> i64 {
        self.size
    }

    #[inline]
    fn slide(self) -> i64 {
        self.size
    }

    #[inline]
    fn offset(self) -> i64 {
        self.offset
    }

    #[inline]
    fn assign(self, event_time: f64, inv_slide: f64) -> Assignment {
        let i = periodic::floor_index(event_time, self.size, self.offset, inv_slide);
        Assignment::one(periodic::window(self.size, self.size, self.offset, i))
    }

    fn last_ended_by(self, t: f64) -> Option<WindowId> {
        periodic::last_ended_by(self.size, self.size, self.offset, t)
    }

    #[inline]
    fn next(self, id: WindowId) -> WindowId {
        id.shifted(self.size)
    }

    #[inline]
    fn prev(self, id: WindowId) -> WindowId {
        id.shifted(-self.size)
    }

    fn index(self, id: WindowId) -> i64 {
        periodic::index(self.size, self.offset, id)
    }

    fn at_index(self, index: i64) -> WindowId {
        periodic::window(self.size, self.size, self.offset, index)
    }

    fn describe(self) -> String {
        format!(
            "{} tumbling{}",
            Duration::short(self.size as f64),
            describe_offset(self.offset)
        )
    }
}
