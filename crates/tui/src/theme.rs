//! The UI's semantic styles: one role per meaning (an event's fate, the watermark, the ideal
//! watermark, window edges, focus), in three built-in themes: `dark`, `light` (for projectors)
//! and `mono` (no colour; chosen when NO_COLOR is set). Meaning never rests on colour alone:
//! every role that carries meaning also has its own glyph or modifier.
//!
//! Contrast is measured, not guessed: [`contrast`] maps a colour to the RGB an xterm draws it
//! in and computes the WCAG 2.1 contrast ratio, and [`Theme::roles`] says for every style
//! whether it draws text (AA: 4.5:1) or lines and marks (3:1).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};

/// Which built-in theme.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ThemeName {
    /// Light colours on the terminal's own dark background (the default).
    #[default]
    Dark,
    /// Dark colours on a white background the theme paints itself: for projectors.
    Light,
    /// No colour: glyphs and modifiers carry the meaning. Chosen when NO_COLOR is set.
    Mono,
}

impl ThemeName {
    /// Every built-in theme, in the order `--help` lists them.
    pub const ALL: [ThemeName; 3] = [ThemeName::Dark, ThemeName::Light, ThemeName::Mono];

    /// The theme's name as `--theme` spells it.
    pub fn name(self) -> &'static str {
        match self {
            ThemeName::Dark => "dark",
            ThemeName::Light => "light",
            ThemeName::Mono => "mono",
        }
    }

    /// What the theme is for, as `--help` lists it.
    pub fn description(self) -> &'static str {
        match self {
            ThemeName::Dark => "Light colours on the terminal's own dark background (the default)",
            ThemeName::Light => {
                "Dark colours on a white background the theme paints itself: for projectors"
            }
            ThemeName::Mono => {
                "No colour: glyphs and modifiers carry the meaning. Chosen when NO_COLOR is set"
            }
        }
    }
}

impl std::str::FromStr for ThemeName {
    type Err = String;

    /// The theme `--theme` names: `dark`, `light` or `mono`, exactly.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        ThemeName::ALL
            .into_iter()
            .find(|t| t.name() == text)
            .ok_or_else(|| format!("'{text}' is not a theme: dark, light or mono"))
    }
}

impl std::fmt::Display for ThemeName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The styles, by role.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Theme {
    /// Which built-in theme this is.
    pub name: ThemeName,
    /// The theme's own foreground and background, painted under the whole screen (the
    /// terminal's defaults when they are `Reset`).
    pub base: Style,
    /// Ordinary words and numbers.
    pub text: Style,
    /// Secondary text: units, legends, axis labels, the frontier's swept points.
    pub dim: Style,
    /// Panel titles and the help's headings.
    pub title: Style,
    /// Panel borders.
    pub border: Style,
    /// Events counted on time, and the frontier's envelope.
    pub on_time: Style,
    /// Events counted late (within grace), and the inspected event's grace band.
    pub late: Style,
    /// Events dropped (past grace), and how far past grace the inspected one was.
    pub dropped: Style,
    /// The watermark, and the watermark at the inspected event's arrival.
    pub watermark: Style,
    /// The ideal watermark, where event time equals processing time.
    pub ideal: Style,
    /// Window ends on the plot.
    pub window_edge: Style,
    /// The selected window's edges.
    pub selected_window: Style,
    /// The playhead: the processing time the animation has reached.
    pub playhead: Style,
    /// The inspected event.
    pub inspected: Style,
    /// What has the focus: the focused dial, the selected window's row, the picked node.
    pub focus: Style,
    /// EARLY panes: speculative answers before the watermark passes the window's end.
    pub early_pane: Style,
    /// ON_TIME panes: the answer when the watermark passes the window's end.
    pub on_time_pane: Style,
    /// LATE panes: refinements caused by late data.
    pub late_pane: Style,
    /// The named policies on the frontier, and events a replay took again.
    pub policy: Style,
    /// The current lag and grace's point on the frontier.
    pub current: Style,
    /// Keys to press, names of sinks and nodes, completed checkpoints on the time axis.
    pub key: Style,
    /// Warnings: crashes, errors, a re-run in progress.
    pub warn: Style,
}

/// The glyphs that tell event fates and lines apart without colour.
pub mod glyph {
    /// An event on time, in legends (the plot grades it by [`ON_TIME_RAMP`]).
    pub const ON_TIME: char = '•';
    /// An event late within grace, in legends (the plot grades it by [`LATE_RAMP`]).
    pub const LATE: char = '◆';
    /// An event dropped past grace, in legends (the plot grades it by [`DROPPED_RAMP`]).
    pub const DROPPED: char = '✕';
    /// The watermark's line.
    pub const WATERMARK: char = '━';
    /// The ideal watermark's line (event time = processing time).
    pub const IDEAL: char = '╌';
    /// A window's end.
    pub const WINDOW_EDGE: char = '┊';
    /// An edge of the selected window.
    pub const SELECTED_EDGE: char = '│';
    /// The playhead: the processing time reached.
    pub const PLAYHEAD: char = '┈';
    /// The current lag and grace's point on the frontier.
    pub const CURRENT: char = '◉';
    /// The frontier point the advisor gives for its default target.
    pub const ADVISED: char = '✦';
    /// A point of the frontier's lag × grace sweep.
    pub const SWEEP: char = '∘';
    /// A point on the frontier's lower envelope: the least loss its emit delay can buy.
    pub const ENVELOPE: char = '•';
    /// An event an operator took a second time (a replay after a crash).
    pub const REPLAYED: char = '↺';
    /// A completed checkpoint, on the processing-time axis.
    pub const CHECKPOINT: char = '╾';
    /// A crash, on the processing-time axis.
    pub const CRASH: char = '↯';
    /// The inspected event.
    pub const INSPECTED: char = '◎';
    /// The event a predict step asks about, on its way.
    pub const ASKED: char = '?';
    /// The inspected event's window, from the event to the window's end.
    pub const INSPECTED_WINDOW: char = '┄';
    /// A window's end, or the watermark at arrival, in the inspected event's inequality.
    pub const INEQUALITY_EDGE: char = '┃';
    /// How far the watermark had passed the window's end beyond the grace period.
    pub const PAST_GRACE: char = '─';
    /// The grace period, behind the watermark at arrival.
    pub const GRACE_BAND: char = '░';
    /// The plot's borders beside the rows in which the job's combined watermark stood still.
    pub const STALL: char = '┃';
    /// Side by side: an event whose fate differs in the other run, in legends.
    pub const DIFFERS: char = '≠';

    /// Per fate, the glyphs the plot draws a cell in, from light to heavy, with their ink:
    /// the pixels each lights in DejaVu Sans Mono at 16 pt (bold for late and dropped, as they
    /// are drawn). A cell's glyph is picked by how many events it holds, so ink follows events.
    pub const ON_TIME_RAMP: [(char, f64); 4] = [('·', 4.0), ('•', 18.0), ('●', 71.0), ('█', 186.0)];
    /// Late events' glyphs, light to heavy, with their ink.
    pub const LATE_RAMP: [(char, f64); 3] = [('⋄', 27.0), ('◆', 46.0), ('⧫', 65.0)];
    /// Dropped events' glyphs, light to heavy, with their ink.
    pub const DROPPED_RAMP: [(char, f64); 3] = [('ₓ', 14.0), ('✕', 22.0), ('✖', 40.0)];

    /// The glyphs of a fate, light to heavy, with their ink.
    pub fn ramp(fate: twoclocks_engine::Fate) -> &'static [(char, f64)] {
        match fate {
            twoclocks_engine::Fate::OnTime => &ON_TIME_RAMP,
            twoclocks_engine::Fate::Late => &LATE_RAMP,
            twoclocks_engine::Fate::Dropped => &DROPPED_RAMP,
        }
    }

    /// The fate and ink of a plot glyph, if it is one of the ramps'.
    pub fn ink(c: char) -> Option<(twoclocks_engine::Fate, f64)> {
        use twoclocks_engine::Fate;
        [Fate::OnTime, Fate::Late, Fate::Dropped]
            .into_iter()
            .find_map(|f| ramp(f).iter().find(|g| g.0 == c).map(|g| (f, g.1)))
    }
}

impl Theme {
    /// The built-in theme of that name (NO_COLOR not consulted; see [`Theme::resolve`]).
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

    /// Light colours on the terminal's own dark background (not painted), all from xterm's
    /// 256-colour palette: at least 4.5:1 for text and 3:1 for lines on black and near-black.
    pub fn dark() -> Theme {
        let s = Style::default();
        let c = Color::Indexed;
        Theme {
            name: ThemeName::Dark,
            base: s,
            text: s,
            dim: s.fg(c(245)),
            title: s.fg(c(44)).add_modifier(Modifier::BOLD),
            border: s.fg(c(242)),
            on_time: s.fg(c(40)),
            late: s.fg(c(220)).add_modifier(Modifier::BOLD),
            dropped: s.fg(c(203)).add_modifier(Modifier::BOLD),
            watermark: s.fg(c(75)).add_modifier(Modifier::BOLD),
            ideal: s.fg(c(242)),
            window_edge: s.fg(c(242)),
            selected_window: s.fg(c(207)).add_modifier(Modifier::BOLD),
            playhead: s.fg(c(250)),
            inspected: s.add_modifier(Modifier::REVERSED | Modifier::BOLD),
            focus: s.add_modifier(Modifier::REVERSED | Modifier::BOLD),
            early_pane: s.fg(c(44)),
            on_time_pane: s.fg(c(40)).add_modifier(Modifier::BOLD),
            late_pane: s.fg(c(220)),
            policy: s.fg(c(207)).add_modifier(Modifier::BOLD),
            current: s
                .fg(c(231))
                .add_modifier(Modifier::BOLD | Modifier::REVERSED),
            key: s.fg(c(44)).add_modifier(Modifier::BOLD),
            warn: s.fg(c(203)).add_modifier(Modifier::BOLD),
        }
    }

    /// Dark colours on a white background the theme paints itself, so it reads the same on a
    /// projector and in a dark terminal; all from xterm's 256-colour palette (never the 16
    /// colours a terminal may remap): at least 4.5:1 for text and 3:1 for lines.
    pub fn light() -> Theme {
        let c = Color::Indexed;
        // Near-black on white.
        let s = Style::default().fg(c(235)).bg(c(231));
        Theme {
            name: ThemeName::Light,
            base: s,
            text: s,
            dim: s.fg(c(241)),
            title: s.fg(c(25)).add_modifier(Modifier::BOLD),
            border: s.fg(c(244)),
            on_time: s.fg(c(28)),
            late: s.fg(c(130)).add_modifier(Modifier::BOLD),
            dropped: s.fg(c(160)).add_modifier(Modifier::BOLD),
            watermark: s.fg(c(20)).add_modifier(Modifier::BOLD),
            ideal: s.fg(c(244)),
            window_edge: s.fg(c(244)),
            selected_window: s.fg(c(127)).add_modifier(Modifier::BOLD),
            playhead: s.fg(c(240)),
            inspected: s.add_modifier(Modifier::REVERSED | Modifier::BOLD),
            focus: s.add_modifier(Modifier::REVERSED | Modifier::BOLD),
            early_pane: s.fg(c(25)),
            on_time_pane: s.fg(c(28)).add_modifier(Modifier::BOLD),
            late_pane: s.fg(c(130)),
            policy: s.fg(c(127)).add_modifier(Modifier::BOLD),
            current: s.add_modifier(Modifier::BOLD | Modifier::REVERSED),
            key: s.fg(c(25)).add_modifier(Modifier::BOLD),
            warn: s.fg(c(160)).add_modifier(Modifier::BOLD),
        }
    }

    /// No colour at all: glyphs and modifiers carry the meaning.
    pub fn mono() -> Theme {
        let s = Style::default();
        let b = s.add_modifier(Modifier::BOLD);
        Theme {
            name: ThemeName::Mono,
            base: s,
            text: s,
            // Plain, not DIM: dimmed text falls below 4.5:1 (lines may be dim).
            dim: s,
            title: b,
            border: s,
            on_time: s,
            late: b,
            dropped: b,
            watermark: b,
            ideal: s.add_modifier(Modifier::DIM),
            window_edge: s.add_modifier(Modifier::DIM),
            selected_window: b,
            playhead: s,
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

    /// Every style of the theme, by name, with what it draws (so its contrast can be checked).
    pub fn roles(&self) -> Vec<(&'static str, Style, Use)> {
        // Destructured so that a new role cannot be left out.
        let Theme {
            name: _,
            base,
            text,
            dim,
            title,
            border,
            on_time,
            late,
            dropped,
            watermark,
            ideal,
            window_edge,
            selected_window,
            playhead,
            inspected,
            focus,
            early_pane,
            on_time_pane,
            late_pane,
            policy,
            current,
            key,
            warn,
        } = *self;
        vec![
            ("base", base, Use::Text),
            ("text", text, Use::Text),
            ("dim", dim, Use::Text),
            ("title", title, Use::Text),
            ("border", border, Use::Mark),
            ("on_time", on_time, Use::Text),
            ("late", late, Use::Text),
            ("dropped", dropped, Use::Text),
            ("watermark", watermark, Use::Text),
            ("ideal", ideal, Use::Mark),
            ("window_edge", window_edge, Use::Mark),
            ("selected_window", selected_window, Use::Mark),
            ("playhead", playhead, Use::Text),
            ("inspected", inspected, Use::Text),
            ("focus", focus, Use::Text),
            ("early_pane", early_pane, Use::Text),
            ("on_time_pane", on_time_pane, Use::Text),
            ("late_pane", late_pane, Use::Text),
            ("policy", policy, Use::Text),
            ("current", current, Use::Text),
            ("key", key, Use::Text),
            ("warn", warn, Use::Text),
        ]
    }

    /// The terminals the theme must be readable on: a themed background makes it
    /// independent of the terminal's, so it is held to both kinds.
    pub fn terminals(&self) -> &'static [contrast::Terminal] {
        match self.name {
            ThemeName::Dark => &[contrast::DARK, contrast::BLACK],
            ThemeName::Light => &[contrast::LIGHT, contrast::DARK, contrast::BLACK],
            ThemeName::Mono => &[contrast::DARK, contrast::LIGHT],
        }
    }

    /// Paints the theme's own background (and default text colour) over `area`; a no-op for
    /// themes that use the terminal's.
    pub fn paint(&self, area: Rect, buf: &mut Buffer) {
        if self.base != Style::default() {
            buf.set_style(area.intersection(buf.area), self.base);
        }
    }

    /// The style of an event by its fate.
    pub fn fate(&self, fate: twoclocks_engine::Fate) -> Style {
        match fate {
            twoclocks_engine::Fate::OnTime => self.on_time,
            twoclocks_engine::Fate::Late => self.late,
            twoclocks_engine::Fate::Dropped => self.dropped,
        }
    }

    /// The glyph of an event by its fate.
    pub fn fate_glyph(fate: twoclocks_engine::Fate) -> char {
        match fate {
            twoclocks_engine::Fate::OnTime => glyph::ON_TIME,
            twoclocks_engine::Fate::Late => glyph::LATE,
            twoclocks_engine::Fate::Dropped => glyph::DROPPED,
        }
    }

    /// The style of a pane by its timing: EARLY, ON_TIME or LATE.
    pub fn timing(&self, t: twoclocks_engine::Timing) -> Style {
        match t {
            twoclocks_engine::Timing::Early => self.early_pane,
            twoclocks_engine::Timing::OnTime => self.on_time_pane,
            twoclocks_engine::Timing::Late => self.late_pane,
        }
    }
}

/// What a style draws, which sets the contrast it needs (WCAG 2.1 AA).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Use {
    /// Words and numbers: 4.5:1.
    Text,
    /// Lines, marks and bars: 3:1.
    Mark,
}

impl Use {
    /// The smallest contrast ratio this use needs.
    pub fn threshold(self) -> f64 {
        match self {
            Use::Text => contrast::TEXT,
            Use::Mark => contrast::MARK,
        }
    }
}

/// Colours as an xterm draws them, and the WCAG 2.1 contrast between two of them.
pub mod contrast {
    use ratatui::style::{Color, Modifier, Style};

    /// A colour as red, green and blue, 0 to 255 each.
    pub type Rgb = (u8, u8, u8);

    /// AA for text.
    pub const TEXT: f64 = 4.5;
    /// AA for lines, marks and bars.
    pub const MARK: f64 = 3.0;

    /// A terminal's default colours (what `Reset` means there).
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub struct Terminal {
        /// How contrast reports name it.
        pub name: &'static str,
        /// The default foreground: what `Reset` draws text in.
        pub fg: Rgb,
        /// The default background: what `Reset` paints under text.
        pub bg: Rgb,
    }

    /// A dark terminal as screenshots of the UI show it.
    pub const DARK: Terminal = Terminal {
        name: "dark terminal",
        fg: (208, 208, 208),
        bg: (16, 16, 16),
    };
    /// A black terminal (the hardest background for dark colours).
    pub const BLACK: Terminal = Terminal {
        name: "black terminal",
        fg: (229, 229, 229),
        bg: (0, 0, 0),
    };
    /// A light terminal: black on white.
    pub const LIGHT: Terminal = Terminal {
        name: "light terminal",
        fg: (0, 0, 0),
        bg: (255, 255, 255),
    };

    /// xterm's 16 ANSI colours.
    const ANSI: [Rgb; 16] = [
        (0, 0, 0),
        (205, 0, 0),
        (0, 205, 0),
        (205, 205, 0),
        (0, 0, 238),
        (205, 0, 205),
        (0, 205, 205),
        (229, 229, 229),
        (127, 127, 127),
        (255, 0, 0),
        (0, 255, 0),
        (255, 255, 0),
        (92, 92, 255),
        (255, 0, 255),
        (0, 255, 255),
        (255, 255, 255),
    ];

    /// An entry of xterm's 256-colour palette: the 16 ANSI colours, the 6×6×6 cube, 24 greys.
    pub fn indexed(n: u8) -> Rgb {
        const STEPS: [u8; 6] = [0, 95, 135, 175, 215, 255];
        match n {
            0..=15 => ANSI[usize::from(n)],
            16..=231 => {
                let i = usize::from(n - 16);
                (STEPS[i / 36], STEPS[(i / 6) % 6], STEPS[i % 6])
            }
            _ => {
                let v = 8 + (n - 232) * 10;
                (v, v, v)
            }
        }
    }

    /// The RGB an xterm draws `c` in (`Reset`: the terminal's `default`).
    pub fn rgb(c: Color, default: Rgb) -> Rgb {
        match c {
            Color::Reset => default,
            Color::Black => indexed(0),
            Color::Red => indexed(1),
            Color::Green => indexed(2),
            Color::Yellow => indexed(3),
            Color::Blue => indexed(4),
            Color::Magenta => indexed(5),
            Color::Cyan => indexed(6),
            Color::Gray => indexed(7),
            Color::DarkGray => indexed(8),
            Color::LightRed => indexed(9),
            Color::LightGreen => indexed(10),
            Color::LightYellow => indexed(11),
            Color::LightBlue => indexed(12),
            Color::LightMagenta => indexed(13),
            Color::LightCyan => indexed(14),
            Color::White => indexed(15),
            Color::Rgb(r, g, b) => (r, g, b),
            Color::Indexed(n) => indexed(n),
        }
    }

    /// WCAG 2.1 relative luminance.
    pub fn luminance(c: Rgb) -> f64 {
        let lin = |v: u8| {
            let s = f64::from(v) / 255.0;
            if s <= 0.03928 {
                s / 12.92
            } else {
                ((s + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * lin(c.0) + 0.7152 * lin(c.1) + 0.0722 * lin(c.2)
    }

    /// WCAG 2.1 contrast ratio, 1 to 21.
    pub fn ratio(a: Rgb, b: Rgb) -> f64 {
        let (la, lb) = (luminance(a), luminance(b));
        (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
    }

    /// The (glyph, background) colours a cell shows: unset colours from `under` (what was
    /// painted below) and then the terminal; reversed swapped; dim drawn halfway to the
    /// background.
    pub fn shown(style: Style, under: Style, term: &Terminal) -> (Rgb, Rgb) {
        let fg = rgb(style.fg.or(under.fg).unwrap_or(Color::Reset), term.fg);
        let bg = rgb(style.bg.or(under.bg).unwrap_or(Color::Reset), term.bg);
        let m = (under.add_modifier - under.sub_modifier)
            .union(style.add_modifier)
            .difference(style.sub_modifier);
        let (mut fg, bg) = if m.contains(Modifier::REVERSED) {
            (bg, fg)
        } else {
            (fg, bg)
        };
        if m.contains(Modifier::DIM) {
            let mid = |a: u8, b: u8| ((u16::from(a) + u16::from(b)) / 2) as u8;
            fg = (mid(fg.0, bg.0), mid(fg.1, bg.1), mid(fg.2, bg.2));
        }
        (fg, bg)
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
