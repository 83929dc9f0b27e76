//! A stream run under any of Beam's triggers (`run --trigger EXPR`): one [`Driver`] per key,
//! each event fed at its processing time under the watermark its generator gives. It is the
//! general path beside the processor, whose built-in trigger (`--early DUR`) is one case of
//! the algebra; the rules (windows, merging, the drop rule, firing) are the script driver's,
//! asked of [`Conventions`](crate::conventions::Conventions) as everywhere.
//!
//! Like Beam Java and Flink, it runs in whole milliseconds: event times, processing times and
//! the watermark are taken down to the millisecond (window bounds are whole milliseconds, so a
//! fate is the same either way under Beam Java's and Flink's rules).

use super::processor::EngineConfig;
use super::script::{Driver, ScriptPane, ScriptWindows, END_OF_TIME};
use super::stream::{Event, KeyId, Stream};
use super::trigger::{TimestampCombiner, Timing, Trigger};
use super::watermark::Watermark;
use super::window::{WindowFn, WindowId};

/// A pane of one key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TriggeredPane {
    /// The key whose window fired.
    pub key: KeyId,
    /// The pane: window, elements, output time, `PaneInfo`.
    pub pane: ScriptPane,
    /// The processing time it was emitted at, ms (the end of input: the last arrival's).
    pub proc_time: i64,
    /// The watermark then, ms.
    pub watermark: i64,
}

/// An event dropped as too late, with the window that refused it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TriggeredDrop {
    /// Its position in processing order.
    pub offset: usize,
    /// The event.
    pub event: Event,
    /// The window it was refused from.
    pub window: WindowId,
    /// The watermark at its arrival, ms.
    pub watermark: i64,
}

/// A whole run under a trigger.
#[derive(Debug, Clone, PartialEq)]
pub struct TriggeredRun {
    /// Every pane, in emission order.
    pub panes: Vec<TriggeredPane>,
    /// Every (event, window) refused, in arrival order.
    pub dropped: Vec<TriggeredDrop>,
    /// Events fed.
    pub events: usize,
}

impl TriggeredRun {
    /// Runs `stream` under `cfg`'s windows, watermark, allowed lateness (its grace),
    /// accumulation and conventions, with `trigger` and `combiner` in place of its built-in
    /// trigger (its early interval is not read). A window with a state TTL is refused.
    pub fn new(
        stream: &Stream,
        cfg: &EngineConfig,
        trigger: &Trigger,
        combiner: TimestampCombiner,
    ) -> Result<TriggeredRun, String> {
        if cfg.window.ttl().is_some() {
            return Err("a trigger expression does not run a state TTL: drop --ttl".to_string());
        }
        if !trigger.runs_under(cfg.conventions) {
            return Err(format!(
                "{trigger}: Kafka Streams has no triggers; under its rules give Always or \
                 Repeatedly(AfterCount(1)) (an update per record) or AfterWatermark() (one result \
                 when the window closes)"
            ));
        }
        if cfg.grace.is_nan() || cfg.grace < 0.0 {
            return Err(format!("allowed lateness {} is not a time", cfg.grace));
        }
        let windows = ScriptWindows {
            window: match cfg.window {
                WindowFn::Global { .. } => WindowFn::Global { ttl: None },
                w => w,
            },
            output_shift: 0,
            custom_timestamping: false,
        };
        let lateness = if cfg.grace.is_finite() {
            cfg.grace.floor() as i64
        } else {
            i64::MAX / 4
        };
        let max_delay = stream.max_delay();
        let mut watermark = Watermark::new(cfg.watermark.under(cfg.conventions), max_delay);
        let mut drivers: Vec<Driver> = (0..stream.keys.len().max(1))
            .map(|_| {
                Driver::new(
                    windows,
                    trigger,
                    cfg.accumulation,
                    combiner,
                    lateness,
                    cfg.conventions,
                )
                .with_empty_panes(cfg.empty_panes)
            })
            .collect();
        let mut out = TriggeredRun {
            panes: Vec::new(),
            dropped: Vec::new(),
            events: stream.len(),
        };
        let mut wm_ms = -END_OF_TIME;
        let mut now = -END_OF_TIME;
        let emit = |out: &mut TriggeredRun, key: usize, panes: Vec<ScriptPane>, now, wm| {
            out.panes
                .extend(panes.into_iter().map(|pane| TriggeredPane {
                    key: key as KeyId,
                    pane,
                    proc_time: now,
                    watermark: wm,
                }));
        };
        // Moving every key's clock at every event is only worth it for a trigger that fires on
        // processing time.
        let clocked = drivers.first().is_some_and(Driver::uses_processing_time);
        for (offset, e) in stream.events.iter().enumerate() {
            // As in the processor: the watermark takes the event in, the event is judged under it
            // and placed, and only then do the timers it and the clock pass fire, in every key.
            let w = ms(watermark.observe(e)).max(wm_ms);
            now = now.max(ms(e.proc_time));
            let k = e.key as usize;
            if let Some(d) = drivers.get_mut(k) {
                let clock = if clocked { now } else { d.clock() };
                let (panes, dropped) = d.arrive(&[ms(e.event_time)], w, clock);
                emit(&mut out, k, panes, now, w);
                out.dropped
                    .extend(dropped.into_iter().map(|(_, window)| TriggeredDrop {
                        offset,
                        event: *e,
                        window,
                        watermark: w,
                    }));
            }
            if !clocked && w <= wm_ms {
                continue;
            }
            for (j, d) in drivers.iter_mut().enumerate() {
                if j == k {
                    continue;
                }
                if clocked {
                    let panes = d.advance_clock(now);
                    emit(&mut out, j, panes, now, w);
                }
                if w > wm_ms {
                    let panes = d.advance_watermark(w);
                    emit(&mut out, j, panes, now, w);
                }
            }
            wm_ms = w;
        }
        // The end of input: the watermark goes to the end of time, past the global window too.
        for (k, d) in drivers.iter_mut().enumerate() {
            let panes = d.advance_watermark(END_OF_TIME);
            emit(&mut out, k, panes, now, END_OF_TIME);
        }
        Ok(out)
    }

    /// Panes of one timing.
    pub fn count(&self, timing: Timing) -> usize {
        self.panes
            .iter()
            .filter(|p| p.pane.info.timing == timing)
            .count()
    }
}

/// Whole milliseconds, within Beam's range of time (the watermark's −∞ its start).
fn ms(t: f64) -> i64 {
    if t.is_nan() {
        -END_OF_TIME
    } else {
        (t.floor() as i64).clamp(-END_OF_TIME, END_OF_TIME)
    }
}
