//! End to end: each signal that asks a program to stop (SIGINT, SIGTERM, SIGHUP, SIGQUIT), sent
//! by `kill` to the UI running in a pseudo-terminal, must hand the terminal back as it was: the
//! alternate screen left, the cursor shown, mouse reporting off (each after its entry sequence
//! in the bytes the program wrote), the line discipline back in canonical mode with echo, and
//! the program ended like `q` with exit status 0. Ctrl-Z and SIGTSTP suspend it as a shell's
//! job: the terminal handed back while it is stopped, taken again and the screen drawn whole
//! on SIGCONT. An abort (SIGABRT, and a real failed allocation under `ulimit -v`) hands the
//! terminal back before the program ends by it. Past the file-size limit (`ulimit -f`) a write
//! fails as the error it is, with a message naming the file and the limit and no unfinished
//! copy left: the UI's recording, and `run --output … --force`.
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
        Session::start_program(env!("CARGO_BIN_EXE_twoclocks"), args)
    }

    /// A shell running `script`, in which `$TWOCLOCKS` is the binary.
    fn start_shell(script: &str) -> Session {
        let script = format!("TWOCLOCKS='{}'; {script}", env!("CARGO_BIN_EXE_twoclocks"));
        Session::start_program("sh", &["-c", &script])
    }

    fn start_program(program: &str, args: &[&str]) -> Session {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: 30,
                cols: 100,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("a pseudo-terminal");
        let mut cmd = CommandBuilder::new(program);
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
        self.wait_exit_within(DEADLINE)
    }

    fn wait_exit_within(&mut self, deadline: Duration) -> portable_pty::ExitStatus {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("the child can be waited on") {
                return status;
            }
            if start.elapsed() > deadline {
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
    kill(signal, pid);
    let status = s.wait_exit();
    assert_restored(&s, &format!("SIG{signal}"));
    if signal == "ABRT" {
        // The abort goes on as it would have: the program ends by SIGABRT.
        assert_eq!(status.signal(), Some("Aborted"), "SIGABRT: {status:?}");
    } else {
        assert!(status.success(), "SIG{signal}: exit status {status:?}");
    }
}

/// The terminal as the program left it, once it has ended: every mode the UI set turned off
/// after it was set, and the line discipline in canonical mode with echo.
fn assert_restored(s: &Session, what: &str) {
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
        "{what}: raw mode was left on"
    );
    let out = s.output();
    for (mode, on, off) in MODES {
        assert!(last_at(&out, on).is_some(), "{what}: {mode} was never set");
        assert!(
            last_at(&out, off) > last_at(&out, on),
            "{what}: {mode} was left on"
        );
    }
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

/// An abort (a failed allocation aborts with SIGABRT, without unwinding and without the panic
/// hook) hands the terminal back before the program ends by it.
#[test]
fn sigabrt_restores_the_terminal() {
    signal_restores_the_terminal("ABRT");
}

/// A real failed allocation: a live input fed without end under a limit on the address space
/// grows until an allocation fails, and the program aborts with the terminal handed back.
#[test]
fn a_failed_allocation_restores_the_terminal() {
    let mut s = Session::start_shell(
        "ulimit -v 200000; (echo event_time_ms,proc_time_ms,key; yes 1,2,a) | \
         \"$TWOCLOCKS\" --input -",
    );
    s.wait_for("the UI", |out| {
        String::from_utf8_lossy(out).contains("Two clocks")
    });
    let status = s.wait_exit_within(Duration::from_secs(180));
    s.wait_for("the allocation failed", |out| {
        String::from_utf8_lossy(out).contains("memory allocation of")
    });
    assert_restored(&s, "a failed allocation");
    assert_eq!(status.exit_code(), 128 + 6, "exit status {status:?}");
}

/// With a file-size limit, the UI's recording fails as a write error (SIGXFSZ no longer ends
/// the program): `q` ends it with the terminal handed back, a message naming the recording and
/// the limit, and no unfinished copy left.
#[test]
fn a_recording_past_the_file_size_limit_says_so_and_restores_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("demo.rec");
    let mut s = Session::start_shell(&format!(
        "ulimit -f 1; exec \"$TWOCLOCKS\" --paused --record '{}'",
        rec.display()
    ));
    s.wait_for("the UI", |out| {
        String::from_utf8_lossy(out).contains("Two clocks")
    });
    // Dial changes, each a line of the recording, past the limit's 512 or 1024 bytes.
    for _ in 0..60 {
        s.keys.write_all(b"\x1b[C\x1b[D").unwrap();
    }
    s.keys.write_all(b"q").unwrap();
    s.keys.flush().unwrap();
    let status = s.wait_exit();
    assert_restored(&s, "a recording past the file-size limit");
    s.wait_for("the message", |out| {
        String::from_utf8_lossy(out).contains("file-size limit")
    });
    let out = String::from_utf8_lossy(&s.output()).to_string();
    assert!(
        out.contains("demo.rec"),
        "the message names the file: {out}"
    );
    assert_eq!(status.exit_code(), 2, "exit status {status:?}");
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// `run --output … --force` past the file-size limit: exit status 2 and a message naming the
/// output and the limit (SIGXFSZ killed it silently, status 153), its unfinished copy removed.
#[test]
fn run_output_past_the_file_size_limit_says_so_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new("sh")
        .args([
            "-c",
            &format!(
                "ulimit -f 8; exec '{}' run --events 200000 --output jsonl:x.jsonl --force",
                env!("CARGO_BIN_EXE_twoclocks")
            ),
        ])
        .current_dir(dir.path())
        .output()
        .expect("sh runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{:?}: {stderr}", out.status);
    assert!(
        stderr.contains("x.jsonl") && stderr.contains("file-size limit"),
        "{stderr}"
    );
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "left behind: {left:?}");
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
