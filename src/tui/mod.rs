//! The terminal UI: the classroom stream animated in processing time, with dials that re-run
//! the engine. `app` holds the state and the pure update, `dials` the dials' ranges and steps,
//! `keymap` the one table of keys, `view` one module per panel, `terminal` the raw-mode
//! lifecycle, and [`run`] the tokio loop:
//! `select!` over terminal input, a simulation tick that runs only while playing, and engine
//! work finished off the UI task; a frame is drawn only when something changed.

pub mod app;
pub mod dials;
pub mod keymap;
pub mod scenario;
pub mod terminal;
pub mod theme;
pub mod view;

use std::time::{Duration, Instant};

use crossterm::event::{
    Event, EventStream, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEventKind,
};
use futures::StreamExt;
use tokio::sync::mpsc;
use tokio::time::MissedTickBehavior;

use crate::engine::pipeline::PipelineConfig;
use crate::engine::EngineConfig;
use app::{update, App, Dials, Msg};
use scenario::Scenario;
use theme::Theme;

/// The simulation tick while playing.
pub const TICK: Duration = Duration::from_millis(33);

/// What the UI opens on.
#[derive(Debug, Clone)]
pub struct Options {
    pub scenario: Scenario,
    pub config: EngineConfig,
    /// Processing-time seconds per real second.
    pub speed: f64,
    pub theme: Theme,
    /// Start playing at once.
    pub play: bool,
}

/// The UI state for these options, before any terminal is involved.
pub fn app_for(opts: Options) -> App {
    let dials = Dials::from_config(&opts.config, opts.speed);
    let mut app = App::new(opts.scenario, dials, opts.theme);
    app.playhead.playing = opts.play;
    app
}

/// Opens the UI and runs it until the user quits; with `job`, in job mode on a job of that
/// shape.
pub fn run(opts: Options, job: Option<PipelineConfig>) -> anyhow::Result<()> {
    // Time for the tick, I/O for the signal handlers.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let mut app = app_for(opts);
    if let Some(job) = job {
        app.open_job(job);
    }
    let mut stop = {
        let _context = rt.enter();
        StopSignals::new()
    };
    let mut guard = terminal::enter()?;
    let result = rt.block_on(event_loop(&mut guard.terminal, &mut app, &mut stop));
    drop(guard);
    result
}

/// Turns a terminal event into messages (none if it means nothing). Esc quickly followed by a
/// key reaches us as Alt plus that key; it is read as the two presses it was.
pub fn messages(ev: Event) -> Vec<Msg> {
    match ev {
        Event::Key(k) if k.kind != KeyEventKind::Release => {
            if let (KeyCode::Char(_), true) = (k.code, k.modifiers.contains(KeyModifiers::ALT)) {
                let plain = KeyEvent::new(k.code, k.modifiers - KeyModifiers::ALT);
                let mut v = vec![Msg::Action(app::Action::Close)];
                v.extend(keymap::lookup(&plain).map(Msg::Action));
                return v;
            }
            keymap::lookup(&k).map(Msg::Action).into_iter().collect()
        }
        Event::Mouse(m) => match m.kind {
            MouseEventKind::Down(MouseButton::Left) => vec![Msg::Click(m.column, m.row)],
            MouseEventKind::Drag(MouseButton::Left) => vec![Msg::Drag(m.column, m.row)],
            _ => Vec::new(),
        },
        Event::Resize(w, h) => vec![Msg::Resize(w, h)],
        _ => Vec::new(),
    }
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

async fn event_loop(
    terminal: &mut terminal::Term,
    app: &mut App,
    stop: &mut StopSignals,
) -> anyhow::Result<()> {
    let mut events = EventStream::new();
    let (tx, mut rx) = mpsc::unbounded_channel::<app::Done>();
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(MissedTickBehavior::Skip);
    let size = terminal.size()?;
    update(app, Msg::Resize(size.width, size.height), Duration::ZERO);
    terminal.draw(|f| view::render(app, f))?;
    let mut last = Instant::now();
    loop {
        for work in app.take_work() {
            let tx = tx.clone();
            tokio::task::spawn_blocking(move || {
                let _ = tx.send(work.perform());
            });
        }
        if !app.playhead.playing {
            last = Instant::now();
        }
        let changed = tokio::select! {
            ev = events.next() => match ev {
                Some(Ok(ev)) => messages(ev)
                    .into_iter()
                    .fold(false, |changed, msg| update(app, msg, Duration::ZERO) | changed),
                Some(Err(e)) => return Err(e.into()),
                None => break,
            },
            _ = tick.tick(), if app.playhead.playing => {
                let now = Instant::now();
                let dt = now.duration_since(last);
                last = now;
                update(app, Msg::Tick, dt)
            },
            Some(done) = rx.recv() => update(app, Msg::Done(Box::new(done)), Duration::ZERO),
            _ = stop.recv() => break,
        };
        if app.quit {
            break;
        }
        if changed {
            terminal.draw(|f| view::render(app, f))?;
        }
    }
    Ok(())
}
