//! A script opened in the terminal, one step per key (`twoclocks script FILE --ui`): a lesson
//! written as Beam's transcript YAML, played forward and back. The state ([`Player`]) and its
//! pure update ([`Player::press`]) are here, what it draws in `view`, and [`run`] is the
//! loop: it wakes only for a key, a resize or a signal, so it uses no CPU between them.
//!
//! Everything shown is a frame of the script's [`Playback`]: the player only chooses which
//! script, which rules and which step.

mod playback;
mod view;

use crossterm::event::{Event, EventStream, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use futures::StreamExt;
use twoclocks_engine::script::Script;
use twoclocks_engine::Conventions;

use crate::theme::Theme;
use crate::{terminal, StopSignals};
pub use playback::{Frame, Playback, StepCheck, WindowStanding, WindowView};
pub use view::{draw, render};

/// Every key of the player, with what it does, as the `?` overlay and the guide list them.
pub const KEYS: [(&str, &str); 9] = [
    ("→  space  l", "perform the next step"),
    ("←  backspace  h", "go back one step"),
    ("Home  g", "back to the start"),
    ("End  G", "every step performed"),
    ("n  p", "the next or previous script of the file"),
    (
        "R",
        "the next engine's rules (Beam Java, Beam Python, Flink, Kafka Streams)",
    ),
    ("?", "this list of keys"),
    ("q  Esc", "quit (Ctrl-C too)"),
    ("Ctrl-Z", "suspend, as any program in a shell"),
];

/// The player: the file's scripts, the one shown, under which rules, and how many of its
/// steps are performed.
#[derive(Debug, Clone)]
pub struct Player {
    /// The file, as the title names it.
    pub file: String,
    scripts: Vec<Script>,
    index: usize,
    playback: Playback,
    /// Steps performed (0: the start).
    pub done: usize,
    /// Whether the `?` overlay is shown.
    pub help: bool,
    /// The colours.
    pub theme: Theme,
    /// A note for the footer (a key that did nothing says why), until the next key.
    pub note: Option<String>,
    /// Whether the user asked to quit.
    pub quit: bool,
}

impl Player {
    /// A player on `scripts` (at least one) of `file`, showing the one at `index`, under
    /// `conventions`, before its first step.
    pub fn new(
        file: String,
        scripts: Vec<Script>,
        index: usize,
        conventions: Conventions,
        theme: Theme,
    ) -> anyhow::Result<Player> {
        let Some(script) = scripts.get(index) else {
            anyhow::bail!("{file}: no script to show");
        };
        let playback = Playback::new(script, conventions);
        Ok(Player {
            file,
            index,
            playback,
            scripts,
            done: 0,
            help: false,
            theme,
            note: None,
            quit: false,
        })
    }

    /// The script shown, played.
    pub fn playback(&self) -> &Playback {
        &self.playback
    }

    /// Which script of the file is shown (0-based), and how many the file has.
    pub fn position(&self) -> (usize, usize) {
        (self.index, self.scripts.len())
    }

    /// The rules the script runs under.
    pub fn conventions(&self) -> Conventions {
        self.playback.conventions()
    }

    /// Takes a key; returns whether the screen changed.
    pub fn press(&mut self, key: KeyEvent) -> bool {
        if key.kind == KeyEventKind::Release {
            return false;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let note = self.note.take();
        if ctrl {
            if let KeyCode::Char('c' | 'C') = key.code {
                self.quit = true;
            }
            return note.is_some();
        }
        if self.help {
            // Any key closes the overlay; q still quits.
            if matches!(key.code, KeyCode::Char('q')) {
                self.quit = true;
            }
            self.help = false;
            return true;
        }
        let steps = self.playback.len() - 1;
        match key.code {
            KeyCode::Right | KeyCode::Char(' ' | 'l') => {
                if self.done < steps {
                    self.done += 1;
                } else {
                    self.note = Some(
                        "every step is performed: ← goes back, n opens the next script".into(),
                    );
                }
            }
            KeyCode::Left | KeyCode::Backspace | KeyCode::Char('h') => {
                if self.done > 0 {
                    self.done -= 1;
                } else {
                    self.note = Some("at the start: → performs the first step".into());
                }
            }
            KeyCode::Home | KeyCode::Char('g') => self.done = 0,
            KeyCode::End | KeyCode::Char('G') => self.done = steps,
            KeyCode::Char('n') => self.open(self.index + 1),
            KeyCode::Char('p') => {
                if self.index == 0 {
                    self.note = Some("this is the file's first script".into());
                } else {
                    self.open(self.index - 1);
                }
            }
            KeyCode::Char('R') => self.cycle_rules(),
            KeyCode::Char('?') => self.help = true,
            KeyCode::Char('q') | KeyCode::Esc => self.quit = true,
            _ => return note.is_some(),
        }
        true
    }

    /// Shows the script at `index` from its start, under the same rules.
    fn open(&mut self, index: usize) {
        let Some(script) = self.scripts.get(index) else {
            self.note = Some("this is the file's last script".into());
            return;
        };
        let mut rules = self.conventions();
        if !script.trigger.runs_under(rules) {
            self.note = Some(format!(
                "{}'s trigger has no Kafka Streams counterpart: shown under Beam Java's rules",
                script.name
            ));
            rules = Conventions::Beam;
        }
        self.index = index;
        self.playback = Playback::new(script, rules);
        self.done = 0;
    }

    /// The next engine's rules, at the same step: those whose triggers can run this script.
    fn cycle_rules(&mut self) {
        let script = &self.scripts[self.index];
        let all = Conventions::ALL;
        let at = all
            .iter()
            .position(|c| *c == self.conventions())
            .unwrap_or(0);
        let next = (1..=all.len())
            .map(|k| all[(at + k) % all.len()])
            .find(|c| script.trigger.runs_under(*c))
            .unwrap_or(Conventions::Beam);
        self.playback = Playback::new(script, next);
    }
}

/// Opens the terminal on `player` and runs it until the user quits; the terminal is restored
/// on quit, on error and on panic.
pub fn run(mut player: Player) -> anyhow::Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let mut stop = {
        let _context = rt.enter();
        StopSignals::new()
    };
    let mut guard = terminal::enter(None)?;
    let result = rt.block_on(async {
        let mut events = EventStream::new();
        guard.terminal.draw(|f| render(&player, f))?;
        while !player.quit {
            let changed = tokio::select! {
                ev = events.next() => match ev {
                    Some(Ok(Event::Key(k))) if k.code == KeyCode::Char('z')
                        && k.modifiers.contains(KeyModifiers::CONTROL) =>
                    {
                        terminal::suspend(&mut guard.terminal, terminal::Stopping::Job)?;
                        true
                    }
                    Some(Ok(Event::Key(k))) => player.press(k),
                    Some(Ok(Event::Resize(..))) => true,
                    Some(Ok(_)) => false,
                    Some(Err(e)) => return Err(anyhow::Error::from(e)),
                    None => break,
                },
                _ = stop.recv() => {
                    player.quit = true;
                    false
                }
            };
            if changed && !player.quit {
                guard.terminal.draw(|f| render(&player, f))?;
            }
        }
        Ok(())
    });
    drop(guard);
    result
}
