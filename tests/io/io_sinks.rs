//! `run --output`: the JSON Lines sink writes the JSON's `panes`, line by line (to a file or
//! standard output); the SQLite sink's `panes` table holds the same panes and its `results`
//! follow the chosen sink kind: after a clean run they add up to the run's final values, after
//! random crash schedules the idempotent and transactional kinds hold exactly the clean run's
//! rows and the additive kind over-counts by what the crashes replayed, as the run reports; a
//! path that cannot be written is one clear error line (exit 2) before any work. In process,
//! as a property: the writes the pipeline records, carried out as the database carries them
//! out, hold what the engine's sink of each kind holds, and recording them changes nothing.

use std::collections::BTreeMap;
use std::path::Path;

use proptest::prelude::*;
use rusqlite::Connection;
use serde_json::{json, Value};
use twoclocks::engine::pipeline::{CrashTarget, Pipeline, SinkWrite};
use twoclocks::engine::{Accumulation, CellId, EngineConfig, SinkKind, WatermarkKind, WindowFn};

use crate::cli_common::{path_arg, twoclocks_text};
use crate::common::{apply, arb_accumulation, arb_pipeline_of, arb_stream, Rows};

/// Runs `run --format json` with `args`; panics unless it succeeds.
fn run_json(args: &[&str]) -> Value {
    let mut all = vec!["run", "--format", "json"];
    all.extend_from_slice(args);
    let (code, out, err) = twoclocks_text(&all);
    assert_eq!(code, 0, "{all:?}: {err}");
    serde_json::from_str(&out).unwrap()
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A column as JSON: integers, reals, text or null, as SQLite holds it.
fn cell(row: &rusqlite::Row, i: usize) -> Value {
    use rusqlite::types::ValueRef;
    match row.get_ref(i).unwrap() {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(n) => json!(n),
        ValueRef::Real(x) => json!(x),
        ValueRef::Text(t) => json!(String::from_utf8_lossy(t)),
        ValueRef::Blob(_) => panic!("no blobs"),
    }
}

/// Every row of a query, each an object of its columns (a `null` retraction left out, as the
/// JSON leaves it out).
fn rows(db: &Path, sql: &str) -> Vec<Value> {
    let conn = Connection::open(db).unwrap();
    let mut st = conn.prepare(sql).unwrap();
    let names: Vec<String> = st.column_names().iter().map(|n| n.to_string()).collect();
    st.query_map([], |row| {
        let mut o = serde_json::Map::new();
        for (i, n) in names.iter().enumerate() {
            let mut v = cell(row, i);
            // SQLite keeps a flag as 0 or 1; the JSON says false or true.
            if n.starts_with("is_") {
                v = Value::Bool(v.as_i64() == Some(1));
            }
            if !(n == "retraction" && v.is_null()) {
                o.insert(n.clone(), v);
            }
        }
        // Through text, as the JSON is read: serde_json's parse of a float's shortest
        // spelling may be one ulp off, the same for both sides.
        Ok(serde_json::from_str(&Value::Object(o).to_string()).unwrap())
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

fn results(db: &Path) -> Vec<Value> {
    rows(
        db,
        "SELECT * FROM results ORDER BY key, start_ms, end_ms, pane_index",
    )
}

fn sum_results(db: &Path) -> i64 {
    let conn = Connection::open(db).unwrap();
    conn.query_row("SELECT ifnull(sum(value), 0) FROM results", [], |r| {
        r.get(0)
    })
    .unwrap()
}

/// A cell's name in JSON: its bounds and key.
fn cell_of(v: &Value) -> (String, String, String) {
    (
        v["start_ms"].to_string(),
        v["end_ms"].to_string(),
        v["key"].as_str().unwrap().to_string(),
    )
}

/// The `finals` view, by cell.
fn finals(db: &Path) -> BTreeMap<(String, String, String), i64> {
    rows(db, "SELECT * FROM finals")
        .iter()
        .map(|r| (cell_of(r), r["value"].as_i64().unwrap()))
        .collect()
}

const CONFIGS: &[&[&str]] = &[
    &[],
    &["--early", "10s", "--accumulation", "discarding"],
    &["--scenario", "sessions"],
    &["--window", "global", "--early", "30s"],
    &[
        "--early",
        "10s",
        "--accumulation",
        "retracting",
        "--grace",
        "30s",
    ],
    &[
        "--parallelism",
        "3",
        "--partitions",
        "2",
        "--checkpoint-every",
        "30s",
        "--crash-at",
        "100s,250s",
        "--sink",
        "additive",
        "--early",
        "10s",
    ],
];

#[test]
fn jsonl_lines_are_the_json_panes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (i, cfg) in CONFIGS.iter().enumerate() {
        let file = d.join(format!("{i}.jsonl"));
        let mut args = cfg.to_vec();
        let spec = format!("jsonl:{}", path_arg(&file));
        args.extend(["--output", &spec]);
        let j = run_json(&args);
        // The same answer with or without the sink.
        assert_eq!(j, run_json(cfg), "{cfg:?}");
        let panes = j["panes"].as_array().unwrap();
        assert!(!panes.is_empty(), "{cfg:?}");
        assert_eq!(&lines(&file), panes, "{cfg:?}");
    }
}

#[test]
fn jsonl_to_standard_output_leaves_the_answer_on_standard_error() {
    for cfg in [&[][..], &["--parallelism", "2", "--crash-at", "200s"][..]] {
        let mut args = vec!["run", "--format", "json", "--output", "jsonl:-"];
        args.extend_from_slice(cfg);
        let (code, out, err) = twoclocks_text(&args);
        assert_eq!(code, 0, "{err}");
        let j: Value = serde_json::from_str(&err).unwrap();
        let got: Vec<Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(&got, j["panes"].as_array().unwrap());
    }
    let (code, out, err) = twoclocks_text(&["run", "--output", "jsonl:-"]);
    assert_eq!(code, 0);
    assert!(
        err.contains("events lost"),
        "the table on standard error: {err}"
    );
    assert!(out.lines().all(|l| l.starts_with("{\"window\":")), "{out}");
}

#[test]
fn sqlite_after_a_clean_run_holds_the_panes_and_the_final_values() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (i, cfg) in CONFIGS.iter().enumerate() {
        let db = d.join(format!("{i}.db"));
        let mut args = cfg.to_vec();
        let spec = format!("sqlite:{}", path_arg(&db));
        args.extend(["--output", &spec]);
        let j = run_json(&args);
        // `panes`: the JSON's panes, field for field, in order.
        let panes = rows(&db, "SELECT * FROM panes ORDER BY rowid");
        assert_eq!(&panes, j["panes"].as_array().unwrap(), "{cfg:?}");
        let got = finals(&db);
        if j.get("sink_output").is_some() {
            // The pipeline: `finals` of the idempotent and transactional kinds is the sink's
            // output; the additive kind's rows add up to its total.
            let kind = j["pipeline"]["sink"].as_str().unwrap();
            let total = j["sinks"]
                .as_array()
                .unwrap()
                .iter()
                .find(|t| t["sink"] == kind)
                .unwrap()["total"]
                .as_i64()
                .unwrap();
            assert_eq!(sum_results(&db), total, "{cfg:?}");
            if kind != "additive" {
                let want: BTreeMap<_, _> = j["sink_output"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| (cell_of(c), c["value"].as_i64().unwrap()))
                    .collect();
                assert_eq!(got, want, "{cfg:?}");
            }
        } else {
            // The single processor: each cell's panes, added up the way the accumulation mode
            // means them.
            let acc = j["config"]["accumulation"].as_str().unwrap();
            let mut want: BTreeMap<_, i64> = BTreeMap::new();
            for p in j["panes"].as_array().unwrap() {
                let v = want.entry(cell_of(p)).or_insert(0);
                let value = p["value"].as_i64().unwrap();
                match acc {
                    "accumulating" => *v = value,
                    "discarding" => *v += value,
                    _ => *v += value - p["retraction"].as_i64().unwrap_or(0),
                }
            }
            assert_eq!(got, want, "{cfg:?}");
            // The global window never closes: its last pane is an early one, not its final
            // value.
            if cfg.contains(&"global") {
                continue;
            }
            // Every window's final value, where it had a pane (cells without one hold 0).
            for w in j["windows"].as_array().unwrap() {
                let v = got.get(&cell_of(w)).copied().unwrap_or(0);
                assert_eq!(v, w["value"].as_i64().unwrap(), "{cfg:?} {w}");
            }
            // Sessions merged away keep the panes they emitted (only retracting mode takes
            // them back): the sum holds for windows that never merge.
            if cfg.contains(&"sessions") {
                continue;
            }
            let sum: i64 = got.values().sum();
            let kept: i64 = j["windows"]
                .as_array()
                .unwrap()
                .iter()
                .map(|w| w["value"].as_i64().unwrap())
                .sum();
            assert_eq!(sum, kept, "{cfg:?}");
        }
        let conn = Connection::open(&db).unwrap();
        let acc: String = conn
            .query_row(
                "SELECT value FROM meta WHERE name = 'accumulation'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(acc, j["config"]["accumulation"].as_str().unwrap());
    }
}

/// A small deterministic generator (splitmix64) for the random schedules.
struct Draw(u64);

impl Draw {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[test]
fn random_crash_schedules_leave_the_exactly_once_kinds_as_the_clean_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut draw = Draw(0x5eed);
    let (mut reached, mut over) = (0, 0);
    for case in 0..30 {
        let events = (300 + draw.below(2000)).to_string();
        let seed = draw.below(1000).to_string();
        let parallelism = (1 + draw.below(4)).to_string();
        let partitions = (1 + draw.below(4)).to_string();
        // A third of the cases checkpoint every 0.5 to 2 s over channels with a 2 to 15 s
        // mean transit: many checkpoints in flight at once.
        let short = draw.below(3) == 0;
        let every = if short {
            format!("{}ms", 500 + draw.below(1_500))
        } else {
            format!("{}s", 5 + draw.below(60))
        };
        let transit = if short {
            format!("{}ms", 2_000 + draw.below(13_000))
        } else {
            "200ms".to_string()
        };
        let barriers = ["aligned", "unaligned"][draw.below(2) as usize];
        let accumulation = ["accumulating", "discarding", "retracting"][draw.below(3) as usize];
        let early = ["off", "10s", "25s"][draw.below(3) as usize];
        let crashes: Vec<String> = (0..1 + draw.below(4))
            .map(|_| format!("{}ms", 1 + draw.below(700_000)))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let crash_at = crashes.join(",");
        let mut base = vec![
            "--events",
            &events,
            "--seed",
            &seed,
            "--parallelism",
            &parallelism,
            "--partitions",
            &partitions,
            "--checkpoint-every",
            &every,
            "--transit",
            &transit,
            "--barriers",
            barriers,
            "--accumulation",
            accumulation,
        ];
        if early != "off" {
            base.extend(["--early", early]);
        }
        let what = format!("case {case}: {base:?} --crash-at {crash_at}");
        let mut overcount = 0;
        for kind in ["idempotent", "transactional", "additive"] {
            let clean_db = d.join(format!("{case}-{kind}-clean.db"));
            let crash_db = d.join(format!("{case}-{kind}-crash.db"));
            let (clean_spec, crash_spec) = (
                format!("sqlite:{}", path_arg(&clean_db)),
                format!("sqlite:{}", path_arg(&crash_db)),
            );
            let mut clean = base.clone();
            clean.extend(["--sink", kind, "--output", &clean_spec]);
            run_json(&clean);
            let mut crashed = base.clone();
            crashed.extend([
                "--sink",
                kind,
                "--crash-at",
                &crash_at,
                "--output",
                &crash_spec,
            ]);
            let j = run_json(&crashed);
            if kind == "additive" {
                // Over by what the crashes delivered again, as the run reports it.
                reached += j["crashes"].as_array().unwrap().len();
                overcount = j["crashes"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| c["additive_overcount"].as_i64().unwrap())
                    .sum();
                assert_eq!(
                    sum_results(&crash_db) - sum_results(&clean_db),
                    overcount,
                    "{what}"
                );
            } else {
                assert_eq!(results(&crash_db), results(&clean_db), "{kind} {what}");
            }
        }
        over += overcount;
    }
    // The schedules did crash the jobs, and replays did over-count.
    assert!(reached >= 30, "{reached} crashes reached");
    assert!(over > 0);
}

#[test]
fn a_path_that_cannot_be_written_is_one_error_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let existing = d.join("old.db");
    std::fs::write(&existing, "an old run").unwrap();
    let readonly = d.join("ro.jsonl");
    std::fs::write(&readonly, "").unwrap();
    let mut perm = std::fs::metadata(&readonly).unwrap().permissions();
    perm.set_readonly(true);
    std::fs::set_permissions(&readonly, perm).unwrap();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![format!("sqlite:{}/missing/x.db", path_arg(d))],
            "does not exist",
        ),
        (vec![format!("jsonl:{}", path_arg(d))], "is a directory"),
        (
            vec![format!("sqlite:{}", path_arg(&existing))],
            "--force replaces it",
        ),
        (
            vec![format!("jsonl:{}", path_arg(&readonly)), "--force".into()],
            "read-only",
        ),
        (
            vec![format!("jsonl:{}/old.db/x", path_arg(d))],
            "is not a folder",
        ),
        (vec!["csv:x".into()], "not an output kind"),
        (vec!["sqlite:-".into()], "a database is a file"),
        (vec!["nothing".into()], "jsonl:FILE"),
        (
            vec![
                format!("jsonl:{}/a.jsonl", path_arg(d)),
                "--output".into(),
                format!("jsonl:{}/./a.jsonl", path_arg(d)),
            ],
            "name the same file",
        ),
        (
            vec!["jsonl:-".into(), "--output".into(), "jsonl:-".into()],
            "given twice",
        ),
    ];
    for (extra, says) in cases {
        let mut args = vec!["run".to_string(), "--output".to_string()];
        args.extend(extra);
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, out, err) = twoclocks_text(&a);
        assert_eq!(code, 2, "{a:?}: {err}");
        assert!(out.is_empty(), "{a:?}: nothing on standard output: {out}");
        assert_eq!(err.lines().count(), 1, "{a:?}: one line: {err}");
        assert!(err.contains(says), "{a:?}: {err}");
    }
    // The old file is untouched; with --force it is replaced by a database.
    assert_eq!(std::fs::read_to_string(&existing).unwrap(), "an old run");
    let spec = format!("sqlite:{}", path_arg(&existing));
    let (code, _, err) = twoclocks_text(&["run", "--output", &spec, "--force"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(sum_results(&existing), 19276);
    // A bad dial is refused before the output is created.
    let fresh = d.join("fresh.db");
    let spec = format!("sqlite:{}", path_arg(&fresh));
    let (code, _, _) = twoclocks_text(&["run", "--output", &spec, "--grace", "soon"]);
    assert_eq!(code, 2);
    assert!(!fresh.exists());
}

/// The `finals` view over the model: per cell, its rows added up as the mode means them.
fn finals_of(rows: &Rows, mode: Accumulation) -> BTreeMap<CellId, i64> {
    let mut out = BTreeMap::new();
    for (&(cell, _), &(value, retraction)) in rows {
        let v = out.entry(cell).or_insert(0);
        match mode {
            Accumulation::Accumulating => *v = value,
            Accumulation::Discarding => *v += value,
            Accumulation::Retracting => *v += value - retraction.unwrap_or(0),
        }
    }
    out
}

fn arb_engine() -> impl Strategy<Value = EngineConfig> {
    (
        5_000i64..60_000,
        0.0f64..20_000.0,
        prop::option::of(2_000.0f64..20_000.0),
        arb_accumulation(),
    )
        .prop_map(|(size, lag, early, accumulation)| EngineConfig {
            window: WindowFn::Tumbling { size, offset: 0 },
            watermark: WatermarkKind::Fixed { lag },
            grace: 10_000.0,
            early,
            accumulation,
            conventions: Default::default(),
            empty_panes: Default::default(),
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// The writes the pipeline records, carried out as the database carries them out, hold
    /// what the engine's sink of that kind holds, after any crash schedule; recording them
    /// changes no figure of the run.
    #[test]
    fn the_recorded_writes_hold_what_the_engines_sinks_hold(
        stream in arb_stream(400, 4),
        cfg in arb_pipeline_of(arb_engine(), 4),
        crashes in prop::collection::vec(0.0f64..1.1, 0..4),
    ) {
        let t0 = stream.events.first().map_or(0.0, |e| e.proc_time);
        let t1 = stream.events.last().map_or(0.0, |e| e.proc_time);
        let schedule = |p: &mut Pipeline<&twoclocks::engine::Stream>| {
            for &f in &crashes {
                p.schedule_crash(t0 + f * (t1 - t0), CrashTarget::Job).unwrap();
            }
        };
        let mut plain = Pipeline::new(&stream, cfg).unwrap();
        schedule(&mut plain);
        plain.run_to_end();
        for kind in SinkKind::ALL {
            let mut p = Pipeline::new(&stream, cfg).unwrap().record_sink_writes(kind);
            schedule(&mut p);
            let mut rows = Rows::new();
            let mut received = 0;
            while p.step().is_some() {
                for w in p.take_sink_writes() {
                    received += matches!(w, SinkWrite::Received(_)) as u64;
                    apply(&mut rows, &w);
                }
            }
            p.run_to_end();
            prop_assert_eq!(received, p.panes_received());
            prop_assert_eq!(p.counters(), plain.counters());
            prop_assert_eq!(p.finals(), plain.finals());
            for k in SinkKind::ALL {
                prop_assert_eq!(p.sink_output(k), plain.sink_output(k));
            }
            let want = p.sink_output(kind);
            let got = match kind {
                // The additive sink adds every pane it receives: its cell is its rows' sum.
                SinkKind::Additive => finals_of(&rows, Accumulation::Discarding),
                _ => finals_of(&rows, cfg.engine.accumulation),
            };
            prop_assert_eq!(got, want, "{}", kind);
        }
    }
}
