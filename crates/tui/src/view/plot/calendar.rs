//! The axes of a wall-clock log: ticks on whole minutes, hours, days or months in the clock's
//! zone, as many as fit apart, labelled with the time of day (`06:00`), at midnight with the
//! date (`01-02`), and over months with the month (`Apr`, a year's first as the year, `2014`),
//! so the days a plot spans can be told apart.

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

/// How long a month is, near enough to choose how many a tick steps over, ms.
const MONTH: f64 = 30.44 * 86_400_000.0;

/// How long an axis must span for its ends to be named by month rather than by day, ms.
const MONTHS_FROM: f64 = 60.0 * 86_400_000.0;

/// The ticks between `x.0` and `x.1` (ms) on an axis `width` columns wide, each with its
/// label: the smallest step whose labels fit apart, on whole steps in the clock's zone (a
/// day's tick at local midnight, a month's on its first day).
pub(super) fn ticks(clock: &Clock, x: (f64, f64), width: u16) -> Vec<(f64, String)> {
    let span = x.1 - x.0;
    let most = (f64::from(width) / LABEL_COLUMNS).max(1.0);
    if !(span.is_finite() && span > 0.0) {
        return Vec::new();
    }
    let Some(step) = STEPS.iter().copied().find(|&s| span / s <= most) else {
        let every = [1, 2, 3, 6, 12]
            .into_iter()
            .find(|&m| span / (f64::from(m) * MONTH) <= most)
            .unwrap_or(12);
        return clock
            .month_starts(x.0, x.1, every)
            .unwrap_or_default()
            .into_iter()
            .map(|at| (at, clock.month_name(at)))
            .collect();
    };
    let offset = clock.zone().map_or(0, |z| z.offset_ms(x.0)) as f64;
    let first = ((x.0 + offset) / step).ceil() * step - offset;
    (0..)
        .map(|i| first + f64::from(i) * step)
        .take_while(|&t| t <= x.1)
        .take(1_000)
        .map(|at| (at, label(clock, at)))
        .collect()
}

/// The label of an axis's end that spans `span` ms: the month over months (`Apr`, `2014`),
/// the date over days (`01-04`), else the time of day (`05:17`).
pub(super) fn end_label(clock: &Clock, at: f64, span: f64) -> String {
    if span > MONTHS_FROM {
        clock.month_name(at)
    } else if span > 86_400_000.0 {
        date(clock, at)
    } else {
        clock.at_fit(at, Fit::Minute)
    }
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
        assert_eq!(t[1].0 - t[0].0, 6.0 * 3_600_000.0);
        let labels: Vec<&str> = t.iter().map(|(_, l)| l.as_str()).collect();
        assert_eq!(labels[..4], ["06:00", "12:00", "18:00", "01-02"]);
    }

    #[test]
    fn a_year_is_ticked_by_months() {
        let clock = Clock::wall_utc();
        let jan = 1_356_998_400_000.0; // 2013-01-01T00:00:00Z
        let t = ticks(&clock, (jan, jan + 365.0 * 86_400_000.0), 70);
        let labels: Vec<&str> = t.iter().map(|(_, l)| l.as_str()).collect();
        assert_eq!(labels, ["2013", "Mar", "May", "Jul", "Sep", "Nov", "2014"]);
        assert_eq!(end_label(&clock, jan, 365.0 * 86_400_000.0), "2013");
        assert_eq!(end_label(&clock, jan, 3.0 * 86_400_000.0), "01-01");
        assert_eq!(end_label(&clock, jan, 3_600_000.0), "00:00");
    }
}
