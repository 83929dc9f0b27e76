//! Every dial turned one notch each way at every step of the built-in tour, at 80×24 and
//! 120×40 (a predict step voted first): every figure the caption quotes equals the figure a
//! panel shows for the same thing, a predict step's reveal is the run's now shown, the caption
//! is whole, and a step whose case the dials have left says so and that `r` brings it back.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use twoclocks::engine::Fate;
use twoclocks::tui::app::{Action, App};
use twoclocks::tui::dials::Dial;
use twoclocks::tui::lesson::predict::Question;
use twoclocks::tui::panel::Panel;
use twoclocks::tui::tour::placeholders;
use twoclocks::tui::view;

use crate::tour_common::{act, frame, tour};
use crate::ui_common::rows_in;

const SIZES: [(u16, u16); 2] = [(80, 24), (120, 40)];

/// What the screen says once a step has left its case.
const LEFT: &str = "r brings it back";

/// Where a figure is read on screen: after its label (the next value on the row: `grace … 20s`)
/// or before it (`+19 replayed`).
#[derive(Clone, Copy)]
enum At {
    After(&'static str),
    Before(&'static str),
}

/// A panel that shows a figure: its name, a text its row holds, and where on the row.
type Shown = (&'static str, &'static str, At);

/// Where each figure a caption may quote is shown by a panel.
fn shown(name: &str) -> &'static [Shown] {
    use At::*;
    match name {
        "now" => &[
            ("plot", "▶", Before("▶")),
            ("watermark", "now", After("now")),
        ],
        "arrived" => &[
            ("counters", "arrived", After("arrived")),
            ("plot", "so far", Before(" so far")),
        ],
        "on_time" => &[("counters", "•", After("•"))],
        "late" => &[("counters", "◆", After("◆"))],
        "dropped" => &[("counters", "✕", After("✕")), ("side-a", "✕", After("✕"))],
        "b_dropped" => &[("side-b", "✕", After("✕"))],
        "early_panes" => &[("counters", "(E", After("(E"))],
        "on_time_panes" => &[("counters", "(E", After(" O"))],
        "late_panes" => &[("counters", "(E", After(" L"))],
        "watermark" => &[
            ("watermark", "watermark ", After("watermark ")),
            ("watermark", "wm ", After("wm ")),
        ],
        "gap" => &[("watermark", "gap ", After("gap "))],
        "lag" => &[("dials", "lag ", After("lag "))],
        "grace" => &[("dials", "grace ", After("grace "))],
        "early" => &[("dials", "early ", After("early "))],
        "idle" => &[("dials", "idle ", After("idle "))],
        "overcount" => &[
            ("sinks", "replay", Before(" replay")),
            ("plot", "ended", After("ended")),
        ],
        "checkpoints" => &[
            ("sinks", "ckpts", Before(" ckpts")),
            ("sinks", "checkpoints", Before(" checkpoints")),
        ],
        "replayed" => &[("plot", "took", After("took"))],
        "stall" => &[
            ("plot", "still", After("still")),
            ("plot", "stood", After("stood")),
            ("topology", "stalled", After("stalled")),
        ],
        "wrong" => &[("frontier", "cells wrong", Before(" of "))],
        "lost" => &[("frontier", "at the end", After("lost"))],
        "ttl" => &[("windows", "TTL", Before(" TTL"))],
        _ => &[],
    }
}

/// A value as a panel or a caption writes it: a count, seconds (`20s`, `7.2 s`), a signed
/// excess (`+19`); None for what is off or not known (`off`, `—`, `∞`, `n/a`).
fn value(s: &str) -> Option<Option<f64>> {
    let s = s
        .trim_matches(|c: char| !(c.is_alphanumeric() || "+—∞.".contains(c)))
        .trim_end_matches('.');
    if matches!(s, "off" | "—" | "∞" | "n/a") {
        return Some(None);
    }
    let s = s.trim_start_matches('+');
    let s = s.strip_suffix('s').unwrap_or(s).trim_end();
    s.parse::<f64>().ok().map(Some)
}

/// The value after `label` on `row`: the first word after it that is one.
fn after(row: &str, label: &str) -> Option<Option<f64>> {
    let at = row.find(label)? + label.len();
    row[at..]
        .split(|c: char| c.is_whitespace() || c == '/')
        .filter(|w| !w.is_empty())
        .find_map(|w| {
            // A bar drawn before the value (`━●──`) is not a word of it.
            let w =
                w.trim_start_matches(|c: char| !c.is_ascii_alphanumeric() && !"+—∞".contains(c));
            value(w)
        })
}

/// The value just before `label` on `row`.
fn before(row: &str, label: &str) -> Option<Option<f64>> {
    let at = row.find(label)?;
    let word = row[..at]
        .trim_end()
        .rsplit(|c: char| c.is_whitespace())
        .next()?;
    let word = word.trim_start_matches(|c: char| !c.is_ascii_digit() && c != '+');
    value(word)
}

/// Each value the panels show for figure `name`.
fn on_screen(name: &str, buf: &Buffer, panels: &[(Panel, Rect)]) -> Vec<Option<f64>> {
    let mut found = Vec::new();
    for (panel, row_has, at) in shown(name) {
        let Some((_, r)) = panels.iter().find(|(p, _)| p.name() == *panel) else {
            continue;
        };
        for row in rows_in(buf, *r) {
            if !row.contains(row_has) {
                continue;
            }
            let v = match at {
                At::After(l) => after(&row, l),
                At::Before(l) => before(&row, l),
            };
            found.extend(v);
        }
    }
    found
}

/// Whether two values are the same figure: both off, or equal to the tenth a caption shows.
fn same(a: Option<f64>, b: Option<f64>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => (a - b).abs() < 0.051,
        _ => false,
    }
}

/// One notch of one dial (or more, to leave a step's case).
struct Turn {
    what: String,
    keys: Vec<Action>,
    focus: Option<Dial>,
}

fn turn(what: &str, focus: Option<Dial>, keys: Vec<Action>) -> Turn {
    Turn {
        what: what.into(),
        keys,
        focus,
    }
}

/// Each dial one notch down and one up from the step's setting (the watermark kind and the
/// accumulation cycled each way; the idle timeout and the checkpoint interval where the step
/// runs the job), and, past a notch, the turns that take a step out of its case.
fn turns(a: &App, step: &str) -> Vec<Turn> {
    use Action::*;
    let mut v = vec![
        turn("lag down", None, vec![LagDown]),
        turn("lag up", None, vec![LagUp]),
        turn("grace down", None, vec![GraceDown]),
        turn("grace up", None, vec![GraceUp]),
        turn("early down", None, vec![EarlyDown]),
        turn("early up", None, vec![EarlyUp]),
        turn("watermark kind on", None, vec![CycleWatermark]),
        turn("watermark kind back", None, vec![CycleWatermark; 3]),
        turn("accumulation on", None, vec![CycleAccumulation]),
        turn("accumulation back", None, vec![CycleAccumulation; 2]),
    ];
    if a.steered.parallel() {
        for d in [Dial::Idle, Dial::Checkpoint] {
            v.push(turn(
                &format!("{} down", d.label()),
                Some(d),
                vec![DialDown],
            ));
            v.push(turn(&format!("{} up", d.label()), Some(d), vec![DialUp]));
        }
        // Not dials, but the run a job step's claim is about: the job turned off, and the
        // job played to its end.
        v.push(turn("job off", None, vec![ToggleJob]));
        v.push(turn("to the end", None, vec![JumpToEnd]));
    }
    match step {
        "predict-late" => v.push(turn("grace down twice", None, vec![GraceDown; 2])),
        "crash" => v.push(turn("lag up three times", None, vec![LagUp; 3])),
        "idleness" => v.push(turn("idle off", Some(Dial::Idle), vec![DialDown; 2])),
        _ => {}
    }
    v
}

/// Votes on an open question, wrongly (the longer reveal).
fn vote(a: &mut App) {
    if let Some(q) = a.voting() {
        let wrong = (q.answer() + 1) % q.choices();
        act(a, Action::Policy(wrong as u8));
        assert!(a.voting().is_none(), "the vote was not taken");
    }
}

/// Whether the run on screen has left what the step's caption claims, read from the run
/// itself: the crash's replay put the additive sink over (crash), A idles (idleness), the
/// job's watermark stands still (partition).
fn left_case(a: &App, step: &str) -> bool {
    let f = a.figures();
    match step {
        "crash" => f.overcount.unwrap_or(0) <= 0,
        "idleness" => a.dials().idle_timeout.is_none() || !a.steered.parallel(),
        "partition" => f.stall.is_none(),
        "barriers" => f.checkpoints == 0,
        _ => false,
    }
}

/// The reveal against the run shown: the event's fate as the run decided it, the grace the
/// dials set, the watermark its arrival met and the bound `end + grace`.
fn check_reveal(a: &App, said: &str, at: &str) {
    let Some(p) = a.prediction.as_ref() else {
        return;
    };
    match &p.question {
        Question::Fate { offset, .. } => {
            let Some(seen) = a.trace().inspect(*offset) else {
                assert!(said.contains("after the playhead"), "{at}: {said}");
                return;
            };
            let word = match seen.fate {
                Fate::OnTime => "on time:",
                Fate::Late => "late, kept:",
                Fate::Dropped => "dropped:",
            };
            assert!(
                said.to_lowercase().contains(word),
                "{at}: the run has it {word} {said}"
            );
            if seen.fate != Fate::OnTime {
                let grace = after(said, "grace ").flatten().unwrap();
                assert!(
                    same(Some(grace), Some(a.dials().grace / 1000.0)),
                    "{at}: grace {said}"
                );
                let (w, _) = seen.windows.iter().find(|(_, f)| *f == seen.fate).unwrap();
                let bound = after(said, &format!("grace {} = ", grace))
                    .flatten()
                    .unwrap();
                assert!(
                    same(Some(bound), Some((w.end() + a.dials().grace) / 1000.0)),
                    "{at}: end + grace {said}"
                );
            }
            let wm = after(said, "watermark ").flatten().unwrap();
            assert!(
                same(Some(wm), Some(seen.watermark / 1000.0)),
                "{at}: {said}"
            );
        }
        Question::Pane { pane, .. } => {
            let fired = a
                .trace()
                .panes()
                .iter()
                .filter(|q| q.cell == pane.cell && q.timing == pane.timing)
                .find(|q| q.proc_time >= pane.proc_time)
                .or_else(|| {
                    a.trace()
                        .panes()
                        .iter()
                        .find(|q| q.cell == pane.cell && q.timing == pane.timing)
                });
            match fired {
                None => assert!(said.contains("has not fired"), "{at}: {said}"),
                Some(f) => {
                    let v = after(said, " with ").flatten().unwrap();
                    assert!(same(Some(v), Some(f.value as f64)), "{at}: value {said}");
                }
            }
        }
    }
}

/// The step, its caption and the screen checked, at both sizes.
fn check(a: &mut App, step: &str, what: &str) {
    let text = view::caption::text(a).unwrap();
    let left = text.contains(LEFT);
    let template = {
        let s = a.tour.as_ref().unwrap().step();
        if left {
            s.off_case.clone()
        } else {
            s.caption.clone()
        }
    };
    for (w, h) in SIZES {
        let at = format!("{step}, {what}, at {w}×{h}");
        let buf = frame(a, w, h);
        let areas = a.areas((w, h)).unwrap();
        let panels = areas.panels();
        let screen = crate::ui_common::text(&buf);
        // Whole: the band's lines end without an ellipsis.
        let band = areas.caption.unwrap();
        for row in rows_in(&buf, band) {
            assert!(!row.contains('…'), "{at}: the caption is cut\n{screen}");
        }
        if a.prediction.as_ref().is_some_and(|p| p.vote.is_some()) {
            check_reveal(a, &text, &at);
            continue;
        }
        for name in placeholders::check(&template).unwrap() {
            let Some(quoted) = placeholders::number(name, &a.quoted()) else {
                if matches!(name, "event" | "choices") {
                    continue;
                }
                // A figure off or not known is written so: `off`, `—`.
                let written = placeholders::value(name, &a.quoted()).unwrap();
                assert!(matches!(written.as_str(), "off" | "—"), "{at}: {name}");
                continue;
            };
            assert!(
                !shown(name).is_empty(),
                "{at}: no panel is known to show {{{name}}}"
            );
            let seen = on_screen(name, &buf, &panels);
            if seen.is_empty() && w < 120 {
                // At 80×24 a panel may keep a figure back that 120×40 shows.
                continue;
            }
            assert!(
                seen.iter().any(|&v| same(v, Some(quoted))),
                "{at}: the caption says {{{name}}} = {quoted}, the panels {seen:?}\n{text}\n{screen}"
            );
        }
    }
    assert_eq!(
        left,
        left_case(a, step),
        "{step}, {what}: the step's case and the caption disagree: {text}"
    );
}

#[test]
fn every_figure_a_caption_quotes_is_the_panels_under_every_dial_at_every_step() {
    let mut a = tour();
    let n = a.tour.as_ref().unwrap().steps.len();
    let mut turned = 0;
    for k in 0..n {
        let step = a.tour.as_ref().unwrap().step().name.clone().unwrap();
        vote(&mut a);
        check(&mut a, &step, "as set");
        for t in turns(&a, &step) {
            if let Some(d) = t.focus {
                a.selection.focus = d;
            }
            for key in t.keys {
                act(&mut a, key);
            }
            check(&mut a, &step, &t.what);
            turned += 1;
            act(&mut a, Action::TourReset);
            vote(&mut a);
        }
        if k + 1 < n {
            act(&mut a, Action::TourNext);
        }
    }
    assert!(turned >= 15 * 10, "{turned} turns");
}

#[test]
fn a_case_weighs_known_figures_and_says_what_holds_outside_it() {
    use crate::tour_common::GOOD_STEP;
    use twoclocks::tui::tour::Tour;
    let good = format!("{GOOD_STEP}case = [\"dropped > 0\"]\noff_case = \"{{late}} late\"\n");
    let t = Tour::parse("c.toml", &good).unwrap();
    assert_eq!(t.steps[0].case.len(), 1);
    for (field, fault) in [
        (
            "case = [\"drops > 0\"]\noff_case = \"x\"\n",
            "c.toml: line 4: case: \"drops\" is not a figure a case can weigh",
        ),
        (
            "case = [\"dropped 0\"]\noff_case = \"x\"\n",
            "c.toml: line 4: case: \"dropped 0\" is not a condition",
        ),
        (
            "case = [\"dropped > 0\"]\n",
            "c.toml: line 4: case: a step with a case says what holds outside it",
        ),
        ("off_case = \"x\"\n", "c.toml: line 4: off_case:"),
        (
            "case = [\"idle != off\"]\noff_case = \"{drops}\"\n",
            "c.toml: line 5: off_case: unknown placeholder {drops}",
        ),
    ] {
        let e = Tour::parse("c.toml", &format!("{GOOD_STEP}{field}"))
            .unwrap_err()
            .to_string();
        assert!(e.contains(fault), "{field}: {e}");
    }
}

#[test]
fn the_guides_turned_reveal_is_the_programs() {
    let mut a = crate::tour_common::tour_from("predict-late");
    act(&mut a, Action::Policy(1));
    act(&mut a, Action::GraceDown);
    act(&mut a, Action::GraceDown);
    let said = view::caption::text(&a).unwrap();
    let guide = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/presenting.md"))
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        guide.contains(&format!("(`{said}`)")),
        "docs/presenting.md quotes the reveal of predict-late voted 2, grace turned to 10 s; the program says:\n{said}"
    );
    // And the sentence of a step the dials have taken out of its case: idleness, idle off.
    let mut a = crate::tour_common::tour_from("idleness");
    a.selection.focus = Dial::Idle;
    act(&mut a, Action::DialDown);
    act(&mut a, Action::DialDown);
    let said = view::caption::text(&a).unwrap();
    let moved = said[said.find("Off the step's dials").unwrap()..].replace('\u{a0}', " ");
    assert!(
        guide.contains(&format!("(`{moved}`)")),
        "docs/presenting.md quotes the idleness step with idle off; the program says:\n{moved}"
    );
}
