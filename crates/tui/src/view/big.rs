//! The big numbers (`b`): the counters that matter now in a block font over the whole screen
//! above the footer, readable from the back of a room, each with its label and scope ("so
//! far", "now", "at the end"). By default: on time, late, dropped and panes (a job also its
//! wrong cells and crashes). A caller (a lesson's step) may name its own set among
//! [`Figure::NAMES`]. The glyphs are the `tui-big-text` crate's ([`font`]); the layout takes the
//! biggest of three sizes (8 or 4 rows high) that fits every figure in a grid of one to three
//! columns, so 80×24 shows them all in a smaller size when it must; where even the smallest
//! does not fit, the figures that do not fit are left out and the border says how many.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Widget};

use twoclocks_engine::clock::Fit;
use twoclocks_engine::frontier::slack::StateCost;

use crate::app::App;
use crate::theme::glyph;

pub mod figure;
pub mod font;

pub use figure::Figure;

use font::Size;

/// One figure as shown: its label with its scope, its value as text, its style.
#[derive(Debug, Clone, PartialEq)]
pub struct Shown {
    /// What it counts and over what ("on time · so far").
    pub label: String,
    /// The same, shorter, for a narrow cell ("late · so far").
    pub short: String,
    /// The value, as the block font draws it.
    pub value: String,
    /// Its colour.
    pub style: Style,
}

/// A figure's label, value and style as the trace has them now (a job's wrong cells: those of
/// its worst sink).
pub fn shown(app: &App, f: Figure) -> Shown {
    let t = &app.theme;
    let tr = &app.trace();
    let c = tr.counters();
    let bold = t.text.add_modifier(Modifier::BOLD);
    let (label, value, style) = match f {
        Figure::OnTime => (
            format!("{} on time · so far", glyph::ON_TIME),
            c.on_time.to_string(),
            t.on_time,
        ),
        Figure::Late => (
            format!("{} late, within grace · so far", glyph::LATE),
            c.late.to_string(),
            t.late,
        ),
        Figure::Dropped => (
            format!("{} dropped · so far", glyph::DROPPED),
            c.dropped.to_string(),
            t.dropped,
        ),
        Figure::Panes => (
            format!(
                "panes · so far (E{} O{} L{})",
                c.early_panes, c.on_time_panes, c.late_panes
            ),
            c.panes().to_string(),
            t.on_time_pane,
        ),
        Figure::Watermark => (
            "watermark · now".to_string(),
            app.clock().at_fit(tr.watermark(), Fit::Time),
            t.watermark,
        ),
        Figure::Gap => {
            let wm = tr.watermark();
            let gap = if wm.is_infinite() {
                "—".to_string()
            } else {
                crate::view::duration(app.clock(), app.playhead().now - wm)
            };
            (
                "gap: processing time − watermark · now".to_string(),
                gap,
                bold,
            )
        }
        Figure::Arrived => (
            format!("arrived · so far, of {}", app.scenario().len()),
            c.events.to_string(),
            bold,
        ),
        Figure::Wrong => match tr.sinks(&app.scenario().oracle.truth) {
            Some(r) => {
                let worst = r.scores.iter().max_by_key(|s| s.wrong);
                let n = worst.map_or(0, |s| s.wrong);
                let name = worst.map_or("", |s| s.kind.name());
                (
                    format!("wrong cells, {name} sink · so far"),
                    n.to_string(),
                    if n == 0 { t.on_time } else { t.dropped },
                )
            }
            None => match tr.final_score(&app.scenario().oracle.truth) {
                Some(p) => (
                    "windows wrong · at the end".to_string(),
                    p.score.wrong_windows.to_string(),
                    if p.score.wrong_windows == 0 {
                        t.on_time
                    } else {
                        t.dropped
                    },
                ),
                None => ("windows wrong · at the end".to_string(), "—".into(), bold),
            },
        },
        Figure::State => (
            "state · now".to_string(),
            StateCost::bytes(tr.state_bytes()),
            bold,
        ),
        Figure::Crashes => (
            format!("{} crashes · so far", glyph::CRASH),
            tr.crashes().len().to_string(),
            if tr.crashes().is_empty() {
                bold
            } else {
                t.warn
            },
        ),
    };
    Shown {
        short: short(f, &label),
        label,
        value,
        style: style.remove_modifier(Modifier::DIM),
    }
}

/// A figure's label for a narrow cell: what it counts and its scope, without the detail.
fn short(f: Figure, label: &str) -> String {
    match f {
        Figure::Late => format!("{} late · so far", glyph::LATE),
        Figure::Panes => "panes · so far".into(),
        Figure::Gap => "gap · now".into(),
        Figure::Arrived => "arrived · so far".into(),
        Figure::Wrong if label.ends_with("so far") => "wrong cells · so far".into(),
        _ => label.to_string(),
    }
}

/// Where the figures go: columns, rows, the font, and how many fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grid {
    /// Columns of figures.
    pub cols: u16,
    /// Rows of figures.
    pub rows: u16,
    /// The font's size.
    pub size: Size,
    /// How many of the figures are shown (the first ones).
    pub shown: usize,
}

/// The grid for values `values` in `width` × `height` cells: the biggest font that fits every
/// value with its label line, in the columns that leave the most room around the widest value
/// (a column counting as two rows, as a cell is about twice as high as wide); when none fits
/// all, as many as fit in the smallest font.
pub fn grid(values: &[String], width: u16, height: u16) -> Option<Grid> {
    // The room left around the values in a grid of `cols`, if they fit.
    let room = |n: usize, cols: u16, size: Size| -> Option<usize> {
        let rows = (n as u16).div_ceil(cols);
        let (cw, ch) = (usize::from(width / cols), usize::from(height / rows.max(1)));
        let widest = values.iter().take(n).map(|v| font::width(v, size)).max()?;
        let spare_h = ch.checked_sub(usize::from(size.height()) + 1)?;
        let spare_w = cw.checked_sub(widest + 2)?;
        Some(spare_h.min(spare_w / 2))
    };
    let n = values.len();
    for size in Size::ALL {
        let best = (1..=3u16.min(n.max(1) as u16))
            .filter_map(|cols| room(n, cols, size).map(|r| (r, cols)))
            .max_by_key(|&(r, cols)| (r, std::cmp::Reverse(cols)));
        if let Some((_, cols)) = best {
            return Some(Grid {
                cols,
                rows: (n as u16).div_ceil(cols),
                size,
                shown: n,
            });
        }
    }
    (1..n).rev().find_map(|k| {
        (1..=3u16.min(k as u16))
            .find(|&cols| room(k, cols, Size::Small).is_some())
            .map(|cols| Grid {
                cols,
                rows: (k as u16).div_ceil(cols),
                size: Size::Small,
                shown: k,
            })
    })
}

/// Draws `figures` in big numbers over `area` (the whole screen above the footer).
pub fn render(app: &App, figures: &[Figure], area: Rect, buf: &mut Buffer) {
    let t = &app.theme;
    let shown: Vec<Shown> = figures.iter().map(|&f| shown(app, f)).collect();
    let values: Vec<String> = shown.iter().map(|s| s.value.clone()).collect();
    Clear.render(area, buf);
    app.theme.paint(area, buf);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.border)
        .title(Line::from(vec![
            Span::styled(" Big numbers ", t.title),
            Span::styled("· b returns ", t.dim),
        ]));
    let inner = block.inner(area);
    let g = grid(&values, inner.width, inner.height);
    let left_out = g.map_or(shown.len(), |g| shown.len() - g.shown);
    let block = if left_out > 0 {
        block.title_bottom(Line::from(Span::styled(
            format!(" {left_out} more: a bigger terminal shows them "),
            t.dim,
        )))
    } else {
        block
    };
    block.render(area, buf);
    let Some(g) = g else {
        return;
    };
    let (cw, ch) = (inner.width / g.cols, inner.height / g.rows);
    for (i, s) in shown.iter().take(g.shown).enumerate() {
        let (col, row) = (i as u16 % g.cols, i as u16 / g.cols);
        let cell = Rect::new(inner.x + col * cw, inner.y + row * ch, cw, ch);
        // The label above the value, the pair centred in the cell.
        let top = cell.y + (ch - g.size.height() - 1) / 2;
        // A blank column either side, so neighbouring labels never run together.
        let room = usize::from(cw.saturating_sub(2));
        let label = if s.label.chars().count() <= room {
            &s.label
        } else {
            &s.short
        };
        let label: String = label.chars().take(room).collect();
        let lw = label.chars().count() as u16;
        super::text::string(
            buf,
            cell.x + (cw - lw) / 2,
            top,
            label,
            lw,
            t.text.remove_modifier(Modifier::DIM),
        );
        let vw = font::width(&s.value, g.size) as u16;
        let at = Rect::new(cell.x + (cw - vw) / 2, top + 1, vw, g.size.height());
        font::widget(&s.value, g.size, s.style).render(at, buf);
    }
}
