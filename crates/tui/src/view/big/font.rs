//! The big numbers' glyphs: the `tui-big-text` crate's 8×8 font drawn at three pixel sizes, and
//! the room a value takes at each, so the layout can choose a size before drawing. Values are
//! written in ASCII first: the font has no `∞` or `−`.

use ratatui::style::Style;
use ratatui::text::Line;
use tui_big_text::{BigText, PixelSize};

/// How big the glyphs are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Size {
    /// A font pixel per quadrant of a cell: 4 columns and 4 rows a character.
    Small,
    /// A font pixel per half cell (upper or lower): 8 columns and 4 rows a character, pixels
    /// about square.
    Medium,
    /// A font pixel per cell: 8 columns and 8 rows a character.
    Large,
}

impl Size {
    /// Every size, largest first.
    pub const ALL: [Size; 3] = [Size::Large, Size::Medium, Size::Small];

    /// Rows a line of text takes.
    pub fn height(self) -> u16 {
        match self {
            Size::Large => 8,
            Size::Medium | Size::Small => 4,
        }
    }

    /// Columns a character takes.
    fn columns(self) -> usize {
        match self {
            Size::Large | Size::Medium => 8,
            Size::Small => 4,
        }
    }

    fn pixels(self) -> PixelSize {
        match self {
            Size::Large => PixelSize::Full,
            Size::Medium => PixelSize::HalfHeight,
            Size::Small => PixelSize::Quadrant,
        }
    }
}

/// `text` as the font can draw it: `∞` as `inf`, minus signs and dashes as `-`, anything else
/// outside ASCII as `?`.
pub fn ascii(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '∞' => "inf".to_string(),
            '−' | '—' | '–' => "-".to_string(),
            c if c.is_ascii() => c.to_string(),
            _ => "?".to_string(),
        })
        .collect()
}

/// Columns `text` takes at `size`.
pub fn width(text: &str, size: Size) -> usize {
    ascii(text).chars().count() * size.columns()
}

/// The widget drawing `text` at `size` in `style`, from the top left of the area it is given.
pub fn widget(text: &str, size: Size, style: Style) -> BigText<'static> {
    BigText::builder()
        .pixel_size(size.pixels())
        .style(style)
        .lines(vec![Line::from(ascii(text))])
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::buffer::Buffer;
    use ratatui::layout::Rect;
    use ratatui::widgets::Widget;

    #[test]
    fn values_are_written_in_ascii() {
        assert_eq!(ascii("265.6s"), "265.6s");
        assert_eq!(ascii("∞"), "inf");
        assert_eq!(ascii("−12 +15"), "-12 +15");
        assert_eq!(ascii("—"), "-");
        assert_eq!(ascii("1.2 KiB"), "1.2 KiB");
    }

    #[test]
    fn widths_follow_the_size() {
        assert_eq!(width("12", Size::Small), 8);
        assert_eq!(width("12", Size::Medium), 16);
        assert_eq!(width("12", Size::Large), 16);
        assert_eq!(width("∞", Size::Large), 24);
        assert_eq!(width("", Size::Large), 0);
    }

    #[test]
    fn a_value_fills_the_room_it_says_it_takes() {
        for size in Size::ALL {
            let (w, h) = (width("190", size) as u16, size.height());
            let area = Rect::new(0, 0, w + 4, h + 2);
            let mut buf = Buffer::empty(area);
            widget("190", size, Style::default()).render(Rect::new(0, 0, w, h), &mut buf);
            let inked = |x: u16, y: u16| buf[(x, y)].symbol() != " ";
            assert!((0..h).any(|y| (0..w).any(|x| inked(x, y))), "{size:?}");
            assert!(
                (0..area.height).all(|y| (w..area.width).all(|x| !inked(x, y))),
                "{size:?}: nothing right of its width"
            );
            assert!(
                (h..area.height).all(|y| (0..area.width).all(|x| !inked(x, y))),
                "{size:?}: nothing below its height"
            );
        }
    }
}
