//! Scenarios: the stream the UI animates, its name, and what is known about it once, its
//! oracle. Both are the engine's (`engine::scenario::Scenario`, held by the steered run); the
//! built-in ones are the engine's catalogue; the classroom stream (the reference's seed-7
//! stream) is the default.

pub use twoclocks_engine::scenario::{Scenario, ScenarioName};
pub use twoclocks_engine::Oracle;
