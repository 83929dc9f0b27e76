//! End to end: the real binary in a pseudo-terminal, read through a vt100 screen parser. Jump
//! to the end of the classroom stream, pick the dashboard policy and read the dropped counter
//! (1283, the reference's figure), then billing (0), then quit with `q` and exit 0; in job mode
//! crash the job and read the crash report.
//! Every wait polls the screen with a generous deadline, so a loaded machine only makes it
//! slower, not flaky.

use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use portable_pty::{native_pty_system, CommandBuilder, PtySize};

const DEADLINE: Duration = Duration::from_secs(30);

struct Screen {
    parser: Arc<Mutex<vt100::Parser>>,
}

impl Screen {
    fn contents(&self) -> String {
        match self.parser.lock() {
            Ok(p) => p.screen().contents(),
            Err(p) => p.into_inner().screen().contents(),
        }
    }

    /// Polls until `pred` holds on the screen text, or fails with the last screen.
    fn wait_for(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let s = self.contents();
            if pred(&s) {
                return s;
            }
            if start.elapsed() > DEADLINE {
                panic!("timed out waiting for {what}; screen:\n{s}");
            }
            thread::sleep(Duration::from_millis(40));
        }
    }
}

/// The number after "✕ dropped" in the counters panel.
fn dropped(screen: &str) -> Option<u64> {
    screen.lines().find_map(|l| {
        let i = l.find("✕ dropped")?;
        let rest = l[i + "✕ dropped".len()..].trim_start();
        let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        digits.parse().ok()
    })
}

/// The binary running in a pseudo-terminal of `cols`×`rows`, its screen parsed as it draws.
struct Session {
    screen: Screen,
    writer: Box<dyn Write + Send>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
}

impl Session {
    fn start(cols: u16, rows: u16, args: &[&str]) -> Session {
        let pty = native_pty_system();
        let pair = pty
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("a pseudo-terminal");
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_twoclocks"));
        cmd.args(args);
        cmd.env("TERM", "xterm-256color");
        cmd.env("NO_COLOR", "1");
        let child = pair.slave.spawn_command(cmd).expect("the binary starts");
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().expect("a reader");
        let writer = pair.master.take_writer().expect("a writer");
        let parser = Arc::new(Mutex::new(vt100::Parser::new(rows, cols, 0)));
        let feed = parser.clone();
        thread::spawn(move || {
            // Keeps the master open for as long as the child may write.
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
            screen: Screen { parser },
            writer,
            child,
        }
    }

    fn press(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).expect("keys are written");
        self.writer.flush().expect("keys are flushed");
    }

    /// Waits for the process to exit with success and for the terminal to be handed back.
    fn expect_clean_exit(mut self) {
        let start = Instant::now();
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("the child can be waited on") {
                break status;
            }
            if start.elapsed() > DEADLINE {
                let _ = self.child.kill();
                panic!("the UI did not quit");
            }
            thread::sleep(Duration::from_millis(40));
        };
        assert!(status.success(), "exit status {status:?}");
        // The alternate screen was left (the last bytes may still be on their way).
        let alternate = || match self.screen.parser.lock() {
            Ok(p) => p.screen().alternate_screen(),
            Err(p) => p.into_inner().screen().alternate_screen(),
        };
        let start = Instant::now();
        while alternate() {
            assert!(
                start.elapsed() < DEADLINE,
                "the terminal was left on the alternate screen"
            );
            thread::sleep(Duration::from_millis(40));
        }
    }
}

#[test]
fn end_then_dashboard_and_billing_policies_read_the_reference_drops() {
    let mut s = Session::start(120, 40, &["--paused"]);
    s.screen.wait_for("the UI", |t| {
        t.contains("Two clocks") && t.contains("paused")
    });
    s.press(b"\x1b[F"); // End
    s.screen
        .wait_for("the end of input", |t| t.contains("end of input"));
    s.press(b"1");
    let t = s
        .screen
        .wait_for("dashboard's drops", |t| dropped(t) == Some(1283));
    assert!(t.contains("lag") && t.contains("2s"), "{t}");
    s.press(b"3");
    s.screen
        .wait_for("billing's drops", |t| dropped(t) == Some(0));
    s.press(b"q");
    s.expect_clean_exit();
}

#[test]
fn ctrl_c_quits_the_compact_layout_while_playing() {
    let mut s = Session::start(80, 24, &["--speed", "50"]);
    s.screen
        .wait_for("the UI playing", |t| t.contains("playing"));
    s.press(b"1");
    s.screen
        .wait_for("some events", |t| dropped(t).is_some_and(|d| d > 0));
    s.press(b"\x03"); // Ctrl-C
    s.expect_clean_exit();
}

#[test]
fn job_mode_crash_says_what_happened_at_80x24() {
    let mut s = Session::start(80, 24, &["--speed", "100"]);
    s.screen
        .wait_for("the UI playing", |t| t.contains("playing"));
    s.press(b"j");
    s.screen
        .wait_for("the topology panel", |t| t.contains("Topology"));
    // The topology's checkpoint line names the latest completed one.
    s.screen
        .wait_for("a completed checkpoint", |t| t.contains("ckpt ╾ #"));
    s.press(b"c");
    let t = s
        .screen
        .wait_for("the crash report", |t| t.contains("crashed at"));
    assert!(t.contains("Sinks"), "{t}");
    s.press(b"q");
    s.expect_clean_exit();
}
