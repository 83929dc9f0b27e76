//! What the property tests share: random generator streams, the engine dials several of them
//! draw alike (accumulation, watermark, grace), random pipelines over an engine strategy, a
//! pipeline run through scheduled crashes, and the database rows a sink's writes leave.

use std::collections::BTreeMap;

use proptest::prelude::*;
use twoclocks::engine::pipeline::{
    CheckpointMode, CrashTarget, Pipeline, PipelineConfig, SinkWrite,
};
use twoclocks::engine::StreamParams;
use twoclocks::engine::{Accumulation, CellId, EngineConfig, SinkKind, Stream, WatermarkKind};

/// Any of the three accumulation modes, equally likely.
pub fn arb_accumulation() -> impl Strategy<Value = Accumulation> {
    prop_oneof![
        Just(Accumulation::Accumulating),
        Just(Accumulation::Discarding),
        Just(Accumulation::Retracting),
    ]
}

/// The perfect watermark, a fixed lag or a bound up to 30 s, or the heuristic at q 0.9 over 50.
pub fn arb_pipeline_watermark() -> impl Strategy<Value = WatermarkKind> {
    prop_oneof![
        Just(WatermarkKind::Perfect),
        (0.0f64..30_000.0).prop_map(|lag| WatermarkKind::Fixed { lag }),
        (0.0f64..30_000.0).prop_map(|bound| WatermarkKind::Bounded { bound }),
        Just(WatermarkKind::Heuristic { q: 0.9, n: 50 }),
    ]
}

/// No grace, up to 30 s of it, or grace without end.
pub fn arb_grace() -> impl Strategy<Value = f64> {
    prop_oneof![Just(0.0), 0.0f64..30_000.0, Just(f64::INFINITY)]
}

/// Streams from the generator with random dials: up to `max_events` events, `max_keys` keys.
pub fn arb_stream(max_events: usize, max_keys: usize) -> impl Strategy<Value = Stream> {
    (
        0u64..10_000,
        1usize..max_events,
        1_000.0f64..200_000.0,
        0.0f64..0.5,
        1.0f64..5_000.0,
        0.0f64..60_000.0,
        1usize..max_keys + 1,
    )
        .prop_map(|(seed, events, span, tail, mean_delay, tail_max, nkeys)| {
            Stream::generate(&StreamParams {
                seed,
                events,
                span,
                tail,
                mean_delay,
                tail_max,
                keys: "abcdefgh"[..nkeys.min(8)].to_string(),
            })
            .expect("valid parameters")
        })
}

/// Pipelines running `engine`, with 1 to `max_width − 1` partitions and operators, a periodic
/// checkpoint or none, any schedule seed, instant or slow channels, and either barrier mode
/// that promises exactly-once.
pub fn arb_pipeline_of(
    engine: impl Strategy<Value = EngineConfig>,
    max_width: usize,
) -> impl Strategy<Value = PipelineConfig> {
    (
        engine,
        1usize..max_width,
        1usize..max_width,
        prop::option::of(2_000.0f64..30_000.0),
        any::<u64>(),
        prop_oneof![Just(0.0), 1.0f64..2_000.0],
        prop_oneof![
            Just(CheckpointMode::ExactlyOnce),
            Just(CheckpointMode::Unaligned)
        ],
    )
        .prop_map(
            |(engine, partitions, parallelism, every, seed, transit, mode)| {
                let mut cfg = PipelineConfig::new(engine);
                cfg.partitions = partitions;
                cfg.parallelism = parallelism;
                cfg.checkpoint_every = every;
                cfg.seed = seed;
                cfg.transit = transit;
                cfg.mode = mode;
                cfg
            },
        )
}

/// Runs `cfg` over `s` once cleanly and once with `crashes` (each a fraction of the stream's
/// processing-time span and an operator to hit, the whole job when none or out of range),
/// checks that both finish with the same finals and counters and that the exactly-once sinks
/// (idempotent, transactional) hold the same output, and gives back both runs.
pub fn crash_and_compare<'a>(
    s: &'a Stream,
    cfg: PipelineConfig,
    crashes: &[(f64, Option<usize>)],
) -> Result<(Pipeline<&'a Stream>, Pipeline<&'a Stream>), TestCaseError> {
    let mut clean = Pipeline::new(s, cfg).expect("valid dials");
    clean.run_to_end();
    let crashed = run_with_crashes(s, cfg, crashes);
    prop_assert!(clean.is_finished() && crashed.is_finished());
    prop_assert_eq!(clean.finals(), crashed.finals());
    prop_assert_eq!(clean.counters(), crashed.counters());
    for kind in [SinkKind::Idempotent, SinkKind::Transactional] {
        prop_assert_eq!(
            clean.sink_output(kind),
            crashed.sink_output(kind),
            "{}",
            kind
        );
    }
    Ok((clean, crashed))
}

/// Runs `cfg` over `stream` to its end with `crashes` scheduled (each a fraction of the
/// stream's processing-time span and an operator to hit, the whole job when none or out of
/// range).
pub fn run_with_crashes<'a>(
    stream: &'a Stream,
    cfg: PipelineConfig,
    crashes: &[(f64, Option<usize>)],
) -> Pipeline<&'a Stream> {
    let mut p = Pipeline::new(stream, cfg).expect("valid dials");
    for (at, target) in crash_schedule(stream, &cfg, crashes) {
        p.schedule_crash(at, target).unwrap();
    }
    p.run_to_end();
    p
}

/// Crashes drawn as (fraction of the stream's processing time, operator or the job) made
/// into times and targets: an operator the job does not have crashes the job.
pub fn crash_schedule(
    stream: &Stream,
    cfg: &PipelineConfig,
    crashes: &[(f64, Option<usize>)],
) -> Vec<(f64, CrashTarget)> {
    let t0 = stream.events.first().map_or(0.0, |e| e.proc_time);
    let t1 = stream.events.last().map_or(0.0, |e| e.proc_time);
    crashes
        .iter()
        .map(|&(f, target)| {
            let target = match target {
                Some(i) if i < cfg.parallelism => CrashTarget::Operator(i),
                _ => CrashTarget::Job,
            };
            (t0 + f * (t1 - t0), target)
        })
        .collect()
}

/// `a` and `b` added cell by cell.
pub fn plus(a: &BTreeMap<CellId, i64>, b: &BTreeMap<CellId, i64>) -> BTreeMap<CellId, i64> {
    let mut out = a.clone();
    for (c, v) in b {
        *out.entry(*c).or_insert(0) += v;
    }
    out
}

/// The database's `results` as a model: a row per (cell, pane index), its value and
/// retraction, written the way the SQLite sink writes them.
pub type Rows = BTreeMap<(CellId, u32), (i64, Option<i64>)>;

/// Carries out one sink write on `rows` the way the database sink does.
pub fn apply(rows: &mut Rows, w: &SinkWrite) {
    match w {
        SinkWrite::Received(_) => {}
        SinkWrite::Add(p) => {
            let r = rows
                .entry((p.cell, p.index))
                .or_insert((0, p.retraction.map(|_| 0)));
            r.0 += p.value;
            r.1 = r.1.zip(p.retraction).map(|(a, b)| a + b);
        }
        SinkWrite::Upsert(p) => {
            rows.insert((p.cell, p.index), (p.value, p.retraction));
        }
        SinkWrite::Commit { panes, .. } => {
            for p in panes {
                rows.insert((p.cell, p.index), (p.value, p.retraction));
            }
        }
    }
}
