//! End to end: each signal that asks a program to stop (SIGINT, SIGTERM, SIGHUP, SIGQUIT), sent
//! by `kill` to the UI running in a pseudo-terminal, must hand the terminal back as it was: the
//! alternate screen left, the cursor shown, mouse reporting off (each after its entry sequence
//! in the bytes the program wrote), the line discipline back in canonical mode with echo, and
//! the program ended like `q` with exit status 0. Ctrl-Z and SIGTSTP suspend it as a shell's
//! job: the terminal handed back while it is stopped, taken again and the screen drawn whole
//! on SIGCONT.
//! Every wait polls with a generous deadline, so a loaded machine only makes it slower.
#![cfg(unix)]

use std::io::{Read, Write};
use std::os::unix::io::RawFd;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use portable_pty::{native_pty_system, Child, CommandBuilder, MasterPty, PtySize, SlavePty};

const DEADLINE: Duration = Duration::from_secs(30);

/// Entry and exit sequences of each terminal mode the UI changes.
const MODES: [(&str, &[u8], &[u8]); 7] = [
    ("alternate screen", b"\x1b[?1049h", b"\x1b[?1049l"),
    ("cursor", b"\x1b[?25l", b"\x1b[?25h"),
    ("mouse clicks", b"\x1b[?1000h", b"\x1b[?1000l"),
    ("mouse drags", b"\x1b[?1002h", b"\x1b[?1002l"),
    ("mouse motion", b"\x1b[?1003h", b"\x1b[?1003l"),
    ("urxvt mouse", b"\x1b[?1015h", b"\x1b[?1015l"),
    ("SGR mouse", b"\x1b[?1006h", b"\x1b[?1006l"),
];

fn last_at(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).rposition(|w| w == needle)
}

/// The binary in a pseudo-terminal, with every byte it wrote.
struct Session {
    output: Arc<Mutex<Vec<u8>>>,
    master: Box<dyn MasterPty + Send>,
    /// Held open as a shell holds its terminal, so the modes outlive the program.
    _slave: Box<dyn SlavePty + Send>,
    child: Box<dyn Child + Send + Sync>,
    keys: Box<dyn Write + Send>,
}

impl Session {
    fn start(args: &[&str]) -> Session {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: 30,
                cols: 100,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("a pseudo-terminal");
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_twoclocks"));
        cmd.args(args);
        cmd.env("TERM", "xterm-256color");
        cmd.env("NO_COLOR", "1");
        let child = pair.slave.spawn_command(cmd).expect("the binary starts");
        let mut reader = pair.master.try_clone_reader().expect("a reader");
        let keys = pair.master.take_writer().expect("a writer");
        let output = Arc::new(Mutex::new(Vec::new()));
        let feed = output.clone();
        thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                if let Ok(mut out) = feed.lock() {
                    out.extend_from_slice(&buf[..n]);
                }
            }
        });
        Session {
            output,
            master: pair.master,
            _slave: pair.slave,
            child,
            keys,
        }
    }

    fn output(&self) -> Vec<u8> {
        match self.output.lock() {
            Ok(o) => o.clone(),
            Err(o) => o.into_inner().clone(),
        }
    }

    fn wait_for(&self, what: &str, pred: impl Fn(&[u8]) -> bool) {
        let start = Instant::now();
        while !pred(&self.output()) {
            assert!(start.elapsed() < DEADLINE, "timed out waiting for {what}");
            thread::sleep(Duration::from_millis(40));
        }
    }

    /// The local modes of the terminal's line discipline (the master and the slave share them).
    fn local_modes(&self) -> libc::tcflag_t {
        let fd: RawFd = self.master.as_raw_fd().expect("a file descriptor");
        // SAFETY: `termios` is plain data that tcgetattr fills in; `fd` is the master's, open
        // for as long as `self`.
        unsafe {
            let mut t: libc::termios = std::mem::zeroed();
            assert_eq!(libc::tcgetattr(fd, &mut t), 0, "tcgetattr on the master");
            t.c_lflag
        }
    }

    fn wait_exit(&mut self) -> portable_pty::ExitStatus {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("the child can be waited on") {
                return status;
            }
            if start.elapsed() > DEADLINE {
                let _ = self.child.kill();
                panic!("the UI did not end");
            }
            thread::sleep(Duration::from_millis(40));
        }
    }
}

/// Starts the UI, sends `signal` with `kill`, and checks the terminal it leaves behind.
fn signal_restores_the_terminal(signal: &str) {
    let mut s = Session::start(&["--paused"]);
    s.wait_for("the UI", |out| {
        String::from_utf8_lossy(out).contains("Two clocks")
    });
    assert_eq!(
        s.local_modes() & (libc::ICANON | libc::ECHO),
        0,
        "the UI runs in raw mode"
    );
    let pid = s.child.process_id().expect("a process id");
    let killed = std::process::Command::new("kill")
        .args([&format!("-{signal}"), &pid.to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let status = s.wait_exit();
    // The last bytes may still be on their way from the pseudo-terminal.
    let restored = |out: &[u8]| {
        MODES
            .iter()
            .all(|(_, on, off)| last_at(out, off) > last_at(out, on))
    };
    let start = Instant::now();
    while !restored(&s.output()) && start.elapsed() < DEADLINE {
        thread::sleep(Duration::from_millis(40));
    }
    let modes = s.local_modes();
    assert_eq!(
        modes & (libc::ICANON | libc::ECHO),
        libc::ICANON | libc::ECHO,
        "SIG{signal}: raw mode was left on"
    );
    let out = s.output();
    for (mode, on, off) in MODES {
        assert!(
            last_at(&out, on).is_some(),
            "SIG{signal}: {mode} was never set"
        );
        assert!(
            last_at(&out, off) > last_at(&out, on),
            "SIG{signal}: {mode} was left on"
        );
    }
    assert!(status.success(), "SIG{signal}: exit status {status:?}");
}

#[test]
fn sigint_restores_the_terminal() {
    signal_restores_the_terminal("INT");
}

#[test]
fn sigterm_restores_the_terminal() {
    signal_restores_the_terminal("TERM");
}

#[test]
fn sighup_restores_the_terminal() {
    signal_restores_the_terminal("HUP");
}

#[test]
fn sigquit_restores_the_terminal() {
    signal_restores_the_terminal("QUIT");
}

/// The process's state as `ps` gives it: `T` stopped, `S` sleeping, `R` running.
fn state(pid: u32) -> String {
    let out = std::process::Command::new("ps")
        .args(["-o", "stat=", "-p", &pid.to_string()])
        .output()
        .expect("ps runs");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn kill(signal: &str, pid: u32) {
    let killed = std::process::Command::new("kill")
        .args([&format!("-{signal}"), &pid.to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
}

fn wait_until(what: &str, pred: impl Fn() -> bool) {
    let start = Instant::now();
    while !pred() {
        assert!(start.elapsed() < DEADLINE, "timed out waiting for {what}");
        thread::sleep(Duration::from_millis(40));
    }
}

/// Ctrl-Z (a key in raw mode) and `kill -TSTP` each stop the UI with the terminal handed back:
/// canonical mode and echo, and every mode's exit sequence written after the stop was asked
/// for. SIGCONT (what `fg` sends) gives the UI the terminal again: raw mode, the alternate
/// screen and the mouse, and the whole screen drawn again (the title, which a redraw of what
/// changed would not write). Then `q` ends it with status 0.
#[test]
fn ctrl_z_and_sigtstp_suspend_and_sigcont_draws_again() {
    let mut s = Session::start(&["--paused"]);
    s.wait_for("the UI", |out| {
        String::from_utf8_lossy(out).contains("Two clocks")
    });
    let pid = s.child.process_id().expect("a process id");
    for how in ["Ctrl-Z", "SIGTSTP"] {
        let mark = s.output().len();
        match how {
            "Ctrl-Z" => {
                s.keys.write_all(b"\x1a").unwrap();
                s.keys.flush().unwrap();
            }
            _ => kill("TSTP", pid),
        }
        wait_until(&format!("{how}: the UI stopped"), || {
            state(pid).starts_with('T')
        });
        assert_eq!(
            s.local_modes() & (libc::ICANON | libc::ECHO),
            libc::ICANON | libc::ECHO,
            "{how}: stopped in raw mode"
        );
        // The bytes written before the stop reach the reader thread a moment later on a
        // loaded machine: waited for, not read at once.
        for (mode, _, off) in MODES {
            wait_until(&format!("{how}: {mode} turned off while stopped"), || {
                last_at(&s.output()[mark..], off).is_some()
            });
        }
        let stopped = s.output().len();
        kill("CONT", pid);
        wait_until(&format!("{how}: raw mode again"), || {
            s.local_modes() & (libc::ICANON | libc::ECHO) == 0
        });
        s.wait_for(&format!("{how}: the screen drawn again"), |out| {
            let after = &out[stopped.min(out.len())..];
            let entered = last_at(after, b"\x1b[?1049h");
            entered.is_some_and(|at| String::from_utf8_lossy(&after[at..]).contains("Two clocks"))
        });
        let out = s.output();
        for (mode, on, off) in MODES {
            assert!(
                last_at(&out, on) > last_at(&out, off),
                "{how}: {mode} not set again after SIGCONT"
            );
        }
        assert!(!state(pid).starts_with('T'), "{how}: still stopped");
    }
    s.keys.write_all(b"q").unwrap();
    s.keys.flush().unwrap();
    let status = s.wait_exit();
    assert!(status.success(), "exit status {status:?}");
}
