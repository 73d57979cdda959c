//! `--rerun FILE.rrd` and `--rerun-connect ADDR`: a run as a Rerun recording (see
//! `vista::view`), for `replay`, `profile` and `live`.

use std::path::PathBuf;

use vista::view::ViewTarget;

/// Where a run's Rerun recording goes.
#[derive(Debug, Default, clap::Args)]
pub struct RerunArgs {
    /// Write the run as a Rerun recording to this `.rrd` file (view it with `rerun FILE`;
    /// builds with `--features rerun`).
    #[arg(long, value_name = "FILE.rrd", conflicts_with = "rerun_connect")]
    pub rerun: Option<PathBuf>,
    /// Stream the run to a running Rerun viewer at `HOST:PORT` (its gRPC port, 9876 by
    /// default) or a `rerun+http://…/proxy` URL; a viewer that is not there costs a
    /// warning, not the run.
    #[arg(long, value_name = "ADDR")]
    pub rerun_connect: Option<String>,
}

impl RerunArgs {
    /// The target, if one is asked for.
    pub fn target(&self) -> Option<ViewTarget> {
        match (&self.rerun, &self.rerun_connect) {
            (Some(p), _) => Some(ViewTarget::File(p.clone())),
            (None, Some(a)) => Some(ViewTarget::Connect(a.clone())),
            (None, None) => None,
        }
    }
}
