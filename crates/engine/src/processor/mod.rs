//! The assembled stream processor: windows, watermark, late data and triggers put together and
//! fed one event at a time in processing order. Every batch answer (`run`, the report, the
//! frontier, checkpointed jobs) and the UI's animation go through [`Processor::step`], so each
//! rule has one implementation.
//!
//! Per arrival, in this order: the watermark takes the event in; the event is placed in its
//! windows (dropped, late or on time); due EARLY timers fire; windows the watermark has now
//! passed fire ON_TIME; cells that took late data emit LATE panes; windows past their grace are
//! finalised and their state freed.
//!
//! Non-merging windows (tumbling, sliding) live in the window store (`store`), by window then
//! key. Sessions live in the session store (`sessions`), by key then start, where an event's
//! proto-window merges with the sessions it overlaps; the two paths share the fate rule, the
//! panes and the timers.

mod output;
mod session_store;
mod sessions;
mod store;
mod ttl;
mod ttl_state;

use std::collections::{BTreeMap, BinaryHeap};

use super::conventions::Conventions;
use super::lateness::{Dropped, Fate};
use super::stream::{Event, Stream};
use super::trigger::{
    Accumulation, CellState, ClosingBehavior, EmptyPanes, OnTimeBehavior, Timer, Timing,
};
use super::watermark::{Watermark, WatermarkKind};
use super::window::{Assignment, CellId, WindowFn, WindowId};
pub use output::{Arrival, Counters, Expiry, FinalValue, Output, SessionChange};
use session_store::SessionStore;
pub(crate) use session_store::SESSION_BYTES;
use store::{WindowState, WindowStore};
use ttl_state::TtlState;

/// The dials of one run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EngineConfig {
    /// How each event is assigned to windows by its event time.
    pub window: WindowFn,
    /// The watermark generator: how far event time is taken to be complete.
    pub watermark: WatermarkKind,
    /// Allowed lateness after the watermark passes a window's end, ms (may be +∞).
    pub grace: f64,
    /// Early-trigger interval in processing time, ms.
    pub early: Option<f64>,
    /// What each pane carries: the whole value so far, only what is new, or the whole value
    /// with a retraction of the previous pane.
    pub accumulation: Accumulation,
    /// Whose rules decide fates, firings and merges: Beam Java's by default.
    pub conventions: Conventions,
    /// Whether an ON_TIME pane or a window's last pane is emitted with nothing new in it
    /// (Beam Java's `OnTimeBehavior` and `ClosingBehavior`; Beam's defaults, which the other
    /// engines' rules keep).
    pub empty_panes: EmptyPanes,
}

impl EngineConfig {
    /// 60 s tumbling windows, `fixed:lag`, the given grace, no early trigger, accumulating:
    /// the reference's block-4 pipeline.
    pub fn fixed(lag: f64, grace: f64) -> Self {
        EngineConfig {
            window: WindowFn::Tumbling {
                size: 60_000,
                offset: 0,
            },
            watermark: WatermarkKind::Fixed { lag },
            grace,
            early: None,
            accumulation: Accumulation::Accumulating,
            conventions: Conventions::Beam,
            empty_panes: EmptyPanes::default(),
        }
    }
}

/// The incremental engine. Cloning it is taking a snapshot of its whole state.
#[derive(Debug, Clone)]
pub struct Processor {
    cfg: EngineConfig,
    watermark: Watermark,
    /// Whether the window function merges: sessions live in `sessions`, other windows in
    /// `windows`.
    merging: bool,
    /// Open non-merging windows, by id; they end in id order.
    windows: WindowStore,
    /// Open sessions, by key then start, and by end.
    sessions: SessionStore,
    /// The global window's state TTL, when it has one: each live key's last update.
    ttl: Option<TtlState>,
    /// Whether it records session changes and expiries in its output (for a reader that
    /// draws them; batch answers need only the counters and pay nothing for it).
    records: bool,
    /// Sessions: the watermark the open sessions were last passed under; a session ending by
    /// it has fired on time.
    passed_wm: f64,
    /// The watermark of the last arrival placed by the general path or of the last advance:
    /// a window it had passed fired on time in an earlier step, so its closing pane is a
    /// pane of its own ([`Processor::closing_pane`]).
    prior_wm: f64,
    /// Sessions: how long past its end a session is kept before the drop rule lets it go (0,
    /// or under rules that never collect a window a gap less a millisecond:
    /// [`Conventions::session_kept_until`]).
    session_kept_for: f64,
    /// Whether windows tumble (one window per event), so an arrival may take the calm path.
    tumbling: bool,
    /// End of the first open window (+∞ when none), as the drop rule compares it
    /// ([`Conventions::drop_end`]; the end itself under Beam's rules): finalisation is
    /// checked against it.
    first_end: f64,
    /// 1 / slide, for window assignment without a division per event.
    inv_slide: f64,
    /// Every window up to this index has been passed by the watermark.
    passed_through: Option<WindowId>,
    /// End of the first window not yet passed (cached to skip work).
    next_pass_end: f64,
    timers: BinaryHeap<Timer>,
    counters: Counters,
    open_cells: usize,
    offset: usize,
    last_proc_time: f64,
    finished: bool,
    /// Scratch: cells that took late data in this arrival.
    late_cells: Vec<CellId>,
    due: Vec<Timer>,
    scratch_ids: Vec<WindowId>,
    /// Scratch: the cells a session merge or pass works through.
    scratch_cells: Vec<CellId>,
}

/// Estimated bytes of one open cell (its state, its slot, and a share of map overhead).
pub(crate) const CELL_BYTES: usize = std::mem::size_of::<Option<CellState>>() + 8;
/// Estimated bytes of one open window's own bookkeeping.
pub(crate) const WINDOW_BYTES: usize = std::mem::size_of::<WindowState>() + 24;

impl Processor {
    /// Runs a stream through a processor from the first event to the end of input. With
    /// `keep_panes` false the panes are counted but not kept.
    pub fn run(stream: &Stream, cfg: EngineConfig, keep_panes: bool) -> RunResult {
        run_with(stream, cfg, keep_panes, None)
    }

    /// A processor before its first event. `max_delay` is the stream's largest delay, used only
    /// by the perfect watermark.
    pub fn new(mut cfg: EngineConfig, max_delay: f64) -> Self {
        // Kafka Streams has no processing-time trigger: no early panes under its rules.
        if !cfg.conventions.has_early_panes() {
            cfg.early = None;
        }
        Processor {
            cfg,
            watermark: Watermark::new(cfg.watermark.under(cfg.conventions), max_delay),
            merging: cfg.window.is_merging(),
            windows: WindowStore::new(
                matches!(cfg.window, WindowFn::Tumbling { .. }),
                cfg.conventions,
            ),
            sessions: SessionStore::default(),
            ttl: cfg.window.ttl().map(TtlState::new),
            records: false,
            passed_wm: f64::NEG_INFINITY,
            prior_wm: f64::NEG_INFINITY,
            session_kept_for: cfg
                .conventions
                .session_kept_until(0.0, cfg.window.size() as f64),
            tumbling: matches!(cfg.window, WindowFn::Tumbling { .. }),
            first_end: f64::INFINITY,
            inv_slide: 1.0 / cfg.window.slide() as f64,
            passed_through: None,
            // The global window is passed by nothing before the end of input.
            next_pass_end: if cfg.window.is_global() {
                f64::INFINITY
            } else {
                f64::NEG_INFINITY
            },
            timers: BinaryHeap::new(),
            counters: Counters::default(),
            open_cells: 0,
            offset: 0,
            last_proc_time: f64::NEG_INFINITY,
            finished: false,
            late_cells: Vec::new(),
            due: Vec::new(),
            scratch_ids: Vec::new(),
            scratch_cells: Vec::new(),
        }
    }

    /// A processor for `stream` (resolving the perfect watermark's lag from it).
    pub fn for_stream(cfg: EngineConfig, stream: &Stream) -> Self {
        // Only the perfect watermark reads the largest delay: the other kinds skip the pass
        // over the stream that finds it.
        let max_delay = if cfg.watermark.reads_max_delay() {
            stream.max_delay()
        } else {
            0.0
        };
        Processor::new(cfg, max_delay)
    }

    /// The same processor, recording in its output every change of the sessions
    /// ([`Output::sessions`]) and every TTL expiry ([`Output::expirations`]).
    pub fn recording(mut self) -> Self {
        self.records = true;
        self
    }

    /// The dials it runs with.
    pub fn config(&self) -> &EngineConfig {
        &self.cfg
    }

    /// Its running totals so far (part of its state: they roll back with a restore).
    pub fn counters(&self) -> &Counters {
        &self.counters
    }

    /// Its watermark now, event time, ms: −∞ before the first event, +∞ after the end of
    /// input, never lower than before.
    pub fn watermark(&self) -> f64 {
        self.watermark.current()
    }

    /// Events processed so far: the source offset to resume from.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Windows open now: holding at least one cell and not yet finalised (for sessions, each
    /// open session of each key).
    pub fn open_windows(&self) -> usize {
        self.windows.len() + self.sessions.len()
    }

    /// (window, key) cells open now, over every open window.
    pub fn open_cells(&self) -> usize {
        self.open_cells
    }

    /// The estimated size of the state a checkpoint copies: the cells, the windows'
    /// bookkeeping, the session index (both of its entries per session) and the timers.
    pub fn state_bytes(&self) -> usize {
        self.open_cells * CELL_BYTES
            + self.windows.len() * WINDOW_BYTES
            + self.sessions.len() * SESSION_BYTES
            + self.timers.len() * Timer::CHECKPOINT_BYTES
    }

    /// The live state of a cell, if its window is open.
    pub fn cell(&self, cell: CellId) -> Option<&CellState> {
        if self.merging {
            return self.sessions.get(cell);
        }
        self.windows
            .get(&cell.window)
            .and_then(|w| w.cells.get(cell.key))
    }

    /// The live state of a cell, to change, if its window is open.
    fn cell_mut(&mut self, cell: CellId) -> Option<&mut CellState> {
        if self.merging {
            return self.sessions.get_mut(cell);
        }
        self.windows
            .get_mut(&cell.window)
            .and_then(|w| w.cells.get_mut(cell.key))
    }

    /// Open cells with their state and whether their window has fired on time.
    pub fn open(&self) -> impl Iterator<Item = (CellId, &CellState, bool)> + '_ {
        let windows = self.windows.iter().flat_map(|(window, w)| {
            let fired = self.passed(window);
            w.cells
                .iter()
                .map(move |(key, c)| (CellId { window, key }, c, fired))
        });
        let sessions = self
            .sessions
            .iter()
            .map(|(cell, c)| (cell, c, self.passed(cell.window)));
        windows.chain(sessions)
    }

    /// Whether the watermark has passed window `id` (so it has fired on time).
    fn passed(&self, id: WindowId) -> bool {
        if self.merging {
            self.session_passed(id)
        } else {
            self.passed_through.is_some_and(|p| id <= p)
        }
    }

    fn bounds(&self, window: WindowId) -> (f64, f64) {
        (self.cfg.window.start(window), self.cfg.window.end(window))
    }

    /// Feeds the next event (in processing order) and appends what it caused to `out`.
    #[inline]
    pub fn step(&mut self, e: &Event, out: &mut Output) -> Arrival {
        let wm = self.watermark.observe(e);
        if self.tumbling {
            if let Some(arrival) = self.step_calm(e, wm) {
                return arrival;
            }
        }
        self.step_placed(e, wm, out)
    }

    /// [`Processor::step`] after the watermark has taken the event: its windows assigned and
    /// the event placed by the general rules.
    #[inline(never)]
    fn step_placed(&mut self, e: &Event, wm: f64, out: &mut Output) -> Arrival {
        let windows = self.cfg.window.assign_with(e.event_time, self.inv_slide);
        self.place(e, windows, wm, out)
    }

    /// The common arrival under tumbling windows, in a few comparisons: the event falls in the
    /// hot (or warm) window, whose cell for its key is open, on time; and the watermark and
    /// processing time reach no window end, grace or timer, so nothing fires and nothing is
    /// finalised.
    /// It does what [`Processor::place_in_windows`] does then (count the event on time, add
    /// one to the cell) and emits nothing; `None` when any of this does not hold, leaving the
    /// arrival to the general path untouched.
    #[inline(always)]
    fn step_calm(&mut self, e: &Event, wm: f64) -> Option<Arrival> {
        if wm >= self.next_pass_end
            || wm >= self.windows.hot_end(e.event_time)
            || Fate::finalised(self.first_end, wm, self.cfg.grace)
            || (self.cfg.early.is_some()
                && self.timers.peek().is_some_and(|t| t.due <= e.proc_time))
        {
            return None;
        }
        let (window, cell) = self.windows.hot_cell(e.event_time, e.key)?;
        cell.value += 1;
        let offset = self.arrive(e);
        self.counters.on_time += 1;
        Some(Arrival {
            offset,
            watermark: wm,
            windows: Assignment::one(window),
            fate: Fate::OnTime,
        })
    }

    /// [`Processor::step`] with the event's windows already assigned by the same
    /// [`WindowFn`] (a sweep assigns each event once for all its runs).
    pub(crate) fn step_assigned(
        &mut self,
        e: &Event,
        windows: Assignment,
        out: &mut Output,
    ) -> Arrival {
        debug_assert!(windows.clone().eq(self.cfg.window.assign(e.event_time)));
        let wm = self.watermark.observe(e);
        self.place(e, windows, wm, out)
    }

    /// Feeds the next event under a watermark decided elsewhere (an operator behind several
    /// inputs takes the smallest of their watermarks). The watermark is held monotone.
    pub fn step_with_watermark(&mut self, e: &Event, watermark: f64, out: &mut Output) -> Arrival {
        let wm = self.watermark.raise(watermark);
        let windows = self.cfg.window.assign_with(e.event_time, self.inv_slide);
        self.place(e, windows, wm, out)
    }

    /// Moves time on without an event: the watermark (held monotone) and processing time
    /// advance, due EARLY timers fire, passed windows fire ON_TIME, expired ones are finalised.
    pub fn advance(&mut self, watermark: f64, proc_time: f64, out: &mut Output) {
        let wm = self.watermark.raise(watermark);
        if proc_time > self.last_proc_time {
            self.last_proc_time = proc_time;
        }
        self.expire_on_advance(wm, proc_time, out);
        self.fire_timers(proc_time, wm, out);
        if self.merging {
            self.pass_sessions(wm, proc_time, out);
            self.finalise_sessions(wm, proc_time, out);
            self.prior_wm = wm;
            return;
        }
        if wm >= self.next_pass_end {
            self.pass_windows(wm, proc_time, out);
        }
        self.finalise(wm, proc_time, out);
        self.prior_wm = wm;
    }

    /// Places an event, under watermark `wm`, in the windows assigned to it.
    #[inline]
    fn place(&mut self, e: &Event, windows: Assignment, wm: f64, out: &mut Output) -> Arrival {
        let arrival = if self.merging {
            self.place_in_session(e, windows, wm, out)
        } else if self.ttl.is_some() {
            self.place_with_ttl(e, windows, wm, out)
        } else {
            self.place_in_windows(e, windows, wm, out)
        };
        self.prior_wm = wm;
        arrival
    }

    /// Counts one arrival: its offset in processing order, and processing time held at its
    /// maximum (behind aligned barriers arrivals may step back in time).
    #[inline]
    fn arrive(&mut self, e: &Event) -> usize {
        let offset = self.offset;
        self.offset += 1;
        self.counters.events += 1;
        if e.proc_time > self.last_proc_time {
            self.last_proc_time = e.proc_time;
        }
        offset
    }

    /// The fate of the event at `offset` in `window` under watermark `wm`, by [`Fate::decide`],
    /// counted; a drop goes to the side output.
    #[inline]
    fn decide(
        &mut self,
        offset: usize,
        e: &Event,
        window: WindowId,
        wm: f64,
        out: &mut Output,
    ) -> Fate {
        let grace = self.cfg.grace;
        let end = window.end();
        let f = Fate::decide_under(self.cfg.conventions, end, wm, grace, self.merging);
        match f {
            Fate::Dropped => {
                self.counters.dropped += 1;
                out.dropped.push(Dropped {
                    offset,
                    event: *e,
                    window,
                    window_start: window.start(),
                    window_end: end,
                    grace,
                    watermark: wm,
                });
            }
            Fate::Late => self.counters.late += 1,
            Fate::OnTime => self.counters.on_time += 1,
        }
        f
    }

    /// [`Processor::place`] for non-merging windows: the event counts in each of its windows'
    /// cell for its key.
    fn place_in_windows(
        &mut self,
        e: &Event,
        windows: Assignment,
        wm: f64,
        out: &mut Output,
    ) -> Arrival {
        let offset = self.arrive(e);
        let grace = self.cfg.grace;
        let mut fate = Fate::OnTime;
        self.late_cells.clear();

        // Place the event in each of its windows.
        for window in windows.clone() {
            let f = self.decide(offset, e, window, wm, out);
            fate = fate.worst(f);
            if f == Fate::Dropped {
                continue;
            }
            let end = self.cfg.conventions.drop_end(window.end(), false);
            let passed = self.passed_through.is_some_and(|p| window <= p);
            if end < self.first_end {
                self.first_end = end;
            }
            let w = self.windows.get_or_open(window);
            let cell_id = CellId { window, key: e.key };
            let (cell, created) = w.cells.get_or_open(e.key);
            if created {
                self.open_cells += 1;
                self.counters.state_entries_max =
                    self.counters.state_entries_max.max(self.open_cells as u64);
                if let (Some(every), false) = (self.cfg.early, passed) {
                    let due = e.proc_time + every;
                    cell.timer = Some(due);
                    self.timers.push(Timer { due, cell: cell_id });
                }
            }
            cell.value += 1;
            if passed {
                self.late_cells.push(cell_id);
            }
        }

        // EARLY: timers due by now, for windows that have not fired on time.
        if self.cfg.early.is_some() {
            self.fire_timers(e.proc_time, wm, out);
        }

        // ON_TIME: windows the watermark has just passed.
        if wm >= self.next_pass_end {
            self.pass_windows(wm, e.proc_time, out);
        }

        // LATE: cells of already-fired windows whose value this arrival changed.
        if !self.late_cells.is_empty() {
            self.emit_late_panes(e.proc_time, wm, out);
        }

        // Finalise windows past their grace.
        if Fate::finalised(self.first_end, wm, grace) {
            self.finalise(wm, e.proc_time, out);
        }

        Arrival {
            offset,
            watermark: wm,
            windows,
            fate,
        }
    }

    /// Emits a LATE pane for each cell that took late data in this arrival, if its value
    /// changed.
    fn emit_late_panes(&mut self, proc_time: f64, wm: f64, out: &mut Output) {
        if !self.cfg.conventions.fires_on_watermark() {
            return;
        }
        let mode = self.cfg.accumulation;
        for i in 0..self.late_cells.len() {
            let cell = self.late_cells[i];
            let bounds = self.bounds(cell.window);
            if let Some(c) = self.cell_mut(cell) {
                if c.changed() {
                    out.panes
                        .push(c.emit(cell, bounds, Timing::Late, proc_time, wm, mode));
                    self.counters.late_panes += 1;
                }
            }
        }
    }

    /// Fires the EARLY panes whose timers are due by `proc_time`, and re-arms them.
    fn fire_timers(&mut self, proc_time: f64, wm: f64, out: &mut Output) {
        if let Some(every) = self.cfg.early {
            self.due.clear();
            while let Some(t) = self.timers.peek() {
                if t.due > proc_time {
                    break;
                }
                let t = self.timers.pop().expect("peeked");
                self.due.push(t);
            }
            for i in 0..self.due.len() {
                let t = self.due[i];
                let bounds = self.bounds(t.cell.window);
                if self.passed(t.cell.window) {
                    continue;
                }
                let mode = self.cfg.accumulation;
                let Some(c) = self.cell_mut(t.cell) else {
                    continue;
                };
                if c.timer != Some(t.due) {
                    continue;
                }
                let pane = c.emit(t.cell, bounds, Timing::Early, proc_time, wm, mode);
                let due = proc_time + every;
                c.timer = Some(due);
                out.panes.push(pane);
                self.counters.early_panes += 1;
                self.timers.push(Timer { due, cell: t.cell });
            }
        }
    }

    /// Fires ON_TIME panes for the open windows that end by `wm`.
    /// The global window has none: it never ends, its finals come at the end of input.
    fn pass_windows(&mut self, wm: f64, proc_time: f64, out: &mut Output) {
        if self.cfg.window.is_global() {
            return;
        }
        let Some(through) = self
            .cfg
            .window
            .last_ended_by(self.cfg.conventions.ends_passed_by(wm))
        else {
            return;
        };
        if self.passed_through.is_some_and(|p| p >= through) {
            return;
        }
        let from = self
            .passed_through
            .map_or(WindowId::MIN, |p| self.cfg.window.next(p));
        let mode = self.cfg.accumulation;
        let fires_empty = self.cfg.conventions.fires_empty_on_time_pane();
        let fires = self.cfg.conventions.fires_on_watermark();
        let only_changed = self.only_changed_on_time();
        let window_fn = self.cfg.window;
        let mut ids = std::mem::take(&mut self.scratch_ids);
        self.windows.ids_in(from, through, &mut ids);
        // Every open window in (passed_through, through] is one the watermark passes now.
        for &window in &ids {
            let Some(w) = self.windows.get_mut(&window) else {
                continue;
            };
            let bounds = (window_fn.start(window), window_fn.end(window));
            for (key, c) in w.cells.iter_mut() {
                c.timer = None;
                if !fires
                    || (!fires_empty && !c.changed() && mode == Accumulation::Discarding)
                    || (only_changed && !c.changed())
                {
                    continue;
                }
                let cell = CellId { window, key };
                out.panes
                    .push(c.emit(cell, bounds, Timing::OnTime, proc_time, wm, mode));
                self.counters.on_time_panes += 1;
            }
        }
        self.scratch_ids = ids;
        self.passed_through = Some(through);
        self.next_pass_end = if through == WindowId::MAX {
            f64::INFINITY
        } else {
            self.cfg
                .conventions
                .pass_end(window_fn.end(window_fn.next(through)))
        };
    }

    fn finalise(&mut self, wm: f64, proc_time: f64, out: &mut Output) {
        while let Some(window) = self.windows.first() {
            if !Fate::finalised_under(
                self.cfg.conventions,
                self.cfg.window.end(window),
                wm,
                self.cfg.grace,
                false,
            ) {
                break;
            }
            if let Some(w) = self.windows.remove(window) {
                self.close_window(window, w, proc_time, wm, out);
            }
        }
        self.first_end = self.windows.first().map_or(f64::INFINITY, |id| {
            self.cfg
                .conventions
                .drop_end(self.cfg.window.end(id), false)
        });
    }

    /// Closes `window`: its cells' values are final and their state freed. Under Kafka
    /// Streams' rules each cell emits its one result now ([`Processor::final_pane`]).
    fn close_window(
        &mut self,
        window: WindowId,
        w: WindowState,
        proc_time: f64,
        wm: f64,
        out: &mut Output,
    ) {
        let bounds = self.bounds(window);
        let final_panes = !self.cfg.conventions.fires_on_watermark();
        let closing = self.fires_closing_panes();
        for (key, mut c) in w.cells.into_cells() {
            self.open_cells -= 1;
            if final_panes {
                self.final_pane(CellId { window, key }, bounds, &mut c, proc_time, wm, out);
            }
            if closing {
                self.closing_pane(CellId { window, key }, bounds, &mut c, proc_time, wm, out);
            }
            out.finals.push(FinalValue {
                cell: CellId { window, key },
                value: c.value,
                proc_time,
            });
        }
        self.counters.windows_finalised += 1;
    }

    /// The pane a cell emits as its window closes, under rules whose windows do not fire on
    /// the watermark but once, at their close (Kafka Streams' `onWindowClose`; the callers
    /// ask [`Conventions::fires_on_watermark`]): ON_TIME, its one non-speculative pane, with
    /// everything the cell kept.
    #[cold]
    #[inline(never)]
    fn final_pane(
        &mut self,
        cell: CellId,
        bounds: (f64, f64),
        c: &mut CellState,
        proc_time: f64,
        wm: f64,
        out: &mut Output,
    ) {
        if c.changed() {
            let mode = self.cfg.accumulation;
            out.panes
                .push(c.emit(cell, bounds, Timing::OnTime, proc_time, wm, mode));
            self.counters.on_time_panes += 1;
        }
    }

    /// Whether an ON_TIME pane with nothing new is held back (Beam Java's
    /// `OnTimeBehavior.FIRE_IF_NON_EMPTY`; [`EngineConfig::empty_panes`] counts under Beam
    /// Java's rules only).
    pub(super) fn only_changed_on_time(&self) -> bool {
        self.cfg.conventions == Conventions::Beam
            && self.cfg.empty_panes.on_time == OnTimeBehavior::FireIfNonEmpty
    }

    /// Whether a window emits a last pane as it is collected, empty or not (Beam Java's
    /// `ClosingBehavior.FIRE_ALWAYS`, under Beam Java's rules only).
    pub(super) fn fires_closing_panes(&self) -> bool {
        self.cfg.conventions == Conventions::Beam
            && self.cfg.empty_panes.closing == ClosingBehavior::FireAlways
    }

    /// The last pane a cell emits as its window is collected under `ClosingBehavior.FIRE_ALWAYS`
    /// (`ReduceFnRunner.onTimers` calls `onTrigger` with `isFinished`, and `needToEmit` emits
    /// the last pane even empty): LATE, once the window fired on time in an earlier step.
    /// When the watermark passed its end and its collection time at once (or the input ended),
    /// the ON_TIME pane just emitted is already the last, and nothing more is emitted; if that
    /// ON_TIME pane was held back for being empty (`OnTimeBehavior.FIRE_IF_NON_EMPTY`), the
    /// last pane is that ON_TIME pane, empty.
    #[cold]
    #[inline(never)]
    pub(super) fn closing_pane(
        &mut self,
        cell: CellId,
        bounds: (f64, f64),
        c: &mut CellState,
        proc_time: f64,
        wm: f64,
        out: &mut Output,
    ) {
        let mode = self.cfg.accumulation;
        let conventions = self.cfg.conventions;
        let timing = if conventions.passed_end(bounds.1, self.prior_wm) {
            Timing::Late
        } else if c.nonspeculative == 0 {
            Timing::OnTime
        } else {
            return;
        };
        out.panes
            .push(c.emit(cell, bounds, timing, proc_time, wm, mode));
        match timing {
            Timing::OnTime => self.counters.on_time_panes += 1,
            _ => self.counters.late_panes += 1,
        }
    }

    /// The end of input: the watermark goes to +∞, every window fires and is finalised.
    /// Calling it twice does nothing more.
    pub fn finish(&mut self, out: &mut Output) {
        if self.finished {
            return;
        }
        self.finished = true;
        let wm = self.watermark.close();
        let pt = self.last_proc_time;
        if self.merging {
            self.pass_sessions(wm, pt, out);
            self.close_all_sessions(pt, out);
            self.timers.clear();
            return;
        }
        self.pass_windows(wm, pt, out);
        while let Some(window) = self.windows.first() {
            if let Some(w) = self.windows.remove(window) {
                self.close_window(window, w, pt, wm, out);
            }
        }
        self.first_end = f64::INFINITY;
        self.timers.clear();
    }

    /// It has taken the end of input: every window has fired and been finalised.
    pub fn is_finished(&self) -> bool {
        self.finished
    }
}

/// Everything a whole run produced.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// The processor's totals at the end of input.
    pub counters: Counters,
    /// The panes, drops and final values emitted over the whole run (empty unless
    /// `keep_panes`).
    pub output: Output,
    /// Final value per cell.
    pub finals: BTreeMap<CellId, u64>,
    /// The largest number of cells open at once.
    pub peak_open_cells: usize,
}

/// [`Processor::run`], optionally with every event's windows assigned beforehand by `cfg.window`.
pub(crate) fn run_with(
    stream: &Stream,
    cfg: EngineConfig,
    keep_panes: bool,
    assigned: Option<&[Assignment]>,
) -> RunResult {
    let mut p = Processor::for_stream(cfg, stream);
    let mut out = Output::default();
    let mut finals = BTreeMap::new();
    let mut peak = 0;
    let mut kept = Output::default();
    for (i, e) in stream.events.iter().enumerate() {
        match assigned {
            Some(a) => p.step_assigned(e, a[i].clone(), &mut out),
            None => p.step(e, &mut out),
        };
        peak = peak.max(p.open_cells());
        if !(out.panes.is_empty() && out.finals.is_empty() && out.dropped.is_empty()) {
            drain(&mut out, &mut kept, &mut finals, keep_panes);
        }
    }
    p.finish(&mut out);
    drain(&mut out, &mut kept, &mut finals, keep_panes);
    RunResult {
        counters: *p.counters(),
        output: kept,
        finals,
        peak_open_cells: peak,
    }
}

fn drain(
    out: &mut Output,
    kept: &mut Output,
    finals: &mut BTreeMap<CellId, u64>,
    keep_panes: bool,
) {
    for f in &out.finals {
        finals.insert(f.cell, f.value);
    }
    if keep_panes {
        kept.panes.append(&mut out.panes);
        kept.dropped.append(&mut out.dropped);
        kept.finals.append(&mut out.finals);
    }
    out.clear();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(et: f64, pt: f64) -> Event {
        Event {
            event_time: et,
            proc_time: pt,
            key: 0,
        }
    }

    #[test]
    fn state_bytes_count_the_session_index() {
        let cfg = EngineConfig {
            window: WindowFn::session(30_000).unwrap(),
            watermark: WatermarkKind::Fixed { lag: 1_000_000.0 },
            grace: 0.0,
            early: None,
            accumulation: Accumulation::Accumulating,
            conventions: Default::default(),
            empty_panes: Default::default(),
        };
        let mut p = Processor::new(cfg, 0.0);
        let mut out = Output::default();
        let empty = p.state_bytes();
        p.step(&ev(0.0, 0.0), &mut out);
        let one = p.state_bytes();
        p.step(&ev(50_000.0, 1_000.0), &mut out);
        let two = p.state_bytes();
        assert_eq!(two - one, one - empty);
        assert_eq!(one - empty, CELL_BYTES + SESSION_BYTES);
        p.step(&ev(25_000.0, 2_000.0), &mut out); // bridges the two: one session left
        assert_eq!(p.state_bytes(), one);
    }

    #[test]
    fn a_late_event_inside_grace_refines_with_a_late_pane() {
        let cfg = EngineConfig {
            window: WindowFn::Tumbling {
                size: 10,
                offset: 0,
            },
            watermark: WatermarkKind::Fixed { lag: 0.0 },
            grace: 5.0,
            early: None,
            accumulation: Accumulation::Accumulating,
            conventions: Default::default(),
            empty_panes: Default::default(),
        };
        let mut p = Processor::new(cfg, 0.0);
        let mut out = Output::default();
        p.step(&ev(1.0, 2.0), &mut out);
        p.step(&ev(11.0, 11.0), &mut out); // wm 11 passes window 0: ON_TIME 1
        let a = p.step(&ev(3.0, 12.0), &mut out); // late, kept: LATE 2
        assert_eq!(a.fate, Fate::Late);
        let a = p.step(&ev(4.0, 15.0), &mut out); // 10 <= 15 - 5: dropped
        assert_eq!(a.fate, Fate::Dropped);
        p.finish(&mut out);
        let timings: Vec<_> = out.panes.iter().map(|p| (p.timing, p.total)).collect();
        assert_eq!(
            timings,
            vec![(Timing::OnTime, 1), (Timing::Late, 2), (Timing::OnTime, 1)]
        );
        let finals: Vec<_> = out
            .finals
            .iter()
            .map(|f| (cfg.window.index(f.cell.window), f.value))
            .collect();
        assert_eq!(finals, vec![(0, 2), (1, 1)]);
        assert_eq!(out.dropped.len(), 1);
        assert_eq!(p.counters().late, 1);
    }
}
