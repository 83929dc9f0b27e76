//! What each crash added to the additive sink's total, exactly: the job run to the end with
//! the crashes before it and with it as well, and the difference of the two totals. A crash's
//! own record ([`CrashRecord`](super::CrashRecord)) knows only the panes the sink took since
//! the checkpoint it restores, which the replay delivers again; under at-least-once barriers
//! the restored state has also taken in records it is handed again, and what they add comes
//! out in panes fired after the crash. Run to the end, every such effect is in the total,
//! whatever the barriers, the accumulation or the crashes after it, and the figures of all
//! the crashes add up to the sink's total less the total of the same job without a crash.
//! Where the barriers are exact the record's figure is that difference, and is answered
//! without running the job on ([`CrashExcess::needs_rerun`]); `run` and the terminal UI's job
//! both take each crash's figure from here.

use std::borrow::Borrow;

use super::config::CheckpointMode;
use super::restore::{CrashRecord, CrashTarget};
use super::{Pipeline, PipelineConfig};
use crate::checkpoint::SinkKind;
use crate::stream::Stream;

/// The additive sink's totals: without a crash, and what each crash reached added to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrashExcess {
    /// The additive sink's total of the job without a crash.
    pub without_crashes: i64,
    /// Per crash reached, in order, what it added to the additive sink's total.
    pub per_crash: Vec<i64>,
}

impl CrashExcess {
    /// Whether what a crash added must be found by running the job on. Under exact barriers
    /// (aligned, unaligned) it need not: the checkpoint a crash restores holds state that took
    /// in exactly the records before the source offsets it restores (and, unaligned, the ones
    /// in flight it stored), so the replay adds to the additive sink again only the panes it
    /// took since that checkpoint, which the crash's record counts
    /// ([`CrashRecord::overcount_total`]); a proptest holds the two equal under every barrier
    /// mode but at-least-once. Under at-least-once the restored state has also taken in records
    /// it is handed again, and what they add comes out in panes fired after the crash.
    pub fn needs_rerun(cfg: &PipelineConfig) -> bool {
        cfg.mode == CheckpointMode::AtLeastOnce
    }

    /// What each crash reached added, for `job` (not started, no crash scheduled) with
    /// `crashes`: from the crash records where the barriers are exact
    /// ([`CrashExcess::needs_rerun`]), else [`CrashExcess::by_rerun`].
    pub fn of<S: Borrow<Stream> + Clone>(
        job: &Pipeline<S>,
        crashes: &[(f64, CrashTarget)],
    ) -> CrashExcess {
        if CrashExcess::needs_rerun(job.config()) {
            return CrashExcess::by_rerun(job, crashes);
        }
        let (without_crashes, _) = final_total(job, &[]);
        let mut p = job.clone();
        schedule(&mut p, crashes);
        p.run_to_end();
        CrashExcess {
            without_crashes,
            per_crash: p
                .crashes()
                .iter()
                .map(CrashRecord::overcount_total)
                .collect(),
        }
    }

    /// What each crash reached added, by the definition whatever the barriers: runs copies of
    /// `job` (not started, no crash scheduled) to the end with no crash, then with each first
    /// one, two, … of `crashes` in the order of their times (the order they come in), until one
    /// is not reached (the job had finished).
    pub fn by_rerun<S: Borrow<Stream> + Clone>(
        job: &Pipeline<S>,
        crashes: &[(f64, CrashTarget)],
    ) -> CrashExcess {
        let mut crashes = crashes.to_vec();
        crashes.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (without_crashes, _) = final_total(job, &[]);
        let mut per_crash = Vec::new();
        let mut before = without_crashes;
        for n in 1..=crashes.len() {
            let (now, reached) = final_total(job, &crashes[..n]);
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

    /// What the latest crash of `after` (the job just after it) added to the additive sink's
    /// final total: from its record where the barriers are exact
    /// ([`CrashExcess::needs_rerun`]), else the totals of copies of `after` and of `before`
    /// (the job just before the crash, with whatever it had been through) run to the end. None
    /// when `after` has had no crash, or `before` is needed and not given.
    pub fn of_latest<S: Borrow<Stream> + Clone>(
        before: Option<&Pipeline<S>>,
        after: &Pipeline<S>,
    ) -> Option<i64> {
        let crash = after.crashes().last()?;
        if !CrashExcess::needs_rerun(after.config()) {
            return Some(crash.overcount_total());
        }
        let (with, _) = final_total(after, &[]);
        let (without, _) = final_total(before?, &[]);
        Some(with - without)
    }

    /// What every crash added, together.
    pub fn total(&self) -> i64 {
        self.per_crash.iter().sum()
    }
}

/// `crashes` scheduled on `p`, in the order of their times; a target the job has not is
/// refused, and that crash is not reached.
fn schedule<S: Borrow<Stream> + Clone>(p: &mut Pipeline<S>, crashes: &[(f64, CrashTarget)]) {
    let mut crashes = crashes.to_vec();
    crashes.sort_by(|a, b| a.0.total_cmp(&b.0));
    for &(t, target) in &crashes {
        let _ = p.schedule_crash(t, target);
    }
}

/// The additive sink's total of a copy of `job` with `crashes` scheduled, run to the end, and
/// the crashes it reached, in all.
fn final_total<S: Borrow<Stream> + Clone>(
    job: &Pipeline<S>,
    crashes: &[(f64, CrashTarget)],
) -> (i64, usize) {
    let mut p = job.clone();
    schedule(&mut p, crashes);
    p.run_to_end();
    let total: i64 = p.sink_output(SinkKind::Additive).values().sum();
    (total, p.crashes().len())
}
