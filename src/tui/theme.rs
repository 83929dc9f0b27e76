//! The UI's semantic styles: one role per meaning (an event's fate, the watermark, the ideal
//! watermark, window edges, focus), in three built-in themes: `dark`, `light` (for projectors)
//! and `mono` (no colour; chosen when NO_COLOR is set). Meaning never rests on colour alone:
//! every role that carries meaning also has its own glyph or modifier.

use ratatui::style::{Color, Modifier, Style};

/// Which built-in theme.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ThemeName {
    #[default]
    Dark,
    Light,
    Mono,
}

/// The styles, by role.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Theme {
    pub name: ThemeName,
    pub text: Style,
    pub dim: Style,
    pub title: Style,
    pub border: Style,
    pub on_time: Style,
    pub late: Style,
    pub dropped: Style,
    pub watermark: Style,
    pub ideal: Style,
    pub window_edge: Style,
    pub selected_window: Style,
    pub playhead: Style,
    pub inspected: Style,
    pub focus: Style,
    pub early_pane: Style,
    pub on_time_pane: Style,
    pub late_pane: Style,
    pub policy: Style,
    pub current: Style,
    pub key: Style,
    pub warn: Style,
}

/// The glyphs that tell event fates and lines apart without colour.
pub mod glyph {
    pub const ON_TIME: char = '•';
    pub const ON_TIME_SPARSE: char = '·';
    pub const LATE: char = '◆';
    pub const DROPPED: char = '✕';
    pub const WATERMARK: char = '━';
    pub const IDEAL: char = '╌';
    pub const WINDOW_EDGE: char = '┊';
    pub const SELECTED_EDGE: char = '│';
    pub const PLAYHEAD: char = '┈';
    pub const CURRENT: char = '◉';
    pub const SWEEP: char = '∘';
    pub const ENVELOPE: char = '•';
    /// An event an operator took a second time (a replay after a crash).
    pub const REPLAYED: char = '↺';
    /// A completed checkpoint, on the processing-time axis.
    pub const CHECKPOINT: char = '╾';
    /// A crash, on the processing-time axis.
    pub const CRASH: char = '↯';
}

impl Theme {
    pub fn named(name: ThemeName) -> Theme {
        match name {
            ThemeName::Dark => Theme::dark(),
            ThemeName::Light => Theme::light(),
            ThemeName::Mono => Theme::mono(),
        }
    }

    /// The theme for a requested name, or mono when NO_COLOR is set (non-empty).
    pub fn resolve(requested: Option<ThemeName>, no_color: Option<&str>) -> Theme {
        match requested {
            Some(n) => Theme::named(n),
            None if no_color.is_some_and(|v| !v.is_empty()) => Theme::mono(),
            None => Theme::dark(),
        }
    }

    pub fn dark() -> Theme {
        let s = Style::default();
        Theme {
            name: ThemeName::Dark,
            text: s,
            dim: s.fg(Color::DarkGray),
            title: s.fg(Color::Cyan).add_modifier(Modifier::BOLD),
            border: s.fg(Color::DarkGray),
            on_time: s.fg(Color::Green),
            late: s.fg(Color::Yellow).add_modifier(Modifier::BOLD),
            dropped: s.fg(Color::LightRed).add_modifier(Modifier::BOLD),
            watermark: s.fg(Color::LightBlue).add_modifier(Modifier::BOLD),
            ideal: s.fg(Color::DarkGray),
            window_edge: s.fg(Color::DarkGray),
            selected_window: s.fg(Color::Magenta).add_modifier(Modifier::BOLD),
            playhead: s.fg(Color::Gray),
            inspected: s.add_modifier(Modifier::REVERSED | Modifier::BOLD),
            focus: s.add_modifier(Modifier::REVERSED | Modifier::BOLD),
            early_pane: s.fg(Color::Cyan),
            on_time_pane: s.fg(Color::Green).add_modifier(Modifier::BOLD),
            late_pane: s.fg(Color::Yellow),
            policy: s.fg(Color::Magenta).add_modifier(Modifier::BOLD),
            current: s
                .fg(Color::White)
                .add_modifier(Modifier::BOLD | Modifier::REVERSED),
            key: s.fg(Color::Cyan).add_modifier(Modifier::BOLD),
            warn: s.fg(Color::LightRed).add_modifier(Modifier::BOLD),
        }
    }

    /// Dark colours on a light background: readable on a washed-out projector.
    pub fn light() -> Theme {
        let s = Style::default();
        Theme {
            name: ThemeName::Light,
            text: s.fg(Color::Black),
            dim: s.fg(Color::Gray),
            title: s.fg(Color::Blue).add_modifier(Modifier::BOLD),
            border: s.fg(Color::Gray),
            on_time: s.fg(Color::Rgb(0, 110, 0)),
            late: s.fg(Color::Rgb(170, 95, 0)).add_modifier(Modifier::BOLD),
            dropped: s.fg(Color::Rgb(200, 0, 0)).add_modifier(Modifier::BOLD),
            watermark: s.fg(Color::Blue).add_modifier(Modifier::BOLD),
            ideal: s.fg(Color::Gray),
            window_edge: s.fg(Color::Gray),
            selected_window: s.fg(Color::Magenta).add_modifier(Modifier::BOLD),
            playhead: s.fg(Color::DarkGray),
            inspected: s.add_modifier(Modifier::REVERSED | Modifier::BOLD),
            focus: s.add_modifier(Modifier::REVERSED | Modifier::BOLD),
            early_pane: s.fg(Color::Blue),
            on_time_pane: s.fg(Color::Rgb(0, 110, 0)).add_modifier(Modifier::BOLD),
            late_pane: s.fg(Color::Rgb(170, 95, 0)),
            policy: s.fg(Color::Magenta).add_modifier(Modifier::BOLD),
            current: s
                .fg(Color::Black)
                .add_modifier(Modifier::BOLD | Modifier::REVERSED),
            key: s.fg(Color::Blue).add_modifier(Modifier::BOLD),
            warn: s.fg(Color::Rgb(200, 0, 0)).add_modifier(Modifier::BOLD),
        }
    }

    /// No colour at all: glyphs and modifiers carry the meaning.
    pub fn mono() -> Theme {
        let s = Style::default();
        let b = s.add_modifier(Modifier::BOLD);
        Theme {
            name: ThemeName::Mono,
            text: s,
            dim: s.add_modifier(Modifier::DIM),
            title: b,
            border: s,
            on_time: s,
            late: b,
            dropped: b,
            watermark: b,
            ideal: s.add_modifier(Modifier::DIM),
            window_edge: s.add_modifier(Modifier::DIM),
            selected_window: b,
            playhead: s.add_modifier(Modifier::DIM),
            inspected: s.add_modifier(Modifier::REVERSED | Modifier::BOLD),
            focus: s.add_modifier(Modifier::REVERSED | Modifier::BOLD),
            early_pane: s,
            on_time_pane: b,
            late_pane: s.add_modifier(Modifier::ITALIC),
            policy: b,
            current: s.add_modifier(Modifier::BOLD | Modifier::REVERSED),
            key: b,
            warn: b,
        }
    }

    /// The style of an event by its fate.
    pub fn fate(&self, fate: crate::engine::Fate) -> Style {
        match fate {
            crate::engine::Fate::OnTime => self.on_time,
            crate::engine::Fate::Late => self.late,
            crate::engine::Fate::Dropped => self.dropped,
        }
    }

    /// The glyph of an event by its fate.
    pub fn fate_glyph(fate: crate::engine::Fate) -> char {
        match fate {
            crate::engine::Fate::OnTime => glyph::ON_TIME,
            crate::engine::Fate::Late => glyph::LATE,
            crate::engine::Fate::Dropped => glyph::DROPPED,
        }
    }

    pub fn timing(&self, t: crate::engine::Timing) -> Style {
        match t {
            crate::engine::Timing::Early => self.early_pane,
            crate::engine::Timing::OnTime => self.on_time_pane,
            crate::engine::Timing::Late => self.late_pane,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_color_selects_mono_unless_a_theme_is_asked_for() {
        assert_eq!(Theme::resolve(None, Some("1")).name, ThemeName::Mono);
        assert_eq!(Theme::resolve(None, Some("")).name, ThemeName::Dark);
        assert_eq!(Theme::resolve(None, None).name, ThemeName::Dark);
        assert_eq!(
            Theme::resolve(Some(ThemeName::Light), Some("1")).name,
            ThemeName::Light
        );
    }
}
