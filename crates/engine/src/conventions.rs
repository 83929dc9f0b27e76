//! Whose rules: the same events under Beam Java's, Beam Python's, Flink's or Kafka Streams'
//! conventions. The engines agree on the Dataflow model and disagree at its edges, by one
//! millisecond or one comparison: when a window's on-time pane fires, when late data is
//! dropped, how far a bounded-out-of-orderness watermark trails, and whether touching
//! sessions merge. Each rule here is the engine's own, cited to the source file and method
//! that decides it; everything that applies a convention asks it here, so each rule has one
//! implementation.
//!
//! Times are milliseconds, the engines' granularity (Beam Python's is the microsecond, but
//! its trigger transcripts count in whole units, which twoclocks reads as milliseconds).

use std::fmt;
use std::str::FromStr;

use crate::quote::quoted;

/// One engine's rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Conventions {
    /// Beam's Java SDK and runners: twoclocks' own rules, the default.
    #[default]
    Beam,
    /// Beam's Python SDK (its trigger driver): as Beam Java, but late data at exactly
    /// `end + allowed lateness` is kept, merged sessions are not rewound, and nothing is
    /// emitted at garbage collection.
    BeamPython,
    /// Apache Flink's DataStream API.
    Flink,
    /// Kafka Streams: no watermark, stream time instead; no on-time pane.
    KafkaStreams,
}

impl Conventions {
    /// Every convention, in the order the UI cycles through them.
    pub const ALL: [Conventions; 4] = [
        Conventions::Beam,
        Conventions::BeamPython,
        Conventions::Flink,
        Conventions::KafkaStreams,
    ];

    /// The name on the command line and on screen.
    pub fn name(self) -> &'static str {
        match self {
            Conventions::Beam => "beam",
            Conventions::BeamPython => "beam-python",
            Conventions::Flink => "flink",
            Conventions::KafkaStreams => "kafka-streams",
        }
    }

    /// The convention named `name`, if any.
    pub fn from_name(name: &str) -> Option<Conventions> {
        Conventions::ALL.into_iter().find(|c| c.name() == name)
    }

    /// The engine, as a line under the dials says it.
    pub fn engine(self) -> &'static str {
        match self {
            Conventions::Beam => "Beam Java",
            Conventions::BeamPython => "Beam Python",
            Conventions::Flink => "Flink",
            Conventions::KafkaStreams => "Kafka Streams",
        }
    }

    /// Whether the watermark `wm` has passed a window ending at `end` (exclusive), so that
    /// its on-time pane fires.
    ///
    /// - Beam Java: `AfterWatermarkStateMachine.FromEndOfWindow.shouldFire` fires when the
    ///   input watermark `isAfter(window.maxTimestamp())`, `wm > end − 1`, i.e. `wm ≥ end`.
    /// - Beam Python: `trigger.py`, `AfterWatermark.should_fire`: `watermark >= window.end`.
    /// - Flink: `EventTimeTrigger.onElement` registers a timer at `window.maxTimestamp()`
    ///   (`end − 1`), which fires once the watermark reaches it: `wm ≥ end − 1`.
    /// - Kafka Streams has no on-time pane; its windows close at `end ≤ stream time − grace`
    ///   ([`Conventions::drops`]). Here it passes where Beam's does.
    #[inline]
    pub fn passed_end(self, end: f64, wm: f64) -> bool {
        self.pass_end(end) <= wm
    }

    /// The watermark at which a window ending at `end` has passed its end: `end`, or under
    /// Flink's rules `end − 1`. Comparing the watermark with it is [`Conventions::passed_end`]
    /// (the processor keeps it per window, so Beam's comparisons are the ones it always made).
    #[inline]
    pub fn pass_end(self, end: f64) -> f64 {
        match self {
            Conventions::Flink => end - 1.0,
            _ => end,
        }
    }

    /// The end a drop threshold `wm − L` is compared with, `≤`, for a window ending at `end`
    /// (`merging`: a session): `end`, `end − 1` under Flink's rules, and the next float above
    /// `end` where the comparison is strict (`end < t` is `next_up(end) ≤ t`): Beam Python's
    /// windows and Kafka Streams' sessions. [`Conventions::drops`] is that comparison.
    #[inline]
    pub fn drop_end(self, end: f64, merging: bool) -> f64 {
        match self {
            Conventions::Beam => end,
            Conventions::KafkaStreams if !merging => end,
            Conventions::BeamPython | Conventions::KafkaStreams => end.next_up(),
            Conventions::Flink => end - 1.0,
        }
    }

    /// The latest window end the watermark `wm` has passed: `wm`, or under Flink's rules
    /// `wm + 1` (its timer at `end − 1`).
    #[inline]
    pub fn ends_passed_by(self, wm: f64) -> f64 {
        match self {
            Conventions::Flink => wm + 1.0,
            _ => wm,
        }
    }

    /// The first watermark at which a window ending at `end` has passed its end: where its
    /// end-of-window timer is set (Flink's at `maxTimestamp`, Beam's at the end).
    #[inline]
    pub fn end_timer(self, end: i64) -> i64 {
        match self {
            Conventions::Flink => end.saturating_sub(1),
            _ => end,
        }
    }

    /// Whether data for a window ending at `end` (exclusive; `merging`: a session) is dropped
    /// under watermark (or, in Kafka Streams, stream time) `wm` with allowed lateness
    /// `lateness`.
    ///
    /// - Beam Java: `LateDataDroppingDoFnRunner.LateDataFilter.canDropDueToExpiredWindow`:
    ///   `window.maxTimestamp().plus(allowedLateness).isBefore(inputWatermark)`:
    ///   `end − 1 + L < wm`, i.e. `end + L ≤ wm`, on each window before merging.
    /// - Beam Python: `trigger.py`, `GeneralTriggerDriver.process_elements` ignores a window
    ///   when `input_watermark > window.end + self.allowed_lateness`: kept at equality.
    /// - Flink: `WindowOperator.isWindowLate`:
    ///   `cleanupTime(window) <= currentWatermark` with `cleanupTime = maxTimestamp +
    ///   allowedLateness`: `end − 1 + L ≤ wm`, tested on the merged window for sessions.
    /// - Kafka Streams, time windows: `KStreamWindowAggregate` drops a record for a window
    ///   whose `windowEnd <= windowCloseTime`, with `windowCloseTime = observedStreamTime −
    ///   gracePeriod`: `end + L ≤ stream time`.
    /// - Kafka Streams, sessions: `KStreamSessionWindowAggregate` drops a record when the
    ///   session it merges into has `mergedWindow.end() < windowCloseTime`, with
    ///   `windowCloseTime = observedStreamTime − gracePeriod − inactivityGap` and the session's
    ///   end its last record. twoclocks' session ends a gap after its last event, so this is
    ///   `end + L < stream time`, kept at equality, tested on the merged session.
    ///
    /// Each is written against the drop threshold `wm − L`, the form the processor has always
    /// compared (so that Beam's answers are the same to the last bit).
    #[inline]
    pub fn drops(self, end: f64, wm: f64, lateness: f64, merging: bool) -> bool {
        self.drop_end(end, merging) <= wm - lateness
    }

    /// Whether a session's lateness is tested on the window it merges into, not on the
    /// element's own: Flink's `WindowOperator.processElement` merges first, then calls
    /// `isWindowLate(actualWindow)`; Kafka Streams' `KStreamSessionWindowAggregate` tests
    /// `mergedWindow`.
    #[inline]
    pub fn tests_merged_window(self) -> bool {
        matches!(self, Conventions::Flink | Conventions::KafkaStreams)
    }

    /// The inequality by which data for a window ending at `end` was dropped under watermark
    /// (stream time) `wm` and allowed lateness `lateness`, in this engine's own terms, all in
    /// ms: `end 18 + allowed lateness 10 ≤ watermark 30`.
    pub fn explain_drop(self, end: i64, wm: i64, lateness: i64, merging: bool) -> String {
        match self {
            Conventions::Beam => {
                format!("end {end} + allowed lateness {lateness} ≤ watermark {wm}")
            }
            Conventions::BeamPython => {
                format!("watermark {wm} > end {end} + allowed lateness {lateness}")
            }
            Conventions::Flink => format!(
                "maxTimestamp {} + allowed lateness {lateness} ≤ watermark {wm}",
                end.saturating_sub(1)
            ),
            Conventions::KafkaStreams if merging => {
                format!("session end {end} (its last record + gap) + grace {lateness} < stream time {wm}")
            }
            Conventions::KafkaStreams => {
                format!("window end {end} ≤ stream time {wm} − grace {lateness}")
            }
        }
    }

    /// How far a bounded-out-of-orderness watermark trails the largest event time seen,
    /// for a bound of `bound` ms.
    ///
    /// - Flink: `BoundedOutOfOrdernessWatermarks.onPeriodicEmit` emits
    ///   `maxTimestamp − outOfOrdernessMillis − 1`.
    /// - Beam: `KafkaIO`'s `CustomTimestampPolicyWithLimitedDelay.getWatermark` gives
    ///   `maxEventTimestamp − maxDelay`.
    /// - Kafka Streams' stream time is the largest timestamp seen, with no bound.
    #[inline]
    pub fn watermark_lag(self, bound: f64) -> f64 {
        match self {
            Conventions::Beam | Conventions::BeamPython => bound,
            Conventions::Flink => bound + 1.0,
            Conventions::KafkaStreams => 0.0,
        }
    }

    /// Whether two session windows `[a.start, a.end)` and `[b.start, b.end)` merge (ms).
    ///
    /// - Beam: `MergeOverlappingIntervalWindows.mergeWindows` merges windows that
    ///   `intersects` (`start < other.end && end > other.start`): touching windows stay
    ///   apart. Beam Python's `Sessions.merge` tests `end > w.start` alike.
    /// - Flink: `TimeWindow.mergeWindows` merges when `intersects`, which is
    ///   `start <= other.end && end >= other.start`: touching windows merge.
    /// - Kafka Streams: `KStreamSessionWindowAggregate` fetches the sessions whose
    ///   `[start − gap, end + gap]` contains the record, both ends inclusive; on the
    ///   proto-windows `[t, t + gap)` twoclocks draws, that is touching windows merging too.
    #[inline]
    pub fn sessions_merge(self, a: (i64, i64), b: (i64, i64)) -> bool {
        if self.merges_touching() {
            a.0 <= b.1 && a.1 >= b.0
        } else {
            a.0 < b.1 && a.1 > b.0
        }
    }

    /// Whether sessions that only touch merge (Flink's and Kafka Streams' rule; see
    /// [`Conventions::sessions_merge`]).
    #[inline]
    pub fn merges_touching(self) -> bool {
        matches!(self, Conventions::Flink | Conventions::KafkaStreams)
    }

    /// Whether a merged window whose end the watermark has not passed goes back to its early
    /// phase (Beam Java's `AfterWatermarkStateMachine.AfterWatermarkEarlyAndLate.onMerge`
    /// rewinds; Beam Python's `AfterWatermark.on_merge` keeps the late phase if any merged
    /// window had reached it).
    pub fn rewinds_merged_windows(self) -> bool {
        !matches!(self, Conventions::BeamPython)
    }

    /// Whether a processing-time timer set for `at` is due at clock time `now`: Beam Java's
    /// `AfterDelayFromFirstElementStateMachine.shouldFire` asks that the clock be strictly
    /// after it (`isAfter`); Beam Python's driver and Flink's `InternalTimerService` fire it at
    /// `at` itself.
    #[inline]
    pub fn processing_timer_due(self, at: i64, now: i64) -> bool {
        match self {
            Conventions::Beam => at < now,
            _ => at <= now,
        }
    }

    /// Whether a window past its allowed lateness is garbage collected, its state cleared so
    /// that a later element starts it anew (Beam Java's garbage-collection timer; Flink's
    /// `WindowOperator.clearAllState` at `cleanupTime`; Kafka Streams' retention). Beam
    /// Python's trigger driver never collects a window: an expired session can be merged back.
    pub fn collects_windows(self) -> bool {
        !matches!(self, Conventions::BeamPython)
    }

    /// Whether a pane of the built-in trigger (`AfterWatermark(late=AfterCount(1))`, Beam's
    /// default), fired under watermark `wm` (+∞ at the end of input) for a window ending at
    /// `end` (`merging`: a session) with allowed lateness `lateness`, is its window's last
    /// (`PaneInfo.isLast`).
    ///
    /// - Beam Java: the pane fired as the watermark passes end + allowed lateness is the one
    ///   `ReduceFnRunner.onTimers` fires with the garbage-collection timer, `isFinished`; so
    ///   are those at the end of input, where the watermark passes every window's.
    /// - Kafka Streams: a window's one result, as it closes.
    /// - Flink: never. Its window operator has no `PaneInfo`: `EventTimeTrigger` never
    ///   finishes, and nothing tells a window function which firing is the last (the one at
    ///   `cleanupTime` is not marked), so the trigger route and scripts mark none either.
    /// - Beam Python: never. `trigger.py`'s `DefaultTrigger.on_fire` returns `False` (the
    ///   trigger never finishes) and `GeneralTriggerDriver` never collects a window, so its
    ///   panes are `PaneInfo(first=True, last=False, ON_TIME, 0, 0)`, past end + allowed
    ///   lateness and at the end of input alike.
    #[inline]
    pub fn last_pane(self, end: f64, wm: f64, lateness: f64, merging: bool) -> bool {
        match self {
            Conventions::BeamPython | Conventions::Flink => false,
            _ => wm == f64::INFINITY || self.drops(end, wm, lateness, merging),
        }
    }

    /// The end a session ending at `end` (ms, with session gap `gap`) is let go by, when the
    /// drop rule passes it: its own end where windows are garbage collected. Beam Python's
    /// driver never collects a window ([`Conventions::collects_windows`]): a late element
    /// whose own window is within lateness merges with the expired sessions it overlaps. The
    /// latest proto-window that still overlaps a session ending at `end` starts at `end − 1`
    /// and ends at `end − 1 + gap`; once that one is dropped no element can reach the
    /// session, which may then go.
    #[inline]
    pub fn session_kept_until(self, end: f64, gap: f64) -> f64 {
        if self.collects_windows() {
            end
        } else {
            end - 1.0 + gap
        }
    }

    /// Whether a window with elements not yet emitted fires a last pane when it is garbage
    /// collected (Beam Java's `ReduceFnRunner.onTimers` calls `onTrigger` with
    /// `isFinished`; Beam Python's trigger driver does not collect windows).
    pub fn fires_at_collection(self) -> bool {
        matches!(self, Conventions::Beam | Conventions::KafkaStreams)
    }

    /// Whether windows fire as the watermark passes their end (an ON_TIME pane) and again for
    /// late data; if not, a window emits its one result as it closes, past its grace. Kafka
    /// Streams has no watermark: with `emitStrategy(onWindowClose)` (or
    /// `suppress(untilWindowCloses)`) a window emits one final result when it closes,
    /// `KStreamWindowAggregate.maybeForwardFinalResult` once `windowEnd ≤ stream time −
    /// grace`.
    pub fn fires_on_watermark(self) -> bool {
        !matches!(self, Conventions::KafkaStreams)
    }

    /// Whether the engine has processing-time triggers (early panes). Kafka Streams has
    /// none: its updates come per record, or once at the close.
    pub fn has_early_panes(self) -> bool {
        !matches!(self, Conventions::KafkaStreams)
    }

    /// Whether time is the engine's stream time, the largest event time seen, the record
    /// itself counted before its fate is decided (Kafka Streams' `observedStreamTime`), in
    /// place of a watermark.
    pub fn uses_stream_time(self) -> bool {
        matches!(self, Conventions::KafkaStreams)
    }

    /// Whether a window with nothing new fires its on-time pane anyway (Beam's default
    /// `OnTimeBehavior.FIRE_ALWAYS`; Flink's `EventTimeTrigger` fires the window's contents,
    /// and an empty window has no state to fire).
    pub fn fires_empty_on_time_pane(self) -> bool {
        matches!(self, Conventions::Beam | Conventions::BeamPython)
    }
}

impl fmt::Display for Conventions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Conventions {
    type Err = String;

    /// Reads a convention's name, `beam-python`; an error names the value and the names.
    fn from_str(s: &str) -> Result<Conventions, String> {
        Conventions::from_name(s).ok_or_else(|| {
            let names: Vec<&str> = Conventions::ALL.iter().map(|c| c.name()).collect();
            format!(
                "{} is not a convention: give one of {}",
                quoted(s),
                names.join(", ")
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_drop_rules_differ_only_at_their_boundaries() {
        // Window [0, 10), allowed lateness 5: Beam Java drops at W = 15, Python keeps it
        // until W > 15, Flink drops from W = 14.
        let (end, l) = (10.0, 5.0);
        let drops = |c: Conventions, w: f64| c.drops(end, w, l, false);
        assert!(!drops(Conventions::Beam, 14.0) && drops(Conventions::Beam, 15.0));
        assert!(!drops(Conventions::BeamPython, 15.0) && drops(Conventions::BeamPython, 16.0));
        assert!(!drops(Conventions::Flink, 13.0) && drops(Conventions::Flink, 14.0));
        assert!(!drops(Conventions::KafkaStreams, 14.0) && drops(Conventions::KafkaStreams, 15.0));
        // Kafka Streams' sessions: dropped when the last record + gap + grace < stream time.
        let session = |w: f64| Conventions::KafkaStreams.drops(end, w, l, true);
        assert!(!session(15.0) && session(16.0));
        // The other engines' rules do not depend on the window's kind.
        for c in [
            Conventions::Beam,
            Conventions::BeamPython,
            Conventions::Flink,
        ] {
            for w in [13.0, 14.0, 15.0, 16.0] {
                assert_eq!(c.drops(end, w, l, true), drops(c, w));
            }
        }
    }

    #[test]
    fn touching_sessions_merge_in_flink_only() {
        let (a, b) = ((0, 10), (10, 20));
        assert!(!Conventions::Beam.sessions_merge(a, b));
        assert!(!Conventions::BeamPython.sessions_merge(a, b));
        assert!(Conventions::Flink.sessions_merge(a, b));
        assert!(Conventions::Flink.sessions_merge(b, a));
        assert!(!Conventions::Flink.sessions_merge((0, 10), (11, 20)));
    }

    #[test]
    fn names_round_trip() {
        for c in Conventions::ALL {
            assert_eq!(Conventions::from_name(c.name()), Some(c));
            assert_eq!(c.to_string().parse(), Ok(c));
        }
        assert_eq!(Conventions::default(), Conventions::Beam);
    }
}
