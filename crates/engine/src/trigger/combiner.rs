//! The output time of a pane (Beam's `TimestampCombiner`): the end of the window, or the
//! earliest or latest element's time, and the watermark hold that goes with it. Beam's hold
//! rule: an element behind the output watermark holds nothing (it cannot hold the
//! watermark back in time), so a pane of such elements alone is output at the end of its
//! window (`GeneralTriggerDriver.process_elements` in Beam Python's `trigger.py`).

use std::fmt;
use std::str::FromStr;

use crate::quote::quoted;
use crate::window::WindowId;

/// How a pane's output timestamp is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TimestampCombiner {
    /// The window's last instant, `end − 1` (Beam's `OUTPUT_AT_EOW`, its default).
    #[default]
    EndOfWindow,
    /// The earliest element's time (`OUTPUT_AT_EARLIEST`).
    Earliest,
    /// The latest element's time (`OUTPUT_AT_LATEST`).
    Latest,
    /// The earliest of the window function's transformed times
    /// (`OUTPUT_AT_EARLIEST_TRANSFORMED`).
    EarliestTransformed,
}

impl TimestampCombiner {
    /// Every combiner the command line offers.
    pub const ALL: [TimestampCombiner; 3] = [
        TimestampCombiner::EndOfWindow,
        TimestampCombiner::Earliest,
        TimestampCombiner::Latest,
    ];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            TimestampCombiner::EndOfWindow => "end-of-window",
            TimestampCombiner::Earliest => "earliest",
            TimestampCombiner::Latest => "latest",
            TimestampCombiner::EarliestTransformed => "earliest-transformed",
        }
    }

    /// Beam's name, as transcripts write it.
    pub fn beam_name(self) -> &'static str {
        match self {
            TimestampCombiner::EndOfWindow => "OUTPUT_AT_EOW",
            TimestampCombiner::Earliest => "OUTPUT_AT_EARLIEST",
            TimestampCombiner::Latest => "OUTPUT_AT_LATEST",
            TimestampCombiner::EarliestTransformed => "OUTPUT_AT_EARLIEST_TRANSFORMED",
        }
    }

    /// The combiner with this command-line or Beam name (any case).
    pub fn from_name(name: &str) -> Option<TimestampCombiner> {
        [
            TimestampCombiner::EndOfWindow,
            TimestampCombiner::Earliest,
            TimestampCombiner::Latest,
            TimestampCombiner::EarliestTransformed,
        ]
        .into_iter()
        .find(|c| c.name() == name || c.beam_name().eq_ignore_ascii_case(name))
    }

    /// The output time one element at `t` asks for in `window`; `shift` is the window
    /// function's transform of an element's time (0 for Beam's own window functions).
    pub fn assign(self, window: WindowId, t: i64, shift: i64) -> i64 {
        match self {
            TimestampCombiner::EndOfWindow => window.max_timestamp(),
            TimestampCombiner::Earliest | TimestampCombiner::Latest => t,
            TimestampCombiner::EarliestTransformed => t.saturating_add(shift),
        }
    }

    /// Two output times combined.
    pub fn combine(self, a: i64, b: i64) -> i64 {
        match self {
            TimestampCombiner::EndOfWindow | TimestampCombiner::Latest => a.max(b),
            TimestampCombiner::Earliest | TimestampCombiner::EarliestTransformed => a.min(b),
        }
    }

    /// The hold that `elements` (their times) add to `window` when the output watermark is
    /// `output_wm`: `None` when none of them may hold it. The end of the window depends on
    /// the window alone, so it always holds.
    pub fn hold(
        self,
        window: WindowId,
        elements: impl IntoIterator<Item = i64>,
        output_wm: i64,
        shift: i64,
    ) -> Option<i64> {
        if self == TimestampCombiner::EndOfWindow {
            return Some(window.max_timestamp());
        }
        elements
            .into_iter()
            .map(|t| self.assign(window, t, shift))
            .filter(|&o| o >= output_wm)
            .reduce(|a, b| self.combine(a, b))
    }
}

impl FromStr for TimestampCombiner {
    type Err = String;

    /// Reads a command-line or Beam name, as [`TimestampCombiner::from_name`]; an error names
    /// the value and the command line's names.
    fn from_str(s: &str) -> Result<TimestampCombiner, String> {
        TimestampCombiner::from_name(s).ok_or_else(|| {
            let names: Vec<&str> = TimestampCombiner::ALL.iter().map(|c| c.name()).collect();
            let (last, rest) = names.split_last().unwrap_or((&"", &[]));
            format!(
                "{} is not an output time: give {} or {last}",
                quoted(s),
                rest.join(", ")
            )
        })
    }
}

impl fmt::Display for TimestampCombiner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn late_elements_hold_nothing() {
        let w = WindowId::new(0, 10);
        let e = TimestampCombiner::Earliest;
        assert_eq!(e.hold(w, [2, 3, 7, 8], 5, 0), Some(7));
        assert_eq!(e.hold(w, [2, 3, 7], 8, 0), None);
        assert_eq!(TimestampCombiner::Latest.hold(w, [1, 2, 3], 0, 0), Some(3));
        assert_eq!(TimestampCombiner::EndOfWindow.hold(w, [2], 50, 0), Some(9));
        assert_eq!(
            TimestampCombiner::EarliestTransformed.hold(w, [1, 2], 0, 100),
            Some(101)
        );
    }

    #[test]
    fn what_is_written_reads_back_the_same() {
        for c in [
            TimestampCombiner::EndOfWindow,
            TimestampCombiner::Earliest,
            TimestampCombiner::Latest,
            TimestampCombiner::EarliestTransformed,
        ] {
            assert_eq!(c.to_string().parse(), Ok(c));
        }
        assert_eq!(
            "soon".parse::<TimestampCombiner>(),
            Err("'soon' is not an output time: give end-of-window, earliest or latest".into())
        );
    }

    #[test]
    fn names_are_beams_too() {
        for c in TimestampCombiner::ALL {
            assert_eq!(TimestampCombiner::from_name(c.name()), Some(c));
            assert_eq!(TimestampCombiner::from_name(c.beam_name()), Some(c));
        }
        assert_eq!(
            TimestampCombiner::from_name("output_at_eow"),
            Some(TimestampCombiner::EndOfWindow)
        );
    }
}
