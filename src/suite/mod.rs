//! Evaluation at scale (`vista eval`): a suite of scenarios (or recorded sessions with
//! ground truth) × seeds × modes, each cell written, replayed in lock step and scored with
//! the strict scorer, in bounded parallel workers, resumable, sharded for a batch
//! scheduler and merged; then a report per entry, task category and response form.
//!
//! Layout: [`plan`] (what a suite is, its cells and shards), [`cell`] (one cell's result),
//! [`tally`] (adding up, and regressions against a baseline) and [`render`] (Markdown and
//! SVG) are pure; [`child`] (one step as a child process) and [`run`] (the workers,
//! resuming, merging) do the I/O.

pub mod cell;
pub mod child;
pub mod error;
pub mod plan;
pub mod render;
pub mod run;
pub mod tally;

pub use error::SuiteError;
pub use plan::{read_suite, Plan, Shard};
pub use run::{merge, run_suite, SuiteOptions, SuiteRun};
pub use tally::{regressions, tally, Report};
