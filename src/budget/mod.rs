//! The power budget: a whole run within a share of the CPU at real time. Optional work
//! (the language model's prefill ahead of requests, periodic text reads, the object
//! detector) reads a [`RateDial`]; a [`Governor`] sets the dials from the process's CPU,
//! down and up a fixed [`LADDER`], so that alerts and the stages that feed them are never
//! the ones that give way. Pure: the pipeline reads the clocks.

pub mod dial;
pub mod governor;
pub mod ladder;

pub use dial::{RateDial, FULL_RATE_PCT, PAUSED};
pub use governor::{BudgetReport, Governor, GovernorConfig, StageCpu, Step};
pub use ladder::{rate_share_at, stretch_at, Dials, OptionalStage, Rung, FLOOR_LEVEL, LADDER};

/// The default budget, cores: half of one.
pub const DEFAULT_BUDGET_CORES: f64 = 0.5;
