//! What the user can ask for, as one type. A key names an [`Action`] through the keymap; a
//! click or a drag resolves to one through the screen's geometry (on the panel under it); the
//! UI's update applies both the same way.

use super::dials::Dial;

/// A user intent: what a key is bound to, or what a click or a drag on a panel asks for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Action {
    TogglePlay,
    Step,
    Faster,
    Slower,
    Restart,
    JumpToEnd,
    FocusNext,
    FocusPrev,
    DialDown,
    DialUp,
    LagDown,
    LagUp,
    GraceDown,
    GraceUp,
    EarlyDown,
    EarlyUp,
    CycleWatermark,
    CycleAccumulation,
    /// Index into the engine's `POLICIES`.
    Policy(u8),
    WindowPrev,
    WindowNext,
    CycleKey,
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
    Help,
    Close,
    Quit,
    /// A dial focused and set to a position on its track, 0 to 1 (a click or a drag on it).
    SetDial(Dial, f64),
    /// The lag and grace of a point on the frontier chart adopted.
    AdoptPoint {
        lag: f64,
        grace: f64,
    },
    /// A window selected (index into the scenario's windows).
    SelectWindow(usize),
    /// This operator instance picked to crash (confirmed with `Crash`).
    PickOperatorAt(usize),
    /// The inspector opened on this event (offset in processing order).
    InspectEvent(usize),
}
