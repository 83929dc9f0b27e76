//! What the UI tests share: the classroom app (in the mono theme, or the dark one), the UI a
//! command line opens, job mode paused at a moment, pressing keys, ticking and playing the
//! clock, and reading the footer and the screen, drawn through a terminal or straight into a
//! buffer, as cells or as text.

use std::sync::OnceLock;
use std::time::Duration;

use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::Terminal;
use twoclocks::cli::{parse, ui_options, Invocation};
use twoclocks::engine::job_timeline::JobTimeline;
use twoclocks::engine::timeline::Timeline;
use twoclocks::engine::EngineConfig;
use twoclocks::tui::app::{update, Action, App, JobPreset, Msg};
use twoclocks::tui::scenario::Scenario;
use twoclocks::tui::theme::{Theme, Use};
use twoclocks::tui::{app_for, Options};

/// The classroom app with the default dials (fixed 20 s, no grace) in `theme`, settled.
fn classroom(theme: Theme) -> App {
    let mut a = app_for(Options {
        scenario: Scenario::classroom(),
        config: EngineConfig::fixed(20_000.0, 0.0),
        speed: 10.0,
        theme,
        play: false,
    });
    a.settle();
    a
}

/// The classroom app with the default dials (fixed 20 s, no grace), frontier computed once.
pub fn app() -> App {
    static BASE: OnceLock<App> = OnceLock::new();
    BASE.get_or_init(|| classroom(Theme::mono())).clone()
}

/// The classroom app as [`app`] makes it, in the dark theme, frontier computed once.
pub fn base() -> App {
    static BASE: OnceLock<App> = OnceLock::new();
    BASE.get_or_init(|| classroom(Theme::dark())).clone()
}

/// [`app`] in job mode, paused at processing time `secs`.
pub fn job_at(secs: f64) -> App {
    let mut a = app();
    act(&mut a, Action::ToggleJob);
    assert!(a.trace().job().is_some());
    act(&mut a, Action::TogglePlay);
    let speed = a.dials().speed;
    tick(&mut a, secs / speed);
    act(&mut a, Action::TogglePlay);
    a
}

/// The UI a command line without a subcommand opens (before any terminal), settled, with the
/// job its flags preset; or the error line.
pub fn ui_of(args: &[&str]) -> Result<(App, Option<JobPreset>), String> {
    let argv = std::iter::once("twoclocks").chain(args.iter().copied());
    let Invocation::Ui(a, matches) = parse(argv)? else {
        panic!("{args:?} is not the UI");
    };
    let (options, job) = ui_options(&a, &matches).map_err(|e| format!("{e:#}"))?;
    let mut app = app_for(options);
    if let Some(job) = job.clone() {
        app.open_job(job);
    }
    app.settle();
    Ok((app, job))
}

/// The UI the command line `args` opens, as [`ui_of`] gives it; it must open.
pub fn ui(args: &[&str]) -> App {
    ui_of(args).unwrap_or_else(|e| panic!("{args:?}: {e}")).0
}

/// The job the app runs in job mode.
pub fn job(a: &App) -> &JobTimeline {
    a.trace().job().expect("job mode")
}

/// The single processor's timeline the app draws.
pub fn timeline(a: &App) -> &Timeline {
    a.trace().timeline().expect("the single processor")
}

pub fn act(a: &mut App, action: Action) -> bool {
    update(a, Msg::Action(action), Duration::ZERO)
}

/// Presses `action` and lets the work it queued finish.
pub fn act_settled(a: &mut App, action: Action) {
    update(a, Msg::Action(action), Duration::ZERO);
    a.settle();
}

pub fn tick(a: &mut App, secs: f64) -> bool {
    update(a, Msg::Tick, Duration::from_secs_f64(secs))
}

/// Plays the clock for `secs` of processing time at the app's speed, then pauses.
pub fn play(a: &mut App, secs: f64) {
    act(a, Action::TogglePlay);
    let speed = a.dials().speed;
    tick(a, secs / speed);
    act(a, Action::TogglePlay);
}

/// The footer's status message, or "".
pub fn said(a: &App) -> &str {
    a.status.as_ref().map_or("", |s| s.text.as_str())
}

/// The screen's text at the app's size.
pub fn screen(a: &App) -> String {
    let area = Rect::new(0, 0, a.size.0, a.size.1);
    let mut buf = Buffer::empty(area);
    twoclocks::tui::view::draw(a, area, &mut buf);
    text(&buf)
}

/// The app resized to `w` × `h` and drawn through a test terminal.
pub fn terminal(a: &mut App, w: u16, h: u16) -> Terminal<TestBackend> {
    update(a, Msg::Resize(w, h), Duration::ZERO);
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| twoclocks::tui::view::render(a, f)).unwrap();
    t
}

/// The cells of the app resized to `w` × `h` and drawn through a test terminal.
pub fn buffer(a: &mut App, w: u16, h: u16) -> Buffer {
    terminal(a, w, h).backend().buffer().clone()
}

/// The cells of the app resized to `size` and drawn straight into a buffer.
pub fn drawn(a: &mut App, (w, h): (u16, u16)) -> Buffer {
    update(a, Msg::Resize(w, h), Duration::ZERO);
    let mut buf = Buffer::empty(Rect::new(0, 0, w, h));
    twoclocks::tui::view::draw(a, buf.area, &mut buf);
    buf
}

/// The text of the app resized to `size` and drawn straight into a buffer, a line a row.
pub fn drawn_text(a: &mut App, size: (u16, u16)) -> String {
    text(&drawn(a, size))
}

/// What a cell drawn with `symbol` is for, as the contrast rules count it: text or a mark.
pub fn use_of(symbol: &str) -> Use {
    let c = symbol.chars().next().unwrap_or(' ');
    if c.is_ascii_graphic() || c.is_alphanumeric() {
        Use::Text
    } else {
        Use::Mark
    }
}

/// Row `y` of `buf` across `r`'s columns, as text.
pub fn row_text(buf: &Buffer, r: Rect, y: u16) -> String {
    (r.left()..r.right())
        .map(|x| buf[(x, y)].symbol().to_string())
        .collect()
}

/// The rows of `buf` inside `r`, as text.
pub fn rows_in(buf: &Buffer, r: Rect) -> Vec<String> {
    (r.top()..r.bottom()).map(|y| row_text(buf, r, y)).collect()
}

/// The rows of `buf`, as text.
pub fn lines(buf: &Buffer) -> Vec<String> {
    rows_in(buf, buf.area)
}

/// All of `buf` as text, a line a row.
pub fn text(buf: &Buffer) -> String {
    lines(buf).join("\n")
}
