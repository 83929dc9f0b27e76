//! Tour files: a small good one parses; a bad one is refused with the file, the line and the
//! field (in process, and through the binary with exit code 2 before the UI opens), for every
//! field a step may set; and odd values of the fields are errors, never a panic.

use twoclocks::engine::scenario::ScenarioName;
use twoclocks::tui::panel::Panel;
use twoclocks::tui::tour::Tour;

use crate::cli_common;
use crate::tour_common::GOOD_STEP;

fn bad(text: &str) -> String {
    Tour::parse("lesson.toml", text).unwrap_err().to_string()
}

#[test]
fn a_good_small_tour_parses() {
    let t = Tour::parse("lesson.toml", GOOD_STEP).unwrap();
    assert_eq!(t.steps.len(), 1);
    assert_eq!(t.steps[0].scenario, ScenarioName::Lesson);
    assert_eq!(t.steps[0].magnify, None, "the scenario's own");
    let t = Tour::parse(
        "lesson.toml",
        &format!("{GOOD_STEP}show = [\"plot\", \"counters\"]\nmagnify = \"off\"\n"),
    )
    .unwrap();
    let show = t.steps[0].show;
    assert!(show.shows(Panel::Plot) && show.shows(Panel::Counters) && show.shows(Panel::Footer));
    assert!(!show.shows(Panel::Watermark) && !show.shows(Panel::Dials));
    assert_eq!(t.steps[0].magnify, Some(None));
}

#[test]
fn bad_tour_files_name_the_file_the_line_and_the_field() {
    let cases = [
        // A wrong type.
        (
            format!("{GOOD_STEP}job = \"yes\"\n"),
            "lesson.toml: line 4: job:",
        ),
        // An unknown field.
        (
            format!("{GOOD_STEP}colour = \"red\"\n"),
            "lesson.toml: line 4: colour:",
        ),
        // An unknown placeholder.
        (
            "[[step]]\ntitle = \"One\"\n\ncaption = \"{lateness} late\"\n".to_string(),
            "lesson.toml: line 4: caption: unknown placeholder {lateness}",
        ),
        // A bad scenario.
        (
            format!("{GOOD_STEP}scenario = \"rainy\"\n"),
            "lesson.toml: line 4: scenario: \"rainy\" is not a scenario",
        ),
        // A dial out of range.
        (
            format!("{GOOD_STEP}grace = \"99m\"\n"),
            "lesson.toml: line 4: grace:",
        ),
        // A panel that is not one.
        (
            format!("{GOOD_STEP}highlight = \"sidebar\"\n"),
            "lesson.toml: line 4: highlight:",
        ),
        // A playhead past the stream's end.
        (
            format!("{GOOD_STEP}playhead = \"90m\"\n"),
            "lesson.toml: line 4: playhead:",
        ),
        // A crash without the job.
        (
            format!("{GOOD_STEP}playhead = \"2m\"\ncrash_at = [\"1m\"]\n"),
            "lesson.toml: line 5: crash_at:",
        ),
        // A panel to show that is not one, and a word that is not a way of showing.
        (
            format!("{GOOD_STEP}show = [\"plot\", \"legend\"]\n"),
            "lesson.toml: line 4: show: \"legend\" is not a panel",
        ),
        (
            format!("{GOOD_STEP}show = \"some\"\n"),
            "lesson.toml: line 4: show:",
        ),
        // A panel's name mistyped, and a panel the layout has that a step does not name.
        (
            format!("{GOOD_STEP}show = [\"plot\", \"counter\"]\n"),
            "lesson.toml: line 4: show: \"counter\" is not a panel: plot, watermark,",
        ),
        (
            format!("{GOOD_STEP}highlight = \"watermarks\"\n"),
            "lesson.toml: line 4: highlight: \"watermarks\" is not a panel: window, plot,",
        ),
        (
            format!("{GOOD_STEP}show = [\"footer\"]\n"),
            "lesson.toml: line 4: show: \"footer\" is not a panel",
        ),
        // A magnification out of range, or not a duration.
        (
            format!("{GOOD_STEP}magnify = \"5m\"\n"),
            "lesson.toml: line 4: magnify:",
        ),
        (
            format!("{GOOD_STEP}magnify = \"on\"\n"),
            "lesson.toml: line 4: magnify:",
        ),
        // A big figure that is not one.
        (
            format!("{GOOD_STEP}big = [\"speed\"]\n"),
            "lesson.toml: line 4: big:",
        ),
        // Not TOML at all.
        ("[[step]\ntitle = 1\n".to_string(), "lesson.toml: line 1:"),
        // No steps.
        ("step = []\n".to_string(), "lesson.toml: line 1: step:"),
    ];
    for (text, want) in cases {
        let got = bad(&text);
        assert!(got.starts_with(want), "{got}\n  wanted {want}\n---\n{text}");
    }
}

#[test]
fn the_binary_refuses_a_bad_tour_before_the_ui_opens() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.toml");
    std::fs::write(&path, format!("{GOOD_STEP}scenario = \"rainy\"\n")).unwrap();
    let (code, _, err) = cli_common::twoclocks_text(&["tour", "--tour", path.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("bad.toml: line 4: scenario"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    // A file that cannot be read: its path and the system's reason, and no line.
    let (code, _, err) = cli_common::twoclocks_text(&["tour", "--tour", "/nonexistent/t.toml"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "/nonexistent/t.toml: the tour file cannot be read (No such file or directory"
        ),
        "{err}"
    );
    assert!(!err.contains("line"), "{err}");
    // A good tour with no terminal to draw in: one line, exit code 2.
    let (code, _, err) = cli_common::twoclocks_text(&["tour"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("needs a terminal"), "{err}");
}

#[test]
fn the_new_step_fields_parse_and_refuse_with_file_line_and_field() {
    let t = Tour::parse(
        "lesson.toml",
        &format!(
            "{GOOD_STEP}name = \"outage-idle\"\nscenario = \"outage\"\njob = true\n\
             idle = \"10s\"\nside = {{ idle = \"off\", lag = \"30s\" }}\n\
             [[step]]\ntitle = \"T\"\ncaption = \"c\"\nwindows = \"global\"\nttl = \"3s\"\n\
             [[step]]\ntitle = \"S\"\ncaption = \"c\"\nwindows = \"session 20s\"\n\
             key = \"b\"\nwindow = 0\n\
             [[step]]\ntitle = \"W\"\ncaption = \"c\"\nwindows = \"sliding 60s every 10s\"\n"
        ),
    )
    .unwrap();
    let s = &t.steps[0];
    assert_eq!(s.name.as_deref(), Some("outage-idle"));
    assert_eq!(s.dials.idle, Some(Some(10_000.0)));
    let side = s.side.unwrap();
    assert_eq!((side.idle, side.lag), (Some(None), Some(30_000.0)));
    assert!(t.steps[1].window_fn().ttl().is_some_and(|t| t.ms == 3_000));
    assert!(t.steps[2].window_fn().is_merging());
    assert_eq!(t.key_of(&t.steps[2]), Some(1));
    assert_eq!(t.steps[3].window_fn().slide(), 10_000);
    let cases = [
        (
            format!("{GOOD_STEP}name = \"Two Clocks\"\n"),
            "line 4: name:",
        ),
        (format!("{GOOD_STEP}name = \"3\"\n"), "line 4: name:"),
        (
            format!("{GOOD_STEP}name = \"a\"\n{GOOD_STEP}name = \"a\"\n"),
            "line 8: name: \"a\" already names the step on line 2",
        ),
        (
            format!("{GOOD_STEP}windows = \"hopping 5s\"\n"),
            "line 4: windows: 'hopping 5s' is not a window function",
        ),
        (
            format!("{GOOD_STEP}windows = \"session 0s\"\n"),
            "line 4: windows:",
        ),
        (
            format!("{GOOD_STEP}ttl = \"3s\"\n"),
            "line 4: ttl: a state TTL is the global window's",
        ),
        (
            format!("{GOOD_STEP}windows = \"tumbling 30s\"\nttl = \"3s\"\n"),
            "line 4: windows: a state TTL is the global window's",
        ),
        (
            format!("{GOOD_STEP}windows = \"global\"\nttl = \"soon\"\n"),
            "line 5: ttl:",
        ),
        (
            format!("{GOOD_STEP}idle = \"10s\"\n"),
            "line 4: idle: the idle timeout is the parallel job's",
        ),
        (
            format!("{GOOD_STEP}job = true\nidle = \"2s\"\n"),
            "line 5: idle: 2s is below the dial's first step",
        ),
        (
            format!("{GOOD_STEP}job = true\nidle = \"5m\"\n"),
            "line 5: idle: 5m is past the dial's top",
        ),
        (
            format!("{GOOD_STEP}side = {{ idle = \"off\" }}\n"),
            "line 4: side.idle: the idle timeout is the parallel job's",
        ),
        (
            format!("{GOOD_STEP}side = {{ colour = \"red\" }}\n"),
            "line 4: colour:",
        ),
        (
            format!("{GOOD_STEP}side = {{ grace = \"99m\" }}\n"),
            "line 4: side.grace:",
        ),
        (
            format!("{GOOD_STEP}lag = \"5\"\n"),
            "line 4: lag: '5' is not a duration: give a number with a unit, e.g. 10s",
        ),
        (
            format!("{GOOD_STEP}side = {{}}\n"),
            "line 4: side: B would run A's dials",
        ),
        (
            format!("{GOOD_STEP}key = \"zz\"\n"),
            "line 4: key: the lesson stream has no key \"zz\"",
        ),
        (
            format!("{GOOD_STEP}scenario = \"sessions\"\nkey = \"u013\"\nwindow = 9\n"),
            "line 6: window: the sessions stream key u013 has 2 sessions",
        ),
    ];
    for (text, want) in cases {
        let got = bad(&text);
        let want = format!("lesson.toml: {want}");
        assert!(
            got.starts_with(&want),
            "{got}\n  wanted {want}\n---\n{text}"
        );
    }
}

#[test]
fn odd_values_of_the_new_fields_are_errors_never_a_panic() {
    let values = [
        "\"\"",
        "\" \"",
        "\"-1s\"",
        "\"1e400s\"",
        "\"nan\"",
        "\"1.5ms\"",
        "\"9999999999999s\"",
        "\"global global\"",
        "\"sliding 1000s every 1ms\"",
        "\"sliding 60s every 0s\"",
        "\"session\"",
        "\"tumbling 0s\"",
        "\"off\"",
        "0",
        "true",
        "[\"3s\"]",
        "{ idle = 3 }",
    ];
    for field in ["name", "windows", "ttl", "idle", "key", "side", "predict"] {
        for v in values {
            for extra in ["", "job = true\n", "windows = \"global\"\n"] {
                let text = format!("{GOOD_STEP}{extra}{field} = {v}\n");
                if let Err(e) = Tour::parse("odd.toml", &text) {
                    assert!(e.to_string().starts_with("odd.toml: line "), "{e}");
                }
            }
        }
    }
}
