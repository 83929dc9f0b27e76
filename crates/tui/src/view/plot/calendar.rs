//! The event-time axis of a wall-clock log: ticks on whole minutes, hours and days in the
//! clock's zone, as many as fit apart, labelled with the time of day (`06:00`) and, at
//! midnight, with the date (`01-02`), so the days a plot spans can be told apart.

use twoclocks_engine::clock::{Clock, Fit};

/// Room one label takes on the axis, with the space after it.
const LABEL_COLUMNS: f64 = 7.0;

/// The steps a tick may take, ms: whole minutes, hours, days, weeks.
const STEPS: [f64; 14] = [
    60_000.0,
    120_000.0,
    300_000.0,
    600_000.0,
    900_000.0,
    1_800_000.0,
    3_600_000.0,
    7_200_000.0,
    10_800_000.0,
    21_600_000.0,
    43_200_000.0,
    86_400_000.0,
    172_800_000.0,
    604_800_000.0,
];

/// The ticks between `x.0` and `x.1` (ms) on an axis `width` columns wide: the smallest step
/// whose labels fit apart, on whole steps in the clock's zone (a day's tick at local midnight).
pub(super) fn ticks(clock: &Clock, x: (f64, f64), width: u16) -> Vec<f64> {
    let span = x.1 - x.0;
    let most = (f64::from(width) / LABEL_COLUMNS).max(1.0);
    if !(span.is_finite() && span > 0.0) {
        return Vec::new();
    }
    let step = STEPS
        .iter()
        .copied()
        .find(|&s| span / s <= most)
        .unwrap_or_else(|| (span / most / STEPS[11]).ceil() * STEPS[11]);
    let offset = clock.zone().map_or(0, |z| z.offset_ms(x.0)) as f64;
    let first = ((x.0 + offset) / step).ceil() * step - offset;
    (0..)
        .map(|i| first + f64::from(i) * step)
        .take_while(|&t| t <= x.1)
        .take(1_000)
        .collect()
}

/// A tick's label: the time of day (`06:00`), or the date at midnight (`01-02`).
pub(super) fn label(clock: &Clock, at: f64) -> String {
    let time = clock.at_fit(at, Fit::Minute);
    if time == "00:00" {
        date(clock, at)
    } else {
        time
    }
}

/// The month and day of an instant (`01-02`).
pub(super) fn date(clock: &Clock, at: f64) -> String {
    clock
        .at_fit(at, Fit::Day)
        .split(' ')
        .next()
        .unwrap_or_default()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_fall_on_whole_hours_and_midnight_reads_as_the_date() {
        let clock = Clock::wall_utc();
        let five = 1_357_016_400_000.0; // 2013-01-01T05:00:00Z
        let x = (five - 1_800_000.0, five + 48.0 * 3_600_000.0);
        let t = ticks(&clock, x, 70);
        assert_eq!(t[1] - t[0], 6.0 * 3_600_000.0);
        let labels: Vec<String> = t.iter().map(|&at| label(&clock, at)).collect();
        assert_eq!(labels[..4], ["06:00", "12:00", "18:00", "01-02"]);
    }
}
