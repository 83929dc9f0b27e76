//! The one keymap: a table of bindings that feeds the key handler, the footer's hints and the
//! `?` overlay, so the three cannot drift apart. `j` toggles job mode, `c`/`C` crash the job or
//! one operator instance, `x` takes a checkpoint, `p` cuts a partition off; `s` and `z` are the
//! presenter's (save the screen, the plot alone); `n`/`N` and `r` move through the tour; `b`
//! is deliberately left unbound (kept for big numbers). [`keys_table`] writes the table as the README lists it;
//! [`help_rows`] writes it as the `?` overlay does, a key and its inverse on one row.

use std::sync::LazyLock;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::action::Action;
use super::dials::{EARLY_STEP, GRACE_STEP, LAG_STEP};
use crate::engine::frontier::POLICIES;
use crate::engine::window::fmt_ms;

/// A key as the table names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    /// A printable character, as typed (shift is in the character: `L` is shift-l).
    Char(char),
    /// Control plus a letter.
    Ctrl(char),
    /// A named key.
    Named(KeyCode),
}

impl Key {
    fn matches(&self, ev: &KeyEvent) -> bool {
        let ctrl = ev.modifiers.contains(KeyModifiers::CONTROL);
        let alt = ev.modifiers.contains(KeyModifiers::ALT);
        match (*self, ev.code) {
            (Key::Char(c), KeyCode::Char(k)) => !ctrl && !alt && c == k,
            (Key::Ctrl(c), KeyCode::Char(k)) => ctrl && k.eq_ignore_ascii_case(&c),
            (Key::Named(n), code) => !ctrl && !alt && n == code,
            _ => false,
        }
    }
}

/// Which part of the help a binding is listed under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    /// Play, pause, step, speed, restart, jump to the end.
    Playback,
    /// Focus and turn the dials, cycle the watermark kind and accumulation, pick a policy.
    Dials,
    /// Windows and keys, the inspector, the late and dropped events.
    Select,
    /// Job mode, crashes, the operator to crash, checkpoints.
    Job,
    /// The presenter's keys (save the screen, the plot alone), help, close, quit.
    General,
}

impl Group {
    /// Every group, in the order the help lists them.
    pub const ALL: [Group; 5] = [
        Group::Playback,
        Group::Dials,
        Group::Select,
        Group::Job,
        Group::General,
    ];

    /// The group's heading in the help.
    pub fn title(&self) -> &'static str {
        match self {
            Group::Playback => "Playback",
            Group::Dials => "Dials",
            Group::Select => "Windows and events",
            Group::Job => "Job: operators, checkpoints, crashes",
            Group::General => "General",
        }
    }
}

/// One row of the keymap.
#[derive(Debug, Clone, Copy)]
pub struct Binding {
    /// The keys bound (any one of them).
    pub keys: &'static [Key],
    /// What the keys ask for.
    pub action: Action,
    /// How the keys are written in the footer and help.
    pub label: &'static str,
    /// What the binding does.
    pub help: &'static str,
    /// Short hint for the footer, if it is shown there.
    pub hint: Option<&'static str>,
    /// The part of the help it is listed under.
    pub group: Group,
    /// Listed in the help on one row with the binding after it (its inverse), as this pair
    /// says; the README's table still gives each binding a row of its own.
    pub pair: Option<Pair>,
}

/// How the help writes a binding and the one after it on a single row: `l L  watermark lag
/// − / + 1 s`. A display grouping of the one table, so that the `?` overlay has room.
#[derive(Debug, Clone, Copy)]
pub struct Pair {
    /// The two bindings' keys, as the row writes them.
    pub label: &'static str,
    /// What the two do.
    pub help: &'static str,
}

/// One row of the help: a binding, or a binding and its inverse (see [`Pair`]).
#[derive(Debug, Clone)]
pub struct HelpRow {
    /// The keys, as the row writes them.
    pub label: &'static str,
    /// What they do.
    pub help: &'static str,
    /// The part of the help the row is listed under.
    pub group: Group,
    /// The bindings the row stands for (one, or a pair).
    pub bindings: Vec<&'static Binding>,
}

use Key::{Char, Ctrl, Named};

/// The help texts that name a dial's step, a policy's setting or the job's shape, written from
/// those constants so that they cannot drift from them.
struct Texts {
    lag_down: String,
    lag_up: String,
    grace_down: String,
    grace_up: String,
    early_down: String,
    early_up: String,
    lag: String,
    grace: String,
    early: String,
    policies: [String; POLICIES.len()],
}

/// A dial's step in seconds, as the help writes it.
fn step(ms: f64) -> String {
    format!("{} s", ms / 1_000.0)
}

static TEXTS: LazyLock<Texts> = LazyLock::new(|| Texts {
    lag_down: format!("watermark lag − {}", step(LAG_STEP)),
    lag_up: format!("watermark lag + {}", step(LAG_STEP)),
    grace_down: format!("grace − {}", step(GRACE_STEP)),
    grace_up: format!("grace + {}", step(GRACE_STEP)),
    early_down: format!("early trigger − {} / off", step(EARLY_STEP)),
    early_up: format!("early trigger + {}", step(EARLY_STEP)),
    lag: format!("watermark lag − / + {}", step(LAG_STEP)),
    grace: format!("grace − / + {}", step(GRACE_STEP)),
    early: format!("early trigger − / + {}", step(EARLY_STEP)),
    policies: POLICIES.map(|p| {
        format!(
            "{}: lag {} grace {}",
            p.name,
            fmt_ms(p.lag),
            fmt_ms(p.grace)
        )
    }),
});

/// The keymap.
pub static KEYMAP: LazyLock<Vec<Binding>> = LazyLock::new(bindings);

fn bindings() -> Vec<Binding> {
    let t: &'static Texts = &TEXTS;
    vec![
        Binding {
            keys: &[Char(' ')],
            action: Action::TogglePlay,
            label: "Space",
            help: "play / pause",
            hint: Some("play"),
            group: Group::Playback,
            pair: None,
        },
        Binding {
            keys: &[Char('.')],
            action: Action::Step,
            label: ".",
            help: "one event while paused",
            hint: Some("step"),
            group: Group::Playback,
            pair: None,
        },
        Binding {
            keys: &[Char('+'), Char('=')],
            action: Action::Faster,
            label: "+",
            help: "faster",
            hint: None,
            group: Group::Playback,
            pair: Some(Pair {
                label: "+ -",
                help: "faster / slower",
            }),
        },
        Binding {
            keys: &[Char('-'), Char('_')],
            action: Action::Slower,
            label: "-",
            help: "slower",
            hint: None,
            group: Group::Playback,
            pair: None,
        },
        Binding {
            keys: &[Named(KeyCode::Home)],
            action: Action::Restart,
            label: "Home",
            help: "restart",
            hint: None,
            group: Group::Playback,
            pair: None,
        },
        Binding {
            keys: &[Named(KeyCode::End)],
            action: Action::JumpToEnd,
            label: "End",
            help: "jump to the end",
            hint: Some("end"),
            group: Group::Playback,
            pair: None,
        },
        Binding {
            keys: &[Char('n'), Named(KeyCode::PageDown)],
            action: Action::TourNext,
            label: "n/PgDn",
            help: "tour: next step",
            hint: None,
            group: Group::Playback,
            pair: Some(Pair {
                label: "n N",
                help: "tour: next / previous step",
            }),
        },
        Binding {
            keys: &[Char('N'), Named(KeyCode::PageUp)],
            action: Action::TourPrev,
            label: "N/PgUp",
            help: "tour: previous step",
            hint: None,
            group: Group::Playback,
            pair: None,
        },
        Binding {
            keys: &[Char('r')],
            action: Action::TourReset,
            label: "r",
            help: "tour: put the step back",
            hint: None,
            group: Group::Playback,
            pair: None,
        },
        Binding {
            keys: &[Named(KeyCode::Tab), Named(KeyCode::Down)],
            action: Action::FocusNext,
            label: "Tab/↓",
            help: "next dial",
            hint: None,
            group: Group::Dials,
            pair: Some(Pair {
                label: "↓ ↑",
                help: "next / prev dial, Tab S-Tab",
            }),
        },
        Binding {
            keys: &[Named(KeyCode::BackTab), Named(KeyCode::Up)],
            action: Action::FocusPrev,
            label: "S-Tab/↑",
            help: "previous dial",
            hint: None,
            group: Group::Dials,
            pair: None,
        },
        Binding {
            keys: &[Named(KeyCode::Left)],
            action: Action::DialDown,
            label: "←",
            help: "dial down (or event before)",
            hint: None,
            group: Group::Dials,
            pair: Some(Pair {
                label: "← →",
                help: "dial −/+ (inspector: event)",
            }),
        },
        Binding {
            keys: &[Named(KeyCode::Right)],
            action: Action::DialUp,
            label: "→",
            help: "dial up (or event after)",
            hint: Some("dial"),
            group: Group::Dials,
            pair: None,
        },
        Binding {
            keys: &[Char('l')],
            action: Action::LagDown,
            label: "l",
            help: &t.lag_down,
            hint: None,
            group: Group::Dials,
            pair: Some(Pair {
                label: "l L",
                help: &t.lag,
            }),
        },
        Binding {
            keys: &[Char('L')],
            action: Action::LagUp,
            label: "L",
            help: &t.lag_up,
            hint: None,
            group: Group::Dials,
            pair: None,
        },
        Binding {
            keys: &[Char('g')],
            action: Action::GraceDown,
            label: "g",
            help: &t.grace_down,
            hint: None,
            group: Group::Dials,
            pair: Some(Pair {
                label: "g G",
                help: &t.grace,
            }),
        },
        Binding {
            keys: &[Char('G')],
            action: Action::GraceUp,
            label: "G",
            help: &t.grace_up,
            hint: None,
            group: Group::Dials,
            pair: None,
        },
        Binding {
            keys: &[Char('e')],
            action: Action::EarlyDown,
            label: "e",
            help: &t.early_down,
            hint: None,
            group: Group::Dials,
            pair: Some(Pair {
                label: "e E",
                help: &t.early,
            }),
        },
        Binding {
            keys: &[Char('E')],
            action: Action::EarlyUp,
            label: "E",
            help: &t.early_up,
            hint: None,
            group: Group::Dials,
            pair: None,
        },
        Binding {
            keys: &[Char('w')],
            action: Action::CycleWatermark,
            label: "w",
            help: "next watermark kind",
            hint: None,
            group: Group::Dials,
            pair: None,
        },
        Binding {
            keys: &[Char('a')],
            action: Action::CycleAccumulation,
            label: "a",
            help: "next accumulation mode",
            hint: None,
            group: Group::Dials,
            pair: None,
        },
        Binding {
            keys: &[Char('1')],
            action: Action::Policy(0),
            label: "1",
            help: &t.policies[0],
            hint: None,
            group: Group::Dials,
            pair: None,
        },
        Binding {
            keys: &[Char('2')],
            action: Action::Policy(1),
            label: "2",
            help: &t.policies[1],
            hint: None,
            group: Group::Dials,
            pair: None,
        },
        Binding {
            keys: &[Char('3')],
            action: Action::Policy(2),
            label: "3",
            help: &t.policies[2],
            hint: Some("1 2 3 policy"),
            group: Group::Dials,
            pair: None,
        },
        Binding {
            keys: &[Char('[')],
            action: Action::WindowPrev,
            label: "[",
            help: "previous window",
            hint: None,
            group: Group::Select,
            pair: Some(Pair {
                label: "[ ]",
                help: "previous / next window",
            }),
        },
        Binding {
            keys: &[Char(']')],
            action: Action::WindowNext,
            label: "]",
            help: "next window",
            hint: Some("[] window"),
            group: Group::Select,
            pair: None,
        },
        Binding {
            keys: &[Char('k')],
            action: Action::CycleKey,
            label: "k",
            help: "next key (then all keys)",
            hint: None,
            group: Group::Select,
            pair: None,
        },
        Binding {
            keys: &[Char('i')],
            action: Action::Inspect,
            label: "i",
            help: "why: the newest (or click)",
            hint: Some("inspect"),
            group: Group::Select,
            pair: None,
        },
        Binding {
            keys: &[Char('f')],
            action: Action::PlotFilter,
            label: "f",
            help: "only late & dropped ↔ all",
            hint: None,
            group: Group::Select,
            pair: None,
        },
        Binding {
            keys: &[Char('>')],
            action: Action::NextException,
            label: ">",
            help: "next late or dropped event",
            hint: Some("late"),
            group: Group::Select,
            pair: Some(Pair {
                label: "> <",
                help: "next / prev late or dropped",
            }),
        },
        Binding {
            keys: &[Char('<')],
            action: Action::PrevException,
            label: "<",
            help: "previous late or dropped",
            hint: None,
            group: Group::Select,
            pair: None,
        },
        Binding {
            keys: &[Char('j')],
            action: Action::ToggleJob,
            label: "j",
            help: "job mode ↔ single processor",
            hint: Some("job"),
            group: Group::Job,
            pair: None,
        },
        Binding {
            keys: &[Char('c')],
            action: Action::Crash,
            label: "c",
            help: "crash now: job or picked op",
            hint: Some("crash"),
            group: Group::Job,
            pair: None,
        },
        Binding {
            keys: &[Char('C')],
            action: Action::PickOperator,
            label: "C",
            help: "pick operator (again: next)",
            hint: Some("pick op"),
            group: Group::Job,
            pair: None,
        },
        Binding {
            keys: &[Char('x')],
            action: Action::CheckpointNow,
            label: "x",
            help: "take a checkpoint now",
            hint: Some("checkpoint"),
            group: Group::Job,
            pair: None,
        },
        Binding {
            keys: &[Char('p')],
            action: Action::CutPartition,
            label: "p",
            help: "cut picked partition / heal",
            hint: Some("cut/heal"),
            group: Group::Job,
            pair: None,
        },
        Binding {
            keys: &[Char('P')],
            action: Action::PickPartition,
            label: "P",
            help: "pick partition for p",
            hint: None,
            group: Group::Job,
            pair: None,
        },
        Binding {
            keys: &[Char('s')],
            action: Action::SaveScreen,
            label: "s",
            help: "save screen: .svg and .txt",
            hint: None,
            group: Group::General,
            pair: None,
        },
        Binding {
            keys: &[Char('z')],
            action: Action::Zoom,
            label: "z",
            help: "the plot alone ↔ all panels",
            hint: None,
            group: Group::General,
            pair: None,
        },
        Binding {
            keys: &[Char('v')],
            action: Action::SideBySide,
            label: "v",
            help: "pin B: side by side ↔ one",
            hint: None,
            group: Group::General,
            pair: None,
        },
        Binding {
            keys: &[Char('b')],
            action: Action::BigNumbers,
            label: "b",
            help: "big numbers ↔ the panels",
            hint: None,
            group: Group::General,
            pair: None,
        },
        Binding {
            keys: &[Char('?'), Named(KeyCode::F(1))],
            action: Action::Help,
            label: "?/F1",
            help: "this help",
            hint: Some("help"),
            group: Group::General,
            pair: None,
        },
        Binding {
            keys: &[Named(KeyCode::Esc)],
            action: Action::Close,
            label: "Esc",
            help: "close help/inspector/report",
            hint: None,
            group: Group::General,
            pair: None,
        },
        Binding {
            keys: &[Char('q'), Ctrl('c')],
            action: Action::Quit,
            label: "q/C-c",
            help: "quit",
            hint: Some("quit"),
            group: Group::General,
            pair: None,
        },
    ]
}

/// A key as the README's table writes it: `` `l` ``, Space, Ctrl-C, Shift-Tab, ↑, F1, Home.
pub fn key_name(k: Key) -> String {
    match k {
        Key::Char(' ') => "Space".to_string(),
        Key::Char(c) => format!("`{c}`"),
        Key::Ctrl(c) => format!("Ctrl-{}", c.to_ascii_uppercase()),
        Key::Named(KeyCode::BackTab) => "Shift-Tab".to_string(),
        Key::Named(KeyCode::Up) => "↑".to_string(),
        Key::Named(KeyCode::Down) => "↓".to_string(),
        Key::Named(KeyCode::Left) => "←".to_string(),
        Key::Named(KeyCode::Right) => "→".to_string(),
        Key::Named(KeyCode::F(n)) => format!("F{n}"),
        Key::Named(KeyCode::PageDown) => "PageDown".to_string(),
        Key::Named(KeyCode::PageUp) => "PageUp".to_string(),
        Key::Named(code) => format!("{code:?}"),
    }
}

/// The keys table of the README (Markdown), written from the keymap: a heading row per group,
/// then one row per binding, its keys and what it does. A test holds the README to it.
pub fn keys_table() -> String {
    let mut out = String::from("| key | does |\n|---|---|\n");
    for g in Group::ALL {
        out.push_str(&format!("| **{}** | |\n", g.title()));
        for b in KEYMAP.iter().filter(|b| b.group == g) {
            let keys: Vec<String> = b.keys.iter().map(|&k| key_name(k)).collect();
            out.push_str(&format!(
                "| {} | {} |\n",
                keys.join(", "),
                b.help.replace('|', "\\|")
            ));
        }
    }
    out
}

/// The help's rows, in table order: each binding on its own row, except a binding with a
/// [`Pair`], which shares its row with the binding after it.
pub fn help_rows() -> Vec<HelpRow> {
    let mut rows = Vec::new();
    let mut all = KEYMAP.iter().peekable();
    while let Some(b) = all.next() {
        match (b.pair, all.peek()) {
            (Some(p), Some(&next)) if next.group == b.group => {
                all.next();
                rows.push(HelpRow {
                    label: p.label,
                    help: p.help,
                    group: b.group,
                    bindings: vec![b, next],
                });
            }
            _ => rows.push(HelpRow {
                label: b.label,
                help: b.help,
                group: b.group,
                bindings: vec![b],
            }),
        }
    }
    rows
}

/// The action a key press is bound to, if any.
pub fn lookup(ev: &KeyEvent) -> Option<Action> {
    KEYMAP
        .iter()
        .find(|b| b.keys.iter().any(|k| k.matches(ev)))
        .map(|b| b.action)
}

/// The footer's hints: (keys, hint). For a run without a pipeline in table order, with only
/// the job toggle of the job's keys; for a run with one (the parallel job) the job's keys
/// first, without what such a run does not offer (inspect, late and dropped events, policies,
/// window selection). With the inspector open, ← → step through the events.
pub fn footer_hints(
    pipeline: bool,
    inspecting: bool,
) -> impl Iterator<Item = (&'static str, &'static str)> {
    let first = KEYMAP
        .iter()
        .filter(move |b| pipeline && b.group == Group::Job);
    let rest = KEYMAP.iter().filter(move |b| {
        if pipeline {
            b.group != Group::Job
                && !matches!(
                    b.action,
                    Action::Inspect
                        | Action::NextException
                        | Action::Policy(_)
                        | Action::WindowNext
                )
        } else {
            b.group != Group::Job || b.action == Action::ToggleJob
        }
    });
    first.chain(rest).filter_map(move |b| {
        b.hint.map(|h| {
            let keys = match b.action {
                Action::DialUp => "←→",
                Action::NextException => "<>",
                Action::Help => "?",
                Action::Policy(_) | Action::WindowNext => "",
                _ => b.label,
            };
            let h = match b.action {
                Action::DialUp if inspecting => "event",
                _ => h,
            };
            (keys, h)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(code: KeyCode, m: KeyModifiers) -> Option<Action> {
        lookup(&KeyEvent::new(code, m))
    }

    #[test]
    fn keys_map_to_actions() {
        assert_eq!(
            press(KeyCode::Char(' '), KeyModifiers::NONE),
            Some(Action::TogglePlay)
        );
        assert_eq!(
            press(KeyCode::Char('L'), KeyModifiers::SHIFT),
            Some(Action::LagUp)
        );
        assert_eq!(
            press(KeyCode::Char('c'), KeyModifiers::CONTROL),
            Some(Action::Quit)
        );
        assert_eq!(press(KeyCode::F(1), KeyModifiers::NONE), Some(Action::Help));
        assert_eq!(
            press(KeyCode::Char('C'), KeyModifiers::SHIFT),
            Some(Action::PickOperator)
        );
        assert_eq!(
            press(KeyCode::Char('x'), KeyModifiers::NONE),
            Some(Action::CheckpointNow)
        );
        assert_eq!(
            press(KeyCode::BackTab, KeyModifiers::SHIFT),
            Some(Action::FocusPrev)
        );
        assert_eq!(
            press(KeyCode::Char('f'), KeyModifiers::NONE),
            Some(Action::PlotFilter)
        );
    }

    #[test]
    fn b_shows_big_numbers() {
        assert_eq!(
            press(KeyCode::Char('b'), KeyModifiers::NONE),
            Some(Action::BigNumbers)
        );
    }

    #[test]
    fn every_binding_is_on_one_help_row_and_pairs_are_inverses_written_together() {
        let rows = help_rows();
        let listed: usize = rows.iter().map(|r| r.bindings.len()).sum();
        assert_eq!(listed, KEYMAP.len());
        for r in rows.iter().filter(|r| r.bindings.len() == 2) {
            for b in &r.bindings {
                let first = b.label.split('/').next().unwrap_or(b.label);
                let shown = r.label.contains(first) || r.help.contains(first);
                assert!(shown, "{} missing from the row {}", b.label, r.label);
            }
        }
    }

    #[test]
    fn no_key_is_bound_twice() {
        let all: Vec<Key> = KEYMAP.iter().flat_map(|b| b.keys.iter().copied()).collect();
        for (i, k) in all.iter().enumerate() {
            assert!(!all[i + 1..].contains(k), "{k:?} bound twice");
        }
    }
}
