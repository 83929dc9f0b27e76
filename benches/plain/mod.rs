//! The plain implementation the engine's speed is measured against: the processor's rules for
//! tumbling and sliding windows under a watermark computed per event (fixed lag), with grace,
//! an early trigger and accumulating panes, written the obvious way. Cells live in one
//! `HashMap` keyed by (window, key), each open window's keys in a second, and the windows still
//! to fire and to finalise in two `BinaryHeap`s of window ends, the early timers in a third.
//!
//! It emits the same panes, drops and final values in the same order, and the same counters,
//! as `Processor::step` and `Processor::finish` (tests/engine/engine_baseline.rs checks it),
//! so timing the two on one stream compares like with like. Shared by the `baseline` benchmark
//! and that test through a `#[path]` module.

use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, HashMap};
use std::hash::{BuildHasher, RandomState};

use twoclocks::engine::{
    Accumulation, CellId, CellState, Counters, EngineConfig, Event, FinalValue, KeyId, Output,
    Timing, WatermarkKind, WindowFn, WindowId,
};
use twoclocks::engine::{Dropped, Fate};

/// An armed early timer, earliest due first, then by cell.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Due {
    at: f64,
    cell: CellId,
}

impl Eq for Due {}

impl Ord for Due {
    fn cmp(&self, other: &Self) -> Ordering {
        self.at
            .total_cmp(&other.at)
            .then_with(|| self.cell.cmp(&other.cell))
    }
}

impl PartialOrd for Due {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The plain processor: one event at a time, in processing order.
pub struct Plain<S = RandomState> {
    window: WindowFn,
    lag: f64,
    grace: f64,
    early: Option<f64>,
    mode: Accumulation,
    /// The watermark now.
    wm: f64,
    /// The watermark after the previous arrival: a window ending by it has fired on time.
    passed_wm: f64,
    last_proc_time: f64,
    /// Every open cell, by (window, key).
    cells: HashMap<CellId, CellState, S>,
    /// The keys of each open window, in the order they opened.
    keys: HashMap<WindowId, Vec<KeyId>, S>,
    /// Open windows not yet fired on time, earliest end first.
    to_fire: BinaryHeap<Reverse<WindowId>>,
    /// Open windows, earliest end first, to finalise.
    to_close: BinaryHeap<Reverse<WindowId>>,
    timers: BinaryHeap<Reverse<Due>>,
    counters: Counters,
    offset: usize,
}

impl<S: BuildHasher + Default> Plain<S> {
    /// A plain processor for `cfg`, which must use tumbling or sliding windows and a fixed
    /// watermark.
    pub fn new(cfg: EngineConfig) -> Self {
        let WatermarkKind::Fixed { lag } = cfg.watermark else {
            panic!("the baseline runs the fixed watermark only");
        };
        assert!(
            matches!(
                cfg.window,
                WindowFn::Tumbling { .. } | WindowFn::Sliding { .. }
            ),
            "the baseline runs tumbling and sliding windows only"
        );
        Plain {
            window: cfg.window,
            lag,
            grace: cfg.grace,
            early: cfg.early,
            mode: cfg.accumulation,
            wm: f64::NEG_INFINITY,
            passed_wm: f64::NEG_INFINITY,
            last_proc_time: f64::NEG_INFINITY,
            cells: HashMap::default(),
            keys: HashMap::default(),
            to_fire: BinaryHeap::new(),
            to_close: BinaryHeap::new(),
            timers: BinaryHeap::new(),
            counters: Counters::default(),
            offset: 0,
        }
    }

    /// Its running totals.
    pub fn counters(&self) -> &Counters {
        &self.counters
    }

    /// Feeds the next event and appends what it caused to `out`.
    pub fn step(&mut self, e: &Event, out: &mut Output) {
        self.wm = self.wm.max(e.proc_time - self.lag);
        let wm = self.wm;
        let offset = self.offset;
        self.offset += 1;
        self.counters.events += 1;
        self.last_proc_time = self.last_proc_time.max(e.proc_time);
        let mut late_cells = Vec::new();
        for window in self.window.assign(e.event_time) {
            let end = window.end();
            match Fate::decide(end, wm, self.grace) {
                Fate::Dropped => {
                    self.counters.dropped += 1;
                    out.dropped.push(Dropped {
                        offset,
                        event: *e,
                        window,
                        window_start: window.start(),
                        window_end: end,
                        grace: self.grace,
                        watermark: wm,
                    });
                    continue;
                }
                Fate::Late => self.counters.late += 1,
                Fate::OnTime => self.counters.on_time += 1,
            }
            let passed = end <= self.passed_wm;
            let cell_id = CellId { window, key: e.key };
            let cell = match self.cells.get_mut(&cell_id) {
                Some(c) => c,
                None => {
                    let keys = self.keys.entry(window).or_insert_with(|| {
                        if !passed {
                            self.to_fire.push(Reverse(window));
                        }
                        self.to_close.push(Reverse(window));
                        Vec::new()
                    });
                    keys.push(e.key);
                    let mut c = CellState::default();
                    if let (Some(every), false) = (self.early, passed) {
                        c.timer = Some(e.proc_time + every);
                        self.timers.push(Reverse(Due {
                            at: e.proc_time + every,
                            cell: cell_id,
                        }));
                    }
                    let open = self.cells.len() as u64 + 1;
                    self.counters.state_entries_max = self.counters.state_entries_max.max(open);
                    self.cells.entry(cell_id).or_insert(c)
                }
            };
            cell.value += 1;
            if passed {
                late_cells.push(cell_id);
            }
        }
        self.fire_timers(e.proc_time, out);
        self.fire_on_time(e.proc_time, out);
        for cell_id in late_cells {
            let c = self.cells.get_mut(&cell_id).expect("open");
            if c.changed() {
                let bounds = (cell_id.window.start(), cell_id.window.end());
                out.panes
                    .push(c.emit(cell_id, bounds, Timing::Late, e.proc_time, wm, self.mode));
                self.counters.late_panes += 1;
            }
        }
        self.close(wm - self.grace, e.proc_time, out);
        self.passed_wm = wm;
    }

    /// EARLY panes for the timers due by `now`, each re-armed.
    fn fire_timers(&mut self, now: f64, out: &mut Output) {
        let Some(every) = self.early else { return };
        let mut due = Vec::new();
        while self.timers.peek().is_some_and(|t| t.0.at <= now) {
            due.push(self.timers.pop().expect("peeked").0);
        }
        for t in due {
            if t.cell.window.end() <= self.passed_wm {
                continue;
            }
            let Some(c) = self.cells.get_mut(&t.cell) else {
                continue;
            };
            if c.timer != Some(t.at) {
                continue;
            }
            let bounds = (t.cell.window.start(), t.cell.window.end());
            out.panes
                .push(c.emit(t.cell, bounds, Timing::Early, now, self.wm, self.mode));
            self.counters.early_panes += 1;
            c.timer = Some(now + every);
            self.timers.push(Reverse(Due {
                at: now + every,
                cell: t.cell,
            }));
        }
    }

    /// ON_TIME panes for the windows the watermark has passed, each cell in key order.
    fn fire_on_time(&mut self, now: f64, out: &mut Output) {
        while let Some(&Reverse(window)) = self.to_fire.peek() {
            if window.end() > self.wm {
                break;
            }
            self.to_fire.pop();
            let mut keys = self.keys[&window].clone();
            keys.sort_unstable();
            let bounds = (window.start(), window.end());
            for key in keys {
                let cell = CellId { window, key };
                let c = self.cells.get_mut(&cell).expect("open");
                c.timer = None;
                out.panes
                    .push(c.emit(cell, bounds, Timing::OnTime, now, self.wm, self.mode));
                self.counters.on_time_panes += 1;
            }
        }
    }

    /// Finalises the windows ending by `threshold`, each cell in key order.
    fn close(&mut self, threshold: f64, now: f64, out: &mut Output) {
        while let Some(&Reverse(window)) = self.to_close.peek() {
            if window.end() > threshold {
                break;
            }
            self.to_close.pop();
            let mut keys = self.keys.remove(&window).expect("open");
            keys.sort_unstable();
            for key in keys {
                let cell = CellId { window, key };
                let c = self.cells.remove(&cell).expect("open");
                out.finals.push(FinalValue {
                    cell,
                    value: c.value,
                    proc_time: now,
                });
            }
            self.counters.windows_finalised += 1;
        }
    }

    /// The end of input: every window fires and is finalised.
    pub fn finish(&mut self, out: &mut Output) {
        self.wm = f64::INFINITY;
        let now = self.last_proc_time;
        self.fire_on_time(now, out);
        self.close(f64::INFINITY, now, out);
        self.timers.clear();
    }
}
