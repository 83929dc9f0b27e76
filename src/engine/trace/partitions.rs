//! The read model's source partitions: what each did (cut off, idle, healed) and how long
//! the job's combined watermark has stood still, for a parallel run at its playhead. A single
//! run has no partitions: empty, None.

use super::super::pipeline::PartitionView;
use super::Trace;

/// The combined watermark counts as stalled once it has not advanced for this long
/// (processing time, ms): five watermark samples, longer than a flowing stream's gaps.
pub const STALL_SHOWN: f64 = 5.0 * super::super::job_timeline::WATERMARK_SAMPLE;

impl Trace {
    /// Each source partition at the run's clock: events, outages, idle spans, watermark. A
    /// partition is out while the clock is inside one of its outages (a cut pressed at the
    /// clock counts at once). Empty for a single run.
    pub fn partitions(&self) -> Vec<PartitionView> {
        let Some(j) = self.job() else {
            return Vec::new();
        };
        let now = j.now();
        let mut v = j.pipeline().partitions();
        for p in &mut v {
            let ended = p.events >= p.len && p.out.iter().all(|&(_, until)| until <= now);
            p.is_out = !ended
                && p.out
                    .iter()
                    .any(|&(from, until)| from <= now && now < until);
        }
        v
    }

    /// When (processing time, ms) partition `p`'s outage the clock is in began; None while
    /// it delivers (or has ended).
    pub fn out_since(&self, p: usize) -> Option<f64> {
        let now = self.job()?.now();
        let v = self.partitions().into_iter().nth(p)?;
        if !v.is_out {
            return None;
        }
        v.out
            .iter()
            .filter(|&&(from, until)| from <= now && now < until)
            .map(|&(from, _)| from)
            .reduce(f64::min)
    }

    /// Partition `p` is cut off and not healed yet (an outage to +∞): `p` again heals it.
    pub fn is_cut_off(&self, p: usize) -> bool {
        self.partitions()
            .get(p)
            .is_some_and(|v| v.out.iter().any(|&(_, until)| until.is_infinite()))
    }

    /// How long (processing time, ms) the job's combined watermark has not advanced, when
    /// that is at least [`STALL_SHOWN`] and the input has not ended; None otherwise (and for
    /// a single run).
    pub fn watermark_stall(&self) -> Option<f64> {
        let j = self.job()?;
        let since = j.pipeline().watermark_stalled_since()?;
        let d = j.now() - since;
        (d >= STALL_SHOWN && !j.is_finished()).then_some(d)
    }
}
