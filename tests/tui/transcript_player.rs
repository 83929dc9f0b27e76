//! The script player (`twoclocks script FILE --ui`): its screens as snapshots at 80×24 and
//! 120×40, the `?` overlay, the message below 80×24, a size matrix that must never panic, and
//! its keys: steps on and back, another script, another engine's rules.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use twoclocks::engine::Conventions;
use twoclocks::tui::theme::Theme;
use twoclocks::tui::transcript::{draw, Player};

use crate::kept_snapshots::assert_snapshot;

/// A player on `file` (under `tests/transcripts/`), at the script named `name`, under `rules`.
fn player(file: &str, name: &str, rules: Conventions) -> Player {
    let path = format!("tests/transcripts/{file}");
    let text = std::fs::read_to_string(&path).unwrap();
    let scripts = twoclocks::io::transcript::read(&text, &path)
        .unwrap()
        .scripts;
    let index = scripts.iter().position(|s| s.name == name).unwrap();
    Player::new(path, scripts, index, rules, Theme::mono()).unwrap()
}

fn press(p: &mut Player, code: KeyCode) -> bool {
    p.press(KeyEvent::new(code, KeyModifiers::NONE))
}

fn screen(p: &Player, w: u16, h: u16) -> TestBackend {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| draw(p, f.area(), f.buffer_mut())).unwrap();
    t.backend().clone()
}

fn text(p: &Player, w: u16, h: u16) -> String {
    let b = screen(p, w, h);
    let buf = b.buffer();
    (0..h)
        .map(|y| (0..w).map(|x| buf[(x, y)].symbol()).collect::<String>())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Flink's late element that bridges two sessions, every step performed.
fn bridging() -> Player {
    let mut p = player(
        "conventions/flink.yaml",
        "late_event_bridges_sessions",
        Conventions::Flink,
    );
    for _ in 0..5 {
        press(&mut p, KeyCode::Right);
    }
    p
}

#[test]
fn snapshot_player_80x24_a_late_element_bridges_sessions() {
    assert_snapshot!("player_80x24_bridging", screen(&bridging(), 80, 24));
}

#[test]
fn snapshot_player_120x40_beams_first_transcript() {
    let mut p = player(
        "beam_trigger_transcripts.yaml",
        "fixed_default",
        Conventions::Beam,
    );
    press(&mut p, KeyCode::Right);
    press(&mut p, KeyCode::Right);
    assert_snapshot!("player_120x40_fixed_default", screen(&p, 120, 40));
}

#[test]
fn snapshot_player_help_and_too_small() {
    let mut p = bridging();
    press(&mut p, KeyCode::Char('?'));
    assert_snapshot!("player_80x24_help", screen(&p, 80, 24));
    assert_snapshot!("player_too_small_60x20", screen(&p, 60, 20));
}

#[test]
fn the_screen_follows_the_steps() {
    let p = bridging();
    let t = text(&p, 120, 40);
    // The step just performed, what it emitted, and how each window stands.
    assert!(t.contains("Step 5 · line 48 · input: [8]"), "{t}");
    assert!(t.contains("LATE     window [8, 24]  values [8, 15]"), "{t}");
    assert!(t.contains("collected, step 3"), "{t}");
    assert!(t.contains("merged, step 5"), "{t}");
    assert!(t.contains("watermark 30"), "{t}");
    // Under Beam Java's rules the same element is dropped, with Beam's inequality.
    let mut p = p;
    while p.conventions() != Conventions::Beam {
        press(&mut p, KeyCode::Char('R'));
    }
    let t = text(&p, 120, 40);
    assert!(t.contains("Beam Java rules"), "{t}");
    assert!(
        t.contains("dropped  8 from window [8, 17]: end 18 + allowed lateness 10 ≤"),
        "{t}"
    );
    // Flink's expectation is not Beam's: the script fails under these rules.
    assert!(t.contains("the script fails at line"), "{t}");
    // Back to the start, and on to another script.
    press(&mut p, KeyCode::Home);
    assert_eq!(p.done, 0);
    press(&mut p, KeyCode::Left);
    assert!(p.note.as_deref().unwrap().contains("at the start"));
    press(&mut p, KeyCode::Char('n'));
    assert_eq!(p.position().0, 4);
    press(&mut p, KeyCode::End);
    assert_eq!(p.done, p.playback().len() - 1);
}

#[test]
fn the_rules_cycle_skips_kafka_streams_for_a_trigger_it_has_not() {
    let mut p = player(
        "conventions/beam.yaml",
        "empty_on_time_pane",
        Conventions::Beam,
    );
    let mut seen = Vec::new();
    for _ in 0..4 {
        press(&mut p, KeyCode::Char('R'));
        seen.push(p.conventions());
    }
    assert!(!seen.contains(&Conventions::KafkaStreams), "{seen:?}");
    // A trigger it has: every engine's rules in turn.
    let mut p = player(
        "conventions/beam.yaml",
        "touching_sessions",
        Conventions::Beam,
    );
    let mut seen = Vec::new();
    for _ in 0..4 {
        press(&mut p, KeyCode::Char('R'));
        seen.push(p.conventions());
    }
    assert_eq!(
        seen,
        [
            Conventions::BeamPython,
            Conventions::Flink,
            Conventions::KafkaStreams,
            Conventions::Beam
        ]
    );
}

#[test]
fn a_failing_script_marks_its_step_and_says_why() {
    // Beam Java's test whose behaviour twoclocks does not follow yet: it fails.
    let path = "tests/transcripts/beam_java_differences.yaml";
    let text_of = std::fs::read_to_string(path).unwrap();
    let scripts = twoclocks::io::transcript::read(&text_of, path)
        .unwrap()
        .scripts;
    let mut p = Player::new(path.into(), scripts, 0, Conventions::Beam, Theme::mono()).unwrap();
    press(&mut p, KeyCode::End);
    let t = text(&p, 120, 40);
    assert!(t.contains("the script fails at line"), "{t}");
    assert!(t.contains('✗'), "{t}");
}

#[test]
fn no_size_panics() {
    let mut p = bridging();
    for w in (0..=130).step_by(7) {
        for h in (0..=45).step_by(3) {
            let _ = screen(&p, w, h);
        }
    }
    press(&mut p, KeyCode::Char('?'));
    for (w, h) in [(80, 24), (81, 25), (200, 60), (79, 24), (80, 23)] {
        let _ = screen(&p, w, h);
    }
}

#[test]
fn the_guide_lists_every_key_of_the_player() {
    let guide = std::fs::read_to_string("docs/scripts.md").unwrap();
    for (keys, what) in twoclocks::tui::transcript::KEYS {
        let cell: Vec<String> = keys.split("  ").map(|k| format!("`{k}`")).collect();
        let row = format!("| {} | {what} |", cell.join("  "));
        assert!(guide.contains(&row), "docs/scripts.md lacks {row}");
    }
}
