//! The sinks panel and the crash report. The sinks: additive, idempotent and transactional,
//! each with the total it holds, how many cells are wrong against the oracle (final and
//! different, or over it), how many are still open (short of it, their window not final) and
//! (transactional) what is staged, then the additive sink's over-count by cause and the
//! checkpoints completed (and those a crash abandoned, whose ids the completed ones skip). The
//! crash report, over the top of the plot until Esc closes it: what happened, in the past tense
//! ("crashed at 212.4 s; restored checkpoint #7 (taken at 200.0 s, source offsets …);
//! checkpoint #8, in flight, abandoned"), then the replay, as a
//! forecast while it runs ("will take 843 events again: 120 so far") and as done once over.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget, Wrap};

use twoclocks_engine::pipeline::CrashTarget;
use twoclocks_engine::trace::SinkReport;
use twoclocks_engine::SinkKind;

use crate::app::App;
use crate::theme::glyph;

/// A sink's short name, for narrow columns.
pub fn short_name(k: SinkKind) -> &'static str {
    match k {
        SinkKind::Additive => "add",
        SinkKind::Idempotent => "idem",
        SinkKind::Transactional => "txn",
    }
}

/// The sinks panel's lines for `report` in a panel `width` columns wide inside.
pub fn lines(app: &App, report: &SinkReport, width: u16) -> Vec<Line<'static>> {
    let t = &app.theme;
    // Column widths: the sink's name, its total, cells wrong, cells open, panes staged.
    let (nw, tw, ww, ow, sw) = match width {
        42.. => (14, 7, 7, 6, 8),
        37.. => (14, 5, 6, 5, 7),
        32.. => (5, 7, 7, 6, 7),
        _ => (5, 5, 6, 5, 7),
    };
    let short = nw < 14;
    let name = |k: SinkKind| -> &'static str {
        if short {
            short_name(k)
        } else {
            k.name()
        }
    };
    let mut v = vec![Line::from(Span::styled(
        format!(
            "{:<nw$}{:>tw$}{:>ww$}{:>ow$}{:>sw$}",
            "sink", "total", "wrong", "open", "staged"
        ),
        t.dim,
    ))];
    // Wrong: a cell over the oracle, or short of it once its window is final (red). Open: short
    // of it while the window can still take data, incomplete and not an error (neutral).
    for s in &report.scores {
        let staged = if s.kind == SinkKind::Transactional {
            s.staged.to_string()
        } else {
            String::new()
        };
        v.push(Line::from(vec![
            Span::styled(format!("{:<nw$}", name(s.kind)), t.key),
            Span::styled(format!("{:>tw$}", s.total), t.text),
            Span::styled(
                format!("{:>ww$}", s.wrong),
                if s.wrong == 0 { t.on_time } else { t.dropped },
            ),
            Span::styled(format!("{:>ow$}", s.open), t.dim),
            Span::styled(format!("{staged:>sw$}"), t.dim),
        ]));
    }
    // The additive sink against the idempotent one, by cause, as the engine splits it: panes
    // that carry a total added up (accumulating) or whose retraction is not taken off, and
    // panes a replay delivered again.
    let (over, panes) = (report.over, report.duplicate_panes);
    let total = over.readded + over.replayed;
    let style = |n: i64| if n == 0 { t.on_time } else { t.dropped };
    let over_line = |head: &str, readded: &str, replayed: &str, detail: bool| {
        let mut spans = vec![
            Span::styled(head.to_string(), t.text),
            Span::styled(format!("{total:+}"), style(total)),
        ];
        if !readded.is_empty() {
            spans.extend([
                Span::styled(" = ", t.dim),
                Span::styled(format!("{:+}", over.readded), style(over.readded)),
                Span::styled(format!(" {readded} "), t.dim),
                Span::styled(format!("{:+}", over.replayed), style(over.replayed)),
                Span::styled(format!(" {replayed}"), t.dim),
            ]);
        }
        if detail {
            spans.push(Span::styled(format!(" ({panes} panes)"), t.dim));
        }
        Line::from(spans)
    };
    v.push(super::fit(
        width,
        vec![
            over_line("additive over idem ", "panes re-added", "replayed", true),
            over_line("additive ", "panes re-added", "replayed", true),
            over_line("additive ", "re-added", "replayed", false),
            over_line("add ", "re-added", "replayed", false),
            over_line("add ", "re-add", "replay", false),
            // Under the rows add, idem, txn: the difference of the first two, by cause.
            over_line("", "re-add", "replay", false),
            over_line("additive over idem ", "", "", false),
        ],
    ));
    // Checkpoints completed; those a crash abandoned are said beside them, as they took ids
    // too (12 completed and 1 abandoned: the latest is #13).
    let tr = &app.trace();
    let (crashes, checkpoints) = (tr.crashes().len(), tr.checkpoints().len());
    let abandoned = tr.abandoned_checkpoints();
    // Narrow, the crashes go first (the crash report says them); the abandoned stay.
    let summary = |crash: bool, ckpts: (&str, &str), gone: &str| {
        let mut s = String::new();
        if crash {
            s.push_str(&format!(
                "{} · ",
                super::counted(crashes, "crash", "crashes")
            ));
        }
        s.push_str(&format!(
            "{} {}",
            super::counted(checkpoints, ckpts.0, ckpts.1),
            glyph::CHECKPOINT
        ));
        if abandoned > 0 && !gone.is_empty() {
            s.push_str(&format!(" · {abandoned} {gone}"));
        }
        Line::from(Span::styled(s, t.dim))
    };
    v.push(super::fit(
        width,
        vec![
            summary(true, ("checkpoint", "checkpoints"), "abandoned"),
            summary(true, ("ckpt", "ckpts"), "abandoned"),
            summary(false, ("ckpt", "ckpts"), "abandoned"),
            summary(true, ("ckpt", "ckpts"), ""),
        ],
    ));
    v
}

/// Draws the sinks panel into `area`, when the run has sinks (the parallel job).
pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let t = &app.theme;
    let Some(report) = app.trace().sinks(&app.scenario().oracle.truth) else {
        return;
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.border)
        .title(Line::from(vec![
            Span::styled(" Sinks ", t.title),
            Span::styled("· cells ≠ oracle ", t.dim),
        ]));
    let inner = block.inner(area);
    block.render(area, buf);
    super::text::lines(buf, inner, lines(app, &report, inner.width));
}

/// The crash report's lines, once the run has crashed (and until Esc closes the report);
/// `compact` leaves out when the restored checkpoint was taken and its source offsets.
pub fn crash_lines(app: &App, compact: bool) -> Option<Vec<Line<'static>>> {
    let t = &app.theme;
    let tr = &app.trace();
    let c = tr.last_crash()?;
    if tr.crashes().len() <= app.crash_closed {
        return None;
    }
    let who = match c.target {
        CrashTarget::Job => String::new(),
        CrashTarget::Operator(i) => format!("operator {i} "),
    };
    // `260.0 s` on a relative clock; a time of day on a wall clock.
    let at = |ms: f64| {
        if app.clock().is_wall() {
            app.clock().at_fit(ms, twoclocks_engine::clock::Fit::Time)
        } else {
            format!("{:.1} s", ms / 1000.0)
        }
    };
    let restored = match c.restored {
        Some(id) if compact => format!("restored checkpoint #{id}"),
        Some(id) => format!(
            "restored checkpoint #{id} (taken at {}, source offsets {})",
            at(c.restored_time),
            c.offsets
                .iter()
                .map(|o| o.to_string())
                .collect::<Vec<_>>()
                .join("/")
        ),
        None => "no checkpoint had completed: restarted from the start".to_string(),
    };
    // A checkpoint in flight is abandoned, its id with it: the next completed one skips it.
    let abandoned = match c.abandoned.as_slice() {
        [] => String::new(),
        [id] => format!("; checkpoint #{id}, in flight, abandoned"),
        ids => format!(
            "; checkpoints {}, in flight, abandoned",
            ids.iter()
                .map(|id| format!("#{id}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut v = vec![Line::from(vec![
        Span::styled(format!("{} ", glyph::CRASH), t.warn),
        Span::styled(
            format!(
                "{who}crashed at {}; {restored}{abandoned}; {} staged panes were lost",
                at(c.time),
                match c.staged_lost {
                    0 => "no".to_string(),
                    n => n.to_string(),
                }
            ),
            t.warn,
        ),
    ])];
    // What this crash adds to the additive sink's final total, as the engine finds it (the
    // figure `run` gives); said only where there is one.
    let over = tr.last_crash_excess();
    let replay = if tr.is_replaying() {
        let sink = match over {
            Some(0) => "; the additive sink will not go over".to_string(),
            Some(n) => format!("; the additive sink will end {n:+} over"),
            None => String::new(),
        };
        format!(
            "{} the replay will take {} events again ({} so far){sink}",
            glyph::REPLAYED,
            c.replayed,
            tr.redelivered(),
        )
    } else {
        let sink = match over {
            Some(0) => "; the additive sink did not go over".to_string(),
            Some(n) => format!("; the additive sink ended {n:+} over"),
            None => String::new(),
        };
        format!(
            "{} the replay took {} events again{sink}",
            glyph::REPLAYED,
            tr.redelivered(),
        )
    };
    v.push(Line::from(Span::styled(replay, t.policy)));
    Some(v)
}

/// Draws the crash report over the plot at `plot`: at its top, or at its bottom when the
/// playhead is under the top; boxed in a big plot, three bare lines in a small one.
pub fn render_crash(app: &App, plot: Rect, buf: &mut Buffer) {
    let t = &app.theme;
    let boxed = plot.height >= 20;
    let Some(mut lines) = crash_lines(app, !boxed) else {
        return;
    };
    let pad = if boxed { 4 } else { 2 };
    let text_w = usize::from(plot.width.saturating_sub(pad)).max(1);
    if !boxed {
        // No box, so no title: the last line itself says how to close it.
        if let Some(l) = lines.last_mut() {
            l.spans.push(Span::styled(" · Esc closes", t.key));
        }
    }
    // Rows as the paragraph wraps them: whole words, a word longer than a row cut.
    let wrapped = |l: &Line| {
        let text: String = l.spans.iter().map(|s| s.content.as_ref()).collect();
        let (mut rows, mut used) = (1, 0);
        for word in text.split_whitespace() {
            let n = Span::raw(word).width();
            if used > 0 && used + 1 + n > text_w {
                rows += 1;
                used = 0;
            }
            used += usize::from(used > 0) + n;
            rows += used.saturating_sub(1) / text_w;
            used = (used.saturating_sub(1) % text_w) + 1;
        }
        rows
    };
    let rows: usize = lines.iter().map(wrapped).sum();
    let h = (rows as u16 + if boxed { 2 } else { 0 }).min(plot.height.saturating_sub(2));
    let top = plot.y.saturating_add(1);
    let playhead = app
        .plot_frame(plot)
        .and_then(|f| f.row(app.playhead().now).map(|r| f.inner.y + r));
    let y = match playhead {
        Some(r) if r < top + h => plot.bottom().saturating_sub(h + 2),
        _ => top,
    };
    let area = Rect {
        x: plot.x.saturating_add(1),
        y,
        width: plot.width.saturating_sub(2),
        height: h,
    };
    if area.width < 4 || area.height < 1 || (boxed && area.height < 3) {
        return;
    }
    Clear.render(area, buf);
    // Cleared to the theme's own background (the light theme paints one).
    app.theme.paint(area, buf);
    let mut p = Paragraph::new(lines).wrap(Wrap { trim: true });
    if boxed {
        p = p.block(
            Block::default()
                .borders(Borders::ALL)
                .border_style(t.warn)
                .title(Span::styled(
                    format!(" Crash #{} · Esc closes ", app.trace().crashes().len()),
                    t.warn,
                )),
        );
    }
    p.render(area, buf);
}
