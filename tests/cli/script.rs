//! `twoclocks script`: Beam's own trigger transcripts (all 18 documents of
//! `trigger_transcripts.yaml` from Beam 2.77, Apache-2.0, kept whole with its licence header)
//! pass under Beam's rules, the 5 negative ones failing with the error each names; the
//! project's transcripts of the streams on which the engines differ pass under their own
//! engine's rules and fail under the others'; a failed check exits 1 naming the script, the
//! line and Beam's sentence; bad scripts are errors that name the file, line and value.

use std::io::Write;

use crate::cli_common::{json, twoclocks_text};

const BEAM: &str = "tests/transcripts/beam_trigger_transcripts.yaml";
const CONVENTIONS: [&str; 3] = ["beam", "beam-python", "flink"];

#[test]
fn beams_eighteen_transcripts_pass_under_beams_rules() {
    let (code, out, err) = twoclocks_text(&["script", BEAM]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.ends_with(
            "18 scripts under Beam Java rules (beam): 18 passed (13 clean, 5 failed as declared), 0 failed\n"
        ),
        "{out}"
    );
    // Beam's driver ignores a key it does not know; the one typo in Beam's file is named.
    assert!(
        err.contains(":240: unknown key `windowfn` ignored"),
        "{err}"
    );
    let doc = json(&["script", BEAM, "--format", "json"]);
    let scripts = doc["scripts"].as_array().unwrap();
    assert_eq!(scripts.len(), 18);
    let negative: Vec<(&str, &str)> = scripts
        .iter()
        .filter(|s| !s["error"].is_null())
        .map(|s| {
            assert_eq!(s["verdict"], "failed as declared", "{s}");
            let message = s["outcome"]["message"].as_str().unwrap();
            assert!(
                message.starts_with(s["error"].as_str().unwrap()),
                "{message}"
            );
            (s["name"].as_str().unwrap(), s["error"].as_str().unwrap())
        })
        .collect();
    assert_eq!(
        negative,
        [
            ("bad_output", "Unmatched output"),
            ("bad_expected_values", "Unmatched output"),
            ("bad_expected_window", "Unmatched output"),
            ("missing_output", "Unexpected output"),
            ("missing_output_at_end", "Unexpected output"),
        ]
    );
    // Every other script ran clean and checked at least one pane.
    for s in scripts.iter().filter(|s| s["error"].is_null()) {
        assert_eq!(s["verdict"], "passed", "{}", s["name"]);
        let panes: usize = s["steps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|st| st["panes"].as_array().unwrap().len())
            .sum();
        assert!(panes > 0, "{}", s["name"]);
    }
}

#[test]
fn the_transcripts_are_beams_file_as_it_is() {
    let text = std::fs::read_to_string(BEAM).unwrap();
    assert!(text.starts_with("#\n# Licensed to the Apache Software Foundation (ASF)"));
    assert_eq!(text.matches("\nname: ").count(), 18);
    // Beam's own spelling, which YAML 1.2 refuses and PyYAML reads.
    assert!(text.contains("values:[1, 2, 3, 4, 5]"));
}

#[test]
fn each_engines_transcripts_pass_under_its_rules_only() {
    for file in CONVENTIONS {
        let path = format!("tests/transcripts/conventions/{file}.yaml");
        for rules in CONVENTIONS {
            let (code, out, err) = twoclocks_text(&["script", &path, "--conventions", rules]);
            if file == rules {
                assert_eq!(code, 0, "{path} under {rules}: {err}");
                assert!(out.contains(": 8 passed (8 clean"), "{out}");
            } else {
                assert_eq!(code, 1, "{path} under {rules} should fail: {out}");
                assert!(err.contains("scripts did not pass; the first,"), "{err}");
            }
        }
    }
}

#[test]
fn kafka_streams_transcripts_pass_under_its_rules_only() {
    let path = "tests/transcripts/conventions/kafka-streams.yaml";
    let (code, out, err) = twoclocks_text(&["script", path, "--conventions", "kafka-streams"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(": 5 passed (5 clean"), "{out}");
    for rules in CONVENTIONS {
        let (code, out, _) = twoclocks_text(&["script", path, "--conventions", rules]);
        assert_eq!(code, 1, "{path} under {rules} should fail: {out}");
    }
    for file in CONVENTIONS {
        let other = format!("tests/transcripts/conventions/{file}.yaml");
        // A file with a trigger Kafka Streams cannot run is refused, naming the script.
        let (code, _, err) = twoclocks_text(&["script", &other, "--conventions", "kafka-streams"]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("Kafka Streams has no triggers"), "{err}");
        assert!(err.contains("--name runs one script"), "{err}");
        // Its scripts with the default trigger run, and emit Kafka's results, not theirs.
        let (code, out, _) = twoclocks_text(&[
            "script",
            &other,
            "--conventions",
            "kafka-streams",
            "--name",
            "touching_sessions",
        ]);
        assert_eq!(code, 1, "{other} under kafka-streams should fail: {out}");
    }
}

/// The pane of `script` in the JSON of `file` run under `rules`, as `(timing, values)`.
fn panes(file: &str, rules: &str, script: &str) -> Vec<(String, Vec<i64>, bool)> {
    let doc = json(&[
        "script",
        &format!("tests/transcripts/conventions/{file}.yaml"),
        "--conventions",
        rules,
        "--name",
        script,
        "--format",
        "json",
    ]);
    doc["scripts"][0]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|st| st["panes"].as_array().unwrap().clone())
        .map(|p| {
            (
                p["timing"].as_str().unwrap().to_string(),
                p["values"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_i64().unwrap())
                    .collect(),
                p["is_last"].as_bool().unwrap(),
            )
        })
        .collect()
}

#[test]
fn the_engines_differ_where_their_sources_say() {
    let p = |rules: &str, script: &str| panes(rules, rules, script);
    let t = |timing: &str, values: &[i64], last: bool| (timing.to_string(), values.to_vec(), last);
    // Touching sessions: two in Beam, one in Flink.
    assert_eq!(
        p("beam", "touching_sessions"),
        [t("ON_TIME", &[0], true), t("ON_TIME", &[10], true)]
    );
    assert_eq!(
        p("flink", "touching_sessions"),
        [t("ON_TIME", &[0, 10], false)]
    );
    // The drop boundary: at W = end + L Beam Java drops, Beam Python keeps; at W = end + L − 1
    // Flink already drops.
    assert_eq!(p("beam", "drop_boundary_at_15").len(), 1);
    assert_eq!(
        p("beam-python", "drop_boundary_at_15")[1],
        t("LATE", &[1, 3], false)
    );
    assert_eq!(p("beam", "drop_boundary_at_14").len(), 2);
    assert_eq!(p("flink", "drop_boundary_at_14").len(), 1);
    // A late element whose own window bridges two sessions: dropped by Beam (its own window
    // is too late); kept by Flink (the merged window is not), merged with the second session
    // only, the first having been cleared at its cleanup time (as real Flink did:
    // tests/real_engines, bridging-expired-session).
    assert_eq!(p("beam", "late_event_bridges_sessions").len(), 2);
    assert_eq!(
        p("flink", "late_event_bridges_sessions")[2],
        t("LATE", &[8, 15], false)
    );
    // No empty on-time pane in Flink.
    assert_eq!(p("beam", "empty_on_time_pane")[1], t("ON_TIME", &[], true));
    assert_eq!(p("flink", "empty_on_time_pane").len(), 1);
    // Beam Java's closing pane at collection.
    assert_eq!(
        p("beam", "closing_pane_at_collection")[1],
        t("LATE", &[1, 2], true)
    );
    assert_eq!(p("beam-python", "closing_pane_at_collection").len(), 1);
    // The merged window's rewind: Beam Java waits for the watermark, Beam Python fires.
    assert_eq!(
        p("beam", "merged_window_rewinds")[1],
        t("ON_TIME", &[0, 9], false)
    );
    assert_eq!(
        p("beam-python", "merged_window_rewinds")[1],
        t("EARLY", &[0, 9], false)
    );
}

fn script_file(text: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new().suffix(".yaml").tempfile().unwrap();
    f.write_all(text.as_bytes()).unwrap();
    f
}

#[test]
fn a_failed_check_exits_1_naming_the_script_line_and_pane() {
    let f = script_file(
        "name: off_by_one\nwindow_fn: FixedWindows(10)\ntranscript:\n  - input: [1, 2]\n  - watermark: 10\n  - expect:\n      - {window: [0, 9], values: [1, 2, 3]}\n",
    );
    let path = f.path().to_str().unwrap();
    let (code, out, err) = twoclocks_text(&["script", path]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("FAILED: line 7: Unmatched output {window: [0, 9], values: [1, 2, 3]} in [{window: [0, 9], values: [1, 2]"), "{out}");
    assert!(
        err.contains(&format!(
            "{path}: 1 of 1 script did not pass; the first, off_by_one (line 1): line 7: Unmatched output"
        )),
        "{err}"
    );
}

#[test]
fn a_script_without_expectations_is_shown_whole() {
    let f = script_file(
        "name: look\nwindow_fn: Sessions(10)\ntrigger_fn: AfterWatermark(early=AfterCount(1))\ntranscript:\n  - input: [1]\n  - input: [5]\n  - watermark: 100\n",
    );
    let (code, out, _) = twoclocks_text(&["script", f.path().to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(out.contains("EARLY    window [1, 10]  values [1]"), "{out}");
    assert!(
        out.contains("EARLY    window [1, 14]  values [1, 5]"),
        "{out}"
    );
    assert!(
        out.contains("ON_TIME  window [1, 14]  values [1, 5]"),
        "{out}"
    );
    assert!(out.contains("shown, not checked"), "{out}");
}

#[test]
fn bad_scripts_name_the_file_line_and_value() {
    for (text, part) in [
        (
            "name: x\ntrigger_fn: AfterCount(0)\ntranscript: []\n",
            ":2: trigger_fn `AfterCount(0)`: at column 1: AfterCount(0): the count must be at least 1",
        ),
        (
            "name: x\ntrigger_fn: AfterWatermark(early=AfterCont(2))\ntranscript: []\n",
            ":2: trigger_fn `AfterWatermark(early=AfterCont(2))`: at column 22: unknown trigger `AfterCont`",
        ),
        (
            "name: x\nwindow_fn: TumblingWindows(10)\ntranscript: []\n",
            ":2: window_fn `TumblingWindows(10)`: unknown window function `TumblingWindows`",
        ),
        (
            "name: x\ntranscript:\n  - input: [1, two]\n",
            ":3: input `two`: expected a whole number",
        ),
        (
            "name: x\ntranscript:\n  - flush: 3\n",
            ":3: a step `{flush: 3}`: unknown step `flush`",
        ),
        ("name: x\n", ":1: script `x` has no `transcript:` list of steps"),
        ("name: [x\n", "not YAML"),
        (
            "name: x\ntimestamp_combiner: OUTPUT_AT_NOON\ntranscript: []\n",
            ":2: timestamp_combiner `OUTPUT_AT_NOON`: expected OUTPUT_AT_EOW",
        ),
    ] {
        let f = script_file(text);
        let (code, _, err) = twoclocks_text(&["script", f.path().to_str().unwrap()]);
        assert_eq!(code, 2, "{text}: {err}");
        assert!(err.contains(part), "{text}\n{err}");
    }
    let (code, _, err) = twoclocks_text(&["script", BEAM, "--name", "nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("--name: no script named 'nope'"), "{err}");
}

#[test]
fn transcripts_from_beam_javas_tests_pass_under_its_rules() {
    let (code, out, err) = twoclocks_text(&["script", "tests/transcripts/beam_java.yaml"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.ends_with("20 scripts under Beam Java rules (beam): 20 passed (20 clean, 0 failed as declared), 0 failed\n"),
        "{out}"
    );
    // Each cites the Java test it was written from.
    let text = std::fs::read_to_string("tests/transcripts/beam_java.yaml").unwrap();
    assert_eq!(
        text.matches("\n# From ").count(),
        text.matches("\nname: ").count(),
        "every transcript names its Java test"
    );
}

#[test]
fn the_known_differences_from_beam_java_still_differ() {
    // When one passes, twoclocks has learned it: move it to beam_java.yaml.
    let (code, out, _) = twoclocks_text(&[
        "script",
        "tests/transcripts/beam_java_differences.yaml",
        "--format",
        "json",
    ]);
    assert_eq!(code, 1);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let scripts = doc["scripts"].as_array().unwrap();
    assert_eq!(scripts.len(), 1);
    for s in scripts {
        assert_eq!(s["passed"], false, "{} passes now", s["name"]);
    }
}

#[test]
fn times_at_the_ends_of_beams_range_run_and_beyond_it_are_refused() {
    let end = "9223372036854775";
    let f = script_file(&format!(
        "name: ends\nwindow_fn: SlidingWindows({end}, 9223372036854774)\ntrigger_fn: AfterWatermark(early=AfterProcessingTime({end}), late=AfterCount(1))\nallowed_lateness: {end}\ntranscript:\n  - input: [{end}, -{end}, 0]\n  - clock: {end}\n  - watermark: -{end}\n  - watermark: {end}\n  - input: [5]\n"
    ));
    let (code, out, err) = twoclocks_text(&["script", f.path().to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    for (text, part) in [
        (
            "name: x\ntranscript:\n  - input: [9223372036854776]\n",
            ":3: input `9223372036854776`: beyond Beam's range of time",
        ),
        (
            "name: x\nwindow_fn: FixedWindows(9223372036854776)\ntranscript: []\n",
            "not a whole number within Beam's range of time",
        ),
        (
            "name: x\ntrigger_fn: AfterProcessingTime(9223372036854776)\ntranscript: []\n",
            "beyond Beam's range of time",
        ),
    ] {
        let f = script_file(text);
        let (code, _, err) = twoclocks_text(&["script", f.path().to_str().unwrap()]);
        assert_eq!(code, 2, "{text}: {err}");
        assert!(err.contains(part), "{text}\n{err}");
    }
}

/// `twoclocks script` on `text`, which it must refuse (exit 2): its error line.
fn refused_script(text: &str) -> String {
    let f = script_file(text);
    let (code, out, err) = twoclocks_text(&["script", f.path().to_str().unwrap()]);
    assert_eq!(code, 2, "{text}\n{out}{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{text}\n{err}");
    err
}

#[test]
fn a_key_given_twice_is_refused_naming_it() {
    // AfterWatermark's `early=` twice was taken, the last one kept.
    let err = refused_script(
        "name: x\ntrigger_fn: AfterWatermark(early=AfterCount(1), early=AfterCount(2))\ntranscript: []\n",
    );
    assert!(
        err.contains(":2: trigger_fn `AfterWatermark(early=AfterCount(1), early=AfterCount(2))`: at column 37: AfterWatermark takes `early=` once"),
        "{err}"
    );
    let err = refused_script(
        "name: x\ntrigger_fn: AfterWatermark(late=AfterCount(1), late=Never)\ntranscript: []\n",
    );
    assert!(err.contains("AfterWatermark takes `late=` once"), "{err}");
    // A YAML key twice, in a pane or in the script.
    let err = refused_script(
        "name: x\nwindow_fn: FixedWindows(10)\ntranscript:\n  - input: [1]\n  - watermark: 10\n  - expect:\n      - {window: [0, 9], values: [1], early: false,\n         early: true}\n",
    );
    assert!(
        err.contains(":8: the key 'early' is given twice in one mapping (first on line 7)"),
        "{err}"
    );
    let err = refused_script("name: x\nwindow_fn: FixedWindows(10)\nname: y\ntranscript: []\n");
    assert!(
        err.contains(":3: the key 'name' is given twice in one mapping (first on line 1)"),
        "{err}"
    );
}

#[test]
fn a_window_written_backwards_is_refused_when_read() {
    // It was read, and the check said "Unmatched output" of a window no run could emit.
    let err = refused_script(
        "name: x\nwindow_fn: FixedWindows(10)\ntranscript:\n  - input: [1]\n  - watermark: 10\n  - expect:\n      - {window: [9, 0], values: [1]}\n",
    );
    assert!(
        err.contains(":7: window `[9, 0]`: a window's end must be after its start"),
        "{err}"
    );
    // A window of one instant is a window.
    let f = script_file(
        "name: x\nwindow_fn: FixedWindows(1)\ntranscript:\n  - input: [3]\n  - watermark: 10\n  - expect:\n      - {window: [3, 3], values: [3]}\n",
    );
    let (code, out, err) = twoclocks_text(&["script", f.path().to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn a_yaml_tag_or_alias_is_refused_naming_its_line() {
    // The tag was dropped and the value under it read as if untagged.
    let err = refused_script(
        "name: x\nwindow_fn: FixedWindows(10)\ntranscript:\n  - input: [1]\n  - state: !!python/object:apache_beam.Foo {a: 1}\n",
    );
    assert!(
        err.contains(":5: the YAML tag '!!python/object:apache_beam.Foo' is not read"),
        "{err}"
    );
    let err = refused_script("name: !custom x\ntranscript: []\n");
    assert!(
        err.contains(":1: the YAML tag '!custom' is not read"),
        "{err}"
    );
    // The schema's own tags say what a plain value is.
    let f = script_file(
        "name: !!str x\nwindow_fn: FixedWindows(10)\ntranscript:\n  - input: [!!int 1]\n",
    );
    let (code, out, err) = twoclocks_text(&["script", f.path().to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    // An alias copies what its anchor names: a few lines could stand for billions of values.
    let err = refused_script(
        "name: x\nwindow_fn: FixedWindows(10)\ntranscript:\n  - input: &a [1]\n  - input: *a\n",
    );
    assert!(err.contains(":5: an alias (`*name`) is not read"), "{err}");
}

#[test]
fn beams_range_is_the_same_at_both_ends() {
    // Beam's BoundedWindow.TIMESTAMP_MIN_VALUE and MAX_VALUE are ±9223372036854775 ms; the
    // lowest whole number, -9223372036854775808, was taken where its opposite was refused.
    for (text, part) in [
        (
            "name: x\ntranscript:\n  - watermark: -9223372036854775808\n",
            ":3: watermark `-9223372036854775808`: beyond Beam's range of time, ±9223372036854775",
        ),
        (
            "name: x\ntranscript:\n  - input: [-9223372036854776]\n",
            ":3: input `-9223372036854776`: beyond Beam's range of time",
        ),
        (
            "name: x\nallowed_lateness: -9223372036854775808\ntranscript: []\n",
            ":2: allowed_lateness `-9223372036854775808`: beyond Beam's range of time",
        ),
        (
            "name: x\nwindow_fn: FixedWindows(-9223372036854775808)\ntranscript: []\n",
            "`-9223372036854775808` is not a whole number within Beam's range of time",
        ),
        (
            "name: x\ntrigger_fn: AfterProcessingTime(-9223372036854775808)\ntranscript: []\n",
            "`-9223372036854775808` is beyond Beam's range of time",
        ),
    ] {
        let err = refused_script(text);
        assert!(err.contains(part), "{text}\n{err}");
    }
}

#[test]
fn arguments_given_in_order_read_as_beam_python_reads_them() {
    // `AfterWatermark(AfterCount(2), AfterCount(1))` is early=AfterCount(2), late=AfterCount(1)
    // in Beam's transcript reader; it was refused (`AfterWatermark takes only `early=` and
    // `late=``). The transcript is tests/transcripts/positional_arguments.yaml, whose panes
    // Beam 2.78's trigger driver gave.
    let path = "tests/transcripts/positional_arguments.yaml";
    for rules in ["beam", "beam-python"] {
        let (code, out, err) = twoclocks_text(&["script", path, "--conventions", rules]);
        assert_eq!(code, 0, "{rules}: {out}{err}");
        assert!(out.contains(": 2 passed (2 clean"), "{out}");
        assert!(
            out.contains("AfterWatermark(early=AfterCount(2), late=AfterCount(1))"),
            "{out}"
        );
    }
    let err = refused_script(
        "name: x\ntrigger_fn: AfterWatermark(AfterCount(1), AfterCount(2), AfterCount(3))\ntranscript: []\n",
    );
    assert!(
        err.contains("(Beam: `AfterWatermark.__init__() takes from 1 to 3 positional arguments but 4 were given`)"),
        "{err}"
    );
}

#[test]
fn a_trigger_nested_at_any_depth_is_refused_in_one_line() {
    // 20 000 `Repeatedly(` overflowed the stack (exit 134).
    for n in [100, 20_000] {
        let text = format!(
            "name: deep\nwindow_fn: FixedWindows(10)\ntrigger_fn: {}AfterCount(1){}\ntranscript:\n  - input: [1]\n",
            "Repeatedly(".repeat(n),
            ")".repeat(n)
        );
        let err = refused_script(&text);
        assert!(
            err.contains(":3: trigger_fn `Repeatedly(Repeatedly("),
            "{err}"
        );
        assert!(
            err.contains(&format!(
                "({} characters): at column 1101: the trigger nests more than 100 deep",
                n * 12 + 13
            )),
            "{err}"
        );
    }
    // 99 inside one another run.
    let f = script_file(&format!(
        "name: deep\nwindow_fn: FixedWindows(10)\ntrigger_fn: {}AfterCount(1){}\ntranscript:\n  - input: [1]\n",
        "Repeatedly(".repeat(99),
        ")".repeat(99)
    ));
    let (code, out, err) = twoclocks_text(&["script", f.path().to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("ON_TIME") || out.contains("EARLY"), "{out}");
}

#[test]
fn yaml_nested_at_any_depth_is_refused_in_one_line() {
    // Lists nested 10 000 deep in block style overflowed the stack (exit 134); in flow style
    // the YAML reader stops at 255.
    for (text, part) in [
        (
            format!(
                "name: x\ntranscript:\n  - input:\n    {}1\n",
                "- ".repeat(10_000)
            ),
            ":4: lists and mappings nest more than 100 deep here",
        ),
        (
            format!(
                "name: x\ntranscript:\n  - state: {}{}\n",
                "[".repeat(100_000),
                "]".repeat(100_000)
            ),
            ":3: not YAML: recursion limit exceeded",
        ),
        (
            format!(
                "name: x\ntranscript:\n  - state: {}1{}\n",
                "{a: ".repeat(200),
                "}".repeat(200)
            ),
            ":3: lists and mappings nest more than 100 deep here",
        ),
        (
            format!(
                "name: x\ntranscript:\n  - state:\n{}\n",
                (0..5_000)
                    .map(|i| format!("{}a:", " ".repeat(i + 6)))
                    .collect::<Vec<_>>()
                    .join("\n")
            ),
            ":101: lists and mappings nest more than 100 deep here",
        ),
    ] {
        let err = refused_script(&text);
        assert!(err.contains(part), "{err}");
    }
}

#[test]
fn a_watermark_or_clock_that_goes_back_is_refused_naming_both_lines() {
    // The watermark was moved back to 10, and the element at 5 then dropped from [0, 10)
    // "at watermark 10".
    let err = refused_script(
        "name: x\nwindow_fn: FixedWindows(10)\ntranscript:\n  - input: [1]\n  - watermark: 50\n  - watermark: 10\n  - input: [5]\n",
    );
    assert!(
        err.contains(":6: watermark `10`: goes back from 50 (line 5): a watermark only moves forward (Beam's TestStream: `The watermark must monotonically advance`)"),
        "{err}"
    );
    let err = refused_script(
        "name: x\ntrigger_fn: AfterProcessingTime(5)\ntranscript:\n  - clock: 50\n  - input: [1]\n  - watermark: 0\n  - clock: 40\n",
    );
    assert!(
        err.contains(
            ":7: clock `40`: goes back from 50 (line 4): processing time only moves forward"
        ),
        "{err}"
    );
    // Staying put moves nothing, and each script has its own clocks.
    let f = script_file(
        "name: x\ntranscript:\n  - watermark: 50\n  - watermark: 50\n  - clock: 7\n  - clock: 7\n---\nname: y\ntranscript:\n  - watermark: 10\n  - clock: 1\n",
    );
    let (code, out, err) = twoclocks_text(&["script", f.path().to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn a_number_that_does_not_fit_is_shown_as_written() {
    // `1e30` was shown as 1000000000000000000000000000000 and said not to be a whole number.
    for (step, key) in [
        ("  - input: [{n}]\n", "input"),
        ("  - watermark: {n}\n", "watermark"),
        ("  - clock: {n}\n", "clock"),
        ("  - expect:\n      - {window: [0, {n}]}\n", "window"),
        ("  - expect:\n      - {values: [{n}]}\n", "values"),
        ("  - expect:\n      - {timestamp: {n}}\n", "timestamp"),
        ("  - expect:\n      - {index: {n}}\n", "index"),
        (
            "  - expect:\n      - {nonspeculative_index: {n}}\n",
            "nonspeculative_index",
        ),
        ("allowed_lateness: {n}\n", "allowed_lateness"),
    ] {
        for n in [
            "100000000000000000000000",
            "1e30",
            "-1e30",
            "-123456789012345678901234567",
            ".inf",
        ] {
            let text = format!("name: x\ntranscript:\n{}", step.replace("{n}", n));
            let err = refused_script(&text);
            assert!(
                err.contains(&format!(
                    "{key} `{n}`: beyond Beam's range of time, ±9223372036854775"
                )),
                "{text}\n{err}"
            );
        }
    }
}

#[test]
fn run_refuses_a_trigger_nested_too_deep_in_one_line() {
    // The expression reader is run's too: 10 000 `Repeatedly(` (a 120 KB argument, under the
    // system's limit for one) overflowed the stack there as well.
    let trigger = format!(
        "{}AfterCount(1){}",
        "Repeatedly(".repeat(10_000),
        ")".repeat(10_000)
    );
    let (code, out, err) = twoclocks_text(&[
        "run",
        "--input",
        "tests/real_engines/logs/touching-sessions.csv",
        "--window",
        "10s",
        "--trigger",
        &trigger,
    ]);
    assert_eq!(code, 2, "{out}{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("(120013 characters): at column 1101: the trigger nests more than 100 deep"),
        "{err}"
    );
}

#[test]
fn a_window_functions_arguments_bind_as_python_binds_them() {
    // A name was dropped and its number taken in order: `FixedWindows(banana=10)` ran as
    // FixedWindows(10), and `FixedWindows(10, offset=5)` was refused.
    let err = refused_script("name: x\nwindow_fn: FixedWindows(banana=10)\ntranscript: []\n");
    assert!(
        err.contains(":2: window_fn `FixedWindows(banana=10)`: FixedWindows takes only `size=` and `offset=` (Beam: `FixedWindows.__init__() got an unexpected keyword argument 'banana'`)"),
        "{err}"
    );
    for (window, beam) in [
        (
            "FixedWindows(10, size=10)",
            "FixedWindows.__init__() got multiple values for argument 'size'",
        ),
        (
            "FixedWindows(10, 5, 1)",
            "FixedWindows.__init__() takes from 2 to 3 positional arguments but 4 were given",
        ),
        (
            "SlidingWindows(10)",
            "SlidingWindows.__init__() missing 1 required positional argument: 'period'",
        ),
        (
            "Sessions(gap=10)",
            "Sessions.__init__() got an unexpected keyword argument 'gap'",
        ),
        ("GlobalWindows(1)", "GlobalWindows() takes no arguments"),
    ] {
        let err = refused_script(&format!("name: x\nwindow_fn: {window}\ntranscript: []\n"));
        assert!(err.contains(&format!("(Beam: `{beam}`)")), "{err}");
    }
    // Offsets, in order or by name, and Python's trailing comma.
    for (window, shown, pane) in [
        (
            "FixedWindows(10, 5)",
            "FixedWindows(10, offset=5)",
            "window [5, 14]",
        ),
        (
            "FixedWindows(offset=5, size=10,)",
            "FixedWindows(10, offset=5)",
            "window [5, 14]",
        ),
        ("Sessions(gap_size=10)", "Sessions(10)", "window [7, 16]"),
    ] {
        let f = script_file(&format!(
            "name: x\nwindow_fn: {window}\ntranscript:\n  - input: [7]\n  - watermark: 100\n"
        ));
        let (code, out, err) = twoclocks_text(&["script", f.path().to_str().unwrap()]);
        assert_eq!(code, 0, "{window}: {out}{err}");
        assert!(out.contains(&format!("x (line 1): {shown} ·")), "{out}");
        assert!(out.contains(&format!("ON_TIME  {pane}")), "{out}");
    }
}
