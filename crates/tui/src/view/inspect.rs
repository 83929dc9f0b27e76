//! The inspector: the picked event (key, both clocks, delay) and, for each of its windows, the
//! sentence that says why it was on time, late or dropped, with the inequality in
//! numbers. Drawn over the bottom of the plot, or over its top when the inspected event sits
//! low, so the inequality the plot draws on the event's row stays in sight; ← → step to the
//! event before or after. With session windows, a kept event's line says what it did to its
//! key's sessions: opened one, extended one, or bridged several (into a fired one: late).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget, Wrap};

use crate::app::Run;
use crate::lesson::why;
use crate::theme::Theme;
use twoclocks_engine::clock::{Clock, Fit};
use twoclocks_engine::timeline::Inspection;
use twoclocks_engine::SessionChange;
use twoclocks_engine::{Fate, WindowId};

/// The inspector's text for the inspected event, if any.
pub fn lines(app: &Run) -> Option<Vec<Line<'static>>> {
    let t = &app.theme;
    let i = app.selection.inspected?;
    let why = app.trace().inspect(i)?;
    let e = why.event;
    let clock = app.scenario().stream.clock.clone();
    if clock.is_wall() {
        return Some(wall_lines(app, &clock, &why));
    }
    let mut v = vec![Line::from(vec![
        Span::styled(
            format!("{} {} ", Theme::fate_glyph(why.fate), why.fate.label()),
            t.fate(why.fate),
        ),
        Span::styled(
            format!(
                "event #{} key {}: event time {}, arrived {} (delay {})",
                i + 1,
                app.scenario().stream.key_name(e.key),
                ms3(e.event_time),
                ms3(e.proc_time),
                ms3(e.delay())
            ),
            t.text,
        ),
    ])];
    for &(window, fate) in &why.windows {
        v.push(Line::from(Span::styled(
            why::sentence(&why, window, fate),
            t.fate(fate),
        )));
    }
    if app.scenario().oracle.merging && app.trace().records_sessions() && why.fate != Fate::Dropped
    {
        v.push(Line::from(Span::styled(
            session_sentence(app.trace().session_change_of(i), why.fate),
            t.text,
        )));
    }
    Some(v)
}

/// The inspector's text on a wall clock: the event's times as dates and times of day, its
/// delay in hours and minutes, an early arrival said plainly, and each window's fate as the
/// inequality between the watermark at its arrival and the window's end (and grace).
fn wall_lines(app: &Run, clock: &Clock, why: &Inspection) -> Vec<Line<'static>> {
    let t = &app.theme;
    let e = why.event;
    let delay = e.delay();
    let delay_text = if delay < 0.0 {
        format!("{} early", crate::view::duration(clock, -delay))
    } else {
        format!("delay {}", crate::view::duration(clock, delay))
    };
    let mut v = vec![Line::from(vec![
        Span::styled(
            format!("{} {} ", Theme::fate_glyph(why.fate), why.fate.label()),
            t.fate(why.fate),
        ),
        Span::styled(
            format!(
                "event #{} key {}: event time {}, arrived {} ({delay_text})",
                why.offset + 1,
                app.scenario().stream.key_name(e.key),
                clock.at(e.event_time),
                clock.at(e.proc_time),
            ),
            t.text,
        ),
    ])];
    if delay < 0.0 {
        v.push(Line::from(Span::styled(
            early_sentence(clock, -delay, why.fate),
            t.text,
        )));
    }
    let wf = app.dials.window;
    for (w, fate) in &why.windows {
        let (end, grace, wm) = (wf.end(*w), why.grace, why.watermark);
        let span = clock.span(wf.start(*w), end, Fit::Day);
        let at = |ms: f64| clock.at_fit(ms, Fit::Day);
        let sentence = match fate {
            Fate::OnTime => format!(
                "On time in {span}: the watermark at its arrival, {}, had not passed the window's end.",
                at(wm)
            ),
            Fate::Late => format!(
                "Late, kept in {span}: the watermark at its arrival, {}, had passed the window's end but not its end + grace {} = {}.",
                at(wm),
                crate::view::duration(clock, grace),
                at(end + grace)
            ),
            Fate::Dropped => format!(
                "Dropped from {span}: the watermark at its arrival, {}, had passed the window's end + grace {} = {}.",
                at(wm),
                crate::view::duration(clock, grace),
                at(end + grace)
            ),
        };
        v.push(Line::from(Span::styled(sentence, t.fate(*fate))));
    }
    v
}

/// What an event that arrived before it happened means, in words: its processing time is
/// `early` before its event time (a departure that left ahead of schedule, or clocks that
/// disagree), and what that does to its fate.
pub fn early_sentence(clock: &Clock, early: f64, fate: Fate) -> String {
    let then = match fate {
        Fate::OnTime => "it came ahead of the watermark, on time",
        Fate::Late => "yet its window had closed: late",
        Fate::Dropped => "yet its window was past grace: dropped",
    };
    format!(
        "It arrived {} before it happened: an early event, or clock skew between the source and the processor; {then}.",
        crate::view::duration(clock, early)
    )
}

/// What a kept event did to its key's sessions, in words.
fn session_sentence(change: Option<&SessionChange>, fate: Fate) -> String {
    let span = |w: &WindowId| format!("[{}, {})", ms3(w.start()), ms3(w.end()));
    let Some(c) = change else {
        return match fate {
            Fate::Late => {
                "It fell inside a session that had fired: no bounds changed, a LATE pane."
            }
            _ => "It fell inside a session of its key: no bounds changed.",
        }
        .to_string();
    };
    let into = span(&c.into);
    let late = if c.late {
        ", which the watermark had passed: a LATE pane"
    } else {
        ""
    };
    match &c.replaced[..] {
        [] => format!("It opened the session {into}{late}."),
        [one] => format!("It extended the session {} to {into}{late}.", span(one)),
        many => format!(
            "It bridged {} sessions ({}) into {into}{late}.",
            many.len(),
            many.iter().rev().map(span).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// Draws the inspector over the plot at `plot`, if an event is inspected: at the plot's
/// bottom, or at its top when the event's row would be covered.
pub fn render(app: &Run, plot: Rect, buf: &mut Buffer) {
    let Some(lines) = lines(app) else {
        return;
    };
    let t = &app.theme;
    let text_w = usize::from(plot.width.saturating_sub(4)).max(1);
    let rows: usize = lines
        .iter()
        .map(|l| l.width().div_ceil(text_w).max(1))
        .sum();
    let h = (rows as u16 + 2).min(plot.height.saturating_sub(2)).max(3);
    let at = |y: u16| Rect {
        x: plot.x.saturating_add(1),
        y,
        width: plot.width.saturating_sub(2),
        height: h.min(plot.height),
    };
    let bottom = at(plot.bottom().saturating_sub(h + 1));
    let top = at(plot.y.saturating_add(1));
    // The event's row and the rows beside it, where the plot writes the inequality's numbers.
    let covers = |a: Rect| {
        event_row(app, plot).is_some_and(|y| a.y <= y.saturating_add(1) && y < a.bottom() + 1)
    };
    let area = if covers(bottom) && !covers(top) {
        top
    } else {
        bottom
    };
    if area.width < 4 || area.height < 3 {
        return;
    }
    Clear.render(area, buf);
    // Cleared to the theme's own background (the light theme paints one).
    app.theme.paint(area, buf);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.border)
        .title(Span::styled(" Inspect · ←→ step · Esc closes ", t.title));
    Paragraph::new(lines)
        .wrap(Wrap { trim: true })
        .block(block)
        .render(area, buf);
}

/// The screen row of the inspected event on the plot drawn in `plot`, if it is on it.
pub fn event_row(app: &Run, plot: Rect) -> Option<u16> {
    let i = app.selection.inspected?;
    let e = app.scenario().stream.events.get(i)?;
    let f = app.plot_frame(plot)?;
    Some(f.inner.y + f.row(e.proc_time)?)
}

/// Seconds to the millisecond, so that arrival − event time reads as the delay shown.
fn ms3(ms: f64) -> String {
    format!("{:.3}s", ms / 1000.0)
}
