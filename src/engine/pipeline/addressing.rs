//! Addressing: which operator instance owns a key, and the bit sets of inputs that alignment
//! and the views use.

/// FNV-1a, 64 bits, of a key's name: the same on every run and platform.
pub fn key_hash(name: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The operator instance that owns a key.
pub fn operator_for(name: &str, parallelism: usize) -> usize {
    (key_hash(name) % parallelism.max(1) as u64) as usize
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
