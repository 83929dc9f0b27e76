//! One log, three routes, the same panes: the processor (`run` with its built-in trigger), the
//! trigger route (`run --trigger`, [`TriggeredRun::new`](triggered::TriggeredRun::new), with the
//! expression the built-in trigger is: `AfterWatermark(late=AfterCount(1))` or Beam's
//! `DefaultTrigger`, and `AfterWatermark()` under Kafka Streams' rules) and a script replay (one
//! [`Driver`] per key fed the log's rows as `tests/real_engines/` feeds the engines: each row, then
//! the watermark after it) give the same panes — key, window, timing, index, nonspeculative index,
//! is_first, is_last, the elements' count — and drop the same rows, under every convention.
//!
//! The logs are small and on a coarse grid (seconds, or a millisecond either side), so that
//! ties, touching sessions, window ends and end + allowed lateness (± 1) are hit often.

use std::collections::BTreeMap;

use proptest::prelude::*;
use twoclocks::engine::script::{Driver, Script, ScriptPane, ScriptWindows};
use twoclocks::engine::trigger::{
    Accumulation, ClosingBehavior, EmptyPanes, OnTimeBehavior, TimestampCombiner, Timing, Trigger,
};
use twoclocks::engine::triggered;
use twoclocks::engine::window::{WindowFn, WindowId};
use twoclocks::engine::Conventions;
use twoclocks::engine::EngineConfig;
use twoclocks::engine::{Event, Stream};
use twoclocks::engine::{Watermark, WatermarkKind};

/// A pane as every route can say it: timing, index, nonspeculative index, is_first, is_last,
/// the elements it carries.
type Said = (Timing, u32, i64, bool, bool, u64);

/// Each (key, window)'s panes in the order it emitted them, and the dropped (row, window).
#[derive(Debug, PartialEq, Default)]
struct Answer {
    panes: BTreeMap<(u32, i64, i64), Vec<Said>>,
    dropped: Vec<(usize, i64, i64)>,
}

impl Answer {
    fn pane(&mut self, key: u32, w: WindowId, said: Said) {
        // The global window: the processor's spans every millisecond, the script driver's is
        // Beam's, ending a day before the end of time.
        let w = if w == Script::GLOBAL {
            WindowId::GLOBAL
        } else {
            w
        };
        self.panes
            .entry((key, w.start_ms(), w.end_ms()))
            .or_default()
            .push(said);
    }

    fn finish(mut self) -> Answer {
        self.dropped.sort_unstable();
        self
    }
}

/// One draw of the dials.
#[derive(Debug, Clone)]
struct Dials {
    window: WindowFn,
    watermark: WatermarkKind,
    grace: f64,
    accumulation: Accumulation,
    conventions: Conventions,
    /// The expression written for the built-in trigger: Beam's `DefaultTrigger` or
    /// `AfterWatermark(late=AfterCount(1))`.
    default: bool,
    /// Beam Java's closing and on-time behaviours (Beam's defaults under other rules).
    empty_panes: EmptyPanes,
}

impl Dials {
    fn config(&self) -> EngineConfig {
        EngineConfig {
            window: self.window,
            watermark: self.watermark,
            grace: self.grace,
            early: None,
            accumulation: self.accumulation,
            conventions: self.conventions,
            empty_panes: self.empty_panes,
        }
    }

    fn trigger(&self) -> Trigger {
        if self.conventions.uses_stream_time() {
            Trigger::parse("AfterWatermark()").unwrap()
        } else if self.default
            || (self.conventions == Conventions::BeamPython && self.window.is_merging())
        {
            // Beam Python's `AfterWatermark.on_merge` keeps a merged session in its late
            // phase when a session merged into it had fired (its next element fires at once,
            // and no ON_TIME pane follows); its `DefaultTrigger` sets the merged window's
            // end-of-window timer anew, as the processor's built-in trigger does. So under
            // its rules the built-in trigger is the `DefaultTrigger` alone on sessions.
            Trigger::Default
        } else {
            Trigger::parse("AfterWatermark(late=AfterCount(1))").unwrap()
        }
    }

    fn lateness_ms(&self) -> i64 {
        if self.grace.is_finite() {
            self.grace as i64
        } else {
            i64::MAX / 4
        }
    }
}

fn dials() -> impl Strategy<Value = Dials> {
    let window = prop_oneof![
        (1i64..=2).prop_map(|n| WindowFn::Tumbling {
            size: n * 5000,
            offset: 0
        }),
        Just(WindowFn::Sliding {
            size: 10_000,
            slide: 5000,
            offset: 0
        }),
        (1i64..=2).prop_map(|n| WindowFn::Session { gap: n * 5000 }),
        Just(WindowFn::Global { ttl: None }),
    ];
    let watermark = prop_oneof![
        prop_oneof![Just(0.0), Just(1000.0), Just(5000.0)]
            .prop_map(|bound| WatermarkKind::Bounded { bound }),
        prop_oneof![Just(0.0), Just(3000.0)].prop_map(|lag| WatermarkKind::Fixed { lag }),
        Just(WatermarkKind::Heuristic { q: 0.5, n: 4 }),
        Just(WatermarkKind::Perfect),
    ];
    let grace = prop_oneof![Just(0.0), Just(1000.0), Just(5000.0), Just(f64::INFINITY)];
    let accumulation = prop_oneof![
        Just(Accumulation::Accumulating),
        Just(Accumulation::Discarding)
    ];
    let conventions = prop::sample::select(Conventions::ALL.to_vec());
    (
        window,
        watermark,
        grace,
        accumulation,
        conventions,
        any::<bool>(),
        (any::<bool>(), any::<bool>()),
    )
        // Kafka Streams' windows close; it has no global window (`run` refuses it).
        .prop_filter(
            "Kafka Streams has no global window",
            |(w, _, _, _, c, _, _)| !(w.is_global() && c.uses_stream_time()),
        )
        .prop_map(
            |(window, watermark, grace, accumulation, conventions, default, (closing, on_time))| {
                // Only Beam Java has the two switches (`--closing` and `--on-time` are refused
                // under the other rules).
                let beam = conventions == Conventions::Beam;
                let empty_panes = EmptyPanes {
                    closing: if beam && closing {
                        ClosingBehavior::FireAlways
                    } else {
                        ClosingBehavior::FireIfNonEmpty
                    },
                    on_time: if beam && on_time {
                        OnTimeBehavior::FireIfNonEmpty
                    } else {
                        OnTimeBehavior::FireAlways
                    },
                };
                Dials {
                    window,
                    watermark,
                    grace,
                    accumulation,
                    conventions,
                    default,
                    empty_panes,
                }
            },
        )
}

/// 0–30 rows of 1–3 keys, event times on a grid of seconds or a millisecond either side of
/// it, each row a whole number of seconds (maybe none) after the one before.
fn log() -> impl Strategy<Value = Stream> {
    (1usize..=3)
        .prop_flat_map(|keys| {
            (
                Just(keys),
                prop::collection::vec(
                    (
                        0i64..30,
                        prop_oneof![3 => Just(0i64), 1 => Just(-1i64), 1 => Just(1i64)],
                        0i64..3,
                        0..keys as u32,
                    ),
                    0..=30,
                ),
            )
        })
        .prop_map(|(keys, rows)| {
            let mut proc = 100_000i64;
            let events = rows
                .into_iter()
                .map(|(t, off, step, key)| {
                    proc += step * 1000;
                    Event {
                        event_time: (t * 1000 + off).max(0) as f64,
                        proc_time: proc as f64,
                        key,
                    }
                })
                .collect();
            Stream::from_unordered(events, (0..keys).map(|k| format!("k{k}")).collect())
        })
}

/// The processor with its built-in trigger; `is_last` as `run` writes it.
fn processor(stream: &Stream, d: &Dials) -> Answer {
    let cfg = d.config();
    let r = twoclocks::engine::Processor::run(stream, cfg, true);
    let mut a = Answer::default();
    for p in &r.output.panes {
        let last = cfg.conventions.last_pane(
            p.window_end,
            p.watermark,
            cfg.grace,
            cfg.window.is_merging(),
        );
        let said = (
            p.timing,
            p.index,
            p.nonspeculative_index,
            p.index == 0,
            last,
            p.value as u64,
        );
        a.pane(p.cell.key, p.cell.window, said);
    }
    a.dropped = r
        .output
        .dropped
        .iter()
        .map(|x| (x.offset, x.window.start_ms(), x.window.end_ms()))
        .collect();
    a.finish()
}

/// Each key's final value in the processor's global window.
fn finals(stream: &Stream, d: &Dials) -> BTreeMap<u32, u64> {
    let r = twoclocks::engine::Processor::run(stream, d.config(), false);
    r.finals.iter().map(|(c, v)| (c.key, *v)).collect()
}

fn said(p: &ScriptPane) -> Said {
    (
        p.info.timing,
        p.info.index,
        p.info.nonspeculative_index,
        p.info.is_first,
        p.info.is_last,
        p.values.len() as u64,
    )
}

/// `run --trigger` with the built-in trigger's expression.
fn trigger_route(stream: &Stream, d: &Dials) -> Answer {
    let r = triggered::TriggeredRun::new(
        stream,
        &d.config(),
        &d.trigger(),
        TimestampCombiner::EndOfWindow,
    )
    .unwrap();
    let mut a = Answer::default();
    for p in &r.panes {
        a.pane(p.key, p.pane.window, said(&p.pane));
    }
    a.dropped = r
        .dropped
        .iter()
        .map(|x| (x.offset, x.window.start_ms(), x.window.end_ms()))
        .collect();
    a.finish()
}

/// The script driver fed the log as a script would be: each row an input to its key's
/// windows, then the watermark after it (when it rises) to every key's, then the end of time.
fn script(stream: &Stream, d: &Dials) -> Answer {
    let windows = ScriptWindows {
        window: d.window,
        output_shift: 0,
        custom_timestamping: false,
    };
    let mut drivers: Vec<Driver> = (0..stream.keys.len().max(1))
        .map(|_| {
            Driver::new(
                windows,
                &d.trigger(),
                d.accumulation,
                TimestampCombiner::EndOfWindow,
                d.lateness_ms(),
                d.conventions,
            )
            .with_empty_panes(d.empty_panes)
        })
        .collect();
    let mut watermark = Watermark::new(d.watermark.under(d.conventions), stream.max_delay());
    let mut a = Answer::default();
    let mut wm = i64::MIN;
    for (offset, e) in stream.events.iter().enumerate() {
        let (panes, dropped) = drivers[e.key as usize].input(&[e.event_time as i64]);
        for p in &panes {
            a.pane(e.key, p.window, said(p));
        }
        a.dropped.extend(
            dropped
                .iter()
                .map(|(_, w)| (offset, w.start_ms(), w.end_ms())),
        );
        let w = watermark.observe(e).floor() as i64;
        if w > wm {
            wm = w;
            for (k, driver) in drivers.iter_mut().enumerate() {
                for p in driver.advance_watermark(wm) {
                    a.pane(k as u32, p.window, said(&p));
                }
            }
        }
    }
    for (k, driver) in drivers.iter_mut().enumerate() {
        for p in driver.advance_watermark(Script::END_OF_TIME) {
            a.pane(k as u32, p.window, said(&p));
        }
    }
    a.finish()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 2000,
        ..ProptestConfig::default()
    })]

    #[test]
    fn the_processor_the_trigger_route_and_a_script_give_the_same_panes(
        stream in log(),
        d in dials(),
    ) {
        let by_processor = processor(&stream, &d);
        let by_trigger = trigger_route(&stream, &d);
        if d.window.is_global() {
            // The processor's global window is a running count that never fires: its value
            // comes out at the end of input as each key's final value, not in a pane. The
            // trigger route's fires once, at the end of time, with the same elements.
            prop_assert_eq!(&by_trigger.dropped, &by_processor.dropped);
            let counted = |a: &Answer| -> BTreeMap<u32, u64> {
                a.panes.iter().map(|(k, said)| (k.0, said.iter().map(|p| p.5).sum())).collect()
            };
            prop_assert_eq!(counted(&by_trigger), finals(&stream, &d));
            return Ok(());
        }
        prop_assert_eq!(&by_trigger, &by_processor, "run --trigger against the processor");
        // A script's row is judged under the watermark before it, as TestStream's elements
        // are, and the watermark the row brings comes after it; the processor judges a row
        // under the watermark its arrival brings. The two are the same row for row when the
        // watermark follows event times (the row that raises it is never behind it), not when
        // it follows the processing clock (fixed).
        if matches!(d.watermark, WatermarkKind::Bounded { .. }) {
            let by_script = script(&stream, &d);
            prop_assert_eq!(&by_script, &by_processor, "a script against the processor");
        }
    }
}
