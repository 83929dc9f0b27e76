//! Whether a window emits a pane with nothing new in it: Beam Java's two switches on a
//! windowing strategy, `Window.withAllowedLateness(d, ClosingBehavior)` for the last pane a
//! window emits when it is garbage collected, and `Window.withOnTimeBehavior(OnTimeBehavior)`
//! for the pane emitted as the watermark passes its end. Beam's `ReduceFnRunner.needToEmit`
//! decides with them: a pane with elements new since the last one is always emitted; one with
//! none only if it is the ON_TIME pane under `OnTimeBehavior.FIRE_ALWAYS`, or the window's
//! last under `ClosingBehavior.FIRE_ALWAYS`. A pane not emitted takes no index.
//!
//! Each is written `FIRE_ALWAYS` / `FIRE_IF_NON_EMPTY` in a script, as Beam names them, and
//! `fire-always` / `fire-if-non-empty` on the command line. The defaults are Beam's.

use std::fmt;
use std::str::FromStr;

/// Beam Java's `Window.ClosingBehavior`: whether a window emits a last pane when it is garbage
/// collected (the watermark past its end plus allowed lateness) with nothing new in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ClosingBehavior {
    /// `FIRE_ALWAYS`: a last pane, empty if nothing is new, marked last (LATE once the
    /// on-time pane has gone).
    FireAlways,
    /// `FIRE_IF_NON_EMPTY`, Beam's default: a last pane only if something is new.
    #[default]
    FireIfNonEmpty,
}

/// Beam Java's `Window.OnTimeBehavior`: whether the ON_TIME pane is emitted when nothing is new
/// in it (everything went out in early panes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum OnTimeBehavior {
    /// `FIRE_ALWAYS`, Beam's default: the ON_TIME pane is always emitted.
    #[default]
    FireAlways,
    /// `FIRE_IF_NON_EMPTY`: an ON_TIME pane with nothing new is not emitted.
    FireIfNonEmpty,
}

/// The two switches of a windowing strategy, as the processor, the trigger route and scripts
/// carry them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct EmptyPanes {
    /// At garbage collection.
    pub closing: ClosingBehavior,
    /// As the watermark passes the window's end.
    pub on_time: OnTimeBehavior,
}

impl EmptyPanes {
    /// Whether a pane is emitted (Beam's `ReduceFnRunner.needToEmit`): `empty`, nothing new
    /// since the window's last pane; `on_time`, its timing is ON_TIME; `last`, it is the
    /// window's last.
    pub fn emits(self, empty: bool, on_time: bool, last: bool) -> bool {
        !empty
            || (on_time && self.on_time == OnTimeBehavior::FireAlways)
            || (last && self.closing == ClosingBehavior::FireAlways)
    }

    /// Whether both are Beam's defaults.
    pub fn is_default(self) -> bool {
        self == EmptyPanes::default()
    }
}

/// The two spellings each switch has.
const SPELLINGS: [(&str, &str); 2] = [
    ("FIRE_ALWAYS", "fire-always"),
    ("FIRE_IF_NON_EMPTY", "fire-if-non-empty"),
];

/// Reads `FIRE_ALWAYS` or `fire-always` (0), `FIRE_IF_NON_EMPTY` or `fire-if-non-empty` (1).
fn spelling(text: &str) -> Result<usize, String> {
    SPELLINGS
        .iter()
        .position(|(beam, cli)| text == *beam || text == *cli)
        .ok_or_else(|| {
            "expected FIRE_ALWAYS or FIRE_IF_NON_EMPTY (fire-always or fire-if-non-empty)"
                .to_string()
        })
}

impl ClosingBehavior {
    /// Beam's name: `FIRE_ALWAYS`, `FIRE_IF_NON_EMPTY`.
    pub fn beam_name(self) -> &'static str {
        SPELLINGS[self as usize].0
    }

    /// The name on the command line: `fire-always`, `fire-if-non-empty`.
    pub fn name(self) -> &'static str {
        SPELLINGS[self as usize].1
    }
}

impl OnTimeBehavior {
    /// Beam's name: `FIRE_ALWAYS`, `FIRE_IF_NON_EMPTY`.
    pub fn beam_name(self) -> &'static str {
        SPELLINGS[self as usize].0
    }

    /// The name on the command line: `fire-always`, `fire-if-non-empty`.
    pub fn name(self) -> &'static str {
        SPELLINGS[self as usize].1
    }
}

impl FromStr for ClosingBehavior {
    type Err = String;

    /// Beam's name or the command line's.
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match spelling(s.trim())? {
            0 => ClosingBehavior::FireAlways,
            _ => ClosingBehavior::FireIfNonEmpty,
        })
    }
}

impl FromStr for OnTimeBehavior {
    type Err = String;

    /// Beam's name or the command line's.
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match spelling(s.trim())? {
            0 => OnTimeBehavior::FireAlways,
            _ => OnTimeBehavior::FireIfNonEmpty,
        })
    }
}

impl fmt::Display for ClosingBehavior {
    /// The command line's name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for OnTimeBehavior {
    /// The command line's name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_spellings_read_and_names_round_trip() {
        for c in [ClosingBehavior::FireAlways, ClosingBehavior::FireIfNonEmpty] {
            assert_eq!(c.beam_name().parse::<ClosingBehavior>(), Ok(c));
            assert_eq!(c.to_string().parse::<ClosingBehavior>(), Ok(c));
        }
        for o in [OnTimeBehavior::FireAlways, OnTimeBehavior::FireIfNonEmpty] {
            assert_eq!(o.beam_name().parse::<OnTimeBehavior>(), Ok(o));
            assert_eq!(o.to_string().parse::<OnTimeBehavior>(), Ok(o));
        }
        assert_eq!(ClosingBehavior::default(), ClosingBehavior::FireIfNonEmpty);
        assert_eq!(OnTimeBehavior::default(), OnTimeBehavior::FireAlways);
        assert!("FIRE_NEVER".parse::<ClosingBehavior>().is_err());
    }

    #[test]
    fn an_empty_pane_is_emitted_on_time_or_last_as_asked() {
        let beam = EmptyPanes::default();
        assert!(beam.emits(false, false, false));
        assert!(beam.emits(true, true, false));
        assert!(!beam.emits(true, false, true));
        assert!(!beam.emits(true, false, false));
        let always = EmptyPanes {
            closing: ClosingBehavior::FireAlways,
            on_time: OnTimeBehavior::FireIfNonEmpty,
        };
        assert!(always.emits(true, false, true));
        assert!(!always.emits(true, true, false));
        assert!(always.emits(true, true, true));
    }
}
