//! The windows table's geometry: a header row, then one row per window, scrolled so the
//! selected window is visible.

use ratatui::layout::Rect;

use super::{inner, inside};

/// The first window row shown when `room` rows fit: scrolled so the selected one is visible.
pub fn first_row(selected: usize, windows: usize, room: usize) -> usize {
    if room == 0 {
        return 0;
    }
    selected
        .saturating_sub(room.saturating_sub(1).min(room / 2))
        .min(windows.saturating_sub(room))
}

/// The window (index into `windows` of them, `selected` the selected one) drawn at screen
/// (col, row) of the windows panel at `area`, if any; the header row is none.
pub fn hit(area: Rect, windows: usize, selected: usize, col: u16, row: u16) -> Option<usize> {
    let inner = inner(area);
    if !inside(inner, col, row) || row == inner.y {
        return None;
    }
    let room = inner.height.saturating_sub(1) as usize;
    let sel = selected.min(windows.saturating_sub(1));
    let i = first_row(sel, windows, room) + usize::from(row - inner.y - 1);
    (i < windows).then_some(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_under_the_header_is_its_window_scrolled_to_the_selection() {
        // Inside the border: the header, then four rows.
        let area = Rect::new(0, 0, 40, 7);
        assert_eq!(hit(area, 10, 0, 5, 1), None, "the header");
        assert_eq!(hit(area, 10, 0, 5, 2), Some(0));
        assert_eq!(hit(area, 10, 9, 5, 2), Some(6), "scrolled to the last");
        assert_eq!(hit(area, 10, 0, 0, 2), None, "the border");
        assert_eq!(hit(area, 2, 0, 5, 4), None, "below the last window");
        assert_eq!(hit(Rect::default(), 10, 0, 0, 0), None, "no panel");
    }
}
