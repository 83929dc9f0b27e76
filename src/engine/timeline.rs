//! The run up to a playhead, as the UI shows it (to be filled in with the terminal UI).
