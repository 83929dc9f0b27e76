//! The windows and panes panels: one row per window (for the selected key, or all keys
//! together) with its value so far against the oracle, its phase and its latest pane (or, for a
//! run with sinks, what each sink holds beside the run's own value, and at the foot the
//! selected window's additive excess over the idempotent sink split by cause); and the
//! selected cell's pane history (EARLY / ON_TIME / LATE, processing time, value, difference to
//! the oracle), long histories shown as their first and last panes. While the room votes on
//! what a window's next pane carries, that window's value, oracle and Δ read `?`.
//!
//! Sessions: the rows are the selected key's oracle sessions (all keys: every key's), each
//! against the run's sessions inside it; one the run does not reproduce exactly (bounds or
//! count) is wrong once final. The pane history is the session's, over every span the run
//! gave it. The global window: one row per key (`keys`).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Widget};

use twoclocks_engine::clock::{Clock, Fit};
use twoclocks_engine::job_timeline::Standing;
use twoclocks_engine::timeline::Phase;
use twoclocks_engine::trace::sessions::RunSessions;
use twoclocks_engine::trace::{OverCount, WindowRow};
use twoclocks_engine::{Accumulation, CellId, Timing, WindowId};

use crate::app::App;
use crate::geometry::windows::first_row;
use crate::geometry::Mode;
use crate::theme::Theme;

mod keys;

pub use keys::{key_states, KeyState};

/// A window's span, short, on the stream's clock: `180–240s`, `01-01 05:00–06:00`.
pub fn span(clock: &Clock, start: f64, end: f64) -> String {
    clock.span(start, end, Fit::Day)
}

fn phase_cell(t: &Theme, p: Phase) -> (&'static str, Style) {
    match p {
        Phase::Open => ("○ open", t.text),
        Phase::FiredOnTime => ("● fired", t.on_time_pane),
        Phase::TakingLate => ("◆ late", t.late),
        Phase::Finalised => ("■ final", t.dim),
    }
}

fn timing_short(t: Timing) -> &'static str {
    match t {
        Timing::Early => "E",
        Timing::OnTime => "O",
        Timing::Late => "L",
    }
}

/// The key selection as text.
pub fn key_name(app: &App) -> String {
    match app.selection.key {
        Some(k) => app.scenario().stream.key_name(k).to_string(),
        None => "all keys".to_string(),
    }
}

/// One row of the windows table for window `w` and the selected key, with where the run's
/// value stands against the oracle (sessions: an oracle session the run does not reproduce
/// exactly is wrong once final). `run` is the run's sessions so far, for sessions.
fn row(app: &App, w: WindowId, run: Option<&RunSessions>) -> (WindowRow, Standing) {
    if let Some(run) = run {
        let r = app
            .trace()
            .session_row(w, app.selection.key, run, &app.scenario().oracle.truth);
        let s = r.standing();
        return (r.row, s);
    }
    let r = app.trace().window_row(
        w,
        app.selection.key,
        app.scenario().keys(),
        &app.scenario().oracle.truth,
    );
    let s = r.standing(r.value);
    (r, s)
}

/// The run's sessions so far, when the windows are sessions.
fn run_sessions(app: &App) -> Option<RunSessions> {
    app.scenario()
        .oracle
        .merging
        .then(|| app.trace().run_sessions())
}

/// The rows of the windows table for the current selection (for sessions, the selected key's
/// oracle sessions; all keys: every key's).
pub fn rows(app: &App) -> Vec<WindowRow> {
    let run = run_sessions(app);
    app.scenario()
        .windows_of(app.selection.key)
        .iter()
        .map(|&w| row(app, w, run.as_ref()).0)
        .collect()
}

/// A window's description without the clock its TTL runs on: `global, 3s TTL`.
fn brief(described: &str) -> String {
    described
        .replace("processing-time ", "")
        .replace("event-time ", "")
}

/// The windows table: per window, the run's value against the oracle. A run with sinks (the
/// parallel job) shows its own value (which a crash rolls back) beside what each sink holds
/// (which it does not); the single processor its value, its difference to the oracle, the
/// window's phase and, with room, its latest pane.
pub fn render(app: &App, area: Rect, buf: &mut Buffer, mode: Mode) {
    let t = &app.theme;
    let sinks = app.trace().sink_kinds();
    let key = key_name(app);
    let title = if sinks.is_empty() {
        // The window's description, shorter when it does not fit (the kind alone: `global`
        // for `global, 3s processing-time TTL`), and the key always.
        let described = app.dials().window.describe();
        let kind = described.split(',').next().unwrap_or_default().to_string();
        let line = |what: String| {
            Line::from(vec![
                Span::styled(" Windows ", t.title),
                Span::styled(what, t.dim),
            ])
        };
        // Where the table has its oracle, the first choice says each column's scope.
        let scope = if app.tour_hides("oracle") || app.scenario().oracle.global {
            ""
        } else {
            "· value so far, oracle at the end "
        };
        super::fit(
            area.width.saturating_sub(2),
            vec![
                line(format!("· {described} · key {key} {scope}")),
                line(format!("· {described} · key {key} ")),
                line(format!("· {} · key {key} ", brief(&described))),
                line(format!("· {kind} · key {key} ")),
                line(format!("· key {key} ")),
            ],
        )
    } else {
        Line::from(vec![
            Span::styled(" Windows at the sinks ", t.title),
            Span::styled(format!("· key {key} "), t.dim),
        ])
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.border)
        .title(title);
    let inner = block.inner(area);
    block.render(area, buf);
    if inner.height == 0 {
        return;
    }
    if app.scenario().oracle.global {
        keys::render(app, inner, buf);
        return;
    }
    let windows = app.scenario().windows_of(app.selection.key);
    let run = run_sessions(app);
    let n = windows.len();
    let sel = app.selection.window.min(n.saturating_sub(1));
    // With sinks, the last line splits the selected window's additive excess by cause, so a
    // row's add − idem can be read per cell (the sinks panel gives the whole run's).
    let over = (!sinks.is_empty() && inner.height >= 3)
        .then(|| windows.get(sel))
        .flatten()
        .and_then(|&w| {
            let (r, _) = row(app, w, run.as_ref());
            r.over.map(|o| (r, o))
        });
    let room = inner.height.saturating_sub(1 + u16::from(over.is_some())) as usize;
    let first = first_row(sel, n, room);
    let shown: Vec<(usize, WindowRow, Standing)> = windows
        .iter()
        .enumerate()
        .skip(first)
        .take(room)
        .map(|(i, &w)| {
            let (r, standing) = row(app, w, run.as_ref());
            (i, r, standing)
        })
        .collect();
    let cols = Columns::of(app.clock(), &shown, !sinks.is_empty());
    // The latest pane's column when there is room for it (8 characters, `O 123.5s`) after the
    // numbers and the state, however wide the numbers have made their columns.
    let full = mode == Mode::Full
        && usize::from(inner.width) >= cols.label + cols.value + cols.truth + cols.diff + 2 + 8 + 8;
    let head = if sinks.is_empty() {
        let what = if app.scenario().oracle.merging {
            "session"
        } else {
            "window"
        };
        if app.tour_hides("oracle") {
            // Before the tour teaches the oracle: each window's count so far, alone.
            format!(
                "{what:<w0$}{:>w1$}",
                "count",
                w0 = cols.label,
                w1 = cols.value
            )
        } else {
            let mut head = format!(
                "{:<w0$}{:>w1$}{:>w2$}{:>w3$}  {:<8}",
                what,
                "value",
                "oracle",
                "Δ",
                "state",
                w0 = cols.label,
                w1 = cols.value,
                w2 = cols.truth,
                w3 = cols.diff
            );
            if full {
                head.push_str("latest");
            }
            head
        }
    } else {
        let mut head = format!(
            "{:<w0$}{:>w1$}",
            "window",
            "job",
            w0 = cols.label,
            w1 = cols.value
        );
        for &k in sinks {
            head.push_str(&format!(
                "{:>w$}",
                super::sinks::short_name(k),
                w = cols.value
            ));
        }
        head.push_str(&format!("{:>w$}", "truth", w = cols.value));
        head
    };
    let mut lines = vec![Line::from(Span::styled(head, t.dim))];
    if n == 0 {
        lines.push(Line::from(Span::styled("no session for this key", t.dim)));
    }
    for (i, r, standing) in shown {
        let base = if i == sel { t.focus } else { t.text };
        // A window whose next pane the room is voting on: `?` until it has voted.
        let asked = app.selection.key.is_some_and(|key| {
            windows
                .get(i)
                .is_some_and(|&window| app.voting_on(CellId { window, key }))
        });
        let hidden = |text: String| if asked { "?".to_string() } else { text };
        let label = Span::styled(
            format!("{:<w$}", span(app.clock(), r.start, r.end), w = cols.label),
            base,
        );
        let spans = match r.sinks {
            // The run's own state first: it rolls back on a crash; the sinks after it do not.
            Some(held) => {
                let style_of = |v: i64| standing_style(t, r.standing(v));
                let mut spans = vec![label];
                for v in std::iter::once(r.value).chain(held) {
                    spans.push(Span::styled(
                        format!("{v:>w$}", w = cols.value),
                        style_of(v),
                    ));
                }
                spans.push(Span::styled(
                    format!("{:>w$}", r.truth, w = cols.value),
                    t.dim,
                ));
                spans
            }
            None if app.tour_hides("oracle") => vec![
                label,
                Span::styled(
                    format!("{:>w$}", hidden(r.value.to_string()), w = cols.value),
                    base,
                ),
            ],
            None => {
                let diff = r.value - r.truth;
                let (ph, ph_style) = phase_cell(t, r.phase);
                let mut spans = vec![
                    label,
                    Span::styled(
                        format!("{:>w$}", hidden(r.value.to_string()), w = cols.value),
                        base,
                    ),
                    Span::styled(
                        format!("{:>w$}", hidden(r.truth.to_string()), w = cols.truth),
                        t.dim,
                    ),
                    Span::styled(
                        format!("{:>w$}", hidden(format!("{diff:+}")), w = cols.diff),
                        if asked {
                            t.dim
                        } else {
                            standing_style(t, standing)
                        },
                    ),
                    Span::raw("  "),
                    Span::styled(format!("{ph:<8}"), ph_style),
                ];
                if let Some(p) = r.latest.filter(|_| full) {
                    spans.push(Span::styled(
                        format!(
                            "{} {}",
                            timing_short(p.timing),
                            app.clock().at_fit(p.proc_time, Fit::Day)
                        ),
                        t.timing(p.timing),
                    ));
                }
                spans
            }
        };
        lines.push(Line::from(spans));
    }
    if let Some((r, o)) = over {
        // At the panel's foot, under the rows.
        lines.resize(usize::from(inner.height) - 1, Line::default());
        lines.push(over_line(
            t,
            &span(app.clock(), r.start, r.end),
            o,
            inner.width,
        ));
    }
    super::text::lines(buf, inner, lines);
}

/// The widths of the windows table's columns, each sized to what it shows: at least the width its
/// header and small numbers take, and a number's one more than its widest cell, so that a space
/// always parts a number from the column before it (at 5·10^7 events the value, oracle and Δ ran
/// together: `6545521250316-595764`). Right-aligned numbers keep their digits whole; a panel too
/// narrow for them all cuts the columns on its right, never a number's digits into another's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Columns {
    /// The window's span, left-aligned.
    label: usize,
    /// The run's value; with sinks, the job's and every sink's value and the truth.
    value: usize,
    /// The oracle's value.
    truth: usize,
    /// The value's difference to the oracle, signed.
    diff: usize,
}

impl Columns {
    /// The columns for the rows shown; `sinks`: a job's table, its narrower span column.
    fn of(clock: &Clock, rows: &[(usize, WindowRow, Standing)], sinks: bool) -> Columns {
        let rows = || rows.iter().map(|(_, r, _)| r);
        // A number's column is one wider than its widest cell: the space that parts it from
        // the column before (the span's column needs none, the numbers right of it have it).
        let widest = |least: usize, cells: &mut dyn Iterator<Item = String>| {
            cells.map(|c| c.chars().count() + 1).fold(least, usize::max)
        };
        let span_width = |least: usize| {
            rows()
                .map(|r| span(clock, r.start, r.end).chars().count())
                .fold(least, usize::max)
        };
        if sinks {
            let value = widest(
                6,
                &mut rows().flat_map(|r| {
                    std::iter::once(r.value)
                        .chain(r.sinks.into_iter().flatten())
                        .chain(std::iter::once(r.truth))
                        .map(|v| v.to_string())
                }),
            );
            return Columns {
                label: span_width(8),
                value,
                truth: value,
                diff: value,
            };
        }
        Columns {
            label: span_width(9),
            value: widest(5, &mut rows().map(|r| r.value.to_string())),
            truth: widest(7, &mut rows().map(|r| r.truth.to_string())),
            diff: widest(6, &mut rows().map(|r| format!("{:+}", r.value - r.truth))),
        }
    }
}

/// The selected window's additive excess over the idempotent sink by cause, as the sinks panel
/// splits the whole run's: `0–30s add +11 = +11 re-added +0 replayed`.
fn over_line(t: &Theme, span: &str, o: OverCount, width: u16) -> Line<'static> {
    let total = o.readded + o.replayed;
    let style = |n: i64| if n == 0 { t.on_time } else { t.dropped };
    let line = |head: String, readded: &str, replayed: &str| {
        let mut spans = vec![Span::styled(head.clone(), t.text)];
        // A head that ends in a space carries the total; the bare span only the causes.
        if head.is_empty() || head.ends_with(' ') {
            spans.extend([
                Span::styled(format!("{total:+}"), style(total)),
                Span::styled(" = ", t.dim),
            ]);
        } else {
            spans.push(Span::raw(" "));
        }
        spans.extend([
            Span::styled(format!("{:+}", o.readded), style(o.readded)),
            Span::styled(format!(" {readded} "), t.dim),
            Span::styled(format!("{:+}", o.replayed), style(o.replayed)),
            Span::styled(format!(" {replayed}"), t.dim),
        ]);
        Line::from(spans)
    };
    super::fit(
        width,
        vec![
            line(format!("{span} add "), "re-added", "replayed"),
            line(format!("{span} add "), "re-add", "replay"),
            line(format!("{span} "), "re-add", "replay"),
            line(span.to_string(), "re-add", "replay"),
            line(String::new(), "re-add", "replay"),
        ],
    )
}

/// A value against the oracle, as the engine stands it: right, short of it while the window
/// can still take data (not an error yet: it is incomplete), or wrong (over it, or short of it
/// once the window is final).
pub fn standing_style(t: &Theme, s: Standing) -> Style {
    match s {
        Standing::Right => t.on_time,
        Standing::Wrong => t.dropped,
        Standing::Open => t.dim,
    }
}

/// The pane-history panel for the selected window and key.
pub fn render_panes(app: &App, area: Rect, buf: &mut Buffer) {
    let t = &app.theme;
    let cell = app.selected_cell();
    let title = match (cell, app.selected_window().as_ref()) {
        _ if app.scenario().oracle.global => format!("· global key {} ", key_name(app)),
        (Some(c), _) => format!(
            "· {} key {} ",
            span(
                app.clock(),
                app.dials().window.start(c.window),
                app.dials().window.end(c.window)
            ),
            key_name(app)
        ),
        (None, Some(&w)) => format!(
            "· {} ",
            span(
                app.clock(),
                app.dials().window.start(w),
                app.dials().window.end(w)
            )
        ),
        _ => String::new(),
    };
    // The accumulation mode first where it fits: it decides what each pane carries.
    let mode = format!("· {} ", app.dials().accumulation.name());
    let head = super::fit(
        area.width.saturating_sub(2),
        vec![
            Line::from(vec![
                Span::styled(" Panes ", t.title),
                Span::styled(mode.clone(), t.dim),
                Span::styled(title.clone(), t.dim),
            ]),
            Line::from(vec![
                Span::styled(" Panes ", t.title),
                Span::styled(title, t.dim),
            ]),
        ],
    );
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.border)
        .title(head);
    let inner = block.inner(area);
    block.render(area, buf);
    let Some(cell) = cell else {
        let msg = Line::from(Span::styled("press k for one key's panes", t.dim));
        super::text::lines(buf, inner, vec![msg]);
        return;
    };
    super::text::lines(buf, inner, pane_lines(app, cell, inner.height));
}

/// A pane's cells after its timing, each with its style.
type PaneCells = Vec<(String, Style)>;

/// The pane history's lines for `cell` in `height` rows. Its columns follow the accumulation
/// mode, so each row adds up: accumulating, the value so far; discarding, what the pane adds
/// and the sum so far; retracting, the new value and the one it withdraws. Δ is always the sum
/// so far against the oracle (per cell); for the global window, whose oracle is the key's count
/// at the end, against the key's events arrived by the pane's time, so a reset shows.
pub fn pane_lines(app: &App, cell: CellId, height: u16) -> Vec<Line<'static>> {
    let t = &app.theme;
    let truth = app.scenario().oracle.truth.get(&cell).copied().unwrap_or(0) as i64;
    // A session's panes: those of every span the run gave it as it grew and merged.
    let panes = app.trace().cell_panes(cell, app.scenario().oracle.merging);
    // The truth each pane is measured against.
    let truths: Vec<i64> = if app.scenario().oracle.global {
        let times: Vec<f64> = panes.iter().map(|p| p.proc_time).collect();
        app.trace().key_arrivals_by(cell.key, &times)
    } else {
        vec![truth; panes.len()]
    };
    let mode = app.dials().accumulation;
    // The columns after the pane's timing, with their least widths (the header's and small
    // numbers'): each widens to one more than its widest cell shown, right-aligned, so that a
    // number never runs into the one before it.
    let (names, least): (&[&str], &[usize]) = match mode {
        Accumulation::Accumulating => (&["at", "value", "Δ"], &[7, 7, 6]),
        Accumulation::Discarding => (&["at", "+new", "sum", "Δ"], &[7, 5, 5, 5]),
        Accumulation::Retracting => (&["at", "new", "was", "Δ"], &[7, 5, 5, 5]),
    };
    let room = height.saturating_sub(1) as usize;
    let n = panes.len();
    let shown: Vec<Option<usize>> = if n <= room {
        (0..n).map(Some).collect()
    } else if room >= 4 {
        let tail = 2;
        let head = room - tail - 1;
        let mut v: Vec<Option<usize>> = (0..head).map(Some).collect();
        v.push(None);
        v.extend((n - tail..n).map(Some));
        v
    } else {
        (n - room..n).map(Some).collect()
    };
    // Each shown pane's cells after its timing, with their styles.
    let cells = |i: usize| -> PaneCells {
        let (p, truth) = (panes[i], truths[i]);
        let total = p.total as i64;
        let mut cells = vec![(app.clock().at_fit(p.proc_time, Fit::Day), t.text)];
        match mode {
            Accumulation::Accumulating => cells.push((p.value.to_string(), t.text)),
            Accumulation::Discarding => {
                cells.push((format!("{:+}", p.value), t.text));
                cells.push((p.total.to_string(), t.dim));
            }
            // The value withdrawn in a column of its own: `9−6` read as a subtraction.
            Accumulation::Retracting => {
                cells.push((p.value.to_string(), t.text));
                cells.push((p.retraction.map_or(String::new(), |r| r.to_string()), t.dim));
            }
        }
        // Against the oracle: `?` while the room votes on the cell's next pane.
        cells.push(if app.voting_on(cell) {
            ("?".to_string(), t.dim)
        } else {
            (
                format!("{:+}", total - truth),
                if total == truth { t.on_time } else { t.dim },
            )
        });
        cells
    };
    let rows: Vec<Option<(usize, PaneCells)>> =
        shown.iter().map(|i| i.map(|i| (i, cells(i)))).collect();
    let widths: Vec<usize> = least
        .iter()
        .enumerate()
        .map(|(j, &w)| {
            rows.iter()
                .flatten()
                .filter_map(|(_, c)| c.get(j))
                .map(|(text, _)| text.chars().count() + 1)
                .fold(w, usize::max)
        })
        .collect();
    let mut head = format!("{:<8}", "pane");
    for (name, w) in names.iter().zip(&widths) {
        head.push_str(&format!("{name:>w$}"));
    }
    let mut lines = vec![Line::from(Span::styled(head, t.dim))];
    if panes.is_empty() {
        lines.push(Line::from(Span::styled("no pane yet", t.dim)));
    }
    for row in rows {
        match row {
            Some((i, cells)) => {
                let p = panes[i];
                let mut spans = vec![Span::styled(
                    format!("{:<8}", p.timing.label()),
                    t.timing(p.timing),
                )];
                for ((text, style), w) in cells.into_iter().zip(&widths) {
                    spans.push(Span::styled(format!("{text:>w$}"), style));
                }
                lines.push(Line::from(spans));
            }
            None => lines.push(Line::from(Span::styled(
                format!("… {} more", panes.len().saturating_sub(room - 1)),
                t.dim,
            ))),
        }
    }
    lines
}
