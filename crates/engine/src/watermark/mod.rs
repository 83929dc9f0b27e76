//! Block 3, watermarks: the engine's claim that no more events older than some event time will
//! arrive. Four generators, all held monotone (a new estimate below the current watermark
//! leaves it where it is): `perfect` (knows the stream's largest delay), `fixed:LAG` (processing
//! time − LAG), `heuristic:Q:N` (processing time − a quantile of the last N delays) and
//! `bounded:B` (highest event time seen − B, Flink's and Beam's bounded out-of-orderness).
//!
//! A kind is one file: its parameters as a type implementing `WatermarkRule` (its name, how it is
//! written and read, its preset) and its running generator implementing `Estimate`. It is
//! registered by one entry in the `watermark_kinds!` list below, which makes it a variant of
//! [`WatermarkKind`] and of [`WatermarkFamily`] and routes every question about the kind to its
//! file: reading a spec (`FromStr`), writing it (`Display`), the dial's families.

use std::fmt;
use std::str::FromStr;

use super::conventions::Conventions;
use crate::duration::Duration;
use crate::quote::quoted;

use super::stream::Event;

mod bounded;
mod fixed;
mod heuristic;
mod perfect;
mod quantile;

/// What a watermark kind defines, given its parameters (the fields of its [`WatermarkKind`]
/// variant).
trait WatermarkRule: Copy + Into<WatermarkKind> {
    /// The kind's running generator.
    type Generator: Estimate;

    /// The generator before any event. `max_delay` is the stream's largest delay.
    fn generator(self, max_delay: f64) -> Self::Generator;

    /// The short name used on the command line and on screen.
    const NAME: &'static str;

    /// How the command line writes the kind, its parameters in capitals: `fixed:DUR`.
    const SPELLING: &'static str;

    /// The kind from the parameters written after its name, each after a colon (`["20s"]` for
    /// `fixed:20s`): an error that names the value, or `Err(None)` where they are not the
    /// kind's spelling (the message then gives every kind's).
    fn read(params: &[&str]) -> Result<Self, Option<String>>;

    /// The kind with its default parameters and `lag` where it has one: what the UI's
    /// watermark dial offers first.
    fn preset(lag: f64) -> Self;

    /// The kind as the command line writes it, parameters included; [`WatermarkRule::read`] reads
    /// it back.
    fn write(self, f: &mut fmt::Formatter<'_>) -> fmt::Result;

    /// The lag the generator is built on, where it has one.
    fn lag(self) -> Option<f64> {
        None
    }

    /// How far behind processing time the watermark is by construction, as the frontier's
    /// emit delay counts it; NaN where it moves with the data.
    fn nominal_lag(self, _max_delay: f64) -> f64 {
        self.lag().unwrap_or(f64::NAN)
    }

    /// The same kind with another lag (unchanged where the kind has none).
    fn with_lag(self, _lag: f64) -> WatermarkKind {
        self.into()
    }

    /// Whether the generator reads the stream's largest delay (a pass over the whole stream
    /// before the run, and a run made again when a live input's largest delay grows).
    fn reads_max_delay(self) -> bool {
        false
    }

    /// The quantile of the recent delays it follows and how many it keeps, where it follows
    /// one.
    fn quantile(self) -> Option<(f64, usize)> {
        None
    }
}

/// A running generator: its estimate after each arriving event.
trait Estimate: Clone + fmt::Debug {
    /// Takes in an arriving event and returns the estimate after it (not yet held monotone).
    fn estimate(&mut self, e: &Event) -> f64;
}

/// Declares the watermark kinds: [`WatermarkKind`] with a variant per kind, the running
/// [`Generator`] of each, and `with_kind!`, which hands a kind's parameters to its file.
/// Each entry is `Variant => file::Type { fields }` (no braces for a kind without parameters).
macro_rules! watermark_kinds {
    ($d:tt $(
        $(#[$doc:meta])*
        $variant:ident => $module:ident :: $ty:ident $({
            $( $(#[$field_doc:meta])* $field:ident : $field_ty:ty ),* $(,)?
        })?
    ),* $(,)?) => {
        /// Which watermark generator to run.
        #[derive(Debug, Clone, Copy, PartialEq)]
        pub enum WatermarkKind {
            $( $(#[$doc])* $variant $({ $( $(#[$field_doc])* $field: $field_ty ),* })?, )*
        }

        $(
            impl From<$module::$ty> for WatermarkKind {
                fn from(k: $module::$ty) -> Self {
                    let $module::$ty $({ $($field),* })? = k;
                    WatermarkKind::$variant $({ $($field),* })?
                }
            }
        )*

        /// The running state of a generator, by kind. A plain tag byte (no niche in a
        /// kind's fields) makes the match on every event one load and one branch.
        #[derive(Debug, Clone)]
        #[repr(u8)]
        enum Generator {
            $( $variant(<$module::$ty as WatermarkRule>::Generator), )*
        }

        impl Generator {
            fn new(kind: WatermarkKind, max_delay: f64) -> Self {
                match kind {
                    $( WatermarkKind::$variant $({ $($field),* })? => Generator::$variant(
                        $module::$ty $({ $($field),* })?.generator(max_delay)
                    ), )*
                }
            }

            #[inline]
            fn estimate(&mut self, e: &Event) -> f64 {
                match self {
                    $( Generator::$variant(g) => g.estimate(e), )*
                }
            }
        }

        /// A watermark kind without its parameters: what the UI's watermark dial cycles
        /// through, and what a match over kinds names.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum WatermarkFamily {
            $( $(#[$doc])* $variant, )*
        }

        impl WatermarkFamily {
            /// Every family, in the order they are declared (the dial's order).
            pub const ALL: [WatermarkFamily; [$(stringify!($variant)),*].len()] =
                [$(WatermarkFamily::$variant),*];

            /// The family of `kind`.
            pub fn of(kind: &WatermarkKind) -> WatermarkFamily {
                match kind {
                    $( WatermarkKind::$variant { .. } => WatermarkFamily::$variant, )*
                }
            }

            /// Its name on the command line and on screen: `fixed`.
            pub fn name(self) -> &'static str {
                match self {
                    $( WatermarkFamily::$variant => <$module::$ty as WatermarkRule>::NAME, )*
                }
            }

            /// How the command line writes it, its parameters in capitals: `fixed:DUR`.
            pub fn spelling(self) -> &'static str {
                match self {
                    $( WatermarkFamily::$variant => <$module::$ty as WatermarkRule>::SPELLING, )*
                }
            }

            /// The family's generator with its default parameters and `lag` where it has
            /// one (the lag of `fixed`, the bound of `bounded`).
            pub fn preset(self, lag: f64) -> WatermarkKind {
                match self {
                    $( WatermarkFamily::$variant => <$module::$ty as WatermarkRule>::preset(lag).into(), )*
                }
            }

            /// The family's generator from the parameters written after its name.
            fn read(self, params: &[&str]) -> Result<WatermarkKind, Option<String>> {
                match self {
                    $( WatermarkFamily::$variant =>
                        <$module::$ty as WatermarkRule>::read(params).map(Into::into), )*
                }
            }
        }

        /// Evaluates `body` with `k` bound to the parameters of `kind` as its file's type.
        macro_rules! with_kind {
            ($d kind_value:expr, $d k:ident => $d body:expr) => {
                match $d kind_value {
                    $( WatermarkKind::$variant $({ $($field),* })? => {
                        let $d k = $module::$ty $({ $($field),* })?;
                        $d body
                    } )*
                }
            };
        }
    };
}

watermark_kinds! { $
    /// Processing time − the stream's largest delay: never wrong, always slow.
    Perfect => perfect::Perfect,
    /// Processing time − `lag` ms.
    Fixed => fixed::Fixed {
        /// How far behind processing time, ms.
        lag: f64,
    },
    /// Processing time − `sorted(last n delays)[int(q·(len−1))]`, the arriving event included.
    Heuristic => heuristic::Heuristic {
        /// The quantile of the recent delays, 0 to 1.
        q: f64,
        /// How many recent delays it is taken over.
        n: usize,
    },
    /// Highest event time seen − `bound` ms.
    Bounded => bounded::Bounded {
        /// How far behind the highest event time seen, ms.
        bound: f64,
    },
}

impl WatermarkKind {
    /// The heuristic's quantile when the command line gives none.
    pub const DEFAULT_Q: f64 = heuristic::DEFAULT_Q;
    /// The heuristic's history length when the command line gives none.
    pub const DEFAULT_N: usize = heuristic::DEFAULT_N;
    /// The longest history a heuristic watermark may keep.
    pub const MAX_N: usize = heuristic::MAX_N;

    /// The lag this generator is built on, where it has one (fixed lag, bounded bound).
    pub fn lag(&self) -> Option<f64> {
        with_kind!(*self, k => k.lag())
    }

    /// How far behind processing time the watermark is by construction, as the frontier's
    /// emit delay counts it: the lag of `fixed`, the bound of `bounded`, the stream's largest
    /// delay for `perfect`; NaN for `heuristic`, whose lag moves with the data.
    pub fn nominal_lag(&self, max_delay: f64) -> f64 {
        with_kind!(*self, k => k.nominal_lag(max_delay))
    }

    /// The same generator with another lag (fixed and bounded; the others are unchanged).
    pub fn with_lag(&self, lag: f64) -> WatermarkKind {
        with_kind!(*self, k => k.with_lag(lag))
    }

    /// Whether the generator reads the stream's largest delay (`perfect`): the stream is
    /// passed over for it before the run, and a live input whose largest delay grows runs
    /// again.
    pub fn reads_max_delay(&self) -> bool {
        with_kind!(*self, k => k.reads_max_delay())
    }

    /// The quantile of the recent delays the generator follows and how many delays it keeps
    /// (`heuristic:Q:N`), where it follows one.
    pub fn quantile(&self) -> Option<(f64, usize)> {
        with_kind!(*self, k => k.quantile())
    }

    /// The generator as an engine runs it under `conventions`: the bounded watermark trails
    /// by the convention's lag ([`Conventions::watermark_lag`]: Flink's one more millisecond);
    /// the others are twoclocks' own and run alike under every convention. Kafka Streams has
    /// no watermark: whatever is asked for, time is its stream time, the largest event time
    /// seen with the arriving record counted first ([`Conventions::uses_stream_time`]).
    pub fn under(&self, conventions: Conventions) -> WatermarkKind {
        if conventions.uses_stream_time() {
            return WatermarkKind::Bounded { bound: 0.0 };
        }
        match *self {
            WatermarkKind::Bounded { bound } => WatermarkKind::Bounded {
                bound: conventions.watermark_lag(bound),
            },
            other => other,
        }
    }

    /// The short name used on the command line and on screen.
    pub fn family(&self) -> &'static str {
        WatermarkFamily::of(self).name()
    }
}

impl fmt::Display for WatermarkKind {
    /// The kind as the command line writes it: `perfect`, `fixed:20s`, `heuristic:0.95:2000`,
    /// `bounded:5s`; it reads back the same.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        with_kind!(*self, k => k.write(f))
    }
}

impl FromStr for WatermarkKind {
    type Err = String;

    /// Reads a kind as [`WatermarkFamily::spelling`] gives it, `fixed:20s`; an error names
    /// the value.
    fn from_str(s: &str) -> Result<WatermarkKind, String> {
        let mut parts = s.trim().split(':');
        let name = parts.next().unwrap_or("");
        let params: Vec<&str> = parts.collect();
        let bad = || {
            format!(
                "{} is not a watermark: use {}",
                quoted(s),
                WatermarkFamily::listed(WatermarkFamily::spelling)
            )
        };
        let family = WatermarkFamily::ALL
            .into_iter()
            .find(|f| f.name() == name)
            .ok_or_else(bad)?;
        family.read(&params).map_err(|e| e.unwrap_or_else(bad))
    }
}

impl WatermarkFamily {
    /// Every family as `shown` gives it, in a sentence: `perfect, fixed, heuristic or bounded`.
    pub fn listed(shown: fn(WatermarkFamily) -> &'static str) -> String {
        let names: Vec<&str> = WatermarkFamily::ALL.into_iter().map(shown).collect();
        match names.split_last() {
            Some((last, [])) => last.to_string(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        }
    }

    /// Its position in [`WatermarkFamily::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for WatermarkFamily {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for WatermarkFamily {
    type Err = String;

    /// Reads a family's name, `fixed`; an error names the value and the families.
    fn from_str(s: &str) -> Result<WatermarkFamily, String> {
        WatermarkFamily::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| {
                format!(
                    "{} is not a watermark kind: {}",
                    quoted(s),
                    WatermarkFamily::listed(WatermarkFamily::name)
                )
            })
    }
}

/// A lag as a watermark spec writes it: a finite duration (`fixed:inf` is not a spelling).
fn read_lag(param: &str) -> Result<f64, Option<String>> {
    let lag: Duration = param.parse().map_err(Some)?;
    Some(lag.ms()).filter(|l| l.is_finite()).ok_or(None)
}

/// A lag as a watermark spec writes it, reading back the same.
fn write_lag(f: &mut fmt::Formatter<'_>, lag: f64) -> fmt::Result {
    match Duration::from_ms(lag) {
        Some(d) => write!(f, "{d}"),
        None => f.write_str(&crate::duration::Duration::short(lag)),
    }
}

/// A running watermark generator: fed each arriving event, answers the watermark after it.
#[derive(Debug, Clone)]
pub struct Watermark {
    kind: WatermarkKind,
    generator: Generator,
    current: f64,
}

impl Watermark {
    /// A generator before any event: the watermark is −∞. `max_delay` is the stream's largest
    /// delay, used only by `perfect`.
    pub fn new(kind: WatermarkKind, max_delay: f64) -> Self {
        Watermark {
            kind,
            generator: Generator::new(kind, max_delay),
            current: f64::NEG_INFINITY,
        }
    }

    /// The kind of generator running.
    pub fn kind(&self) -> WatermarkKind {
        self.kind
    }

    /// The watermark now.
    pub fn current(&self) -> f64 {
        self.current
    }

    /// Takes in an arriving event and returns the watermark after it (never lower than before).
    #[inline]
    pub fn observe(&mut self, e: &Event) -> f64 {
        let estimate = self.generator.estimate(e);
        if estimate > self.current {
            self.current = estimate;
        }
        self.current
    }

    /// Raises the watermark to `wm` if that is higher (a watermark given from outside).
    pub fn raise(&mut self, wm: f64) -> f64 {
        if wm > self.current {
            self.current = wm;
        }
        self.current
    }

    /// The end of input: every window is complete.
    pub fn close(&mut self) -> f64 {
        self.current = f64::INFINITY;
        self.current
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn read(s: &str) -> Result<WatermarkKind, String> {
        s.parse()
    }

    #[test]
    fn every_spelling_reads() {
        assert_eq!(read("perfect"), Ok(WatermarkKind::Perfect));
        assert_eq!(
            read("fixed:20s"),
            Ok(WatermarkKind::Fixed { lag: 20_000.0 })
        );
        assert_eq!(
            read("heuristic"),
            Ok(WatermarkKind::Heuristic { q: 0.95, n: 2000 })
        );
        assert_eq!(
            read("heuristic:0.9"),
            Ok(WatermarkKind::Heuristic { q: 0.9, n: 2000 })
        );
        assert_eq!(
            read("heuristic:0.9:500"),
            Ok(WatermarkKind::Heuristic { q: 0.9, n: 500 })
        );
        assert_eq!(
            read("bounded:5s"),
            Ok(WatermarkKind::Bounded { bound: 5_000.0 })
        );
        assert!(read("heuristic:0.9:1000000").is_ok());
    }

    #[test]
    fn a_bad_spec_is_named_with_every_spelling() {
        let usage = "use perfect, fixed:DUR, heuristic[:Q[:N]] or bounded:DUR";
        for bad in [
            "fixed",
            "magic",
            "perfect:1s",
            "fixed:inf",
            "heuristic:0.9:5:5",
            "",
        ] {
            assert_eq!(
                read(bad),
                Err(format!("'{bad}' is not a watermark: {usage}")),
                "{bad}"
            );
        }
        assert_eq!(
            read("fixed:10"),
            Err("'10' is not a duration: give a number with a unit, e.g. 10s, 1500ms, 2m".into())
        );
        assert_eq!(
            read("heuristic:2"),
            Err("'2' is not a quantile: give a number from 0 to 1".into())
        );
        for n in ["1000001", "18446744073709551615", "0"] {
            assert_eq!(
                read(&format!("heuristic:0.9:{n}")),
                Err(format!(
                    "'{n}' is not a history length: give a whole number from 1 to 1000000"
                ))
            );
        }
        assert_eq!(
            "punctuated".parse::<WatermarkFamily>(),
            Err(
                "'punctuated' is not a watermark kind: perfect, fixed, heuristic or bounded".into()
            )
        );
    }

    #[test]
    fn every_family_reads_its_name_and_presets_its_own_kind() {
        for family in WatermarkFamily::ALL {
            assert_eq!(family.name().parse(), Ok(family));
            assert_eq!(family.to_string(), family.name());
            assert_eq!(WatermarkFamily::ALL[family.index()], family);
            let preset = family.preset(20_000.0);
            assert_eq!(WatermarkFamily::of(&preset), family);
            assert_eq!(preset.family(), family.name());
            assert_eq!(read(&preset.to_string()), Ok(preset));
        }
    }

    fn any_kind() -> impl Strategy<Value = WatermarkKind> {
        let lag = prop_oneof![
            (0u64..=crate::duration::Duration::MAX_MS as u64).prop_map(|n| n as f64),
            (0u64..1_000_000).prop_map(|n| n as f64 / 1_000.0),
            0.0..crate::duration::Duration::MAX_MS,
        ];
        (
            proptest::sample::select(WatermarkFamily::ALL.to_vec()),
            lag,
            0.0..=1.0f64,
            1..=WatermarkKind::MAX_N,
        )
            .prop_map(|(family, lag, q, n)| match family.preset(lag) {
                WatermarkKind::Heuristic { .. } => WatermarkKind::Heuristic { q, n },
                other => other,
            })
    }

    proptest! {
        #[test]
        fn what_is_written_reads_back_the_same(kind in any_kind()) {
            prop_assert_eq!(read(&kind.to_string()), Ok(kind));
        }
    }
}
