//! What the lesson and the screen make of the engine's facts: the tour's predict questions,
//! posed by running the engine on from the playhead and revealed in sentences (`predict`), and
//! a run's headline figures for the view that shows two runs side by side (`tally`), and the
//! sentence that says why an inspected event met its fate (`why`).

pub mod predict;
pub mod tally;
pub mod why;
