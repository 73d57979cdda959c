//! Command-line front end: parses arguments and reports errors (with `anyhow` context naming
//! the file and position) for every `vista` subcommand.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod calib;

/// vista: a wearable assistant runtime for Project Aria glasses.
#[derive(Debug, Parser)]
#[command(name = "vista", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print a device calibration, or project / unproject points with one of its cameras.
    Calib(calib::CalibArgs),
}

/// Parses the command line, runs the subcommand, and maps errors to a non-zero exit.
pub fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    let cli = Cli::parse();
    let result: anyhow::Result<()> = match cli.command {
        Command::Calib(args) => calib::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
