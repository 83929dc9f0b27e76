//! The terminal's lifecycle: raw mode, the alternate screen and mouse capture on entry, and
//! all three undone on quit, on error (a guard) and on panic (a hook that restores the terminal
//! before the panic message is printed).

use std::io::{self, Stdout};
use std::sync::Once;

use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use crossterm::execute;
use crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;

/// The terminal the UI draws on: ratatui over crossterm, on standard output.
pub type Term = Terminal<CrosstermBackend<Stdout>>;

/// Puts the terminal back as the shell expects it. Safe to call more than once.
pub fn restore() {
    let _ = disable_raw_mode();
    let _ = execute!(
        io::stdout(),
        DisableMouseCapture,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
}

static HOOK: Once = Once::new();

fn install_panic_hook() {
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
    });
}

/// Restores the terminal when dropped.
pub struct Guard {
    /// The terminal, in raw mode on the alternate screen while the guard lives.
    pub terminal: Term,
}

impl Drop for Guard {
    fn drop(&mut self) {
        restore();
        let _ = self.terminal.show_cursor();
    }
}

/// Takes over the terminal.
pub fn enter() -> anyhow::Result<Guard> {
    install_panic_hook();
    enable_raw_mode()?;
    let mut out = io::stdout();
    if let Err(e) = execute!(out, EnterAlternateScreen, EnableMouseCapture) {
        restore();
        return Err(e.into());
    }
    match Terminal::new(CrosstermBackend::new(out)) {
        Ok(mut terminal) => {
            let _ = terminal.hide_cursor();
            let _ = terminal.clear();
            Ok(Guard { terminal })
        }
        Err(e) => {
            restore();
            Err(e.into())
        }
    }
}
