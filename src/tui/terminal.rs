//! The terminal's lifecycle: raw mode, the alternate screen and mouse capture on entry, and
//! all three undone on quit, on error (a guard) and on panic (a hook that restores the terminal
//! before the panic message is printed). What the UI writes goes through [`Out`], which hands a
//! copy to the asciicast being recorded, if any.

use std::cell::RefCell;
use std::io::{self, Stdout, Write};
use std::rc::Rc;
use std::sync::Once;

use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use crossterm::execute;
use crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;

use super::record::cast::Cast;

/// The terminal the UI draws on: ratatui over crossterm, on standard output.
pub type Term = Terminal<CrosstermBackend<Out>>;

/// Standard output, and a copy of every byte for the cast being recorded (`--cast`).
#[derive(Debug)]
pub struct Out {
    stdout: Stdout,
    /// The asciicast the bytes also go to (shared with the [`Guard`]).
    cast: Option<Rc<RefCell<Cast>>>,
}

impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.stdout.write(buf)?;
        if let Some(c) = &self.cast {
            c.borrow_mut().output(&buf[..n]);
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        if let Some(c) = &self.cast {
            c.borrow_mut().flush();
        }
        self.stdout.flush()
    }
}

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
    /// The asciicast what the terminal shows goes to, if one is recorded.
    pub cast: Option<Rc<RefCell<Cast>>>,
}

impl Drop for Guard {
    fn drop(&mut self) {
        restore();
        let _ = self.terminal.show_cursor();
        if let Some(c) = &self.cast {
            // What restore wrote to the terminal directly: the main screen, the cursor.
            let mut c = c.borrow_mut();
            c.output(b"\x1b[?1049l\x1b[?25h");
            c.finish();
        }
    }
}

/// Takes over the terminal; with `cast`, what it shows is recorded there too.
pub fn enter(cast: Option<Cast>) -> anyhow::Result<Guard> {
    install_panic_hook();
    let cast = cast.map(|mut c| {
        let (w, h) = crossterm::terminal::size().unwrap_or((80, 24));
        c.begin(w, h);
        Rc::new(RefCell::new(c))
    });
    enable_raw_mode()?;
    let mut out = Out {
        stdout: io::stdout(),
        cast: cast.clone(),
    };
    if let Err(e) = execute!(out, EnterAlternateScreen, EnableMouseCapture) {
        restore();
        return Err(e.into());
    }
    match Terminal::new(CrosstermBackend::new(out)) {
        Ok(mut terminal) => {
            let _ = terminal.hide_cursor();
            let _ = terminal.clear();
            Ok(Guard { terminal, cast })
        }
        Err(e) => {
            restore();
            Err(e.into())
        }
    }
}
