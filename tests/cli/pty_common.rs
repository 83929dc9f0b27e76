//! What the end-to-end tests share: a program in a pseudo-terminal, its output parsed by a
//! terminal emulator as it draws, keys written to it, and its exit waited for; the binary
//! started so in a given directory.

use std::io::{Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use portable_pty::{native_pty_system, CommandBuilder, ExitStatus, PtySize};

/// How long a wait may take before the test fails: generous, as a loaded machine (a debug
/// build, other tests running) can be slow; each wait ends as soon as its screen shows.
pub const DEADLINE: Duration = Duration::from_secs(120);

/// The binary in a pseudo-terminal of `cols` × `rows`, started with `args`.
pub fn ui((cols, rows): (u16, u16), args: &[&str]) -> Session {
    Session::start(binary(args), cols, rows)
}

/// The binary in a pseudo-terminal of `cols` × `rows`, started in `dir` with `args`.
pub fn ui_in(dir: &Path, (cols, rows): (u16, u16), args: &[&str]) -> Session {
    let mut cmd = binary(args);
    cmd.cwd(dir);
    Session::start(cmd, cols, rows)
}

/// The binary's command line with `args`.
fn binary(args: &[&str]) -> CommandBuilder {
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_twoclocks"));
    cmd.args(args);
    cmd
}

/// A program running in a pseudo-terminal, its screen parsed as it draws.
pub struct Session {
    parser: Arc<Mutex<vt100::Parser>>,
    keys: Box<dyn Write + Send>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
}

impl Session {
    /// Starts `cmd` (with `TERM=xterm-256color` and `NO_COLOR=1`) in a terminal of that size.
    pub fn start(mut cmd: CommandBuilder, cols: u16, rows: u16) -> Session {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("a pseudo-terminal");
        cmd.env("TERM", "xterm-256color");
        cmd.env("NO_COLOR", "1");
        let child = pair.slave.spawn_command(cmd).expect("the program starts");
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().expect("a reader");
        let keys = pair.master.take_writer().expect("a writer");
        let parser = Arc::new(Mutex::new(vt100::Parser::new(rows, cols, 0)));
        let feed = parser.clone();
        thread::spawn(move || {
            let _master = pair.master;
            let mut buf = [0u8; 8192];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                if let Ok(mut p) = feed.lock() {
                    p.process(&buf[..n]);
                }
            }
        });
        Session {
            parser,
            keys,
            child,
        }
    }

    /// Reads the emulated screen.
    pub fn screen<T>(&self, f: impl FnOnce(&vt100::Screen) -> T) -> T {
        match self.parser.lock() {
            Ok(p) => f(p.screen()),
            Err(p) => f(p.into_inner().screen()),
        }
    }

    /// The screen's text.
    pub fn contents(&self) -> String {
        self.screen(|s| s.contents())
    }

    /// Waits until the screen satisfies `pred`, and returns it.
    pub fn wait_for(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let s = self.contents();
            if pred(&s) {
                return s;
            }
            assert!(
                start.elapsed() < DEADLINE,
                "timed out waiting for {what}; screen:\n{s}"
            );
            thread::sleep(Duration::from_millis(40));
        }
    }

    /// Writes keys to the terminal.
    pub fn press(&mut self, bytes: &[u8]) {
        self.keys.write_all(bytes).expect("keys are written");
        self.keys.flush().expect("keys are flushed");
    }

    /// Waits for the program to exit with success (killing it after [`DEADLINE`]).
    pub fn wait_exit(&mut self) {
        let start = Instant::now();
        let status: ExitStatus = loop {
            if let Some(status) = self.child.try_wait().expect("the child can be waited on") {
                break status;
            }
            if start.elapsed() > DEADLINE {
                let _ = self.child.kill();
                panic!("the program did not quit");
            }
            thread::sleep(Duration::from_millis(40));
        };
        assert!(status.success(), "exit status {status:?}");
    }

    /// [`Session::wait_exit`], then waits for the terminal to be handed back: the alternate
    /// screen left (the last bytes may still be on their way).
    pub fn expect_clean_exit(&mut self) {
        self.wait_exit();
        let start = Instant::now();
        while self.screen(|s| s.alternate_screen()) {
            assert!(
                start.elapsed() < DEADLINE,
                "the terminal was left on the alternate screen"
            );
            thread::sleep(Duration::from_millis(40));
        }
    }
}
