//! Events read from a log and held on disk rather than in memory: while a log is read, each
//! event goes to a temporary file as 20 bytes (event time, processing time, key id in order
//! of first appearance). At the end of the log the keys are numbered in name order; a log
//! whose rows were already in processing-time order is then replayed from the file one event
//! at a time (memory follows the engine's open windows, not the log), and any other is loaded
//! into memory and sorted as an in-memory read would.
//!
//! A spool may also hand its events on as it writes them, in batches, to a [`Follower`]: a
//! run that goes on while the log is read, its keys numbered in order of first appearance.
//! When the log is a file that can be read again, a followed spool holds no events at all,
//! only what it counts of them ([`Spool::is_held`]): the run that needs them after all (the
//! log was out of order, or its dials changed once it was read) reads the file again.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Mutex};

use anyhow::{anyhow, bail, Context, Result};

use twoclocks_engine::clock::Clock;
use twoclocks_engine::{Event, Stream};

/// Bytes one event takes in a spool file.
pub const SPOOL_EVENT_BYTES: usize = 20;

/// Bytes of events gathered before they are written to the file.
const SPOOL_CHUNK: usize = 1 << 16;

/// A log as read: in memory, sorted, or on disk in processing-time order.
pub enum Events {
    /// Sorted into processing-time order in memory.
    Memory(Stream),
    /// Held on disk, already in processing-time order.
    Spooled(Spool),
}

impl Events {
    /// The events in memory, sorted (a spool is read back whole).
    pub fn into_stream(self) -> Result<Stream> {
        match self {
            Events::Memory(s) => Ok(s),
            Events::Spooled(s) => s.into_stream(),
        }
    }
}

/// Events handed on, as a spool writes them, in batches of this many.
pub const FOLLOWED_BATCH: usize = 4_096;

/// Batches in flight to a follower at most: the reader waits for a follower this far behind.
const FOLLOWED_AHEAD: usize = 8;

/// Where a spool hands on its events while the log is read, in batches of
/// [`FOLLOWED_BATCH`] (the last one shorter), each key a provisional id (order of first
/// appearance, which [`Spool::renumbered`] maps to the final one). The batches stop at the
/// first event earlier in processing time than the one before (a log to be sorted is not
/// followed), and at the end of the log.
#[derive(Clone)]
pub struct Follower {
    to: SyncSender<FollowedBatch>,
    /// Batches taken and given back, emptied, to be filled again: the same memory, still in
    /// cache, rather than new pages for every batch.
    spare: Spare,
    /// Whether the spool also holds the events it hands on (not when the log can be read
    /// again: [`Follower::read_again`]).
    held: bool,
}

/// Emptied batches, given back by the follower.
type Spare = Arc<Mutex<Vec<Vec<Event>>>>;

/// The batches a [`Follower`] is handed, as they come; each taken batch's events are best
/// given back ([`FollowedBatches::give_back`]) once used.
pub struct FollowedBatches {
    from: Receiver<FollowedBatch>,
    spare: Spare,
}

impl FollowedBatches {
    /// The next batch, waiting for it; `None` once the spool has no more to hand on.
    pub fn next_batch(&self) -> Option<FollowedBatch> {
        self.from.recv().ok()
    }

    /// A batch's events, used: their memory is filled again by a batch to come.
    pub fn give_back(&self, mut events: Vec<Event>) {
        events.clear();
        if let Ok(mut spare) = self.spare.lock() {
            if spare.len() < FOLLOWED_AHEAD {
                spare.push(events);
            }
        }
    }
}

/// A batch of events a spool hands on, with the names of the keys they are the first of (the
/// next provisional ids, in order).
#[derive(Debug, Default)]
pub struct FollowedBatch {
    /// The events, in the order read.
    pub events: Vec<Event>,
    /// The keys first seen in this batch, by provisional id from where the last batch's
    /// stopped.
    pub new_keys: Vec<String>,
}

impl Follower {
    /// A follower, and where its batches arrive.
    pub fn new() -> (Follower, FollowedBatches) {
        let (to, from) = sync_channel(FOLLOWED_AHEAD);
        let spare = Spare::default();
        (
            Follower {
                to,
                spare: spare.clone(),
                held: true,
            },
            FollowedBatches { from, spare },
        )
    }

    /// This follower, for a log that can be read again (a regular file): the spool that hands
    /// it events holds none of them, only their count, keys and times, and a run that needs
    /// them after all (the log is out of order, or [`Spool::is_held`] says so) reads the log
    /// again.
    pub fn read_again(self) -> Follower {
        Follower {
            held: false,
            ..self
        }
    }

    /// An empty batch to fill: one given back, or a new one.
    fn empty_batch(&self) -> Vec<Event> {
        let spare = self.spare.lock().ok().and_then(|mut s| s.pop());
        spare.unwrap_or_else(|| Vec::with_capacity(FOLLOWED_BATCH))
    }
}

impl std::fmt::Debug for Follower {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Follower")
    }
}

/// Options are alike whoever follows their events: a follower does not change what is read.
impl PartialEq for Follower {
    fn eq(&self, _: &Follower) -> bool {
        true
    }
}

/// Events being written to a temporary file as they are read.
pub(crate) struct SpoolWriter {
    /// The temporary file; none when a follower takes the events from a log that can be
    /// read again ([`Follower::read_again`]).
    out: Option<BufWriter<File>>,
    /// Events not yet written to `out`, [`SPOOL_EVENT_BYTES`] each.
    pending: Vec<u8>,
    /// Where the events go on to, with the batch being gathered, while they are in order.
    follower: Option<(Follower, FollowedBatch)>,
    /// Keys the follower has been told the names of.
    named: usize,
    len: u64,
    /// Whether every processing time so far is at least the one before it.
    sorted: bool,
    last_proc_time: f64,
    max_delay: Option<f64>,
    event_times: Option<(f64, f64)>,
}

impl SpoolWriter {
    /// An empty spool in a new temporary file (gone when dropped), its events handed on to
    /// `follower` too; with no file when the follower's log can be read again.
    pub(crate) fn new(follower: Option<Follower>) -> Result<Self> {
        let out = if follower.as_ref().is_some_and(|f| !f.held) {
            None
        } else {
            let file = tempfile::tempfile()
                .context("cannot create a temporary file to hold the events read")?;
            Some(BufWriter::with_capacity(1 << 16, file))
        };
        Ok(SpoolWriter {
            pending: Vec::with_capacity(if out.is_some() { SPOOL_CHUNK } else { 0 }),
            out,
            follower: follower.map(|f| (f, FollowedBatch::default())),
            named: 0,
            len: 0,
            sorted: true,
            last_proc_time: f64::NEG_INFINITY,
            max_delay: None,
            event_times: None,
        })
    }

    /// Appends one event (its key a provisional id, named by `keys`).
    pub(crate) fn push(&mut self, e: &Event, keys: &[String]) -> Result<()> {
        // The same comparison as the in-memory sort: a row earlier in processing time than
        // the one before it means the log must be sorted.
        if e.proc_time.partial_cmp(&self.last_proc_time) == Some(std::cmp::Ordering::Less) {
            self.sorted = false;
            // The follower's run is of no use: it is told so by the end of its batches.
            self.follower = None;
        }
        if let Some((follower, batch)) = &mut self.follower {
            if e.key as usize >= self.named {
                let new = keys.get(self.named..=e.key as usize).unwrap_or_default();
                batch.new_keys.extend_from_slice(new);
                self.named += new.len();
            }
            if batch.events.capacity() == 0 {
                batch.events = follower.empty_batch();
            }
            batch.events.push(*e);
            if batch.events.len() == FOLLOWED_BATCH {
                let full = std::mem::take(batch);
                // A follower gone has nothing more to take.
                if follower.to.send(full).is_err() {
                    self.follower = None;
                }
            }
        }
        self.last_proc_time = e.proc_time;
        let d = e.delay();
        self.max_delay = Some(self.max_delay.map_or(d, |m| m.max(d)));
        let t = e.event_time;
        self.event_times = Some(
            self.event_times
                .map_or((t, t), |(a, b)| (a.min(t), b.max(t))),
        );
        if self.out.is_some() {
            // Each field stored straight into the chunk: an event put together in a buffer of
            // its own and copied from there was read back before its stores had landed.
            self.pending.extend_from_slice(&e.event_time.to_le_bytes());
            self.pending.extend_from_slice(&e.proc_time.to_le_bytes());
            self.pending.extend_from_slice(&e.key.to_le_bytes());
            if self.pending.len() >= SPOOL_CHUNK {
                self.write_pending()?;
            }
        }
        self.len += 1;
        Ok(())
    }

    /// Writes the events gathered to the file.
    fn write_pending(&mut self) -> Result<()> {
        if let Some(out) = &mut self.out {
            out.write_all(&self.pending)
                .context("cannot write the events read to a temporary file")?;
        }
        self.pending.clear();
        Ok(())
    }

    /// The spool, its keys renumbered by `new_id` and named by `keys` (in name order), its
    /// times on `clock`.
    pub(crate) fn finish(
        mut self,
        new_id: Vec<u32>,
        keys: Vec<String>,
        clock: Clock,
    ) -> Result<Spool> {
        if let Some((follower, batch)) = self.follower.take() {
            if !batch.events.is_empty() {
                let _ = follower.to.send(batch);
            }
        }
        self.write_pending()?;
        let file = match self.out {
            Some(out) => {
                let mut file = out.into_inner().map_err(|e| {
                    anyhow!("cannot write the events read to a temporary file: {e}")
                })?;
                file.flush()?;
                Some(file)
            }
            None => None,
        };
        Ok(Spool {
            file,
            len: self.len,
            sorted: self.sorted,
            max_delay: self.max_delay.unwrap_or(0.0),
            event_times: self.event_times,
            new_id,
            keys,
            clock,
        })
    }
}

/// Events held in a temporary file, with their keys; or, of a log that can be read again,
/// only their count, keys and times ([`Spool::is_held`]).
pub struct Spool {
    /// The events, when held.
    file: Option<File>,
    len: u64,
    sorted: bool,
    max_delay: f64,
    event_times: Option<(f64, f64)>,
    /// Provisional key id (order of first appearance) → id in name order.
    new_id: Vec<u32>,
    keys: Vec<String>,
    clock: Clock,
}

impl Spool {
    /// How many events it holds.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether it holds no events.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the events were written in processing-time order.
    pub fn is_sorted(&self) -> bool {
        self.sorted
    }

    /// Whether the events are held to be read back: not when a follower took them from a log
    /// that can be read again ([`Follower::read_again`]), which is read again to replay it.
    pub fn is_held(&self) -> bool {
        self.file.is_some()
    }

    /// The file holding the events, or the error that they are not held.
    fn held(&self) -> Result<&File> {
        self.file.as_ref().ok_or_else(|| anyhow!(Unheld))
    }

    /// The key names, in name order (indexed by the ids [`Spool::events`] gives).
    pub fn keys(&self) -> &[String] {
        &self.keys
    }

    /// The clock the events' times are on, as [`Stream::clock`] carries it.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// The stream without its events (they stay on disk): its keys and its clock, which is
    /// what output names keys and writes times by.
    pub fn outline(&self) -> Stream {
        Stream {
            events: Vec::new(),
            keys: self.keys.clone(),
            clock: self.clock.clone(),
        }
    }

    /// The largest delay of the events, as [`Stream::max_delay`] gives it.
    pub fn max_delay(&self) -> f64 {
        self.max_delay
    }

    /// The earliest and latest event times, if it holds any events.
    pub fn event_times(&self) -> Option<(f64, f64)> {
        self.event_times
    }

    /// The final id (in name order) of a key by its provisional id (in order of first
    /// appearance), as a [`Follower`] was given it.
    pub fn renumbered(&self, provisional: u32) -> Option<u32> {
        self.new_id.get(provisional as usize).copied()
    }

    /// The events in the order they were read, keys numbered in name order.
    pub fn events(&mut self) -> Result<SpoolEvents<'_>> {
        let mut file = self.held()?;
        file.seek(SeekFrom::Start(0))
            .context("cannot read back the events held in a temporary file")?;
        Ok(SpoolEvents {
            input: BufReader::with_capacity(1 << 16, file),
            left: self.len,
            new_id: &self.new_id,
        })
    }

    /// Up to `most` events from the `first`th on into `into` (emptied first), keys numbered in
    /// name order, read at their place in the file: several readers may go over the spool at
    /// once, each at its own place.
    pub fn read_at(&self, first: u64, most: usize, into: &mut Vec<Event>) -> Result<()> {
        into.clear();
        let n = most.min(usize::try_from(self.len.saturating_sub(first)).unwrap_or(usize::MAX));
        let mut buf = vec![0u8; n * SPOOL_EVENT_BYTES];
        read_exact_at(self.held()?, &mut buf, first * SPOOL_EVENT_BYTES as u64)
            .context("cannot read back the events held in a temporary file")?;
        for raw in buf.chunks_exact(SPOOL_EVENT_BYTES) {
            let f = |i: usize| {
                let mut b = [0u8; 8];
                b.copy_from_slice(&raw[i..i + 8]);
                f64::from_le_bytes(b)
            };
            let mut k = [0u8; 4];
            k.copy_from_slice(&raw[16..]);
            let key = u32::from_le_bytes(k);
            let Some(&key) = self.new_id.get(key as usize) else {
                bail!("the events held in a temporary file are corrupt (key {key})");
            };
            into.push(Event {
                event_time: f(0),
                proc_time: f(8),
                key,
            });
        }
        Ok(())
    }

    /// Every event in memory, sorted stably by processing time.
    pub fn into_stream(mut self) -> Result<Stream> {
        self.held()?;
        let len = usize::try_from(self.len).context("too many events for memory")?;
        let mut events = Vec::with_capacity(len);
        for e in self.events()? {
            events.push(e?);
        }
        Ok(Stream {
            clock: self.clock,
            ..Stream::from_unordered(events, self.keys)
        })
    }
}

/// The error of reading back a spool that holds no events ([`Spool::is_held`]): its log is to
/// be read again, which the reader that made it without a file does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unheld;

impl std::fmt::Display for Unheld {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the events read were handed on, not held: the log is to be read again")
    }
}

impl std::error::Error for Unheld {}

/// The events of a [`Spool`], one at a time.
pub struct SpoolEvents<'s> {
    input: BufReader<&'s File>,
    left: u64,
    new_id: &'s [u32],
}

impl Iterator for SpoolEvents<'_> {
    type Item = Result<Event>;

    fn next(&mut self) -> Option<Result<Event>> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let mut buf = [0u8; SPOOL_EVENT_BYTES];
        if let Err(e) = self.input.read_exact(&mut buf) {
            self.left = 0;
            return Some(Err(anyhow!(
                "cannot read back the events held in a temporary file: {e}"
            )));
        }
        let f = |i: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&buf[i..i + 8]);
            f64::from_le_bytes(b)
        };
        let mut k = [0u8; 4];
        k.copy_from_slice(&buf[16..]);
        let key = u32::from_le_bytes(k);
        match self.new_id.get(key as usize) {
            Some(&key) => Some(Ok(Event {
                event_time: f(0),
                proc_time: f(8),
                key,
            })),
            None => {
                self.left = 0;
                Some(Err(anyhow!(
                    "the events held in a temporary file are corrupt (key {key})"
                )))
            }
        }
    }
}

/// Fills `buf` from `file` at `offset`, without moving the file's cursor.
#[cfg(unix)]
fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

/// Fills `buf` from `file` at `offset` (the cursor may move; every read gives its offset).
#[cfg(windows)]
fn read_exact_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> std::io::Result<()> {
    while !buf.is_empty() {
        match std::os::windows::fs::FileExt::seek_read(file, buf, offset)? {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
        }
    }
    Ok(())
}

/// Refuses more events than `max` in memory, naming where the log passed it.
pub(crate) fn check_in_memory(len: u64, max: usize, over_at: Option<(String, u64)>) -> Result<()> {
    if len > max as u64 {
        let (name, at) = over_at.unwrap_or_default();
        bail!(
            "{name} {at}: more than {max} events, more than twoclocks sorts in memory: sort \
             the log by processing time (e.g. `sort -t, -k2,2n`) and cut it into parts \
             (`split -l {max}`)"
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three events in processing-time order, keys 0 and 1 first seen in that order.
    fn written(follower: Follower) -> Spool {
        let keys = ["b".to_string(), "a".to_string()];
        let mut w = SpoolWriter::new(Some(follower)).unwrap();
        for (i, key) in [0u32, 1, 0].into_iter().enumerate() {
            let t = i as f64 * 10.0;
            let e = Event {
                event_time: t - 5.0,
                proc_time: t,
                key,
            };
            w.push(&e, &keys).unwrap();
        }
        w.finish(vec![1, 0], vec!["a".into(), "b".into()], Clock::default())
            .unwrap()
    }

    #[test]
    fn a_followed_log_that_can_be_read_again_is_counted_not_held() {
        let (follower, batches) = Follower::new();
        let mut spool = written(follower.read_again());
        let handed: Vec<Event> = std::iter::from_fn(|| batches.next_batch())
            .flat_map(|b| b.events)
            .collect();
        assert_eq!(handed.len(), 3);
        assert!(!spool.is_held());
        assert_eq!((spool.len(), spool.max_delay()), (3, 5.0));
        assert_eq!(spool.event_times(), Some((-5.0, 15.0)));
        let unheld = |e: anyhow::Error| e.downcast_ref::<Unheld>().is_some();
        assert!(spool.events().err().is_some_and(unheld));
        assert!(spool.into_stream().err().is_some_and(unheld));
    }

    #[test]
    fn a_followed_log_from_a_pipe_is_held_too() {
        let (follower, batches) = Follower::new();
        let spool = written(follower);
        assert_eq!(std::iter::from_fn(|| batches.next_batch()).count(), 1);
        assert!(spool.is_held());
        let keys: Vec<u32> = spool
            .into_stream()
            .unwrap()
            .events
            .iter()
            .map(|e| e.key)
            .collect();
        assert_eq!(keys, [1, 0, 1]);
    }
}
