//! The flags whose value is one of a type's names (`--input-format csv`, `--arrival
//! file-order`, `--theme mono`): the types live in io and the UI, which know nothing of clap,
//! and say their names, their order and what each is for; this turns them into the value
//! parser clap lists in `--help`, completes and checks, refusing any other value in clap's
//! own words (as its parser of an enum does, a value that is not UTF-8 included).

use std::ffi::OsStr;
use std::marker::PhantomData;
use std::str::FromStr;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::error::ErrorKind;

use crate::io::source::{Arrival, InputFormat, OnBadRow, TimeFormat};
use crate::tui::theme::ThemeName;

/// A type whose values a flag names: every value in `--help`'s order, the name each is
/// spelled by (which its `FromStr` reads back) and the line `--help` gives it, if any.
pub trait Named: FromStr + Copy + Send + Sync + 'static {
    /// Every value, in the order `--help` lists them.
    fn all() -> &'static [Self];
    /// The value's name on the command line.
    fn name(self) -> &'static str;
    /// What `--help` says of the value (none: the names are listed on one line).
    fn help(self) -> Option<&'static str> {
        None
    }
}

/// The value parser of a flag that names one of `T`'s values.
pub fn one_of<T: Named>() -> OneOf<T> {
    OneOf(PhantomData)
}

/// See [`one_of`].
#[derive(Debug)]
pub struct OneOf<T>(PhantomData<fn() -> T>);

impl<T> Clone for OneOf<T> {
    fn clone(&self) -> Self {
        OneOf(PhantomData)
    }
}

impl<T: Named> OneOf<T> {
    fn possible(value: T) -> PossibleValue {
        PossibleValue::new(value.name()).help(value.help())
    }
}

impl<T: Named> TypedValueParser for OneOf<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        // A value that is not UTF-8 matches no name and is shown as clap's enum parser shows
        // it, lossily, among the possible values.
        let text = value.to_string_lossy();
        let names = PossibleValuesParser::new(T::all().iter().map(|&v| Self::possible(v)));
        let name = names.parse_ref(cmd, arg, OsStr::new(text.as_ref()))?;
        T::from_str(&name).map_err(|_| {
            clap::Error::raw(
                ErrorKind::InvalidValue,
                format!("'{name}' is listed but not read back\n"),
            )
            .with_cmd(cmd)
        })
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(T::all().iter().map(|&v| Self::possible(v))))
    }
}

impl Named for InputFormat {
    fn all() -> &'static [Self] {
        &InputFormat::ALL
    }
    fn name(self) -> &'static str {
        InputFormat::name(self)
    }
}

impl Named for TimeFormat {
    fn all() -> &'static [Self] {
        &TimeFormat::ALL
    }
    fn name(self) -> &'static str {
        TimeFormat::name(self)
    }
}

impl Named for Arrival {
    fn all() -> &'static [Self] {
        &Arrival::ALL
    }
    fn name(self) -> &'static str {
        Arrival::name(self)
    }
}

impl Named for OnBadRow {
    fn all() -> &'static [Self] {
        &OnBadRow::ALL
    }
    fn name(self) -> &'static str {
        OnBadRow::name(self)
    }
}

impl Named for ThemeName {
    fn all() -> &'static [Self] {
        &ThemeName::ALL
    }
    fn name(self) -> &'static str {
        ThemeName::name(self)
    }
    fn help(self) -> Option<&'static str> {
        Some(self.description())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name a flag lists reads back as its value, and the value prints as its name.
    fn reads_back<T: Named + std::fmt::Display + PartialEq + std::fmt::Debug>() {
        for &v in T::all() {
            assert_eq!(T::from_str(v.name()).ok(), Some(v), "{}", v.name());
            assert_eq!(v.to_string(), v.name());
        }
        assert!(T::from_str("").is_err());
    }

    #[test]
    fn every_name_reads_back() {
        reads_back::<InputFormat>();
        reads_back::<TimeFormat>();
        reads_back::<Arrival>();
        reads_back::<OnBadRow>();
        reads_back::<ThemeName>();
    }
}
