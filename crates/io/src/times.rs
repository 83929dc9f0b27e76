//! The clock a log's times are on, decided in this one place from what its rows held: a log
//! is on a wall clock ([`Clock::Wall`]) when a time in it was written as a date (a text such
//! as `2013-01-01T05:15:00`, or a Parquet timestamp), or when every time read lies where the
//! epoch milliseconds of real dates lie ([`WALL_FROM_MS`] to [`WALL_UNTIL_MS`], 1990 to 2100);
//! any other log counts from its start ([`Clock::Relative`]), as the built-in scenarios do,
//! and so does the classroom stream written out by `stream` and read back.

use twoclocks_engine::clock::{Clock, Zone};

/// 1990-01-01T00:00:00Z in epoch milliseconds: the earliest time a log of numbers may hold
/// and be taken for wall-clock times.
pub const WALL_FROM_MS: f64 = 631_152_000_000.0;

/// 2100-01-01T00:00:00Z in epoch milliseconds: every time of a log of numbers taken for
/// wall-clock times is before it.
pub const WALL_UNTIL_MS: f64 = 4_102_444_800_000.0;

/// How a time was written, as far as the clock cares.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Spelling {
    /// A number (in the `--time-format` unit, ms by default).
    #[default]
    Number,
    /// A date: a text such as `2013-01-01 05:15:00`, or a Parquet timestamp.
    Date,
}

impl Spelling {
    /// A row's spelling from its times': a date if either was one.
    #[inline]
    pub fn or(self, other: Spelling) -> Spelling {
        if self == Spelling::Date {
            self
        } else {
            other
        }
    }
}

/// What the rows read so far say of their clock: whether a time was written as a date, and
/// the range of the times read (after `--time-format`, in ms).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClockEvidence {
    dated: bool,
    earliest: f64,
    latest: f64,
}

impl Default for ClockEvidence {
    fn default() -> Self {
        ClockEvidence {
            dated: false,
            earliest: f64::INFINITY,
            latest: f64::NEG_INFINITY,
        }
    }
}

impl ClockEvidence {
    /// A row kept had a time spelled so.
    #[inline]
    pub fn spelled(&mut self, spelling: Spelling) {
        if spelling == Spelling::Date {
            self.dated = true;
        }
    }

    /// A time of a row kept, read as `ms`.
    #[inline]
    pub fn time(&mut self, ms: f64) {
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
        let some = self.earliest <= self.latest;
        let epoch_ms = some && self.earliest >= WALL_FROM_MS && self.latest < WALL_UNTIL_MS;
        if self.dated || epoch_ms {
            Clock::Wall(zone.clone())
        } else {
            Clock::Relative
        }
    }
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
        let n = |ms| (ms, Spelling::Number);
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
        assert_eq!(clock_of(&[(1_500.0, Spelling::Date)]), Clock::wall_utc());
        assert_eq!(
            clock_of(&[(5_000.0, Spelling::Number), (-86_400_000.0, Spelling::Date)]),
            Clock::wall_utc()
        );
        let zone = Zone::new(jiff::tz::TimeZone::fixed(
            jiff::tz::Offset::from_hours(-5).unwrap(),
        ));
        let mut evidence = ClockEvidence::default();
        evidence.time(0.0);
        evidence.spelled(Spelling::Date);
        assert_eq!(evidence.clock(&zone), Clock::Wall(zone));
    }
}
