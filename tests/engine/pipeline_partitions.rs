//! A partition that stalls the watermark, and idleness. On the classroom stream through four
//! partitions and a silent one: an operator's watermark never passes an input that is active
//! and caught up; without idleness it waits for the silent partition the whole outage; with
//! idleness it moves on after the timeout, and the held-back events meet the fates a model
//! built from first principles predicts. Under random outages, idle timeouts and crashes every
//! event is emitted once per timeline, kept + dropped = seen, watermarks never go back and
//! the exactly-once sinks equal a clean run's. On the command line: `--outage`,
//! `--idle-timeout` and `--partition-by`, their JSON and their errors.

use std::collections::BTreeMap;

use proptest::prelude::*;
use twoclocks::engine::pipeline::{
    CheckpointMode, CrashTarget, Outage, Outcome, PartitionBy, Pipeline, PipelineConfig, StepEvent,
};
use twoclocks::engine::{EngineConfig, Fate, SinkKind, Stream, WatermarkKind, WindowFn};

use crate::cli_common::{json, twoclocks_text as twoclocks};
use crate::common::{arb_accumulation, arb_stream};

const LAG: f64 = 20_000.0;
const GRACE: f64 = 60_000.0;
const FROM: f64 = 200_000.0;
const HEAL: f64 = 290_000.0;
const IDLE: f64 = 10_000.0;

/// The report's experiment: four partitions by index, `operators` operators, fixed 20 s,
/// grace 60 s, one-minute windows.
fn experiment(operators: usize, transit: f64, idle: Option<f64>) -> PipelineConfig {
    PipelineConfig {
        partitions: 4,
        parallelism: operators,
        transit,
        idle_timeout: idle,
        ..PipelineConfig::new(EngineConfig::fixed(LAG, GRACE))
    }
}

fn silent_partition_one() -> Vec<Outage> {
    vec![Outage {
        partition: 1,
        from: FROM,
        until: HEAL,
    }]
}

fn pipeline(stream: &Stream, cfg: PipelineConfig, outages: Vec<Outage>) -> Pipeline<&Stream> {
    Pipeline::new(stream, cfg)
        .expect("valid dials")
        .with_outages(outages)
        .expect("valid outages")
}

/// Every live operator's watermark is at most the watermark of each of its inputs that is
/// active, caught up and not ended.
fn check_valve<S: std::borrow::Borrow<Stream>>(p: &Pipeline<S>) -> Result<(), String> {
    for op in p.operator_views() {
        if op.finished {
            continue;
        }
        for (input, &w) in op.input_watermarks.iter().enumerate() {
            let left_out = op.idle_inputs.contains(&input)
                || op.behind_inputs.contains(&input)
                || op.ended_inputs.contains(&input);
            if !left_out && op.watermark > w {
                return Err(format!(
                    "at {}: operator {} at {} passed its active input {input} at {w}",
                    p.now(),
                    op.instance,
                    op.watermark
                ));
            }
        }
    }
    Ok(())
}

fn watermarks<S: std::borrow::Borrow<Stream>>(p: &Pipeline<S>) -> Vec<f64> {
    p.operator_views().iter().map(|o| o.watermark).collect()
}

#[test]
fn an_operator_watermark_never_passes_an_active_caught_up_input() {
    let s = Stream::classroom();
    for idle in [None, Some(IDLE)] {
        for transit in [0.0, 200.0] {
            let mut p = pipeline(&s, experiment(2, transit, idle), silent_partition_one());
            let mut before = watermarks(&p);
            while p.step().is_some() {
                check_valve(&p).unwrap();
                let now = watermarks(&p);
                assert!(now.iter().zip(&before).all(|(a, b)| a >= b), "{now:?}");
                before = now;
            }
            assert!(p.is_finished());
        }
    }
}

#[test]
fn without_idleness_no_operator_watermark_passes_the_silent_partition() {
    let s = Stream::classroom();
    for transit in [0.0, 200.0] {
        let mut p = pipeline(&s, experiment(2, transit, None), silent_partition_one());
        p.run_until(FROM);
        let silent = p.partition_watermarks()[1];
        p.run_until(FROM + 5_000.0);
        let settled = watermarks(&p);
        // By index every partition feeds every operator: none moves past where partition 1's
        // last record left it, and after a moment none moves at all.
        while p.next_time().is_some_and(|t| t < HEAL) {
            p.step();
            assert!(
                watermarks(&p).iter().all(|&w| w <= silent),
                "at {}",
                p.now()
            );
        }
        assert_eq!(watermarks(&p), settled);
        assert!(p.partitions()[1].is_out);
        p.run_to_end();
        let stats = p.watermark_stats();
        assert!(stats.longest_stall > HEAL - FROM, "{stats:?}");
        assert!(
            stats.stall_from < FROM && stats.stall_until >= HEAL,
            "{stats:?}"
        );
        assert!(p.partitions().iter().all(|v| v.idle.is_empty()));
    }
}

/// The partition's events, in order: (stream offset, processing time).
fn partition_events(s: &Stream, partitions: usize, p: usize) -> Vec<(usize, f64)> {
    (p..s.len())
        .step_by(partitions)
        .map(|i| (i, s.events[i].proc_time))
        .collect()
}

#[test]
fn with_idleness_the_watermark_moves_on_and_held_back_events_meet_the_model() {
    let s = Stream::classroom();
    // One operator and instant channels, so the model can be built from first principles:
    // with the fixed watermark a partition's watermark is its latest processing time − lag.
    let cfg = experiment(1, 0.0, Some(IDLE));
    let last_before = partition_events(&s, 4, 1)
        .into_iter()
        .filter(|&(_, t)| t < FROM)
        .map(|(_, t)| t)
        .fold(f64::NEG_INFINITY, f64::max);
    // Partition 1 goes idle exactly a timeout after its last record; the others stay active
    // through the outage (no gap of 10 s in theirs), so at the heal the operator's watermark
    // is the smallest of theirs.
    let at_heal = [0, 2, 3]
        .iter()
        .map(|&q| {
            let ev = partition_events(&s, 4, q);
            let gaps = ev
                .windows(2)
                .filter(|w| w[1].1 > FROM - IDLE && w[0].1 < HEAL);
            assert!(gaps.clone().all(|w| w[1].1 - w[0].1 < IDLE));
            ev.iter()
                .map(|e| e.1)
                .filter(|&t| t < HEAL)
                .fold(0.0, f64::max)
                - LAG
        })
        .fold(f64::INFINITY, f64::min);
    let window = cfg.engine.window;
    let model: BTreeMap<usize, Fate> = partition_events(&s, 4, 1)
        .into_iter()
        .filter(|&(_, t)| (FROM..HEAL).contains(&t))
        .map(|(i, _)| {
            let end = window.end(window.assign(s.events[i].event_time).last().unwrap());
            (i, Fate::decide(end, at_heal, GRACE))
        })
        .collect();
    assert!(model.len() > 600);
    let mut p = pipeline(&s, cfg, silent_partition_one());
    p.run_until(last_before + IDLE - 1.0);
    let stalled = watermarks(&p)[0];
    assert!(!p.partitions()[1].is_idle);
    p.run_until(last_before + IDLE + 1_000.0);
    assert!(p.partitions()[1].is_idle);
    assert!(watermarks(&p)[0] > stalled, "the watermark moves on");
    let mut seen = BTreeMap::new();
    while let Some(step) = p.step() {
        check_valve(&p).unwrap();
        if let StepEvent::Delivered {
            outcome:
                Outcome::Record {
                    stream_offset,
                    fate,
                    ..
                },
            ..
        } = step.event
        {
            if model.contains_key(&stream_offset) {
                assert_eq!(step.time, HEAL);
                seen.insert(stream_offset, fate);
            }
        }
    }
    assert_eq!(seen, model);
    let fates = |f: Fate| model.values().filter(|&&m| m == f).count();
    assert!(fates(Fate::Late) > 100 && fates(Fate::Dropped) > 0 && fates(Fate::OnTime) > 100);
    let v = &p.partitions()[1];
    assert_eq!(v.idle, vec![(last_before + IDLE, Some(HEAL))]);
    assert_eq!(v.out, vec![(FROM, HEAL)]);
    let stats = p.watermark_stats();
    assert!(stats.longest_stall < IDLE + 2_000.0, "{stats:?}");
}

#[test]
fn every_record_meets_the_one_rule_under_the_watermark_it_was_delivered_under() {
    let s = Stream::classroom();
    let cfg = experiment(2, 200.0, Some(IDLE));
    let window = cfg.engine.window;
    let mut p = pipeline(&s, cfg, silent_partition_one());
    let mut records = 0;
    while let Some(step) = p.step() {
        if let StepEvent::Delivered {
            outcome:
                Outcome::Record {
                    stream_offset,
                    fate,
                    watermark,
                    ..
                },
            ..
        } = step.event
        {
            let end = window.end(
                window
                    .assign(s.events[stream_offset].event_time)
                    .last()
                    .unwrap(),
            );
            let model = if end + GRACE <= watermark {
                Fate::Dropped
            } else if end <= watermark {
                Fate::Late
            } else {
                Fate::OnTime
            };
            assert_eq!(fate, model, "record {stream_offset}");
            records += 1;
        }
    }
    assert_eq!(records, s.len());
}

#[test]
fn idleness_buys_latency_at_the_price_of_completeness() {
    let s = Stream::classroom();
    let run = |idle| {
        let mut p = pipeline(&s, experiment(2, 0.0, idle), silent_partition_one());
        p.run_to_end();
        (p.counters(), p.watermark_stats())
    };
    let (waiting, w) = run(None);
    let (idle, i) = run(Some(IDLE));
    assert!(i.longest_stall < w.longest_stall / 5.0);
    assert!(i.peak_open_cells < w.peak_open_cells);
    assert!(idle.dropped > waiting.dropped && idle.late > waiting.late);
    assert_eq!(waiting.events, idle.events);
}

#[test]
fn an_outage_not_healed_silences_a_partition_until_it_is() {
    let s = Stream::classroom();
    let mut cfg = experiment(2, 0.0, None);
    cfg.checkpoint_every = Some(10_000.0);
    let mut p = Pipeline::new(&s, cfg).unwrap();
    p.run_until(FROM);
    assert!(p.cut_partition(1).unwrap());
    assert!(!p.cut_partition(1).unwrap());
    assert!(p.cut_partition(4).is_err());
    p.run_until(HEAL);
    let held = p.partitions()[1].events;
    assert!(p.partitions()[1].is_out);
    assert!(p.heal_partition(1));
    assert!(!p.heal_partition(1));
    assert_eq!(p.outages(), &silent_partition_one()[..]);
    p.run_to_end();
    assert!(p.is_finished());
    assert!(p.partitions()[1].events > held);
    // The same run with the outage given up front.
    let mut q = pipeline(&s, cfg, silent_partition_one());
    q.run_to_end();
    assert_eq!(q.counters(), p.counters());
    assert_eq!(q.steps(), p.steps());
    // Cut off for good: the job stops where the partition's next record waits.
    let mut r = pipeline(
        &s,
        cfg,
        vec![Outage {
            partition: 1,
            from: FROM,
            until: f64::INFINITY,
        }],
    );
    r.run_to_end();
    assert!(!r.is_finished());
    assert!(r.partitions()[1].events < r.partitions()[1].len);
}

#[test]
fn by_key_a_keys_events_all_go_to_one_partition() {
    let s = Stream::classroom();
    let cfg = PipelineConfig {
        partition_by: PartitionBy::Key,
        ..experiment(2, 0.0, None)
    };
    let mut p = Pipeline::new(&s, cfg).unwrap();
    let mut of_key = BTreeMap::new();
    while let Some(step) = p.step() {
        if let StepEvent::Emitted {
            partition,
            stream_offset,
            ..
        } = step.event
        {
            let key = s.key_name(s.events[stream_offset].key).to_string();
            assert_eq!(*of_key.entry(key.clone()).or_insert(partition), partition);
            assert_eq!(partition, PipelineConfig::partition_for(&key, 4));
        }
    }
    assert_eq!(of_key.len(), 4);
    // Stable, and the classroom's four keys on four partitions.
    let abcd: Vec<usize> = ["a", "b", "c", "d"]
        .iter()
        .map(|k| PipelineConfig::partition_for(k, 4))
        .collect();
    assert_eq!(abcd, vec![3, 2, 1, 0]);
    // Not the operator routing's hash: over many keys, a partition's keys go to every
    // operator, and the partitions share the keys out evenly.
    let mut seen = [[0usize; 4]; 4];
    for i in 0..4000 {
        let k = format!("user{i}");
        seen[PipelineConfig::partition_for(&k, 4)][PipelineConfig::operator_for(&k, 4)] += 1;
    }
    for row in seen {
        assert!(row.iter().all(|&n| n > 150), "{seen:?}");
    }
}

fn arb_engine() -> impl Strategy<Value = EngineConfig> {
    (
        1_000i64..60_000,
        prop_oneof![
            Just(WatermarkKind::Perfect),
            (0.0f64..30_000.0).prop_map(|lag| WatermarkKind::Fixed { lag }),
            (0.0f64..30_000.0).prop_map(|bound| WatermarkKind::Bounded { bound }),
        ],
        prop_oneof![Just(0.0), 0.0f64..30_000.0],
        prop::option::of(1_000.0f64..20_000.0),
        arb_accumulation(),
    )
        .prop_map(
            |(size, watermark, grace, early, accumulation)| EngineConfig {
                window: WindowFn::Tumbling { size, offset: 0 },
                watermark,
                grace,
                early,
                accumulation,
                conventions: Default::default(),
                empty_panes: Default::default(),
            },
        )
}

/// A pipeline with random widths, partitioning, transit, checkpoints and idle timeout.
fn arb_config() -> impl Strategy<Value = PipelineConfig> {
    (
        arb_engine(),
        (1usize..5, 1usize..4, any::<bool>()),
        prop::option::of(2_000.0f64..30_000.0),
        any::<u64>(),
        prop_oneof![Just(0.0), 1.0f64..2_000.0],
        any::<bool>(),
        prop::option::of(100.0f64..20_000.0),
    )
        .prop_map(
            |(engine, (partitions, parallelism, by_key), every, seed, transit, unaligned, idle)| {
                let mut cfg = PipelineConfig::new(engine);
                cfg.partitions = partitions;
                cfg.parallelism = parallelism;
                cfg.partition_by = if by_key {
                    PartitionBy::Key
                } else {
                    PartitionBy::Index
                };
                cfg.checkpoint_every = every;
                cfg.seed = seed;
                cfg.transit = transit;
                cfg.mode = if unaligned {
                    CheckpointMode::Unaligned
                } else {
                    CheckpointMode::ExactlyOnce
                };
                cfg.idle_timeout = idle;
                cfg
            },
        )
}

/// Outages as (partition, start and length as fractions of the stream's span).
fn arb_outages() -> impl Strategy<Value = Vec<(usize, f64, f64)>> {
    prop::collection::vec((0usize..4, 0.0f64..1.0, 0.001f64..0.5), 0..4)
}

fn span(stream: &Stream) -> (f64, f64) {
    let t0 = stream.events.first().map_or(0.0, |e| e.proc_time);
    let t1 = stream.events.last().map_or(0.0, |e| e.proc_time);
    (t0, (t1 - t0).max(1.0))
}

fn outages(stream: &Stream, cfg: &PipelineConfig, drawn: &[(usize, f64, f64)]) -> Vec<Outage> {
    let (t0, len) = span(stream);
    drawn
        .iter()
        .map(|&(p, from, dur)| Outage {
            partition: p % cfg.partitions,
            from: t0 + from * len,
            until: t0 + (from + dur) * len,
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn outages_and_idleness_lose_nothing_and_keep_exactly_once(
        stream in arb_stream(500, 5),
        cfg in arb_config(),
        drawn in arb_outages(),
        crashes in prop::collection::vec((0.0f64..1.1, prop::option::of(0usize..3)), 1..4),
    ) {
        let outages = outages(&stream, &cfg, &drawn);
        // A clean run, step by step.
        let mut c = pipeline(&stream, cfg, outages.clone());
        let mut emitted = vec![0u32; stream.len()];
        let mut before = watermarks(&c);
        while let Some(step) = c.step() {
            if let StepEvent::Emitted { stream_offset, replayed, .. } = step.event {
                emitted[stream_offset] += 1;
                prop_assert!(!replayed);
            }
            if let Err(e) = check_valve(&c) {
                prop_assert!(false, "{}", e);
            }
            let now = watermarks(&c);
            prop_assert!(now.iter().zip(&before).all(|(a, b)| a >= b), "{:?} after {:?}", now, before);
            before = now;
        }
        prop_assert!(c.is_finished());
        prop_assert!(emitted.iter().all(|&n| n == 1));
        let k = c.counters();
        prop_assert_eq!(k.events as usize, stream.len());
        prop_assert_eq!(k.on_time + k.late + k.dropped, k.events);
        let views = c.partitions();
        prop_assert_eq!(views.iter().map(|v| v.events).sum::<usize>(), stream.len());
        for v in &views {
            prop_assert!(v.idle.windows(2).all(|w| w[0].1.is_some_and(|u| u <= w[1].0)));
        }
        // The same run under crashes: every event once in the final timeline, and the
        // exactly-once sinks as the clean run's.
        let mut x = pipeline(&stream, cfg, outages);
        let (t0, len) = span(&stream);
        for &(f, target) in &crashes {
            let target = match target {
                Some(i) if i < cfg.parallelism => CrashTarget::Operator(i),
                _ => CrashTarget::Job,
            };
            x.schedule_crash(t0 + f * len, target).unwrap();
        }
        // Per partition, how many times each of its events was emitted in this timeline.
        let mut timeline: Vec<BTreeMap<usize, u32>> = vec![BTreeMap::new(); cfg.partitions];
        while let Some(step) = x.step() {
            match step.event {
                StepEvent::Emitted { partition, offset, .. } => {
                    let n = timeline[partition].entry(offset).or_insert(0);
                    *n += 1;
                    prop_assert_eq!(*n, 1, "emitted twice in one timeline");
                }
                StepEvent::Crashed => {
                    for (p, &o) in x.offsets().iter().enumerate() {
                        timeline[p].retain(|&k, _| k < o);
                    }
                }
                _ => {}
            }
        }
        prop_assert!(x.is_finished());
        let once: usize = timeline.iter().map(|t| t.values().filter(|&&n| n == 1).count()).sum();
        prop_assert_eq!(once, stream.len());
        prop_assert_eq!(x.counters(), c.counters());
        prop_assert_eq!(x.finals(), c.finals());
        prop_assert_eq!(x.partitions(), views);
        for kind in [SinkKind::Idempotent, SinkKind::Transactional] {
            prop_assert_eq!(x.sink_output(kind), c.sink_output(kind), "{}", kind);
        }
    }
}

const SMALL_RUN: &[&str] = &[
    "run",
    "--events",
    "4000",
    "--span",
    "120s",
    "--partitions",
    "3",
    "--parallelism",
    "2",
    "--transit",
    "0",
    "--format",
    "json",
];

#[test]
fn the_json_answer_says_what_each_partition_did() {
    let mut args = SMALL_RUN.to_vec();
    args.extend(["--outage", "1@40s+30s", "--idle-timeout", "5s"]);
    let j = json(&args);
    assert_eq!(j["pipeline"]["idle_timeout"], "5s");
    assert_eq!(j["pipeline"]["partition_by"], "index");
    let parts = j["partitions"].as_array().unwrap();
    assert_eq!(parts.len(), 3);
    let events: Vec<u64> = parts
        .iter()
        .map(|p| p["events"].as_u64().unwrap())
        .collect();
    assert_eq!(events, vec![1334, 1333, 1333]);
    for (i, p) in parts.iter().enumerate() {
        assert_eq!(p["partition"], i);
        assert!(p["last_watermark"].is_f64());
        assert!(p["idle"].is_array());
    }
    assert_eq!(parts[1]["out"], serde_json::json!([[40000.0, 70000.0]]));
    assert_eq!(parts[0]["out"], serde_json::json!([]));
    // Partition 1 went idle 5 s after its last record before the outage, and was active again
    // at the heal.
    let idle = &parts[1]["idle"][0];
    let went = idle[0].as_f64().unwrap();
    assert!((40_000.0..45_000.0).contains(&went), "{idle}");
    assert_eq!(idle[1], 70_000.0);
    let stats = &j["watermark_stats"];
    assert_eq!(stats["stall_until_ms"], went);
    assert!(
        stats["longest_stall_ms"].as_f64().unwrap() < 6_000.0,
        "{stats}"
    );
    assert!(stats["peak_open_cells"].as_u64().unwrap() > 0);
    // Without idleness the stall lasts the whole outage, and no partition goes idle.
    let j = json(&[SMALL_RUN, &["--outage", "1@40s+30s"]].concat());
    assert_eq!(j["watermark_stats"]["stall_until_ms"], 70_000.0);
    let parts = j["partitions"].as_array().unwrap();
    assert!(parts.iter().all(|p| p["idle"] == serde_json::json!([])));
    assert!(j["pipeline"]["idle_timeout"].is_null());
}

#[test]
fn the_table_shows_the_partitions_when_one_falls_silent() {
    let (code, out, err) = twoclocks(&[
        "run",
        "--partitions",
        "4",
        "--parallelism",
        "2",
        "--outage",
        "1@200s+90s",
        "--idle-timeout",
        "10s",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("  partitions by index, idle timeout 10s:"),
        "{out}"
    );
    assert!(
        out.contains("    p1: 5000 events, out 200.0s to 290.0s, idle 210.0s to 290.0s"),
        "{out}"
    );
    assert!(
        out.contains("  combined watermark: longest stall "),
        "{out}"
    );
    let (_, plain, _) = twoclocks(&["run", "--partitions", "4", "--parallelism", "2"]);
    assert!(!plain.contains("partitions by"), "{plain}");
}

#[test]
fn bad_outages_and_idle_timeouts_give_one_error_line_naming_the_value() {
    for (args, names) in [
        (&["run", "--outage", "1@200s+90s"][..], "--partitions"),
        (
            &["run", "--partitions", "4", "--outage", "4@200s+90s"],
            "4@200s+90s",
        ),
        (
            &["run", "--partitions", "4", "--outage", "1@200s+0s"],
            "1@200s+0s",
        ),
        (
            &["run", "--partitions", "4", "--outage", "1@200s+-5s"],
            "-5s",
        ),
        (&["run", "--partitions", "4", "--outage", "soon"], "soon"),
        (&["run", "--partitions", "4", "--outage", "a@1s+2s"], "'a'"),
        (
            &["run", "--partitions", "4", "--outage", "1@200s+inf"],
            "inf",
        ),
        (
            &["run", "--partitions", "4", "--idle-timeout", "0"],
            "--idle-timeout",
        ),
        (
            &["run", "--partitions", "4", "--idle-timeout", "-1s"],
            "-1s",
        ),
        (
            &["run", "--partitions", "4", "--idle-timeout", "inf"],
            "--idle-timeout",
        ),
        (&["run", "--partition-by", "hash"], "hash"),
        (&["--partitions", "4", "--outage", "4@200s+90s"], "--outage"),
    ] {
        let (code, stdout, stderr) = twoclocks(args);
        assert_eq!(code, 2, "{args:?}");
        assert!(stdout.is_empty());
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(stderr.starts_with("twoclocks: "), "{stderr}");
        assert!(stderr.contains(names), "{args:?}: {stderr}");
    }
}

#[test]
fn by_key_each_keys_events_go_to_one_partition() {
    let run = |keys: &str| {
        json(&[
            "run",
            "--events",
            "3000",
            "--keys",
            keys,
            "--partitions",
            "4",
            "--partition-by",
            "key",
            "--format",
            "json",
        ])
    };
    let j = run("abcdef");
    assert_eq!(j["pipeline"]["partition_by"], "key");
    let mut per_key: BTreeMap<String, u64> = BTreeMap::new();
    for w in j["windows"].as_array().unwrap() {
        *per_key
            .entry(w["key"].as_str().unwrap().to_string())
            .or_default() += w["truth"].as_u64().unwrap();
    }
    let mut expected = [0u64; 4];
    for (k, n) in &per_key {
        expected[PipelineConfig::partition_for(k, 4)] += n;
    }
    let events: Vec<u64> = j["partitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["events"].as_u64().unwrap())
        .collect();
    assert_eq!(events, expected);
    // One key: one partition carries the whole stream.
    let j = run("a");
    let events: Vec<u64> = j["partitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["events"].as_u64().unwrap())
        .collect();
    assert_eq!(events.iter().filter(|&&n| n == 3000).count(), 1);
    assert_eq!(events.iter().sum::<u64>(), 3000);
}
