//! What an [`Action`] does to the state, a key's or a click's alike: one function per group of
//! actions (playback, the job, the dials, what is selected and inspected, the rest), behind
//! [`act`], which the help overlay intercepts first.

use twoclocks_engine::frontier::Policy;
use twoclocks_engine::job_timeline::Intervention;
use twoclocks_engine::pipeline::CrashTarget;
use twoclocks_engine::KeyId;

use super::{Action, App, Dial, Overlay};
use crate::action::Part;
use crate::dials::Ranges;
use crate::opening::Opening;

/// The help overlay can be at most this many lines scrolled.
const HELP_SCROLL_MAX: usize = 64;

/// Applies an action; returns whether anything on screen changed.
pub(super) fn act(app: &mut App, a: Action) -> bool {
    if app.overlay.is_some() {
        return in_help(app, a);
    }
    if let Action::Policy(i) = a {
        if let Some(changed) = app.vote(usize::from(i)) {
            return changed;
        }
    }
    if let Some(why) = app.vote_refusal(a) {
        return app.say(why);
    }
    match a.route().0 {
        Part::Playback => playback(app, a),
        Part::Job => job(app, a),
        Part::Dials => dials(app, a),
        Part::Selection => select(app, a),
        Part::Presenter => presenter(app, a),
        Part::Tour => match a {
            Action::TourNext => app.tour_move(true),
            Action::TourPrev => app.tour_move(false),
            Action::TourReset => app.tour_reset(),
            _ => false,
        },
        Part::General => general(app, a),
        // The event loop suspends the process; the state stays as it was.
        Part::Shell => false,
    }
}

/// The presenter's keys: the screen saved (by the event loop, which holds the frame), the plot
/// alone, two policies side by side.
fn presenter(app: &mut App, a: Action) -> bool {
    match a {
        Action::SaveScreen => {
            app.save_requested = true;
            false
        }
        Action::Zoom => {
            app.zoomed = !app.zoomed;
            true
        }
        Action::Magnify => {
            app.magnify = match app.magnify {
                Some(_) => None,
                None => Some(
                    app.tour_magnify()
                        .or(Opening::magnify_of(app.scenario()))
                        .unwrap_or_else(|| magnified(&app.dials().ranges)),
                ),
            };
            true
        }
        Action::SideBySide => app.toggle_side(),
        Action::BigNumbers => {
            app.big_numbers = match app.big_numbers {
                Some(_) => None,
                None => Some(Vec::new()),
            };
            true
        }
        _ => false,
    }
}

/// With the help open: it scrolls and closes, the rest waits.
fn in_help(app: &mut App, a: Action) -> bool {
    match a {
        Action::Help | Action::Close => {
            app.overlay = None;
            true
        }
        Action::FocusNext => {
            app.help_scroll = (app.help_scroll + 1).min(HELP_SCROLL_MAX);
            true
        }
        Action::FocusPrev => {
            let before = app.help_scroll;
            app.help_scroll = app.help_scroll.saturating_sub(1);
            before != app.help_scroll
        }
        Action::Quit => {
            app.quit = true;
            true
        }
        Action::SaveScreen => {
            app.save_requested = true;
            false
        }
        Action::Suspend => false,
        _ => app.say("the help is open: Esc or ? closes it"),
    }
}

/// While a run that keeps its own clock (the job) re-runs for new dials, what would move it
/// waits: the re-run replaces it, and the playhead follows the re-run.
fn busy(app: &mut App) -> Option<bool> {
    (app.trace().keeps_own_clock() && app.steered.rerunning())
        .then(|| app.say("the job is re-running for the new dials: a moment"))
}

fn playback(app: &mut App, a: Action) -> bool {
    match a {
        Action::TogglePlay => {
            if app.playhead().finished && !app.playing {
                app.restart();
            }
            app.playing = !app.playing;
            if app.playing && app.input_open() && !app.trace().keeps_own_clock() {
                // A live input: playing is following its live edge, caught up at once.
                app.jump_to_end();
            }
            true
        }
        Action::Step => step(app),
        Action::JumpToEnd => {
            if let Some(said) = busy(app) {
                return said;
            }
            if app.playhead().finished {
                return app.say("already at the end of the stream: Home restarts");
            }
            app.jump_to_end();
            true
        }
        Action::Faster => app.turn(Dial::Speed, true),
        Action::Slower => app.turn(Dial::Speed, false),
        Action::Restart => {
            app.restart();
            true
        }
        _ => false,
    }
}

/// `.`: one move while paused: the next event arrives, or the job goes on to its next step.
fn step(app: &mut App) -> bool {
    if let Some(said) = busy(app) {
        return said;
    }
    if app.playing {
        return app.say("pause (Space) to step one at a time");
    }
    if app.playhead().finished {
        return app.say("the end of the stream: Home restarts");
    }
    if app.input_open() && app.playhead().arrived >= app.scenario().len() {
        return app.say("no event has arrived after the playhead yet: the input is live");
    }
    match app.steered.step() {
        Some(_) => {
            app.stop_at_end();
            true
        }
        None => app.say("the job has finished: Home restarts"),
    }
}

fn job(app: &mut App, a: Action) -> bool {
    if matches!(
        a,
        Action::Crash | Action::CheckpointNow | Action::CutPartition
    ) {
        if let Some(said) = busy(app) {
            return said;
        }
    }
    match a {
        Action::ToggleJob => {
            let on = !app.steered.parallel();
            app.set_job_mode(on, false);
            true
        }
        Action::Crash => {
            let target = app
                .crash_pick
                .take()
                .map_or(CrashTarget::Job, CrashTarget::Operator);
            if !app.press(Intervention::Crash(target)) {
                app.say("the job has finished: nothing left to crash (Home restarts)");
            }
            true
        }
        Action::PickOperator => {
            app.set_job_mode(true, false);
            let n = app
                .trace()
                .pipeline_config()
                .map_or(1, |c| c.parallelism.max(1));
            app.crash_pick = Some(app.crash_pick.map_or(0, |i| (i + 1) % n));
            true
        }
        Action::PickOperatorAt(i) => {
            app.crash_pick = Some(i);
            true
        }
        Action::CheckpointNow => {
            if !app.press(Intervention::Checkpoint) {
                app.say("every source has ended: no checkpoint left to take");
            }
            true
        }
        Action::CutPartition => cut_or_heal(app),
        Action::PickPartition => {
            app.set_job_mode(true, false);
            let n = app.job_config().partitions.max(1);
            app.partition_pick = Some(app.partition_pick.map_or(0, |i| (i + 1) % n));
            true
        }
        _ => false,
    }
}

/// `p`: the selected partition cut off at the playhead, or healed if it is cut off (job mode
/// is entered first).
fn cut_or_heal(app: &mut App) -> bool {
    app.set_job_mode(true, true);
    let n = app.job_config().partitions.max(1);
    let p = app.partition_pick.unwrap_or(0).min(n - 1);
    app.partition_pick = Some(p);
    if app.trace().is_cut_off(p) {
        if !app.press(Intervention::Heal(p)) {
            app.say(format!("s{p} could not be healed"));
        }
    } else if !app.press(Intervention::Cut(p)) {
        app.say("the job has finished: nothing left to cut off (Home restarts)");
    }
    true
}

fn dials(app: &mut App, a: Action) -> bool {
    match a {
        Action::FocusNext | Action::FocusPrev => {
            let order = app.dial_order();
            let n = order.len();
            let i = app.selection.focus.index();
            app.selection.focus = if a == Action::FocusNext {
                order[(i + 1) % n]
            } else {
                order[(i.min(n - 1) + n - 1) % n]
            };
            true
        }
        Action::DialDown | Action::DialUp => match app.selection.inspected {
            Some(i) => app.inspect_step(i, a == Action::DialUp),
            None => app.turn(app.selection.focus, a == Action::DialUp),
        },
        Action::LagDown => app.turn(Dial::Lag, false),
        Action::LagUp => app.turn(Dial::Lag, true),
        Action::GraceDown => app.turn(Dial::Grace, false),
        Action::GraceUp => app.turn(Dial::Grace, true),
        Action::EarlyDown => app.turn(Dial::Early, false),
        Action::EarlyUp => app.turn(Dial::Early, true),
        Action::CycleWatermark => app.turn(Dial::Watermark, true),
        Action::CycleAccumulation => app.turn(Dial::Accumulation, true),
        Action::CycleRules => app.turn(Dial::Rules, true),
        Action::Policy(i) => {
            let Some(p) = Policy::ALL.get(usize::from(i)) else {
                return false;
            };
            let mut dials = app.dials();
            dials.set_fixed(p.lag);
            dials.grace = p.grace;
            if !app.set_dials(dials) {
                return app.say(format!("the dials already are the {} policy's", p.name));
            }
            true
        }
        Action::SetDial(dial, r) => {
            app.selection.focus = dial;
            let mut dials = app.dials();
            dials.set_ratio(dial, r);
            app.set_dials(dials);
            true
        }
        Action::AdoptPoint { lag, grace } => {
            let mut dials = app.dials();
            dials.lag = lag;
            dials.grace = grace;
            app.set_dials(dials);
            true
        }
        _ => false,
    }
}

fn select(app: &mut App, a: Action) -> bool {
    match a {
        Action::WindowPrev => {
            if app.selection.window == 0 {
                return app.say("this is the first window");
            }
            app.selection.window -= 1;
            true
        }
        Action::WindowNext => {
            let n = app.scenario().windows_of(app.selection.key).len();
            if app.selection.window + 1 >= n {
                return app.say("this is the last window");
            }
            app.selection.window += 1;
            true
        }
        Action::SelectWindow(w) => {
            app.selection.window = w;
            true
        }
        Action::CycleKey => {
            let keys = app.scenario().keys() as KeyId;
            app.selection.key = match app.selection.key {
                Some(k) if k + 1 < keys => Some(k + 1),
                Some(_) => None,
                None if keys > 0 => Some(0),
                None => return app.say("this stream has no keys"),
            };
            true
        }
        Action::Inspect if !app.trace().explains_fates() => {
            app.say("the inspector needs the single processor: j leaves job mode")
        }
        Action::Inspect => {
            app.selection.inspected = match app.selection.inspected {
                Some(_) => None,
                None => match app.newest() {
                    Some(i) => Some(i),
                    None => return app.say("no event has arrived yet: Space plays, . steps"),
                },
            };
            true
        }
        Action::InspectEvent(i) => {
            app.selection.inspected = Some(i);
            true
        }
        Action::PlotFilter => {
            app.plot_exceptions_only = !app.plot_exceptions_only;
            true
        }
        Action::NextException => app.jump_exception(true),
        Action::PrevException => app.jump_exception(false),
        _ => false,
    }
}

fn general(app: &mut App, a: Action) -> bool {
    match a {
        Action::Help => {
            app.overlay = Some(Overlay::Help);
            app.help_scroll = 0;
            true
        }
        Action::Close => {
            // The big numbers cover everything: Esc takes them away first.
            if app.big_numbers.take().is_some() {
                return true;
            }
            let crashes = app.trace().crashes().len();
            let had = app.selection.inspected.is_some()
                || app.crash_pick.is_some()
                || crashes > app.crash_closed;
            app.selection.inspected = None;
            app.crash_pick = None;
            app.crash_closed = crashes;
            // Esc leaves two policies side by side once nothing else is open.
            if !had && app.unpin_side() {
                return true;
            }
            had || app.say("nothing to close")
        }
        Action::Quit => {
            app.quit = true;
            true
        }
        _ => false,
    }
}

/// The plot's magnification `m` gives from the whole stream when neither the tour's step nor
/// the stream has its own, ms of event time per column. From any magnification, `m` shows the
/// whole stream.
const MAGNIFY: f64 = 1_000.0;

/// The scale `m` magnifies to, ms of event time a column: a second on a stream counted in
/// seconds; on a wall-clock log a nice duration a sixtieth of its delays' reach (10 minutes a
/// column on the New York departures, whose reach is 6 hours), so that the late events of the
/// hours around the playhead are on the plot.
fn magnified(ranges: &Ranges) -> f64 {
    if !ranges.wall {
        return MAGNIFY;
    }
    // The lag dial reaches as far as the log's delays.
    twoclocks_engine::scale::Scale::nice_at_least(ranges.lag.0 / 60.0)
}
