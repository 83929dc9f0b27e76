//! A state time-to-live on the global window: a key's state expires `ttl` ms after its last
//! update, and a key seen again starts from zero.
//!
//! The boundary rule, one for both clocks: a key last updated at `L` expires at the first step
//! whose time `T` reaches the deadline, `T ≥ L + ttl`, and the expiry is processed before that
//! step places its event. So an event at `L + ttl − 1 ms` still counts on the old state, and
//! one at `L + ttl` starts from zero.
//!
//! * Processing time: `L` is the arrival time of the key's last event, `T` the arrival time of
//!   the step (or the processing time an `advance` moves to).
//! * Event time: `L` is the latest event time among the key's events since its state began,
//!   `T` the watermark after the step's event has been taken in (or the one an `advance`
//!   raises), so state expires once the watermark ≥ `L + ttl`.
//!
//! An expiry emits the state's value as a final value (one segment of the key's count), frees the
//! cell, counts in `Counters::ttl_expired`, and, by a recording processor, is recorded as an
//! [`Expiry`] in `Output::expirations` (when, which key, the value it dropped). The deadlines are a
//! min-heap checked lazily: a deadline superseded by a later update is skipped when it comes up.
//! All of it is part of the processor's state, so a checkpoint (a clone) carries it.

use std::cmp::Reverse;

use super::output::{Arrival, Expiry, FinalValue, Output};
use super::ttl_state::Deadline;
use super::Processor;
use crate::stream::Event;
use crate::window::{Assignment, CellId, TtlTime, WindowId};

impl Processor {
    /// [`Processor::place`] for the global window under a TTL: keys whose deadline the step's
    /// time reaches expire first, then the event is placed, then its key's deadline moves.
    pub(super) fn place_with_ttl(
        &mut self,
        e: &Event,
        windows: Assignment,
        wm: f64,
        out: &mut Output,
    ) -> Arrival {
        let Some(time) = self.ttl.as_ref().map(|t| t.ttl.time) else {
            return self.place_in_windows(e, windows, wm, out);
        };
        let now = match time {
            TtlTime::Processing => e.proc_time,
            TtlTime::Event => wm,
        };
        self.expire(now, e.proc_time, self.offset, out);
        let arrival = self.place_in_windows(e, windows, wm, out);
        if let Some(t) = self.ttl.as_mut() {
            let stamp = match time {
                TtlTime::Processing => e.proc_time,
                TtlTime::Event => e.event_time,
            };
            let last = t.last.entry(e.key).or_insert(f64::NEG_INFINITY);
            if stamp > *last || last.is_nan() {
                *last = stamp;
                let at = stamp + t.ttl.ms as f64;
                t.deadlines.push(Reverse(Deadline { at, key: e.key }));
            }
        }
        arrival
    }

    /// Time moved on without an event (`advance`): expire what the new time reaches.
    pub(super) fn expire_on_advance(&mut self, wm: f64, proc_time: f64, out: &mut Output) {
        let Some(time) = self.ttl.as_ref().map(|t| t.ttl.time) else {
            return;
        };
        let now = match time {
            TtlTime::Processing => proc_time,
            TtlTime::Event => wm,
        };
        // The end of input (+∞) finalises every key as the window's end; it is no expiry.
        if now < f64::INFINITY {
            self.expire(now, proc_time, self.offset, out);
        }
    }

    /// Expires every live key whose deadline is ≤ `now`: its value becomes a final value, its
    /// cell is freed, and it counts in `ttl_expired`.
    fn expire(&mut self, now: f64, proc_time: f64, offset: usize, out: &mut Output) {
        loop {
            let Some(t) = self.ttl.as_mut() else {
                return;
            };
            let Some(&Reverse(d)) = t.deadlines.peek() else {
                return;
            };
            if d.at > now {
                return;
            }
            t.deadlines.pop();
            // A deadline an update has since moved on is stale.
            let current = t.last.get(&d.key).map(|&l| l + t.ttl.ms as f64);
            if current != Some(d.at) {
                continue;
            }
            t.last.remove(&d.key);
            let removed = self
                .windows
                .get_mut(&WindowId::GLOBAL)
                .and_then(|w| w.cells.remove(d.key));
            if let Some(c) = removed {
                self.open_cells -= 1;
                self.counters.ttl_expired += 1;
                if self.records {
                    out.expirations.push(Expiry {
                        offset,
                        proc_time,
                        deadline: d.at,
                        key: d.key,
                        value: c.value,
                    });
                }
                out.finals.push(FinalValue {
                    cell: CellId {
                        window: WindowId::GLOBAL,
                        key: d.key,
                    },
                    value: c.value,
                    proc_time,
                });
            }
        }
    }
}
