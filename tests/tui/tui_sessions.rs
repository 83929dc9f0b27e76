//! Session windows and the global window with its TTL in the UI: the flags open it (no longer
//! refused), `[` `]` and clicks walk the selected key's sessions, the read model's sessions and
//! merges against the engine's rules and the oracle, and each key's resets under a TTL
//! against the processor's counters and its truth.

use std::time::Duration;

use twoclocks::engine::job_timeline::Standing;
use twoclocks::engine::timeline::Phase;
use twoclocks::engine::CellId;
use twoclocks::engine::KeyId;
use twoclocks::engine::Stream;
use twoclocks::engine::WindowId;
use twoclocks::tui::app::{update, Action, App, Msg};
use twoclocks::tui::geometry::Areas;
use twoclocks::tui::view::windows::key_states;

use crate::ui_common::{act, ui};

/// The UI state a command line opens, before any terminal, at 120×40.
fn app(args: &[&str]) -> App {
    let mut a = ui(args);
    update(&mut a, Msg::Resize(120, 40), Duration::ZERO);
    a
}

/// 300 events over 600 s in 10 s-gap sessions with 30 s of grace: a few dozen sessions per key.
const SPARSE: [&str; 6] = ["--events", "300", "--session", "10s", "--grace", "30s"];

fn to_end(a: &mut App) {
    act(a, Action::JumpToEnd);
}

#[test]
fn the_ui_opens_on_sessions_and_on_the_global_window() {
    let a = app(&["--session", "30s", "--grace", "30s"]);
    assert!(a.scenario().oracle.merging);
    assert!(a.trace().config().window.is_merging());
    let a = app(&["--window", "global", "--ttl", "20s"]);
    assert!(a.scenario().oracle.global);
    assert_eq!(a.scenario().oracle.windows, vec![WindowId::GLOBAL]);
}

#[test]
fn the_window_keys_walk_the_selected_keys_sessions() {
    let mut a = app(&SPARSE);
    act(&mut a, Action::CycleKey);
    let key = a.selection.key.expect("a key selected");
    let mine = a.scenario().windows_of(Some(key)).to_vec();
    assert!(mine.len() > 5 && mine.len() < a.scenario().oracle.windows.len());
    a.selection.window = 0;
    let mut steps = 0;
    loop {
        let before = a.selection.window;
        act(&mut a, Action::WindowNext);
        if a.selection.window == before {
            break;
        }
        steps += 1;
        assert!(steps < 1_000);
    }
    assert_eq!(steps, mine.len() - 1, "one step per session of the key");
    assert_eq!(a.selected_window(), mine.last().copied());
    act(&mut a, Action::WindowPrev);
    assert_eq!(a.selected_window(), Some(mine[mine.len() - 2]));
    // Every selected session is the key's, and its oracle cell exists.
    let w = a.selected_window().unwrap();
    assert!(a
        .scenario()
        .oracle
        .truth
        .contains_key(&CellId { window: w, key }));
}

#[test]
fn a_click_on_a_session_row_selects_that_session() {
    let mut a = app(&SPARSE);
    let key = a.selection.key.unwrap_or(0 as KeyId);
    a.selection.key = Some(key);
    a.selection.window = 0;
    let areas = Areas::compute(a.size).unwrap();
    // Border, header, then session rows from the top.
    let row = areas.windows.y + 2 + 4;
    assert!(update(
        &mut a,
        Msg::Click(areas.windows.x + 3, row),
        Duration::ZERO
    ));
    assert_eq!(a.selection.window, 4);
    assert_eq!(
        a.selected_window(),
        Some(a.scenario().windows_of(Some(key))[4])
    );
}

#[test]
fn with_infinite_grace_the_run_ends_with_the_oracles_sessions() {
    let mut args = SPARSE.to_vec();
    args[5] = "inf";
    let mut a = app(&args);
    to_end(&mut a);
    assert!(a.trace().is_finished());
    let run = a.trace().run_sessions();
    for key in 0..a.scenario().keys() as KeyId {
        let got: Vec<_> = run.of(key).map(|s| s.window).collect();
        assert_eq!(got, a.scenario().windows_of(Some(key)), "key {key}");
        assert!(run.of(key).all(|s| s.phase == Phase::Finalised));
        for &w in a.scenario().windows_of(Some(key)) {
            let r = a
                .trace()
                .session_row(w, Some(key), &run, &a.scenario().oracle.truth);
            assert!(r.exact, "{w:?}");
            assert_eq!(r.standing(), Standing::Right);
        }
    }
}

#[test]
fn a_session_the_run_does_not_reproduce_reads_as_wrong() {
    let mut a = app(&SPARSE);
    to_end(&mut a);
    let run = a.trace().run_sessions();
    let mut wrong = 0;
    for key in 0..a.scenario().keys() as KeyId {
        for &w in a.scenario().windows_of(Some(key)) {
            let r = a
                .trace()
                .session_row(w, Some(key), &run, &a.scenario().oracle.truth);
            let reproduced = run.of(key).any(|s| s.window == w)
                && r.row.value == a.scenario().oracle.truth[&CellId { window: w, key }] as i64;
            assert_eq!(r.exact, reproduced, "{w:?}");
            assert_eq!(r.standing() == Standing::Right, reproduced, "{w:?}");
            wrong += usize::from(!reproduced);
        }
    }
    // The 7 dropped events each leave their oracle session short.
    assert_eq!(a.trace().counters().dropped, 7);
    assert!((1..=7).contains(&wrong), "{wrong}");
}

#[test]
fn the_sessions_replayed_from_the_records_are_the_processors_at_every_playhead() {
    let mut a = app(&SPARSE);
    assert!(a.playing, "the UI opens playing");
    for _ in 0..8 {
        update(&mut a, Msg::Tick, Duration::from_secs(8));
        let t = a.trace().timeline().unwrap();
        let run = a.trace().run_sessions();
        // Every open session of the run is open in the processor, with its value.
        let open: Vec<_> = run.iter().filter(|s| s.phase != Phase::Finalised).collect();
        assert_eq!(open.len(), t.open_cells(), "at {}", a.playhead().now);
        for s in &open {
            let value = t.cell_value(CellId {
                window: s.window,
                key: s.key,
            });
            assert!(value > 0, "{s:?}");
        }
        // A marked merge bridged sessions or took late data into a fired one.
        for m in a.trace().session_merges() {
            assert!(m.replaced.len() >= 2 || m.late || m.fired > 0, "{m:?}");
            assert!(m.replaced.iter().all(|w| m.into.cover(*w) == m.into));
        }
    }
    assert!(a.trace().session_merges().count() > 0);
}

#[test]
fn every_expiry_is_recorded_and_the_segments_add_up_to_each_keys_truth() {
    let mut a = app(&[
        "--window", "global", "--ttl", "3s", "--events", "1000", "--early", "10s",
    ]);
    assert!(a.playing, "the UI opens playing");
    update(&mut a, Msg::Tick, Duration::from_secs(12));
    let x = a.trace().expirations();
    assert_eq!(x.len() as u64, a.trace().counters().ttl_expired);
    assert!(!x.is_empty());
    assert!(x.windows(2).all(|p| p[0].proc_time <= p[1].proc_time));
    let states = key_states(a.trace(), a.scenario().keys(), &a.scenario().oracle.truth);
    assert_eq!(
        states.iter().map(|s| s.resets as u64).sum::<u64>(),
        a.trace().counters().ttl_expired
    );
    for s in &states {
        let expired: u64 = x.iter().filter(|e| e.key == s.key).map(|e| e.value).sum();
        assert_eq!(
            expired as i64 + s.value,
            s.truth_so_far,
            "key {}: the segments so far and the live value are its events so far",
            s.key
        );
        assert!(s.resets == 0 || s.value < s.truth_so_far);
        let now = a.trace().key_arrivals_by(s.key, &[a.playhead().now, 0.0]);
        assert_eq!(
            now,
            vec![s.truth_so_far, 0],
            "the truth a pane is measured against"
        );
    }
    to_end(&mut a);
    let states = key_states(a.trace(), a.scenario().keys(), &a.scenario().oracle.truth);
    for s in &states {
        assert_eq!(s.truth_so_far, s.truth_at_end);
    }
}

fn help_text(a: &App) -> String {
    twoclocks::tui::view::help::lines(a)
        .iter()
        .map(|l| l.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_help_says_what_the_new_glyphs_mean_where_they_are_drawn() {
    use twoclocks::tui::view::plot::{EXPIRY, MERGE};
    let s = help_text(&app(&SPARSE));
    assert!(s.contains(&format!(" {MERGE} ")), "{s}");
    assert!(!s.contains(EXPIRY));
    let g = help_text(&app(&["--window", "global", "--ttl", "3s"]));
    assert!(g.contains(EXPIRY), "{g}");
    assert!(!g.contains(MERGE));
}

#[test]
fn the_inspector_says_what_a_kept_event_did_to_its_sessions() {
    let mut a = app(&SPARSE);
    to_end(&mut a);
    let said = |a: &mut App, offset: usize| -> String {
        a.selection.inspected = Some(offset);
        twoclocks::tui::view::inspect::lines(&a.run())
            .unwrap()
            .iter()
            .map(|l| l.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let m = a.trace().session_merges().next().unwrap().clone();
    let s = said(&mut a, m.offset);
    let verb = if m.is_bridge() { "bridged" } else { "extended" };
    assert!(s.contains(verb), "{s}");
    let opened = a
        .trace()
        .session_changes()
        .iter()
        .find(|c| !c.is_merge())
        .unwrap()
        .offset;
    assert!(said(&mut a, opened).contains("It opened the session"));
    // A dropped event changed nothing and says nothing of sessions.
    let fates = a.trace().timeline().unwrap().fates().to_vec();
    let dropped = fates
        .iter()
        .position(|f| *f == twoclocks::engine::Fate::Dropped)
        .unwrap();
    assert!(!said(&mut a, dropped).contains("session"));
}

#[test]
fn only_a_recording_processor_records_and_it_changes_no_figure() {
    use twoclocks::engine::StreamParams;
    use twoclocks::engine::{EngineConfig, Output, Processor, WindowFn};
    let stream = Stream::generate(&StreamParams {
        events: 300,
        ..StreamParams::default()
    })
    .unwrap();
    let cfg = EngineConfig {
        window: WindowFn::session(10_000).unwrap(),
        ..EngineConfig::fixed(20_000.0, 30_000.0)
    };
    let run = |recording: bool| {
        let mut p = Processor::for_stream(cfg, &stream);
        if recording {
            p = p.recording();
        }
        let mut out = Output::default();
        for e in &stream.events {
            p.step(e, &mut out);
        }
        p.finish(&mut out);
        (*p.counters(), out)
    };
    let (quiet, q) = run(false);
    let (loud, l) = run(true);
    assert_eq!(quiet, loud);
    assert_eq!(q.panes, l.panes);
    assert!(q.sessions.is_empty() && q.expirations.is_empty());
    assert!(!l.sessions.is_empty());
    // Opened sessions less the ones merges replaced are the sessions finalised.
    let opened = l.sessions.iter().filter(|c| !c.is_merge()).count();
    let net: i64 = l.sessions.iter().map(|c| 1 - c.replaced.len() as i64).sum();
    assert!(opened > 0);
    assert_eq!(net as u64, loud.windows_finalised);
}

#[test]
fn sessions_open_on_the_first_session_and_a_gap_that_merges_everything_is_said() {
    // The sessions scenario opens on the session nearest the playhead, of whichever key: not
    // the first key's first session, minutes past it.
    let a = app(&["--scenario", "sessions"]);
    let now = a.playhead().now;
    let key = a.selection.key.expect("a key");
    let chosen = a.scenario().windows_of(Some(key))[a.selection.window];
    let away = |w: &twoclocks::engine::WindowId| {
        if (w.start()..w.end()).contains(&now) {
            0.0
        } else {
            (w.start() - now).abs().min((w.end() - now).abs())
        }
    };
    assert!(away(&chosen) < 30_000.0, "{chosen:?} at {now}");
    // Nearer in whole gaps (30 s) than any other key's, or as near and the first such key.
    let gaps = |w: &twoclocks::engine::WindowId| (away(w) / 30_000.0).floor();
    for k in 0..a.scenario().keys() as u32 {
        for w in a.scenario().windows_of(Some(k)) {
            assert!(
                gaps(w) > gaps(&chosen) || (gaps(w) == gaps(&chosen) && k >= key),
                "{w:?} of key {k} is nearer than {chosen:?}"
            );
        }
    }
    let first = a.scenario().windows_of(Some(0))[0];
    assert!(
        first.start() - now > 60_000.0,
        "the first key's first session {first:?}"
    );
    assert!(!ui_common_said(&a).contains("whole stream"));
    // A gap longer than any quiet spell: one session per key, and the footer says why.
    let a = app(&["--session", "5s"]);
    assert!((0..a.scenario().keys()).all(|k| a.scenario().windows_of(Some(k as u32)).len() == 1));
    assert!(
        ui_common_said(&a).contains("merges each key's whole stream"),
        "{:?}",
        a.status
    );
}

fn ui_common_said(a: &App) -> &str {
    a.status.as_ref().map_or("", |s| s.text.as_str())
}
