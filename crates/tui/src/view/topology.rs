//! The topology panel: the parallel job as the pipeline sees it now. One row per source
//! partition (offset, watermark, replaying), one per operator instance with its input channels
//! (records in flight, a barrier ┃ and its checkpoint, ‖ when the aligning operator holds the
//! input back) and its channel to the sink, and whether it is aligning (◷) or has snapshotted
//! (✓); then the sink (aligning, panes since the last checkpoint) and the latest checkpoint.
//! The operator picked to crash (`C`, or a click on its row) is highlighted, `← c` after it;
//! the partition `p` cuts off or heals (`P`) likewise, `← p` after it. A source cut off says
//! `out since` when; one that marked itself idle, `idle`; while the job's combined watermark
//! has not advanced, the bottom border says for how long (`wm stalled`).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Widget};

use twoclocks_engine::clock::Fit;
use twoclocks_engine::duration::Duration;
use twoclocks_engine::frontier::slack::StateCost;
use twoclocks_engine::pipeline::{ChannelView, Topology};

use crate::app::App;
use crate::theme::{glyph, Theme};

/// Columns of a channel's cell.
const CELL: usize = 8;

/// A channel in one cell of `cell` columns: records in flight, its first barrier (its number
/// when there is room), whether it is held back.
fn channel_cell(t: &Theme, ch: Option<&ChannelView>, cell: usize) -> Vec<Span<'static>> {
    let Some(ch) = ch else {
        return vec![Span::raw(" ".repeat(cell))];
    };
    let msgs = ch.records + ch.panes;
    let count = format!("{msgs:>3}");
    let mut used = count.chars().count();
    let mut v = vec![Span::styled(count, if msgs > 0 { t.text } else { t.dim })];
    if let Some(b) = ch.barriers.first() {
        let more = if ch.barriers.len() > 1 { "+" } else { "" };
        let room = cell.saturating_sub(used + usize::from(ch.blocked));
        let s = [
            format!(" ┃{}{more}", b.checkpoint),
            " ┃".to_string(),
            "┃".to_string(),
        ]
        .into_iter()
        .find(|s| s.chars().count() <= room)
        .unwrap_or_default();
        used += s.chars().count();
        v.push(Span::styled(s, t.key));
    }
    if ch.blocked {
        v.push(Span::styled("‖", t.warn));
        used += 1;
    }
    v.push(Span::raw(" ".repeat(cell.saturating_sub(used))));
    v
}

/// The columns of one channel's cell: as wide as the panel allows for its columns (the
/// partitions shown and the sink) beside the operator's name and a short status.
fn cell_width(width: u16, columns: usize) -> usize {
    (usize::from(width).saturating_sub(4 + 4) / columns.max(1)).clamp(6, CELL)
}

/// The panel's lines for `topo` in an inner area `width` columns wide.
pub fn lines(app: &App, topo: &Topology, width: u16) -> Vec<Line<'static>> {
    let t = &app.theme;
    let (np, nn) = (topo.sources.len(), topo.operators.len());
    let mut v = Vec::new();
    let parts = app.trace().partitions();
    for s in &topo.sources {
        let picked = app.partition_pick == Some(s.partition);
        let name = Span::styled(
            format!("s{:<3}", s.partition),
            if picked { t.focus } else { t.key },
        );
        let wm = Span::styled(
            format!(" wm {}", app.clock().at_fit(s.watermark, Fit::Time)),
            t.watermark,
        );
        let long = Span::styled(format!("{:>5}/{:<5}", s.offset, s.len), t.text);
        let short = Span::styled(format!("{:>5}", s.offset), t.text);
        let status: Option<Span<'static>> = if let Some(from) = app.trace().out_since(s.partition) {
            Some(Span::styled(
                format!(" out since {}", app.clock().at_fit(from, Fit::Time)),
                t.warn,
            ))
        } else if parts.get(s.partition).is_some_and(|p| p.is_idle) {
            Some(Span::styled(" idle", t.late))
        } else if s.replaying {
            Some(Span::styled(
                format!(" {} replaying", glyph::REPLAYED),
                t.policy,
            ))
        } else if s.ended {
            Some(Span::styled(" ended", t.dim))
        } else {
            None
        };
        let mark = picked.then(|| Span::styled(" ← p", t.warn));
        let line = |offset: &Span<'static>, marked: bool| {
            let mut spans = vec![name.clone(), offset.clone(), wm.clone()];
            spans.extend(status.clone());
            if marked {
                spans.extend(mark.clone());
            }
            Line::from(spans)
        };
        v.push(super::fit(
            width,
            vec![
                line(&long, true),
                line(&long, false),
                line(&short, true),
                line(&short, false),
            ],
        ));
    }
    let cell = cell_width(width, np.min(4) + 1);
    let mut head = format!("{:<4}", "op");
    for p in 0..np.min(4) {
        head.push_str(&format!("{:<cell$}", format!(" ← s{p}")));
    }
    let sink = if cell > 7 { " → sink" } else { " →sink" };
    head.push_str(&format!("{sink:<cell$}"));
    v.push(Line::from(Span::styled(head, t.dim)));
    for op in &topo.operators {
        let picked = app.crash_pick == Some(op.instance);
        let name = if picked { t.focus } else { t.key };
        let mut spans = vec![Span::styled(format!("op{:<2}", op.instance), name)];
        for p in 0..np.min(4) {
            spans.extend(channel_cell(
                t,
                topo.source_to_operator(p, op.instance),
                cell,
            ));
        }
        spans.extend(channel_cell(t, topo.operator_to_sink(op.instance), cell));
        // The status in words, then in glyphs for a panel too narrow for the words.
        let (status, short, style): (String, String, Style) = if op.finished {
            ("■ done".into(), "■".into(), t.dim)
        } else if let Some((k, arrived, _)) = &op.aligning {
            (
                format!("◷ #{k} {}/{np}", arrived.len()),
                format!("◷{k}"),
                t.late,
            )
        } else if let Some(k) = op.last_snapshot {
            (format!("✓ #{k}"), format!("✓{k}"), t.on_time)
        } else {
            ("running".into(), "run".into(), t.dim)
        };
        let row = |status: String| {
            let mut spans = spans.clone();
            spans.push(Span::styled(status, style));
            if picked {
                spans.push(Span::styled(" ← c", t.warn));
            }
            Line::from(spans)
        };
        v.push(super::fit(width, vec![row(status), row(short)]));
    }
    let sink = &topo.sink;
    let sink_line = |aligning: bool, since: bool| {
        let mut spans = vec![
            Span::styled("sink ", t.key),
            Span::styled(format!("{} panes in", sink.received), t.text),
        ];
        if let Some((k, arrived)) = sink.aligning.as_ref().filter(|_| aligning) {
            spans.push(Span::styled(
                format!(" · ◷ #{k} {}/{nn}", arrived.len()),
                t.late,
            ));
        }
        if since {
            spans.push(Span::styled(
                format!(" · {} since ✓", sink.since_checkpoint),
                t.dim,
            ));
        }
        Line::from(spans)
    };
    v.push(super::fit(
        width,
        vec![
            sink_line(true, true),
            sink_line(true, false),
            sink_line(false, false),
        ],
    ));
    let pending = topo.pending_checkpoints.first();
    let ckpt_line = |copied: bool, in_flight: &str| {
        let mut spans = vec![Span::styled("ckpt ", t.key)];
        match app.trace().last_checkpoint() {
            Some(c) => {
                let mut s = format!(
                    "{} #{} at {}",
                    glyph::CHECKPOINT,
                    c.id,
                    app.clock().at_fit(c.time, Fit::Time)
                );
                if copied {
                    s.push_str(&format!(" · {} copied", StateCost::bytes(c.bytes)));
                }
                spans.push(Span::styled(s, t.text));
            }
            None => spans.push(Span::styled("none completed yet", t.dim)),
        }
        if let Some(k) = pending {
            spans.push(Span::styled(format!(" · #{k} {in_flight}"), t.late));
        }
        Line::from(spans)
    };
    v.push(super::fit(
        width,
        vec![
            ckpt_line(true, "in flight"),
            ckpt_line(false, "in flight"),
            ckpt_line(false, "◷"),
        ],
    ));
    v
}

/// Draws the topology panel into `area`, when the run is the parallel job: titled with its
/// shape and checkpoint interval.
pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let t = &app.theme;
    let (Some(topo), Some(cfg)) = (app.trace().topology(), app.trace().pipeline_config()) else {
        return;
    };
    let every = cfg.checkpoint_every.map_or("on x".into(), Duration::short);
    let mut block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.border)
        .title(Line::from(vec![
            Span::styled(" Topology ", t.title),
            Span::styled(
                format!(
                    "· {} → {} → sink · ckpt {every} ",
                    cfg.partitions, cfg.parallelism
                ),
                t.dim,
            ),
        ]));
    if let Some(d) = app.trace().watermark_stall() {
        block = block.title_bottom(
            Line::from(Span::styled(
                format!(" wm stalled {} ", crate::view::duration(app.clock(), d)),
                t.warn,
            ))
            .right_aligned(),
        );
    }
    let inner = block.inner(area);
    block.render(area, buf);
    super::text::lines(buf, inner, lines(app, &topo, inner.width));
}
