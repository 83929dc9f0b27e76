//! Block 3, watermarks: the engine's claim that no more events older than some event time will
//! arrive. Four generators, all held monotone (a new estimate below the current watermark
//! leaves it where it is): `perfect` (knows the stream's largest delay), `fixed:LAG` (processing
//! time − LAG), `heuristic:Q:N` (processing time − a quantile of the last N delays) and
//! `bounded:B` (highest event time seen − B, Flink's and Beam's bounded out-of-orderness).
//!
//! A kind is one file: its parameters as a type implementing `WatermarkRule`, and its running
//! generator implementing `Estimate`. It is registered by one entry in the
//! `watermark_kinds!` list below, which makes it a variant of [`WatermarkKind`] and routes every
//! question about the kind to its file.

use std::fmt;

use super::conventions::Conventions;

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
    fn family(self) -> &'static str;

    /// The kind as the command line writes it, parameters included.
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
        with_kind!(*self, k => k.family())
    }
}

impl fmt::Display for WatermarkKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        with_kind!(*self, k => k.write(f))
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
