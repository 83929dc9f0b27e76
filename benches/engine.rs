//! Engine speed: one run of the classroom stream, a million events, the 13 × 13 frontier.

fn main() {}
