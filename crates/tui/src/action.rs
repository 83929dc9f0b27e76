//! What the user can ask for, as one type. A key names an [`Action`] through the keymap; a
//! click or a drag resolves to one through the screen's geometry (on the panel under it); the
//! UI's update applies both the same way.

use crate::dials::Dial;

/// A user intent: what a key is bound to, or what a click or a drag on a panel asks for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Action {
    /// Play or pause the simulation clock (Space); at the end of the stream, play starts over.
    TogglePlay,
    /// One move while paused (`.`): the next event arrives, or the job takes its next step.
    Step,
    /// The speed dial one stop up (`+`).
    Faster,
    /// The speed dial one stop down (`-`).
    Slower,
    /// The playhead back to the start of processing time (Home); the job's crashes and
    /// checkpoints pressed so far are forgotten.
    Restart,
    /// The playhead to the end of the stream, paused (End).
    JumpToEnd,
    /// Focus the next dial (Tab, ↓); with the help open, scroll it one column on.
    FocusNext,
    /// Focus the previous dial (S-Tab, ↑); with the help open, scroll it one column back.
    FocusPrev,
    /// The focused dial one step down (←); with the inspector open, the event before.
    DialDown,
    /// The focused dial one step up (→); with the inspector open, the event after.
    DialUp,
    /// The watermark lag one step down (`l`).
    LagDown,
    /// The watermark lag one step up (`L`).
    LagUp,
    /// The grace one step down (`g`).
    GraceDown,
    /// The grace one step up (`G`).
    GraceUp,
    /// The early-trigger interval one step down (`e`); below one step, early panes are off.
    EarlyDown,
    /// The early-trigger interval one step up (`E`).
    EarlyUp,
    /// The next watermark family (`w`): perfect, fixed, heuristic, bounded, and round again.
    CycleWatermark,
    /// The next accumulation mode (`a`): what each pane carries.
    CycleAccumulation,
    /// The next engine's rules (`R`): Beam Java, Beam Python, Flink, and round again.
    CycleRules,
    /// Index into the engine's `Policy::ALL`.
    Policy(u8),
    /// Select the previous window (`[`).
    WindowPrev,
    /// Select the next window (`]`).
    WindowNext,
    /// Select the next key, after the last all keys together, then the first again (`k`).
    CycleKey,
    /// Open the inspector on the newest arrived event, or close it (`i`; single processor only).
    Inspect,
    /// The plot shows only late and dropped events, or every event.
    PlotFilter,
    /// The playhead to the next late or dropped event, the inspector open on it.
    NextException,
    /// The playhead back to the previous late or dropped event, the inspector open on it.
    PrevException,
    /// Job mode on or off: the parallel pipeline with checkpoints instead of one processor.
    ToggleJob,
    /// Crash the job now (or, while one is picked, that operator instance).
    Crash,
    /// Pick the next operator instance to crash (confirmed with `Crash`).
    PickOperator,
    /// Take a checkpoint now.
    CheckpointNow,
    /// Cut the selected source partition off now, or, while it is cut off, heal it (`p`).
    CutPartition,
    /// Select the next source partition for `p` to cut off or heal (`P`).
    PickPartition,
    /// Save the screen as drawn, as SVG with its colours and as plain text, in the current
    /// folder (`s`).
    SaveScreen,
    /// The plot alone on the whole screen above the footer, or back to every panel (`z`).
    Zoom,
    /// The plot follows the playhead, 1 s of event time per column, then 100 ms, then the
    /// whole stream again (`m`).
    Magnify,
    /// Two policies side by side: the dials as they are now pinned as B beside A's live
    /// ones, or back to one run (`v`).
    SideBySide,
    /// The tour's next step (`n`, PageDown); outside a tour, the footer says there is none.
    TourNext,
    /// The tour's step before (`N`, PageUp).
    TourPrev,
    /// The tour's step set again as the step sets it (`r`): dials, playhead, job, panels.
    TourReset,
    /// The counters that matter in big numbers over the screen, or back (`b`).
    BigNumbers,
    /// Open the help overlay (`?`, F1); with it open, close it.
    Help,
    /// Close what is open (Esc): the help, the inspector, the operator picked to crash, the
    /// crash report.
    Close,
    /// Leave the UI (`q`, Ctrl-C).
    Quit,
    /// Suspend the UI as a shell's job (Ctrl-Z): the terminal handed back, the program
    /// stopped until `fg`. The shell around the state does it; the state does not change.
    Suspend,
    /// A dial focused and set to a position on its track, 0 to 1 (a click or a drag on it).
    SetDial(Dial, f64),
    /// The lag and grace of a point on the frontier chart adopted.
    AdoptPoint {
        /// Watermark lag, ms.
        lag: f64,
        /// Grace, ms.
        grace: f64,
    },
    /// A window selected (index into the scenario's windows).
    SelectWindow(usize),
    /// This operator instance picked to crash (confirmed with `Crash`).
    PickOperatorAt(usize),
    /// The inspector opened on this event (offset in processing order).
    InspectEvent(usize),
}

/// The part of the update that applies an action (one function each in `app/act.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// The clock: play, step, speed, restart, the end.
    Playback,
    /// The parallel job: its mode, crashes, checkpoints, partitions.
    Job,
    /// The dials and the frontier's policies.
    Dials,
    /// The window, the key and the event selected and inspected.
    Selection,
    /// The presenter's keys: the screen saved, the plot alone, side by side, big numbers.
    Presenter,
    /// The tour's steps.
    Tour,
    /// Help, close, quit.
    General,
    /// The event loop's: the process suspended; the state stays as it was.
    Shell,
}

/// What an action would change under a question the room is voting on, so that it waits for
/// the vote (a predict step): the run moved on, the job changed, or a dial turned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Waits {
    /// It moves the run on (or to another event): the answer would show before the vote.
    Run,
    /// It changes the job or the runs shown.
    Job,
    /// It turns a dial: the answer could change under the room's hands.
    Dials,
}

impl Action {
    /// The part of the update that applies the action, and what it would change under an open
    /// question (None: it acts while the room votes). Every action is listed here once; a new
    /// one does not compile until it says both.
    pub fn route(self) -> (Part, Option<Waits>) {
        use Action::*;
        match self {
            TogglePlay | Step | Restart | JumpToEnd => (Part::Playback, Some(Waits::Run)),
            Faster | Slower => (Part::Playback, None),
            ToggleJob | Crash | CheckpointNow | CutPartition => (Part::Job, Some(Waits::Job)),
            PickOperator | PickOperatorAt(_) | PickPartition => (Part::Job, None),
            FocusNext
            | FocusPrev
            | DialDown
            | DialUp
            | LagDown
            | LagUp
            | GraceDown
            | GraceUp
            | EarlyDown
            | EarlyUp
            | CycleWatermark
            | CycleAccumulation
            | CycleRules
            | SetDial(..)
            | AdoptPoint { .. } => (Part::Dials, Some(Waits::Dials)),
            // A policy's number is the room's vote while a question is open.
            Policy(_) => (Part::Dials, None),
            NextException | PrevException => (Part::Selection, Some(Waits::Run)),
            WindowPrev | WindowNext | SelectWindow(_) | CycleKey | Inspect | InspectEvent(_)
            | PlotFilter => (Part::Selection, None),
            SideBySide => (Part::Presenter, Some(Waits::Job)),
            SaveScreen | Zoom | Magnify | BigNumbers => (Part::Presenter, None),
            TourNext | TourPrev | TourReset => (Part::Tour, None),
            Help | Close | Quit => (Part::General, None),
            Suspend => (Part::Shell, None),
        }
    }
}
