//! The advisor: for each watermark kind, the settings no other beats on emit delay, events lost
//! and windows wrong (the Pareto set), and the cheapest setting that meets an accuracy target,
//! with the state it costs. The grids it sweeps are decided here; the points come from the
//! frontier's [`sweep`](crate::frontier::FrontierPoint::sweep).

use std::str::FromStr;

use super::frontier::folded::{self, Replay};
use super::frontier::sessions;
use super::frontier::slack::{self, Clocked, SlackStats};
use super::frontier::{same_decisions, sweep_clocked, watermark_clock, FrontierPoint, Policy};
use super::processor::{EngineConfig, Output, Processor};
use super::stream::Stream;
use super::watermark::{WatermarkFamily, WatermarkKind};
use super::window::oracle_under;
use crate::quote::quoted;

/// The heuristic watermark's quantiles swept (it has no lag: its quantile sets how far behind
/// it runs).
pub(crate) const HEURISTIC_QS: [f64; 7] = [0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 1.0];

/// A watermark kind the advisor sweeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Family {
    /// Processing time − a fixed lag: the lag is swept.
    Fixed,
    /// Processing time − a quantile of the recent delays: the quantile is swept.
    Heuristic,
    /// Highest event time seen − a bound: the bound is swept.
    Bounded,
}

impl Family {
    /// The three kinds, in the order they are printed.
    pub const ALL: [Family; 3] = [Family::Fixed, Family::Heuristic, Family::Bounded];

    /// The advisor's kind for a watermark family, where it sweeps one: `perfect` has nothing
    /// to sweep (its lag is the stream's largest delay).
    pub fn of(family: WatermarkFamily) -> Option<Family> {
        match family {
            WatermarkFamily::Perfect => None,
            WatermarkFamily::Fixed => Some(Family::Fixed),
            WatermarkFamily::Heuristic => Some(Family::Heuristic),
            WatermarkFamily::Bounded => Some(Family::Bounded),
        }
    }

    /// The watermark family it sweeps.
    pub fn family(self) -> WatermarkFamily {
        match self {
            Family::Fixed => WatermarkFamily::Fixed,
            Family::Heuristic => WatermarkFamily::Heuristic,
            Family::Bounded => WatermarkFamily::Bounded,
        }
    }

    /// The kind the slack statistics keep for it: those whose watermark is a clock − a lag
    /// (the heuristic's follows every arrival's delay, which they do not keep).
    pub fn clocked(self) -> Option<Clocked> {
        match self {
            Family::Fixed => Some(Clocked::Fixed),
            Family::Bounded => Some(Clocked::Bounded),
            Family::Heuristic => None,
        }
    }

    /// The name on the command line and in the output: its family's.
    pub fn name(self) -> &'static str {
        self.family().name()
    }
}

impl FromStr for Family {
    type Err = String;

    /// Reads a kind's name, in any case; an error names the value and the kinds.
    fn from_str(s: &str) -> Result<Family, String> {
        Family::ALL
            .into_iter()
            .find(|k| k.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                let names: Vec<&str> = Family::ALL.iter().map(|k| k.name()).collect();
                let (last, rest) = names.split_last().unwrap_or((&"", &[]));
                format!(
                    "{} is not a watermark kind: give {} or {last}",
                    quoted(s),
                    rest.join(", ")
                )
            })
    }
}

/// The lags and graces swept: `0, max/24, …, max` ms.
pub(crate) fn grid(max_delay: f64) -> Vec<f64> {
    (0..=Request::GRID_STEPS)
        .map(|i| max_delay * i as f64 / Request::GRID_STEPS as f64)
        .collect()
}

/// One setting swept, scored.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    /// The watermark it runs with (its lag, bound or quantile set).
    pub watermark: WatermarkKind,
    /// Its score. For the heuristic, `lag` is the watermark's mean distance behind processing
    /// time over the run (what it holds windows back by), and `emit_delay` that + the grace.
    pub point: FrontierPoint,
}

pub use super::frontier::slack::StateCost;

/// Events between two looks at `lost` while a run's peak stands still (the bound it checks
/// against can fall while the run goes on).
const LOOK_EVERY: usize = 1024;

/// Whether a run asks if its peak has lost after event `n`: when the peak rose, and every
/// [`LOOK_EVERY`] events.
fn looks(rose: bool, n: usize) -> bool {
    rose || n.is_multiple_of(LOOK_EVERY)
}

/// [`StateCost::of`], given up as soon as `lost` says the peak of state bytes so far has lost:
/// `Err` with the peaks reached by then. `lost` is asked whenever the peak rises and every
/// [`LOOK_EVERY`] events.
pub(crate) fn state_cost_unless(
    events: &dyn Replay,
    cfg: EngineConfig,
    lost: impl Fn(usize) -> bool,
) -> Result<StateCost, StateCost> {
    // As `Processor::for_stream`: only the perfect watermark reads the largest delay.
    let max_delay = if cfg.watermark.reads_max_delay() {
        events.max_delay()
    } else {
        0.0
    };
    let mut p = Processor::new(cfg, max_delay);
    let mut out = Output::default();
    let mut cost = StateCost::default();
    let mut n = 0;
    let mut given_up = false;
    events.replay(&mut |part| {
        for e in part {
            p.step(e, &mut out);
            out.clear();
            cost.peak_open_cells = cost.peak_open_cells.max(p.open_cells());
            let bytes = p.state_bytes();
            let rose = bytes > cost.peak_state_bytes;
            cost.peak_state_bytes = cost.peak_state_bytes.max(bytes);
            if looks(rose, n) && lost(cost.peak_state_bytes) {
                given_up = true;
                return false;
            }
            n += 1;
        }
        true
    });
    if given_up {
        Err(cost)
    } else {
        Ok(cost)
    }
}

pub(crate) use super::frontier::pareto;

/// Which setting the advisor gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// The least emit delay among the settings at or above the target (ties: least state).
    Meets(usize),
    /// No setting reaches the target: the most accurate one (ties: least emit delay, then
    /// least state).
    Closest(usize),
}

impl Choice {
    /// Chooses among a frontier's points (swept with `base`'s window and watermark family):
    /// the cheapest meeting `target`, ties broken by a run's peak state.
    pub fn on_frontier(
        stream: &Stream,
        base: EngineConfig,
        points: &[FrontierPoint],
        target: f64,
    ) -> Option<Choice> {
        choose(points, target, |i| {
            let p = &points[i];
            let cfg = EngineConfig {
                watermark: base.watermark.with_lag(p.lag),
                grace: p.grace,
                early: None,
                ..base
            };
            StateCost::of(stream, cfg).peak_state_bytes
        })
    }

    /// The index of the setting chosen.
    pub fn index(self) -> usize {
        match self {
            Choice::Meets(i) | Choice::Closest(i) => i,
        }
    }
}

/// Chooses among `points`: the cheapest meeting `target` percent, or the most accurate.
/// `state` gives a setting's cost; it is asked only of the settings tied on the rest.
/// `None` when there are no points.
pub(crate) fn choose(
    points: &[FrontierPoint],
    target: f64,
    mut state: impl FnMut(usize) -> usize,
) -> Option<Choice> {
    let (meets, tied) = tied(points, target)?;
    // A lone setting is taken without asking its state (a run).
    let pick = match tied[..] {
        [only] => only,
        _ => tied.into_iter().min_by_key(|&i| (state(i), i))?,
    };
    Some(if meets {
        Choice::Meets(pick)
    } else {
        Choice::Closest(pick)
    })
}

/// The settings [`choose`] picks among by their state: the least emit delay among those
/// meeting `target` (`true`), or else the most accurate with the least emit delay
/// (`false`). `None` when there are no points.
pub(crate) fn tied(points: &[FrontierPoint], target: f64) -> Option<(bool, Vec<usize>)> {
    let meets: Vec<usize> = (0..points.len())
        .filter(|&i| points[i].score.accuracy() >= target)
        .collect();
    // The settings tied for the least key, compared by `total_cmp` (so a NaN ties with
    // itself and the best is always among them).
    let tied = |among: &[usize], key: &dyn Fn(usize) -> (f64, f64)| -> Vec<usize> {
        let order = |a: (f64, f64), b: (f64, f64)| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1));
        let Some(best) = among.iter().map(|&i| key(i)).min_by(|&a, &b| order(a, b)) else {
            return Vec::new();
        };
        among
            .iter()
            .copied()
            .filter(|&i| order(key(i), best).is_eq())
            .collect()
    };
    if !meets.is_empty() {
        return Some((true, tied(&meets, &|i| (points[i].emit_delay, 0.0))));
    }
    let all: Vec<usize> = (0..points.len()).collect();
    let t = tied(&all, &|i| {
        (-points[i].score.accuracy(), points[i].emit_delay)
    });
    (!t.is_empty()).then_some((false, t))
}

/// The advice for one watermark kind.
#[derive(Debug, Clone, PartialEq)]
pub struct FamilyAdvice {
    /// The kind swept.
    pub kind: Family,
    /// Every setting swept with an emit delay within the largest considered, lag-major.
    pub candidates: Vec<Candidate>,
    /// The Pareto-optimal candidates' indexes, by emit delay.
    pub pareto: Vec<usize>,
    /// The setting advised (`None` when no setting lies within the largest emit delay).
    pub choice: Option<Choice>,
    /// The advised setting's state over a run.
    pub state: Option<StateCost>,
}

impl FamilyAdvice {
    /// The advised candidate, if any.
    pub fn advised(&self) -> Option<&Candidate> {
        self.choice.map(|c| &self.candidates[c.index()])
    }
}

/// What the advisor is asked: the target, the largest emit delay, the kinds.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// Accuracy target, percent of the true total counted.
    pub target: f64,
    /// The largest emit delay considered, ms.
    pub max_delay: f64,
    /// The kinds swept.
    pub kinds: Vec<Family>,
    /// The heuristic's history length.
    pub heuristic_n: usize,
}

impl Request {
    /// The accuracy target when none is given, percent.
    pub const DEFAULT_TARGET: f64 = 99.9;
    /// The largest emit delay considered when none is given, ms (the frontier's grid reaches
    /// it).
    pub const DEFAULT_MAX_DELAY: f64 = 120_000.0;
    /// Steps in each of the lag and grace grids: 0 to the largest emit delay, 25 values.
    pub const GRID_STEPS: usize = slack::GRID_STEPS as usize;
}

/// The whole advice: one entry per kind asked, in the order asked.
#[derive(Debug, Clone, PartialEq)]
pub struct Advice {
    /// What was asked.
    pub request: Request,
    /// Per kind.
    pub kinds: Vec<FamilyAdvice>,
}

impl Advice {
    /// The advice from a log's slack statistics ([`SlackStats`]): the fixed and bounded kinds
    /// asked for (the heuristic needs every arrival's delay, which the statistics do not
    /// keep), swept on the statistics' grid, with the state each setting costs counted from
    /// them. On a stream's own statistics it is the advice [`advise`] gives for those kinds,
    /// when the statistics' grid is the request's (step = largest emit delay /
    /// [`Request::GRID_STEPS`]).
    pub fn from_stats(stats: &SlackStats, req: &Request) -> Advice {
        let kinds = req
            .kinds
            .iter()
            .filter_map(|&kind| {
                let clocked = kind.clocked()?;
                let cands = stats
                    .sweep(clocked)
                    .into_iter()
                    .map(|point| Candidate {
                        watermark: clocked.watermark(point.lag),
                        point,
                    })
                    .filter(|c| c.point.emit_delay <= req.max_delay)
                    .collect();
                Some(advise_kind(kind, cands, req.target, own_runs, |c, _| {
                    Ok(stats.state_cost(clocked, c.point.lag, c.point.grace))
                }))
            })
            .collect();
        Advice {
            request: req.clone(),
            kinds,
        }
    }

    /// The setting advised over all kinds: among the kinds' advised settings, one meeting the
    /// target before any that does not, then the least emit delay, then the least state, then
    /// the higher accuracy.
    pub fn best(&self) -> Option<(&FamilyAdvice, &Candidate)> {
        self.kinds
            .iter()
            .filter_map(|k| k.advised().map(|c| (k, c)))
            .min_by(|(ka, a), (kb, b)| {
                let misses = |k: &FamilyAdvice| !matches!(k.choice, Some(Choice::Meets(_)));
                misses(ka)
                    .cmp(&misses(kb))
                    .then(a.point.emit_delay.total_cmp(&b.point.emit_delay))
                    .then(
                        ka.state
                            .map(|s| s.peak_state_bytes)
                            .cmp(&kb.state.map(|s| s.peak_state_bytes)),
                    )
                    .then(
                        b.point
                            .score
                            .accuracy()
                            .total_cmp(&a.point.score.accuracy()),
                    )
            })
    }
}

/// The mean distance, ms, of the watermark behind processing time after each event, from its
/// sum over `n` events (0 for an empty stream).
fn mean_lag(sum: f64, n: usize) -> f64 {
    if n == 0 {
        0.0
    } else {
        sum / n as f64
    }
}

/// The events in memory: the stream itself, or a log's read back whole, for the sweeps that
/// need every event at once (windows that merge, TTL state, rules other than Beam Java's).
fn held(events: &dyn Replay) -> std::borrow::Cow<'_, Stream> {
    if let Some(stream) = events.in_memory() {
        return std::borrow::Cow::Borrowed(stream);
    }
    let mut all = Vec::with_capacity(events.len());
    events.replay(&mut |part| {
        all.extend_from_slice(part);
        true
    });
    let keys = all.iter().map(|e| e.key as usize + 1).max().unwrap_or(0);
    std::borrow::Cow::Owned(Stream {
        events: all,
        keys: vec![String::new(); keys],
        clock: crate::clock::Clock::Relative,
    })
}

/// The settings swept for one kind, scored, keeping those within the largest emit delay.
pub(crate) fn candidates(
    events: &dyn Replay,
    base: EngineConfig,
    kind: Family,
    req: &Request,
) -> Vec<Candidate> {
    let steps = grid(req.max_delay);
    let base = EngineConfig {
        grace: 0.0,
        early: None,
        ..base
    };
    let within = |c: &Candidate| c.point.emit_delay <= req.max_delay;
    match kind {
        Family::Fixed | Family::Bounded => {
            let watermark = kind.family().preset(0.0);
            let base = EngineConfig { watermark, ..base };
            folded::sweep(events, base, &steps, &steps)
                .unwrap_or_else(|| FrontierPoint::sweep(&held(events), base, &steps, &steps))
                .into_iter()
                .map(|point| Candidate {
                    watermark: watermark.with_lag(point.lag),
                    point,
                })
                .filter(within)
                .collect()
        }
        Family::Heuristic => {
            // Each quantile's clock is a pass of its own over the stream (a sliding quantile
            // per event): the quantiles are shared out over two cores where there are two, in
            // order. Not more: each holds its clock and its sweep's gathered arrivals, so two
            // at once take twice the memory of one.
            // Held in memory where the folded search does not serve; for sessions, the true
            // sessions found once for every quantile.
            let held_base = EngineConfig {
                watermark: WatermarkKind::Heuristic {
                    q: HEURISTIC_QS[0],
                    n: req.heuristic_n,
                },
                ..base
            };
            let stream = (!folded::serves(&held_base)).then(|| held(events));
            let true_sessions = stream
                .as_ref()
                .filter(|_| sessions::serves(&held_base))
                .map(|s| sessions::TrueSessions::of(s, held_base));
            let of_quantile = |q: f64| -> Vec<Candidate> {
                let watermark = WatermarkKind::Heuristic {
                    q,
                    n: req.heuristic_n,
                };
                let base = EngineConfig { watermark, ..base };
                let (lag, points) = if folded::serves(&base) {
                    // The clock of each pass, the mean lag summed over the last.
                    let max_delay = events.max_delay();
                    let sum = std::cell::Cell::new(0.0);
                    let clock = || {
                        let mut wm = crate::watermark::Watermark::new(watermark, max_delay);
                        sum.set(0.0);
                        let sum = &sum;
                        move |e: &crate::stream::Event| {
                            let w = wm.observe(e);
                            sum.set(sum.get() + (e.proc_time - w));
                            w
                        }
                    };
                    let points = folded::sweep_clocked(events, base, &clock, false, &[0.0], &steps);
                    (mean_lag(sum.get(), events.len()), points)
                } else {
                    // Its clock once, for both its mean lag and its sweep.
                    let held_now;
                    let stream: &Stream = match &stream {
                        Some(s) => s,
                        None => {
                            held_now = held(events);
                            &held_now
                        }
                    };
                    let clock = watermark_clock(stream, base);
                    let sum = stream
                        .events
                        .iter()
                        .zip(&clock)
                        .fold(0.0, |sum, (e, wm)| sum + (e.proc_time - wm));
                    let points = match &true_sessions {
                        Some(t) => {
                            sessions::sweep_sessions(stream, t, &clock, false, &[0.0], &steps)
                        }
                        None => sweep_clocked(stream, base, Some(&clock), &[0.0], &steps),
                    };
                    (mean_lag(sum, stream.len()), points)
                };
                points
                    .into_iter()
                    .map(move |p| Candidate {
                        watermark,
                        point: FrontierPoint {
                            lag,
                            emit_delay: lag + p.grace,
                            ..p
                        },
                    })
                    .collect()
            };
            let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(2));
            let chunk = HEURISTIC_QS.len().div_ceil(threads);
            let per_quantile: Vec<Vec<Candidate>> = std::thread::scope(|scope| {
                let handles: Vec<_> = HEURISTIC_QS
                    .chunks(chunk)
                    .map(|qs| {
                        let of_quantile = &of_quantile;
                        scope.spawn(move || qs.iter().map(|&q| of_quantile(q)).collect::<Vec<_>>())
                    })
                    .collect();
                handles
                    .into_iter()
                    .flat_map(|h| h.join().expect("a quantile's sweep does not panic"))
                    .collect()
            });
            per_quantile.into_iter().flatten().filter(within).collect()
        }
    }
}

/// Each tie measured by a run of its own (for [`advise_kind`]).
fn own_runs(_: &[Candidate], ties: &[usize]) -> Vec<usize> {
    (0..ties.len()).collect()
}

/// Advises from already scored candidates: the Pareto set and the choice, with `state` giving
/// a candidate's cost (asked of ties and of the one chosen).
///
/// The ties are chosen among by their peak state bytes, then their order, and each is a run:
/// they are run side by side on the machine's cores, in order, and a run is given up once its
/// peak so far loses to a run already finished (`state`'s second argument says, of a peak so
/// far, whether it has lost; `Err` is a run given up). The choice is the one every run to the
/// end gives: a run given up could only have ended higher, and the one chosen is never given
/// up, since no run finished before it beats it.
///
/// Ties whose runs are the same run (`same_run` gives, for each tie, the place among the ties
/// of the first one whose run it shares: its own where none does) are measured once, by the
/// first of them: the others cost what it costs, and come after it in order, so one of them
/// is chosen only where it is.
pub(crate) fn advise_kind(
    kind: Family,
    candidates: Vec<Candidate>,
    target: f64,
    same_run: impl FnOnce(&[Candidate], &[usize]) -> Vec<usize>,
    state: impl Fn(&Candidate, &dyn Fn(usize) -> bool) -> Result<StateCost, StateCost> + Sync,
) -> FamilyAdvice {
    let points: Vec<FrontierPoint> = candidates.iter().map(|c| c.point).collect();
    let pareto = pareto(&points);
    // Per candidate: its cost, and whether its run went to the end.
    let mut costs: Vec<Option<(StateCost, bool)>> = vec![None; candidates.len()];
    if let Some((_, ties)) = tied(&points, target).filter(|(_, t)| t.len() > 1) {
        let first = same_run(&candidates, &ties);
        let run: Vec<usize> = (0..ties.len())
            .filter(|&p| first[p] == p)
            .map(|p| ties[p])
            .collect();
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        for (i, measured) in race(&run, threads, |i, lost| state(&candidates[i], lost)) {
            costs[i] = Some(measured);
        }
        for (p, &i) in ties.iter().enumerate() {
            costs[i] = costs[ties[first[p]]];
        }
    }
    let never_lost = |_: usize| false;
    let mut cost = |i: usize| -> (StateCost, bool) {
        *costs[i].get_or_insert_with(|| match state(&candidates[i], &never_lost) {
            Ok(c) => (c, true),
            Err(c) => (c, false),
        })
    };
    // A run given up stands at the peak it had reached: more than the one chosen, or as much
    // and later in order.
    let choice = choose(&points, target, |i| cost(i).0.peak_state_bytes);
    let state = choice.map(|c| {
        let (measured, whole) = cost(c.index());
        debug_assert!(whole, "the setting chosen ran to the end");
        measured
    });
    FamilyAdvice {
        kind,
        candidates,
        pareto,
        choice,
        state,
    }
}

/// Runs `ties` (candidate indexes, started in the order given) side by side on `threads`
/// threads, each given up once its peak state bytes so far, with its index, come after the
/// least `(peak, index)` of the runs already finished: every tie's cost, and whether its run
/// went to the end.
fn race(
    ties: &[usize],
    threads: usize,
    run: impl Fn(usize, &dyn Fn(usize) -> bool) -> Result<StateCost, StateCost> + Sync,
) -> Vec<(usize, (StateCost, bool))> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let threads = threads.clamp(1, ties.len().max(1));
    let next = AtomicUsize::new(0);
    // The least (peak state bytes, index) of the runs finished.
    let best: Mutex<Option<(usize, usize)>> = Mutex::new(None);
    let worker = || {
        let mut done = Vec::new();
        loop {
            let Some(&i) = ties.get(next.fetch_add(1, Ordering::Relaxed)) else {
                return done;
            };
            let lost = |peak: usize| {
                let best = *best.lock().unwrap_or_else(|e| e.into_inner());
                best.is_some_and(|b| (peak, i) > b)
            };
            let measured = match run(i, &lost) {
                Ok(c) => {
                    let mut b = best.lock().unwrap_or_else(|e| e.into_inner());
                    let mine = (c.peak_state_bytes, i);
                    if b.is_none_or(|b| mine < b) {
                        *b = Some(mine);
                    }
                    (c, true)
                }
                Err(c) => (c, false),
            };
            done.push((i, measured));
        }
    };
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads).map(|_| scope.spawn(worker)).collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a state run does not panic"))
            .collect()
    })
}

/// The advice for a stream (in memory, or a log read back for each pass): each kind swept with
/// `base`'s window function.
pub fn advise(stream: &dyn Replay, base: EngineConfig, req: &Request) -> Advice {
    let kinds = req
        .kinds
        .iter()
        .map(|&kind| {
            let cands = candidates(stream, base, kind, req);
            let same_run = |cands: &[Candidate], ties: &[usize]| {
                let settings: Vec<EngineConfig> =
                    ties.iter().map(|&i| config_of(base, &cands[i])).collect();
                same_decisions(stream, &settings)
            };
            advise_kind(kind, cands, req.target, same_run, |c, lost| {
                state_cost_unless(stream, config_of(base, c), lost)
            })
        })
        .collect();
    Advice {
        request: req.clone(),
        kinds,
    }
}

/// Where a larger sweep reaches the target that a request's does not: the least of the
/// nicely stepped largest emit delays past the request's at which some kind asked for has a
/// setting at or above the target, with that setting; or none up to the stream's largest
/// delay.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Reach {
    /// `--max-delay max_delay` would reach the target with this kind's setting (the least
    /// emit delay among those that reach it in that sweep).
    At {
        /// The largest emit delay of the sweep that reaches it, ms: a nice step ×
        /// [`Request::GRID_STEPS`].
        max_delay: f64,
        /// The kind whose setting reaches it.
        kind: Family,
        /// The setting.
        candidate: Candidate,
    },
    /// No sweep up to the first that passes the stream's largest delay reaches it.
    Beyond {
        /// The stream's largest delay, ms.
        largest_delay: f64,
    },
}

impl Reach {
    /// The sweep past `req` that first reaches its target: the largest emit delays tried are
    /// [`Request::GRID_STEPS`] × each nice step (`crate::scale::NICE`) whose sweep goes
    /// beyond `req.max_delay`, up to the first that reaches past the stream's largest delay
    /// (where a fixed lag keeps every event, unless the kinds asked for leave it out).
    pub fn needed(stream: &dyn Replay, base: EngineConfig, req: &Request) -> Reach {
        let largest_delay = stream.max_delay();
        for step in crate::scale::NICE {
            let max_delay = step * Request::GRID_STEPS as f64;
            if max_delay <= req.max_delay {
                continue;
            }
            let wider = Request {
                max_delay,
                ..req.clone()
            };
            let found = req
                .kinds
                .iter()
                .filter_map(|&kind| {
                    let cands = candidates(stream, base, kind, &wider);
                    let points: Vec<FrontierPoint> = cands.iter().map(|c| c.point).collect();
                    match tied(&points, req.target) {
                        Some((true, ties)) => ties.first().map(|&i| (kind, cands[i])),
                        _ => None,
                    }
                })
                .min_by(|(_, a), (_, b)| a.point.emit_delay.total_cmp(&b.point.emit_delay));
            if let Some((kind, candidate)) = found {
                return Reach::At {
                    max_delay,
                    kind,
                    candidate,
                };
            }
            if max_delay >= largest_delay {
                break;
            }
        }
        Reach::Beyond { largest_delay }
    }
}

impl Policy {
    /// The three policies run with `base`'s window function and the fixed-lag watermark,
    /// scored.
    pub fn scored(stream: &Stream, base: EngineConfig) -> Vec<(Policy, FrontierPoint)> {
        let truth = oracle_under(stream, &base.window, base.conventions);
        let fixed = EngineConfig {
            watermark: WatermarkKind::Fixed { lag: 0.0 },
            early: None,
            ..base
        };
        Policy::ALL
            .iter()
            .map(|p| {
                (
                    *p,
                    FrontierPoint::run(stream, &truth, fixed, p.lag, p.grace),
                )
            })
            .collect()
    }
}

impl StateCost {
    /// Runs `cfg` over the stream and measures the peak of its open cells and state bytes.
    pub fn of(stream: &Stream, cfg: EngineConfig) -> StateCost {
        match state_cost_unless(stream, cfg, |_| false) {
            Ok(cost) | Err(cost) => cost,
        }
    }
}

/// The engine's dials for a candidate: `base`'s window with its watermark and grace.
pub(crate) fn config_of(base: EngineConfig, c: &Candidate) -> EngineConfig {
    EngineConfig {
        watermark: c.watermark,
        grace: c.point.grace,
        early: None,
        ..base
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontier::{dominates, Score};
    use proptest::prelude::*;

    fn pt(delay: f64, lost: i64, wrong: usize) -> FrontierPoint {
        FrontierPoint {
            lag: delay,
            grace: 0.0,
            emit_delay: delay,
            dropped: 0,
            score: Score {
                wrong_windows: wrong,
                events_lost: lost,
                max_error: lost,
                truth_total: 1000,
            },
        }
    }

    #[test]
    fn the_grid_runs_from_zero_to_the_largest_delay() {
        let g = grid(120_000.0);
        assert_eq!(g.len(), 25);
        assert_eq!(g[0], 0.0);
        assert_eq!(g[1], 5_000.0);
        assert_eq!(g[24], 120_000.0);
    }

    #[test]
    fn pareto_keeps_the_trade_offs_and_drops_the_beaten() {
        let pts = [
            pt(0.0, 50, 5),
            pt(10.0, 10, 2),
            pt(10.0, 20, 1),
            pt(20.0, 10, 2), // beaten by the second
            pt(30.0, 0, 0),
            pt(40.0, 0, 0), // beaten by the fifth
        ];
        assert_eq!(pareto(&pts), vec![0, 1, 2, 4]);
    }

    #[test]
    fn the_cheapest_meeting_the_target_is_advised() {
        // Accuracy = 100·(1 − lost/1000): 95, 99.9, 99.9, 100.
        let pts = [
            pt(0.0, 50, 5),
            pt(10.0, 1, 1),
            pt(10.0, 1, 0),
            pt(30.0, 0, 0),
        ];
        let state = [9, 7, 3, 1];
        assert_eq!(choose(&pts, 99.9, |i| state[i]), Some(Choice::Meets(2)));
        assert_eq!(choose(&pts, 100.0, |i| state[i]), Some(Choice::Meets(3)));
        assert_eq!(choose(&pts, 90.0, |i| state[i]), Some(Choice::Meets(0)));
    }

    #[test]
    fn no_setting_meeting_the_target_gives_the_most_accurate() {
        let pts = [pt(0.0, 50, 5), pt(10.0, 5, 1), pt(20.0, 5, 1)];
        assert_eq!(choose(&pts, 99.99, |_| 0), Some(Choice::Closest(1)));
        assert_eq!(choose(&[], 99.9, |_| 0), None);
    }

    #[test]
    fn state_is_asked_only_of_ties() {
        let pts = [pt(0.0, 0, 0), pt(10.0, 0, 0)];
        let mut asked = 0;
        choose(&pts, 99.0, |_| {
            asked += 1;
            0
        });
        assert_eq!(asked, 0);
    }

    #[test]
    fn the_classroom_stream_gets_advice_for_each_kind() {
        let s = Stream::classroom();
        let req = Request {
            target: Request::DEFAULT_TARGET,
            max_delay: Request::DEFAULT_MAX_DELAY,
            kinds: Family::ALL.to_vec(),
            heuristic_n: WatermarkKind::DEFAULT_N,
        };
        let a = advise(&s, EngineConfig::fixed(0.0, 0.0), &req);
        assert_eq!(a.kinds.len(), 3);
        for k in &a.kinds {
            assert!(!k.pareto.is_empty());
            let c = k.advised().unwrap();
            assert!(c.point.emit_delay <= Request::DEFAULT_MAX_DELAY);
            assert!(k.state.unwrap().peak_open_cells > 0);
            // The advised setting is on the frontier or tied with a point on it.
            assert!(k.pareto.iter().any(|&i| {
                let p = &k.candidates[i].point;
                !dominates(p, &c.point) || p == &c.point
            }));
        }
        assert!(a.best().is_some());
    }

    #[test]
    fn a_wider_sweep_is_found_where_the_request_reaches_no_target() {
        let s = Stream::classroom();
        let req = Request {
            target: 100.0,
            max_delay: 5_000.0,
            kinds: vec![Family::Fixed],
            heuristic_n: WatermarkKind::DEFAULT_N,
        };
        let base = EngineConfig::fixed(0.0, 0.0);
        let a = advise(&s, base, &req);
        assert!(matches!(a.kinds[0].choice, Some(Choice::Closest(_))));
        let Reach::At {
            max_delay,
            kind,
            candidate,
        } = Reach::needed(&s, base, &req)
        else {
            panic!("a fixed lag past the largest delay keeps every event");
        };
        assert_eq!(kind, Family::Fixed);
        assert!(max_delay > req.max_delay);
        assert!(candidate.point.score.accuracy() >= 100.0);
        // The sweep it names advises a setting that meets the target, and the one before it
        // in the nice steps does not.
        let at = advise(
            &s,
            base,
            &Request {
                max_delay,
                ..req.clone()
            },
        );
        assert!(matches!(at.kinds[0].choice, Some(Choice::Meets(_))));
        let before = crate::scale::NICE
            .iter()
            .map(|n| n * Request::GRID_STEPS as f64)
            .rfind(|&m| m < max_delay)
            .unwrap();
        if before > req.max_delay {
            let short = advise(
                &s,
                base,
                &Request {
                    max_delay: before,
                    ..req.clone()
                },
            );
            assert!(matches!(short.kinds[0].choice, Some(Choice::Closest(_))));
        }
    }

    #[test]
    fn no_sweep_reaches_a_target_the_kinds_cannot() {
        // With no kind to sweep, no setting reaches it: the search stops at the first sweep
        // past the stream's largest delay and says so.
        let s = Stream::classroom();
        let req = Request {
            target: 100.0,
            max_delay: 5_000.0,
            kinds: Vec::new(),
            heuristic_n: WatermarkKind::DEFAULT_N,
        };
        assert_eq!(
            Reach::needed(&s, EngineConfig::fixed(0.0, 0.0), &req),
            Reach::Beyond {
                largest_delay: s.max_delay()
            }
        );
    }

    #[test]
    fn the_delay_reach_found_in_passes_is_the_scales() {
        let classroom = Stream::classroom();
        let generated = Stream::generate(&crate::stream::StreamParams {
            events: 5_000,
            ..Default::default()
        })
        .unwrap();
        // Delays of both signs, many of them equal, a NaN-free spread over many exponents.
        let made: Vec<crate::stream::Event> = (0..3_000)
            .map(|i| crate::stream::Event {
                event_time: 1e6,
                proc_time: 1e6 + [0.0, -1.5, 2.5e-3, 7e9, -3e7][i % 5] * f64::from(i as u32 % 7),
                key: 0,
            })
            .collect();
        let made = Stream::from_unordered(made, vec!["k".into()]);
        // More delays alike than it holds: found by their 64 bits alone.
        let alike: Vec<crate::stream::Event> = (0..50)
            .map(|i| crate::stream::Event {
                event_time: f64::from(i),
                proc_time: f64::from(i) + if i == 7 { 900.0 } else { 500.0 },
                key: 0,
            })
            .collect();
        let alike = Stream::from_unordered(alike, vec!["k".into()]);
        for s in [&classroom, &generated, &made, &alike] {
            let scale = crate::scale::Scale::of(s);
            for most in [0, 1, 10, 1 << 20] {
                assert_eq!(
                    crate::scale::delay_reach_holding(s, most),
                    scale.delay_reach
                );
            }
        }
        assert_eq!(
            crate::scale::delay_reach(&Stream::from_unordered(Vec::new(), Vec::new())),
            0.0
        );
    }

    #[test]
    fn early_arrivals_are_counted() {
        let events = vec![
            crate::stream::Event {
                event_time: 10.0,
                proc_time: 5.0,
                key: 0,
            },
            crate::stream::Event {
                event_time: 10.0,
                proc_time: 10.0,
                key: 0,
            },
            crate::stream::Event {
                event_time: 10.0,
                proc_time: 12.0,
                key: 0,
            },
        ];
        let s = Stream::from_unordered(events, vec!["k".into()]);
        assert_eq!(s.arriving_early(), 1);
        assert_eq!(Stream::classroom().arriving_early(), 0);
    }

    /// A run of a made-up setting: its state bytes after each event, told to `lost` as
    /// [`state_cost_unless`] tells them ([`looks`]). Its "open cells" are the events it has seen,
    /// so that a run given up never reports what the same run to the end does.
    fn made_up_run(bytes: &[usize], lost: &dyn Fn(usize) -> bool) -> Result<StateCost, StateCost> {
        let mut cost = StateCost::default();
        for (n, &b) in bytes.iter().enumerate() {
            let rose = b > cost.peak_state_bytes;
            cost.peak_state_bytes = cost.peak_state_bytes.max(b);
            cost.peak_open_cells = n + 1;
            if looks(rose, n) && lost(cost.peak_state_bytes) {
                return Err(cost);
            }
        }
        Ok(cost)
    }

    #[test]
    fn ties_given_up_early_choose_as_ties_run_to_the_end() {
        // Four settings tied on emit delay and score; the third has the least peak, reached
        // last, and the others would be given up at their peak.
        let pts = [pt(5.0, 0, 0); 4];
        let runs: [Vec<usize>; 4] = [
            vec![10, 50, 20],
            vec![10, 60, 90],
            vec![10, 20, 40],
            vec![40, 40, 40],
        ];
        // Each candidate's lag is its place, which finds its run.
        let cands: Vec<Candidate> = pts
            .iter()
            .enumerate()
            .map(|(i, &point)| Candidate {
                watermark: WatermarkKind::Fixed { lag: 0.0 },
                point: FrontierPoint {
                    lag: i as f64,
                    ..point
                },
            })
            .collect();
        let at = |c: &Candidate| c.point.lag as usize;
        let a = advise_kind(Family::Fixed, cands.clone(), 99.0, own_runs, |c, lost| {
            made_up_run(&runs[at(c)], lost)
        });
        assert_eq!(a.choice, Some(Choice::Meets(2)));
        assert_eq!(a.state.unwrap().peak_state_bytes, 40);
    }

    #[test]
    fn ties_that_share_a_run_are_measured_by_one() {
        let cands: Vec<Candidate> = (0..4)
            .map(|i| Candidate {
                watermark: WatermarkKind::Fixed { lag: 0.0 },
                point: FrontierPoint {
                    lag: f64::from(i),
                    ..pt(5.0, 0, 0)
                },
            })
            .collect();
        // The second and fourth share the first's run, the third has its own.
        let same_run = |_: &[Candidate], ties: &[usize]| {
            assert_eq!(ties, [0, 1, 2, 3]);
            vec![0, 0, 2, 0]
        };
        let runs = std::sync::Mutex::new(Vec::new());
        let a = advise_kind(Family::Fixed, cands, 99.0, same_run, |c, lost| {
            runs.lock().unwrap().push(c.point.lag as usize);
            let bytes: &[usize] = if c.point.lag == 0.0 { &[30] } else { &[20] };
            made_up_run(bytes, lost)
        });
        let mut runs = runs.into_inner().unwrap();
        runs.sort_unstable();
        assert_eq!(runs, [0, 2]);
        assert_eq!(a.choice, Some(Choice::Meets(2)));
        assert_eq!(a.state.unwrap().peak_state_bytes, 20);
    }

    #[test]
    fn a_streams_advice_is_the_same_with_ties_given_up() {
        // Sessions tie on the classroom stream: the advice with runs given up is the advice
        // every tie's run gives run to the end.
        let s = Stream::classroom();
        let base = EngineConfig {
            window: crate::window::WindowFn::Session { gap: 5_000 },
            ..EngineConfig::fixed(0.0, 0.0)
        };
        let req = Request {
            target: Request::DEFAULT_TARGET,
            max_delay: Request::DEFAULT_MAX_DELAY,
            kinds: vec![Family::Fixed, Family::Bounded],
            heuristic_n: WatermarkKind::DEFAULT_N,
        };
        let raced = advise(&s, base, &req);
        let mut given_up = 0;
        for k in &raced.kinds {
            let (_, ties) = tied(
                &k.candidates.iter().map(|c| c.point).collect::<Vec<_>>(),
                req.target,
            )
            .unwrap();
            assert!(ties.len() > 1, "{:?} has ties to choose among", k.kind);
            let whole = advise_kind(
                k.kind,
                k.candidates.clone(),
                req.target,
                own_runs,
                |c, _| Ok(StateCost::of(&s, config_of(base, c))),
            );
            assert_eq!(k, &whole);
            // The race gives runs up here (or it would save nothing), the one chosen never:
            // in order, and last of all, after every other tie has finished or lost.
            let chosen = k.choice.unwrap().index();
            let last_first: Vec<usize> = ties.iter().rev().copied().collect();
            for (order, threads) in [(&ties, 2), (&last_first, 1)] {
                let raced = race(order, threads, |i, lost| {
                    state_cost_unless(&s, config_of(base, &k.candidates[i]), lost)
                });
                given_up += raced.iter().filter(|(_, (_, whole))| !whole).count();
                assert!(raced
                    .iter()
                    .any(|&(i, (c, whole))| i == chosen && whole && Some(c) == k.state));
            }
        }
        assert!(given_up > 0, "no tied run was given up");
    }

    prop_compose! {
        fn arb_point()(d in 0u8..8, lost in 0i64..6, wrong in 0usize..4) -> FrontierPoint {
            pt(f64::from(d) * 1000.0, lost, wrong)
        }
    }

    proptest! {
        #[test]
        fn the_pareto_set_is_exactly_the_non_dominated_points(
            pts in proptest::collection::vec(arb_point(), 0..40)
        ) {
            let mut got = pareto(&pts);
            got.sort_unstable();
            let want: Vec<usize> = (0..pts.len())
                .filter(|&i| !pts.iter().any(|q| dominates(q, &pts[i])))
                .collect();
            prop_assert_eq!(got, want);
        }

        #[test]
        fn ties_raced_choose_what_whole_runs_choose(
            runs in proptest::collection::vec(
                proptest::collection::vec(0usize..40, 1..3000), 1..7),
            delays in proptest::collection::vec(0u8..3, 7),
        ) {
            let cands: Vec<Candidate> = runs
                .iter()
                .enumerate()
                .map(|(i, _)| Candidate {
                    watermark: WatermarkKind::Fixed { lag: 0.0 },
                    point: FrontierPoint {
                        lag: i as f64,
                        ..pt(f64::from(delays[i]), 0, 0)
                    },
                })
                .collect();
            let at = |c: &Candidate| c.point.lag as usize;
            let raced = advise_kind(Family::Fixed, cands.clone(), 99.0, own_runs, |c, lost| {
                made_up_run(&runs[at(c)], lost)
            });
            let whole = advise_kind(Family::Fixed, cands.clone(), 99.0, own_runs, |c, _| {
                made_up_run(&runs[at(c)], &|_| false)
            });
            prop_assert_eq!(raced, whole);
        }

        #[test]
        fn a_race_in_any_order_runs_the_least_to_the_end(
            runs in proptest::collection::vec(
                proptest::collection::vec(0usize..40, 1..3000), 1..7),
            order in Just((0..7).collect::<Vec<usize>>()).prop_shuffle(),
            threads in 1usize..4,
        ) {
            // The ties started in any order, on any number of threads: the least
            // (final peak, index) runs to the end, and every run given up had passed it.
            let ties: Vec<usize> = order.into_iter().filter(|&i| i < runs.len()).collect();
            let whole = |i: usize| made_up_run(&runs[i], &|_| false).unwrap();
            let least = (0..runs.len())
                .min_by_key(|&i| (whole(i).peak_state_bytes, i))
                .unwrap();
            let raced = race(&ties, threads, |i, lost| made_up_run(&runs[i], lost));
            prop_assert_eq!(raced.len(), ties.len());
            for (i, (cost, went_on)) in raced {
                if i == least {
                    prop_assert!(went_on);
                    prop_assert_eq!(cost, whole(least));
                } else if !went_on {
                    prop_assert!(
                        (cost.peak_state_bytes, i) > (whole(least).peak_state_bytes, least)
                    );
                }
            }
        }

        #[test]
        fn the_advised_point_meets_the_target_at_the_least_delay(
            pts in proptest::collection::vec(arb_point(), 1..40),
            target in 99.0f64..100.0,
        ) {
            let c = choose(&pts, target, |i| i).unwrap();
            let best = pts.iter().map(|p| p.score.accuracy()).fold(f64::MIN, f64::max);
            match c {
                Choice::Meets(i) => {
                    prop_assert!(pts[i].score.accuracy() >= target);
                    prop_assert!(pts.iter().all(|p| p.score.accuracy() < target
                        || p.emit_delay >= pts[i].emit_delay));
                }
                Choice::Closest(i) => {
                    prop_assert!(best < target);
                    prop_assert_eq!(pts[i].score.accuracy(), best);
                }
            }
        }
    }
}
