//! A recording being played back (`--replay FILE`): which file, how far it has played and how
//! long it is, so that the footer can say `▶ replay demo.rec 0:41 / 2:10` and a presenter
//! never takes a replay for a frozen program. The shell moves it on as the recording's
//! inputs are taken and every second between them; the state itself keeps no clock.

use std::time::Duration;

/// How far a replay has played.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayProgress {
    /// The recording's file, as given.
    pub file: String,
    /// How far it has played, since the recording began (the shell's clock, to the second).
    pub at: Duration,
    /// The time of the recording's last input: its length.
    pub total: Duration,
}

impl ReplayProgress {
    /// `0:41 / 2:10`: minutes and seconds played, of the whole.
    pub fn clock(&self) -> String {
        let mmss = |d: Duration| {
            let s = d.as_secs();
            format!("{}:{:02}", s / 60, s % 60)
        };
        format!("{} / {}", mmss(self.at.min(self.total)), mmss(self.total))
    }
}

/// What the footer says when a key is pressed while a recording plays: it is not lost without
/// a word.
pub const REPLAY_HAS_THE_KEYS: &str = "the replay has the keys; q quits";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_reads_minutes_and_seconds() {
        let r = ReplayProgress {
            file: "demo.rec".into(),
            at: Duration::from_millis(41_900),
            total: Duration::from_secs(130),
        };
        assert_eq!(r.clock(), "0:41 / 2:10");
    }
}
