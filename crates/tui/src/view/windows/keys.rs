//! The windows table for the global window: one row per key, its value now against its truth
//! (its events so far, and at the end), the difference, and how many times its state expired
//! under the TTL. A key whose state was reset reads against its truth in the warning colour.

use std::collections::BTreeMap;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use twoclocks_engine::trace::Trace;
use twoclocks_engine::{CellId, Expiry, KeyId, WindowId};

use crate::app::App;
use crate::geometry::windows::first_row;

/// Draws the per-key rows inside `inner` (the table's border is drawn).
pub(super) fn render(app: &App, inner: Rect, buf: &mut Buffer) {
    let t = &app.theme;
    let states = key_states(
        app.trace(),
        app.scenario().keys(),
        &app.scenario().oracle.truth,
    );
    // The truth at the end when there is room for it.
    let wide = inner.width >= 40;
    let mut head = format!("{:<5}{:>6}{:>8}", "key", "value", "so far");
    if wide {
        head.push_str(&format!("{:>8}", "at end"));
    }
    head.push_str(&format!("{:>6}{:>7}", "Δ", "resets"));
    let mut lines = vec![
        Line::from(Span::styled(head, t.dim)),
        Line::from(Span::styled(
            if wide {
                "truth: its events so far · at the end"
            } else {
                "truth: its events so far"
            },
            t.dim,
        )),
    ];
    let n = states.len();
    let room = inner.height.saturating_sub(2) as usize;
    let sel = app.selection.key.map_or(0, |k| k as usize);
    let first = first_row(sel.min(n.saturating_sub(1)), n, room);
    for s in states.iter().skip(first).take(room) {
        let chosen = app.selection.key == Some(s.key);
        let base = if chosen { t.focus } else { t.text };
        let name: String = app
            .scenario()
            .stream
            .key_name(s.key)
            .chars()
            .take(4)
            .collect();
        let diff = s.value - s.truth_so_far;
        let diff_style = if diff == 0 { t.on_time } else { t.dropped };
        let mut spans = vec![
            Span::styled(format!("{name:<5}"), base),
            Span::styled(format!("{:>6}", s.value), base),
            Span::styled(format!("{:>8}", s.truth_so_far), t.dim),
        ];
        if wide {
            spans.push(Span::styled(format!("{:>8}", s.truth_at_end), t.dim));
        }
        spans.push(Span::styled(format!("{diff:>+6}"), diff_style));
        let resets = if s.resets > 0 {
            format!("{:>5} {}", s.resets, crate::view::plot::EXPIRY)
        } else {
            format!("{:>5}", 0)
        };
        spans.push(Span::styled(
            resets,
            if s.resets > 0 { t.warn } else { t.dim },
        ));
        lines.push(Line::from(spans));
    }
    crate::view::text::lines(buf, inner, lines);
}

/// One key under the global window: its running value against its truth, and how often its
/// state expired under the TTL.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyState {
    /// The key.
    pub key: KeyId,
    /// The run's value now: the key's live state (0 after it expired until seen again); a
    /// parallel run's operators' state or what its sink received.
    pub value: i64,
    /// Its events arrived so far: what a run that never forgets would hold now.
    pub truth_so_far: i64,
    /// Its events over the whole stream: the oracle's value at the end.
    pub truth_at_end: i64,
    /// How many times its state expired so far (each a reset to zero).
    pub resets: usize,
    /// The processing time of its latest expiry, if any.
    pub last_reset: Option<f64>,
}

/// Under the global window, each of `keys` keys of `trace`'s run: its value now against its
/// events so far and at the end (`truth`), and how many times its state expired.
pub fn key_states(trace: &Trace, keys: usize, truth: &BTreeMap<CellId, u64>) -> Vec<KeyState> {
    let arrived = &trace.stream().events[..trace.arrived().min(trace.stream().len())];
    let mut seen = vec![0i64; keys];
    let mut last_arrival: Vec<Option<usize>> = vec![None; keys];
    for (i, e) in arrived.iter().enumerate() {
        if let Some(n) = seen.get_mut(e.key as usize) {
            *n += 1;
            last_arrival[e.key as usize] = Some(i);
        }
    }
    let mut resets = vec![0usize; keys];
    let mut last: Vec<Option<&Expiry>> = vec![None; keys];
    for x in trace.expirations() {
        if let Some(n) = resets.get_mut(x.key as usize) {
            *n += 1;
            last[x.key as usize] = Some(x);
        }
    }
    (0..keys)
        .map(|k| {
            let key = k as KeyId;
            let row = trace.window_row(WindowId::GLOBAL, Some(key), keys, truth);
            // After an expiry the key holds nothing until an event arrives at or after the
            // expiry's offset (the expiry runs before that event is placed).
            let live = match (last[k], last_arrival[k]) {
                (Some(x), Some(a)) => a >= x.offset,
                (Some(_), None) => false,
                (None, _) => true,
            };
            KeyState {
                key,
                value: if live { row.value } else { 0 },
                truth_so_far: seen[k],
                truth_at_end: truth
                    .get(&CellId {
                        window: WindowId::GLOBAL,
                        key,
                    })
                    .copied()
                    .unwrap_or(0) as i64,
                resets: resets[k],
                last_reset: last[k].map(|x| x.proc_time),
            }
        })
        .collect()
}
