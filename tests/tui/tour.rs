//! The tour: the embedded tour parses and every step's setting is valid; every caption's
//! placeholders are filled at every step, at 80×24, 120×40 and 200×60, and the caption fits
//! its band (with the plot alone too); `n`, `N` and `r` move through the steps and put a step
//! back; the course's later parts each show their subject (a partition's outage stalling the
//! watermark, idleness side by side, sessions merging, state expiring under a TTL) with their
//! captions' figures on screen; `--from` (in process and through the binary); a recording of
//! a tour; snapshots. Tour files and their errors are in tour_files.

use std::time::Duration;

use twoclocks::engine::scenario::ScenarioName;
use twoclocks::tui::app::{update, Action, App, Msg};
use twoclocks::tui::theme::Theme;
use twoclocks::tui::tour::{At, Tour, BIG_FIGURES};
use twoclocks::tui::view;

use crate::cli_common;
use crate::kept_snapshots::assert_snapshot;
use crate::tour_common::{act, screen, tour, tour_from, GOOD_STEP};

#[test]
fn the_built_in_tour_parses_and_walks_the_blocks_in_order() {
    let t = Tour::built_in().unwrap();
    let titles: Vec<&str> = t.steps.iter().map(|s| s.title.as_str()).collect();
    let want = [
        "Two clocks",
        "Windowing",
        "watermark",
        "Late data",
        "on time, late, or dropped?",
        "Triggers",
        "the next pane",
        "Accumulation",
        "Checkpoint",
        "Barriers",
        "frontier",
        "partition",
        "Idleness",
        "Session",
        "TTL",
    ];
    assert_eq!(titles.len(), want.len(), "{titles:?}");
    for (got, want) in titles.iter().zip(want) {
        assert!(got.contains(want), "{got} should be about {want}");
    }
    // Mostly the lesson; the frontier needs the big classroom stream.
    assert_eq!(t.steps[0].scenario, ScenarioName::Lesson);
    assert_eq!(
        t.find("frontier").map(|i| t.steps[i].scenario),
        Ok(ScenarioName::Classroom)
    );
    // Every step has a name, each its own.
    let names: Vec<&str> = t.steps.iter().filter_map(|s| s.name.as_deref()).collect();
    assert_eq!(
        names,
        [
            "two-clocks",
            "windowing",
            "watermark",
            "late-data",
            "predict-late",
            "triggers",
            "predict-pane",
            "accumulation",
            "crash",
            "barriers",
            "frontier",
            "partition",
            "idleness",
            "sessions",
            "ttl"
        ]
    );
    // The crash step crashes the job at a set time, before its playhead.
    let crash = &t.steps[t.find("crash").unwrap()];
    assert!(crash.job && !crash.crash_at.is_empty());
    if let At::Time(p) = crash.playhead {
        assert!(crash.crash_at.iter().all(|&c| c <= p));
    }
    for s in &t.steps {
        assert!(s.big.iter().all(|b| BIG_FIGURES.contains(&b.as_str())));
        assert!(!s.big.is_empty(), "{}: big numbers name a figure", s.title);
    }
}

#[test]
fn every_step_fills_every_placeholder_and_its_caption_fits_at_every_size() {
    let mut a = tour();
    let n = a.tour.as_ref().unwrap().steps.len();
    for k in 0..n {
        assert_eq!(a.tour.as_ref().unwrap().at, k);
        for (w, h) in [(80, 24), (120, 40), (200, 60)] {
            let s = screen(&mut a, w, h);
            assert!(
                s.contains(&format!("step {}/{n}", k + 1)),
                "{w}×{h} step {k}:\n{s}"
            );
            let caption: String = s.lines().skip(1).take(3).collect::<Vec<_>>().join("\n");
            assert!(
                !s.contains('{') && !s.contains('}'),
                "{w}×{h} step {k}: a placeholder is left\n{s}"
            );
            let text = view::caption::text(&a).unwrap();
            assert!(!text.contains('{'), "{text}");
            assert!(
                !caption.contains('…'),
                "{w}×{h} step {k}: the caption is cut\n{caption}"
            );
        }
        // And with the plot alone.
        act(&mut a, Action::Zoom);
        let s = screen(&mut a, 80, 24);
        assert!(s.contains(&format!("step {}/{n}", k + 1)), "zoomed:\n{s}");
        act(&mut a, Action::Zoom);
        act(&mut a, Action::TourNext);
    }
}

#[test]
fn n_and_capital_n_move_through_the_steps_and_say_so_at_the_ends() {
    let mut a = tour();
    act(&mut a, Action::TourPrev);
    assert_eq!(a.tour.as_ref().unwrap().at, 0);
    assert!(a.status.as_ref().unwrap().text.contains("first step"));
    act(&mut a, Action::TourNext);
    act(&mut a, Action::TourNext);
    assert_eq!(a.tour.as_ref().unwrap().at, 2);
    // Step 3 sets its playhead and dials.
    let step = a.tour.as_ref().unwrap().step().clone();
    if let At::Time(t) = step.playhead {
        assert!(
            (a.playhead().now - t).abs() < 1e-9,
            "{} vs {t}",
            a.playhead().now
        );
    }
    act(&mut a, Action::TourPrev);
    assert_eq!(a.tour.as_ref().unwrap().at, 1);
    let n = a.tour.as_ref().unwrap().steps.len();
    for _ in 0..n + 2 {
        act(&mut a, Action::TourNext);
    }
    assert_eq!(a.tour.as_ref().unwrap().at, n - 1);
    assert!(a.status.as_ref().unwrap().text.contains("last step"));
    assert_eq!(
        a.tour_big_figures().map(|b| b.to_vec()),
        Some(vec!["dropped".to_string(), "state".to_string()])
    );
}

#[test]
fn the_dials_stay_live_and_r_puts_the_step_back() {
    let mut a = tour();
    act(&mut a, Action::TourNext);
    act(&mut a, Action::TourNext);
    act(&mut a, Action::TourNext);
    let (dials, now, window) = (a.dials(), a.playhead().now, a.selection.window);
    act(&mut a, Action::GraceUp);
    act(&mut a, Action::GraceUp);
    act(&mut a, Action::Restart);
    assert_ne!(a.dials(), dials, "the dials turn during a step");
    assert_ne!(a.playhead().now, now);
    act(&mut a, Action::TourReset);
    assert_eq!(a.dials(), dials);
    assert_eq!(a.playhead().now, now);
    assert_eq!(a.selection.window, window);
    assert!(a.status.as_ref().unwrap().text.contains("back"));
}

#[test]
fn the_crash_step_is_a_job_that_crashed_and_replayed() {
    let mut a = tour_from("crash");
    assert!(a.steered.parallel(), "job mode");
    assert_eq!(a.trace().crashes().len(), 1);
    let f = a.figures();
    assert!(f.checkpoints > 0, "{f:?}");
    // Leaving the job step for the next goes on in job mode; the step before is single.
    act(&mut a, Action::TourPrev);
    assert!(!a.steered.parallel());
    assert!(a.trace().crashes().is_empty());
}

#[test]
fn outside_a_tour_the_tour_keys_say_there_is_none() {
    let mut a = tour();
    a.tour = None;
    for k in [Action::TourNext, Action::TourPrev, Action::TourReset] {
        act(&mut a, k);
        assert!(a.status.as_ref().unwrap().text.contains("no tour"), "{k:?}");
    }
    assert_eq!(a.tour_big_figures(), None);
}

#[test]
fn a_step_keeps_back_the_panels_it_does_not_show_in_their_places() {
    let mut a = tour();
    act(&mut a, Action::TourNext);
    let s = screen(&mut a, 120, 40);
    for kept in ["watermark", "counters", "dials", "panes", "frontier"] {
        assert!(
            s.contains(&format!("{kept} · later in the tour")),
            "{kept}\n{s}"
        );
    }
    assert!(s.contains("Windows · 30s tumbling"), "{s}");
    // The step showing everything draws every panel.
    let mut a = tour_from("triggers");
    let s = screen(&mut a, 120, 40);
    assert!(!s.contains("later in the tour"), "{s}");
}

#[test]
fn snapshot_step_one_at_80x24() {
    let mut a = tour();
    assert_snapshot!("tour_step1_80x24", screen(&mut a, 80, 24));
}

#[test]
fn snapshot_the_late_data_step_at_120x40() {
    let mut a = tour();
    for _ in 0..3 {
        act(&mut a, Action::TourNext);
    }
    assert_snapshot!("tour_step4_120x40", screen(&mut a, 120, 40));
}

#[test]
fn a_frontier_swept_for_the_step_before_is_not_taken_for_another_stream() {
    let text = "[[step]]\ntitle = \"A\"\ncaption = \"a\"\nscenario = \"classroom\"\n\
                [[step]]\ntitle = \"B\"\ncaption = \"b\"\nscenario = \"punctual\"\n";
    let mut a = App::open_tour(Tour::parse("t.toml", text).unwrap(), Theme::dark()).unwrap();
    let old = a.take_work();
    assert!(!old.is_empty(), "the first step's frontier is asked for");
    update(&mut a, Msg::Action(Action::TourNext), Duration::ZERO);
    for w in old {
        update(&mut a, Msg::Done(Box::new(w.perform())), Duration::ZERO);
    }
    assert!(
        a.frontier().is_none(),
        "the classroom's frontier is not the punctual stream's"
    );
    a.settle();
    assert!(a.frontier().is_some());
}

#[test]
fn a_tour_can_be_recorded_and_a_recording_of_something_else_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("plain.rec");
    std::fs::write(&rec, "twoclocks-record 1\n0 flags []\n5 end\n").unwrap();
    let (code, _, err) = cli_common::twoclocks_text(&["tour", "--replay", rec.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("recorded with no flags"), "{err}");
    assert!(err.contains("this run has tour"), "{err}");
    let (code, _, err) =
        cli_common::twoclocks_text(&["tour", "--record", "same.rec", "--cast", "same.rec"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--cast 'same.rec' and --record 'same.rec' are the same file"),
        "{err}"
    );
}

#[test]
fn b_shows_the_figures_each_step_is_about() {
    let mut a = tour();
    let n = a.tour.as_ref().unwrap().steps.len();
    for k in 0..n {
        let names = a.tour_big_figures().unwrap().to_vec();
        act(&mut a, Action::BigNumbers);
        let s = screen(&mut a, 120, 40);
        for name in &names {
            // Each figure's label (`on_time` reads "on time").
            let label = name.replace('_', " ");
            assert!(s.contains(&label), "step {}: {label} missing:\n{s}", k + 1);
        }
        act(&mut a, Action::BigNumbers);
        act(&mut a, Action::TourNext);
    }
}

/// The screen without the caption band (what the panels show, not what the caption says):
/// on the band's four rows, only what lies right of it, from the first panel's border on.
fn panels(s: &str) -> String {
    s.lines()
        .enumerate()
        .map(|(i, l)| match l.find(['┌', '┏', '│', '┃', '└', '┗']) {
            _ if i >= 4 => l,
            Some(b) => &l[b..],
            None => "",
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The named panel's rows at 120×40: the lines from its title down, cut to its columns.
fn panel(s: &str, title: &str) -> String {
    let lines: Vec<&str> = s.lines().collect();
    let Some((row, col)) = lines.iter().enumerate().find_map(|(i, l)| {
        l.find(title)
            .map(|b| (i, l[..b].chars().count().saturating_sub(2)))
    }) else {
        return String::new();
    };
    lines[row..]
        .iter()
        .map(|l| l.chars().skip(col).take(40).collect::<String>())
        .take_while(|l| !l.starts_with('└') && !l.starts_with('┗'))
        .collect::<Vec<_>>()
        .join("\n")
}

const LATER: [&str; 4] = ["partition", "idleness", "sessions", "ttl"];

#[test]
fn the_later_steps_quote_figures_the_screen_shows() {
    use twoclocks::tui::tour::placeholders;
    for name in LATER {
        let mut a = tour_from(name);
        let caption = a.tour.as_ref().unwrap().step().caption.clone();
        for (w, h) in [(80, 24), (120, 40)] {
            let s = screen(&mut a, w, h);
            let shown = panels(&s);
            for p in placeholders::check(&caption).unwrap() {
                let v = placeholders::value(p, &a.quoted()).unwrap();
                assert_ne!(v, "—", "{name}: {{{p}}} is not known");
                // The panels write seconds without the space (`69.1s`).
                let figure = v.trim_end_matches(" s");
                assert!(
                    shown.contains(figure),
                    "{name} {w}×{h}: {{{p}}} = {v} is not on screen\n{s}"
                );
            }
        }
    }
}

#[test]
fn the_partition_step_shows_an_outage_stalling_the_watermark() {
    let mut a = tour_from("partition");
    assert!(a.steered.parallel(), "job mode");
    // The outage scenario's own job, as `twoclocks ui --scenario outage` opens it.
    let argv = ["twoclocks", "--scenario", "outage"];
    let Ok(twoclocks::cli::Invocation::Ui(args, matches)) = twoclocks::cli::parse(argv) else {
        panic!("the UI");
    };
    let (_, job) = twoclocks::cli::ui_options(&args, &matches).unwrap();
    let job = job.unwrap();
    assert_eq!(a.job_config(), job.config);
    assert_eq!(a.steered.job_outages(), job.outages);
    let parts = a.trace().partitions();
    assert!(parts[1].is_out && !parts[0].is_out, "partition 1 is out");
    let stall = a.trace().watermark_stall().expect("the watermark stalls");
    assert!(stall >= 60_000.0, "{stall}");
    // Flat: the watermark now is what it was when the partition went out (plus the lag).
    let wm = a.trace().watermark();
    assert!(wm < 200_000.0 && a.playhead().now - wm > 60_000.0, "{wm}");
    // The state climbs: held now above what it held before the outage.
    let f = a.figures();
    let history = a.trace().state_history();
    let before = history
        .iter()
        .filter(|s| s.time < 200_000.0)
        .map(|s| s.open_cells)
        .max()
        .unwrap();
    assert!(f.state > before, "{} vs {before}", f.state);
    let s = screen(&mut a, 120, 40);
    let lanes = panel(&s, "Watermark");
    assert!(lanes.contains("p1") && lanes.contains('▓'), "{lanes}");
    assert!(s.contains("wm stalled"), "{s}");
    let s = screen(&mut a, 80, 24);
    assert!(s.contains("out since") && s.contains("wm stalled"), "{s}");
}

#[test]
fn the_idleness_step_is_side_by_side_idle_against_none() {
    let mut a = tour_from("idleness");
    let b = a.run_b().expect("side by side");
    assert_eq!(a.dials().idle_timeout, Some(10_000.0), "A idles");
    assert_eq!(b.dials.idle_timeout, None, "B waits");
    assert!(a.steered.parallel() && b.steered.parallel());
    assert_eq!(b.playhead().now, a.playhead().now);
    // A moved on and dropped the held-back events; B waited for them.
    let (fa, fb) = (a.figures(), b.figures());
    assert!(
        fa.dropped > fb.dropped + 100,
        "{} vs {}",
        fa.dropped,
        fb.dropped
    );
    assert_eq!(a.quoted().b.map(|b| b.dropped), Some(fb.dropped));
    for (w, h) in [(80, 24), (120, 40)] {
        let s = screen(&mut a, w, h);
        assert!(s.contains(" A · lag 20s idle 10s"), "{s}");
        assert!(s.contains(" B · lag 20s idle off"), "{s}");
    }
    let s = screen(&mut a, 120, 40);
    assert!(panel(&s, "Watermark").contains('░'), "p1 idle:\n{s}");
    // r puts B back with the step.
    act(&mut a, Action::SideBySide);
    assert!(a.side.is_none());
    act(&mut a, Action::TourReset);
    assert!(a.side.is_some());
}

#[test]
fn the_sessions_step_opens_on_a_late_bridge_near_the_playhead() {
    let mut a = tour_from("sessions");
    let key = a.selection.key.expect("a key");
    assert_eq!(a.scenario().stream.key_name(key), "u222");
    // A user with sessions before and after it, for ] and [ to walk.
    let sessions = a.scenario().windows_of(Some(key));
    assert!(0 < a.selection.window && a.selection.window + 1 < sessions.len());
    let session = sessions[a.selection.window];
    // The session began before the playhead and took a merge (⊕) by now.
    assert!(session.start() <= a.playhead().now, "{session:?}");
    let merges: Vec<_> = a
        .trace()
        .session_merges()
        .filter(|m| m.key == key && m.into.start_ms() >= session.start_ms())
        .filter(|m| m.into.end_ms() <= session.end_ms())
        .collect();
    assert!(!merges.is_empty(), "{session:?}");
    assert!(merges
        .iter()
        .all(|m| a.playhead().now - m.proc_time < 70_000.0));
    // What the caption says: a late event, kept, bridging two sessions that had both fired.
    assert!(
        merges
            .iter()
            .any(|m| m.is_bridge() && m.late && m.fired == 2),
        "{merges:?}"
    );
    assert_eq!(a.figures().dropped, 0);
    for (w, h) in [(80, 24), (120, 40)] {
        let s = panels(&screen(&mut a, w, h));
        assert!(s.contains('⊕'), "{w}×{h}:\n{s}");
        assert!(s.contains("u222▸"), "{w}×{h}:\n{s}");
        assert!(s.contains("495–577s"), "{w}×{h}:\n{s}");
    }
}

#[test]
fn the_ttl_step_expires_state_and_drops_nothing() {
    let mut a = tour_from("ttl");
    assert!(a.scenario().oracle.global && a.dials().window.ttl().is_some());
    let f = a.figures();
    assert!(f.expired > 10, "{f:?}");
    assert_eq!(f.dropped, 0);
    let lost = a.quoted().lost.expect("scored");
    assert!(lost > 100, "{lost}");
    for (w, h) in [(80, 24), (120, 40)] {
        let s = panels(&screen(&mut a, w, h));
        assert!(s.contains('⊘') && s.contains("resets"), "{w}×{h}:\n{s}");
        assert!(s.contains(&format!("lost {lost}")), "{w}×{h}:\n{s}");
        // Why, with nothing dropped: the expired state's counts, beside the figure.
        assert!(
            s.contains(&format!("lost {lost} to ⊘ resets"))
                || s.contains(&format!("lost {lost}, ⊘ resets")),
            "{w}×{h}:\n{s}"
        );
    }
}

#[test]
fn the_crash_step_says_which_checkpoint_the_crash_abandoned() {
    let mut a = tour_from("crash");
    let tr = a.trace();
    let (done, abandoned) = (tr.checkpoints().len(), tr.abandoned_checkpoints());
    let last = tr.last_checkpoint().unwrap().id as usize;
    // The caption's count is the completed ones; the ids count the abandoned too.
    assert_eq!(a.figures().checkpoints, done);
    assert!(abandoned >= 1, "the crash caught one in flight");
    assert_eq!(done + abandoned, last, "ids #1…#{last}");
    let id = tr.last_crash().unwrap().abandoned[0];
    for (w, h) in [(80, 24), (120, 40)] {
        let s = screen(&mut a, w, h);
        let flat = s.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            flat.contains(&format!("checkpoint #{id}, in flight, abandoned")),
            "{w}×{h}:\n{s}"
        );
        assert!(
            s.contains(&format!("{done} ckpts ╾ · {abandoned} abandoned"))
                || s.contains(&format!("{done} checkpoints ╾ · {abandoned} abandoned")),
            "{w}×{h}:\n{s}"
        );
    }
}

#[test]
fn the_windows_at_the_sinks_split_each_windows_excess_by_cause() {
    for name in ["crash", "barriers"] {
        let mut a = tour_from(name);
        let job = a.trace().job().unwrap();
        // Every cell's split adds up to the sinks panel's.
        let cells: Vec<_> = a.scenario().oracle.truth.keys().copied().collect();
        assert_eq!(job.over_of(&cells), job.over_by_cause(), "{name}");
        // Each row: add − idem, re-added and replayed.
        let rows = view::windows::rows(&a);
        assert!(!rows.is_empty());
        for r in &rows {
            let (held, o) = (r.sinks.unwrap(), r.over.unwrap());
            assert_eq!(o.readded + o.replayed, held[0] - held[1], "{name} {r:?}");
        }
        // The selected window's split is on screen under the rows.
        let sel = rows[a.selection.window.min(rows.len() - 1)].clone();
        let o = sel.over.unwrap();
        let span = view::windows::span(a.clock(), sel.start, sel.end);
        let want = format!(
            "{span} add {:+} = {:+} re",
            o.readded + o.replayed,
            o.readded
        );
        // The crash step keeps the windows back; the barriers step shows them.
        if name == "barriers" {
            let s = screen(&mut a, 120, 40);
            assert!(s.contains(&want), "{want}\n{s}");
        }
    }
    // After the crash, over all keys, a window whose excess is partly replayed panes.
    let mut a = tour_from("crash");
    a.selection.key = None;
    let rows = view::windows::rows(&a);
    assert!(
        rows.iter().any(|r| r.over.unwrap().replayed > 0),
        "{rows:?}"
    );
}

#[test]
fn from_opens_on_a_step_by_name_or_number() {
    let t = Tour::built_in().unwrap();
    assert_eq!(t.find("partition"), Ok(11));
    assert_eq!(t.find("1"), Ok(0));
    assert_eq!(t.find("15"), Ok(14));
    for bad in ["0", "16", "Partition", "nope"] {
        let e = t.find(bad).unwrap_err();
        assert!(e.contains(&format!("{bad:?} is not a step")), "{e}");
        assert!(
            e.contains("one of two-clocks, windowing,") && e.contains("sessions, ttl"),
            "{e}"
        );
        assert!(e.contains("a number from 1 to 15"), "{e}");
    }
    let mut a = tour_from("ttl");
    assert_eq!(a.tour.as_ref().unwrap().at, 14);
    assert!(screen(&mut a, 80, 24).contains("step 15/15"));
    act(&mut a, Action::TourPrev);
    assert_eq!(a.tour.as_ref().unwrap().at, 13);
    // A tour without names opens by number only.
    let t = Tour::parse("t.toml", GOOD_STEP).unwrap();
    assert_eq!(
        t.find("x").unwrap_err(),
        "\"x\" is not a step of t.toml: a number from 1 to 1"
    );
}

#[test]
fn the_binary_opens_from_a_step_and_refuses_an_unknown_one() {
    let (code, _, err) = cli_common::twoclocks_text(&["tour", "--from", "nope"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--from: \"nope\" is not a step"), "{err}");
    assert!(err.contains("partition, idleness, sessions, ttl"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    // A good name gets as far as the terminal.
    let (code, _, err) = cli_common::twoclocks_text(&["tour", "--from", "sessions"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("needs a terminal"), "{err}");
    // Another tour's names.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mine.toml");
    std::fs::write(&path, format!("{GOOD_STEP}name = \"mine\"\n")).unwrap();
    let p = path.to_str().unwrap();
    let (code, _, err) = cli_common::twoclocks_text(&["tour", "--tour", p, "--from", "ttl"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("one of mine, or a number from 1 to 1"),
        "{err}"
    );
}

#[test]
fn snapshots_of_the_later_steps() {
    for name in LATER {
        let mut a = tour_from(name);
        for (w, h) in [(80, 24), (120, 40)] {
            assert_snapshot!(format!("tour_{name}_{w}x{h}"), screen(&mut a, w, h));
        }
    }
}
