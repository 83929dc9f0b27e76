//! `twoclocks report`: the seven blocks, their assembly and the experiment of a silent
//! partition on the classroom stream, with every figure computed by the engine (the partition
//! experiment by the parallel pipeline, the same incremental engine `run` drives). The figures
//! are gathered first ([`Figures`]), then written out ([`render`]), so tests can check either.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::engine::frontier::{FrontierPoint, Policy};
use crate::engine::pipeline::{Outage, Pipeline, PipelineConfig};
use crate::engine::DelayStats;
use crate::engine::Oracle;
use crate::engine::Processor;
use crate::engine::ScheduleStep;
use crate::engine::{
    Accumulation, CellId, Clock, EngineConfig, Job, Pane, Score, SinkKind, Stream, WatermarkKind,
    WindowFn,
};

/// Block 4's rows: (label, watermark, grace).
pub fn late_data_rows() -> [(&'static str, WatermarkKind, f64); 4] {
    [
        ("fixed 5s", WatermarkKind::Fixed { lag: 5_000.0 }, 0.0),
        ("fixed 20s", WatermarkKind::Fixed { lag: 20_000.0 }, 0.0),
        (
            "fixed 20s + 60s grace",
            WatermarkKind::Fixed { lag: 20_000.0 },
            60_000.0,
        ),
        ("perfect (oracle)", WatermarkKind::Perfect, 0.0),
    ]
}

/// Block 7's (lag, grace) pairs.
pub const FRONTIER_ROWS: [(f64, f64); 6] = [
    (2_000.0, 0.0),
    (10_000.0, 0.0),
    (30_000.0, 0.0),
    (90_000.0, 0.0),
    (10_000.0, 30_000.0),
    (10_000.0, 90_000.0),
];

/// One row of block 4 (late data): a watermark and grace setting and what it cost.
pub struct LateRow {
    /// The setting as the row names it (`fixed 20s + 60s grace`).
    pub label: &'static str,
    /// Events dropped as too late (behind watermark + grace).
    pub dropped: u64,
    /// The final values against the oracle: windows wrong, events lost, largest error.
    pub score: Score,
}

/// The silent partition's experiment: four partitions by index, two operators, instant
/// channels, fixed 20 s, grace 60 s; partition [`SILENT`] out from [`OUTAGE`].0 for
/// [`OUTAGE`].1 (processing time, ms). Its rows: without idleness, then with these idle
/// timeouts.
pub const PARTITION_ROWS: [Option<f64>; 2] = [None, Some(10_000.0)];
/// The partition that falls silent in the experiment.
pub const SILENT: usize = 1;
/// When it falls silent and for how long, ms.
pub const OUTAGE: (f64, f64) = (200_000.0, 90_000.0);

/// One row of the silent partition's experiment.
pub struct PartitionRow {
    /// The idle timeout (`None`: partitions never go idle).
    pub idle_timeout: Option<f64>,
    /// Events not counted: their window was past its grace when they came.
    pub dropped: u64,
    /// Events counted after their window had fired (within grace).
    pub late: u64,
    /// Windows the transactional sink holds wrong against the oracle.
    pub wrong: usize,
    /// The combined watermark's longest stall, ms.
    pub longest_stall: f64,
    /// The most open cells the operators held together.
    pub peak_cells: usize,
    /// The most state bytes they held together.
    pub peak_bytes: usize,
}

/// One sink of block 6: the sum of its values after the clean run and after the crashed one.
pub struct SinkRow {
    /// Which sink: additive, idempotent or transactional.
    pub kind: SinkKind,
    /// Sum of its values after the run without crashes.
    pub clean: i64,
    /// Sum of its values after the run with the reference's crashes.
    pub crashed: i64,
}

/// Every figure of the report.
pub struct Figures {
    /// Block 1: the delays (processing − event time) and the arrivals out of event-time order.
    pub stats: DelayStats,
    /// Block 1: the event-time span, ms: the latest event time rounded up to a whole minute.
    pub span: f64,
    /// Block 2: how many 60 s tumbling windows hold at least one event.
    pub windows: usize,
    /// Block 2: how many keys the stream has.
    pub keys: usize,
    /// Whether the stream is the classroom stream (the reference's).
    pub classroom: bool,
    /// The clock the stream's times are read on: a log on a wall clock has its times and
    /// delays written as dates and hours (`2013-01-01 05:15`, `14h 13m`).
    pub clock: Clock,
    /// Block 1: the earliest and latest event time, ms.
    pub event_times: (f64, f64),
    /// The key blocks 2 and 5 follow (`a`, or the stream's first key).
    pub key: String,
    /// Block 2: the oracle's counts for `key` in windows 0 to 3.
    pub oracle_a: Vec<u64>,
    /// Block 3: how far the perfect watermark lags, ms: the stream's largest delay.
    pub perfect_lag: f64,
    /// Block 3: (lag ms, % of events that arrive behind a fixed watermark of that lag), for lags
    /// of 5 s, 20 s and 60 s.
    pub behind: Vec<(f64, f64)>,
    /// Block 4: one row per setting of [`late_data_rows`].
    pub late_rows: Vec<LateRow>,
    /// Block 5: the oracle's count for window 3 and `key`.
    pub pane_truth: u64,
    /// Block 5: every pane of window 3 and `key` (fixed 20 s watermark, early panes every 15 s,
    /// accumulating, nothing dropped).
    pub panes: Vec<Pane>,
    /// Block 6: (window, key) cells with a final value after the clean run.
    pub clean_groups: usize,
    /// Block 6: the events those cells count.
    pub clean_events: u64,
    /// Block 6: (window, key) cells with a final value after the run with crashes.
    pub crashed_groups: usize,
    /// Block 6: the events those cells count.
    pub crashed_events: u64,
    /// Block 6: whether the crashed run's final values equal the clean run's.
    pub identical: bool,
    /// Block 6: how many times the job crashed (the reference's schedule).
    pub crashes: usize,
    /// Block 6: events processed twice, taken again from the restored source offsets after the
    /// crashes.
    pub replayed: usize,
    /// Block 6: each sink's sums, clean and crashed.
    pub sinks: Vec<SinkRow>,
    /// Block 7: one frontier point per (lag, grace) of [`FRONTIER_ROWS`].
    pub frontier: Vec<FrontierPoint>,
    /// The assembly: (name, role, frontier point) for each of the engine's policies.
    pub policies: Vec<(&'static str, &'static str, FrontierPoint)>,
    /// The silent partition's experiment, one row per [`PARTITION_ROWS`] entry.
    pub partitions: Vec<PartitionRow>,
}

/// One row of the silent partition's experiment, run by the pipeline to its end.
fn partition_row(
    stream: &Stream,
    truth: &BTreeMap<CellId, u64>,
    idle_timeout: Option<f64>,
) -> Option<PartitionRow> {
    let cfg = PipelineConfig {
        partitions: 4,
        parallelism: 2,
        transit: 0.0,
        idle_timeout,
        ..PipelineConfig::new(EngineConfig {
            window: WindowFn::Tumbling { size: W, offset: 0 },
            ..EngineConfig::fixed(20_000.0, 60_000.0)
        })
    };
    let outage = Outage {
        partition: SILENT,
        from: OUTAGE.0,
        until: OUTAGE.0 + OUTAGE.1,
    };
    let mut p = Pipeline::new(stream, cfg)
        .ok()?
        .with_outages(vec![outage])
        .ok()?;
    p.run_to_end();
    let c = p.counters();
    let stats = p.watermark_stats();
    // The job has finished: every window is final, so every cell that differs is wrong.
    let wrong = p
        .sink_scores(truth, |_| true)
        .into_iter()
        .find(|s| s.kind == SinkKind::Transactional)?
        .wrong;
    Some(PartitionRow {
        idle_timeout,
        dropped: c.dropped,
        late: c.late,
        wrong,
        longest_stall: stats.longest_stall,
        peak_cells: stats.peak_open_cells,
        peak_bytes: stats.peak_state_bytes,
    })
}

const W: i64 = 60_000;

/// Computes the report's figures on a stream (the classroom stream for the reference's).
pub fn figures(stream: &Stream) -> Option<Figures> {
    let stats = DelayStats::of(stream)?;
    let windows_fn = WindowFn::Tumbling { size: W, offset: 0 };
    let truth = Oracle::true_counts(stream, &windows_fn);
    let key_a = stream.key_id("a").unwrap_or(0);
    let windows: std::collections::BTreeSet<_> = truth.keys().map(|c| c.window).collect();
    let oracle_a = (0..4)
        .map(|w| {
            truth
                .get(&CellId {
                    window: windows_fn.at_index(w),
                    key: key_a,
                })
                .copied()
                .unwrap_or(0)
        })
        .collect();
    let span = stream
        .events
        .iter()
        .map(|e| e.event_time)
        .fold(0.0f64, f64::max);
    let span = (span / 60_000.0).ceil() * 60_000.0;
    let behind = [5_000.0, 20_000.0, 60_000.0]
        .iter()
        .map(|&lag| {
            (
                lag,
                100.0 * stream.behind_fixed_lag(lag) as f64 / stream.len() as f64,
            )
        })
        .collect();

    let late_rows = late_data_rows()
        .into_iter()
        .map(|(label, watermark, grace)| {
            let cfg = EngineConfig {
                watermark,
                grace,
                ..EngineConfig::fixed(0.0, 0.0)
            };
            let r = Processor::run(stream, cfg, false);
            LateRow {
                label,
                dropped: r.counters.dropped,
                score: Score::of(&r.finals, &truth),
            }
        })
        .collect();

    // Block 5: window 3, key a, fixed 20 s, early panes every 15 s, nothing dropped.
    let cell = CellId {
        window: windows_fn.at_index(3),
        key: key_a,
    };
    let cfg = EngineConfig {
        early: Some(15_000.0),
        accumulation: Accumulation::Accumulating,
        ..EngineConfig::fixed(20_000.0, f64::INFINITY)
    };
    let panes = Processor::run(stream, cfg, true)
        .output
        .panes
        .into_iter()
        .filter(|p| p.cell == cell)
        .collect();

    // Block 6: a job that keeps everything (the perfect watermark), clean and with the
    // reference's five crashes: the pipeline at width one, run by source offsets ([`Job`]).
    let cfg = EngineConfig {
        watermark: WatermarkKind::Perfect,
        ..EngineConfig::fixed(0.0, 0.0)
    };
    let mut clean = Job::new(stream, cfg, &SinkKind::ALL);
    clean.finish();
    let mut crashed = Job::new(stream, cfg, &SinkKind::ALL);
    crashed.run_schedule(&ScheduleStep::reference_schedule(stream.len()));
    let (cf, xf) = (clean.finals(), crashed.finals());
    let total = |m: &BTreeMap<CellId, i64>| m.values().sum::<i64>();
    let sinks = SinkKind::ALL
        .iter()
        .map(|&kind| SinkRow {
            kind,
            clean: clean.sink(kind).map_or(0, |s| total(&s.output())),
            crashed: crashed.sink(kind).map_or(0, |s| total(&s.output())),
        })
        .collect();

    let frontier = FRONTIER_ROWS
        .iter()
        .map(|&(lag, grace)| {
            FrontierPoint::run(stream, &truth, EngineConfig::fixed(lag, 0.0), lag, grace)
        })
        .collect();
    let policies = Policy::ALL
        .iter()
        .map(|p| {
            (
                p.name,
                p.role,
                FrontierPoint::run(
                    stream,
                    &truth,
                    EngineConfig::fixed(p.lag, 0.0),
                    p.lag,
                    p.grace,
                ),
            )
        })
        .collect();

    let partitions = PARTITION_ROWS
        .iter()
        .map(|&idle| partition_row(stream, &truth, idle))
        .collect::<Option<Vec<_>>>()?;

    Some(Figures {
        stats,
        span,
        windows: windows.len(),
        keys: stream.keys.len(),
        key: stream.key_name(key_a).to_string(),
        classroom: *stream == crate::engine::Stream::classroom(),
        clock: stream.clock.clone(),
        event_times: stream
            .events
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), e| {
                (lo.min(e.event_time), hi.max(e.event_time))
            }),
        oracle_a,
        perfect_lag: stream.max_delay(),
        behind,
        late_rows,
        pane_truth: truth.get(&cell).copied().unwrap_or(0),
        panes,
        clean_groups: cf.len(),
        clean_events: cf.values().sum(),
        crashed_groups: xf.len(),
        crashed_events: xf.values().sum(),
        identical: cf == xf,
        crashes: crashed.crashes().len(),
        replayed: crashed.crashes().iter().map(|c| c.replayed).sum(),
        sinks,
        frontier,
        policies,
        partitions,
    })
}

fn s(ms: f64) -> f64 {
    ms / 1000.0
}

/// The report as text.
pub fn render(f: &Figures) -> String {
    let mut o = String::new();
    let st = &f.stats;
    macro_rules! w { ($($t:tt)*) => {{ let _ = writeln!(o, $($t)*); }} }
    if f.classroom {
        w!("twoclocks — a stream processor in seven blocks, on the classroom stream");
    } else {
        w!(
            "twoclocks — a stream processor in seven blocks, on a stream of {} events (the reference's figures are for the classroom stream)",
            st.events
        );
    }
    w!();
    w!("[1] Two clocks: event time is when it happened, processing time is when we saw it");
    if f.clock.is_wall() {
        let duration = |ms: f64| {
            if ms == 0.0 {
                "0".to_string()
            } else {
                f.clock.duration(ms)
            }
        };
        w!(
            "  {} events with event times from {} to {} ({})",
            st.events,
            f.clock.at(f.event_times.0),
            f.clock.at(f.event_times.1),
            f.clock.zone().map_or("UTC".to_string(), |z| z.name())
        );
        w!(
            "  delay  p50 {}   p99 {}   max {}",
            duration(st.median),
            duration(st.p99),
            duration(st.max)
        );
    } else {
        w!(
            "  {} events with event times over {:.0}s",
            st.events,
            s(f.span)
        );
        w!(
            "  delay  p50 {:>6.2}s   p99 {:>6.2}s   max {:>6.2}s",
            s(st.median),
            s(st.p99),
            s(st.max)
        );
    }
    let pairs = st.events.saturating_sub(1);
    w!(
        "  {}/{} neighbouring arrivals are out of event-time order ({:.0}%)",
        st.out_of_order,
        pairs,
        100.0 * st.out_of_order as f64 / pairs.max(1) as f64
    );
    w!("  Arrival order tells you almost nothing about event order, and the slow tail is");
    w!("  where a 'nearly sorted' assumption silently loses data.");
    w!();
    w!("[2] Windowing: a window is chosen from the event time alone");
    w!(
        "  60s tumbling windows: {} windows x {} keys",
        f.windows,
        f.keys
    );
    w!(
        "  oracle counts, key {}, windows 0..3: {}",
        f.key,
        f.oracle_a
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(" ")
    );
    w!("  Replaying the same events in another arrival order gives the same windows: what");
    w!("  goes where is settled before the question of when to answer.");
    w!();
    w!("[3] Watermarks: a claim that the past is complete, which can be wrong");
    if f.clock.is_wall() {
        w!(
            "  perfect watermark lags by {} (the largest delay in the stream)",
            f.clock.duration(f.perfect_lag)
        );
    } else {
        w!(
            "  perfect watermark lags by {:>7.2}s (the largest delay in the stream)",
            s(f.perfect_lag)
        );
    }
    for (lag, pct) in &f.behind {
        w!(
            "  fixed lag {:>3.0}s: {:>5.1}% of events arrive behind it",
            s(*lag),
            pct
        );
    }
    w!("  A small lag is fast and often wrong; the perfect one is never wrong and 90s slow.");
    w!();
    w!("[4] Late data: completeness or latency, pick a point");
    w!(
        "  {:<26}{:>9}{:>15}{:>11}",
        "watermark",
        "dropped",
        "wrong windows",
        "max error"
    );
    for r in &f.late_rows {
        w!(
            "  {:<26}{:>9}{:>15}{:>11}",
            r.label,
            r.dropped,
            r.score.wrong_windows,
            r.score.max_error
        );
    }
    w!("  Grace buys back the tail at the price of keeping each window's state that much");
    w!("  longer: the memory bill for correctness, in plain sight.");
    w!();
    w!("[5] Triggers: one window answers several times");
    w!(
        "  window 3, key {} (fixed 20s, early every 15s); oracle {}",
        f.key,
        f.pane_truth
    );
    w!(
        "  {:<10}{:>12}{:>8}{:>11}",
        "pane",
        "proc time",
        "value",
        "vs oracle"
    );
    let n = f.panes.len();
    let shown: Vec<Option<&Pane>> = if n > 6 {
        f.panes[..4]
            .iter()
            .map(Some)
            .chain([None])
            .chain(f.panes[n - 2..].iter().map(Some))
            .collect()
    } else {
        f.panes.iter().map(Some).collect()
    };
    for p in shown {
        match p {
            None => w!("  ..."),
            Some(p) => w!(
                "  {:<10}{:>11.1}s{:>8}{:>+11}",
                p.timing.label(),
                s(p.proc_time),
                p.total,
                p.total as i64 - f.pane_truth as i64
            ),
        }
    }
    w!("  {n} panes for one window and key. Whoever consumes them must expect refinements:");
    w!("  retract the old value, or overwrite it by (window, key); adding them up is wrong.");
    w!();
    w!("[6] Checkpoint and replay: exactly-once is about effects");
    w!(
        "  clean run:       {} groups, {} events",
        f.clean_groups,
        f.clean_events
    );
    w!(
        "  after {} crashes: {} groups, {} events ({} events processed twice)",
        f.crashes,
        f.crashed_groups,
        f.crashed_events,
        f.replayed
    );
    w!("  identical: {}", if f.identical { "yes" } else { "NO" });
    w!("  sinks (sum of values)   clean   crashed");
    for r in &f.sinks {
        w!(
            "    {:<20}{:>8}{:>10}{}",
            r.kind.name(),
            r.clean,
            r.crashed,
            if r.clean == r.crashed {
                String::new()
            } else {
                format!("   {:+} from replayed panes", r.crashed - r.clean)
            }
        );
    }
    w!("  State and source offset are saved and restored as one; only a sink that overwrites");
    w!("  or commits with the checkpoint makes the world see each event once.");
    w!();
    w!("[7] The accuracy/latency frontier: measure the dial");
    w!(
        "  {:>7}{:>8}{:>17}{:>15}{:>13}",
        "lag",
        "grace",
        "emit delay",
        "windows wrong",
        "events lost"
    );
    for p in &f.frontier {
        w!(
            "  {:>6.0}s{:>7.0}s{:>16.0}s{:>15}{:>13}",
            s(p.lag),
            s(p.grace),
            s(p.emit_delay),
            p.score.wrong_windows,
            p.score.events_lost
        );
    }
    w!("  A final answer waits lag + grace. Lag 90s and lag 10s + grace 90s are equally right,");
    w!("  but only the second can also give an early answer after 10s: hence triggers.");
    w!();
    w!("The assembly: one pipeline, three policies");
    w!(
        "  {:<24}{:>12}{:>8}{:>7}{:>11}",
        "policy",
        "emit delay",
        "wrong",
        "lost",
        "accuracy"
    );
    for (name, role, p) in &f.policies {
        w!(
            "  {:<24}{:>11.0}s{:>8}{:>7}{:>10.2}%",
            format!("{name} ({role})"),
            s(p.emit_delay),
            p.score.wrong_windows,
            p.score.events_lost,
            p.score.accuracy()
        );
    }
    w!("  Same code and stream, three settings: correctness is a dial to set on purpose.");
    w!();
    w!("The silent partition: one source stalls the watermark");
    w!("  4 partitions (by index) -> 2 operators, fixed 20s, grace 60s, instant channels;");
    w!(
        "  partition {SILENT} delivers nothing from {:.0}s to {:.0}s, then all it held back",
        s(OUTAGE.0),
        s(OUTAGE.0 + OUTAGE.1)
    );
    w!(
        "  {:<18}{:>9}{:>7}{:>15}{:>15}{:>12}",
        "idleness",
        "dropped",
        "late",
        "wrong windows",
        "longest stall",
        "peak state"
    );
    for r in &f.partitions {
        w!(
            "  {:<18}{:>9}{:>7}{:>15}{:>14.1}s{:>12}",
            r.idle_timeout
                .map_or("none".to_string(), |t| format!("idle after {:.0}s", s(t))),
            r.dropped,
            r.late,
            r.wrong,
            s(r.longest_stall),
            format!("{} cells", r.peak_cells)
        );
    }
    w!("  Waiting for the silent partition holds every window open; idleness buys the latency");
    w!("  back at the price of completeness: its held-back events meet a watermark that moved on.");
    w!();
    w!("Beyond the seven blocks: session windows (run --session GAP), keyed state with a TTL");
    w!("(run --window global --ttl DUR), checkpoint barriers across parallel operators");
    w!("(run --partitions P --parallelism N); each scenario on its own: --scenario NAME.");
    o
}
