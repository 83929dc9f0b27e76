//! The dials panel's geometry: one row per dial, a label, a track and the value.

use ratatui::layout::Rect;

use super::inner;
use crate::dials::Dial;

/// The label column's width.
pub const LABEL: u16 = 11;
/// The value column: a space and the longest value, "heuristic".
pub const VALUE: u16 = 10;

/// The screen row and track of each dial inside the dials panel at `area`.
pub fn track(area: Rect, dial: Dial) -> Option<Rect> {
    let inner = inner(area);
    let i = Dial::JOB.iter().position(|d| *d == dial)? as u16;
    if i >= inner.height || inner.width <= LABEL + VALUE + 3 {
        return None;
    }
    Some(Rect {
        x: inner.x + LABEL,
        y: inner.y + i,
        width: inner.width - LABEL - VALUE - 1,
        height: 1,
    })
}

/// The dial (of those shown, `order`) and track position (0 to 1) under a mouse position.
pub fn hit(area: Rect, order: &[Dial], col: u16, row: u16) -> Option<(Dial, f64)> {
    order.iter().find_map(|&d| {
        let t = track(area, d)?;
        if row != t.y || col + 1 < t.x || col > t.right() {
            return None;
        }
        let w = f64::from(t.width.saturating_sub(1).max(1));
        let r = (f64::from(col.saturating_sub(t.x)) / w).clamp(0.0, 1.0);
        Some((d, r))
    })
}

#[cfg(test)]
mod tests {
    use super::VALUE;
    use crate::dials::Family;

    #[test]
    fn every_watermark_familys_name_fits_the_value_column_after_a_space() {
        for family in Family::ALL {
            assert!(family.name().chars().count() < VALUE as usize, "{family}");
        }
    }
}
