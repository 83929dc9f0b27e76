//! The dials panel: lag, grace, early-trigger interval, speed, watermark kind and accumulation mode
//! (and, for the parallel job, the checkpoint interval and the idle timeout), each a track with a
//! thumb and its value; the focused one is reversed. In the compact layout it also carries a
//! one-line summary of the frontier (under a state TTL, what is lost is said lost to the resets).
//! Where each track goes is the screen's geometry ([`crate::geometry::dials`]), which the mouse
//! uses too. While the room votes on a tour's question the title says the dials are held for the
//! vote.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Widget};

use twoclocks_engine::duration::Duration;
use twoclocks_engine::Accumulation;

use crate::app::{App, Dial, Dials, Family, SPEEDS};
use crate::geometry::dials::{track, LABEL, VALUE};
use crate::geometry::Mode;

/// The value of a dial as text: durations as the classroom writes them (`20s`), or in hours
/// and minutes on a wall-clock log's dials (`2h 45m`).
pub fn value(d: &Dials, dial: Dial) -> String {
    let shown = |ms: f64| {
        if d.ranges.wall {
            super::duration(&twoclocks_engine::Clock::wall_utc(), ms)
        } else {
            Duration::short(ms)
        }
    };
    match dial {
        Dial::Lag => {
            if d.has_lag() {
                shown(d.lag)
            } else {
                "n/a".into()
            }
        }
        Dial::Grace => shown(d.grace),
        Dial::Early => d.early.map_or("off".into(), shown),
        Dial::Speed => format!("{}×", d.speed),
        Dial::Watermark => d.watermark().family().into(),
        Dial::Accumulation => match d.accumulation {
            twoclocks_engine::Accumulation::Accumulating => "accum".into(),
            twoclocks_engine::Accumulation::Discarding => "discard".into(),
            twoclocks_engine::Accumulation::Retracting => "retract".into(),
        },
        Dial::Checkpoint => d.checkpoint_every.map_or("on x".into(), shown),
        Dial::Idle => d.idle_timeout.map_or("off".into(), shown),
        Dial::Rules => d.conventions.name().into(),
    }
}

fn stops(dial: Dial) -> Option<usize> {
    match dial {
        Dial::Watermark => Some(Family::ALL.len()),
        Dial::Accumulation => Some(Accumulation::ALL.len()),
        Dial::Speed => Some(SPEEDS.len()),
        Dial::Rules => Some(crate::dials::RULES.len()),
        _ => None,
    }
}

/// Draws the dials panel into `area`: each dial of the run in focus order, a track with its
/// thumb and value, the focused one marked ▶; in the compact layout the frontier summary
/// under them.
pub fn render(app: &App, area: Rect, buf: &mut Buffer, mode: Mode) {
    let t = &app.theme;
    // The rules in force, named when they are not Beam Java's (twoclocks' own).
    let rules = match app.dials().conventions {
        twoclocks_engine::Conventions::Beam => String::new(),
        c => format!(" · {} rules", c.engine()),
    };
    let title = if app.steered.rerunning() {
        format!(" Dials{rules} · re-running… ")
    } else if app.voting().is_some() {
        // Held, not dead: live again once the room has voted.
        format!(" Dials{rules} · held for the vote ")
    } else {
        format!(" Dials{rules} ")
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.border)
        .title(Span::styled(title, t.title));
    let inner = block.inner(area);
    block.render(area, buf);
    let order = app.dial_order();
    for (i, &d) in order.iter().enumerate() {
        let y = inner.y + i as u16;
        if y >= inner.bottom() {
            break;
        }
        let focused = app.selection.focus == d;
        let label_style = if focused { t.focus } else { t.text };
        let mark = if focused { "▶" } else { " " };
        super::text::string(
            buf,
            inner.x,
            y,
            format!("{mark}{:<9}", d.label()),
            LABEL - 1,
            label_style,
        );
        let active = d != Dial::Lag || app.dials().has_lag();
        if let Some(tr) = track(area, d) {
            let w = tr.width as usize;
            let thumb = (app.dials().ratio(d) * (w.saturating_sub(1)) as f64).round() as usize;
            let stop_at: Vec<usize> = stops(d)
                .map(|n| {
                    (0..n)
                        .map(|k| k * w.saturating_sub(1) / (n - 1).max(1))
                        .collect()
                })
                .unwrap_or_default();
            for k in 0..w {
                let (g, s) = if k == thumb && active {
                    ('●', if focused { t.key } else { t.text })
                } else if stop_at.contains(&k) {
                    ('┼', t.dim)
                } else if k < thumb && active {
                    ('━', t.watermark)
                } else {
                    ('─', t.dim)
                };
                if let Some(c) = buf.cell_mut((tr.x + k as u16, y)) {
                    c.set_char(g).set_style(s);
                }
            }
            let v = value(&app.dials(), d);
            super::text::string(
                buf,
                tr.right() + 1,
                y,
                format!("{v:>9}"),
                VALUE - 1,
                if active { t.key } else { t.dim },
            );
        }
    }
    if mode == Mode::Compact {
        let y = inner.y + order.len() as u16;
        if y < inner.bottom() {
            let r = Rect {
                y,
                height: inner.bottom() - y,
                ..inner
            };
            super::text::lines(buf, r, frontier_summary(app, r.width));
        }
    }
}

/// Two lines about the current setting's place on the frontier, `width` columns wide. These
/// numbers are the whole run's, at the end of input (the counters stop at the playhead), and
/// count cells (window × key).
pub fn frontier_summary(app: &App, width: u16) -> Vec<Line<'static>> {
    let t = &app.theme;
    match &app.score() {
        Some(p) => {
            let mark = || Span::styled(format!("{} ", crate::theme::glyph::CURRENT), t.current);
            // With sliding windows an event is counted once per window it falls in.
            let w = app.dials().window;
            let unit = if w.places_once() { "" } else { " placements" };
            // Nothing lost is good news: not in the colour of drops.
            let lost_style = if p.score.events_lost == 0 {
                t.on_time
            } else {
                t.dropped
            };
            // The global window never drops: under a TTL what it loses, it forgot when a key's
            // state expired (the count reset). Said, beside the counters' dropped 0.
            let reset = w.ttl().is_some() && p.score.events_lost > 0 && p.dropped == 0;
            let lost = || Span::styled(format!("lost {}{unit}", p.score.events_lost), lost_style);
            let why = |words: &str| Span::styled(words.to_string(), t.dim);
            let delay = if app.clock().is_wall() {
                crate::view::duration(app.clock(), p.emit_delay)
            } else {
                Duration::short(p.emit_delay)
            };
            let mut variants = Vec::new();
            if reset {
                variants.extend([
                    Line::from(vec![
                        mark(),
                        Span::styled("at the end: ", t.text),
                        lost(),
                        why(" to ⊘ resets, 0 dropped"),
                    ]),
                    Line::from(vec![
                        mark(),
                        Span::styled("at the end: ", t.text),
                        lost(),
                        why(" to ⊘ resets"),
                    ]),
                    Line::from(vec![
                        mark(),
                        Span::styled("end: ", t.text),
                        lost(),
                        why(" to ⊘ resets"),
                    ]),
                    Line::from(vec![
                        mark(),
                        Span::styled("end: ", t.text),
                        lost(),
                        why(", ⊘ resets"),
                    ]),
                    Line::from(vec![mark(), lost(), why(" to ⊘ resets")]),
                ]);
            }
            let first = super::fit(
                width,
                variants
                    .into_iter()
                    .chain([
                        Line::from(vec![
                            mark(),
                            Span::styled("at the end: ", t.text),
                            lost(),
                            Span::styled(format!(" · emit delay {delay}"), t.text),
                        ]),
                        Line::from(vec![
                            mark(),
                            Span::styled("at the end: ", t.text),
                            lost(),
                            Span::styled(format!(" · delay {delay}"), t.text),
                        ]),
                        Line::from(vec![mark(), Span::styled("at the end: ", t.text), lost()]),
                        Line::from(vec![mark(), Span::styled("end: ", t.text), lost()]),
                    ])
                    .collect(),
            );
            let (wrong, cells) = (p.score.wrong_windows, app.scenario().oracle.truth.len());
            let acc = format!("{:.2}%", p.score.accuracy());
            let second = super::fit(
                width,
                vec![
                    Line::from(vec![
                        Span::styled(format!("accuracy {acc} · "), t.text),
                        Span::styled(format!("{wrong} of {cells} cells wrong"), t.dim),
                    ]),
                    Line::from(vec![
                        Span::styled(format!("accuracy {acc} · "), t.text),
                        Span::styled(format!("{wrong}/{cells} cells wrong"), t.dim),
                    ]),
                    Line::from(vec![
                        Span::styled(format!("{acc} · "), t.text),
                        Span::styled(format!("{wrong}/{cells} cells wrong"), t.dim),
                    ]),
                ],
            );
            vec![first, second]
        }
        None if app.input_open() => vec![Line::from(Span::styled(
            "score: once the input ends",
            t.dim,
        ))],
        None => vec![Line::from(Span::styled("frontier: computing…", t.dim))],
    }
}
