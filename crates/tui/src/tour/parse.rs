//! A tour file read: TOML into raw steps (serde, with each field's place in the text), then
//! every step checked into a [`Step`] — the scenario's name, the dials in their ranges, the
//! playhead and crash times inside the stream, the panel names, the placeholders and the big
//! figures. Any fault is a [`TourError`] naming the file, the line and the field.

use std::ops::Range;

use serde::Deserialize;
use toml::Spanned;

use super::placeholders;
use super::{At, Highlight, Show, Step, StepDials, TourError, BIG_FIGURES, HIDEABLE};
use crate::dials::{Family, EARLY_MAX, EARLY_STEP, GRACE_MAX, IDLE_MAX, IDLE_STEP, LAG_MAX};
use crate::lesson::predict::Ask;
use crate::panel::Panel;
use twoclocks_engine::duration::Duration;
use twoclocks_engine::scenario::ScenarioName;
use twoclocks_engine::window::{Ttl, TtlTime};
use twoclocks_engine::{Accumulation, WindowFn};

/// `show` as written: a word ("all", "plot") or a list of panels.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum ShowValue {
    Word(String),
    Panels(Vec<String>),
}

/// The finest and coarsest magnification a step may ask for, ms per column.
const MAGNIFY_RANGE: (f64, f64) = (10.0, 60_000.0);

/// The file as written: a list of `[[step]]` tables.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTour {
    step: Vec<RawStep>,
}

/// One `[[step]]` table as written: every field but the title and caption may be left out.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStep {
    name: Option<Spanned<String>>,
    title: Spanned<String>,
    caption: Spanned<String>,
    case: Option<Spanned<Vec<String>>>,
    off_case: Option<Spanned<String>>,
    scenario: Option<Spanned<String>>,
    playhead: Option<Spanned<String>>,
    lag: Option<Spanned<String>>,
    grace: Option<Spanned<String>>,
    early: Option<Spanned<String>>,
    watermark: Option<Spanned<String>>,
    accumulation: Option<Spanned<String>>,
    job: Option<Spanned<bool>>,
    crash_at: Option<Spanned<Vec<String>>>,
    show: Option<Spanned<ShowValue>>,
    magnify: Option<Spanned<String>>,
    highlight: Option<Spanned<String>>,
    window: Option<Spanned<usize>>,
    key: Option<Spanned<String>>,
    big: Option<Spanned<Vec<String>>>,
    hide: Option<Spanned<Vec<String>>>,
    windows: Option<Spanned<String>>,
    ttl: Option<Spanned<String>>,
    idle: Option<Spanned<String>>,
    side: Option<Spanned<RawSide>>,
    predict: Option<Spanned<String>>,
}

/// A step's `side` table as written: the dials B runs with, over the step's.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSide {
    lag: Option<Spanned<String>>,
    grace: Option<Spanned<String>>,
    early: Option<Spanned<String>>,
    watermark: Option<Spanned<String>>,
    accumulation: Option<Spanned<String>>,
    idle: Option<Spanned<String>>,
}

/// The dial fields a step and its `side` table both may set, as written.
struct RawDials<'a> {
    lag: &'a Option<Spanned<String>>,
    grace: &'a Option<Spanned<String>>,
    early: &'a Option<Spanned<String>>,
    watermark: &'a Option<Spanned<String>>,
    accumulation: &'a Option<Spanned<String>>,
    idle: &'a Option<Spanned<String>>,
}

/// The line (from 1) of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The field a parse error's place names: the key written before `=` on its line, the table
/// header, or, for an unknown field, the name the message quotes.
fn field_at(text: &str, span: &Range<usize>, message: &str) -> String {
    if let Some(rest) = message.strip_prefix("unknown field `") {
        if let Some(end) = rest.find('`') {
            return rest[..end].to_string();
        }
    }
    let start = text[..span.start.min(text.len())]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let line = text[start..].lines().next().unwrap_or("");
    match line.split_once('=') {
        Some((key, _)) if !line.trim_start().starts_with('[') => key.trim().to_string(),
        _ => line.trim().trim_matches(['[', ']']).to_string(),
    }
}

/// Parses and checks a tour file's `text`; `file` names it in errors.
pub fn parse(file: &str, text: &str) -> Result<Vec<Step>, TourError> {
    let raw: RawTour = toml::from_str(text).map_err(|e| {
        let span = e.span().unwrap_or(0..0);
        let message = e.message().trim().to_string();
        TourError {
            file: file.to_string(),
            line: line_of(text, span.start),
            field: field_at(text, &span, &message),
            message,
        }
    })?;
    if raw.step.is_empty() {
        return Err(TourError {
            file: file.to_string(),
            line: 1,
            field: "step".into(),
            message: "a tour needs one [[step]] at least".into(),
        });
    }
    let steps: Vec<Step> = raw
        .step
        .into_iter()
        .map(|s| check(file, text, s))
        .collect::<Result<_, _>>()?;
    for (i, s) in steps.iter().enumerate() {
        let Some(name) = &s.name else { continue };
        if let Some(first) = steps[..i].iter().find(|t| t.name.as_ref() == Some(name)) {
            return Err(TourError {
                file: file.to_string(),
                line: s.name_line,
                field: "name".into(),
                message: format!(
                    "{name:?} already names the step on line {}: each name opens one step",
                    first.line
                ),
            });
        }
    }
    Ok(steps)
}

/// Whether `name` may name a step: lower-case letters, digits and `-`, not only digits (a
/// number opens the step of that number).
fn good_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !name.chars().all(|c| c.is_ascii_digit())
}

/// A window function as a step writes it, in the engine's grammar ([`WindowFn`]'s `FromStr`):
/// `tumbling 30s`, `sliding 60s every 10s`, `session 30s` (its gap) or `global`; a TTL (ms,
/// the step's `ttl`) goes with the global window only.
fn window_fn(s: &str, ttl: Option<i64>) -> Result<WindowFn, String> {
    let w: WindowFn = s.parse()?;
    match ttl {
        None => Ok(w),
        Some(ms) if w.is_global() => WindowFn::global(Some(Ttl {
            ms,
            time: TtlTime::Processing,
        }))
        .map_err(|e| e.to_string()),
        Some(_) => Err(format!(
            "a state TTL is the global window's: write windows = \"global\" (not {s:?})"
        )),
    }
}

/// A duration as a tour writes it, in ms: the engine's [`Duration`] grammar, as the command
/// line reads it (`90s`, `1.5s`, `500ms`, `2m`, `1h`; a unit is required).
pub fn duration(s: &str) -> Result<f64, String> {
    s.parse::<Duration>().map(Duration::ms)
}

/// The dials a step (or its `side` table) sets, each in its dial's range; `side` says which
/// (`side.` before the field's name in errors).
fn dials(file: &str, text: &str, d: RawDials, side: bool) -> Result<StepDials, TourError> {
    let err = |span: Range<usize>, field: &str, message: String| TourError {
        file: file.to_string(),
        line: line_of(text, span.start),
        field: if side {
            format!("side.{field}")
        } else {
            field.to_string()
        },
        message,
    };
    let ranged = |v: &Option<Spanned<String>>, field: &str, max: f64| {
        v.as_ref()
            .map(|v| {
                let ms = duration(v.get_ref()).map_err(|m| err(v.span(), field, m))?;
                if ms > max {
                    return Err(err(
                        v.span(),
                        field,
                        format!(
                            "{} is past the dial's top, {} s",
                            v.get_ref(),
                            max / 1_000.0
                        ),
                    ));
                }
                Ok(ms)
            })
            .transpose()
    };
    let lag = ranged(d.lag, "lag", LAG_MAX)?;
    let grace = ranged(d.grace, "grace", GRACE_MAX)?;
    let early = match d.early {
        None => None,
        Some(v) if v.get_ref() == "off" => Some(None),
        Some(v) => {
            let ms = ranged(d.early, "early", EARLY_MAX)?.unwrap_or(0.0);
            if ms < EARLY_STEP {
                return Err(err(
                    v.span(),
                    "early",
                    format!(
                        "{} is below the dial's first step, {} s: write \"off\" for no early panes",
                        v.get_ref(),
                        EARLY_STEP / 1_000.0
                    ),
                ));
            }
            Some(Some(ms))
        }
    };
    let watermark = d
        .watermark
        .as_ref()
        .map(|v| {
            v.get_ref()
                .parse::<Family>()
                .map_err(|m| err(v.span(), "watermark", m))
        })
        .transpose()?;
    let accumulation = d
        .accumulation
        .as_ref()
        .map(|v| {
            v.get_ref()
                .parse::<Accumulation>()
                .map_err(|m| err(v.span(), "accumulation", m))
        })
        .transpose()?;
    let idle = match d.idle {
        None => None,
        Some(v) if v.get_ref() == "off" => Some(None),
        Some(v) => {
            let ms = ranged(d.idle, "idle", IDLE_MAX)?.unwrap_or(0.0);
            if ms < IDLE_STEP {
                return Err(err(
                    v.span(),
                    "idle",
                    format!(
                        "{} is below the dial's first step, {} s: write \"off\" for no idle \
                         timeout",
                        v.get_ref(),
                        IDLE_STEP / 1_000.0
                    ),
                ));
            }
            Some(Some(ms))
        }
    };
    Ok(StepDials {
        lag,
        grace,
        early,
        watermark,
        accumulation,
        idle,
    })
}

/// The place in [`Panel::TAUGHT`] of the panel a step names (None: no panel a step may name).
fn taught(name: &str) -> Option<usize> {
    name.parse::<Panel>().ok()?.taught_index()
}

fn check(file: &str, text: &str, s: RawStep) -> Result<Step, TourError> {
    let err = |span: Range<usize>, field: &str, message: String| TourError {
        file: file.to_string(),
        line: line_of(text, span.start),
        field: field.to_string(),
        message,
    };
    let caption = s.caption.get_ref().trim().to_string();
    placeholders::check(&caption).map_err(|m| err(s.caption.span(), "caption", m))?;
    let case = match &s.case {
        None => Vec::new(),
        Some(c) => c
            .get_ref()
            .iter()
            .map(|w| super::case::Condition::parse(w))
            .collect::<Result<_, _>>()
            .map_err(|m| err(c.span(), "case", m))?,
    };
    let off_case = s
        .off_case
        .as_ref()
        .map(|o| o.get_ref().trim().to_string())
        .unwrap_or_default();
    match (&s.case, &s.off_case) {
        (Some(c), None) => {
            return Err(err(
                c.span(),
                "case",
                "a step with a case says what holds outside it: add off_case".into(),
            ))
        }
        (None, Some(o)) => {
            return Err(err(
                o.span(),
                "off_case",
                "off_case is said outside the step's case: add case".into(),
            ))
        }
        (Some(_), Some(o)) => {
            placeholders::check(&off_case).map_err(|m| err(o.span(), "off_case", m))?;
        }
        (None, None) => {}
    }
    let scenario = match &s.scenario {
        None => ScenarioName::Lesson,
        Some(v) => ScenarioName::ALL
            .into_iter()
            .find(|n| n.label() == v.get_ref())
            .ok_or_else(|| {
                let names: Vec<&str> = ScenarioName::ALL.iter().map(|n| n.label()).collect();
                err(
                    v.span(),
                    "scenario",
                    format!(
                        "{:?} is not a scenario: one of {}",
                        v.get_ref(),
                        names.join(", ")
                    ),
                )
            })?,
    };
    let step_dials = dials(
        file,
        text,
        RawDials {
            lag: &s.lag,
            grace: &s.grace,
            early: &s.early,
            watermark: &s.watermark,
            accumulation: &s.accumulation,
            idle: &s.idle,
        },
        false,
    )?;
    let playhead = match &s.playhead {
        None => At::Start,
        Some(v) if v.get_ref() == "start" => At::Start,
        Some(v) if v.get_ref() == "end" => At::End,
        Some(v) => At::Time(duration(v.get_ref()).map_err(|m| {
            err(
                v.span(),
                "playhead",
                format!("{m}, or \"start\" or \"end\""),
            )
        })?),
    };
    let job = s.job.as_ref().is_some_and(|j| *j.get_ref());
    let mut crash_at = Vec::new();
    if let Some(v) = &s.crash_at {
        if !job {
            return Err(err(
                v.span(),
                "crash_at",
                "crashes need the parallel job: add job = true".into(),
            ));
        }
        for c in v.get_ref() {
            let ms = duration(c).map_err(|m| err(v.span(), "crash_at", m))?;
            let before = match playhead {
                At::Start => false,
                At::Time(t) => ms <= t,
                At::End => true,
            };
            if !before {
                return Err(err(
                    v.span(),
                    "crash_at",
                    format!("the crash at {c} is after the step's playhead: it would not be seen"),
                ));
            }
            crash_at.push(ms);
        }
        crash_at.sort_by(f64::total_cmp);
    }
    let show = match &s.show {
        None => Show::All,
        Some(v) => match v.get_ref() {
            ShowValue::Word(w) if w == "all" => Show::All,
            ShowValue::Word(w) if w == "plot" => Show::Plot,
            ShowValue::Word(other) => {
                return Err(err(
                    v.span(),
                    "show",
                    format!(
                        "{other:?} is not what a step shows: \"all\", \"plot\" or a list of \
                         panels ({})",
                        Panel::taught_names()
                    ),
                ))
            }
            ShowValue::Panels(names) => {
                let mut mask = 0u16;
                for name in names {
                    let i = taught(name).ok_or_else(|| {
                        err(
                            v.span(),
                            "show",
                            format!("{name:?} is not a panel: {}", Panel::taught_names()),
                        )
                    })?;
                    mask |= 1 << i;
                }
                Show::Only(mask)
            }
        },
    };
    let magnify = match &s.magnify {
        None => None,
        Some(v) if v.get_ref() == "off" => Some(None),
        Some(v) => {
            let ms = duration(v.get_ref()).map_err(|m| err(v.span(), "magnify", m))?;
            if !(MAGNIFY_RANGE.0..=MAGNIFY_RANGE.1).contains(&ms) {
                return Err(err(
                    v.span(),
                    "magnify",
                    format!(
                        "{} a column is outside {} ms to {} s: write \"off\" for the whole \
                         stream",
                        v.get_ref(),
                        MAGNIFY_RANGE.0,
                        MAGNIFY_RANGE.1 / 1_000.0
                    ),
                ));
            }
            Some(Some(ms))
        }
    };
    let highlight = s
        .highlight
        .as_ref()
        .map(|v| {
            if v.get_ref() == "window" {
                return Ok(Highlight::Window);
            }
            taught(v.get_ref())
                .map(|i| Highlight::Panel(Panel::TAUGHT[i]))
                .ok_or_else(|| {
                    err(
                        v.span(),
                        "highlight",
                        format!(
                            "{:?} is not a panel: window, {}",
                            v.get_ref(),
                            Panel::taught_names()
                        ),
                    )
                })
        })
        .transpose()?;
    let mut big = Vec::new();
    if let Some(v) = &s.big {
        for name in v.get_ref() {
            if !BIG_FIGURES.contains(&name.as_str()) {
                return Err(err(
                    v.span(),
                    "big",
                    format!(
                        "{name:?} is not a figure big numbers show: {}",
                        BIG_FIGURES.join(", ")
                    ),
                ));
            }
            big.push(name.clone());
        }
    }
    let mut hide = Vec::new();
    if let Some(v) = &s.hide {
        for name in v.get_ref() {
            match HIDEABLE.iter().find(|h| **h == name.as_str()) {
                Some(h) => hide.push(*h),
                None => {
                    return Err(err(
                        v.span(),
                        "hide",
                        format!(
                            "{name:?} is not something a step keeps back: {}",
                            HIDEABLE.join(", ")
                        ),
                    ))
                }
            }
        }
    }
    let name = s
        .name
        .as_ref()
        .map(|v| {
            let n = v.get_ref().trim();
            if good_name(n) {
                Ok(n.to_string())
            } else {
                Err(err(
                    v.span(),
                    "name",
                    format!(
                        "{:?} cannot name a step: lower-case letters, digits and -, not a \
                         number alone (`--from 3` opens step 3)",
                        v.get_ref()
                    ),
                ))
            }
        })
        .transpose()?;
    let name_line = s.name.as_ref().map_or(0, |v| line_of(text, v.span().start));
    let ttl = s
        .ttl
        .as_ref()
        .map(|v| {
            let ms = duration(v.get_ref()).map_err(|m| err(v.span(), "ttl", m))?;
            if ms < 1.0 || ms.fract() != 0.0 || ms > 1e12 {
                return Err(err(
                    v.span(),
                    "ttl",
                    format!(
                        "{} is not a TTL: a whole number of ms, at least 1 ms",
                        v.get_ref()
                    ),
                ));
            }
            Ok(ms as i64)
        })
        .transpose()?;
    let windows = match (&s.windows, &s.ttl) {
        (Some(v), _) => Some(window_fn(v.get_ref(), ttl).map_err(|m| err(v.span(), "windows", m))?),
        (None, Some(t)) => {
            return Err(err(
                t.span(),
                "ttl",
                "a state TTL is the global window's: add windows = \"global\"".into(),
            ))
        }
        (None, None) => None,
    };
    if let Some(v) = &s.idle {
        if !job {
            return Err(err(
                v.span(),
                "idle",
                "the idle timeout is the parallel job's: add job = true".into(),
            ));
        }
    }
    let side = s
        .side
        .as_ref()
        .map(|v| {
            let d = v.get_ref();
            if let (Some(i), false) = (&d.idle, job) {
                return Err(err(
                    i.span(),
                    "side.idle",
                    "the idle timeout is the parallel job's: add job = true".into(),
                ));
            }
            let b = dials(
                file,
                text,
                RawDials {
                    lag: &d.lag,
                    grace: &d.grace,
                    early: &d.early,
                    watermark: &d.watermark,
                    accumulation: &d.accumulation,
                    idle: &d.idle,
                },
                true,
            )?;
            if b == StepDials::default() {
                return Err(err(
                    v.span(),
                    "side",
                    "B would run A's dials: give B a dial of its own, e.g. side = { idle = \"off\" }"
                        .into(),
                ));
            }
            Ok(b)
        })
        .transpose()?;
    let predict = s
        .predict
        .as_ref()
        .map(|v| {
            let ask = Ask::parse(v.get_ref()).ok_or_else(|| {
                err(
                    v.span(),
                    "predict",
                    format!(
                        "{:?} is not a question: \"next-late\", \"next-pane\" or an event's \
                         number in processing order (from 0)",
                        v.get_ref()
                    ),
                )
            })?;
            if job || side.is_some() {
                return Err(err(
                    v.span(),
                    "predict",
                    "a prediction is asked of the single processor's run: leave out job and side"
                        .into(),
                ));
            }
            Ok((ask, line_of(text, v.span().start)))
        })
        .transpose()?;
    let title = s.title.get_ref().trim().to_string();
    if title.is_empty() {
        return Err(err(s.title.span(), "title", "a step needs a title".into()));
    }
    Ok(Step {
        name,
        name_line,
        title,
        caption,
        case,
        off_case,
        scenario,
        windows,
        dials: step_dials,
        side,
        playhead,
        job,
        crash_at,
        show,
        magnify,
        highlight,
        key: s
            .key
            .as_ref()
            .map(|k| (k.get_ref().clone(), line_of(text, k.span().start))),
        window: s
            .window
            .map(|w| (*w.get_ref(), line_of(text, w.span().start))),
        big,
        hide,
        predict,
        line: line_of(text, s.title.span().start),
        playhead_line: s
            .playhead
            .as_ref()
            .map_or(0, |p| line_of(text, p.span().start)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_a_tour_writes_them() {
        assert_eq!(duration("90s"), Ok(90_000.0));
        assert_eq!(duration("500ms"), Ok(500.0));
        assert_eq!(duration("2m"), Ok(120_000.0));
        assert_eq!(duration("1.5s"), Ok(1_500.0));
        assert_eq!(duration("1h"), Ok(3_600_000.0));
        assert!(duration("1.5").is_err());
        assert!(duration("-1s").is_err());
        assert!(duration("soon").is_err());
    }
}
