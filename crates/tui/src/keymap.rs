//! The one keymap: a table of bindings that feeds the key handler, the footer's hints and the `?`
//! overlay, so the three cannot drift apart. `j` toggles job mode, `c`/`C` crash the job or one
//! operator instance, `x` takes a checkpoint, `p` cuts a partition off; `s` and `z` are the
//! presenter's (save the screen, the plot alone); `n`/`N` and `r` move through the tour; `b` is
//! deliberately left unbound (kept for big numbers). [`keys_table`] writes the table as the guide
//! lists it (docs/screen.md); [`help_rows`] writes it as the `?` overlay does, a key and its
//! inverse on one row.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::action::{self, Action};
use crate::app::Msg;
pub use table::{step as dial_step, KEYMAP};

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
    /// says; the guide's table still gives each binding a row of its own.
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

/// A key as the guide's table writes it: `` `l` ``, Space, Ctrl-C, Shift-Tab, ↑, F1, Home.
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

/// The keys table of the guide (docs/screen.md, Markdown), written from the keymap: a heading row
/// per group, then one row per binding, its keys and what it does. A test holds the guide to it.
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

/// The footer's hints: (action, keys, hint). For a run without a pipeline in table order,
/// with only the job toggle of the job's keys; for a run with one (the parallel job) the job's
/// keys first, without what such a run does not offer (inspect, late and dropped events,
/// policies, window selection). With the inspector open, ← → step through the events. In a
/// tour, the keys that move through it come first (the caption band's rule has no room for
/// them beside a long title at 80 columns); while the room votes on a tour's question, 1 2 3
/// answer it and are not offered as policies. The action comes with each, for the footer to
/// leave out what does not act now.
pub fn footer_hints(
    pipeline: bool,
    inspecting: bool,
    tour: bool,
    voting: bool,
) -> impl Iterator<Item = (Action, &'static str, &'static str)> {
    let first = KEYMAP.iter().filter(move |b| {
        (tour && b.action == Action::TourNext) || (pipeline && b.group == Group::Job)
    });
    let rest = KEYMAP.iter().filter(move |b| {
        if b.action == Action::TourNext || (voting && matches!(b.action, Action::Policy(_))) {
            false
        } else if pipeline {
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
                Action::TourNext => "n N",
                Action::Help => "?",
                Action::Policy(_) | Action::WindowNext => "",
                _ => b.label,
            };
            let h = match b.action {
                Action::DialUp if inspecting => "event",
                _ => h,
            };
            (b.action, keys, h)
        })
    })
}

mod table;

/// The messages a key press gives the update (none if it is bound to nothing). Esc quickly
/// followed by a key reaches us as Alt plus that key; it is read as the two presses it was.
/// A terminal event becomes an input, and an input its messages, in one place:
/// [`Input::messages`](crate::record::Input::messages).
pub fn key_messages(k: &KeyEvent) -> Vec<Msg> {
    if let (KeyCode::Char(_), true) = (k.code, k.modifiers.contains(KeyModifiers::ALT)) {
        let plain = KeyEvent::new(k.code, k.modifiers - KeyModifiers::ALT);
        let mut v = vec![Msg::Action(action::Action::Close)];
        v.extend(lookup(&plain).map(Msg::Action));
        return v;
    }
    lookup(k).map(Msg::Action).into_iter().collect()
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
    fn ctrl_z_suspends_and_z_alone_does_not() {
        assert_eq!(
            press(KeyCode::Char('z'), KeyModifiers::CONTROL),
            Some(Action::Suspend)
        );
        assert_ne!(
            press(KeyCode::Char('z'), KeyModifiers::NONE),
            Some(Action::Suspend)
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
