//! The dials: lag, grace, early-trigger interval, speed, watermark kind and accumulation mode, and
//! (for the parallel job) the checkpoint interval and the partitions' idle timeout; their ranges
//! and steps, and how each turns (a key step, or a position on its track). A dial change says
//! whether the engine must re-run; the engine configuration is built here.

use twoclocks_engine::scale::Scale;
use twoclocks_engine::steered::Settings;
use twoclocks_engine::trigger::EmptyPanes;
use twoclocks_engine::Stream;
use twoclocks_engine::{Accumulation, Conventions, EngineConfig, WatermarkKind, WindowFn};

/// One of the dials, in focus order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dial {
    /// The lag of the fixed watermark and the bound of the bounded one, ms; its track runs from 0
    /// to [`LAG_MAX`].
    Lag,
    /// Allowed lateness past the watermark before an event is dropped, ms; its track runs from 0
    /// to [`GRACE_MAX`].
    Grace,
    /// The early trigger's interval in processing time, ms, or off; its track runs to
    /// [`EARLY_MAX`].
    Early,
    /// Playback speed, one of [`SPEEDS`].
    Speed,
    /// The watermark family ([`Family`]).
    Watermark,
    /// What each pane carries: accumulating, discarding or retracting (labelled `panes`).
    Accumulation,
    /// The parallel job's checkpoint interval (only for a run that takes checkpoints).
    Checkpoint,
    /// The parallel job's idle timeout: a source partition silent this long no longer holds
    /// the combined watermark back (off, or up to [`IDLE_MAX`]).
    Idle,
    /// Whose rules the engine runs by ([`RULES`]): turned with `R`, named in the dials'
    /// title when they are not Beam Java's, outside the focus order.
    Rules,
}

/// The conventions the rules dial cycles through: the ones the processor runs (Kafka Streams'
/// are `twoclocks script`'s).
pub const RULES: [Conventions; 3] = [
    Conventions::Beam,
    Conventions::BeamPython,
    Conventions::Flink,
];

impl Dial {
    /// Focus order for a run without checkpoints (the single processor).
    pub const ALL: [Dial; 6] = [
        Dial::Lag,
        Dial::Grace,
        Dial::Early,
        Dial::Speed,
        Dial::Watermark,
        Dial::Accumulation,
    ];

    /// Focus order for a run that takes checkpoints: the same, then the checkpoint interval
    /// and the idle timeout.
    pub const JOB: [Dial; 8] = [
        Dial::Lag,
        Dial::Grace,
        Dial::Early,
        Dial::Speed,
        Dial::Watermark,
        Dial::Accumulation,
        Dial::Checkpoint,
        Dial::Idle,
    ];

    /// The dials in focus order, with or without the checkpoint interval.
    pub fn order(checkpoints: bool) -> &'static [Dial] {
        if checkpoints {
            &Dial::JOB
        } else {
            &Dial::ALL
        }
    }

    /// The dial's name in the dials panel and in status messages.
    pub fn label(&self) -> &'static str {
        match self {
            Dial::Lag => "lag",
            Dial::Grace => "grace",
            Dial::Early => "early",
            Dial::Speed => "speed",
            Dial::Watermark => "watermark",
            Dial::Accumulation => "panes",
            Dial::Checkpoint => "ckpt",
            Dial::Idle => "idle",
            Dial::Rules => "rules",
        }
    }

    /// Its position in focus order (the order with checkpoints extends the other).
    pub fn index(&self) -> usize {
        Dial::JOB.iter().position(|d| d == self).unwrap_or(0)
    }
}

/// Lag dial range and step, ms.
pub const LAG_MAX: f64 = 120_000.0;
/// One step of the lag dial, ms; a position on its track rounds to a multiple of it.
pub const LAG_STEP: f64 = 1_000.0;
/// Grace dial range and step, ms.
pub const GRACE_MAX: f64 = 300_000.0;
/// One step of the grace dial, ms; a position on its track rounds to a multiple of it.
pub const GRACE_STEP: f64 = 5_000.0;
/// Early-trigger dial range and step, ms (below the step it is off).
pub const EARLY_MAX: f64 = 60_000.0;
/// One step of the early-trigger dial, ms; an interval below it is off.
pub const EARLY_STEP: f64 = 5_000.0;
/// Checkpoint-interval dial range and step, ms (below the step: only on demand, `x`).
pub const CHECKPOINT_MAX: f64 = 60_000.0;
/// One step of the checkpoint-interval dial, ms; an interval below it takes checkpoints only
/// on demand.
pub const CHECKPOINT_STEP: f64 = 5_000.0;
/// The job's checkpoint interval to start with.
pub const CHECKPOINT_DEFAULT: f64 = 10_000.0;
/// Idle-timeout dial range, ms: a minute, two thirds of the built-in outage (90 s), so the
/// whole range lets idleness take over before the partition heals.
pub const IDLE_MAX: f64 = 60_000.0;
/// One step of the idle-timeout dial, ms (below it: off). Five seconds: as long as the
/// watermark must stand still before the UI calls it stalled, and far above the gaps between a
/// flowing partition's records, so no partition goes idle while it delivers.
pub const IDLE_STEP: f64 = 5_000.0;
/// Playback speeds: processing-time seconds per real second.
pub const SPEEDS: [f64; 9] = [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0];

/// How far the delay dials reach, how they step, and the speeds the speed dial offers: the
/// classroom's constants for a stream counted in seconds, or a wall-clock log's own scale
/// ([`Scale`]), so that a log whose delays are hours is dialled in its steps (15 minutes up to
/// 6 hours on the New York departures) and played in about three minutes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ranges {
    /// The lag dial's reach and step, ms.
    pub lag: (f64, f64),
    /// The grace dial's reach and step, ms.
    pub grace: (f64, f64),
    /// The early trigger's reach and step, ms (below the step it is off).
    pub early: (f64, f64),
    /// The speeds the speed dial offers, slowest first.
    pub speeds: [f64; SPEEDS.len()],
    /// The speed a log plays at unless asked otherwise.
    pub speed: f64,
    /// The ranges are a wall-clock log's: a value off the steps (a preset) moves to the next
    /// step, where the classroom's dials move by a step from it, and values read in hours and
    /// minutes (`2h 45m`).
    pub wall: bool,
}

impl Ranges {
    /// The classroom's dials: lag to 120 s by 1 s, grace to 300 s by 5 s, early to 60 s by
    /// 5 s, speeds 1× to 500×.
    pub const CLASSROOM: Ranges = Ranges {
        lag: (LAG_MAX, LAG_STEP),
        grace: (GRACE_MAX, GRACE_STEP),
        early: (EARLY_MAX, EARLY_STEP),
        speeds: SPEEDS,
        speed: SPEED_DEFAULT,
        wall: false,
    };

    /// The dials' ranges for `stream`: a wall-clock log's scale, else the classroom's.
    pub fn of(stream: &Stream) -> Ranges {
        if !stream.clock.is_wall() {
            return Ranges::CLASSROOM;
        }
        let scale = Scale::of(stream);
        let delay = (scale.reach, scale.step);
        Ranges {
            lag: delay,
            grace: delay,
            early: delay,
            speeds: scale.speeds(),
            speed: scale.speed,
            wall: true,
        }
    }

    /// The value one step up or down from `v` on a dial stepping by `step`: a step from it, or
    /// (on a wall-clock log's dials) the next multiple of the step in that direction.
    fn stepped(&self, v: f64, step: f64, up: bool) -> f64 {
        if !self.wall {
            return v + if up { step } else { -step };
        }
        let at = v / step;
        // A value a hair off a step (a sum of steps) counts as on it.
        let on = (at - at.round()).abs() < 1e-9;
        let from = if on {
            at.round()
        } else if up {
            at.floor()
        } else {
            at.ceil()
        };
        (from + if up { 1.0 } else { -1.0 }) * step
    }
}

/// The watermark families the `w` dial cycles through, in its order: the engine's, so that
/// a kind registered there is on the dial.
pub use twoclocks_engine::WatermarkFamily as Family;

/// The family `steps` positions on from `family` along the dial, round the end.
fn cycled(family: Family, steps: usize) -> Family {
    Family::ALL[(family.index() + steps) % Family::ALL.len()]
}

/// The lag (and the bounded watermark's bound) to start with, ms.
const LAG_DEFAULT: f64 = 20_000.0;
/// The speed to start with when the one given is not a speed.
const SPEED_DEFAULT: f64 = 10.0;

/// The last position of a dial with `n` stops.
fn last_stop(n: usize) -> f64 {
    n.saturating_sub(1) as f64
}

/// The dials' values. The window function is fixed for a session (a flag).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dials {
    /// The window function, fixed for the session (`--window`, `--slide`).
    pub window: WindowFn,
    /// The watermark generator of each family (heuristic keeps its q and n), by [`Family`].
    pub kinds: [WatermarkKind; Family::ALL.len()],
    /// The watermark family in use: its generator is its entry in `kinds`, with the lag dial's
    /// lag where it has one.
    pub family: Family,
    /// Lag of the fixed and bounded watermarks, ms.
    pub lag: f64,
    /// Allowed lateness past the watermark, ms (infinite when the command line gives `inf`:
    /// nothing is dropped).
    pub grace: f64,
    /// The early trigger's interval in processing time, ms (None: no early panes).
    pub early: Option<f64>,
    /// What each pane carries.
    pub accumulation: Accumulation,
    /// Processing-time ms per real second / 1000.
    pub speed: f64,
    /// The parallel job's checkpoint interval, ms (None: only on demand).
    pub checkpoint_every: Option<f64>,
    /// The parallel job's idle timeout, ms (None: off, a silent partition holds the
    /// watermark back until it heals).
    pub idle_timeout: Option<f64>,
    /// Whose rules the engine runs by.
    pub conventions: Conventions,
    /// Beam Java's closing and on-time behaviours, as the command line set them (no dial).
    pub empty_panes: EmptyPanes,
    /// The delay dials' reach and steps, and the speeds offered.
    pub ranges: Ranges,
}

/// What the dials hold that the run's [`Settings`] do not: the speed, the lag dial's position
/// while the watermark in use has none, each watermark family's generator (for when the dial
/// comes back to it), and the dials' reach. The run the user steers owns the settings; these
/// and its settings make the dials as shown ([`Dials::of`]), so the two cannot disagree.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DialMemory {
    kinds: [WatermarkKind; Family::ALL.len()],
    lag: f64,
    speed: f64,
    ranges: Ranges,
}

impl Dials {
    /// The dials of a run on `settings`, with what they remember beside them.
    pub fn of(settings: &Settings, memory: &DialMemory) -> Dials {
        let engine = settings.engine;
        let family = Family::of(&engine.watermark);
        let mut kinds = memory.kinds;
        kinds[family.index()] = engine.watermark;
        Dials {
            window: engine.window,
            kinds,
            family,
            lag: engine.watermark.lag().unwrap_or(memory.lag),
            grace: engine.grace,
            early: engine.early,
            accumulation: engine.accumulation,
            speed: memory.speed,
            checkpoint_every: settings.checkpoint_every,
            idle_timeout: settings.idle_timeout,
            conventions: engine.conventions,
            empty_panes: engine.empty_panes,
            ranges: memory.ranges,
        }
    }

    /// What the dials remember beside the run's settings ([`Dials::settings`]).
    pub fn memory(&self) -> DialMemory {
        DialMemory {
            kinds: self.kinds,
            lag: self.lag,
            speed: self.speed,
            ranges: self.ranges,
        }
    }

    /// Dials preset from an engine configuration and a speed.
    pub fn from_config(cfg: &EngineConfig, speed: f64) -> Dials {
        let mut kinds = Family::ALL.map(|f| f.preset(LAG_DEFAULT));
        let family = Family::of(&cfg.watermark);
        kinds[family.index()] = cfg.watermark;
        Dials {
            window: cfg.window,
            kinds,
            family,
            // Presets beyond the dials' ranges are kept as given (the dial shows them full).
            lag: cfg
                .watermark
                .lag()
                .filter(|l| l.is_finite() && *l >= 0.0)
                .unwrap_or(LAG_DEFAULT),
            grace: if cfg.grace >= 0.0 { cfg.grace } else { 0.0 },
            early: cfg.early,
            accumulation: cfg.accumulation,
            speed: if speed.is_finite() && speed > 0.0 {
                speed
            } else {
                SPEED_DEFAULT
            },
            checkpoint_every: Some(CHECKPOINT_DEFAULT),
            idle_timeout: None,
            conventions: cfg.conventions,
            empty_panes: cfg.empty_panes,
            ranges: Ranges::CLASSROOM,
        }
    }

    /// The dials on `stream`'s scale ([`Ranges::of`]): on a wall-clock log, a speed the log's
    /// speed dial does not offer becomes the log's default.
    pub fn scaled_to(mut self, stream: &Stream) -> Dials {
        self.ranges = Ranges::of(stream);
        if self.ranges.wall && !self.ranges.speeds.contains(&self.speed) {
            self.speed = self.ranges.speed;
        }
        self
    }

    /// The watermark generator in use: the family's, with the lag dial's lag where it has one.
    pub fn watermark(&self) -> WatermarkKind {
        self.kinds[self.family.index()].with_lag(self.lag)
    }

    /// The fixed watermark with this lag (a policy's).
    pub fn set_fixed(&mut self, lag: f64) {
        self.family = Family::Fixed;
        self.kinds[Family::Fixed.index()] = WatermarkKind::Fixed { lag };
        self.lag = lag;
    }

    /// Whether the lag dial means something for the current watermark kind.
    pub fn has_lag(&self) -> bool {
        self.watermark().lag().is_some()
    }

    /// The engine configuration the dials ask for (the job's checkpoint interval aside).
    pub fn config(&self) -> EngineConfig {
        EngineConfig {
            window: self.window,
            watermark: self.watermark(),
            grace: self.grace,
            early: self.early,
            accumulation: self.accumulation,
            conventions: self.conventions,
            empty_panes: self.empty_panes,
        }
    }

    /// What the dials ask the engine for: its configuration, and the job's checkpoint interval
    /// and idle timeout.
    pub fn settings(&self) -> Settings {
        Settings {
            engine: self.config(),
            checkpoint_every: self.checkpoint_every,
            idle_timeout: self.idle_timeout,
        }
    }

    /// Where a dial sits on its track, 0 to 1 (for drawing and for the mouse).
    pub fn ratio(&self, d: Dial) -> f64 {
        let r = match d {
            Dial::Lag => self.lag / self.ranges.lag.0,
            Dial::Grace => self.grace / self.ranges.grace.0,
            Dial::Early => self.early.map_or(0.0, |e| e / self.ranges.early.0),
            Dial::Speed => {
                speed_index(&self.ranges.speeds, self.speed) as f64 / last_stop(SPEEDS.len())
            }
            Dial::Watermark => self.family.index() as f64 / last_stop(Family::ALL.len()),
            Dial::Accumulation => {
                Accumulation::ALL
                    .iter()
                    .position(|a| *a == self.accumulation)
                    .unwrap_or(0) as f64
                    / last_stop(Accumulation::ALL.len())
            }
            Dial::Checkpoint => self.checkpoint_every.map_or(0.0, |c| c / CHECKPOINT_MAX),
            Dial::Idle => self.idle_timeout.map_or(0.0, |c| c / IDLE_MAX),
            Dial::Rules => rules_index(self.conventions) as f64 / last_stop(RULES.len()),
        };
        r.clamp(0.0, 1.0)
    }

    /// Sets a dial from a position on its track, 0 to 1. Returns whether the engine must re-run.
    pub fn set_ratio(&mut self, d: Dial, r: f64) -> bool {
        let r = if r.is_finite() {
            r.clamp(0.0, 1.0)
        } else {
            0.0
        };
        let before = *self;
        match d {
            Dial::Lag => {
                let (max, step) = self.ranges.lag;
                self.lag = (r * max / step).round() * step
            }
            Dial::Grace => {
                let (max, step) = self.ranges.grace;
                self.grace = (r * max / step).round() * step
            }
            Dial::Early => {
                let (max, step) = self.ranges.early;
                let e = (r * max / step).round() * step;
                self.early = (e >= step).then_some(e);
            }
            Dial::Speed => self.speed = self.ranges.speeds[stop_at(r, SPEEDS.len())],
            Dial::Watermark => self.family = Family::ALL[stop_at(r, Family::ALL.len())],
            Dial::Accumulation => {
                self.accumulation = Accumulation::ALL[stop_at(r, Accumulation::ALL.len())]
            }
            Dial::Checkpoint => {
                let c = (r * CHECKPOINT_MAX / CHECKPOINT_STEP).round() * CHECKPOINT_STEP;
                self.checkpoint_every = (c >= CHECKPOINT_STEP).then_some(c);
            }
            Dial::Idle => {
                let c = (r * IDLE_MAX / IDLE_STEP).round() * IDLE_STEP;
                self.idle_timeout = (c >= IDLE_STEP).then_some(c);
            }
            Dial::Rules => self.conventions = RULES[stop_at(r, RULES.len())],
        }
        self.engine_changed(&before)
    }

    /// Whether the engine configuration (the job's checkpoint interval and idle timeout
    /// included) differs from `before`'s.
    pub fn engine_changed(&self, before: &Dials) -> bool {
        self.config() != before.config()
            || self.checkpoint_every != before.checkpoint_every
            || self.idle_timeout != before.idle_timeout
    }

    /// Turns a dial one step. Returns whether the engine must re-run.
    pub fn turn(&mut self, d: Dial, up: bool) -> bool {
        let before = *self;
        let sign = if up { 1.0 } else { -1.0 };
        match d {
            Dial::Lag => {
                let (max, step) = self.ranges.lag;
                self.lag = self
                    .ranges
                    .stepped(self.lag, step, up)
                    .clamp(0.0, max.max(before.lag))
            }
            Dial::Grace => {
                let (max, step) = self.ranges.grace;
                let g = if self.grace.is_finite() {
                    self.grace
                } else {
                    max
                };
                self.grace = self.ranges.stepped(g, step, up).clamp(0.0, max.max(g))
            }
            Dial::Early => {
                let (max, step) = self.ranges.early;
                let e = self.ranges.stepped(self.early.unwrap_or(0.0), step, up);
                self.early = (e >= step).then_some(e.min(max));
            }
            Dial::Speed => {
                let speeds = self.ranges.speeds;
                let i = speed_index(&speeds, self.speed);
                let j = if up {
                    (i + 1).min(speeds.len() - 1)
                } else {
                    i.saturating_sub(1)
                };
                // A preset speed off the list moves to the neighbour in the asked direction.
                self.speed = if speeds[i] == self.speed {
                    speeds[j]
                } else if up {
                    speeds
                        .iter()
                        .copied()
                        .find(|s| *s > self.speed)
                        .unwrap_or(speeds[speeds.len() - 1])
                } else {
                    speeds
                        .iter()
                        .rev()
                        .copied()
                        .find(|s| *s < self.speed)
                        .unwrap_or(speeds[0])
                };
            }
            Dial::Watermark => {
                self.family = cycled(self.family, if up { 1 } else { Family::ALL.len() - 1 })
            }
            Dial::Accumulation => {
                self.accumulation = if up {
                    self.accumulation.next()
                } else {
                    self.accumulation.next().next()
                }
            }
            Dial::Checkpoint => {
                let c = self.checkpoint_every.unwrap_or(0.0) + sign * CHECKPOINT_STEP;
                self.checkpoint_every = (c >= CHECKPOINT_STEP).then_some(c.min(CHECKPOINT_MAX));
            }
            Dial::Idle => {
                // A preset off the steps (from the command line) moves to the next step.
                let now = self.idle_timeout.unwrap_or(0.0);
                let c = if up {
                    ((now / IDLE_STEP).floor() + 1.0) * IDLE_STEP
                } else {
                    ((now / IDLE_STEP).ceil() - 1.0) * IDLE_STEP
                };
                self.idle_timeout = (c >= IDLE_STEP).then_some(c.min(IDLE_MAX.max(now)));
            }
            Dial::Rules => {
                let i = rules_index(self.conventions);
                let n = RULES.len();
                self.conventions = RULES[if up { (i + 1) % n } else { (i + n - 1) % n }];
            }
        }
        self.engine_changed(&before)
    }
}

/// Where `c` stands in [`RULES`] (Beam Java's for one the dial does not offer).
fn rules_index(c: Conventions) -> usize {
    RULES.iter().position(|r| *r == c).unwrap_or(0)
}

/// The stop (of `n`) nearest to position `r` (0 to 1) on a track.
fn stop_at(r: f64, n: usize) -> usize {
    ((r * last_stop(n)).round() as usize).min(n.saturating_sub(1))
}

/// The entry of the speed list `speeds` nearest to `speed`.
fn speed_index(speeds: &[f64], speed: f64) -> usize {
    speeds
        .iter()
        .enumerate()
        .min_by(|a, b| (a.1 - speed).abs().total_cmp(&(b.1 - speed).abs()))
        .map_or(0, |(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use twoclocks_engine::trigger::{ClosingBehavior, OnTimeBehavior};

    #[test]
    fn the_watermark_dial_offers_every_family_and_keeps_the_one_given() {
        for family in Family::ALL {
            let cfg = EngineConfig {
                watermark: family.preset(5_000.0),
                ..EngineConfig::fixed(20_000.0, 0.0)
            };
            let d = Dials::from_config(&cfg, 10.0);
            assert_eq!(d.family, family);
            assert_eq!(d.watermark(), cfg.watermark);
        }
        let mut d = Dials::from_config(&EngineConfig::fixed(20_000.0, 0.0), 10.0);
        let first = d.family;
        let seen: Vec<Family> = (0..Family::ALL.len())
            .map(|_| {
                d.turn(Dial::Watermark, true);
                d.family
            })
            .collect();
        assert_eq!(d.family, first);
        assert!(Family::ALL.iter().all(|f| seen.contains(f)));
    }

    #[test]
    fn the_dials_keep_beam_javas_closing_and_on_time_behaviours() {
        let empty_panes = EmptyPanes {
            closing: ClosingBehavior::FireAlways,
            on_time: OnTimeBehavior::FireIfNonEmpty,
        };
        let cfg = EngineConfig {
            empty_panes,
            ..EngineConfig::fixed(20_000.0, 5_000.0)
        };
        let mut dials = Dials::from_config(&cfg, 1.0);
        dials.grace = 10_000.0;
        assert_eq!(dials.config().empty_panes, empty_panes);
    }
}
