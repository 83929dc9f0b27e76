//! Two policies side by side (`v`): A's plot (the live dials) and B's (the dials pinned when
//! `v` was pressed), each titled with its label and the dials that tell them apart, each over a
//! few lines of its counters as its read model tallies them ([`crate::lesson::tally::Tally`]):
//! the fates and panes so far, the oracle's cells wrong so far and, for the job, how long the
//! combined watermark has stood still. Formatting only: B is a run of its own, drawn by the
//! same plot as A's.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::dials::value;
use crate::app::{App, Run};
use crate::dials::Dial;
use crate::lesson::tally::Tallied;
use crate::theme::glyph;

/// Which of the two runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    /// The live dials.
    A,
    /// The pinned dials.
    B,
}

impl Which {
    fn label(self) -> &'static str {
        match self {
            Which::A => "A",
            Which::B => "B",
        }
    }
}

/// The run `which` of an app showing two side by side (None: one run on screen).
pub fn run(app: &App, which: Which) -> Option<Run<'_>> {
    let b = app.run_b()?;
    Some(match which {
        Which::A => app.run(),
        Which::B => b,
    })
}

/// The dials that tell A and B apart (the speed left out: it is the playhead's), with the lag
/// first whatever it is (the watermark family when it has none), as `(dial, A's, B's)`.
pub fn differing(app: &App) -> Vec<(Dial, String, String)> {
    let Some(side) = app.side.as_ref() else {
        return Vec::new();
    };
    let (a, b) = (&app.dials(), &side.dials());
    let order = Dial::order(app.steered.parallel());
    let lead = if a.has_lag() || b.has_lag() {
        Dial::Lag
    } else {
        Dial::Watermark
    };
    std::iter::once(lead)
        .chain(
            order
                .iter()
                .copied()
                .filter(|&d| d != Dial::Speed && d != lead && value(a, d) != value(b, d)),
        )
        // The rules are named only where A's and B's differ.
        .chain((a.conventions != b.conventions).then_some(Dial::Rules))
        .map(|d| (d, value(a, d), value(b, d)))
        .collect()
}

/// The title of `which`'s half: `A · lag 20s idle off`, the lag and the dials that differ;
/// shorter variants for a narrow half.
pub fn title(app: &App, which: Which, width: u16) -> Line<'static> {
    let Some(run) = run(app, which) else {
        return Line::default();
    };
    let t = &run.theme;
    let dials = differing(app);
    let same = dials.iter().all(|(_, a, b)| a == b);
    let pick = |(d, a, b): &(Dial, String, String)| {
        let v = if which == Which::A { a } else { b };
        format!("{} {v}", d.label())
    };
    let all: Vec<String> = dials.iter().map(pick).collect();
    let only_differing: Vec<String> = dials.iter().filter(|(_, a, b)| a != b).map(pick).collect();
    let label = Span::styled(format!(" {} ", which.label()), t.title);
    let pinned = match which {
        Which::A => "live",
        Which::B => "pinned",
    };
    let mut variants = Vec::new();
    let tail = if same { " · same dials" } else { "" };
    variants.push(Line::from(vec![
        label.clone(),
        Span::styled(format!("· {} ({pinned}){tail} ", all.join(" ")), t.text),
    ]));
    variants.push(Line::from(vec![
        label.clone(),
        Span::styled(format!("· {}{tail} ", all.join(" ")), t.text),
    ]));
    if !only_differing.is_empty() {
        variants.push(Line::from(vec![
            label.clone(),
            Span::styled(format!("· {} ", only_differing.join(" ")), t.text),
        ]));
    }
    variants.push(Line::from(label));
    super::fit(width.saturating_sub(2), variants)
}

/// Writes `which`'s title over the top border of its plot `area`.
pub fn render_title(app: &App, which: Which, area: Rect, buf: &mut Buffer) {
    if area.width < 4 || area.height == 0 {
        return;
    }
    let t = &app.theme;
    let line = title(app, which, area.width);
    let inner_w = area.width - 2;
    // The plot's own title goes, styles and all: the border under the label is plain.
    for x in area.x + 1..area.right() - 1 {
        let cell = &mut buf[(x, area.y)];
        cell.reset();
        cell.set_symbol("─");
        cell.set_style(t.base.patch(t.border));
    }
    super::text::lines(
        buf,
        Rect {
            x: area.x + 1,
            width: inner_w,
            height: 1,
            ..area
        },
        vec![line],
    );
}

/// Draws B's plot into `area`, titled.
pub fn render_b_plot(app: &App, area: Rect, buf: &mut Buffer) {
    let Some(b) = app.run_b() else {
        return;
    };
    super::plot::render_against(&b, Some(app.trace()), area, buf);
    render_title(app, Which::B, area, buf);
    super::inspect::render(&b, area, buf);
}

/// The counters of `which` as lines for `height` rows of `width` columns: the fates so far,
/// then the panes and wrong cells so far, then (a job's) the watermark's stall or (a single
/// run's, with three rows) its whole run's score at the end.
pub fn lines(app: &App, which: Which, width: u16, height: u16) -> Vec<Line<'static>> {
    let Some(run) = run(app, which) else {
        return Vec::new();
    };
    let t = &app.theme;
    let tally = run.trace().tally(&run.scenario().oracle.truth);
    let bold = t.text.add_modifier(Modifier::BOLD);
    let fate = |g: char, n: u64, word: &str, style: Style| {
        [
            Span::styled(format!("{g} "), style),
            Span::styled(n.to_string(), style.add_modifier(Modifier::BOLD)),
            Span::styled(format!(" {word}  "), t.text),
        ]
    };
    let fates = |words: bool| {
        let w = |s: &'static str| if words { s } else { "" };
        let mut v = vec![Span::styled(format!("{} so far ", which.label()), t.dim)];
        v.extend(fate(glyph::ON_TIME, tally.on_time, w("on time"), t.on_time));
        v.extend(fate(glyph::LATE, tally.late, w("late"), t.late));
        v.extend(fate(glyph::DROPPED, tally.dropped, w("dropped"), t.dropped));
        Line::from(v)
    };
    let wrong_style = if tally.wrong_cells > 0 { t.warn } else { bold };
    let panes = Line::from(vec![
        Span::styled("panes ", t.text),
        Span::styled(tally.panes.to_string(), bold),
        Span::styled(" · wrong cells ", t.text),
        Span::styled(tally.wrong_cells.to_string(), wrong_style),
        Span::styled(" so far", t.dim),
    ]);
    let panes_short = Line::from(vec![
        Span::styled("panes ", t.text),
        Span::styled(tally.panes.to_string(), bold),
        Span::styled(" · wrong ", t.text),
        Span::styled(tally.wrong_cells.to_string(), wrong_style),
    ]);
    let stall = run.trace().pipeline_config().map(|_| match tally.stall {
        Some(d) => Line::from(vec![
            Span::styled("watermark stalled for ", t.text),
            Span::styled(
                crate::view::duration(run.clock(), d),
                t.warn.add_modifier(Modifier::BOLD),
            ),
            Span::styled(" now", t.dim),
        ]),
        None => Line::from(Span::styled("watermark moving now", t.text)),
    });
    let stall_short = run.trace().pipeline_config().map(|_| match tally.stall {
        Some(d) => Line::from(vec![
            Span::styled(" · stall ", t.text),
            Span::styled(
                crate::view::duration(run.clock(), d),
                t.warn.add_modifier(Modifier::BOLD),
            ),
        ]),
        None => Line::from(Span::styled(" · wm moving", t.text)),
    });
    // A single run's whole-run score, computed with its run: what the policy ends with.
    let at_end = match (run.trace().pipeline_config(), run.score()) {
        (None, Some(p)) => {
            let (wrong, lost) = (p.score.wrong_windows, p.score.events_lost);
            let line = |cells: &str, events: &str| {
                Line::from(vec![
                    Span::styled("at the end: ", t.dim),
                    Span::styled(wrong.to_string(), bold),
                    Span::styled(format!(" {cells} · "), t.text),
                    Span::styled(lost.to_string(), bold),
                    Span::styled(format!(" {events}"), t.text),
                ])
            };
            Some(super::fit(
                width,
                vec![line("cells wrong", "events lost"), line("wrong", "lost")],
            ))
        }
        _ => None,
    };
    let mut v = vec![super::fit(width, vec![fates(true), fates(false)])];
    if height == 2 {
        // Two rows: the stall, if any, joins the panes' line.
        let mut with = panes_short.clone();
        let mut with_long = panes.clone();
        if let Some(s) = stall_short {
            with.spans.extend(s.spans.clone());
            with_long.spans.extend(s.spans);
        }
        v.push(super::fit(width, vec![with_long, with, panes_short]));
    } else {
        v.push(super::fit(width, vec![panes, panes_short]));
        v.extend(stall.or(at_end));
    }
    v.truncate(usize::from(height));
    v
}

/// Draws `which`'s counters into `area`, one column in from its left edge.
pub fn render_counters(app: &App, which: Which, area: Rect, buf: &mut Buffer) {
    if area.width < 3 {
        return;
    }
    let inner = Rect {
        x: area.x + 1,
        width: area.width - 2,
        ..area
    };
    let lines = lines(app, which, inner.width, inner.height);
    super::text::lines(buf, inner, lines);
}
