//! The read model's session windows and the global window's state TTL: the run's sessions so
//! far (replayed from the processor's record of every session it opened, extended or
//! bridged), the merges among them, a session row of the windows table against the oracle
//! session it stands for, and, for the global window, the expirations that reset a key.
//!
//! A single run answers from its timeline's records. A parallel run keeps none: no sessions
//! or merges, no expirations, and its rows are its window rows for the oracle's spans.

use std::collections::BTreeMap;

use super::{OverCount, Trace, WindowRow};
use crate::job_timeline::Standing;
use crate::lateness::Fate;
use crate::processor::{Expiry, SessionChange};
use crate::stream::KeyId;
use crate::timeline::Phase;
use crate::trigger::Pane;
use crate::window::{CellId, WindowId};

/// One session of the run so far, as it stands now.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunSession {
    /// The key it belongs to.
    pub key: KeyId,
    /// Its span: from its first event to its last event plus the gap.
    pub window: WindowId,
    /// Where it stands under the watermark and grace now: open, fired, or finalised (the
    /// read model does not tell here whether a fired one took late data: its row does).
    pub phase: Phase,
    /// It is the cover of sessions that existed before (it took a merge).
    pub merged: bool,
}

/// The run's sessions so far, by key then start.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunSessions {
    by_key: BTreeMap<(KeyId, i64), RunSession>,
}

impl RunSessions {
    /// Every session, by key then start.
    pub fn iter(&self) -> impl Iterator<Item = &RunSession> + '_ {
        self.by_key.values()
    }

    /// The sessions of `key`, by start.
    pub fn of(&self, key: KeyId) -> impl Iterator<Item = &RunSession> + '_ {
        self.by_key
            .range((key, i64::MIN)..=(key, i64::MAX))
            .map(|(_, s)| s)
    }

    /// The sessions of `key` inside `span` (the run's sessions lie each inside one oracle
    /// session: its events are some of the stream's, merged by the same rule).
    pub fn inside(&self, key: KeyId, span: WindowId) -> impl Iterator<Item = &RunSession> + '_ {
        self.by_key
            .range((key, span.start_ms())..(key, span.end_ms()))
            .map(|(_, s)| s)
            .filter(move |s| s.window.end_ms() <= span.end_ms())
    }

    /// How many sessions, over every key.
    pub fn len(&self) -> usize {
        self.by_key.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.by_key.is_empty()
    }
}

/// A row of the windows table for sessions: one oracle session of a key (or of every key
/// with that span), with the run's sessions that stand for it.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionRow {
    /// The oracle session's span, the run's value (its sessions inside the span, summed), the
    /// oracle's count, the least advanced phase of the run's sessions (open before any has
    /// begun) and their latest pane.
    pub row: WindowRow,
    /// How many run sessions lie inside the span (1 when reproduced; 2 or more when the run
    /// has not bridged what the oracle did).
    pub pieces: usize,
    /// The run reproduces the oracle session exactly: one session, same bounds, same count.
    pub exact: bool,
}

impl SessionRow {
    /// Where the run stands against the oracle session: right only when reproduced exactly;
    /// wrong when over the count, or when final and not exact; open while it can still change.
    pub fn standing(&self) -> Standing {
        if self.row.is_final() && !self.exact {
            return Standing::Wrong;
        }
        self.row.standing(self.row.value)
    }
}

fn phase_rank(p: Phase) -> u8 {
    match p {
        Phase::Open => 0,
        Phase::FiredOnTime => 1,
        Phase::TakingLate => 2,
        Phase::Finalised => 3,
    }
}

impl Trace {
    /// Whether the run keeps a record of its sessions and expirations (a single run does; a
    /// parallel run's operators keep only their state).
    pub fn records_sessions(&self) -> bool {
        self.timeline().is_some()
    }

    /// Every change of the sessions so far, in order: a session opened, or sessions an event
    /// extended or bridged (empty for a parallel run, and for windows that do not merge).
    pub fn session_changes(&self) -> &[SessionChange] {
        self.timeline().map_or(&[], |t| t.session_changes())
    }

    /// What the event at `offset` did to its key's sessions, if it changed them (opened one,
    /// extended or bridged some); None for an event inside an open session, or dropped.
    pub fn session_change_of(&self, offset: usize) -> Option<&SessionChange> {
        let changes = self.session_changes();
        let i = changes.partition_point(|c| c.offset < offset);
        changes.get(i).filter(|c| c.offset == offset)
    }

    /// The merges worth marking so far: an event that bridged two or more sessions, or
    /// extended a session the watermark had already passed (one that had fired), in order.
    /// An event growing an open session at its edge is how sessions grow, not marked.
    pub fn session_merges(&self) -> impl Iterator<Item = &SessionChange> + '_ {
        self.session_changes()
            .iter()
            .filter(|c| c.is_bridge() || (c.is_merge() && (c.late || c.fired > 0)))
    }

    /// The run's sessions so far, as they stand now (replayed from the changes).
    pub fn run_sessions(&self) -> RunSessions {
        let mut by_key: BTreeMap<(KeyId, i64), RunSession> = BTreeMap::new();
        let wm = self.watermark();
        let grace = self.config().grace;
        for c in self.session_changes() {
            for w in &c.replaced {
                by_key.remove(&(c.key, w.start_ms()));
            }
            by_key.insert(
                (c.key, c.into.start_ms()),
                RunSession {
                    key: c.key,
                    window: c.into,
                    phase: Phase::Open,
                    merged: c.is_merge(),
                },
            );
        }
        let finished = self.is_finished();
        for s in by_key.values_mut() {
            s.phase = if finished {
                Phase::Finalised
            } else {
                match Fate::decide_under(self.config().conventions, s.window.end(), wm, grace, true)
                {
                    Fate::OnTime => Phase::Open,
                    Fate::Late => Phase::FiredOnTime,
                    Fate::Dropped => Phase::Finalised,
                }
            };
        }
        RunSessions { by_key }
    }

    /// The windows table's row for the oracle session `span` of `key` (None: every key whose
    /// oracle has a session with that span), against the run's sessions so far `run`.
    pub fn session_row(
        &self,
        span: WindowId,
        key: Option<KeyId>,
        run: &RunSessions,
        truth: &BTreeMap<CellId, u64>,
    ) -> SessionRow {
        let keys: Vec<KeyId> = match key {
            Some(k) => vec![k],
            None => truth
                .range(
                    CellId {
                        window: span,
                        key: KeyId::MIN,
                    }..=CellId {
                        window: span,
                        key: KeyId::MAX,
                    },
                )
                .map(|(c, _)| c.key)
                .collect(),
        };
        let truth_total: u64 = keys
            .iter()
            .filter_map(|&k| {
                truth.get(&CellId {
                    window: span,
                    key: k,
                })
            })
            .sum();
        if self.timeline().is_none() {
            // A parallel run keeps no record of its sessions: its value for the exact span.
            let mut row = WindowRow {
                truth: truth_total as i64,
                ..self.window_row(span, None, 0, truth)
            };
            let mut value = 0;
            let mut sinks = row.sinks.map(|_| [0i64; 3]);
            let mut over = row.over.map(|_| OverCount::default());
            for &k in &keys {
                let r = self.window_row(span, Some(k), 0, truth);
                value += r.value;
                if let (Some(acc), Some(held)) = (sinks.as_mut(), r.sinks) {
                    for (a, h) in acc.iter_mut().zip(held) {
                        *a += h;
                    }
                }
                if let (Some(acc), Some(o)) = (over.as_mut(), r.over) {
                    acc.readded += o.readded;
                    acc.replayed += o.replayed;
                }
            }
            row.value = value;
            row.sinks = sinks;
            row.over = over;
            let exact = value == row.truth;
            return SessionRow {
                row,
                pieces: usize::from(value > 0),
                exact,
            };
        }
        let mut value = 0i64;
        let mut pieces = 0;
        let mut exact = true;
        let mut phase: Option<Phase> = None;
        let mut latest: Option<Pane> = None;
        for &k in &keys {
            let t = truth
                .get(&CellId {
                    window: span,
                    key: k,
                })
                .copied()
                .unwrap_or(0);
            let mut mine = 0;
            for s in run.inside(k, span) {
                let r = self.window_row(s.window, Some(k), 0, truth);
                value += r.value;
                pieces += 1;
                mine += 1;
                exact &= s.window == span && r.value == t as i64;
                phase = Some(match phase {
                    Some(p) if phase_rank(p) <= phase_rank(r.phase) => p,
                    _ => r.phase,
                });
                if let Some(p) = r.latest {
                    if latest.is_none_or(|l| l.proc_time <= p.proc_time) {
                        latest = Some(p);
                    }
                }
            }
            exact &= mine == 1;
        }
        let row = WindowRow {
            window: span,
            start: span.start(),
            end: span.end(),
            value,
            truth: truth_total as i64,
            // No run session yet: nothing has begun, whatever the oracle knows of the future.
            phase: phase.unwrap_or(if self.is_finished() {
                Phase::Finalised
            } else {
                Phase::Open
            }),
            latest,
            sinks: None,
            over: None,
        };
        SessionRow { row, pieces, exact }
    }

    /// Every key's state expiring under the TTL so far, in order (empty for a parallel run,
    /// and for windows without a TTL).
    pub fn expirations(&self) -> &[Expiry] {
        self.timeline().map_or(&[], |t| t.expirations())
    }

    /// How many events of `key` had arrived by each processing time of `times` (the truth a
    /// running count is measured against at that time).
    pub fn key_arrivals_by(&self, key: KeyId, times: &[f64]) -> Vec<i64> {
        let arrived = &self.stream().events[..self.arrived().min(self.stream().len())];
        let mine: Vec<f64> = arrived
            .iter()
            .filter(|e| e.key == key)
            .map(|e| e.proc_time)
            .collect();
        times
            .iter()
            .map(|&t| mine.partition_point(|&p| p <= t) as i64)
            .collect()
    }
}
