//! The watermark panel: processing time now, the watermark now, the gap between them with its
//! history as a sparkline, the watermark kind, and whether the simulation is playing (or a
//! restored job replaying). The watermark is the trace's (the job's: the smallest of its
//! operators'). The sparkline's scale is
//! a round number of seconds just above the largest gap it shows, and it says so ("gap
//! 0–30s"), so its bars are in proportion however tall the panel is.
//!
//! A job with two partitions or more draws lanes instead of the gap history: the combined
//! watermark's lag behind processing time (`all`, its gap over time) and each partition's, one row
//! each over the run's whole processing time (the columns keep their span as it plays; those not
//! reached yet are blank), a partition's outage (`▓`) and idle spans (`░`) marked, its watermark
//! now at the right. The lag's scale is fixed, the same for every run and every playhead so that
//! two runs and two moments compare: a bar a step taller for each of 1 s, 2 s, 5 s, 10 s, 20 s, 45
//! s, 90 s and beyond ([`lag_level`]), said in the legend. So the class sees one partition's
//! watermark freeze, the combined one's lag climb with it, and (with an idle timeout) the combined
//! one move on without it. Lanes that do not fit are counted in the legend.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Sparkline, Widget};

use twoclocks_engine::clock::{Clock, Fit};
use twoclocks_engine::WatermarkKind;

use crate::app::App;
use crate::geometry::Mode;

mod history;
mod lanes;

pub use history::WatermarkHistory;
pub use lanes::{watermark_lanes, Lane, LaneCell, LaneMark};

/// Round full scales for the gap's sparkline, s; beyond the last, whole multiples of it.
const SCALES_S: [u64; 14] = [1, 2, 5, 10, 15, 20, 30, 45, 60, 90, 120, 180, 300, 600];

/// The sparkline's full scale for a largest gap of `max` s: the first round number with a
/// fifth of headroom above it, so the tallest bar stands clear of the top.
pub fn gap_scale(max: u64) -> u64 {
    let want = max + max.div_ceil(5);
    let last = SCALES_S[SCALES_S.len() - 1];
    SCALES_S
        .iter()
        .copied()
        .find(|&s| s >= want)
        .unwrap_or_else(|| want.div_ceil(last).saturating_mul(last))
}

/// "▶ playing 10×", "‖ paused 10×" or "■ end of input"; a live input's "▶ live" while the
/// playhead follows its edge.
pub fn status(app: &App) -> String {
    let speed = format!("{}×", app.dials().speed);
    if app.playhead().finished {
        "■ end of input".to_string()
    } else if app.trace().is_replaying() {
        let verb = if app.playing {
            "replaying"
        } else {
            "replay paused"
        };
        format!("↺ {verb} {speed}")
    } else if app.playing && app.at_live_edge() {
        "▶ live".to_string()
    } else if app.playing {
        format!("▶ playing {speed}")
    } else {
        format!("‖ paused {speed}")
    }
}

/// The watermark now: the run's.
pub fn watermark_now(app: &App) -> f64 {
    app.trace().watermark()
}

fn gap(app: &App) -> String {
    let wm = watermark_now(app);
    if wm.is_infinite() {
        "—".to_string()
    } else {
        crate::view::duration(app.clock(), app.playhead().now - wm)
    }
}

/// The playhead's time as the panel writes it: to the second on a wall clock, whose playback
/// moves it by fractions of a second a frame (`06:11:51`, not `06:11:51.708`).
fn shown_now(app: &App) -> f64 {
    let now = app.playhead().now;
    if app.clock().is_wall() {
        (now / 1000.0).floor() * 1000.0
    } else {
        now
    }
}

/// How far a wall-clock log's watermark runs ahead of processing time, when it does: most
/// events arrived before they happened (early departures, or clocks that disagree), so a
/// watermark that follows their delays (the heuristic's quantile of them, negative) or their
/// event times (the bounded one) passes the time they arrive at. Events arriving then may find
/// their window closed by a watermark that is ahead of the clock.
fn ahead(app: &App) -> Option<String> {
    let by = watermark_now(app) - app.playhead().now;
    (app.clock().is_wall() && by.is_finite() && by > 0.0)
        .then(|| crate::view::duration(app.clock(), by))
}

/// After a crash, while processing time is back before the crash: the crash's time (the job
/// replays from its checkpoint, so its clock went back).
pub fn rewound_from(app: &App) -> Option<f64> {
    let c = app.trace().last_crash()?;
    (app.playhead().now < c.time).then_some(c.time)
}

/// The panel's text lines for an inner area `width` columns wide.
pub fn lines(app: &App, width: u16, mode: Mode) -> Vec<Line<'static>> {
    let t = &app.theme;
    let wm = watermark_now(app);
    let kind = WatermarkText(app.dials().watermark(), app.clock());
    // Instants on the stream's clock: a wall clock's with the date where the rows are long.
    let day = match mode {
        Mode::Full => Fit::Date,
        Mode::Compact => Fit::Day,
    };
    let secs = |ms: f64| app.clock().at_fit(ms, day);
    let now = secs(shown_now(app));
    let fit = |v: Vec<Line<'static>>| super::fit(width, v);
    let rewound = rewound_from(app).map(secs);
    match mode {
        Mode::Full => {
            let mut v = vec![Line::from(Span::styled(status(app), t.key))];
            v.push(match &rewound {
                Some(from) => fit(vec![
                    Line::from(vec![
                        Span::styled("now        ", t.dim),
                        Span::styled(now.clone(), t.text),
                        Span::styled(format!("  ↺ back from {from}"), t.policy),
                    ]),
                    Line::from(vec![
                        Span::styled("now ", t.dim),
                        Span::styled(now.clone(), t.text),
                        Span::styled(format!(" ↺ back from {from}"), t.policy),
                    ]),
                ]),
                None => fit(vec![
                    Line::from(vec![
                        Span::styled("now        ", t.dim),
                        Span::styled(now.clone(), t.text),
                        Span::styled("  processing time", t.dim),
                    ]),
                    Line::from(vec![
                        Span::styled("now        ", t.dim),
                        Span::styled(now.clone(), t.text),
                    ]),
                ]),
            });
            v.push(fit(vec![
                Line::from(vec![
                    Span::styled("watermark  ", t.dim),
                    Span::styled(secs(wm), t.watermark),
                    Span::styled(format!("  {kind}"), t.dim),
                ]),
                Line::from(vec![
                    Span::styled("watermark  ", t.dim),
                    Span::styled(secs(wm), t.watermark),
                    Span::styled(format!("  {}", kind.family()), t.dim),
                ]),
            ]));
            v.push(Line::from(vec![
                Span::styled("gap        ", t.dim),
                Span::styled(gap(app), t.text),
            ]));
            if let Some(ahead) = ahead(app) {
                v.push(fit(vec![
                    Line::from(Span::styled(
                        format!("ahead of now by {ahead}: events arrive early"),
                        t.late,
                    )),
                    Line::from(Span::styled(
                        format!("{ahead} ahead: events arrive early"),
                        t.late,
                    )),
                    Line::from(Span::styled("ahead: events arrive early", t.late)),
                ]));
            }
            v
        }
        Mode::Compact => {
            let first = match &rewound {
                Some(from) => fit(vec![
                    Line::from(vec![
                        Span::styled(status(app), t.key),
                        Span::styled(" now ", t.dim),
                        Span::styled(now.clone(), t.text),
                        Span::styled(format!(" ↺ back from {from}"), t.policy),
                    ]),
                    Line::from(vec![
                        Span::styled("now ", t.dim),
                        Span::styled(now.clone(), t.text),
                        Span::styled(format!(" ↺ back from {from}"), t.policy),
                    ]),
                    Line::from(vec![
                        Span::styled(now.clone(), t.text),
                        Span::styled(format!(" ↺ back from {from}"), t.policy),
                    ]),
                ]),
                None => fit(vec![
                    Line::from(vec![
                        Span::styled(status(app), t.key),
                        Span::styled(" now ", t.dim),
                        Span::styled(now.clone(), t.text),
                    ]),
                    Line::from(vec![
                        Span::styled(status(app), t.key),
                        Span::styled(" ", t.dim),
                        Span::styled(now.clone(), t.text),
                    ]),
                    // A wall clock's time of day alone (the plot's title has the date).
                    Line::from(vec![
                        Span::styled(status(app), t.key),
                        Span::styled(" ", t.dim),
                        Span::styled(app.clock().at_fit(shown_now(app), Fit::Time), t.text),
                    ]),
                ]),
            };
            let second = |kind: String| {
                let mut spans = vec![
                    Span::styled("wm ", t.dim),
                    Span::styled(secs(wm), t.watermark),
                    Span::styled(" gap ", t.dim),
                    Span::styled(gap(app), t.text),
                ];
                if !kind.is_empty() {
                    spans.push(Span::styled(format!(" {kind}"), t.dim));
                }
                Line::from(spans)
            };
            // A watermark ahead of processing time says so in place of its kind.
            let early = |words: &str| {
                Line::from(vec![
                    Span::styled("wm ", t.dim),
                    Span::styled(secs(wm), t.watermark),
                    Span::styled(words.to_string(), t.late),
                ])
            };
            if let Some(ahead) = ahead(app) {
                return vec![
                    first,
                    fit(vec![
                        early(&format!(" {ahead} ahead: events early")),
                        early(&format!(" {ahead} ahead")),
                        early(" ahead"),
                    ]),
                ];
            }
            vec![
                first,
                fit(vec![
                    second(kind.to_string()),
                    second(kind.family().to_string()),
                    second(String::new()),
                ]),
            ]
        }
    }
}

/// The whole panel on one line (compact job mode at its smallest): the status's glyph, the speed,
/// now, the watermark and the gap, as much as fits (the gap before the glyph); after a crash, while
/// the clock is back before it, now and where it went back from first.
pub fn one_line(app: &App, width: u16) -> Line<'static> {
    let t = &app.theme;
    let secs = |ms: f64| app.clock().at_fit(ms, Fit::Day);
    if let Some(from) = rewound_from(app).map(secs) {
        let now = secs(shown_now(app));
        let back = |wm: bool| {
            let mut v = vec![
                Span::styled(now.clone(), t.text),
                Span::styled(format!(" ↺ back from {from}"), t.policy),
            ];
            if wm {
                v.push(Span::styled(" wm ", t.dim));
                v.push(Span::styled(secs(watermark_now(app)), t.watermark));
            }
            Line::from(v)
        };
        return super::fit(width, vec![back(true), back(false)]);
    }
    let status = status(app);
    let glyph: String = status.chars().take(1).collect();
    let speed = format!("{}×", app.dials().speed);
    let (now, wm, gap) = (secs(shown_now(app)), secs(watermark_now(app)), gap(app));
    let tail = |with_gap: bool| {
        let mut v = vec![
            Span::styled(now.clone(), t.text),
            Span::styled(" wm ", t.dim),
            Span::styled(wm.clone(), t.watermark),
        ];
        if with_gap {
            v.push(Span::styled(" gap ", t.dim));
            v.push(Span::styled(gap.clone(), t.text));
        }
        v
    };
    let with = |head: Vec<Span<'static>>, with_gap: bool| {
        let mut v = head;
        v.extend(tail(with_gap));
        Line::from(v)
    };
    super::fit(
        width,
        vec![
            with(vec![Span::styled(format!("{glyph} {speed} "), t.key)], true),
            with(vec![Span::styled(format!("{glyph} "), t.key)], true),
            with(Vec::new(), true),
            with(vec![Span::styled(format!("{glyph} "), t.key)], false),
        ],
    )
}

/// Draws the watermark panel into `area`, and with rows to spare the gap's history as a
/// sparkline under its scale (a job with partitions: the watermark lanes).
pub fn render(app: &App, area: Rect, buf: &mut Buffer, mode: Mode) {
    let t = &app.theme;
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.border)
        .title(Span::styled(" Watermark ", t.title));
    let inner = block.inner(area);
    block.render(area, buf);
    if inner.height == 1 {
        super::text::lines(buf, inner, vec![one_line(app, inner.width)]);
        return;
    }
    let partitions = app.trace().pipeline_config().map_or(0, |c| c.partitions);
    if partitions >= 2 && inner.height >= 4 {
        render_lanes(app, inner, buf, partitions);
        return;
    }
    // The compact form only when the rows are short: with room, one quantity per line.
    let mode = if inner.height >= 6 { Mode::Full } else { mode };
    let lines = lines(app, inner.width, mode);
    let n = (lines.len() as u16).min(inner.height);
    super::text::lines(buf, inner, lines);
    // Rows left over show the gap's history (in the compact layout too, when it has them),
    // under its scale; a single row has the scale on its left. Nothing before the first
    // arrival, when there is no gap to scale.
    if inner.height > n && app.playhead().arrived > 0 {
        let mut spark = Rect {
            y: inner.y + n,
            height: inner.height - n,
            ..inner
        };
        let probe = gap_history(app, spark.width as usize);
        let top = gap_scale(probe.iter().copied().max().unwrap_or(0));
        // The scale in seconds (`0–60s`), or on a wall clock in its units (`0–1h 40m`).
        let scale = if app.clock().is_wall() {
            crate::view::duration(app.clock(), top as f64 * 1000.0)
        } else {
            format!("{top}s")
        };
        let label = |long: bool| {
            if long {
                format!("gap history, 0–{scale}")
            } else {
                format!("gap 0–{scale} ")
            }
        };
        if spark.height >= 2 {
            let long = label(true);
            let s = if long.chars().count() <= usize::from(spark.width) {
                long
            } else {
                label(false).trim_end().to_string()
            };
            super::text::string(buf, spark.x, spark.y, s, spark.width, t.dim);
            spark.y += 1;
            spark.height -= 1;
        } else {
            let s = label(false);
            let w = (s.chars().count() as u16).min(spark.width);
            if w + 8 <= spark.width {
                super::text::string(buf, spark.x, spark.y, s, w, t.dim);
                spark.x += w;
                spark.width -= w;
            }
        }
        let data = gap_history(app, spark.width as usize);
        Sparkline::default()
            .data(&data)
            .max(top)
            .style(t.watermark)
            .render(spark, buf);
    }
}

/// The gap (processing time − watermark, whole seconds) sampled at `n` evenly spaced points of
/// the watermark's history (a single run's arrivals, a parallel run's samples), the last one
/// the gap now, as the panel's `gap` line says it (the clock runs on between arrivals).
pub fn gap_history(app: &App, n: usize) -> Vec<u64> {
    let mut v = sampled_gaps(app, n);
    let now = (app.playhead().now - app.trace().watermark()) / 1000.0;
    if let (Some(last), true) = (v.last_mut(), now.is_finite() && now > 0.0) {
        *last = now.round() as u64;
    }
    v
}

fn sampled_gaps(app: &App, n: usize) -> Vec<u64> {
    let history = WatermarkHistory::of(app.trace());
    let m = history.len();
    if m == 0 || n == 0 {
        return Vec::new();
    }
    (0..n.min(m))
        .map(|i| {
            let j = ((i + 1) * m / n.min(m)).saturating_sub(1).min(m - 1);
            let (t, wm) = history.get(j).unwrap_or((0.0, 0.0));
            let g = (t - wm) / 1000.0;
            if g.is_finite() && g > 0.0 {
                g.round() as u64
            } else {
                0
            }
        })
        .collect()
}

/// The label column of a lane ("all", "p0", …) and the value column (its watermark now).
const LANE_LABEL: u16 = 4;
const LANE_VALUE: u16 = 8;

/// Bars for a lag of 0 to 8 eighths of the scale.
const BARS: [char; 9] = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
/// The lag (s) at or under which a lane's bar is each height, lowest first: a bar a step
/// taller per step (a doubling, roughly), the last for any lag beyond the one before.
pub const LAG_STEPS_S: [f64; 8] = [1.0, 2.0, 5.0, 10.0, 20.0, 45.0, 90.0, f64::INFINITY];

/// The bar height (1 to 8 eighths) for a lag of `lag` ms on the lanes' fixed scale.
pub fn lag_level(lag: f64) -> usize {
    let s = lag / 1000.0;
    1 + LAG_STEPS_S
        .iter()
        .take_while(|&&step| s > step)
        .count()
        .min(7)
}

/// A partition's column while it was cut off, and while it was idle.
pub const OUT: char = '▓';
/// A partition's column while it was idle (operators left it out of their watermark).
pub const IDLE: char = '░';

/// The header, a legend with the lanes' scale, then the combined lane and as many
/// partitions' lanes as fit.
fn render_lanes(app: &App, inner: Rect, buf: &mut Buffer, partitions: usize) {
    let t = &app.theme;
    let total = partitions + 1;
    // With room for every lane, one quantity per line; otherwise the two-line header.
    let mode = if usize::from(inner.height) >= 4 + 1 + total {
        Mode::Full
    } else {
        Mode::Compact
    };
    let head = lines(app, inner.width, mode);
    let n = (head.len() as u16).min(inner.height);
    super::text::lines(buf, inner, head);
    let rows = usize::from(inner.height - n).saturating_sub(1);
    let spark_w = inner.width.saturating_sub(LANE_LABEL + LANE_VALUE);
    let lanes = watermark_lanes(app.trace(), usize::from(spark_w));
    let shown = rows.min(total);
    let hidden = total - shown;
    let more = if hidden > 0 {
        format!(" · {hidden} more not shown")
    } else {
        String::new()
    };
    let legend = super::fit(
        inner.width,
        vec![
            Line::from(vec![
                Span::styled("lag behind now ", t.dim),
                Span::styled(
                    format!("{}1s {}10s {}90s+  ", BARS[1], BARS[4], BARS[8]),
                    t.watermark,
                ),
                Span::styled(format!("{OUT} out "), t.dropped),
                Span::styled(format!("{IDLE} idle"), t.late),
                Span::styled(more.clone(), t.dim),
            ]),
            Line::from(vec![
                Span::styled("lag ", t.dim),
                Span::styled(
                    format!("{}1s {}10s {}90s+ ", BARS[1], BARS[4], BARS[8]),
                    t.watermark,
                ),
                Span::styled(format!("{OUT} out "), t.dropped),
                Span::styled(format!("{IDLE} idle"), t.late),
                Span::styled(more.clone(), t.dim),
            ]),
            Line::from(vec![
                Span::styled("lag ", t.dim),
                Span::styled(format!("{}1s {}90s+ ", BARS[1], BARS[8]), t.watermark),
                Span::styled(format!("{OUT} out "), t.dropped),
                Span::styled(format!("{IDLE} idle"), t.late),
                Span::styled(format!(" +{hidden}"), t.dim),
            ]),
            Line::from(vec![
                Span::styled(format!("{}1s {}90s+ ", BARS[1], BARS[8]), t.watermark),
                Span::styled(format!("{OUT} out "), t.dropped),
                Span::styled(format!("{IDLE} idle"), t.late),
                Span::styled(format!(" +{hidden}"), t.dim),
            ]),
        ],
    );
    let y = inner.y + n;
    if y >= inner.bottom() {
        return;
    }
    super::text::lines(
        buf,
        Rect {
            y,
            height: 1,
            ..inner
        },
        vec![legend],
    );
    for (i, lane) in lanes.iter().take(shown).enumerate() {
        let row = y + 1 + i as u16;
        if row >= inner.bottom() {
            break;
        }
        draw_lane(
            app,
            lane,
            Rect {
                y: row,
                height: 1,
                ..inner
            },
            buf,
        );
    }
}

/// One lane on one row: its label, a bar per column (its lag on the fixed scale, or its
/// outage or idle mark) and its watermark now.
fn draw_lane(app: &App, lane: &Lane, row: Rect, buf: &mut Buffer) {
    let t = &app.theme;
    let now_style = match lane.now {
        LaneMark::Out => t.dropped,
        LaneMark::Idle => t.late,
        LaneMark::Flowing => t.watermark,
    };
    let (label, label_style) = match lane.partition {
        Some(p) => (format!("p{p}"), now_style),
        None => ("all".to_string(), t.key),
    };
    super::text::string(buf, row.x, row.y, label, LANE_LABEL - 1, label_style);
    let x0 = row.x + LANE_LABEL;
    for (k, c) in lane.cells.iter().enumerate() {
        let x = x0 + k as u16;
        if x >= row.right().saturating_sub(LANE_VALUE) {
            break;
        }
        let (g, s) = match c.mark {
            LaneMark::Out => (OUT, t.dropped),
            LaneMark::Idle => (IDLE, t.late),
            LaneMark::Flowing => match c.lag {
                Some(lag) => (BARS[lag_level(lag)], t.watermark),
                None => (' ', t.dim),
            },
        };
        if let Some(cell) = buf.cell_mut((x, row.y)) {
            cell.set_char(g).set_style(s);
        }
    }
    let value = match (lane.now, lane.watermark) {
        (_, Some(wm)) => app.clock().at_fit(wm, Fit::Minute),
        (LaneMark::Out, None) => "out".to_string(),
        _ => "—".to_string(),
    };
    let value_style = if lane.partition.is_none() && app.trace().watermark_stall().is_some() {
        t.warn
    } else {
        now_style
    };
    let vx = row.right().saturating_sub(LANE_VALUE - 1);
    super::text::string(
        buf,
        vx,
        row.y,
        format!("{value:>7}"),
        LANE_VALUE - 1,
        value_style,
    );
}

/// A watermark generator as the panel names it: as the engine writes it (`fixed:20s`), its lag
/// on a wall clock in hours and minutes (`fixed:2h 30m`).
struct WatermarkText<'a>(WatermarkKind, &'a Clock);

impl WatermarkText<'_> {
    /// The family's name alone (`fixed`).
    fn family(&self) -> &'static str {
        self.0.family()
    }
}

impl std::fmt::Display for WatermarkText<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0.lag() {
            Some(lag) if self.1.is_wall() => {
                write!(f, "{}:{}", self.0.family(), self.1.duration(lag))
            }
            _ => write!(f, "{}", self.0),
        }
    }
}
