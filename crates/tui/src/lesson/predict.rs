//! A question put to the room before the engine answers it, as a tour's predict step asks it:
//! the fate of an event about to arrive ("on time, late, or dropped?"), or which window fires
//! next and with what value. The question is asked at a playhead; its answer is the same
//! engine run on from there, so the reveal is the rule that decided it, not a second opinion.
//!
//! A fate question is asked just before the event arrives: the room is told its key, its
//! event time, when it arrives and the watermark it will meet, and must find its window and
//! weigh the window's end and the grace against that watermark. A pane question is asked
//! where the step's playhead is, before the pane fires: its choices are cells with values a
//! reasonable guess would give (what the window holds now, what it holds once every event of
//! it is in, a neighbouring window's), the right one among them, in an order that does not
//! give it away (by window, then key, then value).

use std::collections::BTreeMap;

use twoclocks_engine::timeline::{Inspection, Timeline};
use twoclocks_engine::{CellId, EngineConfig, Event, Fate, KeyId, Pane, Stream, Timing};

/// What a predict step asks about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ask {
    /// The next event to arrive behind the watermark (late or dropped: the class does not
    /// know which, nor that it is not on time).
    NextLate,
    /// The event at this offset in processing order.
    Event(usize),
    /// The next pane to fire (of the selected key, when one is).
    NextPane,
}

impl Ask {
    /// How a tour file writes it: `next-late`, `next-pane`, or an event's offset.
    pub fn parse(s: &str) -> Option<Ask> {
        match s {
            "next-late" => Some(Ask::NextLate),
            "next-pane" => Some(Ask::NextPane),
            _ => s.parse().ok().map(Ask::Event),
        }
    }
}

/// The three answers to a fate question, in the order the keys 1, 2, 3 give them.
pub const FATES: [Fate; 3] = [Fate::OnTime, Fate::Late, Fate::Dropped];

/// A cell and a value: one answer to "which window fires next, and with what value?".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice {
    /// The window and key.
    pub cell: CellId,
    /// What its pane carries.
    pub value: i64,
}

/// A question put to the room, and its vote once cast (an index among the choices).
#[derive(Debug, Clone, PartialEq)]
pub struct Prediction {
    /// The question, with its answer.
    pub question: Question,
    /// The room's answer; None while it votes.
    pub vote: Option<usize>,
}

/// A question with its answer, which the room is not shown until it has voted.
#[derive(Debug, Clone, PartialEq)]
pub enum Question {
    /// "On time, late, or dropped?" of the event at `offset`, about to arrive.
    Fate {
        /// The event, in processing order.
        offset: usize,
        /// The event: its event time and key are shown; it arrives at its processing time.
        event: Event,
        /// Why it met its fate: the engine's inequality, once it has arrived.
        inspection: Inspection,
    },
    /// "Which window fires next, and with what value?"
    Pane {
        /// The pane that fires next.
        pane: Pane,
        /// Events arrived before the arrival that fires the pane (all of them: the end of
        /// input fires it).
        arrived: usize,
        /// The answers offered, in order (the keys 1, 2, 3).
        choices: Vec<Choice>,
        /// Which of them is right.
        answer: usize,
        /// What the window holds once every event of it is in (the oracle's count).
        truth: i64,
    },
}

impl Question {
    /// How many answers the room picks among.
    pub fn choices(&self) -> usize {
        match self {
            Question::Fate { .. } => FATES.len(),
            Question::Pane { choices, .. } => choices.len(),
        }
    }

    /// The cell a pane question asks about, when every choice is that one cell's (the
    /// question is then "with what value?" alone); None for a fate question.
    pub fn one_cell(&self) -> Option<CellId> {
        match self {
            Question::Pane { choices, .. } => {
                let c = choices.first()?.cell;
                choices.iter().all(|o| o.cell == c).then_some(c)
            }
            Question::Fate { .. } => None,
        }
    }

    /// The right answer's index among the choices.
    pub fn answer(&self) -> usize {
        match self {
            Question::Fate { inspection, .. } => FATES
                .iter()
                .position(|f| *f == inspection.fate)
                .unwrap_or(0),
            Question::Pane { answer, .. } => *answer,
        }
    }

    /// The processing time at which the answer happens: the event's arrival, or the arrival
    /// that fires the pane.
    pub fn answered_at(&self) -> f64 {
        match self {
            Question::Fate { event, .. } => event.proc_time,
            Question::Pane { pane, .. } => pane.proc_time,
        }
    }

    /// What the run now shown answers to the question: the same event, inspected once it has
    /// arrived at the playhead (`inspected`: the run's own inspection of it), or the same
    /// window's pane of the same timing, once it has fired (`panes`: the run's panes so far).
    /// The dials may have turned since the vote: the answer is the run's, not the vote's.
    pub fn now(&self, inspected: Option<Inspection>, panes: &[Pane]) -> Now {
        match self {
            Question::Fate { .. } => inspected.map_or(Now::NotYet, Now::Inspected),
            Question::Pane { pane, .. } => {
                let same = |p: &&Pane| p.cell == pane.cell && p.timing == pane.timing;
                panes
                    .iter()
                    .filter(same)
                    .find(|p| p.proc_time >= pane.proc_time)
                    .or_else(|| panes.iter().find(same))
                    .map_or(Now::NotYet, |p| Now::Fired(*p))
            }
        }
    }

    /// The sentence that reveals the answer as the run now shown gives it (`now`, from
    /// [`Question::now`]), with the inequality or the pane that decided it (`keys` names the
    /// stream's keys), and whether `guess` (an index among the choices) was right. Where the
    /// run now answers otherwise than at the vote (the dials have turned), the sentence says
    /// the answer now, and that the room's was judged at the step's dials, which `r` brings
    /// back.
    pub fn reveal(&self, guess: usize, keys: &Stream, now: &Now) -> String {
        let right = guess == self.answer();
        let said = match self {
            Question::Fate { .. } => FATES.get(guess).map(|f| fate_word(*f).to_string()),
            Question::Pane { choices, .. } => choices
                .get(guess)
                .map(|c| format!("{} ({})", guess + 1, c.value)),
        }
        .unwrap_or_default();
        let verdict = if right {
            format!("The room chose {said}: right.")
        } else {
            format!("The room chose {said}: not this time.")
        };
        let moved = format!(
            "The room chose {said}: {} at the step's dials, which r brings back.",
            if right { "right" } else { "not right" }
        );
        match (self, now) {
            (Question::Fate { inspection, .. }, Now::Inspected(seen)) => {
                if seen.fate == inspection.fate {
                    format!("{} {verdict}", inequality(seen))
                } else {
                    format!("Now {} {moved}", turned(seen))
                }
            }
            (Question::Fate { event, .. }, Now::NotYet) => format!(
                "The event arrives at {} s, after the playhead. {verdict}",
                seconds(event.proc_time)
            ),
            (
                Question::Pane {
                    pane,
                    choices,
                    answer,
                    truth,
                    ..
                },
                Now::Fired(fired),
            ) => {
                let c = choices.get(*answer).copied().unwrap_or(Choice {
                    cell: pane.cell,
                    value: pane.value,
                });
                let when = if fired.watermark.is_finite() {
                    format!("at watermark {} s", seconds(fired.watermark))
                } else {
                    "at the input's end".to_string()
                };
                let rest = match truth - fired.value {
                    d if d > 0 && fired.timing != Timing::Late => {
                        format!(", {d} of its {truth} events still to come")
                    }
                    _ => String::new(),
                };
                let what = format!(
                    "{} fired {} with {} {when}{rest}.",
                    capitalised(&window_text(c.cell, keys)),
                    fired.timing.label(),
                    fired.value
                );
                if fired.value == c.value {
                    format!("{what} {verdict}")
                } else {
                    format!("Now {} {moved}", lowered(&what))
                }
            }
            (Question::Pane { pane, .. }, _) => format!(
                "{} has not fired {} by the playhead. {moved}",
                capitalised(&window_text(pane.cell, keys)),
                pane.timing.label()
            ),
            (Question::Fate { .. }, Now::Fired(_)) => verdict,
        }
    }
}

/// `s` with its first letter in lower case (`Window …` after `Now`).
fn lowered(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_lowercase().chain(c).collect())
        .unwrap_or_default()
}

/// What the run now shown answers to a question ([`Question::now`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Now {
    /// The event has arrived: the run's inspection of it.
    Inspected(Inspection),
    /// The window's pane has fired: the pane.
    Fired(Pane),
    /// Not yet, at the playhead.
    NotYet,
}

/// The engine's inequality that decided an event's fate in its window of that fate:
/// `Late, kept: window 60–90 s ends at 90 s ≤ watermark 102 s < 90 + grace 20 = 110 s.`
fn inequality(inspection: &Inspection) -> String {
    let Some((start, end, wm, g)) = deciding(inspection) else {
        return format!("{}.", capitalised(fate_word(inspection.fate)));
    };
    let window = format!("window {}–{} s", seconds(start), seconds(end));
    match inspection.fate {
        Fate::OnTime => format!(
            "On time: watermark {} s < {window}'s end {} s.",
            seconds(wm),
            seconds(end)
        ),
        Fate::Late => format!(
            "Late, kept: {window} ends at {} s ≤ watermark {} s < {} + grace {} = {} s.",
            seconds(end),
            seconds(wm),
            seconds(end),
            seconds(g),
            seconds(end + g)
        ),
        Fate::Dropped => format!(
            "Dropped: {window} ends at {} s; {} + grace {} = {} s ≤ watermark {} s.",
            seconds(end),
            seconds(end),
            seconds(g),
            seconds(end + g),
            seconds(wm)
        ),
    }
}

/// The same inequality, short, for a fate the dials have turned since the vote (after `Now`,
/// with the room's verdict to follow): `dropped: 90 + grace 10 = 100 s ≤ watermark 102 s.`
fn turned(inspection: &Inspection) -> String {
    let Some((_, end, wm, g)) = deciding(inspection) else {
        return format!("{}.", fate_word(inspection.fate));
    };
    match inspection.fate {
        Fate::OnTime => format!(
            "on time: watermark {} s < its window's end {} s.",
            seconds(wm),
            seconds(end)
        ),
        Fate::Late => format!(
            "late, kept: {} s ≤ watermark {} s < {} + grace {} = {} s.",
            seconds(end),
            seconds(wm),
            seconds(end),
            seconds(g),
            seconds(end + g)
        ),
        Fate::Dropped => format!(
            "dropped: {} + grace {} = {} s ≤ watermark {} s.",
            seconds(end),
            seconds(g),
            seconds(end + g),
            seconds(wm)
        ),
    }
}

/// The figures of the inequality that decided an inspected event's fate: its deciding
/// window's start and end, the watermark it met and the grace; None when no window of the
/// event has its fate.
fn deciding(inspection: &Inspection) -> Option<(f64, f64, f64, f64)> {
    let (w, _) = inspection
        .windows
        .iter()
        .find(|(_, f)| *f == inspection.fate)?;
    Some((w.start(), w.end(), inspection.watermark, inspection.grace))
}

/// `on time`, `late`, `dropped`.
pub fn fate_word(f: Fate) -> &'static str {
    match f {
        Fate::OnTime => "on time",
        Fate::Late => "late",
        Fate::Dropped => "dropped",
    }
}

/// `s` with its first letter a capital.
pub fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// `window 30–60 s of a`.
pub fn window_text(cell: CellId, keys: &Stream) -> String {
    format!(
        "window {}–{} s of {}",
        seconds(cell.window.start()),
        seconds(cell.window.end()),
        keys.key_name(cell.key)
    )
}

/// `30–60 s of a: 12`.
pub fn choice_text(c: &Choice, keys: &Stream) -> String {
    format!(
        "{}–{} s of {}: {}",
        seconds(c.cell.window.start()),
        seconds(c.cell.window.end()),
        keys.key_name(c.cell.key),
        c.value
    )
}

/// Seconds without a needless decimal or a unit: `30`, `1.5` (to a tenth).
fn seconds(ms: f64) -> String {
    let tenths = (ms / 100.0).round();
    if tenths % 10.0 == 0.0 {
        format!("{:.0}", tenths / 10.0)
    } else {
        format!("{:.1}", tenths / 10.0)
    }
}

/// The question `ask` poses of the run under `cfg` once `from` events have arrived (the
/// playhead), with its answer; `key` narrows a pane question to one key. None when the rest
/// of the stream has no such event or pane (or the event asked for has arrived already).
pub fn ask(
    cfg: EngineConfig,
    stream: &Stream,
    truth: &BTreeMap<CellId, u64>,
    from: usize,
    ask: Ask,
    key: Option<KeyId>,
) -> Option<Question> {
    let from = from.min(stream.len());
    let mut t = Timeline::run_to(cfg, stream, from, false);
    match ask {
        Ask::NextLate | Ask::Event(_) => {
            let offset = match ask {
                Ask::Event(i) => (i >= from && i < stream.len()).then_some(i)?,
                // The run itself goes on, one arrival at a time, until one is not on time.
                _ => loop {
                    let before = t.arrived();
                    if before >= stream.len() {
                        return None;
                    }
                    t.advance_to(stream, before + 1, false);
                    if t.fates().get(before).is_some_and(|f| *f != Fate::OnTime) {
                        break before;
                    }
                },
            };
            t.advance_to(stream, offset + 1, false);
            Some(Question::Fate {
                offset,
                event: stream.events[offset],
                inspection: t.inspect(stream, offset)?,
            })
        }
        Ask::NextPane => {
            let now = t.clone();
            let wanted = |p: &Pane| key.is_none_or(|k| p.cell.key == k);
            let mut seen = t.panes().len();
            let (pane, arrived) = loop {
                let before = t.arrived();
                let end = before >= stream.len();
                t.advance_to(stream, before + 1, end);
                if let Some(p) = t.panes()[seen..].iter().find(|p| wanted(p)) {
                    break (*p, before);
                }
                if end {
                    return None;
                }
                seen = t.panes().len();
            };
            let right = Choice {
                cell: pane.cell,
                value: pane.value,
            };
            let value_now = |c: CellId| i64::try_from(now.cell_value(c)).unwrap_or(i64::MAX);
            // The right one; what the window will hold at the end (every event of it in);
            // what it holds while the room votes.
            let whole = truth
                .get(&pane.cell)
                .map_or(0, |&v| i64::try_from(v).unwrap_or(i64::MAX));
            let mut candidates = vec![
                right,
                Choice {
                    cell: pane.cell,
                    value: whole,
                },
                Choice {
                    cell: pane.cell,
                    value: value_now(pane.cell),
                },
            ];
            // The key's windows beside it: the next to end, then the one before.
            let cells: Vec<CellId> = truth
                .keys()
                .filter(|c| c.key == pane.cell.key && c.window != pane.cell.window)
                .copied()
                .collect();
            let after = cells
                .iter()
                .filter(|c| c.window.end() > pane.cell.window.end())
                .min_by(|a, b| a.window.end().total_cmp(&b.window.end()));
            let before = cells
                .iter()
                .filter(|c| c.window.end() < pane.cell.window.end())
                .max_by(|a, b| a.window.end().total_cmp(&b.window.end()));
            for c in [after, before].into_iter().flatten() {
                candidates.push(Choice {
                    cell: *c,
                    value: value_now(*c),
                });
            }
            let mut choices: Vec<Choice> = Vec::new();
            for c in candidates {
                if choices.len() < 3 && !choices.contains(&c) {
                    choices.push(c);
                }
            }
            choices.sort_by(|a, b| {
                (a.cell.window.start(), a.cell.key, a.value)
                    .partial_cmp(&(b.cell.window.start(), b.cell.key, b.value))
                    .unwrap_or(std::cmp::Ordering::Equal)
            });
            let answer = choices.iter().position(|c| *c == right)?;
            Some(Question::Pane {
                pane,
                arrived,
                choices,
                answer,
                truth: whole,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use twoclocks_engine::scenario::ScenarioName;

    fn lesson() -> (EngineConfig, Stream, BTreeMap<CellId, u64>) {
        let preset = ScenarioName::Lesson.preset();
        let stream = preset.source.stream().unwrap();
        let truth = twoclocks_engine::Oracle::true_counts(&stream, &preset.config.window);
        (preset.config, stream, truth)
    }

    #[test]
    fn the_next_late_event_is_the_first_behind_the_watermark_after_the_playhead() {
        let (cfg, stream, truth) = lesson();
        let whole = Timeline::run_to(cfg, &stream, stream.len(), true);
        for from in [0, 40, 69, 120] {
            let Some(Question::Fate {
                offset,
                event,
                inspection,
            }) = ask(cfg, &stream, &truth, from, Ask::NextLate, None)
            else {
                panic!("a late event after {from}");
            };
            let want = (from..stream.len())
                .find(|&i| whole.fates()[i] != Fate::OnTime)
                .unwrap();
            assert_eq!(offset, want);
            assert_eq!(event, stream.events[offset]);
            assert_eq!(inspection.fate, whole.fates()[offset]);
            assert_ne!(inspection.fate, Fate::OnTime);
        }
        assert_eq!(
            ask(cfg, &stream, &truth, stream.len(), Ask::NextLate, None),
            None
        );
    }

    #[test]
    fn an_event_asked_by_number_must_be_still_to_come() {
        let (cfg, stream, truth) = lesson();
        let q = ask(cfg, &stream, &truth, 10, Ask::Event(12), None).unwrap();
        assert!(matches!(q, Question::Fate { offset: 12, .. }));
        assert_eq!(ask(cfg, &stream, &truth, 13, Ask::Event(12), None), None);
        assert_eq!(ask(cfg, &stream, &truth, 0, Ask::Event(10_000), None), None);
    }

    #[test]
    fn a_pane_question_offers_distinct_choices_with_the_next_pane_among_them() {
        let (cfg, stream, truth) = lesson();
        let whole = Timeline::run_to(cfg, &stream, stream.len(), true);
        for (from, key) in [(0, None), (50, Some(0)), (69, Some(1)), (150, None)] {
            let before = Timeline::run_to(cfg, &stream, from, false).panes().len();
            let want = whole.panes()[before..]
                .iter()
                .find(|p| key.is_none_or(|k| p.cell.key == k))
                .unwrap();
            let q = ask(cfg, &stream, &truth, from, Ask::NextPane, key).unwrap();
            let Question::Pane { pane, choices, .. } = &q else {
                panic!("a pane after {from}");
            };
            let pane = *pane;
            assert_eq!(pane, *want);
            assert!((1..=3).contains(&choices.len()));
            for (i, a) in choices.iter().enumerate() {
                assert!(!choices[i + 1..].contains(a), "{choices:?}");
            }
            assert_eq!(choices[q.answer()].cell, pane.cell);
            assert_eq!(choices[q.answer()].value, pane.value);
        }
    }

    #[test]
    fn the_reveal_says_the_inequality_and_whether_the_room_was_right() {
        let (cfg, stream, truth) = lesson();
        let q = ask(cfg, &stream, &truth, 69, Ask::NextLate, None).unwrap();
        let right = q.answer();
        let whole = Timeline::run_to(cfg, &stream, stream.len(), true);
        let Question::Fate { offset, .. } = q else {
            panic!("a fate question")
        };
        let now = q.now(whole.inspect(&stream, offset), whole.panes());
        let said = q.reveal(right, &stream, &now);
        assert!(said.ends_with(": right."), "{said}");
        assert!(said.contains("≤ watermark"), "{said}");
        let wrong = q.reveal((right + 1) % 3, &stream, &now);
        assert!(wrong.ends_with(": not this time."), "{wrong}");
    }

    #[test]
    fn the_reveal_follows_the_run_now_shown_when_the_dials_have_turned() {
        let (cfg, stream, truth) = lesson();
        let q = ask(cfg, &stream, &truth, 69, Ask::NextLate, None).unwrap();
        let Question::Fate {
            offset, inspection, ..
        } = &q
        else {
            panic!("a fate question")
        };
        assert_eq!(
            inspection.fate,
            Fate::Late,
            "the lesson's next late event is kept"
        );
        let right = q.answer();
        // No grace: the same event, behind the watermark, is now dropped.
        let tight = EngineConfig { grace: 0.0, ..cfg };
        let run = Timeline::run_to(tight, &stream, stream.len(), true);
        let now = q.now(run.inspect(&stream, *offset), run.panes());
        let said = q.reveal(right, &stream, &now);
        assert!(said.starts_with("Now dropped: "), "{said}");
        assert!(said.contains("+ grace 0 = "), "{said}");
        assert!(said.contains("right at the step's dials"), "{said}");
        // Before it arrives, the reveal says so rather than quote a run that has not met it.
        let said = q.reveal(right, &stream, &Now::NotYet);
        assert!(said.contains("after the playhead"), "{said}");
    }

    #[test]
    fn questions_are_written_as_a_tour_writes_them() {
        assert_eq!(Ask::parse("next-late"), Some(Ask::NextLate));
        assert_eq!(Ask::parse("next-pane"), Some(Ask::NextPane));
        assert_eq!(Ask::parse("17"), Some(Ask::Event(17)));
        assert_eq!(Ask::parse("soon"), None);
        assert_eq!(Ask::parse("-1"), None);
    }
}
