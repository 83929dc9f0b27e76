//! `twoclocks advise` and `--plot` as a user meets them: the JSON's fields, the advised
//! setting meeting the target, the plots written as SVG (with their labels) and PNG (decoding
//! at the right size), and a bad plot path refused before any work.

use crate::cli_common::{stderr, stdout, twoclocks, twoclocks_text};

fn advice_json(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["advise", "--events", "3000", "--format", "json"];
    all.extend_from_slice(args);
    let o = twoclocks(&all);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_str(&stdout(&o)).expect("advise prints one JSON object")
}

#[test]
fn advise_json_names_each_kind_and_its_advised_setting() {
    let j = advice_json(&["--target-accuracy", "99%"]);
    assert_eq!(j["target_accuracy"], 99.0);
    let kinds = j["kinds"].as_array().unwrap();
    let names: Vec<&str> = kinds
        .iter()
        .map(|k| k["watermark"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["fixed", "heuristic", "bounded"]);
    for k in kinds {
        let a = &k["advised"];
        assert_eq!(a["advised"], true);
        for field in [
            "lag_ms",
            "grace_ms",
            "emit_delay_ms",
            "events_lost",
            "wrong_windows",
            "accuracy",
            "state_bytes",
        ] {
            assert!(!a[field].is_null(), "{field} of {k}");
        }
        if k["meets_target"] == true {
            assert!(a["accuracy"].as_f64().unwrap() >= 99.0);
        }
        assert!(a["emit_delay_ms"].as_f64().unwrap() <= 120_000.0);
    }
    // Every setting printed is on its kind's frontier or is the advised one.
    for s in j["settings"].as_array().unwrap() {
        assert!(s["pareto"] == true || s["advised"] == true);
    }
    assert!(j["advised"].is_object());
}

#[test]
fn an_unreachable_target_gives_the_most_accurate_setting() {
    let j = advice_json(&[
        "--watermarks",
        "fixed",
        "--max-delay",
        "5s",
        "--target-accuracy",
        "100",
    ]);
    let k = &j["kinds"][0];
    assert_eq!(k["meets_target"], false);
    let best = j["settings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["accuracy"].as_f64().unwrap())
        .fold(0.0, f64::max);
    assert_eq!(k["advised"]["accuracy"].as_f64().unwrap(), best);
    let (code, out, _) = twoclocks_text(&[
        "advise",
        "--events",
        "3000",
        "--watermarks",
        "fixed",
        "--max-delay",
        "5s",
        "--target-accuracy",
        "100",
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("no setting reaches 100%"), "{out}");
}

#[test]
fn the_table_marks_the_advised_setting() {
    let (code, out, err) =
        twoclocks_text(&["advise", "--events", "3000", "--watermarks", "bounded"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("bounded watermark:"), "{out}");
    assert!(out.contains("◀ advised"), "{out}");
    assert!(out.contains("state at most"), "{out}");
}

fn png_size(path: &std::path::Path) -> (u32, u32) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().expect("the PNG decodes");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("its frame decodes");
    (info.width, info.height)
}

#[test]
fn plots_are_written_as_svg_and_png() {
    let dir = tempfile::tempdir().unwrap();
    for cmd in ["advise", "frontier"] {
        let svg = dir.path().join(format!("{cmd}.svg"));
        let png = dir.path().join(format!("{cmd}.png"));
        for path in [&svg, &png] {
            let o = twoclocks(&[cmd, "--events", "3000", "--plot", path.to_str().unwrap()]);
            assert!(o.status.success(), "{cmd}: {}", stderr(&o));
        }
        let text = std::fs::read_to_string(&svg).unwrap();
        for label in [
            "dashboard",
            "alerting",
            "billing",
            "emit delay",
            "accuracy",
            "frontier",
        ] {
            assert!(text.contains(label), "{cmd}'s SVG lacks {label:?}");
        }
        assert!(text.contains(if cmd == "advise" {
            "advised"
        } else {
            "cheapest for"
        }));
        assert_eq!(png_size(&png), (960, 600), "{cmd}");
    }
}

#[test]
fn a_bad_plot_path_is_refused_before_any_work() {
    let (code, _, err) = twoclocks_text(&["advise", "--plot", "/nonexistent-dir/a.svg"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--plot: folder '/nonexistent-dir' does not exist"),
        "{err}"
    );
    let (code, _, err) = twoclocks_text(&["frontier", "--plot", "a.pdf"]);
    assert_eq!(code, 2);
    assert!(err.contains(".svg or .png"), "{err}");
    assert!(!std::path::Path::new("a.pdf").exists());
}

#[test]
fn advise_refuses_dials_it_sweeps() {
    for (flags, needle) in [
        (&["--grace", "10s"][..], "--grace"),
        (&["--watermark", "fixed:2s"][..], "--watermarks"),
        (&["--target-accuracy", "0"][..], "target accuracy"),
        (&["--watermarks", "perfect"][..], "not a watermark kind"),
    ] {
        let mut args = vec!["advise"];
        args.extend_from_slice(flags);
        let (code, _, err) = twoclocks_text(&args);
        assert_eq!(code, 2, "{flags:?}");
        assert!(err.contains(needle), "{flags:?}: {err}");
    }
}

#[test]
fn the_advised_setting_exports_with_the_flags_advise_prints() {
    for window in [
        &["--window", "30s"][..],
        &["--window", "45s", "--slide", "15s"][..],
        &["--session", "30s"][..],
        &["--window", "global", "--ttl", "1m", "--ttl-time", "event"][..],
    ] {
        let mut args = vec![
            "advise",
            "--events",
            "3000",
            "--watermarks",
            "fixed,bounded",
        ];
        args.extend_from_slice(window);
        let (code, out, err) = twoclocks_text(&args);
        assert_eq!(code, 0, "{err}");
        let line = out
            .lines()
            .last()
            .and_then(|l| l.strip_prefix("to write it for your engine: twoclocks export --to flink|flink-sql|beam|kafka-streams "))
            .unwrap_or_else(|| panic!("no export line in {out}"));
        let flags: Vec<&str> = line.split(' ').collect();
        assert!(line.starts_with(&window.join(" ")), "{line}");
        for to in ["flink", "flink-sql", "beam", "kafka-streams"] {
            let mut export = vec!["export", "--to", to];
            export.extend_from_slice(&flags);
            let (code, code_out, err) = twoclocks_text(&export);
            assert_eq!(code, 0, "{to} {line}: {err}");
            let grace = flags[flags.iter().position(|&f| f == "--grace").unwrap() + 1];
            assert!(
                code_out.contains(&format!("grace {grace}")),
                "{to}: {code_out}"
            );
        }
    }
}

/// `twoclocks ARGS --format json`, parsed (it must succeed).
fn json_of(args: &[&str]) -> serde_json::Value {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    let o = twoclocks(&all);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    serde_json::from_str(&stdout(&o)).expect("one JSON object")
}

#[test]
fn advise_under_each_engines_rules_scores_each_setting_as_run_does() {
    // The log whose drop boundary the real engines were run on: the rules differ on it.
    let log = "tests/real_engines/logs/drop-boundary.csv";
    let mut answers = Vec::new();
    for rules in ["beam", "beam-python", "flink"] {
        let base = ["--input", log, "--window", "10s", "--conventions", rules];
        // A grid of whole seconds, so that lag + grace lands on the boundaries.
        let mut args = vec![
            "advise",
            "--max-delay",
            "24s",
            "--watermarks",
            "fixed,bounded",
        ];
        args.extend(base);
        let j = json_of(&args);
        assert_eq!(
            j["conventions"].as_str(),
            (rules != "beam").then_some(rules),
            "{rules}"
        );
        let settings = j["settings"].as_array().unwrap();
        assert!(settings.len() >= 5, "{rules}: {}", settings.len());
        // Every setting it lists, run on its own under the same rules.
        for s in settings {
            let kind = s["watermark"].as_str().unwrap();
            let watermark = format!("{kind}:{}ms", s["lag_ms"].as_f64().unwrap());
            let grace = format!("{}ms", s["grace_ms"].as_f64().unwrap());
            let mut run = vec!["run", "--watermark", &watermark, "--grace", &grace];
            run.extend(base);
            let r = json_of(&run);
            let what = format!("{rules}: {watermark}, grace {grace}");
            assert_eq!(s["events_lost"], r["events_lost"], "{what}");
            assert_eq!(s["wrong_windows"], r["wrong_windows"], "{what}");
        }
        answers.push(j["settings"].clone());
    }
    // And the rules matter on this log: Beam Python keeps what Beam Java drops at equality.
    // Flink's bounded watermark trails by one more ms and its windows end one ms earlier,
    // which cancel (docs/scripts.md), so its advice here is Beam Java's.
    assert_ne!(answers[0], answers[1]);
    assert_eq!(answers[0], answers[2]);
}
