//! A scenario by name (`vista synth`): the scenario folder listed with each scenario's
//! name, and one scenario found and written as a session folder, timed.

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::synth::scenario::{find_scenario, scenario_files, Scenario, ScenarioError};
use crate::synth::session_writer::{write_session, SynthError, SynthOptions, SynthSummary};

/// What can go wrong writing a named scenario.
#[derive(Debug, thiserror::Error)]
pub enum NamedSynthError {
    /// The scenario could not be found or read.
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    /// The session could not be written.
    #[error("writing scenario {name} into {out}", out = out.display())]
    Write {
        /// The scenario's name.
        name: String,
        /// The session folder.
        out: PathBuf,
        /// What went wrong.
        #[source]
        source: Box<SynthError>,
    },
}

/// Every scenario in `dir` (sorted by file name), with its file stem.
pub fn list_scenarios(dir: &Path) -> Result<Vec<(String, Scenario)>, ScenarioError> {
    scenario_files(dir)?
        .into_iter()
        .map(|f| {
            let sc = Scenario::load(&f)?;
            let stem = f
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            Ok((stem, sc))
        })
        .collect()
}

/// A written session.
#[derive(Clone, Debug)]
pub struct Synthesized {
    /// The scenario written.
    pub scenario: Scenario,
    /// What was written.
    pub summary: SynthSummary,
    /// Wall-clock time it took, seconds.
    pub elapsed_s: f64,
}

/// Writes scenario `name` (a file stem in `scenarios`, or a path) into `out`.
pub fn synthesize_named(
    scenarios: &Path,
    name: &str,
    out: &Path,
    opts: &SynthOptions,
) -> Result<Synthesized, NamedSynthError> {
    let sc = find_scenario(scenarios, name)?;
    let started = Instant::now();
    let summary = write_session(&sc, out, opts).map_err(|e| NamedSynthError::Write {
        name: sc.name.clone(),
        out: out.to_path_buf(),
        source: Box::new(e),
    })?;
    Ok(Synthesized {
        scenario: sc,
        summary,
        elapsed_s: started.elapsed().as_secs_f64(),
    })
}
