//! The state machine that runs a [`Trigger`] for one window: what an element, a merge, a
//! timer and a firing do to the trigger's state, and whether it fires and finishes. It is
//! Beam's: each trigger keeps its state in tagged cells (a count, a late flag, an index into
//! its sequence, an armed-timer flag) that the window's owner stores, so that when windows
//! merge their cells combine as Beam combines them (counts add up, flags are or-ed, indices
//! take the larger), and nothing here knows how windows are stored.
//!
//! The rules follow Beam Python's `apache_beam/transforms/trigger.py` (the driver Beam's
//! trigger transcripts are written for), method by method: `on_element`, `on_merge`,
//! `should_fire`, `on_fire` (which answers whether the trigger finished) and `reset`. Where
//! Beam Java differs, [`Conventions`] says so (a merged window whose end has not passed goes
//! back to its early phase).

use super::expr::Trigger;
use crate::conventions::Conventions;
use crate::window::WindowId;

/// Which clock a timer or a firing belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Domain {
    /// Event time: the watermark.
    EventTime,
    /// Processing time: the clock.
    ProcessingTime,
}

/// A cell of trigger state, and how it combines when windows merge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Tag {
    /// Elements counted (`AfterCount`): summed.
    Count,
    /// Whether `AfterWatermark` has passed into its late phase: or-ed (summed, tested > 0).
    Late,
    /// `AfterEach`'s current sub-trigger: the larger.
    EachIndex,
    /// Whether `AfterProcessingTime` has armed its timer for this pane: or-ed.
    HasTimer,
}

impl Tag {
    /// Combines two values of this cell.
    pub fn combine(self, a: i64, b: i64) -> i64 {
        match self {
            Tag::EachIndex => a.max(b),
            Tag::Count | Tag::Late | Tag::HasTimer => a + b,
        }
    }
}

/// A timer's name within a window: the trigger node that set it, and for `Default` the
/// window it was set for (Beam names that timer by the window).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct TimerName {
    /// The node of the compiled trigger that set it.
    pub node: usize,
    /// The window it names, if the trigger names its timer by window.
    pub window: Option<WindowId>,
}

impl TimerName {
    /// The timer of trigger node `node`.
    fn of(node: usize) -> TimerName {
        TimerName { node, window: None }
    }

    /// The timer of trigger node `node` named by `window` (Beam's `Default` names its timer by
    /// the window it was set for).
    fn for_window(node: usize, window: WindowId) -> TimerName {
        TimerName {
            node,
            window: Some(window),
        }
    }
}

/// What a trigger may ask of the window that owns it.
pub(crate) trait TriggerContext {
    /// The processing time now, ms.
    fn now(&self) -> i64;
    /// A cell's value, combined over every window merged into this one (0 if unset).
    fn get(&self, node: usize, tag: Tag) -> i64;
    /// Adds to a cell.
    fn add(&mut self, node: usize, tag: Tag, value: i64);
    /// Clears a cell.
    fn clear(&mut self, node: usize, tag: Tag);
    /// Arms a timer (replacing one of the same name and domain).
    fn set_timer(&mut self, name: TimerName, domain: Domain, at: i64);
    /// Disarms a timer, in every window merged into this one.
    fn clear_timer(&mut self, name: TimerName, domain: Domain);
}

/// One node of a compiled trigger; children are node numbers.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Node {
    Default,
    AfterWatermark {
        early: Option<usize>,
        late: Option<usize>,
    },
    AfterCount(u64),
    AfterProcessingTime(i64),
    Repeatedly(usize),
    AfterAny(Vec<usize>),
    AfterAll(Vec<usize>),
    AfterEach(Vec<usize>),
    Always,
    Never,
}

/// A trigger compiled for running: its nodes, the root first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Machine {
    nodes: Vec<Node>,
    conventions: Conventions,
}

impl Machine {
    /// Compiles `trigger` to run under `conventions`.
    pub fn new(trigger: &Trigger, conventions: Conventions) -> Machine {
        let mut m = Machine {
            nodes: Vec::new(),
            conventions,
        };
        m.compile(trigger);
        m
    }

    fn compile(&mut self, t: &Trigger) -> usize {
        let at = self.nodes.len();
        self.nodes.push(Node::Never);
        let node = match t {
            Trigger::Default => Node::Default,
            Trigger::AfterWatermark { early, late } => Node::AfterWatermark {
                early: early.as_ref().map(|e| self.compile(e)),
                late: late.as_ref().map(|l| self.compile(l)),
            },
            Trigger::AfterCount(n) => Node::AfterCount(*n),
            Trigger::AfterProcessingTime(d) => Node::AfterProcessingTime(*d),
            Trigger::Repeatedly(u) => Node::Repeatedly(self.compile(u)),
            Trigger::AfterAny(ts) => Node::AfterAny(ts.iter().map(|t| self.compile(t)).collect()),
            Trigger::AfterAll(ts) => Node::AfterAll(ts.iter().map(|t| self.compile(t)).collect()),
            Trigger::AfterEach(ts) => Node::AfterEach(ts.iter().map(|t| self.compile(t)).collect()),
            // Beam Python's OrFinally is an AfterAny of the two.
            Trigger::OrFinally(a, b) => {
                let (a, b) = (self.compile(a), self.compile(b));
                Node::AfterAny(vec![a, b])
            }
            Trigger::Always => Node::Always,
            Trigger::Never => Node::Never,
        };
        self.nodes[at] = node;
        at
    }

    /// The root node.
    pub const ROOT: usize = 0;

    /// Whether any part of the trigger fires on processing time (`AfterProcessingTime`):
    /// without one, moving the clock fires nothing.
    pub fn uses_processing_time(&self) -> bool {
        self.nodes
            .iter()
            .any(|n| matches!(n, Node::AfterProcessingTime(_)))
    }

    /// Whether the trigger has an on-time pane (its window's output time is held for it).
    pub fn has_ontime_pane(&self, n: usize) -> bool {
        match &self.nodes[n] {
            Node::Default | Node::AfterWatermark { .. } => true,
            Node::Repeatedly(u) => self.has_ontime_pane(*u),
            Node::AfterAny(ts) | Node::AfterAll(ts) | Node::AfterEach(ts) => {
                ts.iter().any(|t| self.has_ontime_pane(*t))
            }
            Node::AfterCount(_) | Node::AfterProcessingTime(_) | Node::Always | Node::Never => {
                false
            }
        }
    }

    fn is_late(&self, n: usize, late: Option<usize>, cx: &dyn TriggerContext) -> bool {
        late.is_some() && cx.get(n, Tag::Late) > 0
    }

    /// An element arrived in `window`.
    pub fn on_element(&self, n: usize, window: WindowId, cx: &mut dyn TriggerContext) {
        match &self.nodes[n] {
            Node::Default => cx.set_timer(
                TimerName::for_window(n, window),
                Domain::EventTime,
                self.conventions.end_timer(window.end_ms()),
            ),
            Node::AfterWatermark { early, late } => {
                if self.is_late(n, *late, cx) {
                    if let Some(l) = late {
                        self.on_element(*l, window, cx);
                    }
                } else {
                    cx.set_timer(
                        TimerName::of(n),
                        Domain::EventTime,
                        self.conventions.end_timer(window.end_ms()),
                    );
                    if let Some(e) = early {
                        self.on_element(*e, window, cx);
                    }
                }
            }
            Node::AfterCount(_) => cx.add(n, Tag::Count, 1),
            Node::AfterProcessingTime(delay) => {
                if cx.get(n, Tag::HasTimer) == 0 {
                    let at = cx.now().saturating_add(*delay);
                    cx.set_timer(TimerName::of(n), Domain::ProcessingTime, at);
                }
                cx.add(n, Tag::HasTimer, 1);
            }
            Node::Repeatedly(u) => self.on_element(*u, window, cx),
            Node::AfterAny(ts) | Node::AfterAll(ts) => {
                for t in ts {
                    self.on_element(*t, window, cx);
                }
            }
            Node::AfterEach(ts) => {
                if let Some(t) = ts.get(cx.get(n, Tag::EachIndex) as usize) {
                    self.on_element(*t, window, cx);
                }
            }
            Node::Always | Node::Never => {}
        }
    }

    /// The windows `merged` became `result` under watermark `wm`; their cells are already
    /// combined in `cx`.
    pub fn on_merge(
        &self,
        n: usize,
        merged: &[WindowId],
        result: WindowId,
        wm: i64,
        cx: &mut dyn TriggerContext,
    ) {
        match &self.nodes[n] {
            Node::Default => {
                for w in merged {
                    cx.clear_timer(TimerName::for_window(n, *w), Domain::EventTime);
                }
            }
            Node::AfterWatermark { early, late } => {
                // Beam Java rewinds a merged window whose end the watermark has not passed to
                // its early phase (AfterWatermarkStateMachine.AfterWatermarkEarlyAndLate
                // .onMerge); Beam Python keeps the late phase of any window merged.
                if self.is_late(n, *late, cx)
                    && self.conventions.rewinds_merged_windows()
                    && !self
                        .conventions
                        .passed_end(result.end_ms() as f64, wm as f64)
                {
                    cx.clear(n, Tag::Late);
                    if let Some(l) = late {
                        self.reset(*l, result, cx);
                    }
                }
                if self.is_late(n, *late, cx) {
                    if let Some(l) = late {
                        self.on_merge(*l, merged, result, wm, cx);
                    }
                } else {
                    if merged.iter().any(|w| w.end_ms() != result.end_ms()) {
                        cx.clear_timer(TimerName::of(n), Domain::EventTime);
                    }
                    if let Some(e) = early {
                        self.on_merge(*e, merged, result, wm, cx);
                    }
                }
            }
            // Counts and armed timers are combined by the window's owner.
            Node::AfterCount(_) | Node::AfterProcessingTime(_) | Node::Always | Node::Never => {}
            Node::Repeatedly(u) => self.on_merge(*u, merged, result, wm, cx),
            Node::AfterAny(ts) | Node::AfterAll(ts) => {
                for t in ts {
                    self.on_merge(*t, merged, result, wm, cx);
                }
            }
            Node::AfterEach(ts) => {
                if let Some(t) = ts.get(cx.get(n, Tag::EachIndex) as usize) {
                    self.on_merge(*t, merged, result, wm, cx);
                }
            }
        }
    }

    /// Whether the trigger fires now, for a firing in `domain` at `time` (the watermark for
    /// event time).
    pub fn should_fire(
        &self,
        n: usize,
        domain: Domain,
        time: i64,
        window: WindowId,
        cx: &mut dyn TriggerContext,
    ) -> bool {
        match &self.nodes[n] {
            Node::Default => {
                let passed = self.passed(window, time);
                if passed {
                    // Disarmed so that late elements do not fire it a second time.
                    cx.clear_timer(TimerName::for_window(n, window), Domain::EventTime);
                }
                passed
            }
            Node::AfterWatermark { early, late } => {
                if self.is_late(n, *late, cx) {
                    late.is_some_and(|l| self.should_fire(l, domain, time, window, cx))
                } else if self.passed(window, time) {
                    cx.clear_timer(TimerName::of(n), Domain::EventTime);
                    true
                } else {
                    early.is_some_and(|e| self.should_fire(e, domain, time, window, cx))
                }
            }
            Node::AfterCount(k) => cx.get(n, Tag::Count) >= *k as i64,
            Node::AfterProcessingTime(_) => domain == Domain::ProcessingTime,
            Node::Repeatedly(u) => self.should_fire(*u, domain, time, window, cx),
            Node::AfterAny(ts) => ts
                .iter()
                .any(|t| self.should_fire(*t, domain, time, window, cx)),
            Node::AfterAll(ts) => ts
                .iter()
                .all(|t| self.should_fire(*t, domain, time, window, cx)),
            Node::AfterEach(ts) => ts
                .get(cx.get(n, Tag::EachIndex) as usize)
                .is_some_and(|t| self.should_fire(*t, domain, time, window, cx)),
            Node::Always => true,
            Node::Never => false,
        }
    }

    fn passed(&self, window: WindowId, wm: i64) -> bool {
        self.conventions
            .passed_end(window.end_ms() as f64, wm as f64)
    }

    /// The trigger fired at watermark `wm`: updates its state and answers whether it has
    /// finished (the window then closes).
    pub fn on_fire(
        &self,
        n: usize,
        wm: i64,
        window: WindowId,
        cx: &mut dyn TriggerContext,
    ) -> bool {
        match &self.nodes[n] {
            Node::Default => false,
            Node::AfterWatermark { early, late } => {
                if self.is_late(n, *late, cx) {
                    late.is_some_and(|l| self.on_fire(l, wm, window, cx))
                } else if self.passed(window, wm) {
                    cx.add(n, Tag::Late, 1);
                    late.is_none()
                } else {
                    if let Some(e) = early {
                        self.on_fire(*e, wm, window, cx);
                    }
                    false
                }
            }
            Node::AfterCount(_) | Node::AfterProcessingTime(_) | Node::Never => true,
            Node::Always => false,
            Node::Repeatedly(u) => {
                if self.on_fire(*u, wm, window, cx) {
                    self.reset(*u, window, cx);
                }
                false
            }
            Node::AfterAny(ts) | Node::AfterAll(ts) => {
                // Each sub-trigger that would fire (as a firing in event time) fires; the
                // combination of their answers is whether this one finished.
                let mut finished = Vec::with_capacity(ts.len());
                for t in ts {
                    if self.should_fire(*t, Domain::EventTime, wm, window, cx) {
                        finished.push(self.on_fire(*t, wm, window, cx));
                    }
                }
                if matches!(self.nodes[n], Node::AfterAny(_)) {
                    finished.iter().any(|f| *f)
                } else {
                    finished.iter().all(|f| *f)
                }
            }
            Node::AfterEach(ts) => {
                let ix = cx.get(n, Tag::EachIndex) as usize;
                match ts.get(ix) {
                    Some(t) => {
                        let mut ix = ix;
                        if self.on_fire(*t, wm, window, cx) {
                            ix += 1;
                            cx.add(n, Tag::EachIndex, ix as i64);
                        }
                        ix == ts.len()
                    }
                    None => false,
                }
            }
        }
    }

    /// Clears the trigger's state for a new pane.
    pub fn reset(&self, n: usize, window: WindowId, cx: &mut dyn TriggerContext) {
        match &self.nodes[n] {
            Node::Default => cx.clear_timer(TimerName::for_window(n, window), Domain::EventTime),
            Node::AfterWatermark { early, late } => {
                if late.is_some() {
                    cx.clear(n, Tag::Late);
                }
                if let Some(e) = early {
                    self.reset(*e, window, cx);
                }
                if let Some(l) = late {
                    self.reset(*l, window, cx);
                }
            }
            Node::AfterCount(_) => cx.clear(n, Tag::Count),
            Node::AfterProcessingTime(_) => cx.clear(n, Tag::HasTimer),
            Node::Repeatedly(u) => self.reset(*u, window, cx),
            Node::AfterAny(ts) | Node::AfterAll(ts) => {
                for t in ts {
                    self.reset(*t, window, cx);
                }
            }
            Node::AfterEach(ts) => {
                cx.clear(n, Tag::EachIndex);
                for t in ts {
                    self.reset(*t, window, cx);
                }
            }
            Node::Always | Node::Never => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trigger::expr::MAX_DEPTH;

    #[test]
    fn a_machine_is_built_for_the_deepest_trigger_the_reader_takes() {
        let deepest = format!(
            "{}AfterCount(1){}",
            "Repeatedly(".repeat(MAX_DEPTH - 1),
            ")".repeat(MAX_DEPTH - 1)
        );
        let t = Trigger::parse(&deepest).unwrap();
        Machine::new(&t, Conventions::Beam);
    }
}
