//! Sliding windows: windows of one length starting at a shorter period, so they overlap and
//! each event falls in several (`size / slide`, rounded up, at most).

use super::floor::floor_index_with;
use super::{describe_offset, periodic, Assignment, WindowError, WindowFn, WindowId, WindowShape};
use crate::duration::Duration;

/// Sliding windows of `size` ms starting every `slide` ms: window `i` is
/// `[i·slide + offset, i·slide + offset + size)`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Sliding {
    /// Length of a window, ms.
    pub(super) size: i64,
    /// Distance between the starts of consecutive windows, ms.
    pub(super) slide: i64,
    /// Where the windows start past the epoch's grid, ms (`0 ≤ offset < slide`).
    pub(super) offset: i64,
}

impl Sliding {
    /// Sliding windows, checked: a length of at least 1 ms, a slide from 1 ms to the length, and at
    /// most [`WindowFn::MAX_WINDOWS_PER_EVENT`] windows per event. A slide equal to the length
    /// is tumbling windows. Both on the epoch's grid.
    pub(super) fn checked(size: i64, slide: i64) -> Result<WindowFn, WindowError> {
        if size < 1 {
            return Err(WindowError::Size(size));
        }
        if slide < 1 || slide > size {
            return Err(WindowError::Slide { size, slide });
        }
        if slide == size {
            return Ok(WindowFn::Tumbling { size, offset: 0 });
        }
        // Rounded up without overflowing, whatever the size.
        let per_event = size / slide + i64::from(size % slide != 0);
        if per_event > WindowFn::MAX_WINDOWS_PER_EVENT {
            return Err(WindowError::TooManyWindows {
                size,
                slide,
                per_event,
            });
        }
        Ok(WindowFn::Sliding {
            size,
            slide,
            offset: 0,
        })
    }
}

impl WindowShape for Sliding {
    #[inline]
    fn size(self) -> i64 {
        self.size
    }

    #[inline]
    fn slide(self) -> i64 {
        self.slide
    }

    #[inline]
    fn offset(self) -> i64 {
        self.offset
    }

    #[inline]
    fn assign(self, event_time: f64, inv_slide: f64) -> Assignment {
        let Sliding {
            size,
            slide,
            offset,
        } = self;
        let end = |i| periodic::end(size, slide, offset, i);
        let last = periodic::floor_index(event_time, slide, offset, inv_slide);
        // The earliest window still covering the event: start + size > event_time (settled
        // below wherever the estimate rounded).
        let mut first =
            floor_index_with(event_time - size as f64 - offset as f64, slide, inv_slide) + 1;
        while first <= last && end(first) <= event_time {
            first += 1;
        }
        while end(first - 1) > event_time {
            first -= 1;
        }
        periodic::windows(size, slide, offset, first, last)
    }

    fn last_ended_by(self, t: f64) -> Option<WindowId> {
        periodic::last_ended_by(self.size, self.slide, self.offset, t)
    }

    #[inline]
    fn next(self, id: WindowId) -> WindowId {
        id.shifted(self.slide)
    }

    #[inline]
    fn prev(self, id: WindowId) -> WindowId {
        id.shifted(-self.slide)
    }

    fn index(self, id: WindowId) -> i64 {
        periodic::index(self.slide, self.offset, id)
    }

    fn at_index(self, index: i64) -> WindowId {
        periodic::window(self.size, self.slide, self.offset, index)
    }

    fn describe(self) -> String {
        format!(
            "{}/{} sliding{}",
            Duration::short(self.size as f64),
            Duration::short(self.slide as f64),
            describe_offset(self.offset)
        )
    }
}
