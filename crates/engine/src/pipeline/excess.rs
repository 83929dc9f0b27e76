//! What each crash added to the additive sink's total, exactly: the job run to the end with
//! the crashes before it and with it as well, and the difference of the two totals. A crash's
//! own record ([`CrashRecord`](super::CrashRecord)) knows only the panes the sink took since
//! the checkpoint it restores, which the replay delivers again; under at-least-once barriers
//! the restored state has also taken in records it is handed again, and what they add comes
//! out in panes fired after the crash. Run to the end, every such effect is in the total,
//! whatever the barriers, the accumulation or the crashes after it, and the figures of all
//! the crashes add up to the sink's total less the total of the same job without a crash.

use std::borrow::Borrow;

use super::super::checkpoint::SinkKind;
use super::super::stream::Stream;
use super::restore::CrashTarget;
use super::Pipeline;

/// The additive sink's totals: without a crash, and what each crash reached added to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrashExcess {
    /// The additive sink's total of the job without a crash.
    pub without_crashes: i64,
    /// Per crash reached, in order, what it added to the additive sink's total.
    pub per_crash: Vec<i64>,
}

impl CrashExcess {
    /// Runs copies of `job` (not started, no crash scheduled) to the end with no crash, then
    /// with each first one, two, … of `crashes` in the order of their times (the order they
    /// come in), until one is not reached (the job had finished).
    pub fn of<S: Borrow<Stream> + Clone>(
        job: &Pipeline<S>,
        crashes: &[(f64, CrashTarget)],
    ) -> CrashExcess {
        let mut crashes = crashes.to_vec();
        crashes.sort_by(|a, b| a.0.total_cmp(&b.0));
        let total = |n: usize| {
            let mut p = job.clone();
            for &(t, target) in &crashes[..n] {
                // A target the job has not is refused: that crash is not reached.
                let _ = p.schedule_crash(t, target);
            }
            p.run_to_end();
            let total: i64 = p.sink_output(SinkKind::Additive).values().sum();
            (total, p.crashes().len())
        };
        let (without_crashes, _) = total(0);
        let mut per_crash = Vec::new();
        let mut before = without_crashes;
        for n in 1..=crashes.len() {
            let (now, reached) = total(n);
            if reached < n {
                break;
            }
            per_crash.push(now - before);
            before = now;
        }
        CrashExcess {
            without_crashes,
            per_crash,
        }
    }

    /// What every crash added, together.
    pub fn total(&self) -> i64 {
        self.per_crash.iter().sum()
    }
}
