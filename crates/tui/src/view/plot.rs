//! The two-clocks plot: every arrived event at (event time →, processing time ↑), drawn by its
//! fate (• on time, ◆ late within grace, ✕ dropped); the watermark as a line (━), window ends
//! (┊, the selected window's edges │) and the playhead (┈ with ▶ on the axis), all as the trace
//! has them: for the parallel job the events are those its operators took (↺ those taken again
//! in a replay), the watermark is the job's, and the processing-time axis carries its completed
//! checkpoints (╾) and crashes (↯).
//!
//! Ink follows events: each cell counts its events by fate, shows the fate most of them met, and
//! picks that fate's glyph (light to heavy, `glyph::ON_TIME_RAMP` and the others) by how many there
//! are, so a lone dropped event is a speck and the dense diagonal of on-time events is solid; an
//! event never gets more ink than its legend glyph alone, and on a sparse plot, where each event
//! gets that much, a cell's late or dropped events show over its on-time ones. The legend gives the
//! fates' shares of the events so far; `f` draws only the late and dropped events (and then the
//! ideal watermark, event time = processing time, which the on-time events otherwise cover). With
//! the inspector open on a late or dropped event, the plot draws its inequality on the event's row:
//! its window up to the window's end (┃), how far past grace the watermark was (─), the grace band
//! (░) and the watermark at arrival (┃). A tour's predict step draws the event it asks about where
//! it will land (`?`) until the room has voted. A frame costs one pass over the arrived events (an
//! even sample of huge inputs).
//!
//! A job whose partition was cut off: the rows of processing time in which the combined
//! watermark stood still are bracketed on both borders (┃) and labelled with how long it
//! stood; the events the outage held back are drawn on the row where they arrived, the heal,
//! in their fate's glyph reversed, so the burst stands out with the fates it met. Side by side
//! (`v`), the events whose fate differs between A and B ([`fate_differences`])
//! are drawn reversed in the policy colour on both plots, their ink in proportion as any
//! events' is (a cell of thousands with a few that differ is marked only when the differing
//! events' pooled ink reaches a mark), and the legend counts them.
//!
//! Session windows differ from key to key, so the plot draws the selected key's session ends (none
//! for all keys) and the selected session's edges; under the event-time labels, a lane per key
//! shown draws the run's sessions so far as spans and marks the merges (`lanes`). The global window
//! has no ends; its TTL expirations are marked on the processing-time axis.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Widget};

use twoclocks_engine::clock::Fit;
use twoclocks_engine::duration::Duration;
use twoclocks_engine::trace::Trace;
use twoclocks_engine::Fate;

use crate::app::{App, Run};
use crate::figures::Shares;
use crate::geometry::plot::{PlotFrame, Y_LABELS};
use crate::theme::{glyph, Theme};

mod calendar;
mod compare;
mod grid;
mod inequality;
mod lanes;
mod panes;
mod sample;
mod stalls;

pub use compare::{fate_differences, FateDiff};
use grid::{put, Mark};
use inequality::{asked, inequality_labels, inspected, Inequality};
pub use lanes::{lane_keys, EXPIRY, MERGE, SESSION_END, SESSION_ONE, SESSION_RUN, SESSION_START};
pub use panes::{bar_glyph, label as pane_label};
use stalls::stalls;
pub use stalls::{stall_rows, watermark_stalls, Stall};

/// Above this many arrived events, on-time events are drawn from an even sample of this size
/// (a frame then costs a bounded number of memory reads, whatever the input's size).
const ON_TIME_SAMPLES: usize = 40_000;
/// Likewise for late and dropped events (the classroom stream has a few thousand: all drawn).
const EXCEPTION_SAMPLES: usize = 40_000;

fn mark_cell(theme: &Theme, m: Mark, ineq: Option<&Inequality>) -> Option<(char, Style)> {
    let ramp = |f: Fate, level: u8| {
        let r = glyph::ramp(f);
        r[usize::from(level).min(r.len() - 1)].0
    };
    let fate_style = ineq.map_or(theme.dropped, |q| theme.fate(q.fate));
    Some(match m {
        Mark::Empty => return None,
        Mark::WindowEdge => (glyph::WINDOW_EDGE, theme.window_edge),
        Mark::SelectedEdge => (glyph::SELECTED_EDGE, theme.selected_window),
        Mark::Playhead => (glyph::PLAYHEAD, theme.playhead),
        Mark::Ideal => (glyph::IDEAL, theme.ideal),
        Mark::Pane(t) => (panes::bar_glyph(t), theme.timing(t)),
        Mark::OnTime(l) => (ramp(Fate::OnTime, l), theme.on_time),
        Mark::OnTimeOne => (ramp(Fate::OnTime, 1), theme.on_time),
        Mark::Watermark | Mark::WatermarkRun => (glyph::WATERMARK, theme.watermark),
        Mark::Late(l) => (ramp(Fate::Late, l), theme.late),
        Mark::Dropped(l) => (ramp(Fate::Dropped, l), theme.dropped),
        Mark::Held(f) => (
            Theme::fate_glyph(f),
            theme.fate(f).add_modifier(Modifier::REVERSED),
        ),
        Mark::Differs(f) => (
            Theme::fate_glyph(f),
            theme.policy.add_modifier(Modifier::REVERSED),
        ),
        Mark::Replayed => (glyph::REPLAYED, theme.policy),
        Mark::InspectedWindow => (glyph::INSPECTED_WINDOW, fate_style),
        Mark::PastGrace => (glyph::PAST_GRACE, theme.dropped),
        Mark::GraceBand => (glyph::GRACE_BAND, theme.late),
        Mark::WindowEnd => (glyph::INEQUALITY_EDGE, fate_style),
        Mark::AtArrival => (glyph::INEQUALITY_EDGE, theme.watermark),
        Mark::Inspected => (glyph::INSPECTED, theme.inspected),
    })
}

/// A fate's share as the legend writes it, never saying none or all when that is not so: `3.6%`,
/// `<0.1%` for a few events in many, `>99.9%` for all but a few.
pub fn share(n: usize, total: usize, percent: f64) -> String {
    let shown = format!("{percent:.1}%");
    if n > 0 && shown == "0.0%" {
        "<0.1%".to_string()
    } else if n < total && shown == "100.0%" {
        ">99.9%".to_string()
    } else {
        shown
    }
}

/// What the plot marks besides the fates, for the legend: the events held back by an outage
/// (drawn so far) and, side by side, those whose fate differs from the other run's.
#[derive(Debug, Clone, Copy, Default)]
struct Marked {
    held: usize,
    differ: Option<usize>,
}

impl Marked {
    /// The legend's spans for them: `≠ 212 differ` (reversed in the policy colour, as the plot
    /// draws them), `• 412 held back` (reversed).
    fn spans(self, t: &Theme) -> Vec<Span<'static>> {
        let mut v = Vec::new();
        if let Some(n) = self.differ {
            v.push(Span::raw(" "));
            v.push(Span::styled(
                glyph::DIFFERS.to_string(),
                t.policy.add_modifier(Modifier::REVERSED),
            ));
            v.push(Span::styled(format!(" {n} differ "), t.policy));
        } else if self.held > 0 {
            v.push(Span::raw(" "));
            v.push(Span::styled(
                glyph::ON_TIME.to_string(),
                t.text.add_modifier(Modifier::REVERSED),
            ));
            v.push(Span::styled(format!(" {} held back ", self.held), t.text));
        }
        v
    }
}

/// The legend: what else is marked (held back, differing), the glyphs, the fates' shares of
/// the events so far, the watermark; the widest that fits in `width` columns.
fn legend(app: &Run, width: u16, marked: Marked) -> Line<'static> {
    let extra = marked.spans(&app.theme);
    let room = usize::from(width.saturating_sub(2));
    let base = fates_legend(app, width);
    if extra.is_empty() {
        return base;
    }
    let mut both = extra.clone();
    both.extend(fates_legend(
        app,
        width.saturating_sub(Line::from(extra.clone()).width() as u16),
    ));
    if Line::from(both.clone()).width() <= room && both.len() > extra.len() {
        return Line::from(both);
    }
    let alone = Line::from(extra);
    if alone.width() <= room {
        alone
    } else {
        base
    }
}

/// The fates' part of the legend, the widest that fits in `width` columns (nothing when none
/// does).
fn fates_legend(app: &Run, width: u16) -> Line<'static> {
    let t = &app.theme;
    // What the tour has not taught yet is not in the legend: before fates, the events alone;
    // before the watermark, no watermark.
    let (no_fates, no_watermark) = (app.tour_hides("fates"), app.tour_hides("watermark"));
    if no_fates || no_watermark {
        let n = Shares::of(app.trace()).total();
        // A cell's glyph grows with its events, light to heavy: the legend shows the ramp
        // where it has room, one mark where it does not.
        let ramp: String = glyph::ON_TIME_RAMP.iter().map(|(c, _)| *c).collect();
        let wide = format!(" {ramp} events, more ink for more: {n} so far ");
        let text = if Span::raw(wide.as_str()).width() + 12 <= usize::from(width) {
            wide
        } else {
            format!(" {} event: {n} so far ", glyph::ON_TIME)
        };
        let mut spans = vec![Span::styled(text, t.on_time)];
        if !no_watermark {
            spans.push(Span::styled(
                format!("{} watermark ", glyph::WATERMARK),
                t.watermark,
            ));
        }
        return Line::from(spans);
    }
    let sh = Shares::of(app.trace());
    let p = |f: Fate| {
        let n = match f {
            Fate::OnTime => sh.on_time,
            Fate::Late => sh.late,
            Fate::Dropped => sh.dropped,
        };
        share(n, sh.total(), sh.percent(f))
    };
    let n = sh.total();
    let filtered = app.plot_exceptions_only;
    // With the filter on, the ideal watermark is drawn too.
    let ideal = || Span::styled(format!("{} ideal ", glyph::IDEAL), t.ideal);
    // The three fates with their shares, named or (narrower) by their glyphs alone.
    let fates = |named: bool| {
        let word = |w: &'static str| if named { w } else { "" };
        vec![
            Span::styled(
                format!(
                    " {} {}{} ",
                    glyph::ON_TIME,
                    word("on time "),
                    p(Fate::OnTime)
                ),
                t.on_time,
            ),
            Span::styled(
                format!("{} {}{} ", glyph::LATE, word("late "), p(Fate::Late)),
                t.late,
            ),
            Span::styled(
                format!(
                    "{} {}{} ",
                    glyph::DROPPED,
                    word("dropped "),
                    p(Fate::Dropped)
                ),
                t.dropped,
            ),
        ]
    };
    let mut full = fates(true);
    full.push(Span::styled(format!("(of {n} so far) "), t.dim));
    if filtered {
        full.push(Span::styled(
            format!("{} wm ", glyph::WATERMARK),
            t.watermark,
        ));
        full.push(ideal());
    } else {
        full.push(Span::styled(
            format!("{} watermark ", glyph::WATERMARK),
            t.watermark,
        ));
    }
    let mut short = fates(false);
    short.push(Span::styled(format!("of {n} so far "), t.dim));
    short.push(Span::styled(
        format!("{} wm ", glyph::WATERMARK),
        t.watermark,
    ));
    if filtered {
        short.push(ideal());
    }
    let mut shortest = fates(false);
    shortest.push(Span::styled("so far ", t.dim));
    let room = usize::from(width.saturating_sub(2));
    [full, short, shortest]
        .into_iter()
        .map(Line::from)
        .find(|l| l.width() <= room)
        .unwrap_or_default()
}

/// Draws the plot panel (side by side, A's: the events whose fate differs from B's marked).
pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let other = app.run_b().map(|b| b.trace());
    render_against(&app.run(), other, area, buf);
}

/// Draws the plot panel, the events whose fate differs from `other`'s (the other run side by
/// side) marked.
pub fn render_against(app: &Run, other: Option<&Trace>, area: Rect, buf: &mut Buffer) {
    let t = &app.theme;
    let diff = other
        .filter(|_| !app.tour_hides("fates"))
        .map(|b| fate_differences(app.trace(), b));
    let mut title = vec![Span::styled(" Two clocks ", t.title)];
    // On a wall clock the axes write times of day: the title says the playhead's date.
    if app.clock().is_wall() {
        let date: String = app
            .clock()
            .at(app.playhead().now)
            .chars()
            .take(10)
            .collect();
        title.push(Span::styled(format!("{date} "), t.key));
    }
    if app.plot_exceptions_only {
        title.push(Span::styled("only late & dropped (f) ", t.key));
    }
    if let Some(per_column) = app.plot_scale_in(area) {
        let scale = if app.clock().is_wall() {
            crate::view::duration(app.clock(), per_column)
        } else if per_column >= 1_000.0 {
            format!("{} s", per_column / 1_000.0)
        } else {
            format!("{per_column} ms")
        };
        title.push(Span::styled(
            format!("{scale} a column, following now (m) "),
            t.key,
        ));
    }
    // The axes' names when they fit whole.
    let axes = Span::styled("event time → · processing time ↑ ", t.dim);
    if Line::from(title.clone()).width() + axes.width() <= usize::from(area.width.saturating_sub(2))
    {
        title.push(axes);
    }
    let Some(f) = app.plot_frame(area) else {
        Block::default()
            .borders(Borders::ALL)
            .border_style(t.border)
            .title(Line::from(title))
            .title_bottom(legend(app, area.width, Marked::default()))
            .render(area, buf);
        return;
    };
    let (w, h) = (f.inner.width as usize, f.inner.height as usize);
    let mut grid = vec![Mark::Empty; w * h];
    let mut events = Cells::new(w * h);
    let held = layer(app, &f, &mut events, diff.as_ref());
    let marked = Marked {
        held,
        differ: diff.as_ref().map(FateDiff::len),
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.border)
        .title(Line::from(title))
        .title_bottom(legend(app, area.width, marked));
    block.render(area, buf);

    // Window ends, the selected window's two edges. Sessions differ from key to key: the
    // selected key's (the oracle's sessions, the table's rows; all keys: none, each lane shows
    // its key's); the global window has none.
    let wf = app.dials.window;
    let selected = app.selected_window();
    let edges: &[_] = match (app.scenario().oracle.merging, app.selection.key) {
        _ if app.scenario().oracle.global || app.tour_hides("windows") => &[],
        (true, None) => &[],
        (true, key) => app.scenario().windows_of(key),
        (false, _) => &app.scenario().oracle.windows,
    };
    // Every window end while they are at least 3 columns apart; every n-th one when denser.
    let every = (edges.len() * 3)
        .div_ceil(usize::from(f.inner.width))
        .max(1);
    for &win in edges.iter().step_by(every) {
        if let Some(c) = f.col(wf.end(win)) {
            for r in 0..f.inner.height {
                put(&mut grid, w, c, r, Mark::WindowEdge);
            }
        }
    }
    if let Some(win) = selected.filter(|_| !app.tour_hides("windows")) {
        for x in [wf.start(win), wf.end(win)] {
            if let Some(c) = f.col(x) {
                for r in 0..f.inner.height {
                    put(&mut grid, w, c, r, Mark::SelectedEdge);
                }
            }
        }
    }

    // The playhead.
    let now_row = f.row(app.playhead().now);
    if let Some(r) = now_row {
        for c in 0..f.inner.width {
            put(&mut grid, w, c, r, Mark::Playhead);
        }
    }

    // The ideal watermark, event time = processing time: visible only when the on-time
    // events, which lie along it, are not drawn.
    let (cw, _) = f.cell_size();
    if app.plot_exceptions_only {
        for c in 0..f.inner.width {
            let x = f.x.0 + (f64::from(c) + 0.5) * cw;
            if x <= app.playhead().now {
                if let Some(r) = f.row(x) {
                    put(&mut grid, w, c, r, Mark::Ideal);
                }
            }
        }
    }

    events.place(
        &mut grid,
        !app.plot_exceptions_only,
        app.plot_exceptions_only,
    );
    if !app.tour_hides("watermark") {
        watermark_line(app, &f, &mut grid);
    }
    let bars = if app.tour_hides("panes") {
        Vec::new()
    } else {
        panes::bars(app, &f, &mut grid)
    };
    let ineq = inspected(app, &f, &mut grid);

    for r in 0..h {
        for c in 0..w {
            if let Some((g, s)) = mark_cell(t, grid[r * w + c], ineq.as_ref()) {
                if let Some(cell) = buf.cell_mut((f.inner.x + c as u16, f.inner.y + r as u16)) {
                    cell.set_char(g).set_style(s);
                }
            }
        }
    }
    panes::labels(app, &f, &grid, &bars, buf);
    if !app.tour_hides("watermark") {
        stalls(app, area, &f, &grid, buf);
    }
    if let Some(q) = ineq {
        inequality_labels(app, &q, &f, buf);
    }
    asked(app, &f, buf);

    // The processing-time axis: TTL expirations, completed checkpoints (a parallel run's) as
    // ticks and crashes over them; then its labels (top, playhead, bottom), which yield to
    // those marks: a label whose row has one moves to the next clear row inwards, stating
    // that row's time.
    lanes::expirations(app, &f, buf);
    let lx = f.inner.x.saturating_sub(Y_LABELS);
    for ck in app.trace().checkpoints() {
        if let Some(r) = f.row(ck.time) {
            buf.set_stringn(
                lx + 5,
                f.inner.y + r,
                glyph::CHECKPOINT.to_string(),
                1,
                t.key,
            );
        }
    }
    for crash in app.trace().crashes() {
        if let Some(r) = f.row(crash.time) {
            buf.set_stringn(lx + 4, f.inner.y + r, glyph::CRASH.to_string(), 1, t.warn);
        }
    }
    // How many of a row's label columns, up to `most`, are free before its first mark.
    let free = |buf: &Buffer, r: u16, most: u16| {
        (lx..lx + most)
            .take_while(|&x| {
                buf.cell((x, f.inner.y + r))
                    .is_none_or(|c| c.symbol() == " ")
            })
            .count()
    };
    // Puts `text` on row `r` right-aligned before the row's first mark (within `most`
    // columns), if it fits there.
    let put_label = |buf: &mut Buffer, r: u16, most: u16, text: &str, style| {
        let room = free(buf, r, most);
        let n = text.chars().count();
        if n > room {
            return false;
        }
        buf.set_stringn(lx + (room - n) as u16, f.inner.y + r, text, n, style);
        true
    };
    let height = f.inner.height;
    let clock = app.clock();
    let wall = clock.is_wall();
    // Seconds on a relative clock (`300s`, the playhead's without its unit); on a wall clock
    // the playhead's time of day to the minute (`05:15`, its date in the title), and the
    // axis's ends as their dates (`01-04`) when it spans days, else as times of day.
    let secs_label = |v: f64| {
        if wall {
            calendar::end_label(clock, v, f.y.1 - f.y.0)
        } else {
            format!("{:.0}s", v / 1000.0)
        }
    };
    let bare_label = |v: f64| {
        if wall {
            clock.at_fit(v, Fit::Minute)
        } else {
            format!("{:.0}", v / 1000.0)
        }
    };
    if let Some(r) = now_row {
        // The playhead's time, in the five columns before its ▶ (not on the bottom row,
        // which the bottom label takes).
        if r + 1 < height {
            let now = bare_label(app.playhead().now);
            put_label(buf, r, 5, &now, t.playhead);
        }
        buf.set_stringn(lx + 5, f.inner.y + r, "▶", 1, t.playhead);
    }
    let (_, ch) = f.cell_size();
    // The top label in the upper half, above the playhead's; the bottom one in the lower
    // half, below it (beside the playhead's ▶ on the bottom row, without its unit).
    let top = (0..height.div_ceil(2)).take_while(|&r| now_row != Some(r));
    for r in top {
        let v = f.y.1 - f64::from(r) * ch;
        if put_label(buf, r, Y_LABELS, &secs_label(v), t.dim) {
            break;
        }
    }
    let bottom = (height.div_ceil(2)..height)
        .rev()
        .take_while(|&r| r + 1 == height || now_row != Some(r));
    for r in bottom {
        let v = f.y.0 + f64::from(height - 1 - r) * ch;
        let done = if now_row == Some(r) {
            put_label(buf, r, 5, &bare_label(v), t.dim)
        } else {
            put_label(buf, r, Y_LABELS, &secs_label(v), t.dim)
        };
        if done {
            break;
        }
    }
    lanes::render(app, &f, buf);
    let by = f.inner.bottom();
    let mut next_free = f.inner.x;
    // Sessions' ends are irregular: round times label the axis instead; on a wall clock, whole
    // hours and days.
    let wall_ticks = if wall {
        calendar::ticks(clock, f.x, f.inner.width)
    } else {
        Vec::new()
    };
    let ends: Vec<f64> = if wall {
        wall_ticks.iter().map(|(at, _)| *at).collect()
    } else if app.scenario().oracle.merging || edges.is_empty() {
        lanes::ticks(&f)
    } else {
        edges.iter().step_by(every).map(|&w| wf.end(w)).collect()
    };
    // Each label centred under its end; every k-th of them, k the smallest that lets all
    // those taken fit apart, so the labels shown are evenly spaced.
    let labels: Vec<(u16, String)> = ends
        .into_iter()
        .filter_map(|x| {
            let c = f.col(x)?;
            let s = if wall {
                wall_ticks
                    .iter()
                    .find(|(at, _)| *at == x)
                    .map_or_else(String::new, |(_, l)| l.clone())
            } else {
                Duration::seconds(x).trim_end_matches(".0s").to_string() + "s"
            };
            let start = (f.inner.x + c).saturating_sub(s.chars().count() as u16 / 2);
            (start + s.chars().count() as u16 <= f.inner.right()).then_some((start, s))
        })
        .collect();
    let fits = |k: usize| {
        let mut free = f.inner.x;
        labels.iter().step_by(k).all(|(start, s)| {
            let ok = *start >= free;
            free = start + s.chars().count() as u16 + 1;
            ok
        })
    };
    let k = (1..=labels.len().max(1)).find(|&k| fits(k)).unwrap_or(1);
    for (start, s) in labels.iter().step_by(k) {
        if *start >= next_free {
            buf.set_stringn(*start, by, s, s.chars().count(), t.dim);
            next_free = start + s.chars().count() as u16 + 1;
        }
    }
}

/// Events per plot cell, by fate (weighted by the sampling stride on huge inputs), and the
/// cells holding a replayed event.
struct Cells {
    /// On time, late, dropped.
    counts: Vec<[u32; 3]>,
    replayed: Vec<bool>,
    /// Of those, the events an outage held back, by fate.
    held: Vec<[u32; 3]>,
    /// Of those, the events whose fate differs in the other run, by fate.
    differs: Vec<[u32; 3]>,
}

fn fate_index(f: Fate) -> usize {
    match f {
        Fate::OnTime => 0,
        Fate::Late => 1,
        Fate::Dropped => 2,
    }
}

const FATES: [Fate; 3] = [Fate::OnTime, Fate::Late, Fate::Dropped];

impl Cells {
    fn new(n: usize) -> Cells {
        Cells {
            counts: vec![[0; 3]; n],
            replayed: vec![false; n],
            held: vec![[0; 3]; n],
            differs: vec![[0; 3]; n],
        }
    }

    /// The fate most of the cell's events of one kind met (the rarer on a tie), if it has any.
    fn most(of: Option<&[u32; 3]>) -> Option<Fate> {
        let c = of?;
        (0..3)
            .filter(|&k| c[k] > 0)
            .max_by_key(|&k| (c[k], k))
            .map(|k| FATES[k])
    }

    /// The mark of a cell holding differing or held-back events: held-back events are shown
    /// whatever their count, differing ones when they want a mark's ink (`place`); differing
    /// first.
    fn special(&self, i: usize) -> Option<Mark> {
        Cells::most(self.differs.get(i))
            .map(Mark::Differs)
            .or_else(|| Cells::most(self.held.get(i)).map(Mark::Held))
    }

    fn add(&mut self, i: usize, fate: Fate, weight: usize) {
        if let Some(c) = self.counts.get_mut(i) {
            let k = &mut c[fate_index(fate)];
            *k = k.saturating_add(u32::try_from(weight).unwrap_or(u32::MAX));
        }
    }

    /// Puts each cell's mark in the grid: the fate most of its events met (the rarer one on a tie),
    /// in the glyph whose ink is nearest to its count's share of a full cell. A full cell (the
    /// heaviest glyph of all) is the count at which half the drawn events lie in cells at least as
    /// full, so a few crowded cells do not thin out the rest; but an event never wants more ink
    /// than it gets drawn alone, its fate's glyph in the legend (`•` `◆` `✕`), so a lone event
    /// looks the same at every scale. Where each event gets a whole glyph (a sparse plot), a cell's
    /// late or dropped events are shown over its on-time ones: the few late events of the lesson
    /// are not hidden among on-time ones. Cells that want less ink than their fate's lightest glyph
    /// pool it, in reading order, and one of them is drawn whenever the pool holds half that glyph
    /// (error diffusion): sparse events in a dense plot get ink in proportion too, rather than a
    /// whole glyph each. With `every` set, every cell holding an event is drawn.
    fn place(&self, grid: &mut [Mark], with_on_time: bool, every: bool) {
        let shown = |c: &[u32; 3]| -> Option<(Fate, u32)> {
            let from = if with_on_time { 0 } else { 1 };
            (from..3)
                .filter(|&k| c[k] > 0)
                .max_by_key(|&k| (c[k], k))
                .map(|k| (FATES[k], c[k]))
        };
        let mut ns: Vec<u32> = self.counts.iter().filter_map(&shown).map(|s| s.1).collect();
        if ns.is_empty() {
            return;
        }
        ns.sort_unstable_by(|a, b| b.cmp(a));
        let total: u64 = ns.iter().map(|&n| u64::from(n)).sum();
        let mut acc = 0u64;
        let full = ns
            .iter()
            .find(|&&n| {
                acc += u64::from(n);
                2 * acc >= total
            })
            .copied()
            .unwrap_or(1)
            .max(1);
        let top = FATES
            .iter()
            .filter(|&&f| with_on_time || f != Fate::OnTime)
            .filter_map(|&f| glyph::ramp(f).last().map(|g| g.1))
            .fold(0.0, f64::max);
        let per_event = top / f64::from(full);
        // An event's ink: its share of a full cell, at most its fate's glyph alone.
        let ink_of = |f: Fate| per_event.min(glyph::ramp(f).get(1).map_or(top, |g| g.1));
        // Whether an event of the fate gets the whole of its glyph alone (a sparse plot).
        let whole = |f: Fate| glyph::ramp(f).get(1).is_some_and(|g| g.1 <= per_event);
        // The fate a cell shows: its late or dropped events where each event gets a whole
        // glyph, else the fate most of its events met.
        let shown = |c: &[u32; 3]| -> Option<(Fate, u32)> {
            let most = shown(c)?;
            if !with_on_time || most.0 != Fate::OnTime {
                return Some(most);
            }
            let exception = (1..3)
                .filter(|&k| c[k] > 0)
                .max_by_key(|&k| (c[k], k))
                .map(|k| (FATES[k], c[k]));
            match exception {
                Some((f, n)) if whole(f) => Some((f, n)),
                _ => Some(most),
            }
        };
        // Every event its own cell (a magnified plot, a small stream): each is drawn in its
        // fate's own glyph, the legend's, one mark an event.
        let single = self.counts.iter().all(|c| c.iter().sum::<u32>() <= 1);
        let mut pool = [0.0f64; 3];
        // Differing events' ink, pooled as sparse events' is: a cell of thousands holding a
        // few that differ is drawn as its own events are, unless the pool has a mark's worth.
        let mut differing_pool = 0.0f64;
        for (i, c) in self.counts.iter().enumerate() {
            let Some((fate, n)) = shown(c) else {
                continue;
            };
            let special = match self.special(i).filter(|_| !self.replayed[i]) {
                Some(Mark::Differs(f)) if !single && !every => {
                    let differing: u32 = self.differs[i].iter().sum();
                    let want = f64::from(differing) * per_event;
                    let lightest = glyph::ramp(f).first().map_or(0.0, |g| g.1);
                    // Not a mark's worth: held-back events it holds are still shown.
                    if inked(&mut differing_pool, want, lightest) {
                        Some(Mark::Differs(f))
                    } else {
                        Cells::most(self.held.get(i)).map(Mark::Held)
                    }
                }
                other => other,
            };
            if let Some(m) = special {
                if let Some(g) = grid.get_mut(i) {
                    if m.rank() > g.rank() {
                        *g = m;
                    }
                }
                continue;
            }
            if single {
                let m = if self.replayed[i] {
                    Mark::Replayed
                } else {
                    match fate {
                        Fate::OnTime => Mark::OnTimeOne,
                        Fate::Late => Mark::Late(1),
                        Fate::Dropped => Mark::Dropped(1),
                    }
                };
                if let Some(g) = grid.get_mut(i) {
                    if m.rank() > g.rank() {
                        *g = m;
                    }
                }
                continue;
            }
            let want = f64::from(n) * ink_of(fate);
            let lightest = glyph::ramp(fate).first().map_or(0.0, |g| g.1);
            if !every && !inked(&mut pool[fate_index(fate)], want, lightest) {
                continue;
            }
            let level = glyph::ramp(fate)
                .iter()
                .enumerate()
                .min_by(|a, b| (a.1 .1 - want).abs().total_cmp(&(b.1 .1 - want).abs()))
                .map_or(0, |(l, _)| l as u8);
            // A lone event with a whole glyph's ink is drawn as it is alone (over the pane
            // bars and the watermark line, as there).
            let alone = n == 1 && whole(fate);
            let m = if self.replayed[i] {
                Mark::Replayed
            } else {
                match fate {
                    Fate::OnTime if alone && level == 1 => Mark::OnTimeOne,
                    Fate::OnTime => Mark::OnTime(level),
                    Fate::Late => Mark::Late(level),
                    Fate::Dropped => Mark::Dropped(level),
                }
            };
            if let Some(g) = grid.get_mut(i) {
                if m.rank() > g.rank() {
                    *g = m;
                }
            }
        }
    }
}

/// The run's events by the fate they met (a parallel run's: at its operators, and whether
/// they were taken again in a replay), an even sample of huge runs each weighted by its
/// stride, each on the row of its arrival (an event an outage held back: the heal's), those
/// held back and those in `diff` counted apart. Returns how many held-back events it drew.
fn layer(app: &Run, f: &PlotFrame, cells: &mut Cells, diff: Option<&FateDiff>) -> usize {
    let w = f.inner.width as usize;
    let mut held = 0;
    let hide_fates = app.tour_hides("fates");
    let with_on_time = !app.plot_exceptions_only;
    sample::sample(
        app.trace(),
        ON_TIME_SAMPLES,
        EXCEPTION_SAMPLES,
        with_on_time,
        |s| {
            let e = &s.event;
            let (Some(c), Some(r)) = (f.col(e.event_time), f.row(s.arrival)) else {
                return;
            };
            let i = r as usize * w + c as usize;
            // Before the tour teaches fates, every event is drawn alike.
            let fate = if hide_fates { Fate::OnTime } else { s.fate };
            cells.add(i, fate, s.weight);
            let n = u32::try_from(s.weight).unwrap_or(u32::MAX);
            if s.held && !hide_fates {
                held += s.weight;
                if let Some(k) = cells.held.get_mut(i) {
                    k[fate_index(fate)] = k[fate_index(fate)].saturating_add(n);
                }
            }
            if diff.is_some_and(|d| d.contains(s.offset)) {
                if let Some(k) = cells.differs.get_mut(i) {
                    k[fate_index(fate)] = k[fate_index(fate)].saturating_add(n);
                }
            }
            if s.replayed {
                if let Some(x) = cells.replayed.get_mut(i) {
                    *x = true;
                }
            }
        },
    );
    held
}

/// The run's watermark line: per column, where the watermark first reached it; per row, where
/// it stood then (the two passes keep the line unbroken at any slope).
fn watermark_line(app: &Run, f: &PlotFrame, grid: &mut [Mark]) {
    let w = f.inner.width as usize;
    let (cw, ch) = f.cell_size();
    let history = crate::view::watermark::WatermarkHistory::of(app.trace());
    for c in 0..f.inner.width {
        let x = f.x.0 + (f64::from(c) + 0.5) * cw;
        if let Some((t, _)) = history.first_reaching(x) {
            if let Some(r) = f.row(t) {
                put(grid, w, c, r, Mark::WatermarkRun);
            }
        }
    }
    for r in 0..f.inner.height {
        let y = f.y.0 + (f64::from(f.inner.height - 1 - r) + 0.5) * ch;
        if y > app.playhead().now {
            continue;
        }
        if let Some((_, wm)) = history.at(y) {
            if let Some(c) = f.col(wm) {
                put(grid, w, c, r, Mark::Watermark);
            }
        }
    }
}

/// Whether a cell whose events want `want` ink gets a mark whose lightest glyph is `lightest`:
/// at once when it wants that much, else once the ink pooled from such cells, in reading
/// order, holds half of it (error diffusion), the mark's ink then taken from the pool.
fn inked(pool: &mut f64, want: f64, lightest: f64) -> bool {
    if want >= lightest {
        return true;
    }
    *pool += want;
    if *pool < lightest / 2.0 {
        return false;
    }
    *pool -= lightest;
    true
}

#[cfg(test)]
mod tests {
    use super::share;

    #[test]
    fn a_share_never_says_none_or_all_when_that_is_not_so() {
        assert_eq!(share(0, 20_000, 0.0), "0.0%");
        assert_eq!(share(3, 20_000, 0.015), "<0.1%");
        assert_eq!(share(720, 20_000, 3.6), "3.6%");
        assert_eq!(share(19_997, 20_000, 99.985), ">99.9%");
        assert_eq!(share(20_000, 20_000, 100.0), "100.0%");
    }
}
