//! The built-in scenarios, one catalogue for the command line and the UI: each is a name, a
//! one-line description, how its stream is made (the classroom generator's dials, or a
//! generator of its own), the engine dials it opens with, and for some a parallel job's
//! shape. Pure: a scenario's stream is a function of its seed.

mod lesson;
mod opened;
mod sessions;

use crate::pipeline::{Outage, PartitionBy};
use crate::stream::{ParamsError, StreamParams};
use crate::{Accumulation, EngineConfig, Stream, WatermarkKind, WindowFn};

use lesson::lesson;
use lesson::LESSON_SEED;
pub use opened::Scenario;
use sessions::sessions;
pub(crate) use sessions::SESSIONS_SEED;

/// A named built-in scenario; [`ScenarioName::description`] says what each is, as `--help`
/// lists it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ScenarioName {
    /// The reference's seed-7 stream.
    #[default]
    Classroom,
    /// Almost in order.
    Punctual,
    /// A third of the events in a long tail.
    Stormy,
    /// A partition out for a minute and a half.
    Outage,
    /// Users in bursts with idle gaps: session windows.
    Sessions,
    /// About 200 events, every fate and pane timing at least once.
    Lesson,
}

/// How a scenario's stream is made.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// The classroom generator with these dials.
    Generator(StreamParams),
    /// The sessions generator (users in bursts with idle gaps) with this seed.
    Sessions {
        /// Its seed.
        seed: u64,
    },
    /// The lesson's generator (about 200 events, every fate and pane timing) with this seed.
    Lesson {
        /// Its seed.
        seed: u64,
    },
}

impl Source {
    /// The stream this source makes.
    pub fn stream(&self) -> Result<Stream, ParamsError> {
        match self {
            Source::Generator(p) => Stream::generate(p),
            Source::Sessions { seed } => Ok(sessions(*seed)),
            Source::Lesson { seed } => Ok(lesson(*seed)),
        }
    }

    /// The seed the stream is drawn with.
    pub fn seed(&self) -> u64 {
        match self {
            Source::Generator(p) => p.seed,
            Source::Sessions { seed } | Source::Lesson { seed } => *seed,
        }
    }

    /// Whether its stream is the classroom generator's (whose other dials may be changed).
    pub fn is_generator(&self) -> bool {
        matches!(self, Source::Generator(_))
    }
}

/// The parallel job a scenario runs as: its shape and the outages it suffers.
#[derive(Debug, Clone, PartialEq)]
pub struct JobShape {
    /// Source partitions.
    pub partitions: usize,
    /// How events are spread over them.
    pub partition_by: PartitionBy,
    /// Keyed window operator instances.
    pub parallelism: usize,
    /// Checkpoint interval in processing time, ms.
    pub checkpoint_every: Option<f64>,
    /// Partitions that fall silent for a while.
    pub outages: Vec<Outage>,
}

/// Everything a scenario presets: its stream, the dials and the job.
#[derive(Debug, Clone, PartialEq)]
pub struct Preset {
    /// How its stream is made.
    pub source: Source,
    /// The engine dials it opens with.
    pub config: EngineConfig,
    /// The parallel job it runs as, if any (else the single processor).
    pub job: Option<JobShape>,
}

/// The classroom defaults: 60 s tumbling windows, `fixed:20s`, no grace, no early trigger,
/// accumulating (what the flags give when none is set).
fn classroom_dials() -> EngineConfig {
    EngineConfig::fixed(20_000.0, 0.0)
}

impl ScenarioName {
    /// Every scenario, in the order `--help` lists them.
    pub const ALL: [ScenarioName; 6] = [
        ScenarioName::Classroom,
        ScenarioName::Punctual,
        ScenarioName::Stormy,
        ScenarioName::Outage,
        ScenarioName::Sessions,
        ScenarioName::Lesson,
    ];

    /// The scenario's name as given on the command line and shown on screen.
    pub fn label(&self) -> &'static str {
        match self {
            ScenarioName::Classroom => "classroom",
            ScenarioName::Punctual => "punctual",
            ScenarioName::Stormy => "stormy",
            ScenarioName::Outage => "outage",
            ScenarioName::Sessions => "sessions",
            ScenarioName::Lesson => "lesson",
        }
    }

    /// The scenario named `label`, if there is one.
    pub fn from_label(label: &str) -> Option<ScenarioName> {
        ScenarioName::ALL.into_iter().find(|n| n.label() == label)
    }

    /// What the scenario is, in one line (its entry in `--help`, which ends it without a full
    /// stop).
    pub fn description(&self) -> &'static str {
        match self {
            ScenarioName::Classroom => {
                "The reference's seed-7 stream: 20 000 events over 600 s, 8 % of them in a 90 s tail"
            }
            ScenarioName::Punctual => {
                "Almost in order: 1 % tail, short delays. The watermark is rarely wrong"
            }
            ScenarioName::Stormy => {
                "A third of the events in a 120 s tail: the watermark is wrong all the time"
            }
            ScenarioName::Outage => {
                "A partition out for a minute and a half: the classroom stream keyed over 4 partitions, partition 1 silent from 200 s to 290 s"
            }
            ScenarioName::Sessions => {
                "A few hundred users in bursts with idle gaps, some returning after long silences: 30 s session windows"
            }
            ScenarioName::Lesson => {
                "About 200 events over 5 minutes, 2 keys, 30 s windows: every fate and pane timing at least once"
            }
        }
    }

    /// The classroom generator's dials for this scenario, if its stream is the generator's.
    pub fn params(&self) -> Option<StreamParams> {
        match self.preset().source {
            Source::Generator(p) => Some(p),
            _ => None,
        }
    }

    /// What the scenario presets.
    pub fn preset(&self) -> Preset {
        let base = StreamParams::default();
        let plain = |source: Source| Preset {
            source,
            config: classroom_dials(),
            job: None,
        };
        match self {
            ScenarioName::Classroom => plain(Source::Generator(base)),
            ScenarioName::Punctual => plain(Source::Generator(StreamParams {
                tail: 0.01,
                mean_delay: 500.0,
                tail_max: 30_000.0,
                ..base
            })),
            ScenarioName::Stormy => plain(Source::Generator(StreamParams {
                tail: 0.33,
                tail_max: 120_000.0,
                ..base
            })),
            ScenarioName::Outage => Preset {
                job: Some(JobShape {
                    partitions: 4,
                    partition_by: PartitionBy::Key,
                    parallelism: 2,
                    checkpoint_every: Some(10_000.0),
                    outages: vec![Outage {
                        partition: 1,
                        from: 200_000.0,
                        until: 290_000.0,
                    }],
                }),
                ..plain(Source::Generator(base))
            },
            ScenarioName::Sessions => Preset {
                config: EngineConfig {
                    window: WindowFn::Session { gap: 30_000 },
                    watermark: WatermarkKind::Fixed { lag: 10_000.0 },
                    grace: 60_000.0,
                    early: None,
                    accumulation: Accumulation::Accumulating,
                    conventions: Default::default(),
                    empty_panes: Default::default(),
                },
                ..plain(Source::Sessions {
                    seed: SESSIONS_SEED,
                })
            },
            ScenarioName::Lesson => Preset {
                config: EngineConfig {
                    window: WindowFn::Tumbling {
                        size: 30_000,
                        offset: 0,
                    },
                    watermark: WatermarkKind::Fixed { lag: 5_000.0 },
                    grace: 20_000.0,
                    early: Some(10_000.0),
                    accumulation: Accumulation::Accumulating,
                    conventions: Default::default(),
                    empty_panes: Default::default(),
                },
                ..plain(Source::Lesson { seed: LESSON_SEED })
            },
        }
    }
}
