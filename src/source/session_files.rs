//! Session layout on disk: which files a session folder holds.
//!
//! A session is a folder with `recording.vrs`, optional `mps/` (MPS outputs in their usual
//! layout, or an `mps_<name>_vrs/` folder as MPS delivers it), optional `requests.jsonl` and
//! optional `ground_truth.json`; or a bare `.vrs` file. Missing parts are named, never fatal:
//! the runtime runs with what is there.

use std::path::{Path, PathBuf};

use crate::aria::mps::MpsFiles;

/// Errors locating a session.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The path does not exist.
    #[error("{path}: no such file or folder")]
    NotFound {
        /// The path given.
        path: PathBuf,
    },
    /// A folder without a recording.
    #[error("{path}: no recording found (expected recording.vrs or exactly one *.vrs file in the folder)")]
    NoRecording {
        /// The folder.
        path: PathBuf,
    },
    /// A folder with several `.vrs` files and no `recording.vrs`.
    #[error(
        "{path}: several .vrs files and no recording.vrs; name the one to use: {candidates:?}"
    )]
    Ambiguous {
        /// The folder.
        path: PathBuf,
        /// The `.vrs` files found.
        candidates: Vec<PathBuf>,
    },
    /// Reading the folder failed.
    #[error("{path}: {source}")]
    Io {
        /// The folder.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// The files of one session.
#[derive(Debug, Clone)]
pub struct SessionFiles {
    /// The session folder (the `.vrs` file's folder for a bare recording).
    pub root: PathBuf,
    /// The VRS recording.
    pub recording: PathBuf,
    /// The MPS folder, when one was found.
    pub mps_dir: Option<PathBuf>,
    /// The MPS files found in it.
    pub mps: MpsFiles,
    /// `requests.jsonl`, when present.
    pub requests: Option<PathBuf>,
    /// `ground_truth.json`, when present.
    pub ground_truth: Option<PathBuf>,
}

impl SessionFiles {
    /// Locates a session from a folder or a bare `.vrs` file.
    pub fn locate(path: &Path) -> Result<Self, SessionError> {
        if !path.exists() {
            return Err(SessionError::NotFound {
                path: path.to_path_buf(),
            });
        }
        if path.is_file() {
            let root = path.parent().map(Path::to_path_buf).unwrap_or_default();
            // A bare recording: MPS delivers `mps_<stem>_vrs/` beside it; `recording.vrs` is
            // a session folder's recording, whose MPS folder is `mps/`.
            let stem = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default();
            let is_session = path.file_name() == Some("recording.vrs".as_ref());
            let mut candidates = vec![root.join(format!("mps_{stem}_vrs"))];
            if is_session {
                candidates.insert(0, root.join("mps"));
            }
            let mps_dir = candidates.into_iter().find(|d| d.is_dir());
            return Ok(Self::with_parts(
                root,
                path.to_path_buf(),
                mps_dir,
                is_session,
            ));
        }
        let entries = std::fs::read_dir(path).map_err(|source| SessionError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let mut vrs = Vec::new();
        let mut mps_dirs = Vec::new();
        for e in entries.flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if p.is_file() && name.ends_with(".vrs") {
                vrs.push(p);
            } else if p.is_dir()
                && (name == "mps" || (name.starts_with("mps_") && name.ends_with("_vrs")))
            {
                mps_dirs.push(p);
            }
        }
        vrs.sort();
        mps_dirs.sort();
        let recording = if let Some(r) = vrs.iter().find(|p| p.ends_with("recording.vrs")) {
            r.clone()
        } else if vrs.len() == 1 {
            vrs.remove(0)
        } else if vrs.is_empty() {
            return Err(SessionError::NoRecording {
                path: path.to_path_buf(),
            });
        } else {
            return Err(SessionError::Ambiguous {
                path: path.to_path_buf(),
                candidates: vrs,
            });
        };
        // Prefer `mps/`, then the first `mps_*_vrs/`.
        let mps_dir = mps_dirs
            .iter()
            .find(|d| d.ends_with("mps"))
            .or_else(|| mps_dirs.first())
            .cloned();
        Ok(Self::with_parts(
            path.to_path_buf(),
            recording,
            mps_dir,
            true,
        ))
    }

    fn with_parts(
        root: PathBuf,
        recording: PathBuf,
        mps_dir: Option<PathBuf>,
        folder: bool,
    ) -> Self {
        let mps = mps_dir
            .as_deref()
            .map(MpsFiles::discover)
            .unwrap_or_default();
        let existing = |name: &str| {
            let p = root.join(name);
            (folder && p.is_file()).then_some(p)
        };
        Self {
            requests: existing("requests.jsonl"),
            ground_truth: existing("ground_truth.json"),
            root,
            recording,
            mps_dir,
            mps,
        }
    }

    /// Human-readable notes on what this session lacks (one line each), for the log.
    pub fn missing(&self) -> Vec<String> {
        let mut out = Vec::new();
        match &self.mps_dir {
            None => out.push(
                "no MPS folder (mps/ or mps_*_vrs/): no MPS trajectory, semi-dense points, eye gaze or hand tracking (Gen2 glasses record their own pose, gaze and hands)"
                    .to_string(),
            ),
            Some(d) => {
                let m = &self.mps;
                if m.closed_loop.is_none() && m.open_loop.is_none() {
                    out.push(format!("{}: no trajectory (closed_loop_trajectory.csv / open_loop_trajectory.csv)", d.display()));
                }
                if m.eye_gaze.is_none() {
                    out.push(format!("{}: no eye gaze", d.display()));
                }
                if m.wrist_and_palm.is_none() {
                    out.push(format!("{}: no hand tracking (wrist_and_palm_poses.csv)", d.display()));
                }
            }
        }
        out
    }
}
