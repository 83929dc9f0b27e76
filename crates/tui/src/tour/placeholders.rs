//! A caption's placeholders: `{name}` stands for a figure of the read model at the playhead
//! and dials shown (`{dropped}`, `{watermark}`, …), so a caption never types a number in.
//! Checked when the tour is read (an unknown name is an error), filled when it is drawn from
//! what the screen shows ([`Quoted`]): the run's figures, the dials, the whole run's score
//! and, side by side, B's figures.

use crate::dials::Dials;
use crate::figures::Figures;
use crate::lesson::predict::{capitalised, choice_text, window_text, Choice, Question};
use twoclocks_engine::{CellId, Stream};

/// What a caption quotes: the figures of the run on screen at its playhead, its dials, the
/// events the whole run loses at the end (its score, once known) and, with two runs side by
/// side, B's figures.
#[derive(Debug, Clone, Copy)]
pub struct Quoted<'a> {
    /// The run's figures at the playhead (A's, side by side).
    pub figures: Figures,
    /// The dials it runs with.
    pub dials: Dials,
    /// Events the whole run loses at the end against the oracle (None until scored).
    pub lost: Option<i64>,
    /// B's figures at the same playhead, when two runs are side by side.
    pub b: Option<Figures>,
    /// A predict step's question, with the stream whose keys it names.
    pub asked: Option<(&'a Question, &'a Stream)>,
}

/// Every placeholder a caption may use, with what it stands for (docs/presenting.md lists them).
pub const NAMES: [(&str, &str); 29] = [
    ("now", "processing time now"),
    ("arrived", "events arrived so far"),
    ("on_time", "events on time so far"),
    ("late", "events late within grace so far"),
    ("dropped", "events dropped so far"),
    ("panes", "panes emitted so far"),
    ("early_panes", "EARLY panes so far"),
    ("on_time_panes", "ON_TIME panes so far"),
    ("late_panes", "LATE panes so far"),
    ("watermark", "the watermark now"),
    ("gap", "processing time now − the watermark"),
    (
        "wrong",
        "windows wrong at the end (once the end is processed)",
    ),
    ("state", "state entries held now"),
    ("crashes", "crashes so far (job)"),
    ("checkpoints", "checkpoints completed so far (job)"),
    ("replayed", "records taken again after a crash so far (job)"),
    (
        "overcount",
        "how far the additive sink over-counts so far (job)",
    ),
    ("lag", "the lag dial"),
    ("grace", "the grace dial"),
    ("early", "the early-trigger dial"),
    (
        "stall",
        "how long the job's watermark has stood still now (job)",
    ),
    ("idle", "the idle-timeout dial (job)"),
    ("ttl", "the global window's state TTL"),
    (
        "expired",
        "times a key's state expired under the TTL so far",
    ),
    ("merges", "sessions merged so far (the ⊕ marks)"),
    ("lost", "events the whole run loses at the end"),
    ("b_dropped", "events B dropped so far (side by side)"),
    (
        "event",
        "the event a predict step asks about: key, event time, arrival, the watermark then (and now, where it differs)",
    ),
    (
        "choices",
        "a pane question and its answers on 1 2 3 (which pane fires next, with what value)",
    ),
];

/// The placeholders of `caption`, in order; an unknown name or an unclosed `{` is an error.
pub fn check(caption: &str) -> Result<Vec<&str>, String> {
    let mut names = Vec::new();
    let mut rest = caption;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            return Err("a `{` is never closed: placeholders are written {name}".into());
        };
        let name = &after[..close];
        if !NAMES.iter().any(|(n, _)| *n == name) {
            let known: Vec<&str> = NAMES.iter().map(|(n, _)| *n).collect();
            return Err(format!(
                "unknown placeholder {{{name}}}: one of {}",
                known.join(", ")
            ));
        }
        names.push(name);
        rest = &after[close + 1..];
    }
    Ok(names)
}

/// Seconds as a caption writes them: `95 s`, `1.5 s`; an infinite time as `—`.
fn secs(ms: f64) -> String {
    if !ms.is_finite() {
        return "—".into();
    }
    let s = ms / 1_000.0;
    if (s - s.round()).abs() < 0.05 {
        format!("{:.0} s", s.round())
    } else {
        format!("{s:.1} s")
    }
}

/// The value a placeholder stands for (None: not a placeholder).
pub fn value(name: &str, q: &Quoted) -> Option<String> {
    let (f, dials) = (&q.figures, q.dials);
    let n = |v: usize| Some(v.to_string());
    let known = |v: Option<usize>| Some(v.map_or("—".to_string(), |v| v.to_string()));
    match name {
        "now" => Some(secs(f.now)),
        "arrived" => n(f.arrived),
        "on_time" => n(f.on_time),
        "late" => n(f.late),
        "dropped" => n(f.dropped),
        "panes" => Some(f.panes.to_string()),
        "early_panes" => Some(f.early_panes.to_string()),
        "on_time_panes" => Some(f.on_time_panes.to_string()),
        "late_panes" => Some(f.late_panes.to_string()),
        "watermark" => Some(secs(f.watermark)),
        "gap" => Some(f.gap.map_or("—".into(), secs)),
        "wrong" => known(f.wrong),
        "state" => n(f.state),
        "crashes" => n(f.crashes),
        "checkpoints" => n(f.checkpoints),
        "replayed" => n(f.replayed),
        "overcount" => Some(f.overcount.map_or("—".into(), |v| v.to_string())),
        "lag" => Some(if dials.has_lag() {
            secs(dials.lag)
        } else {
            "—".into()
        }),
        "grace" => Some(secs(dials.grace)),
        "early" => Some(dials.early.map_or("off".into(), secs)),
        "stall" => Some(f.stall.map_or("—".into(), secs)),
        "idle" => Some(dials.idle_timeout.map_or("off".into(), secs)),
        "ttl" => Some(
            dials
                .window
                .ttl()
                .map_or("off".into(), |t| secs(t.ms as f64)),
        ),
        "expired" => n(f.expired),
        "merges" => n(f.merges),
        "lost" => Some(q.lost.map_or("—".into(), |v| v.to_string())),
        "b_dropped" => Some(q.b.map_or("—".into(), |b| b.dropped.to_string())),
        "event" => Some(match q.asked {
            Some((
                Question::Fate {
                    event, inspection, ..
                },
                stream,
            )) => {
                // The watermark the event meets is the one at its arrival; where the watermark
                // panel shows another now (a watermark moved by arrivals), both, each with its
                // moment.
                let (then, now) = (secs(inspection.watermark), secs(f.watermark));
                let meets = if now == then || !f.watermark.is_finite() {
                    format!(" to a watermark of {then}")
                } else {
                    format!(": watermark {then} then, {now} now")
                };
                format!(
                    "key {} at {}, arriving at {}{meets}",
                    stream.key_name(event.key),
                    secs(event.event_time),
                    secs(event.proc_time),
                )
            }
            _ => "—".into(),
        }),
        "choices" => Some(match q.asked {
            Some((q @ Question::Pane { choices, .. }, stream)) => {
                choices_text(choices, q.one_cell(), stream)
            }
            _ => "—".into(),
        }),
        _ => None,
    }
}

/// A pane question and its choices, as short as a caption at 80 columns needs: one window
/// for all (`Window 90–120 s of a fires next. With what value? [1] 4 · [2] 9 · [3] 10`), or
/// each choice its own (`Which pane fires next? [1] 90–120 s of a: 4 · …`).
fn choices_text(choices: &[Choice], one: Option<CellId>, stream: &Stream) -> String {
    match one {
        Some(cell) => format!(
            "{} fires next. With what value? {}",
            capitalised(&window_text(cell, stream)),
            choices
                .iter()
                .enumerate()
                .map(|(i, c)| format!("[{}]\u{a0}{}", i + 1, c.value))
                .collect::<Vec<_>>()
                .join(" · ")
        ),
        _ => format!(
            "Which pane fires next, with what value? {}",
            choices
                .iter()
                .enumerate()
                .map(|(i, c)| format!("[{}]\u{a0}{}", i + 1, choice_text(c, stream)))
                .collect::<Vec<_>>()
                .join(" · ")
        ),
    }
}

/// The placeholders that stand for one number (a count, or a time in seconds), which a
/// step's case may weigh ([`number`]): all but the question's words.
pub fn numbers() -> impl Iterator<Item = &'static str> {
    NAMES
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| !matches!(*n, "event" | "choices"))
}

/// The number a placeholder stands for, as its caption writes it: a count, or a time in
/// seconds (to the tenth a caption shows); None where the caption writes `off` or `—` (a dial
/// turned off, a figure not known), and for a name that is not a number's.
pub fn number(name: &str, q: &Quoted) -> Option<f64> {
    let text = value(name, q)?;
    let digits = text.strip_suffix(" s").unwrap_or(&text);
    digits.parse::<f64>().ok()
}

/// `caption` with every placeholder replaced by its value (an unknown one, which a checked
/// caption does not hold, is left as written).
pub fn fill(caption: &str, q: &Quoted) -> String {
    let mut out = String::with_capacity(caption.len());
    let mut rest = caption;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) => {
                let name = &after[..close];
                match value(name, q) {
                    Some(v) => out.push_str(&v),
                    None => out.push_str(&rest[open..open + close + 2]),
                }
                rest = &after[close + 1..];
            }
            None => {
                out.push_str(&rest[open..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_and_unclosed_placeholders_are_errors() {
        assert_eq!(check("{late} of {arrived}"), Ok(vec!["late", "arrived"]));
        assert!(check("{lateness}").unwrap_err().contains("{lateness}"));
        assert!(check("open {late").is_err());
        assert_eq!(check("no figures"), Ok(vec![]));
    }

    #[test]
    fn what_is_not_known_reads_as_a_dash_and_the_dials_as_set() {
        use twoclocks_engine::EngineConfig;
        let dials = Dials::from_config(&EngineConfig::fixed(20_000.0, 0.0), 10.0);
        let figures = Figures {
            now: 0.0,
            arrived: 0,
            on_time: 0,
            late: 0,
            dropped: 7,
            panes: 0,
            early_panes: 0,
            on_time_panes: 0,
            late_panes: 0,
            watermark: f64::NEG_INFINITY,
            gap: None,
            wrong: None,
            state: 0,
            crashes: 0,
            checkpoints: 0,
            replayed: 0,
            overcount: None,
            stall: None,
            expired: 3,
            merges: 0,
        };
        let q = Quoted {
            figures,
            dials,
            lost: None,
            b: None,
            asked: None,
        };
        for (name, want) in [
            ("stall", "—"),
            ("idle", "off"),
            ("ttl", "off"),
            ("expired", "3"),
            ("lost", "—"),
            ("b_dropped", "—"),
        ] {
            assert_eq!(value(name, &q).as_deref(), Some(want), "{name}");
        }
        let q = Quoted {
            lost: Some(196),
            b: Some(Figures {
                stall: Some(49_700.0),
                ..figures
            }),
            ..q
        };
        assert_eq!(fill("{lost} lost, B {b_dropped}", &q), "196 lost, B 7");
        assert!(NAMES.iter().all(|(n, _)| value(n, &q).is_some()));
    }

    #[test]
    fn seconds_are_written_round_or_to_a_tenth() {
        assert_eq!(secs(95_000.0), "95 s");
        assert_eq!(secs(1_500.0), "1.5 s");
        assert_eq!(secs(f64::NEG_INFINITY), "—");
    }
}
