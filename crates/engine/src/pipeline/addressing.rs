//! Addressing: which operator instance owns a key, which source partition carries a key when
//! the stream is partitioned by key, how the channels of a topology are
//! numbered (P·N source → operator channels `p·N + i`, then N operator → sink channels), which
//! receiver and input each channel feeds, and the bit sets of inputs that alignment and the
//! views use.

use super::PipelineConfig;

/// FNV-1a, 64 bits, of a key's name: the same on every run and platform.
pub(crate) fn key_hash(name: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// What a partition hash starts from: FNV-1a over this salt, so that hashing a name after it
/// gives `fnv1a64("partitions" ++ name)`. Of the plain words tried, this one spreads the
/// classroom stream's four keys over every partition at P = 2, 3 and 4 (one key each at 4),
/// which a salt taken blindly need not do with so few keys.
const PARTITION_SALT: &str = "partitions";

impl PipelineConfig {
    /// The operator instance that owns a key: `fnv1a64(name) mod N`, N the parallelism.
    pub fn operator_for(name: &str, parallelism: usize) -> usize {
        (key_hash(name) % parallelism.max(1) as u64) as usize
    }

    /// The source partition that carries a key when the stream is partitioned by key:
    /// `fnv1a64("partitions" ++ name)` passed through SplitMix64's finaliser, `mod P`; the same
    /// on every run and platform. It must not follow [`PipelineConfig::operator_for`]: with one
    /// hash, P = N would send each partition's keys to one operator alone. A salt alone is not
    /// enough: FNV-1a's low bits, which `mod P` reads, follow the low bits of a name's last byte
    /// whatever the salt, so short names would still map partitions onto operators one to one;
    /// the finaliser spreads every bit over all of them.
    pub fn partition_for(name: &str, partitions: usize) -> usize {
        let mut h = key_hash(PARTITION_SALT);
        for b in name.bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        h ^= h >> 31;
        (h % partitions.max(1) as u64) as usize
    }
}

/// A node that receives on channels: an operator instance or the sink. Its inputs are
/// numbered: an operator's input `p` comes from source partition `p`, the sink's input `i`
/// from operator `i`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Receiver {
    Operator(usize),
    Sink,
}

/// The channel numbering of a topology with P source partitions and N operator instances.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Addressing {
    partitions: usize,
    parallelism: usize,
}

impl Addressing {
    /// The numbering of `partitions` sources and `parallelism` operators.
    pub fn new(partitions: usize, parallelism: usize) -> Self {
        Addressing {
            partitions,
            parallelism,
        }
    }

    /// The channel from source partition `p` to operator instance `i`.
    pub fn source_to_operator(&self, p: usize, i: usize) -> usize {
        p * self.parallelism + i
    }

    /// The channel from operator instance `i` to the sink.
    pub fn operator_to_sink(&self, i: usize) -> usize {
        self.partitions * self.parallelism + i
    }

    /// The channel that feeds input `k` of a receiver.
    pub(super) fn input(&self, r: Receiver, k: usize) -> usize {
        match r {
            Receiver::Operator(i) => self.source_to_operator(k, i),
            Receiver::Sink => self.operator_to_sink(k),
        }
    }

    /// How many inputs a receiver has.
    pub(super) fn inputs(&self, r: Receiver) -> usize {
        match r {
            Receiver::Operator(_) => self.partitions,
            Receiver::Sink => self.parallelism,
        }
    }

    /// The receiver channel `c` feeds, and which of its inputs it is.
    pub(super) fn receiver_of(&self, c: usize) -> (Receiver, usize) {
        let nn = self.parallelism;
        if c < self.partitions * nn {
            (Receiver::Operator(c % nn), c / nn)
        } else {
            (Receiver::Sink, c - self.partitions * nn)
        }
    }
}

pub(super) fn bit(i: usize) -> u64 {
    1u64 << i
}

pub(super) fn full(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

pub(super) fn bits(mask: u64) -> Vec<usize> {
    (0..64).filter(|&i| mask & bit(i) != 0).collect()
}
