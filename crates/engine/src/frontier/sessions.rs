//! The frontier by search for session windows, under Beam Java's rules, without running the
//! engine once per setting.
//!
//! An event's fate is decided on its own proto-window (`[⌊t⌋, ⌊t⌋ + gap)`), by the same rule as
//! any window's: dropped when its end ≤ W − G, W the watermark after it. What a setting makes
//! of a true session (one of the oracle's) then depends on two things only:
//! - which of its events are dropped: the final values miss exactly those, as every kept
//!   event ends in a session inside its true one;
//! - whether a part of it was finalised too early. The processor finalises an open session
//!   once its end ≤ W − G (the drop rule again). An event of the true session that arrives
//!   later and would merge with that part starts a session of its own instead, and the true
//!   session is split, though no event was lost.
//!
//! Play a true session's events alone, in arrival order, with none dropped: before each
//! event, the parts it merges with are known, and so is the smallest end among them. That
//! part is finalised before the event comes iff its end ≤ W' − G, W' the watermark after the
//! arrival before it (the watermark never falls, and a part finalised earlier would have
//! been caught at an earlier event). So each true session is a list of checks, (end,
//! watermark clock) pairs: one per event (its drop) and one per event that merges with
//! earlier parts (a premature finalisation). At a setting the session is right iff no check
//! holds, and it lost as many events as its events' own checks that hold. Every check is
//! the drop rule, monotone in the lag and in the grace, so the graces at which one holds are
//! a prefix, found by search, for each lag.
//!
//! The watermark at a lag is its clock (the watermark with a lag of 0) less the lag, exactly
//! so in floating point (`search`'s argument). `tests/engine/engine_properties.rs` checks
//! every point against one engine run.

use super::search::{scored, shared_out, Tally};
use super::FrontierPoint;
use crate::lateness::Fate;
use crate::processor::EngineConfig;
use crate::stream::Stream;
use crate::window::WindowId;

/// [`FrontierPoint::sweep`] for sessions by search; `None` where it does not apply: windows that do
/// not merge, rules other than Beam Java's, a lag that is not finite (for a kind with a lag)
/// or a grace that is NaN.
/// Whether the search by true sessions serves `base`: session windows under Beam Java's
/// rules (for a lag that is finite and graces that are not NaN).
pub(crate) fn serves(base: &EngineConfig) -> bool {
    base.window.is_merging() && base.conventions == crate::conventions::Conventions::Beam
}

pub(super) fn sweep(
    stream: &Stream,
    base: EngineConfig,
    clock: Option<&[f64]>,
    lags: &[f64],
    graces: &[f64],
) -> Option<Vec<FrontierPoint>> {
    let lagged = base.watermark.lag().is_some();
    if !base.window.is_merging()
        || base.conventions != crate::conventions::Conventions::Beam
        || (lagged && lags.iter().any(|l| !l.is_finite()))
        || graces.iter().any(|g| g.is_nan())
    {
        return None;
    }
    let owned;
    let clock = match clock {
        Some(c) => c,
        None => {
            owned = super::watermark_clock(stream, base);
            &owned
        }
    };
    Some(sweep_sessions(
        stream,
        &TrueSessions::of(stream, base),
        clock,
        lagged,
        lags,
        graces,
    ))
}

/// [`sweep`] over the true sessions of `stream` under `base`'s windows ([`TrueSessions::of`]),
/// found once for every clock swept over them; `lagged` whether the kind has a lag.
pub(crate) fn sweep_sessions(
    stream: &Stream,
    sessions: &TrueSessions,
    clock: &[f64],
    lagged: bool,
    lags: &[f64],
    graces: &[f64],
) -> Vec<FrontierPoint> {
    let checks = Checks::gather(sessions, clock);
    scored(lagged, lags, graces, stream.len() as u64, |lags, graces| {
        shared_out(checks.len(), (lags.len(), graces.len()), |sessions| {
            checks.tally(sessions, lags, graces)
        })
    })
}

/// A stream's true sessions (the oracle's) under a session window: each event's proto-window,
/// and the events of each true session in arrival order. They depend on the events' times
/// and keys alone, not on any watermark.
pub(crate) struct TrueSessions {
    /// Each event's proto-window.
    protos: Vec<WindowId>,
    /// Where each true session's events start in `by_session` (one more at the end).
    start: Vec<u32>,
    /// The events' places, grouped by true session, in arrival order within each.
    by_session: Vec<u32>,
}

impl TrueSessions {
    /// The true sessions of `stream` under `base`'s session windows.
    pub(crate) fn of(stream: &Stream, base: EngineConfig) -> TrueSessions {
        let n = stream.len();
        let mut protos = Vec::with_capacity(n);
        for e in &stream.events {
            let proto = base
                .window
                .assign(e.event_time)
                .next()
                .unwrap_or(WindowId::MIN);
            protos.push(proto);
        }
        // The true sessions, as the oracle merges them: per key, proto-windows by start,
        // each merged into the span before it while they overlap.
        // Sorted as plain tuples, kept together in memory (a proto-window's end follows from
        // its start).
        let mut order: Vec<(u32, i64, u32)> = stream
            .events
            .iter()
            .zip(&protos)
            .enumerate()
            .map(|(i, (e, p))| (e.key, p.start_ms(), i as u32))
            .collect();
        order.sort_unstable();
        let mut session_of = vec![0u32; n];
        let mut sessions = 0u32;
        let mut span: Option<(u32, WindowId)> = None;
        for &(_, _, i) in &order {
            let (key, proto) = (stream.events[i as usize].key, protos[i as usize]);
            span = match span {
                Some((k, s)) if k == key && s.overlaps(proto) => Some((k, s.cover(proto))),
                _ => {
                    sessions += 1;
                    Some((key, proto))
                }
            };
            session_of[i as usize] = sessions - 1;
        }
        drop(order);
        // Each true session's events in arrival order (a counting sort).
        let mut start = vec![0u32; sessions as usize + 1];
        for &s in &session_of {
            start[s as usize + 1] += 1;
        }
        for s in 0..sessions as usize {
            start[s + 1] += start[s];
        }
        let mut fill = start.clone();
        let mut by_session = vec![0u32; n];
        for (i, &s) in session_of.iter().enumerate() {
            by_session[fill[s as usize] as usize] = i as u32;
            fill[s as usize] += 1;
        }
        TrueSessions {
            protos,
            start,
            by_session,
        }
    }
}

/// A check: a window end and the watermark's clock it is compared with.
#[derive(Debug, Clone, Copy)]
struct Check {
    end: f64,
    clock: f64,
}

/// Every true session's checks.
struct Checks {
    /// Per true session, where its checks start in `own` and in `early`.
    sessions: Vec<(u32, u32)>,
    /// Each event's own drop check, grouped by true session.
    own: Vec<Check>,
    /// Each premature finalisation check, grouped by true session.
    early: Vec<Check>,
}

impl Checks {
    /// The checks of every true session, the clock being the watermark with a lag of 0
    /// after each event.
    fn gather(true_sessions: &TrueSessions, clock: &[f64]) -> Checks {
        let TrueSessions {
            protos,
            start,
            by_session,
        } = true_sessions;
        let n = protos.len();
        let sessions = start.len() - 1;
        // Each session played alone with nothing dropped: its parts, disjoint, by start.
        let mut own = Vec::with_capacity(n);
        let mut early = Vec::new();
        let mut ranges = Vec::with_capacity(sessions + 1);
        let mut parts: Vec<WindowId> = Vec::new();
        for s in 0..sessions {
            ranges.push((own.len() as u32, early.len() as u32));
            parts.clear();
            for &i in &by_session[start[s] as usize..start[s + 1] as usize] {
                let i = i as usize;
                let proto = protos[i];
                own.push(Check {
                    end: proto.end(),
                    clock: clock[i],
                });
                // The parts it overlaps are the run just before the first part starting at
                // or after its end.
                let to = parts.partition_point(|p| p.start_ms() < proto.end_ms());
                let from = parts[..to]
                    .iter()
                    .rposition(|p| !p.overlaps(proto))
                    .map_or(0, |k| k + 1);
                if from < to {
                    let first = parts[from..to]
                        .iter()
                        .map(|p| p.end())
                        .fold(f64::INFINITY, f64::min);
                    early.push(Check {
                        end: first,
                        clock: if i == 0 {
                            f64::NEG_INFINITY
                        } else {
                            clock[i - 1]
                        },
                    });
                }
                let merged = parts[from..to].iter().fold(proto, |m, p| m.cover(*p));
                parts.splice(from..to, [merged]);
            }
        }
        ranges.push((own.len() as u32, early.len() as u32));
        Checks {
            sessions: ranges,
            own,
            early,
        }
    }

    /// How many true sessions there are.
    fn len(&self) -> usize {
        self.sessions.len() - 1
    }

    /// What each (lag, grace) does to true sessions `range`, lag-major, lags and graces
    /// ascending.
    fn tally(&self, range: std::ops::Range<usize>, lags: &[f64], graces: &[f64]) -> Vec<Tally> {
        let width = graces.len();
        let mut tallies = vec![Tally::default(); lags.len() * width];
        if width == 0 {
            return tallies;
        }
        // Per grace index, how many own checks hold only up to it (exclusive): a histogram
        // of each check's prefix length.
        let mut ends_at = vec![0u64; width + 1];
        for s in range {
            let (o0, e0) = self.sessions[s];
            let (o1, e1) = self.sessions[s + 1];
            let own = &self.own[o0 as usize..o1 as usize];
            let early = &self.early[e0 as usize..e1 as usize];
            for (&lag, row) in lags.iter().zip(tallies.chunks_mut(width.max(1))) {
                // The graces at which a check holds: a prefix of the ascending graces.
                // Most checks hold at no grace: one comparison says so.
                let holds = |c: &Check| {
                    let wm = c.clock - lag;
                    let dropped = |g: f64| Fate::decide(c.end, wm, g) == Fate::Dropped;
                    if !dropped(graces[0]) {
                        0
                    } else {
                        1 + graces[1..].partition_point(|&g| dropped(g))
                    }
                };
                ends_at.fill(0);
                let mut wrong_until = 0;
                for c in own {
                    let k = holds(c);
                    ends_at[k] += 1;
                    wrong_until = wrong_until.max(k);
                }
                if wrong_until < width {
                    for c in early {
                        wrong_until = wrong_until.max(holds(c));
                        if wrong_until == width {
                            break;
                        }
                    }
                }
                if wrong_until == 0 {
                    // A larger lag holds no more checks: nothing more for this session.
                    break;
                }
                // Own checks holding at grace g: those whose prefix reaches past g.
                let mut holding: u64 = ends_at[1..].iter().sum();
                for (g, t) in row.iter_mut().enumerate().take(wrong_until) {
                    t.dropped += holding;
                    t.wrong_windows += 1;
                    t.max_error = t.max_error.max(holding);
                    holding -= ends_at[g + 1];
                }
            }
        }
        tallies
    }
}
