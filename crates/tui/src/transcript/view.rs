//! What the player draws: the script's title and windowing strategy, its transcript with the
//! step just performed marked, the windows on an event-time ruler with the watermark, the
//! windows' table, what the last step emitted and dropped, and the keys. Below 80×24 it says
//! so and draws nothing else.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget, Wrap};
use ratatui::Frame;
use twoclocks_engine::script::{Action, Outcome, Script, Verdict};
use twoclocks_engine::window::WindowId;

use super::playback::{Frame as Step, Playback, StepCheck, WindowStanding, WindowView};
use super::{Player, KEYS};
use crate::geometry::layout::MIN_SIZE;
use crate::theme::Theme;

/// Draws the player on the frame.
pub fn render(p: &Player, f: &mut Frame) {
    let area = f.area();
    draw(p, area, f.buffer_mut());
}

/// Draws the player into `area` of `buf` (a test's buffer as well as the terminal's).
pub fn draw(p: &Player, area: Rect, buf: &mut Buffer) {
    let t = &p.theme;
    t.paint(area, buf);
    if area.width < MIN_SIZE.0 || area.height < MIN_SIZE.1 {
        crate::view::too_small(t, area, buf);
        return;
    }
    let pb = p.playback();
    let frame = pb.frame(p.done);
    let row = |y: u16| Rect {
        y: area.y + y,
        height: 1,
        ..area
    };
    title(p, row(0), buf);
    let s = pb.script();
    Paragraph::new(Line::from(format!(" {}", s.strategy())))
        .style(t.dim)
        .render(row(1), buf);
    footer(p, row(area.height - 1), buf);
    let body = Rect {
        y: area.y + 2,
        height: area.height - 3,
        ..area
    };
    let left_w = (body.width * 2 / 5).clamp(34, 52);
    let left = Rect {
        width: left_w,
        ..body
    };
    let right = Rect {
        x: body.x + left_w,
        width: body.width - left_w,
        ..body
    };
    transcript(p, left, buf);
    let shown = frame.windows.len() as u16;
    let ruler_h = (shown + 4).clamp(5, body.height / 3);
    let table_h = (shown + 3).clamp(4, body.height / 3);
    let ruler_area = Rect {
        height: ruler_h,
        ..right
    };
    let table_area = Rect {
        y: right.y + ruler_h,
        height: table_h,
        ..right
    };
    let step_area = Rect {
        y: right.y + ruler_h + table_h,
        height: right.height - ruler_h - table_h,
        ..right
    };
    ruler(p, frame, ruler_area, buf);
    windows(p, frame, table_area, buf);
    last_step(p, frame, step_area, buf);
    if p.help {
        help(t, area, buf);
    }
}

fn block<'a>(t: &Theme, title: String) -> Block<'a> {
    Block::default()
        .borders(Borders::ALL)
        .border_style(t.border)
        .title(Span::styled(format!(" {title} "), t.title))
        .style(t.base)
}

fn title(p: &Player, area: Rect, buf: &mut Buffer) {
    let t = &p.theme;
    let pb = p.playback();
    let (i, n) = p.position();
    let steps = pb.len() - 1;
    let left = format!(
        " {} · script {} of {} · {} rules",
        pb.script().name,
        i + 1,
        n,
        pb.conventions().engine()
    );
    let right = format!("step {} of {steps} ", p.done);
    let gap = usize::from(area.width).saturating_sub(left.chars().count() + right.chars().count());
    Paragraph::new(Line::from(vec![
        Span::styled(left, t.title),
        Span::raw(" ".repeat(gap)),
        Span::styled(right, t.text),
    ]))
    .render(area, buf);
}

fn footer(p: &Player, area: Rect, buf: &mut Buffer) {
    let t = &p.theme;
    let run = p.playback().run();
    let verdict = match (&run.verdict, &run.outcome) {
        (Verdict::Passed, _) => "the script passes".to_string(),
        (Verdict::Unchecked, _) => "the script expects nothing: shown, not checked".to_string(),
        (Verdict::FailedAsDeclared, _) => "the script fails as it declares".to_string(),
        (Verdict::DeclaredErrorMissing, _) => {
            "the script declares an error it does not meet".to_string()
        }
        (Verdict::Failed, Outcome::Unmatched { line, .. } | Outcome::Unexpected { line, .. }) => {
            format!("the script fails at line {line}")
        }
        (Verdict::Failed, Outcome::Clean) => "the script fails".to_string(),
    };
    let left = match &p.note {
        Some(n) => Span::styled(format!(" {n}"), t.title),
        None => Span::styled(
            " → next  ← back  n/p script  R rules  ? keys  q quit",
            t.key,
        ),
    };
    let right = format!("{verdict} ");
    let gap = usize::from(area.width).saturating_sub(left.width() + right.chars().count());
    let style = if run.verdict.passed() { t.dim } else { t.warn };
    Paragraph::new(Line::from(vec![
        left,
        Span::raw(" ".repeat(gap)),
        Span::styled(right, style),
    ]))
    .render(area, buf);
}

fn transcript(p: &Player, area: Rect, buf: &mut Buffer) {
    let t = &p.theme;
    let pb = p.playback();
    let b = block(t, format!("Transcript · line {}", pb.script().line));
    let inner = b.inner(area);
    b.render(area, buf);
    let steps = &pb.script().steps;
    let visible = usize::from(inner.height);
    // Keep the step just performed in view, with the next one under it.
    let first = (p.done + 1).saturating_sub(visible.saturating_sub(1));
    let mut lines = Vec::new();
    if first == 0 {
        let style = if p.done == 0 { t.current } else { t.dim };
        lines.push(Line::from(Span::styled("   start", style)));
    }
    for (i, step) in steps.iter().enumerate().skip(first.saturating_sub(1)) {
        let (mark, mark_style) = match pb.check(i) {
            _ if i >= p.done => (' ', t.dim),
            StepCheck::Held => ('✓', t.on_time),
            StepCheck::Failed(_) => ('✗', t.dropped),
            StepCheck::NotReached | StepCheck::NotACheck => ('·', t.dim),
        };
        let text = format!(" {:>4}  {}", step.line, step.action);
        let style = if i + 1 == p.done {
            t.current
        } else if i < p.done {
            t.text
        } else {
            t.dim
        };
        lines.push(Line::from(vec![
            Span::styled(format!(" {mark}"), mark_style),
            Span::styled(text, style),
        ]));
    }
    Paragraph::new(lines).render(inner, buf);
}

/// The event-time range the ruler spans: every input so far, every window's bounds (the
/// global window's aside) and the watermark, when finite.
fn range(pb: &Playback, frame: &Step) -> (i64, i64) {
    let mut lo = i64::MAX;
    let mut hi = i64::MIN;
    let mut take = |v: i64| {
        if v > -Script::END_OF_TIME / 2 && v < Script::END_OF_TIME / 2 {
            lo = lo.min(v);
            hi = hi.max(v);
        }
    };
    for step in pb.script().steps.iter().take(frame.done) {
        if let Action::Input(ts) = &step.action {
            ts.iter().for_each(|&v| take(v));
        }
    }
    for w in &frame.windows {
        if w.window != Script::GLOBAL {
            take(w.window.start_ms());
            take(w.window.end_ms());
        }
    }
    take(frame.watermark);
    if lo > hi {
        (0, 10)
    } else if lo == hi {
        (lo, lo + 1)
    } else {
        (lo, hi)
    }
}

fn window_name(w: WindowId) -> String {
    if w == Script::GLOBAL {
        "global".to_string()
    } else {
        format!("[{}, {}]", w.start_ms(), w.max_timestamp())
    }
}

/// A script time, the ends of Beam's range of time as −∞ and ∞.
fn time_name(v: i64) -> String {
    if v <= -Script::END_OF_TIME {
        "−∞".to_string()
    } else if v >= Script::END_OF_TIME {
        "∞".to_string()
    } else {
        v.to_string()
    }
}

fn ruler(p: &Player, frame: &Step, area: Rect, buf: &mut Buffer) {
    let t = &p.theme;
    let pb = p.playback();
    let clock = if frame.clock == 0 && !uses_clock(pb) {
        String::new()
    } else {
        format!(" · clock {}", time_name(frame.clock))
    };
    let time = if pb.conventions().uses_stream_time() {
        "stream time"
    } else {
        "watermark"
    };
    let b = block(
        t,
        format!("Event time · {time} {}{clock}", time_name(frame.watermark)),
    );
    let inner = b.inner(area);
    b.render(area, buf);
    if inner.height < 2 || inner.width < 20 {
        return;
    }
    let (lo, hi) = range(pb, frame);
    let label_w: u16 = 14;
    let track = Rect {
        x: inner.x + label_w,
        width: inner.width - label_w,
        ..inner
    };
    let span = (hi - lo) as f64;
    let col = |v: i64| -> Option<u16> {
        if v < lo || v > hi {
            return None;
        }
        let f = (v - lo) as f64 / span;
        Some((f * f64::from(track.width - 1)).round() as u16)
    };
    // The axis: its two ends and the watermark.
    let y = inner.y;
    buf.set_string(inner.x, y, "event time", t.dim);
    buf.set_string(track.x, y, lo.to_string(), t.dim);
    let hi_s = hi.to_string();
    buf.set_string(
        track.right().saturating_sub(hi_s.len() as u16),
        y,
        &hi_s,
        t.dim,
    );
    let wm_col = col(frame.watermark);
    // Windows, newest last, as many as fit above the row of drops.
    let rows = usize::from(inner.height - 2);
    let skip = frame.windows.len().saturating_sub(rows);
    for (i, w) in frame.windows.iter().skip(skip).enumerate() {
        let y = inner.y + 1 + i as u16;
        let gone = matches!(
            w.standing,
            WindowStanding::Collected(_) | WindowStanding::Merged(..)
        );
        let label_style = if gone { t.dim } else { t.text };
        buf.set_stringn(
            inner.x,
            y,
            window_name(w.window),
            usize::from(label_w - 1),
            label_style,
        );
        let (a, b) = if w.window == Script::GLOBAL {
            (Some(0), Some(track.width - 1))
        } else {
            (
                col(w.window.start_ms()),
                col(w.window.end_ms()).map(|c| c.saturating_sub(1)),
            )
        };
        if let (Some(a), Some(b)) = (a, b) {
            let edge = if gone { t.dim } else { t.window_edge };
            for c in a..=b.max(a) {
                buf.set_string(track.x + c, y, "─", edge);
            }
        }
        if let Some(c) = wm_col {
            buf.set_string(track.x + c, y, "│", t.watermark);
        }
        dots(buf, track.x, y, &w.held, &col, label_style);
    }
    // Elements dropped so far, on the last row.
    let dropped: Vec<i64> = (1..=frame.done)
        .filter_map(|k| pb.frame(k).last.as_ref())
        .flat_map(|s| s.dropped.iter().map(|(e, _)| *e))
        .collect();
    let y = inner.bottom() - 1;
    buf.set_string(inner.x, y, "dropped", t.dim);
    if let Some(c) = wm_col {
        buf.set_string(track.x + c, y, "│", t.watermark);
    }
    dots(buf, track.x, y, &dropped, &col, t.dropped);
}

/// Elements as dots at their columns; a column holding more than one shows how many
/// (2 to 9, then +), so the ink stays in proportion to the elements.
fn dots(
    buf: &mut Buffer,
    x: u16,
    y: u16,
    values: &[i64],
    col: &dyn Fn(i64) -> Option<u16>,
    style: Style,
) {
    let mut counts: Vec<(u16, usize)> = Vec::new();
    for &v in values {
        if let Some(c) = col(v) {
            match counts.iter_mut().find(|(k, _)| *k == c) {
                Some((_, n)) => *n += 1,
                None => counts.push((c, 1)),
            }
        }
    }
    for (c, n) in counts {
        let g = match n {
            1 => "●".to_string(),
            2..=9 => n.to_string(),
            _ => "+".to_string(),
        };
        buf.set_string(x + c, y, g, style);
    }
}

fn uses_clock(pb: &Playback) -> bool {
    pb.script()
        .steps
        .iter()
        .any(|s| matches!(s.action, Action::Clock(_)))
}

/// How a window stands, in at most [`STANDING_W`] columns.
fn standing(t: &Theme, w: &WindowView) -> Span<'static> {
    match w.standing {
        WindowStanding::Open => Span::styled("open", t.on_time),
        WindowStanding::Passed => Span::styled("end passed", t.late),
        WindowStanding::Closed => Span::styled("closed (finished)", t.text),
        WindowStanding::Collected(k) => Span::styled(format!("collected, step {k}"), t.dim),
        WindowStanding::Merged(k, _) => Span::styled(format!("merged, step {k}"), t.dim),
    }
}

/// The width of the windows table's `now` column.
const STANDING_W: usize = 17;

fn windows(p: &Player, frame: &Step, area: Rect, buf: &mut Buffer) {
    let t = &p.theme;
    let b = block(t, format!("Windows · {} so far", frame.windows.len()));
    let inner = b.inner(area);
    b.render(area, buf);
    // The window, its panes, how it stands, and what it holds in the columns left.
    let holds_w = usize::from(inner.width).saturating_sub(11 + 5 + 2 + STANDING_W + 1);
    let mut lines = vec![Line::from(Span::styled(
        format!(
            "{:<11}{:>5}  {:<sw$} {}",
            "window",
            "panes",
            "now",
            "holds",
            sw = STANDING_W
        ),
        t.dim,
    ))];
    let rows = usize::from(inner.height.saturating_sub(1));
    let skip = frame.windows.len().saturating_sub(rows);
    for w in frame.windows.iter().skip(skip) {
        let gone = matches!(
            w.standing,
            WindowStanding::Collected(_) | WindowStanding::Merged(..)
        );
        let held = format!("{:?}", w.held);
        let held = if gone {
            "—".to_string()
        } else if held.chars().count() > holds_w {
            format!("{} elements", w.held.len())
        } else {
            held
        };
        let st = standing(t, w);
        let pad = STANDING_W.saturating_sub(st.width()) + 1;
        lines.push(Line::from(vec![
            Span::styled(
                format!("{:<11}{:>5}  ", window_name(w.window), w.panes),
                t.text,
            ),
            st,
            Span::styled(format!("{}{held}", " ".repeat(pad)), t.text),
        ]));
    }
    if frame.windows.is_empty() {
        lines.push(Line::from(Span::styled("no window yet", t.dim)));
    }
    Paragraph::new(lines).render(inner, buf);
}

fn last_step(p: &Player, frame: &Step, area: Rect, buf: &mut Buffer) {
    let t = &p.theme;
    let pb = p.playback();
    let title = match &frame.last {
        Some(s) => format!(
            "Step {} · line {} · {}",
            frame.done, s.step.line, s.step.action
        ),
        None => "Before the first step".to_string(),
    };
    let b = block(t, title);
    let inner = b.inner(area);
    b.render(area, buf);
    let mut lines: Vec<Line> = Vec::new();
    match &frame.last {
        None => lines.push(Line::from(Span::styled(
            "→ performs the first step of the transcript",
            t.dim,
        ))),
        Some(s) => {
            for pane in &s.panes {
                lines.push(Line::from(Span::styled(
                    pane.summary(),
                    t.timing(pane.info.timing),
                )));
            }
            let l = pb.script().allowed_lateness;
            let merging = pb.script().windows.window.is_merging();
            for (e, w) in &s.dropped {
                lines.push(Line::from(Span::styled(
                    format!(
                        "dropped  {e} from window {}: {}",
                        window_name(*w),
                        pb.conventions()
                            .explain_drop(w.end_ms(), s.watermark, l, merging)
                    ),
                    t.dropped,
                )));
            }
            let check = pb.check(frame.done - 1);
            if let (Action::Expect(expected), StepCheck::Held) = (&s.step.action, &check) {
                for e in expected {
                    lines.push(Line::from(Span::styled(
                        format!("✓ emitted {e}"),
                        t.on_time,
                    )));
                }
                if expected.is_empty() {
                    lines.push(Line::from(Span::styled(
                        "✓ nothing expected, nothing emitted",
                        t.on_time,
                    )));
                }
            }
            if let StepCheck::Failed(why) = check {
                lines.push(Line::from(Span::styled(format!("✗ {why}"), t.dropped)));
            }
            if lines.is_empty() {
                lines.push(Line::from(Span::styled(
                    "nothing emitted, nothing dropped",
                    t.dim,
                )));
            }
        }
    }
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .render(inner, buf);
}

fn help(t: &Theme, area: Rect, buf: &mut Buffer) {
    let w = 72.min(area.width);
    let h = (KEYS.len() as u16 + 4).min(area.height);
    let r = Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    };
    Clear.render(r, buf);
    let b = block(t, "Keys · any key closes".to_string());
    let inner = b.inner(r);
    b.render(r, buf);
    let mut lines: Vec<Line> = KEYS
        .iter()
        .map(|(k, what)| {
            Line::from(vec![
                Span::styled(format!(" {k:<18}"), t.key),
                Span::styled(*what, t.text),
            ])
        })
        .collect();
    lines.insert(0, Line::from(""));
    Paragraph::new(lines).render(inner, buf);
}
