//! `vista inspect PATH [--json]`: what a recording or session folder holds.

use std::path::PathBuf;

use vista::source::inspect::inspect;

/// Arguments of `vista inspect`.
#[derive(Debug, clap::Args)]
pub struct InspectArgs {
    /// A `.vrs` file or a session folder.
    pub path: PathBuf,
    /// Print one JSON object instead of tables.
    #[arg(long)]
    pub json: bool,
}

/// Runs `vista inspect`.
pub fn run(args: InspectArgs) -> anyhow::Result<()> {
    let report = inspect(&args.path)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.to_table());
    }
    Ok(())
}
