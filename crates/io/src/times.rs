//! The clock a log's times are on, decided in this one place from what its rows held: a log
//! is on a wall clock ([`Clock::Wall`]) when a time in it was written as a date (a text such
//! as `2013-01-01T05:15:00`, or a Parquet timestamp), or when every time read lies where the
//! epoch milliseconds of real dates lie ([`WALL_FROM_MS`] to [`WALL_UNTIL_MS`], 1990 to 2100);
//! any other log counts from its start ([`Clock::Relative`]), as the built-in scenarios do,
//! and so does the classroom stream written out by `stream` and read back.

use jiff::tz::TimeZone;

use twoclocks_engine::clock::{Clock, Zone};

/// What a timestamp's number counts, or that it is a date written as text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeFormat {
    /// Milliseconds since the epoch.
    Ms,
    /// Seconds.
    S,
    /// Microseconds.
    Us,
    /// Nanoseconds.
    Ns,
    /// A date such as 2026-12-04T08:00:00.250Z or 2026-12-04 08:00:00.
    Rfc3339,
}

impl TimeFormat {
    /// Every time format, in the order `--help` lists them.
    pub const ALL: [TimeFormat; 5] = [
        TimeFormat::Ms,
        TimeFormat::S,
        TimeFormat::Us,
        TimeFormat::Ns,
        TimeFormat::Rfc3339,
    ];

    /// The unit's name as the flag spells it.
    pub fn name(self) -> &'static str {
        match self {
            TimeFormat::Ms => "ms",
            TimeFormat::S => "s",
            TimeFormat::Us => "us",
            TimeFormat::Ns => "ns",
            TimeFormat::Rfc3339 => "rfc3339",
        }
    }

    /// `v` units in milliseconds: multiplied for seconds, divided by a power of ten for the
    /// smaller units (a division is rounded once, exactly as SQL's `v / 1000` is, where a
    /// product with 0.001 is not); a date has no unit, and a number is ms.
    pub(crate) fn to_ms(self, v: f64) -> f64 {
        match self {
            TimeFormat::Ms | TimeFormat::Rfc3339 => v,
            TimeFormat::S => v * 1000.0,
            TimeFormat::Us => v / 1e3,
            TimeFormat::Ns => v / 1e6,
        }
    }
}

impl std::str::FromStr for TimeFormat {
    type Err = String;

    /// The format `--time-format` names: `ms`, `s`, `us`, `ns` or `rfc3339`, exactly.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        TimeFormat::ALL
            .into_iter()
            .find(|f| f.name() == text)
            .ok_or_else(|| {
                format!(
                    "{} is not a time format: ms, s, us, ns or rfc3339",
                    crate::quote::quoted(text)
                )
            })
    }
}

impl std::fmt::Display for TimeFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// 1990-01-01T00:00:00Z in epoch milliseconds: the earliest time a log of numbers may hold
/// and be taken for wall-clock times.
pub const WALL_FROM_MS: f64 = 631_152_000_000.0;

/// 2100-01-01T00:00:00Z in epoch milliseconds: every time of a log of numbers taken for
/// wall-clock times is before it.
pub const WALL_UNTIL_MS: f64 = 4_102_444_800_000.0;

/// How a row's times were written, as far as the clock and the notes care: numbers, dates,
/// dates without an offset (read in the zone in force), or both kinds of date.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Spelling(u8);

impl Spelling {
    /// A number (in the `--time-format` unit, ms by default).
    pub const NUMBER: Spelling = Spelling(0);
    /// A date naming its instant: a text with an offset (`Z`, `+01:00`), or a Parquet
    /// timestamp adjusted to UTC.
    pub const DATE: Spelling = Spelling(1);
    /// A date without an offset (`2013-01-01 05:15:00`, a Parquet timestamp not adjusted to
    /// UTC): a civil time, read in the zone in force.
    pub const LOCAL_DATE: Spelling = Spelling(1 | 2);

    /// A row's spelling from its times': every kind either was.
    #[inline]
    pub fn or(self, other: Spelling) -> Spelling {
        Spelling(self.0 | other.0)
    }

    /// Whether a time was a date.
    #[inline]
    pub fn is_date(self) -> bool {
        self.0 & 1 != 0
    }

    /// Whether a time was a date without an offset.
    #[inline]
    pub fn is_local(self) -> bool {
        self.0 & 2 != 0
    }
}

/// What the rows read so far say of their clock: whether a time was written as a date, and
/// the range of the times read (after `--time-format`, in ms).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClockEvidence {
    spelling: Spelling,
    earliest: f64,
    latest: f64,
    /// The first time read (the first row's event time), for a note's example.
    first: f64,
}

impl Default for ClockEvidence {
    fn default() -> Self {
        ClockEvidence {
            spelling: Spelling::NUMBER,
            earliest: f64::INFINITY,
            latest: f64::NEG_INFINITY,
            first: f64::NAN,
        }
    }
}

impl ClockEvidence {
    /// A row kept had a time spelled so.
    #[inline]
    pub fn spelled(&mut self, spelling: Spelling) {
        self.spelling = self.spelling.or(spelling);
    }

    /// A time of a row kept, read as `ms`.
    #[inline]
    pub fn time(&mut self, ms: f64) {
        if self.first.is_nan() {
            self.first = ms;
        }
        if ms < self.earliest {
            self.earliest = ms;
        }
        if ms > self.latest {
            self.latest = ms;
        }
    }

    /// The clock of the rows seen, its wall-clock times written in `zone`: a wall clock when a
    /// time was written as a date or every time lies between 1990 and 2100 as epoch
    /// milliseconds, else relative (and so with no row seen).
    pub fn clock(&self, zone: &Zone) -> Clock {
        if self.spelling.is_date() || self.between_1990_and_2100(|ms| ms) {
            Clock::Wall(zone.clone())
        } else {
            Clock::Relative
        }
    }

    /// Whether every time seen, converted by `to_ms`, lies between 1990 and 2100 (none seen:
    /// no).
    fn between_1990_and_2100(&self, to_ms: impl Fn(f64) -> f64) -> bool {
        self.earliest <= self.latest
            && to_ms(self.earliest) >= WALL_FROM_MS
            && to_ms(self.latest) < WALL_UNTIL_MS
    }

    /// The notes a log's times call for, each a line naming the log (`name`), read with
    /// `format` and `zone` (`None`: not named): dates without an offset read in UTC because
    /// no zone was named; numbers read as milliseconds that lie between 1990 and 2100 only
    /// as epoch seconds or microseconds, with the `--time-format` that reads them so and the
    /// first time as an example.
    pub fn notes(
        &self,
        name: &str,
        format: Option<TimeFormat>,
        zone: Option<&Zone>,
    ) -> Vec<String> {
        let mut notes = Vec::new();
        if self.spelling.is_local() && zone.is_none() {
            notes.push(format!(
                "{name}: times without an offset are read in UTC (--time-zone names another zone)"
            ));
        }
        if format.is_none() && !self.spelling.is_date() && !self.between_1990_and_2100(|ms| ms) {
            for unit in [TimeFormat::S, TimeFormat::Us] {
                if self.between_1990_and_2100(|v| unit.to_ms(v)) {
                    let utc = Zone::utc();
                    let zone = zone.unwrap_or(&utc);
                    let example = if self.first.fract() == 0.0 {
                        format!("{:.0}", self.first)
                    } else {
                        format!("{}", self.first)
                    };
                    notes.push(format!(
                        "{name}: the times look like epoch {words}, not milliseconds ({example} \
                         read as {words} is {} {}); --time-format {} reads them so",
                        Clock::Wall(zone.clone()).at(unit.to_ms(self.first)),
                        zone.name(),
                        unit.name(),
                        words = unit.words(),
                    ));
                    break;
                }
            }
        }
        notes
    }
}

/// The zone `--time-zone` names: an IANA name (`America/New_York`, looked up in the time zone
/// database built into the program, so no system database is needed), `UTC`, or a fixed
/// offset (`+05:30`, `-0500`, `+01`, also after `UTC`), or the error saying what was given and
/// what is taken.
pub fn zone_named(name: &str) -> Result<Zone, String> {
    let text = name.trim();
    if let Some(offset) = fixed_offset(text) {
        return Ok(Zone::new(TimeZone::fixed(offset)));
    }
    if let Ok(tz) = jiff::tz::db().get(text) {
        return Ok(Zone::new(tz));
    }
    let lower = format!("/{}", text.to_lowercase().replace(' ', "_"));
    let near = jiff::tz::db()
        .available()
        .find(|n| n.as_str().to_lowercase().ends_with(&lower));
    let hint = match near {
        Some(n) => format!("; did you mean {}?", n.as_str()),
        None => String::new(),
    };
    Err(format!(
        "{} is not a time zone: give an IANA name such as America/New_York, UTC, or an \
         offset such as +05:30{hint}",
        crate::quote::quoted(name)
    ))
}

/// A fixed offset as written: `Z`, `UTC`, `GMT`, or `±HH`, `±HHMM`, `±HH:MM`, alone or after
/// `UTC` or `GMT`.
fn fixed_offset(text: &str) -> Option<jiff::tz::Offset> {
    let upper = text.to_ascii_uppercase();
    let rest = upper
        .strip_prefix("UTC")
        .or_else(|| upper.strip_prefix("GMT"))
        .unwrap_or(&upper);
    if rest.is_empty() || rest == "Z" {
        return (!upper.is_empty()).then_some(jiff::tz::Offset::UTC);
    }
    let b = rest.as_bytes();
    let sign = match b[0] {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let digits: Vec<u8> = b[1..].iter().copied().filter(|&c| c != b':').collect();
    if !digits.iter().all(u8::is_ascii_digit) || b[1..].iter().filter(|&&c| c == b':').count() > 1 {
        return None;
    }
    let number = |d: &[u8]| d.iter().fold(0i32, |n, &c| n * 10 + i32::from(c - b'0'));
    let (hours, minutes) = match digits.len() {
        1 | 2 => (number(&digits), 0),
        4 => (number(&digits[..2]), number(&digits[2..])),
        _ => return None,
    };
    if hours > 25 || minutes > 59 {
        return None;
    }
    jiff::tz::Offset::from_seconds(sign * (hours * 3600 + minutes * 60)).ok()
}

/// The date an error gives as an example: every part a date may have (a space for the `T`,
/// and the seconds, decimals and offset left out, are taken too).
pub const DATE_EXAMPLE: &str = "2013-01-01T05:15:00.250+01:00";

/// A date as written: its civil date and time of day, and its offset from UTC in seconds
/// when one is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Civil {
    year: i16,
    month: i8,
    day: i8,
    hour: i8,
    minute: i8,
    second: i8,
    nanosecond: i32,
    offset: Option<i32>,
}

/// The date `text` in nanoseconds since the epoch and how it was spelled ([`Spelling::DATE`]
/// with an offset or a zone named in brackets, [`Spelling::LOCAL_DATE`] without, read in
/// `zone`, UTC when `None`), or `None` when it is not a date. It takes ISO 8601's and SQL's
/// spellings: `2013-01-01T05:15:00`, a space, `T` or `t` between date and time, seconds with
/// up to nine decimals or no seconds at all (`05:15`), a bare date (its midnight), offsets
/// `Z`, `z`, `+01:00`, `-0500`, `+01`, an RFC 9557 zone in brackets. A local time that does
/// not exist in the zone (the hour skipped when clocks go forward) is read as the same
/// length of time after the hour before it, and one that occurs twice (the hour repeated
/// when clocks go back) as the first of the two (jiff's "compatible" rule, RFC 5545's).
pub fn date_nanos(text: &str, zone: Option<&Zone>) -> Option<(i128, Spelling)> {
    match common(text.as_bytes()) {
        Some(civil) => {
            let spelling = match civil.offset {
                Some(_) => Spelling::DATE,
                None => Spelling::LOCAL_DATE,
            };
            Some((civil_nanos(&civil, zone)?, spelling))
        }
        None => any_spelling(text, zone),
    }
}

/// [`date_nanos`] in milliseconds, as every time is read: whole milliseconds exactly (a float
/// of the nanoseconds, past 2^53, would round `.250` to `.2499998`), and the rest added.
#[inline]
pub fn date_ms(text: &str, zone: Option<&Zone>) -> Option<(f64, Spelling)> {
    date_nanos(text, zone).map(|(nanos, spelling)| (nanos_ms(nanos), spelling))
}

/// Nanoseconds as milliseconds, whole ones exact.
#[inline]
fn nanos_ms(nanos: i128) -> f64 {
    let (whole, rest) = (nanos.div_euclid(1_000_000), nanos.rem_euclid(1_000_000));
    if rest == 0 {
        whole as f64
    } else {
        whole as f64 + rest as f64 / 1e6
    }
}

/// The instant, in epoch ms, of the civil time that `ms` reads as in UTC, read in `zone`
/// instead (a Parquet timestamp not adjusted to UTC), by [`date_nanos`]'s rule for the hours
/// that do not exist or occur twice; `None` past the years a date may have.
pub fn civil_ms_in(ms: f64, zone: &Zone) -> Option<f64> {
    let tz = zone.time_zone();
    if let Ok(offset) = tz.to_fixed_offset() {
        return Some(ms - f64::from(offset.seconds()) * 1000.0);
    }
    let whole = ms.floor();
    let at = jiff::Timestamp::from_millisecond(whole as i64).ok()?;
    let civil = TimeZone::UTC.to_datetime(at);
    let there = tz.to_ambiguous_timestamp(civil).compatible().ok()?;
    Some(ms + (there.as_millisecond() - whole as i64) as f64)
}

/// Two digits at `at`.
#[inline]
fn two(b: &[u8], at: usize) -> Option<i8> {
    let (h, l) = (
        b.get(at)?.wrapping_sub(b'0'),
        b.get(at + 1)?.wrapping_sub(b'0'),
    );
    (h < 10 && l < 10).then(|| (h * 10 + l) as i8)
}

/// The common spellings, read by hand for speed (a log holds millions of them):
/// `YYYY-MM-DD`, then optionally `T`, `t` or a space and `HH:MM`, `:SS`, `.` and one to nine
/// digits, and an offset `Z`, `z`, `±HH`, `±HHMM` or `±HH:MM`; each field in its range. Any
/// other text (a leap second, a zone in brackets, a comma before the decimals…) is left to
/// [`any_spelling`], which reads these the same (a test holds the two to it).
#[inline]
fn common(b: &[u8]) -> Option<Civil> {
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let year = i16::from(two(b, 0)?) * 100 + i16::from(two(b, 2)?);
    let mut c = Civil {
        year,
        month: two(b, 5)?,
        day: two(b, 8)?,
        hour: 0,
        minute: 0,
        second: 0,
        nanosecond: 0,
        offset: None,
    };
    let mut i = 10;
    if i < b.len() {
        if !matches!(b[i], b'T' | b't' | b' ') || b.get(i + 3) != Some(&b':') {
            return None;
        }
        c.hour = two(b, i + 1)?;
        c.minute = two(b, i + 4)?;
        i += 6;
        if b.get(i) == Some(&b':') {
            c.second = two(b, i + 1)?;
            i += 3;
            if b.get(i) == Some(&b'.') {
                i += 1;
                let from = i;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                let digits = i - from;
                if digits == 0 || digits > 9 {
                    return None;
                }
                let mut nanos = 0i32;
                for &d in &b[from..i] {
                    nanos = nanos * 10 + i32::from(d - b'0');
                }
                c.nanosecond = nanos * 10i32.pow(9 - digits as u32);
            }
        }
        match b.get(i) {
            None => {}
            Some(b'Z' | b'z') => {
                c.offset = Some(0);
                i += 1;
            }
            Some(&sign @ (b'+' | b'-')) => {
                let hours = i32::from(two(b, i + 1)?);
                i += 3;
                let minutes = match b.get(i) {
                    Some(b':') => {
                        i += 3;
                        i32::from(two(b, i - 2)?)
                    }
                    Some(_) => {
                        i += 2;
                        i32::from(two(b, i - 2)?)
                    }
                    None => 0,
                };
                if hours > 23 || minutes > 59 {
                    return None;
                }
                let seconds = hours * 3600 + minutes * 60;
                c.offset = Some(if sign == b'-' { -seconds } else { seconds });
            }
            Some(_) => return None,
        }
        if i != b.len() {
            return None;
        }
    }
    let valid = (1..=12).contains(&c.month)
        && c.day >= 1
        && c.day <= days_in_month(c.year, c.month)
        && c.hour <= 23
        && c.minute <= 59
        && c.second <= 59;
    valid.then_some(c)
}

fn days_in_month(year: i16, month: i8) -> i8 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (H. Hinnant's
/// `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = if year >= 0 { year } else { year - 399 } / 400;
    let year_of_era = year - era * 400;
    let day_of_year = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// A civil time's nanoseconds since the epoch: by its own offset, else in `zone` (UTC when
/// `None`), by arithmetic for a fixed offset and by the zone's rules otherwise.
#[inline]
fn civil_nanos(c: &Civil, zone: Option<&Zone>) -> Option<i128> {
    let offset = match (c.offset, zone) {
        (Some(offset), _) => offset,
        (None, None) => 0,
        (None, Some(zone)) => match zone.time_zone().to_fixed_offset() {
            Ok(offset) => offset.seconds(),
            Err(_) => return in_zone(c, zone.time_zone()),
        },
    };
    let days = days_from_civil(c.year.into(), c.month.into(), c.day.into());
    let seconds =
        days * 86_400 + i64::from(c.hour) * 3600 + i64::from(c.minute) * 60 + i64::from(c.second)
            - i64::from(offset);
    Some(i128::from(seconds) * 1_000_000_000 + i128::from(c.nanosecond))
}

/// A civil time without an offset read in a zone with rules (daylight saving): a time in
/// the gap when clocks go forward moves forward by the gap, one in the fold when they go back
/// is the earlier of the two.
#[cold]
fn in_zone(c: &Civil, tz: &TimeZone) -> Option<i128> {
    let civil = jiff::civil::DateTime::new(
        c.year,
        c.month,
        c.day,
        c.hour,
        c.minute,
        c.second,
        c.nanosecond,
    )
    .ok()?;
    let at = tz.to_ambiguous_timestamp(civil).compatible().ok()?;
    Some(at.as_nanosecond())
}

/// Every spelling jiff's ISO 8601 (Temporal) parser takes, for what [`common`] does not:
/// a leap second, a comma before the decimals, an hour alone, a zone in brackets
/// (`2013-01-01T05:15[America/New_York]`, read in that zone), years past 9999 written with a
/// sign.
#[cold]
fn any_spelling(text: &str, zone: Option<&Zone>) -> Option<(i128, Spelling)> {
    use jiff::fmt::temporal::Pieces;
    let pieces = Pieces::parse(text).ok()?;
    let civil = pieces
        .date()
        .to_datetime(pieces.time().unwrap_or(jiff::civil::Time::midnight()));
    if let Some(offset) = pieces.to_numeric_offset() {
        let at = offset.to_timestamp(civil).ok()?;
        return Some((at.as_nanosecond(), Spelling::DATE));
    }
    if let Some(named) = pieces.time_zone_annotation() {
        let tz = named.to_time_zone().ok()?;
        let at = tz.to_ambiguous_timestamp(civil).compatible().ok()?;
        return Some((at.as_nanosecond(), Spelling::DATE));
    }
    let tz = zone.map_or(TimeZone::UTC, |z| z.time_zone().clone());
    let at = tz.to_ambiguous_timestamp(civil).compatible().ok()?;
    Some((at.as_nanosecond(), Spelling::LOCAL_DATE))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock_of(times: &[(f64, Spelling)]) -> Clock {
        let mut evidence = ClockEvidence::default();
        for &(ms, spelling) in times {
            evidence.time(ms);
            evidence.spelled(spelling);
        }
        evidence.clock(&Zone::utc())
    }

    #[test]
    fn numbers_are_wall_clock_times_only_where_real_dates_lie() {
        let n = |ms| (ms, Spelling::NUMBER);
        // The classroom stream: seconds from its start, in ms.
        assert_eq!(clock_of(&[n(0.0), n(599_999.0)]), Clock::Relative);
        // 2013-01-01 05:15 and 21 hours later, in ms.
        assert_eq!(
            clock_of(&[n(1_357_017_300_000.0), n(1_357_092_900_000.0)]),
            Clock::wall_utc()
        );
        // The range's edges: 1990-01-01 is in, 2100-01-01 is out.
        assert_eq!(clock_of(&[n(WALL_FROM_MS)]), Clock::wall_utc());
        assert_eq!(clock_of(&[n(WALL_FROM_MS - 1.0)]), Clock::Relative);
        assert_eq!(clock_of(&[n(WALL_UNTIL_MS - 1.0)]), Clock::wall_utc());
        assert_eq!(clock_of(&[n(WALL_UNTIL_MS)]), Clock::Relative);
        // One time outside the range keeps the whole log relative.
        assert_eq!(
            clock_of(&[n(1_357_017_300_000.0), n(5_000.0)]),
            Clock::Relative
        );
        // Epoch seconds read as ms lie in January 1970.
        assert_eq!(clock_of(&[n(1_357_017_300.0)]), Clock::Relative);
        assert_eq!(clock_of(&[]), Clock::Relative);
    }

    #[test]
    fn a_time_written_as_a_date_is_a_wall_clock_time_whenever_it_is() {
        assert_eq!(clock_of(&[(1_500.0, Spelling::DATE)]), Clock::wall_utc());
        assert_eq!(
            clock_of(&[(5_000.0, Spelling::NUMBER), (-86_400_000.0, Spelling::DATE)]),
            Clock::wall_utc()
        );
        let zone = Zone::new(jiff::tz::TimeZone::fixed(
            jiff::tz::Offset::from_hours(-5).unwrap(),
        ));
        let mut evidence = ClockEvidence::default();
        evidence.time(0.0);
        evidence.spelled(Spelling::DATE);
        assert_eq!(evidence.clock(&zone), Clock::Wall(zone));
    }

    /// 2013-01-01T05:15:00Z in epoch ms.
    const DEPARTURE: f64 = 1_357_017_300_000.0;

    fn new_york() -> Zone {
        zone_named("America/New_York").unwrap()
    }

    fn read(text: &str, zone: Option<&Zone>) -> Option<(f64, Spelling)> {
        date_ms(text, zone)
    }

    #[test]
    fn the_spellings_people_write_read_as_their_instant() {
        let local = Spelling::LOCAL_DATE;
        let date = Spelling::DATE;
        for (text, ms, spelling) in [
            // ISO 8601 as pandas, DuckDB and PostgreSQL's timestamp write it.
            ("2013-01-01T05:15:00", DEPARTURE, local),
            ("2013-01-01 05:15:00", DEPARTURE, local),
            ("2013-01-01t05:15:00", DEPARTURE, local),
            ("2013-01-01T05:15", DEPARTURE, local),
            ("2013-01-01", DEPARTURE - 5.25 * 3_600_000.0, local),
            ("2013-01-01 05:15:00.250", DEPARTURE + 250.0, local),
            ("2013-01-01T05:15:00.250000", DEPARTURE + 250.0, local),
            ("2013-01-01T05:15:00.5", DEPARTURE + 500.0, local),
            // With an offset: RFC 3339, PostgreSQL's timestamptz (+00, -05), ISO's basic -0500.
            ("2013-01-01T05:15:00Z", DEPARTURE, date),
            ("2013-01-01t05:15:00z", DEPARTURE, date),
            ("2013-01-01T05:15:00+00:00", DEPARTURE, date),
            ("2013-01-01 05:15:00+00", DEPARTURE, date),
            ("2013-01-01T06:15:00+01:00", DEPARTURE, date),
            ("2013-01-01T00:15:00-0500", DEPARTURE, date),
            ("2013-01-01 00:15:00.25-05", DEPARTURE + 250.0, date),
            ("2013-01-01T06:15+01", DEPARTURE, date),
            // What the hand-written reader leaves to jiff's: a comma before the decimals, a
            // zone in brackets, a leap second (read as the second before it).
            ("2013-01-01T05:15:00,250Z", DEPARTURE + 250.0, date),
            ("2013-01-01T00:15:00[America/New_York]", DEPARTURE, date),
            ("2016-12-31T23:59:60Z", 1_483_228_799_000.0, date),
        ] {
            assert_eq!(read(text, None), Some((ms, spelling)), "{text}");
        }
        // Nanoseconds: nine decimals, as exact as a float of ms holds them.
        let (ms, _) = read("2013-01-01T05:15:00.123456789Z", None).unwrap();
        assert_eq!(ms, DEPARTURE + 123.456789);
        assert_eq!(
            date_nanos("2013-01-01T05:15:00.123456789Z", None),
            Some((1_357_017_300_123_456_789, date))
        );
        for bad in [
            "2013-02-29T00:00:00",
            "2013-13-01",
            "2013-01-32",
            "2013-01-01T25:00:00",
            "2013-01-01T05:60:00",
            "2013-01-01T05:15:00.1234567890",
            "2013-01-01T05:15:00.",
            "2013-01-01T05:15:00+",
            "2013-01-01T05:15:00+01:0",
            "2013-01-01X05:15:00",
            "2013-01-01T05:15:00Z junk",
            "2013-1-1",
            "soon",
            "",
            // Letters where digits go (a byte far from '0' once made ten times too much).
            "abcd-ef-gh",
            "2013-01-01Tzz:zz",
            "2013-01-01T05:15+zz:zz",
        ] {
            assert_eq!(read(bad, None), None, "{bad}");
        }
        // 29 February in a leap year, and the first and last days a date may have.
        assert!(read("2012-02-29T00:00:00Z", None).is_some());
        assert!(read("2000-02-29", None).is_some());
        assert_eq!(read("1900-02-29", None), None);
        assert_eq!(
            read("0000-01-01T00:00:00Z", None).unwrap().0,
            -62_167_219_200_000.0
        );
        assert!(read("9999-12-31T23:59:59.999999999Z", None).is_some());
    }

    #[test]
    fn a_time_without_an_offset_is_read_in_the_zone_named() {
        let ny = new_york();
        // New York is 5 hours behind UTC in January.
        let (ms, spelling) = read("2013-01-01T00:15:00", Some(&ny)).unwrap();
        assert_eq!((ms, spelling), (DEPARTURE, Spelling::LOCAL_DATE));
        let india = zone_named("+05:30").unwrap();
        assert_eq!(
            read("2013-01-01 10:45:00", Some(&india)),
            Some((DEPARTURE, Spelling::LOCAL_DATE))
        );
        // A written offset wins over the zone.
        assert_eq!(
            read("2013-01-01T05:15:00Z", Some(&ny)),
            Some((DEPARTURE, Spelling::DATE))
        );
        // A Parquet timestamp's civil time, read in a zone.
        assert_eq!(
            civil_ms_in(DEPARTURE, &ny),
            Some(DEPARTURE + 5.0 * 3_600_000.0)
        );
        assert_eq!(
            civil_ms_in(DEPARTURE + 0.5, &india),
            Some(DEPARTURE + 0.5 - 19_800_000.0)
        );
    }

    #[test]
    fn an_hour_skipped_moves_forward_and_an_hour_repeated_takes_the_first() {
        let ny = new_york();
        let utc = |text: &str| read(text, None).unwrap().0;
        // 10 March 2013: New York's clocks went from 02:00 EST to 03:00 EDT; 02:30 never was,
        // and reads as 03:30 EDT, half an hour after the gap, as 02:30 EST would have been.
        assert_eq!(
            read("2013-03-10T02:30:00", Some(&ny)).unwrap().0,
            utc("2013-03-10T07:30:00Z")
        );
        // 3 November 2013: 01:30 came twice, first EDT then EST; it reads as the first.
        assert_eq!(
            read("2013-11-03 01:30:00", Some(&ny)).unwrap().0,
            utc("2013-11-03T05:30:00Z")
        );
        // The same rule for a Parquet timestamp's civil time.
        assert_eq!(
            civil_ms_in(utc("2013-03-10T02:30:00Z"), &ny),
            Some(utc("2013-03-10T07:30:00Z"))
        );
        assert_eq!(
            civil_ms_in(utc("2013-11-03T01:30:00Z"), &ny),
            Some(utc("2013-11-03T05:30:00Z"))
        );
    }

    proptest::proptest! {
        /// The hand-written reader of the common spellings reads each as jiff's does.
        #[test]
        fn the_common_spellings_read_as_jiff_reads_them(
            year in 0u32..10_000,
            month in 0u32..14,
            day in 0u32..33,
            hour in 0u32..26,
            minute in 0u32..61,
            second in proptest::option::of(0u32..61),
            decimals in proptest::option::of("[0-9]{0,10}"),
            separator in proptest::sample::select(vec!["T", "t", " ", "", "_"]),
            offset in proptest::sample::select(vec![
                "", "Z", "z", "+01:00", "-05:00", "+0530", "-0500", "+01", "-23:59", "+24:00",
                "+1", "+01:", "+01:60",
            ]),
            in_new_york in proptest::bool::ANY,
        ) {
            let mut text = format!("{year:04}-{month:02}-{day:02}");
            if !separator.is_empty() {
                text += &format!("{separator}{hour:02}:{minute:02}");
                if let Some(second) = second {
                    text += &format!(":{second:02}");
                    if let Some(decimals) = &decimals {
                        text += &format!(".{decimals}");
                    }
                }
                text += offset;
            }
            let ny = new_york();
            let zone = in_new_york.then_some(&ny);
            if let Some(civil) = common(text.as_bytes()) {
                let spelling = if civil.offset.is_some() {
                    Spelling::DATE
                } else {
                    Spelling::LOCAL_DATE
                };
                let fast = civil_nanos(&civil, zone).map(|n| (n, spelling));
                proptest::prop_assert_eq!(fast, any_spelling(&text, zone), "{}", text);
            }
        }
    }

    #[test]
    fn zones_are_named_by_iana_name_or_offset() {
        let name = |text: &str| zone_named(text).map(|z| z.name());
        assert_eq!(name("America/New_York"), Ok("America/New_York".into()));
        assert_eq!(name("europe/paris"), Ok("Europe/Paris".into()));
        for utc in ["UTC", "utc", "Z", "GMT", "+00:00"] {
            assert_eq!(name(utc), Ok("UTC".into()), "{utc}");
        }
        assert_eq!(name("+05:30"), Ok("UTC+05:30".into()));
        assert_eq!(name("-0500"), Ok("UTC−05:00".into()));
        assert_eq!(name("+01"), Ok("UTC+01:00".into()));
        assert_eq!(name("UTC-3"), Ok("UTC−03:00".into()));
        assert_eq!(
            name("Mars/Olympus_Mons"),
            Err(
                "'Mars/Olympus_Mons' is not a time zone: give an IANA name such as \
                 America/New_York, UTC, or an offset such as +05:30"
                    .into()
            )
        );
        assert_eq!(
            name("new york"),
            Err(
                "'new york' is not a time zone: give an IANA name such as America/New_York, \
                 UTC, or an offset such as +05:30; did you mean America/New_York?"
                    .into()
            )
        );
        for bad in ["", "+5:3", "+123", "+26", "05:30"] {
            assert!(zone_named(bad).is_err(), "{bad}");
        }
    }

    fn notes_of(times: &[f64], spelling: Spelling, zone: Option<&Zone>) -> Vec<String> {
        let mut evidence = ClockEvidence::default();
        for &ms in times {
            evidence.time(ms);
        }
        evidence.spelled(spelling);
        evidence.notes("events.csv", None, zone)
    }

    #[test]
    fn times_that_look_like_another_unit_or_zone_get_a_note() {
        let number = Spelling::NUMBER;
        assert_eq!(
            notes_of(&[1_357_017_300.0, 1_357_017_420.0], number, None),
            [
                "events.csv: the times look like epoch seconds, not milliseconds (1357017300 \
              read as seconds is 2013-01-01 05:15 UTC); --time-format s reads them so"
            ]
        );
        let ny = new_york();
        assert_eq!(
            notes_of(&[1_357_017_300_250_000.0], number, Some(&ny)),
            [
                "events.csv: the times look like epoch microseconds, not milliseconds \
              (1357017300250000 read as microseconds is 2013-01-01 00:15:00.250 \
              America/New_York); --time-format us reads them so"
            ]
        );
        // Milliseconds of real dates, the classroom's seconds from its start, dates: no note.
        assert!(notes_of(&[DEPARTURE], number, None).is_empty());
        assert!(notes_of(&[0.0, 599_999.0], number, None).is_empty());
        assert!(notes_of(&[1_357_017_300.0], Spelling::DATE, None).is_empty());
        // One time outside the unit's years: no guess.
        assert!(notes_of(&[1_357_017_300.0, 5.0], number, None).is_empty());
        // Dates without an offset: said when no zone was named, only then.
        assert_eq!(
            notes_of(&[DEPARTURE], Spelling::LOCAL_DATE, None),
            [
                "events.csv: times without an offset are read in UTC (--time-zone names another \
              zone)"
            ]
        );
        assert!(notes_of(&[DEPARTURE], Spelling::LOCAL_DATE, Some(&ny)).is_empty());
        assert!(notes_of(&[DEPARTURE], Spelling::DATE, None).is_empty());
        // A unit said with --time-format is never second-guessed.
        let mut evidence = ClockEvidence::default();
        evidence.time(1_357_017_300.0);
        assert!(evidence.notes("e", Some(TimeFormat::Ms), None).is_empty());
    }
}
