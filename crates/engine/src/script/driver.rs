//! The driver of one key's windows under a windowing strategy, moved by explicit steps: a
//! bundle of elements, a new watermark, a new processing time. It is the general form of
//! what the processor does for its built-in trigger: windows are assigned, merged (sessions),
//! checked against the drop rule, fed to the trigger, fired, and their panes labelled with
//! Beam's `PaneInfo` and output time.
//!
//! The rules are Beam's trigger driver's (`GeneralTriggerDriver` in Beam Python's
//! `trigger.py`), step for step: a window's state lives under one or more state ids, and a
//! merged window keeps the ids of the windows merged into it, so the trigger's cells, its
//! timers and the pane's elements combine without copying; a pane's index restarts when
//! its window is merged; a window whose trigger finished is closed (a tombstone) and takes
//! no more data. What depends on the engine ([`Conventions`]) is asked of it: the drop rule
//! and where it is tested, when the end of a window has passed, which sessions merge, and
//! whether a window fires a last pane when it is collected.
//!
//! Under Beam Java's rules a pane with nothing new in it is emitted as Beam's
//! `ReduceFnRunner.needToEmit` says, by the windowing strategy's [`EmptyPanes`]
//! (`OnTimeBehavior`, `ClosingBehavior`): an ON_TIME pane under `FIRE_ALWAYS` on time, the
//! window's last under `FIRE_ALWAYS` closing; any other empty pane is not emitted and takes no
//! index. A window collected while its trigger is still open emits its last pane then, as
//! `ReduceFnRunner.onTimers` calls `onTrigger` with `isFinished` without asking the trigger.

use rustc_hash::FxHashMap;

use super::{Script, ScriptWindows};
use crate::conventions::Conventions;
pub(crate) use crate::trigger::END_OF_TIME;
use crate::trigger::{
    Accumulation, Domain, EmptyPanes, Machine, PaneInfo, Tag, TimerName, TimestampCombiner, Timing,
    Trigger, TriggerContext,
};
use crate::window::{WindowFn, WindowId};

/// A pane the driver emitted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptPane {
    /// Its window, `[start, end)`.
    pub window: WindowId,
    /// Its elements, sorted (each element is its own timestamp).
    pub values: Vec<i64>,
    /// Its output time.
    pub timestamp: i64,
    /// Where it stands among its window's panes.
    pub info: PaneInfo,
}

/// The state held under one state id.
#[derive(Debug, Clone, Default)]
struct Cells {
    elements: Vec<i64>,
    holds: Vec<i64>,
    index: i64,
    nonspeculative: i64,
    tombstone: bool,
    /// Elements added since the window's last pane.
    pending: usize,
    tags: FxHashMap<(usize, Tag), i64>,
    timers: FxHashMap<(TimerName, Domain), i64>,
}

/// One key's windows under a windowing strategy.
#[derive(Debug, Clone)]
pub struct Driver {
    windows: ScriptWindows,
    machine: Machine,
    accumulation: Accumulation,
    combiner: TimestampCombiner,
    lateness: i64,
    conventions: Conventions,
    /// Whether empty ON_TIME and last panes are emitted (Beam Java's rules only).
    empty_panes: EmptyPanes,
    /// Every window with state, in the order it was first given state, with its state ids
    /// (the first is the one written to).
    known: Vec<(WindowId, Vec<u32>)>,
    cells: FxHashMap<u32, Cells>,
    next_id: u32,
    watermark: i64,
    /// The watermark before its last move: where Beam's output watermark stands when the
    /// move's timers fire, for a window whose panes released their holds (Beam's
    /// `ReduceFnTester` advances the output watermark after the timers).
    prior_watermark: i64,
    clock: i64,
}

/// The trigger's view of one window's state.
struct WindowCells<'a> {
    ids: &'a [u32],
    cells: &'a mut FxHashMap<u32, Cells>,
    now: i64,
}

impl TriggerContext for WindowCells<'_> {
    fn now(&self) -> i64 {
        self.now
    }

    fn get(&self, node: usize, tag: Tag) -> i64 {
        self.ids
            .iter()
            .filter_map(|id| self.cells.get(id)?.tags.get(&(node, tag)).copied())
            .fold(0, |a, b| tag.combine(a, b))
    }

    fn add(&mut self, node: usize, tag: Tag, value: i64) {
        let cells = self.cells.entry(self.ids[0]).or_default();
        let v = cells.tags.entry((node, tag)).or_insert(0);
        *v = tag.combine(*v, value);
    }

    fn clear(&mut self, node: usize, tag: Tag) {
        for id in self.ids {
            if let Some(c) = self.cells.get_mut(id) {
                c.tags.remove(&(node, tag));
            }
        }
    }

    fn set_timer(&mut self, name: TimerName, domain: Domain, at: i64) {
        self.cells
            .entry(self.ids[0])
            .or_default()
            .timers
            .insert((name, domain), at);
    }

    fn clear_timer(&mut self, name: TimerName, domain: Domain) {
        for id in self.ids {
            if let Some(c) = self.cells.get_mut(id) {
                c.timers.remove(&(name, domain));
            }
        }
    }
}

impl Driver {
    /// A driver with no state, its watermark and clock at the start of time.
    pub fn new(
        windows: ScriptWindows,
        trigger: &Trigger,
        accumulation: Accumulation,
        combiner: TimestampCombiner,
        lateness: i64,
        conventions: Conventions,
    ) -> Driver {
        // Kafka Streams has no triggers: an update per record, or one result at the close
        // (any trigger it cannot run is taken as the latter; `script` refuses it first).
        let kafka;
        let trigger = if conventions.uses_stream_time() {
            kafka = trigger.kafka_streams_emit().unwrap_or(Trigger::Never);
            &kafka
        } else {
            trigger
        };
        Driver {
            windows,
            machine: Machine::new(trigger, conventions),
            accumulation,
            combiner,
            lateness,
            conventions,
            known: Vec::new(),
            cells: FxHashMap::default(),
            next_id: 0,
            watermark: i64::MIN,
            prior_watermark: i64::MIN,
            clock: 0,
            empty_panes: EmptyPanes::default(),
        }
    }

    /// The driver with `empty_panes` in place of Beam's defaults: whether an empty ON_TIME
    /// pane and an empty last pane are emitted, under Beam Java's rules (the other engines'
    /// drivers keep their own).
    pub fn with_empty_panes(mut self, empty_panes: EmptyPanes) -> Driver {
        self.empty_panes = empty_panes;
        self
    }

    /// Whether its trigger fires on processing time (else [`Driver::advance_clock`] fires
    /// nothing).
    pub fn uses_processing_time(&self) -> bool {
        self.machine.uses_processing_time()
    }

    /// The input watermark now.
    pub fn watermark(&self) -> i64 {
        self.watermark
    }

    /// The processing-time clock now.
    pub fn clock(&self) -> i64 {
        self.clock
    }

    /// Each window with state now, in the order it was opened: the elements its state holds
    /// (a discarding pane empties it), the panes it has emitted since it was last merged, and
    /// whether its trigger has finished (it takes no more data).
    pub fn contents(&self) -> Vec<(WindowId, Vec<i64>, i64, bool)> {
        self.known
            .iter()
            .map(|(w, ids)| {
                let cells = || ids.iter().filter_map(|id| self.cells.get(id));
                let mut held: Vec<i64> = cells().flat_map(|c| c.elements.iter().copied()).collect();
                held.sort_unstable();
                (
                    *w,
                    held,
                    cells().map(|c| c.index).sum(),
                    self.tombstoned(ids),
                )
            })
            .collect()
    }

    /// The windows with state now, in the order they were opened, and whether each is
    /// closed (its trigger finished).
    pub fn windows(&self) -> Vec<(WindowId, bool)> {
        self.known
            .iter()
            .map(|(w, ids)| (*w, self.tombstoned(ids)))
            .collect()
    }

    fn assign(&self, t: i64) -> Vec<WindowId> {
        match self.windows.window {
            WindowFn::Global { .. } => vec![Script::GLOBAL],
            w => w.assign(t as f64).collect(),
        }
    }

    fn ids_of(&self, window: WindowId) -> Option<&Vec<u32>> {
        self.known
            .iter()
            .find(|(w, _)| *w == window)
            .map(|(_, ids)| ids)
    }

    /// The window's state ids, giving it one if it has none.
    fn ids(&mut self, window: WindowId) -> Vec<u32> {
        if let Some(ids) = self.ids_of(window) {
            return ids.clone();
        }
        let id = self.next_id;
        self.next_id += 1;
        self.known.push((window, vec![id]));
        vec![id]
    }

    fn tombstoned(&self, ids: &[u32]) -> bool {
        ids.iter()
            .any(|id| self.cells.get(id).is_some_and(|c| c.tombstone))
    }

    /// Whether the window is past its allowed lateness (the global window too, once the
    /// watermark reaches the end of time).
    fn drops(&self, window: WindowId) -> bool {
        // The end of time is past every window's garbage collection, however long its allowed
        // lateness: Beam Java's `LateDataUtils.garbageCollectionTime` is at most the global
        // window's end + 1, Flink's `cleanupTime` saturates at `Long.MAX_VALUE`.
        if self.watermark >= END_OF_TIME && self.conventions.collects_windows() {
            return true;
        }
        self.conventions.drops(
            window.end_ms() as f64,
            self.watermark as f64,
            self.lateness as f64,
            self.windows.window.is_merging(),
        )
    }

    /// One bundle of elements arrives (`input`): returns the panes it fired and the
    /// elements dropped as too late, with the window that refused each.
    ///
    /// Under Kafka Streams' rules the records are taken one at a time: each moves stream time
    /// to its timestamp first (`observedStreamTime`), is dropped or aggregated, and then the
    /// windows it closed emit their results.
    pub fn input(&mut self, elements: &[i64]) -> (Vec<ScriptPane>, Vec<(i64, WindowId)>) {
        if !self.conventions.uses_stream_time() {
            return self.input_bundle(elements, self.watermark);
        }
        let (mut panes, mut dropped) = (Vec::new(), Vec::new());
        for &t in elements {
            self.watermark = self.watermark.max(t);
            let (p, d) = self.input_bundle(&[t], self.watermark);
            panes.extend(p);
            dropped.extend(d);
            panes.extend(self.collect());
        }
        (panes, dropped)
    }

    /// Elements that arrive with the watermark and clock time their arrival brings, as a log's
    /// rows do (`run --trigger`): judged by the drop rule under the new watermark and placed
    /// in their windows before anything fires; then the timers the watermark and the clock
    /// pass fire, the elements in their windows' panes, and windows past their allowed
    /// lateness are collected. That is the processor's order for an arrival, and Flink's:
    /// `WindowOperator.processElement` places the element, the watermark that follows it
    /// fires the timers.
    pub fn arrive(
        &mut self,
        elements: &[i64],
        watermark: i64,
        clock: i64,
    ) -> (Vec<ScriptPane>, Vec<(i64, WindowId)>) {
        let before = self.watermark;
        self.watermark = watermark.max(before);
        self.clock = clock.max(self.clock);
        let (mut panes, dropped) = if self.conventions.uses_stream_time() {
            self.input(elements)
        } else {
            self.input_bundle(elements, before)
        };
        panes.extend(self.collect());
        (panes, dropped)
    }

    /// [`Driver::input`] as one bundle: judged under the watermark now, its triggers asked
    /// under `wm` (the watermark before the bundle's arrival, or the same).
    fn input_bundle(
        &mut self,
        elements: &[i64],
        wm: i64,
    ) -> (Vec<ScriptPane>, Vec<(i64, WindowId)>) {
        let mut dropped = Vec::new();
        // Flink and Kafka Streams test lateness on the merged window; the Beams on each
        // window as assigned.
        let late_after_merge = self.conventions.tests_merged_window();
        let mut by_window: Vec<(WindowId, Vec<i64>)> = Vec::new();
        for &t in elements {
            for w in self.assign(t) {
                if !late_after_merge && self.drops(w) {
                    dropped.push((t, w));
                    continue;
                }
                // Tested on the merged window, a dropped element merges nothing: the sessions
                // it would have bridged keep their state. (A window the watermark has
                // collected is gone, so this differs only for a log's row, judged under the
                // watermark it brings before that watermark's timers fire.)
                if late_after_merge && self.windows.window.is_merging() {
                    let merged = self.merged_span(w);
                    if self.drops(merged) {
                        dropped.push((t, merged));
                        continue;
                    }
                }
                match by_window.iter_mut().find(|(x, _)| *x == w) {
                    Some((_, v)) => v.push(t),
                    None => by_window.push((w, vec![t])),
                }
            }
        }
        if self.windows.window.is_merging() {
            by_window = self.merge(by_window, wm);
        }
        let mut panes = Vec::new();
        for (window, elements) in by_window {
            if late_after_merge && self.drops(window) {
                dropped.extend(elements.iter().map(|&t| (t, window)));
                continue;
            }
            if self.ids_of(window).is_some_and(|ids| self.tombstoned(ids)) {
                continue;
            }
            let ids = self.ids(window);
            let hold = self.combiner.hold(
                window,
                elements.iter().copied(),
                wm,
                self.windows.output_shift,
            );
            {
                let first = self.cells.entry(ids[0]).or_default();
                first.holds.extend(hold);
                first.elements.extend(&elements);
                first.pending += elements.len();
            }
            let mut cx = WindowCells {
                ids: &ids,
                cells: &mut self.cells,
                now: self.clock,
            };
            for _ in &elements {
                self.machine.on_element(Machine::ROOT, window, &mut cx);
            }
            if self
                .machine
                .should_fire(Machine::ROOT, Domain::EventTime, wm, window, &mut cx)
            {
                let finished = self.machine.on_fire(Machine::ROOT, wm, window, &mut cx);
                panes.extend(self.output(
                    window,
                    &ids,
                    finished,
                    wm,
                    Firing::Trigger {
                        maybe_on_time: false,
                    },
                ));
            }
        }
        panes.extend(self.fire_timers());
        (panes, dropped)
    }

    /// The session window `w` would merge into with the known windows.
    fn merged_span(&self, w: WindowId) -> WindowId {
        let mut span = w;
        loop {
            let grown = self.known.iter().fold(span, |s, (k, _)| {
                let (a, b) = ((s.start_ms(), s.end_ms()), (k.start_ms(), k.end_ms()));
                if self.conventions.sessions_merge(a, b) {
                    WindowId::new(a.0.min(b.0), a.1.max(b.1))
                } else {
                    s
                }
            });
            if grown == span {
                return span;
            }
            span = grown;
        }
    }

    /// Merges the new windows with the known ones (sessions), returning the bundle's
    /// elements by the window they now belong to.
    fn merge(
        &mut self,
        by_window: Vec<(WindowId, Vec<i64>)>,
        wm: i64,
    ) -> Vec<(WindowId, Vec<i64>)> {
        let mut all: Vec<WindowId> = self.known.iter().map(|(w, _)| *w).collect();
        let before = all.len();
        for (w, _) in &by_window {
            if !all.contains(w) {
                all.push(*w);
            }
        }
        let mut merged_into: Vec<(WindowId, WindowId)> = Vec::new();
        if all.len() != before {
            all.sort_by_key(|w| (w.start_ms(), w.end_ms()));
            let mut groups: Vec<Vec<WindowId>> = Vec::new();
            let mut end = i64::MIN;
            for w in all {
                match groups.last_mut() {
                    Some(g)
                        if self
                            .conventions
                            .sessions_merge((g[0].start_ms(), end), (w.start_ms(), w.end_ms())) =>
                    {
                        g.push(w);
                        end = end.max(w.end_ms());
                    }
                    _ => {
                        groups.push(vec![w]);
                        end = w.end_ms();
                    }
                }
            }
            for group in groups.into_iter().filter(|g| g.len() > 1) {
                let end = group.iter().map(|w| w.end_ms()).max().unwrap_or(i64::MIN);
                let result = WindowId::new(group[0].start_ms(), end);
                // A pane's index is not kept across a merge: the merged windows' counts go.
                let mut moved = Vec::new();
                for w in &group {
                    if *w == result {
                        continue;
                    }
                    merged_into.push((*w, result));
                    if let Some(pos) = self.known.iter().position(|(x, _)| x == w) {
                        let (_, ids) = self.known.remove(pos);
                        for id in &ids {
                            if let Some(c) = self.cells.get_mut(id) {
                                c.index = 0;
                                c.nonspeculative = 0;
                            }
                        }
                        moved.extend(ids);
                    }
                }
                if !moved.is_empty() {
                    match self.known.iter_mut().find(|(x, _)| *x == result) {
                        Some((_, ids)) => ids.extend(moved),
                        None => self.known.push((result, moved)),
                    }
                }
                let ids = self.ids(result);
                let mut cx = WindowCells {
                    ids: &ids,
                    cells: &mut self.cells,
                    now: self.clock,
                };
                self.machine
                    .on_merge(Machine::ROOT, &group, result, wm, &mut cx);
            }
        }
        let mut out: Vec<(WindowId, Vec<i64>)> = Vec::new();
        for (mut w, elements) in by_window {
            while let Some((_, to)) = merged_into.iter().find(|(from, _)| *from == w) {
                w = *to;
            }
            match out.iter_mut().find(|(x, _)| *x == w) {
                Some((_, v)) => v.extend(elements),
                None => out.push((w, elements)),
            }
        }
        out
    }

    /// The watermark moves to `t` (`watermark`): fires the timers it passes, and collects the
    /// windows past their allowed lateness.
    ///
    /// Under Kafka Streams' rules it is stream time that moves, and never back (a record of
    /// another key, or one the script does not show).
    pub fn advance_watermark(&mut self, t: i64) -> Vec<ScriptPane> {
        self.prior_watermark = self.watermark;
        self.watermark = if self.conventions.uses_stream_time() {
            self.watermark.max(t)
        } else {
            t
        };
        let mut panes = self.fire_timers();
        panes.extend(self.collect());
        panes
    }

    /// The processing-time clock moves to `t` (`clock`): fires the timers it passes.
    pub fn advance_clock(&mut self, t: i64) -> Vec<ScriptPane> {
        self.clock = t;
        self.fire_timers()
    }

    /// Fires every timer due by the watermark (event time) or the clock (processing time),
    /// until none is.
    fn fire_timers(&mut self) -> Vec<ScriptPane> {
        let mut panes = Vec::new();
        loop {
            let mut due: Vec<(i64, u32, TimerName, Domain)> = Vec::new();
            for (id, cells) in &mut self.cells {
                cells.timers.retain(|(name, domain), at| {
                    let due_now = match domain {
                        Domain::EventTime => *at <= self.watermark,
                        Domain::ProcessingTime => {
                            self.conventions.processing_timer_due(*at, self.clock)
                        }
                    };
                    if due_now {
                        due.push((*at, *id, *name, *domain));
                        false
                    } else {
                        true
                    }
                });
            }
            if due.is_empty() {
                return panes;
            }
            due.sort();
            for (at, id, _, domain) in due {
                let Some((window, ids)) = self
                    .known
                    .iter()
                    .find(|(_, ids)| ids.contains(&id))
                    .map(|(w, ids)| (*w, ids.clone()))
                else {
                    continue;
                };
                if self.tombstoned(&ids) {
                    continue;
                }
                // Beam's driver fires an event-time timer as of its own time; a
                // processing-time one as of the watermark.
                let time = match domain {
                    Domain::EventTime => at,
                    Domain::ProcessingTime => self.watermark,
                };
                // Beam Java fires the end-of-window and garbage-collection timers that one
                // watermark passes together: the pane is then the window's last.
                let collected = domain == Domain::EventTime
                    && self.conventions.fires_at_collection()
                    && self.drops(window);
                let mut cx = WindowCells {
                    ids: &ids,
                    cells: &mut self.cells,
                    now: self.clock,
                };
                if self
                    .machine
                    .should_fire(Machine::ROOT, domain, time, window, &mut cx)
                {
                    let finished =
                        self.machine.on_fire(Machine::ROOT, time, window, &mut cx) || collected;
                    panes.extend(self.output(
                        window,
                        &ids,
                        finished,
                        time,
                        Firing::Trigger {
                            maybe_on_time: domain == Domain::EventTime,
                        },
                    ));
                }
            }
        }
    }

    /// Windows past their allowed lateness are garbage collected (except under Beam Python's
    /// rules); under Beam Java's, one whose trigger is still open fires its last pane first,
    /// emitted if it has elements not yet emitted or [`EmptyPanes`] asks for it empty (under
    /// Kafka Streams', if it has elements not yet emitted).
    fn collect(&mut self) -> Vec<ScriptPane> {
        if !self.conventions.collects_windows() {
            return Vec::new();
        }
        let mut panes = Vec::new();
        let expired: Vec<(WindowId, Vec<u32>)> = self
            .known
            .iter()
            .filter(|(w, _)| self.drops(*w))
            .cloned()
            .collect();
        for (window, ids) in expired {
            let pending: usize = ids
                .iter()
                .filter_map(|id| self.cells.get(id))
                .map(|c| c.pending)
                .sum();
            let fires = self.conventions == Conventions::Beam || pending > 0;
            if fires && !self.tombstoned(&ids) && self.conventions.fires_at_collection() {
                panes.extend(self.output(window, &ids, true, self.watermark, Firing::Collection));
            }
            self.known.retain(|(w, _)| *w != window);
            for id in ids {
                self.cells.remove(&id);
            }
        }
        panes
    }

    /// Emits a pane of `window` and cleans up after it (Beam's `_output`). An empty pane is
    /// not emitted under an engine that fires only a window's contents (Flink's
    /// `WindowOperator` emits nothing for a window with no contents), though its firing still
    /// counts; under Beam Java's rules it is emitted only as [`EmptyPanes`] says, and one not
    /// emitted takes no index (`ReduceFnRunner.onTrigger` stores the pane's info only when it
    /// outputs it).
    fn output(
        &mut self,
        window: WindowId,
        ids: &[u32],
        finished: bool,
        output_wm: i64,
        firing: Firing,
    ) -> Option<ScriptPane> {
        let sum = |cells: &FxHashMap<u32, Cells>, f: fn(&Cells) -> i64| -> i64 {
            ids.iter().filter_map(|id| cells.get(id)).map(f).sum()
        };
        let index = sum(&self.cells, |c| c.index);
        let nonspeculative = sum(&self.cells, |c| c.nonspeculative);
        let empty = ids
            .iter()
            .filter_map(|id| self.cells.get(id))
            .all(|c| c.pending == 0);
        let first = ids[0];
        let passed = self
            .conventions
            .passed_end(window.end_ms() as f64, output_wm as f64);
        // A window collected with nothing new in it has released its holds, so Beam's output
        // watermark is where the input watermark stood before this move: the pane is LATE if
        // that had passed the window's end (`PaneInfoTracker.describePane`, `isLateForOutput`).
        let late_for_output = firing == Firing::Collection
            && empty
            && self.conventions == Conventions::Beam
            && self.prior_watermark >= window.end_ms();
        let maybe_on_time = match firing {
            Firing::Trigger { maybe_on_time } => maybe_on_time,
            Firing::Collection => !late_for_output,
        };
        let (timing, nonspeculative_index) = if !passed {
            // Early, unless a nonspeculative pane went before (the watermark went back, or
            // late data moved a session's end forward): then it keeps counting.
            if nonspeculative > 0 {
                (Timing::Early, nonspeculative)
            } else {
                (Timing::Early, -1)
            }
        } else {
            let timing = if maybe_on_time && nonspeculative == 0 {
                Timing::OnTime
            } else {
                Timing::Late
            };
            (timing, nonspeculative)
        };
        let emitted = self.conventions != Conventions::Beam
            || self
                .empty_panes
                .emits(empty, timing == Timing::OnTime, finished);
        if emitted {
            let c = self.cells.entry(first).or_default();
            c.index += 1;
            if passed || nonspeculative > 0 {
                c.nonspeculative += 1;
            }
        }
        let mut values: Vec<i64> = ids
            .iter()
            .filter_map(|id| self.cells.get(id))
            .flat_map(|c| c.elements.iter().copied())
            .collect();
        values.sort_unstable();
        let hold = ids
            .iter()
            .filter_map(|id| self.cells.get(id))
            .flat_map(|c| c.holds.iter().copied())
            .reduce(|a, b| self.combiner.combine(a, b));
        // Beam Python holds the output time through early panes for the on-time pane; Beam
        // Java releases the hold at every pane (WatermarkHold.extractAndRelease), so a pane's
        // time combines only what arrived since the last one.
        let keep_hold = self.conventions == Conventions::BeamPython
            && !passed
            && self.machine.has_ontime_pane(Machine::ROOT);
        for id in ids {
            if let Some(c) = self.cells.get_mut(id) {
                c.pending = 0;
                if finished || self.accumulation == Accumulation::Discarding {
                    c.elements.clear();
                }
                if hold.is_some() && !keep_hold {
                    c.holds.clear();
                }
            }
        }
        if finished {
            self.cells.entry(first).or_default().tombstone = true;
        }
        if !emitted || (values.is_empty() && !self.conventions.fires_empty_on_time_pane()) {
            return None;
        }
        Some(ScriptPane {
            window,
            values,
            timestamp: hold.unwrap_or_else(|| window.max_timestamp()),
            info: PaneInfo {
                is_first: index == 0,
                is_last: finished,
                timing,
                index: index as u32,
                nonspeculative_index,
            },
        })
    }
}

/// What fired a pane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Firing {
    /// The trigger, by an element or a timer; an event-time timer's pane may be ON_TIME.
    Trigger { maybe_on_time: bool },
    /// Garbage collection: the window's last pane, whose trigger was not asked.
    Collection,
}
