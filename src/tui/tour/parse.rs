//! A tour file read: TOML into raw steps (serde, with each field's place in the text), then
//! every step checked into a [`Step`] — the scenario's name, the dials in their ranges, the
//! playhead and crash times inside the stream, the panel names, the placeholders and the big
//! figures. Any fault is a [`TourError`] naming the file, the line and the field.

use std::ops::Range;

use serde::Deserialize;
use toml::Spanned;

use super::placeholders;
use super::{At, Highlight, Show, Step, StepDials, TourError, BIG_FIGURES, HIDEABLE, PANELS};
use crate::engine::scenario::ScenarioName;
use crate::engine::Accumulation;
use crate::tui::dials::{Family, EARLY_MAX, EARLY_STEP, GRACE_MAX, LAG_MAX};

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
    title: Spanned<String>,
    caption: Spanned<String>,
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
    big: Option<Spanned<Vec<String>>>,
    hide: Option<Spanned<Vec<String>>>,
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
    raw.step.into_iter().map(|s| check(file, text, s)).collect()
}

/// A duration as a tour writes it: `90s`, `1.5s`, `500ms`, `2m` (a bare number is seconds),
/// in ms.
pub fn duration(s: &str) -> Result<f64, String> {
    let s = s.trim();
    let (num, scale) = if let Some(n) = s.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = s.strip_suffix('s') {
        (n, 1_000.0)
    } else if let Some(n) = s.strip_suffix('m') {
        (n, 60_000.0)
    } else {
        (s, 1_000.0)
    };
    match num.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v * scale),
        _ => Err(format!(
            "{s:?} is not a duration: write e.g. \"90s\", \"500ms\" or \"2m\""
        )),
    }
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
    let lag = ranged(&s.lag, "lag", LAG_MAX)?;
    let grace = ranged(&s.grace, "grace", GRACE_MAX)?;
    let early = match &s.early {
        None => None,
        Some(v) if v.get_ref() == "off" => Some(None),
        Some(v) => {
            let ms = ranged(&s.early, "early", EARLY_MAX)?.unwrap_or(0.0);
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
    let watermark = s
        .watermark
        .as_ref()
        .map(|v| {
            Family::ALL
                .into_iter()
                .find(|f| f.name() == v.get_ref())
                .ok_or_else(|| {
                    err(
                        v.span(),
                        "watermark",
                        format!(
                            "{:?} is not a watermark kind: perfect, fixed, heuristic or bounded",
                            v.get_ref()
                        ),
                    )
                })
        })
        .transpose()?;
    let accumulation = s
        .accumulation
        .as_ref()
        .map(|v| {
            Accumulation::ALL
                .into_iter()
                .find(|a| a.name() == v.get_ref())
                .ok_or_else(|| {
                    let names: Vec<&str> = Accumulation::ALL.iter().map(|a| a.name()).collect();
                    err(
                        v.span(),
                        "accumulation",
                        format!(
                            "{:?} is not an accumulation mode: {}",
                            v.get_ref(),
                            names.join(", ")
                        ),
                    )
                })
        })
        .transpose()?;
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
                        PANELS.join(", ")
                    ),
                ))
            }
            ShowValue::Panels(names) => {
                let mut mask = 0u16;
                for name in names {
                    let i = PANELS.iter().position(|p| p == name).ok_or_else(|| {
                        err(
                            v.span(),
                            "show",
                            format!("{name:?} is not a panel: {}", PANELS.join(", ")),
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
            PANELS
                .iter()
                .find(|p| **p == v.get_ref())
                .map(|p| Highlight::Panel(p))
                .ok_or_else(|| {
                    err(
                        v.span(),
                        "highlight",
                        format!(
                            "{:?} is not a panel: window, {}",
                            v.get_ref(),
                            PANELS.join(", ")
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
    let title = s.title.get_ref().trim().to_string();
    if title.is_empty() {
        return Err(err(s.title.span(), "title", "a step needs a title".into()));
    }
    Ok(Step {
        title,
        caption,
        scenario,
        dials: StepDials {
            lag,
            grace,
            early,
            watermark,
            accumulation,
        },
        playhead,
        job,
        crash_at,
        show,
        magnify,
        highlight,
        window: s
            .window
            .map(|w| (*w.get_ref(), line_of(text, w.span().start))),
        big,
        hide,
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
        assert_eq!(duration("1.5"), Ok(1_500.0));
        assert!(duration("-1s").is_err());
        assert!(duration("soon").is_err());
    }
}
