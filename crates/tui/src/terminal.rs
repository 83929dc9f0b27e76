//! The terminal's lifecycle: raw mode, the alternate screen and mouse capture on entry, and
//! all three undone on quit, on error (a guard), on panic (a hook that restores the terminal
//! before the panic message is printed) and on abort (a SIGABRT handler: a failed allocation
//! aborts without unwinding); undone too while the UI is suspended as a shell's job
//! ([`suspend`]) and taken again when it is continued ([`resume`]). What the UI writes goes
//! through [`Out`], which hands a copy to the asciicast being recorded, if any.

use std::cell::RefCell;
use std::io::{self, Stdout, Write};
use std::rc::Rc;
use std::sync::Once;

use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use crossterm::execute;
use crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, Clear, ClearType, EnterAlternateScreen, LeaveAlternateScreen,
};
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;

use crate::record::cast::Cast;

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

/// What an abort hands back to the terminal, fixed before the handler that writes it is
/// installed: the bytes [`restore`] writes (mouse reporting off, the main screen, the cursor
/// shown), the terminal's own file descriptor and its modes before raw mode.
#[cfg(unix)]
struct AbortRestore {
    bytes: Vec<u8>,
    tty: libc::c_int,
    modes: Option<libc::termios>,
}

#[cfg(unix)]
static ABORT_RESTORE: std::sync::OnceLock<AbortRestore> = std::sync::OnceLock::new();

/// An abort ends the program without unwinding and without the panic hook: a failed
/// allocation (`handle_alloc_error`), a panic while panicking, a `kill -ABRT`. Each raises
/// SIGABRT, and this handler hands the terminal back first, as [`restore`] does, then lets the
/// abort go on as it would have.
///
/// It is async-signal-safe: it reads what was fixed before it was installed (a `OnceLock`
/// already set, read without a lock or an allocation) and calls only `write(2)`,
/// `tcsetattr(3)` and `raise(3)`, which POSIX lists as safe in a signal handler. It is
/// installed with `SA_RESETHAND`, so SIGABRT is back to its default action by the time it
/// runs: the SIGABRT it raises ends the program (at once, or as the handler returns if the
/// signal is blocked while it runs) with the status an abort gives, whatever raised the first.
#[cfg(unix)]
extern "C" fn restore_on_abort(_signal: libc::c_int) {
    if let Some(r) = ABORT_RESTORE.get() {
        // SAFETY: the buffer and the termios are owned by a static that is never dropped;
        // both calls only read them.
        unsafe {
            libc::write(libc::STDOUT_FILENO, r.bytes.as_ptr().cast(), r.bytes.len());
            if let Some(modes) = &r.modes {
                libc::tcsetattr(r.tty, libc::TCSANOW, modes);
            }
            libc::raise(libc::SIGABRT);
        }
    }
}

/// Fixes what an abort restores (the terminal's modes as they are now, before raw mode) and
/// installs [`restore_on_abort`] for SIGABRT, once per process.
#[cfg(unix)]
fn restore_on_abort_from_now() {
    use crossterm::Command;
    use std::os::fd::IntoRawFd;
    if ABORT_RESTORE.get().is_some() {
        return;
    }
    let mut ansi = String::new();
    let _ = DisableMouseCapture.write_ansi(&mut ansi);
    let _ = LeaveAlternateScreen.write_ansi(&mut ansi);
    let _ = crossterm::cursor::Show.write_ansi(&mut ansi);
    // The terminal raw mode is set on (crossterm's: standard input if it is one, else
    // /dev/tty, as with a live input on standard input), kept open for the handler.
    let tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .map(IntoRawFd::into_raw_fd)
        .unwrap_or(libc::STDIN_FILENO);
    // SAFETY: `termios` is plain data that tcgetattr fills in; `tty` is open.
    let modes = unsafe {
        let mut t: libc::termios = std::mem::zeroed();
        (libc::tcgetattr(tty, &mut t) == 0).then_some(t)
    };
    if ABORT_RESTORE
        .set(AbortRestore {
            bytes: ansi.into_bytes(),
            tty,
            modes,
        })
        .is_err()
    {
        return;
    }
    // SAFETY: the handler is async-signal-safe (see `restore_on_abort`); sigaction is given a
    // zeroed, then filled, struct.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = restore_on_abort as extern "C" fn(libc::c_int) as libc::sighandler_t;
        action.sa_flags = libc::SA_RESETHAND;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGABRT, &action, std::ptr::null_mut());
    }
}

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
    #[cfg(unix)]
    restore_on_abort_from_now();
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

/// Hands the terminal back as a shell expects it, through the terminal's own output (so that
/// a cast records it): mouse reporting off, the main screen, the cursor shown, the line
/// discipline out of raw mode.
fn leave(terminal: &mut Term) {
    let _ = execute!(
        terminal.backend_mut(),
        DisableMouseCapture,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
    let _ = disable_raw_mode();
}

/// Takes the terminal over again after the process was stopped and continued: raw mode, the
/// alternate screen, mouse capture, the cursor hidden, and the screen cleared so that the next
/// frame is drawn whole (the shell wrote over it meanwhile). Harmless when nothing was left.
pub fn resume(terminal: &mut Term) -> anyhow::Result<()> {
    enable_raw_mode()?;
    execute!(
        terminal.backend_mut(),
        EnterAlternateScreen,
        EnableMouseCapture,
        Clear(ClearType::All)
    )?;
    terminal.hide_cursor()?;
    // Both buffers blank, so the next frame is written whole. (`Terminal::clear` would ask the
    // terminal where its cursor is, and wait for the answer.)
    terminal.swap_buffers();
    Ok(())
}

/// Whom a suspension stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopping {
    /// The whole job, as Ctrl-Z in a shell stops every process of the foreground job (a
    /// producer piping into `--input -` too): the key, which in raw mode the terminal no
    /// longer turns into SIGTSTP.
    Job,
    /// This process alone: a SIGTSTP sent to it.
    Process,
}

/// Suspends the UI as a program is suspended in a shell: the terminal handed back, the
/// process (or its job) stopped with SIGSTOP, which cannot be caught (the UI catches SIGTSTP to
/// come here first), and on SIGCONT (`fg`) the terminal taken over again. Returns once the
/// process has been continued.
#[cfg(unix)]
pub fn suspend(terminal: &mut Term, stopping: Stopping) -> anyhow::Result<()> {
    leave(terminal);
    // SAFETY: kill and raise only send a signal; 0 is this process's group.
    unsafe {
        match stopping {
            Stopping::Job => libc::kill(0, libc::SIGSTOP),
            Stopping::Process => libc::raise(libc::SIGSTOP),
        };
    }
    resume(terminal)
}

/// Without job control there is nothing to suspend to.
#[cfg(not(unix))]
pub fn suspend(_terminal: &mut Term, _stopping: Stopping) -> anyhow::Result<()> {
    Ok(())
}
