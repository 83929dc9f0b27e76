//! The terminal UI: the classroom stream animated in processing time, with dials that re-run the
//! engine. `action` names what the user can ask for (by key or by mouse), `app` holds the state and
//! the pure update, `dials` the dials' ranges and steps, `keymap` the one table of keys, `panel`
//! the screen's panels by name, `geometry` where everything is on screen (for drawing and for
//! clicks alike), `view` one module per panel (it reads `app`; `app` never reads it), `figures`
//! the headline figures a caption quotes, `terminal` the raw-mode lifecycle, `transcript` the
//! player of scripted streams (`script FILE --ui`), and [`run`] the tokio loop: `select!` over terminal input, a simulation tick that runs only while
//! the simulation does (its real time kept by [`PlayClock`], which never counts time held or spent
//! on other messages), engine work finished off the UI task, and the expiry of a status message; a
//! frame is drawn only when something changed. A demo ([`Demo`]) records every input with the
//! tick's real time (`record`), plays a recording back instead of the live clock, and casts what
//! the terminal showed; `s` saves the last frame drawn (`export`).

#![deny(missing_docs)]

pub mod action;
pub mod app;
pub mod dials;
pub mod export;
pub mod figures;
pub mod geometry;
pub mod keymap;
pub mod lesson;
pub mod opening;
pub mod panel;
pub mod record;
pub mod scenario;
pub mod terminal;
pub mod theme;
pub mod tour;
pub mod transcript;
pub mod view;

use std::time::{Duration, Instant};

use crossterm::event::{Event, EventStream, KeyEventKind};
use futures::StreamExt;
use ratatui::buffer::Buffer;
use tokio::sync::mpsc;
use tokio::time::MissedTickBehavior;

use app::{update, App, Dials, Msg};
pub use record::messages;
use record::{Entry, Input};
use scenario::Scenario;
use theme::Theme;
use twoclocks_engine::EngineConfig;

/// The simulation tick while playing.
pub const TICK: Duration = Duration::from_millis(33);

/// The most real time one tick may cover: a late tick (a long draw, a resize, a busy machine)
/// moves the playhead by at most this much, never by the time it was held up.
pub const MAX_TICK_STEP: Duration = Duration::from_millis(100);

/// The real time behind the simulation's ticks. It runs only while the simulation does
/// ([`App::clock_runs`]: playing, no overlay, no re-run pending); time spent held (paused,
/// under the help overlay, waiting for a re-run) counts for nothing, and one tick covers at
/// most [`MAX_TICK_STEP`]. Pure: it is given the instants.
#[derive(Debug, Clone, Copy, Default)]
pub struct PlayClock {
    /// When the last tick (or the start) was, while running.
    last: Option<Instant>,
}

impl PlayClock {
    /// Keeps the clock in step with the simulation at `now`: held, it forgets when it last
    /// ticked; running again, it counts from `now`.
    pub fn follow(&mut self, running: bool, now: Instant) {
        if running {
            self.last.get_or_insert(now);
        } else {
            self.last = None;
        }
    }

    /// Work from `start` to `now` that was not a tick (a key's re-run, its frame) does not
    /// count: the next tick covers only the time around it.
    pub fn exclude(&mut self, start: Instant, now: Instant) {
        if let Some(last) = self.last {
            self.last = Some(last + now.saturating_duration_since(start.max(last)));
        }
    }

    /// The real time a tick at `now` covers: since the previous tick or the start, capped.
    /// Nothing while held.
    pub fn tick(&mut self, now: Instant) -> Duration {
        let Some(last) = self.last else {
            return Duration::ZERO;
        };
        self.last = Some(now);
        now.saturating_duration_since(last).min(MAX_TICK_STEP)
    }
}

/// What the UI opens on.
#[derive(Debug, Clone)]
pub struct Options {
    /// The stream to play, measured for the UI (oracle, windows, both clocks' extent).
    pub scenario: Scenario,
    /// The engine's dials to start from: window, watermark, grace, early trigger, accumulation.
    pub config: EngineConfig,
    /// Processing-time seconds per real second.
    pub speed: f64,
    /// The colours to draw with.
    pub theme: Theme,
    /// Start playing at once.
    pub play: bool,
}

/// The UI state for these options, before any terminal is involved.
pub fn app_for(opts: Options) -> App {
    let dials = Dials::from_config(&opts.config, opts.speed);
    let mut app = App::new(opts.scenario, dials, opts.theme);
    app.playing = opts.play;
    app
}

/// A rehearsable demo: the inputs recorded (`--record`), a recording played back instead of
/// the live inputs and clock (`--replay`), what the terminal showed cast (`--cast`). Each file
/// is opened, or read and checked, before the UI opens.
#[derive(Debug, Default)]
pub struct Demo {
    /// Where every input goes, with its time.
    pub record: Option<record::Recorder>,
    /// The inputs to play back, in order, at their times.
    pub replay: Option<Vec<Entry>>,
    /// The recording's file, for the footer while it plays.
    pub replay_file: Option<std::path::PathBuf>,
    /// Where what the terminal showed goes.
    pub cast: Option<record::cast::Cast>,
}

/// Opens the UI and runs it until the user quits; with `job`, in job mode on a job of that
/// shape; with a `demo`, recording, replaying or casting.
pub fn run(opts: Options, job: Option<app::JobPreset>, demo: Demo) -> anyhow::Result<()> {
    let mut app = app_for(opts);
    if let Some(job) = job {
        app.open_job(job);
    }
    run_app(app, demo)
}

/// The batches of a live input that may wait for the UI to take them: at most
/// [`twoclocks_io::live::BATCH_ROWS`] rows each, so at most 16 × 65 536 events (25 MB) beside
/// the stream.
pub const LIVE_BATCHES_WAITING: usize = 16;

/// Opens the UI on a live input (`--input -` from a producer) and runs it until the user
/// quits: standard input is read on a thread of its own ([`live_input`]), and the stream
/// grows as its rows arrive.
pub fn run_live(
    opts: Options,
    job: Option<app::JobPreset>,
    demo: Demo,
    source: twoclocks_io::source::SourceOptions,
) -> anyhow::Result<()> {
    let mut app = app_for(opts);
    if let Some(job) = job {
        app.open_job(job);
    }
    run_app_with(app, demo, Some(live_input(source)))
}

/// Reads standard input live on a thread of its own, which blocks on it: a plain thread, not
/// the runtime's blocking pool, so that quitting never waits for a producer that is still
/// writing (the thread ends with the program, or when the UI has gone and its batch finds
/// no receiver). The keys come from the terminal itself: with standard input a pipe, the
/// terminal library reads `/dev/tty`.
///
/// At most [`LIVE_BATCHES_WAITING`] batches wait for the UI: a producer faster than the UI
/// waits for it (its pipe fills) rather than its rows piling up here, a second copy of the
/// stream beside the one the UI holds.
pub fn live_input(
    source: twoclocks_io::source::SourceOptions,
) -> mpsc::Receiver<twoclocks_io::live::Feed> {
    let (tx, rx) = mpsc::channel(LIVE_BATCHES_WAITING);
    let spawned = std::thread::Builder::new()
        .name("standard input".into())
        .spawn({
            let tx = tx.clone();
            move || {
                let start = Instant::now();
                twoclocks_io::live::read_live(
                    std::io::stdin().lock(),
                    &source,
                    || start.elapsed().as_secs_f64() * 1_000.0,
                    |feed| tx.blocking_send(feed).is_ok(),
                );
            }
        });
    if let Err(e) = spawned {
        let _ = tx.try_send(twoclocks_io::live::Feed::Failed(format!(
            "standard input: cannot start reading it ({e})"
        )));
    }
    rx
}

/// Runs the UI on a state already made (a tour's) until the user quits.
pub fn run_app(app: App, demo: Demo) -> anyhow::Result<()> {
    run_app_with(app, demo, None)
}

/// Runs the UI on a state already made, with a live input's batches if there is one.
fn run_app_with(
    mut app: App,
    demo: Demo,
    live: Option<mpsc::Receiver<twoclocks_io::live::Feed>>,
) -> anyhow::Result<()> {
    // Time for the tick, I/O for the signal handlers.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let (mut stop, mut job) = {
        let _context = rt.enter();
        (StopSignals::new(), JobSignals::new())
    };
    let Demo {
        record,
        replay,
        replay_file,
        cast,
    } = demo;
    if let (Some(entries), Some(file)) = (&replay, &replay_file) {
        app.replay = entries.last().map(|last| app::ReplayProgress {
            file: file.display().to_string(),
            at: Duration::ZERO,
            total: last.at,
        });
    }
    if record.is_some() || replay.is_some() {
        // Every re-run inline, as in a replay: no tick can fall while one is pending, so the
        // recording and its replay take the same steps whatever the input's size.
        app.steered.set_inline_events(usize::MAX);
        app.settle();
    }
    let mut guard = terminal::enter(cast)?;
    let mut shell = Shell {
        cast: guard.cast.clone(),
        record,
        replay: replay.unwrap_or_default().into_iter().collect(),
        start: tokio::time::Instant::now(),
        live,
    };
    let result = rt.block_on(event_loop(
        &mut guard.terminal,
        &mut app,
        (&mut stop, &mut job),
        &mut shell,
    ));
    drop(guard);
    // The UI failed: the recording up to the failure is kept all the same (it is how the
    // failure can be replayed).
    if let (Err(_), Some(r)) = (&result, shell.record.as_mut()) {
        if let Err(e) = r.finish(shell.start.elapsed()) {
            eprintln!("twoclocks: {e}");
        }
    }
    result
}

/// What the event loop keeps of a demo: the recording being written, the inputs left to play
/// back, and when the UI opened (the recording's zero); and the live input's batches, if any
/// (None once it has ended).
struct Shell {
    record: Option<record::Recorder>,
    replay: std::collections::VecDeque<Entry>,
    start: tokio::time::Instant,
    cast: Option<std::rc::Rc<std::cell::RefCell<record::cast::Cast>>>,
    live: Option<mpsc::Receiver<twoclocks_io::live::Feed>>,
}

/// The live input's next batch; never, without one.
async fn next_feed(
    live: &mut Option<mpsc::Receiver<twoclocks_io::live::Feed>>,
) -> Option<twoclocks_io::live::Feed> {
    match live.as_mut() {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

impl Shell {
    /// Applies an input (written to the recording first) and returns whether the screen
    /// changed. A recording that cannot be written says so in the footer.
    fn take(&mut self, app: &mut App, input: Input) -> bool {
        let mut changed = false;
        if let Some(r) = self.record.as_mut() {
            if let Err(why) = r.write(self.start.elapsed(), input) {
                changed |= app.say(twoclocks_io::quote::file_size_limit_named(&why));
            }
        }
        record::apply(app, &input) | changed
    }

    /// Live input while a recording plays is held, apart from quitting and resizing.
    fn live(&self, input: &Input) -> bool {
        self.replay.is_empty() || matches!(input, Input::Resize(..)) || input.quits()
    }
}

/// Draws a frame and keeps a copy of it: `s` saves the last frame drawn.
fn draw(terminal: &mut terminal::Term, app: &App) -> anyhow::Result<Buffer> {
    let frame = terminal.draw(|f| view::render(app, f))?;
    Ok(frame.buffer.clone())
}

/// The signals that ask a program to stop: SIGINT and SIGQUIT (from `kill`: in raw mode Ctrl-C
/// and Ctrl-\ arrive as keys), SIGTERM and SIGHUP (the terminal closing). Each ends the UI like
/// `q`, so the terminal is restored and the exit status is 0. Installed before the terminal is
/// taken over, so none of them can end the program with the terminal left raw.
#[cfg(unix)]
struct StopSignals {
    signals: Vec<tokio::signal::unix::Signal>,
}

#[cfg(unix)]
impl StopSignals {
    /// Needs a tokio runtime's context.
    fn new() -> StopSignals {
        use tokio::signal::unix::{signal, SignalKind};
        let kinds = [
            SignalKind::interrupt(),
            SignalKind::quit(),
            SignalKind::terminate(),
            SignalKind::hangup(),
        ];
        StopSignals {
            signals: kinds.into_iter().filter_map(|k| signal(k).ok()).collect(),
        }
    }

    async fn recv(&mut self) {
        if self.signals.is_empty() {
            return std::future::pending::<()>().await;
        }
        futures::future::select_all(self.signals.iter_mut().map(|s| Box::pin(s.recv()))).await;
    }
}

#[cfg(not(unix))]
struct StopSignals;

#[cfg(not(unix))]
impl StopSignals {
    fn new() -> StopSignals {
        StopSignals
    }

    async fn recv(&mut self) {
        std::future::pending::<()>().await
    }
}

/// What a job-control signal asks of the UI.
enum JobSignal {
    /// SIGTSTP (`kill -TSTP`): suspend, as Ctrl-Z does.
    Suspend,
    /// SIGCONT: the process was stopped and is going again (after a stop the UI did not make,
    /// `kill -STOP`), so the terminal is taken again and the screen drawn whole.
    Continued,
}

/// SIGTSTP and SIGCONT, caught: a SIGTSTP left to its default would stop the program with the
/// terminal raw, on the alternate screen, reporting the mouse.
#[cfg(unix)]
struct JobSignals {
    tstp: Option<tokio::signal::unix::Signal>,
    cont: Option<tokio::signal::unix::Signal>,
}

#[cfg(unix)]
impl JobSignals {
    /// Needs a tokio runtime's context.
    fn new() -> JobSignals {
        use tokio::signal::unix::{signal, SignalKind};
        JobSignals {
            tstp: signal(SignalKind::from_raw(libc::SIGTSTP)).ok(),
            cont: signal(SignalKind::from_raw(libc::SIGCONT)).ok(),
        }
    }

    async fn recv(&mut self) -> JobSignal {
        async fn next(s: &mut Option<tokio::signal::unix::Signal>) {
            let received = match s {
                Some(s) => s.recv().await.is_some(),
                None => false,
            };
            if !received {
                std::future::pending::<()>().await;
            }
        }
        tokio::select! {
            _ = next(&mut self.tstp) => JobSignal::Suspend,
            _ = next(&mut self.cont) => JobSignal::Continued,
        }
    }
}

#[cfg(not(unix))]
struct JobSignals;

#[cfg(not(unix))]
impl JobSignals {
    fn new() -> JobSignals {
        JobSignals
    }

    async fn recv(&mut self) -> JobSignal {
        std::future::pending().await
    }
}

/// Whether a terminal event is the key that suspends the UI (Ctrl-Z): the shell acts on it
/// before it could become an input, so a recording never holds it.
fn suspends(ev: &Event) -> bool {
    matches!(ev, Event::Key(k)
        if k.kind != KeyEventKind::Release && keymap::lookup(k) == Some(action::Action::Suspend))
}

/// What woke the loop.
enum Woke {
    /// The UI is to be suspended: Ctrl-Z stops its job, SIGTSTP the process.
    Suspend(terminal::Stopping),
    /// The process was continued after a stop the UI did not make.
    Continued,
    /// A live or replayed input.
    Input(Input),
    /// The simulation tick (its elapsed time read from the play clock).
    Tick,
    /// A message that is not an input: engine work done, a status message's expiry.
    Msg(Msg),
    /// An input of the recording being played back.
    Replayed(Entry),
    /// A key or click held while a recording plays.
    Held,
    /// Another second of a recording playing: its clock in the footer moves on.
    ReplayClock,
    /// Nothing to do (live input held while a recording plays).
    Nothing,
    /// A live input's batch (None: its reader has gone).
    Feed(Option<twoclocks_io::live::Feed>),
}

async fn event_loop(
    terminal: &mut terminal::Term,
    app: &mut App,
    (stop, job): (&mut StopSignals, &mut JobSignals),
    shell: &mut Shell,
) -> anyhow::Result<()> {
    let mut events = EventStream::new();
    let (tx, mut rx) = mpsc::unbounded_channel::<app::Done>();
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(MissedTickBehavior::Skip);
    let size = terminal.size()?;
    shell.take(app, Input::Resize(size.width, size.height));
    let mut last = draw(terminal, app)?;
    let mut clock = PlayClock::default();
    // The status message shown and when it goes.
    let mut expiry: Option<(u64, tokio::time::Instant)> = None;
    let replaying = !shell.replay.is_empty();
    let recorded_size = shell.replay.iter().find_map(|e| match e.input {
        Input::Resize(w, h) => Some((w, h)),
        _ => None,
    });
    if let Some((w, h)) = recorded_size.filter(|&s| s != (size.width, size.height)) {
        app.say(format!(
            "recorded at {w}×{h}, played at {}×{}: the screens will differ",
            size.width, size.height
        ));
        last = draw(terminal, app)?;
    }
    loop {
        for work in app.take_work() {
            let tx = tx.clone();
            tokio::task::spawn_blocking(move || {
                let _ = tx.send(work.perform());
            });
        }
        clock.follow(app.clock_runs(), Instant::now());
        expiry = match (&app.status, expiry) {
            (Some(s), Some((seq, at))) if s.seq == seq => Some((seq, at)),
            (Some(s), _) => Some((s.seq, tokio::time::Instant::now() + app::STATUS_FOR)),
            (None, _) => None,
        };
        let (status_seq, status_end) = expiry.unwrap_or((0, tokio::time::Instant::now()));
        let next_replay = shell.replay.front().map(|e| shell.start + e.at);
        // While a recording plays, its clock moves on every second, inputs or not: a replay
        // waiting on a step never looks frozen at the time of its last input.
        let next_second = next_replay
            .map(|_| shell.start + Duration::from_secs(shell.start.elapsed().as_secs() + 1));
        let woke = tokio::select! {
            ev = events.next() => match ev {
                Some(Ok(ev)) if suspends(&ev) => Woke::Suspend(terminal::Stopping::Job),
                Some(Ok(ev)) => match Input::from_event(&ev) {
                    Some(i) if shell.live(&i) => {
                        if let (Input::Resize(w, h), Some(c)) = (i, &shell.cast) {
                            c.borrow_mut().resize(w, h);
                        }
                        Woke::Input(i)
                    }
                    // A key or click while the recording plays: held, and said so.
                    Some(Input::Key(_) | Input::Click(..)) => Woke::Held,
                    _ => Woke::Nothing,
                },
                Some(Err(e)) => return Err(e.into()),
                None => break,
            },
            // While a recording plays, its ticks drive the simulation.
            _ = tick.tick(), if app.clock_runs() && shell.replay.is_empty() => Woke::Tick,
            _ = tokio::time::sleep_until(next_replay.unwrap_or(shell.start)), if next_replay.is_some() => {
                match shell.replay.pop_front() {
                    Some(e) => Woke::Replayed(e),
                    None => Woke::Nothing,
                }
            },
            _ = tokio::time::sleep_until(next_second.unwrap_or(shell.start)), if next_second.is_some() => {
                Woke::ReplayClock
            },
            Some(done) = rx.recv() => Woke::Msg(Msg::Done(Box::new(done))),
            feed = next_feed(&mut shell.live) => Woke::Feed(feed),
            _ = tokio::time::sleep_until(status_end), if expiry.is_some() => {
                Woke::Msg(Msg::StatusExpired(status_seq))
            },
            _ = stop.recv() => break,
            signal = job.recv() => match signal {
                JobSignal::Suspend => Woke::Suspend(terminal::Stopping::Process),
                JobSignal::Continued => Woke::Continued,
            },
        };
        let woke_at = Instant::now();
        let ticked = matches!(woke, Woke::Tick);
        let mut changed = match woke {
            Woke::Input(i) => shell.take(app, i),
            Woke::Replayed(e) => {
                if let Some(r) = app.replay.as_mut() {
                    r.at = r.at.max(e.at);
                }
                shell.take(app, e.input)
            }
            Woke::Held => app.say(app::REPLAY_HAS_THE_KEYS),
            Woke::ReplayClock => app.replay.as_mut().is_some_and(|r| {
                let at = shell.start.elapsed().min(r.total);
                let moved = at.as_secs() != r.at.as_secs();
                r.at = r.at.max(at);
                moved
            }),
            Woke::Tick => {
                let dt = clock.tick(woke_at);
                shell.take(app, Input::Tick(dt))
            }
            Woke::Msg(m) => update(app, m, Duration::ZERO),
            Woke::Feed(first) => {
                // Everything the reader has sent by now, taken at once: one frame for all.
                let mut feeds: Vec<_> = first.into_iter().collect();
                if let Some(rx) = shell.live.as_mut() {
                    while let Ok(f) = rx.try_recv() {
                        feeds.push(f);
                    }
                }
                if feeds.is_empty()
                    || feeds
                        .iter()
                        .any(|f| !matches!(f, twoclocks_io::live::Feed::Rows(_)))
                {
                    shell.live = None;
                }
                update(app, Msg::Live(feeds), Duration::ZERO)
            }
            Woke::Suspend(stopping) => {
                // Back after `fg`; the time stopped is not play time (see `exclude` below).
                terminal::suspend(terminal, stopping)?;
                true
            }
            Woke::Continued => {
                terminal::resume(terminal)?;
                true
            }
            Woke::Nothing => false,
        };
        if app.quit {
            break;
        }
        if app.take_save() {
            changed |= app.saved(export::save_here(&last));
        }
        if replaying && shell.replay.is_empty() && next_replay.is_some() {
            app.replay = None;
            changed |= app.say("the recording has been played: the keys are yours again");
            // The live clock takes over from now, not from when the replay began.
            clock = PlayClock::default();
        }
        if changed {
            last = draw(terminal, app)?;
        }
        if !ticked {
            // Neither a message's work (a re-run inline) nor its frame moves the playhead.
            clock.exclude(woke_at, Instant::now());
        }
    }
    if let Some(r) = shell.record.as_mut() {
        r.finish(shell.start.elapsed())
            .map_err(anyhow::Error::msg)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_held_never_moves_the_clock() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let mut c = PlayClock::default();
        c.follow(true, at(0));
        assert_eq!(c.tick(at(33)), Duration::from_millis(33));
        c.follow(true, at(40));
        assert_eq!(c.tick(at(66)), Duration::from_millis(33));
        // Paused for 6 s, then resumed: the first tick covers the time since the resume.
        c.follow(false, at(70));
        assert_eq!(
            c.tick(at(3_000)),
            Duration::ZERO,
            "a held clock does not tick"
        );
        c.follow(false, at(6_070));
        c.follow(true, at(6_080));
        assert_eq!(c.tick(at(6_100)), Duration::from_millis(20));
        // A tick held up by a long draw or re-run covers at most MAX_TICK_STEP.
        assert_eq!(c.tick(at(8_000)), MAX_TICK_STEP);
        // Instants out of order never go negative.
        assert_eq!(c.tick(at(7_000)), Duration::ZERO);
        // 500 ms spent on a key's inline re-run between two ticks do not count.
        assert_eq!(c.tick(at(9_000)), MAX_TICK_STEP);
        c.exclude(at(9_010), at(9_510));
        assert_eq!(c.tick(at(9_533)), Duration::from_millis(33));
        // Nor for a held clock.
        c.follow(false, at(9_600));
        c.exclude(at(9_600), at(9_700));
        assert_eq!(c.tick(at(9_733)), Duration::ZERO);
    }
}
