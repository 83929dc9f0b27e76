//! Why an event met its fate in one of its windows, in a sentence with the inequality in
//! numbers, as the inspector shows it: the engine gives the facts (the window, the fate, the
//! watermark at the event's arrival, the grace, whose conventions decided it); the sentence is
//! the screen's.

use twoclocks_engine::duration::Duration;
use twoclocks_engine::timeline::Inspection;
use twoclocks_engine::{Conventions, Fate, WindowId};

/// The sentence that says why the inspected event met `fate` in `window`, under the
/// conventions its run followed: the engine's own inequality, e.g. `window [180.0s, 240.0s)
/// ends at 240.0s; watermark at arrival 243.1s − grace 0s ≥ 240.0s: dropped`.
pub fn sentence(inspection: &Inspection, window: WindowId, fate: Fate) -> String {
    explain_under(
        inspection.conventions,
        fate,
        window.start(),
        window.end(),
        inspection.watermark,
        inspection.grace,
        inspection.merging,
    )
}

/// The sentence that explains a fate, with the inequality in numbers, e.g.
/// `window [180s, 240s) ends at 240s; watermark at arrival 243.1s − grace 0s ≥ 240s: dropped`.
fn explain(fate: Fate, window_start: f64, window_end: f64, wm: f64, grace: f64) -> String {
    let win = format!(
        "window [{}, {}) ends at {}",
        Duration::seconds(window_start),
        Duration::seconds(window_end),
        Duration::seconds(window_end)
    );
    match fate {
        Fate::Dropped => format!(
            "{win}; watermark at arrival {} − grace {} ≥ {}: dropped",
            Duration::seconds(wm),
            Duration::short(grace),
            Duration::seconds(window_end)
        ),
        Fate::Late => format!(
            "{win}; watermark at arrival {} ≥ {} but {} − grace {} < {}: late, kept",
            Duration::seconds(wm),
            Duration::seconds(window_end),
            Duration::seconds(wm),
            Duration::short(grace),
            Duration::seconds(window_end)
        ),
        Fate::OnTime => format!(
            "{win}; watermark at arrival {} < {}: on time",
            Duration::seconds(wm),
            Duration::seconds(window_end)
        ),
    }
}

/// [`explain`] under `conventions`: the engine's own inequality, to the millisecond (its
/// rules differ from Beam Java's by one millisecond or one comparison).
fn explain_under(
    conventions: Conventions,
    fate: Fate,
    window_start: f64,
    window_end: f64,
    wm: f64,
    grace: f64,
    merging: bool,
) -> String {
    let ms = |t: f64| {
        if t.is_finite() {
            format!("{:.3}s", t / 1000.0)
        } else {
            Duration::seconds(t)
        }
    };
    let win = format!(
        "window [{}, {}) ends at {}",
        ms(window_start),
        ms(window_end),
        ms(window_end)
    );
    let (e, w, g) = (ms(window_end), ms(wm), Duration::short(grace));
    match conventions {
        Conventions::Beam => explain(fate, window_start, window_end, wm, grace),
        Conventions::KafkaStreams => {
            // A session is closed strictly past its grace, a time window at it.
            let (closed, open) = if merging {
                (
                    format!("{e} + grace {g} < stream time at arrival {w}"),
                    format!("not > {e} + grace {g}"),
                )
            } else {
                (
                    format!("{e} ≤ stream time at arrival {w} − grace {g}"),
                    format!("{e} > {w} − grace {g}"),
                )
            };
            match fate {
                Fate::Dropped => format!("{win}; Kafka Streams: {closed}: dropped"),
                Fate::Late => format!(
                    "{win}; Kafka Streams: stream time at arrival {w} ≥ {e} but {open}: late, kept"
                ),
                Fate::OnTime => {
                    format!("{win}; Kafka Streams: stream time at arrival {w} < {e}: on time")
                }
            }
        }
        Conventions::Flink => {
            let m = ms(window_end - 1.0);
            match fate {
                Fate::Dropped => format!(
                    "{win}; Flink: maxTimestamp {m} + allowed lateness {g} ≤ watermark at arrival {w}: dropped"
                ),
                Fate::Late => format!(
                    "{win}; Flink: watermark at arrival {w} ≥ maxTimestamp {m} but {m} + allowed lateness {g} > {w}: late, kept"
                ),
                Fate::OnTime => format!(
                    "{win}; Flink: watermark at arrival {w} < maxTimestamp {m}: on time"
                ),
            }
        }
        Conventions::BeamPython => match fate {
            Fate::Dropped => format!(
                "{win}; Beam Python: watermark at arrival {w} > {e} + allowed lateness {g}: dropped"
            ),
            Fate::Late => format!(
                "{win}; Beam Python: watermark at arrival {w} ≥ {e} but not > {e} + allowed lateness {g}: late, kept"
            ),
            Fate::OnTime => format!("{win}; Beam Python: watermark at arrival {w} < {e}: on time"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explanation_names_the_numbers() {
        let s = explain(Fate::Dropped, 180_000.0, 240_000.0, 243_100.0, 0.0);
        assert_eq!(
            s,
            "window [180.0s, 240.0s) ends at 240.0s; watermark at arrival 243.1s − grace 0s ≥ 240.0s: dropped"
        );
    }
}
