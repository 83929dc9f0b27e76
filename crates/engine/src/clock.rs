//! The clock a stream's times are read on, and how a time and a duration are written on it.
//!
//! The built-in scenarios count milliseconds from their start, and a person reads them as
//! seconds (`243.1s`). A user's log usually carries wall-clock times (epoch milliseconds),
//! which a person reads as dates and times of day in a time zone (`2013-01-01 05:15`), and
//! whose delays may be hours (`2h 45m`). A [`Stream`](crate::Stream) carries its `Clock`; every
//! place that writes a time for a person asks it, so the classroom stream reads exactly as it
//! always has and a log reads at its own scale. Machine outputs (JSON, the sinks) keep
//! milliseconds and never ask.
//!
//! The engine never looks a zone up by name (that reads a database): the reader of a log
//! resolves `--time-zone` and hands the zone in.

use crate::duration::Duration;
use jiff::tz::TimeZone;
use jiff::Timestamp;

/// What a stream's times count.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Clock {
    /// Milliseconds from the stream's start, written as seconds (`243.1s`): the built-in
    /// scenarios, and logs whose times are small numbers.
    #[default]
    Relative,
    /// Milliseconds since the Unix epoch, written as dates and times of day in a zone.
    Wall(Zone),
}

/// A time zone in force for a wall clock: where times without an offset were read, and where
/// every time is written.
#[derive(Debug, Clone, PartialEq)]
pub struct Zone {
    tz: TimeZone,
}

impl Zone {
    /// Coordinated Universal Time, the default.
    pub fn utc() -> Self {
        Zone { tz: TimeZone::UTC }
    }

    /// A zone the shell looked up (by IANA name, or a fixed offset).
    pub fn new(tz: TimeZone) -> Self {
        Zone { tz }
    }

    /// A zone a fixed distance from UTC, `seconds` east of it: UTC−05:00 is `-5 * 3600`.
    /// `None` beyond ±25:59:59, the offsets a zone can have.
    pub fn fixed(seconds: i32) -> Option<Self> {
        let offset = jiff::tz::Offset::from_seconds(seconds).ok()?;
        Some(Zone::new(TimeZone::fixed(offset)))
    }

    /// The zone itself, for reading civil times in it.
    pub fn time_zone(&self) -> &TimeZone {
        &self.tz
    }

    /// The zone's name as a person gives it: its IANA name (`America/New_York`), `UTC`, or its
    /// fixed offset (`UTC+05:30`).
    pub fn name(&self) -> String {
        if let Some(name) = self.tz.iana_name() {
            return name.to_string();
        }
        let offset = self.tz.to_fixed_offset().map(|o| o.seconds()).unwrap_or(0);
        if offset == 0 {
            "UTC".to_string()
        } else {
            let sign = if offset < 0 { '−' } else { '+' };
            let s = offset.unsigned_abs();
            format!("UTC{sign}{:02}:{:02}", s / 3600, s / 60 % 60)
        }
    }

    /// The zone's offset from UTC at the instant `ms` (epoch milliseconds), in ms: what a
    /// window falling on the zone's hours and days is shifted by.
    pub fn offset_ms(&self, ms: f64) -> i64 {
        let at = timestamp(ms).unwrap_or(Timestamp::UNIX_EPOCH);
        i64::from(self.tz.to_offset(at).seconds()) * 1000
    }
}

/// How much of a wall-clock time a place has room for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fit {
    /// The date and the time of day: `2013-01-01 05:15`.
    Date,
    /// The month, day and time of day: `01-01 05:15`.
    Day,
    /// The time of day alone: `05:15`, where the date is said nearby.
    Time,
    /// The time of day to the minute, seconds dropped: `05:15`, where five columns are all
    /// there is (an axis's labels).
    Minute,
}

impl Clock {
    /// A wall clock in UTC.
    pub fn wall_utc() -> Self {
        Clock::Wall(Zone::utc())
    }

    /// Whether times are wall-clock times.
    pub fn is_wall(&self) -> bool {
        matches!(self, Clock::Wall(_))
    }

    /// The zone in force, on a wall clock.
    pub fn zone(&self) -> Option<&Zone> {
        match self {
            Clock::Relative => None,
            Clock::Wall(zone) => Some(zone),
        }
    }

    /// An instant (an event or processing time, a watermark, a window's edge) as a person
    /// reads it: `243.1s` on a relative clock, `2013-01-01 05:15` on a wall clock (seconds and
    /// milliseconds only when they are not zero).
    pub fn at(&self, ms: f64) -> String {
        self.at_fit(ms, Fit::Date)
    }

    /// An instant in the room a place has: on a relative clock always `243.1s`.
    pub fn at_fit(&self, ms: f64, fit: Fit) -> String {
        match self {
            Clock::Relative => Duration::seconds(ms),
            Clock::Wall(zone) => wall(zone, ms, fit),
        }
    }

    /// A span of time from `start` to `end` (a window): `300–360s` on a relative clock, as the
    /// windows have always been written; `01-01 05:00–06:00` on a wall clock, the end's date
    /// said only when it is another day's (`01-01 23:00–01-02 01:00`; an end at midnight is
    /// the same day's `24:00`).
    pub fn span(&self, start: f64, end: f64, fit: Fit) -> String {
        match self {
            Clock::Relative => format!("{:.0}–{:.0}s", start / 1000.0, end / 1000.0),
            Clock::Wall(zone) => {
                let from = wall(zone, start, fit);
                let day = |ms: f64| {
                    wall(zone, ms, Fit::Date)
                        .chars()
                        .take(10)
                        .collect::<String>()
                };
                let to = if day(start) == day(end) || fit == Fit::Time || fit == Fit::Minute {
                    wall(zone, end, Fit::Time)
                } else if day(start) == day(end - 1.0) && wall(zone, end, Fit::Time) == "00:00" {
                    "24:00".to_string()
                } else {
                    wall(zone, end, fit)
                };
                format!("{from}–{to}")
            }
        }
    }

    /// The first instants of every `every`-th month (counted from January) from `from` to
    /// `to` (epoch ms), midnight in the zone: an axis's ticks over a log of months. None on a
    /// relative clock, whose times have no months.
    pub fn month_starts(&self, from: f64, to: f64, every: i8) -> Option<Vec<f64>> {
        let Clock::Wall(zone) = self else {
            return None;
        };
        let every = every.clamp(1, 12);
        let start = timestamp(from)?
            .to_zoned_datetime(zone.tz.clone())
            .datetime();
        let (mut year, mut month) = (start.year(), start.month());
        let mut out = Vec::new();
        while out.len() < 1_000 {
            if (month - 1) % every == 0 {
                let midnight = jiff::civil::Date::new(year, month, 1).ok()?.at(0, 0, 0, 0);
                let ms = zone.tz.to_timestamp(midnight).ok()?.as_millisecond() as f64;
                if ms > to {
                    break;
                }
                if ms >= from {
                    out.push(ms);
                }
            }
            (year, month) = if month == 12 {
                (year.checked_add(1)?, 1)
            } else {
                (year, month + 1)
            };
        }
        Some(out)
    }

    /// A month as an axis names it: `Jan`, and the year with it where it begins one
    /// (`2014`); on a relative clock the seconds, as ever.
    pub fn month_name(&self, ms: f64) -> String {
        let Clock::Wall(zone) = self else {
            return Duration::seconds(ms);
        };
        let Some(at) = timestamp(ms) else {
            return Duration::seconds(ms);
        };
        let civil = at.to_zoned_datetime(zone.tz.clone()).datetime();
        const NAMES: [&str; 12] = [
            "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
        ];
        if civil.month() == 1 {
            civil.year().to_string()
        } else {
            NAMES[usize::try_from(civil.month() - 1).unwrap_or(0).min(11)].to_string()
        }
    }

    /// A duration (a delay, a lag, a grace, an emit delay) as a person reads it: `243.1s` on a
    /// relative clock, in the largest sensible units on a wall clock ([`Duration::human`]).
    pub fn duration(&self, ms: f64) -> String {
        match self {
            Clock::Relative => Duration::seconds(ms),
            Clock::Wall(_) => Duration::human(ms),
        }
    }
}

/// How a duration reads on each clock: [`Clock::duration`] picks one.
impl Duration {
    /// Milliseconds as seconds with one decimal (`243.1s`), `−∞`/`∞` at the ends, `—` for NaN.
    pub fn seconds(ms: f64) -> String {
        if ms.is_nan() {
            "—".to_string()
        } else if ms == f64::NEG_INFINITY {
            "−∞".to_string()
        } else if ms == f64::INFINITY {
            "∞".to_string()
        } else {
            format!("{:.1}s", ms / 1000.0)
        }
    }

    /// A duration in the largest sensible units, at most two of them: `350ms`, `1.5s`, `90s`,
    /// `2m 30s`, `2h 45m`, `3d 4h`. A value under two of a unit is written in the next smaller
    /// one (`90s`, `90m`), as people say it; the smaller unit is dropped when it is zero and
    /// rounded to a whole one. Negative durations carry a minus sign (`−53s`).
    pub fn human(ms: f64) -> String {
        if ms.is_nan() {
            return "—".to_string();
        }
        if ms.is_infinite() {
            return if ms > 0.0 { "∞" } else { "−∞" }.to_string();
        }
        let sign = if ms < 0.0 { "−" } else { "" };
        let ms = ms.abs();
        const S: f64 = 1000.0;
        const M: f64 = 60.0 * S;
        const H: f64 = 60.0 * M;
        const D: f64 = 24.0 * H;
        let body = if ms < S {
            trimmed(ms, 1) + "ms"
        } else if ms < 2.0 * M {
            trimmed(ms / S, 1) + "s"
        } else if ms < 2.0 * H {
            two_units(ms, M, "m", S, "s")
        } else if ms < 2.0 * D {
            two_units(ms, H, "h", M, "m")
        } else {
            two_units(ms, D, "d", H, "h")
        };
        format!("{sign}{body}")
    }
}

/// `ms` as whole `big` units and the rest rounded to whole `small` ones (`2h 45m`), the rest
/// left out when it rounds to zero.
fn two_units(ms: f64, big: f64, big_name: &str, small: f64, small_name: &str) -> String {
    let smalls = (ms / small).round() as i64;
    let per = (big / small).round() as i64;
    let (b, s) = (smalls / per, smalls % per);
    if s == 0 {
        format!("{b}{big_name}")
    } else {
        format!("{b}{big_name} {s}{small_name}")
    }
}

/// A number with at most `decimals` decimals and no trailing zeros (`1.5`, `90`).
fn trimmed(v: f64, decimals: usize) -> String {
    let text = format!("{v:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

fn timestamp(ms: f64) -> Option<Timestamp> {
    if !ms.is_finite() {
        return None;
    }
    let whole = ms.floor();
    let nanos = ((ms - whole) * 1e6).round() as i64;
    Timestamp::from_millisecond(whole as i64)
        .ok()?
        .checked_add(jiff::SignedDuration::from_nanos(nanos))
        .ok()
}

/// A wall-clock time in `zone`, fitted to `fit`.
fn wall(zone: &Zone, ms: f64, fit: Fit) -> String {
    if ms.is_nan() {
        return "—".to_string();
    }
    if ms.is_infinite() {
        return if ms > 0.0 { "∞" } else { "−∞" }.to_string();
    }
    let Some(at) = timestamp(ms) else {
        return Duration::seconds(ms);
    };
    let civil = at.to_zoned_datetime(zone.tz.clone()).datetime();
    let date = match fit {
        Fit::Date => format!(
            "{:04}-{:02}-{:02} ",
            civil.year(),
            civil.month(),
            civil.day()
        ),
        Fit::Day => format!("{:02}-{:02} ", civil.month(), civil.day()),
        Fit::Time | Fit::Minute => String::new(),
    };
    if fit == Fit::Minute {
        return format!("{:02}:{:02}", civil.hour(), civil.minute());
    }
    let mut time = format!("{:02}:{:02}", civil.hour(), civil.minute());
    let (second, milli) = (civil.second(), civil.subsec_nanosecond() / 1_000_000);
    if second != 0 || milli != 0 {
        time += &format!(":{second:02}");
    }
    if milli != 0 {
        time += &format!(".{milli:03}");
    }
    date + &time
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_in_the_largest_sensible_units() {
        for (ms, text) in [
            (0.0, "0ms"),
            (350.0, "350ms"),
            (1_500.0, "1.5s"),
            (90_000.0, "90s"),
            (150_000.0, "2m 30s"),
            (120_000.0, "2m"),
            (5_400_000.0, "90m"),
            (9_900_000.0, "2h 45m"),
            (21.0 * 3_600_000.0, "21h"),
            (76.0 * 3_600_000.0, "3d 4h"),
            (-53_042.0, "−53s"),
            (f64::INFINITY, "∞"),
        ] {
            assert_eq!(Duration::human(ms), text, "{ms}");
        }
    }

    #[test]
    fn a_relative_clock_reads_as_it_always_has() {
        let clock = Clock::Relative;
        assert_eq!(clock.at(243_100.0), "243.1s");
        assert_eq!(clock.duration(20_000.0), "20.0s");
        assert_eq!(clock.at_fit(f64::NEG_INFINITY, Fit::Time), "−∞");
    }

    #[test]
    fn a_wall_clock_reads_dates_in_its_zone() {
        let utc = Clock::wall_utc();
        let ms = 1_357_017_300_000.0; // 2013-01-01T05:15:00Z
        assert_eq!(utc.at(ms), "2013-01-01 05:15");
        assert_eq!(utc.at_fit(ms, Fit::Day), "01-01 05:15");
        assert_eq!(utc.at_fit(ms + 30_250.0, Fit::Time), "05:15:30.250");
        assert_eq!(utc.duration(9_900_000.0), "2h 45m");
        let five_behind = Clock::Wall(Zone::new(TimeZone::fixed(
            jiff::tz::Offset::from_hours(-5).unwrap(),
        )));
        assert_eq!(five_behind.at(ms), "2013-01-01 00:15");
        assert_eq!(five_behind.zone().unwrap().name(), "UTC−05:00");
        assert_eq!(five_behind.zone().unwrap().offset_ms(ms), -5 * 3_600_000);
        assert_eq!(Zone::fixed(-5 * 3600).as_ref(), five_behind.zone());
        assert_eq!(Zone::fixed(5 * 3600 + 1800).unwrap().name(), "UTC+05:30");
        assert_eq!(Zone::fixed(0).unwrap().name(), "UTC");
        assert!(Zone::fixed(26 * 3600).is_none());
    }

    #[test]
    fn spans_and_minutes_read_as_a_person_says_them() {
        let relative = Clock::Relative;
        assert_eq!(relative.span(300_000.0, 360_000.0, Fit::Day), "300–360s");
        assert_eq!(relative.at_fit(243_100.0, Fit::Minute), "243.1s");
        let utc = Clock::wall_utc();
        let h = 3_600_000.0;
        let five = 1_357_016_400_000.0; // 2013-01-01T05:00:00Z
        assert_eq!(utc.span(five, five + h, Fit::Day), "01-01 05:00–06:00");
        assert_eq!(utc.span(five, five + h, Fit::Time), "05:00–06:00");
        assert_eq!(
            utc.span(five + 18.0 * h, five + 19.0 * h, Fit::Day),
            "01-01 23:00–24:00"
        );
        assert_eq!(
            utc.span(five + 18.0 * h, five + 20.0 * h, Fit::Date),
            "2013-01-01 23:00–2013-01-02 01:00"
        );
        assert_eq!(utc.at_fit(five + 30_250.0, Fit::Minute), "05:00");
    }

    #[test]
    fn months_start_at_midnight_in_the_zone() {
        let utc = Clock::wall_utc();
        let jan = 1_356_998_400_000.0; // 2013-01-01T00:00:00Z
        let year = 365.0 * 86_400_000.0;
        let quarters = utc.month_starts(jan - 1.0, jan + year, 3).unwrap();
        let names: Vec<String> = quarters.iter().map(|&m| utc.month_name(m)).collect();
        assert_eq!(names, ["2013", "Apr", "Jul", "Oct", "2014"]);
        assert_eq!(quarters[0], jan);
        let five_behind = Clock::Wall(Zone::new(TimeZone::fixed(
            jiff::tz::Offset::from_hours(-5).unwrap(),
        )));
        let feb = five_behind
            .month_starts(jan, jan + 40.0 * 86_400_000.0, 1)
            .unwrap();
        let h = 3_600_000.0;
        assert_eq!(feb, [jan + 5.0 * h, jan + 31.0 * 24.0 * h + 5.0 * h]);
        assert_eq!(Clock::Relative.month_starts(0.0, year, 1), None);
    }
}
