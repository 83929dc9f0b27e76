//! A batch command stopped by a signal (SIGINT from Ctrl-C, SIGTERM, SIGHUP) stops cleanly:
//! the unfinished copies of its output files are removed ([`crate::io::staged`]), so no
//! output path holds half a run, and one line says what was not written before the program
//! exits with the signal's status (128 + its number). The terminal UI handles these signals
//! itself (each ends it like `q`); this is for commands such as `run --output`. SIGXFSZ, sent
//! for a write past the file-size limit, is ignored so that the write fails as the error it is.

/// A write past the file-size limit (`ulimit -f`) fails with its error, EFBIG, instead of
/// killing the program with SIGXFSZ: the writer's error then names the file and says the limit
/// was reached, and the unfinished copy is removed as after any failed write (the signal left
/// it behind, and the run ended without a word). For every command and the UI, from the start.
pub fn fail_writes_past_the_file_size_limit() {
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to SIG_IGN installs no handler; it only tells the
    // kernel to fail the write instead of sending the signal.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

/// Watches for the stopping signals from now on (once per process; later calls do nothing).
pub fn clean_up_on_stop() {
    #[cfg(unix)]
    {
        static WATCHING: std::sync::OnceLock<()> = std::sync::OnceLock::new();
        WATCHING.get_or_init(|| {
            use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
            let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])
            else {
                return;
            };
            let _ = std::thread::Builder::new()
                .name("stop signals".into())
                .spawn(move || {
                    if let Some(sig) = signals.forever().next() {
                        stopped(sig);
                    }
                });
        });
    }
}

/// The signal's name.
#[cfg(unix)]
fn name(sig: i32) -> &'static str {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    match sig {
        SIGINT => "SIGINT",
        SIGTERM => "SIGTERM",
        SIGHUP => "SIGHUP",
        _ => "a signal",
    }
}

/// Removes the unfinished outputs, says so, and exits.
#[cfg(unix)]
fn stopped(sig: i32) -> ! {
    let targets = crate::io::staged::abandon_unfinished();
    let what = if targets.is_empty() {
        "no output file was being written".to_string()
    } else {
        let names: Vec<String> = targets
            .iter()
            .map(|t| crate::io::quote::quoted(&t.display().to_string()))
            .collect();
        format!(
            "nothing was written to {} (the unfinished {} removed; an existing file there is \
             as it was)",
            names.join(", "),
            if targets.len() == 1 {
                "copy was"
            } else {
                "copies were"
            }
        )
    };
    eprintln!(
        "twoclocks: stopped by {} before the run finished: {what}",
        name(sig)
    );
    std::process::exit(128 + sig)
}
