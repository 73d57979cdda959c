//! The `vista` command line.

#![deny(clippy::unwrap_used, clippy::expect_used)]

mod cli;

fn main() -> std::process::ExitCode {
    vista::profile::cpu::mark_start();
    cli::main()
}
