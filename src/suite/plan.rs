//! What a suite is and which cells it makes: the entries (synthetic scenarios, or recorded
//! sessions with ground truth), the seeds and the modes, the `plan.json` that ties an output
//! folder to them, and the shards a batch scheduler runs.
//!
//! A suite is a folder of scenario files (every `*.json`, sorted) or a list, one entry a
//! line (`#` starts a comment):
//!
//! ```text
//! read_sign                      # a scenario by name (a file stem in --scenarios)
//! mixed_walk duration=90         # … cut to its first 90 s
//! my/scenarios/corner.json       # a scenario file
//! session recordings/walk_03     # a recorded session folder with ground_truth.json
//! ```
//!
//! A *session* is one entry written with one seed (a recorded session has none); a *cell* is
//! a session replayed in one mode (live first) and scored. Shards split the sessions, so
//! each is written in one shard only: session `k` (in plan order) is shard `k mod N`.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::error::SuiteError;
use crate::eval::mode::RunMode;
use crate::synth::device::SynthDevice;
use crate::synth::{scenario_files, Scenario};

/// Where an entry's sessions come from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Source {
    /// A scenario written by `vista synth`, once per seed.
    Scenario {
        /// The scenario file.
        file: PathBuf,
        /// Length to write, s (`None`: the scenario's).
        duration_s: Option<f64>,
        /// FNV-1a of the file's bytes, so a folder is never resumed over a changed scenario.
        digest: String,
    },
    /// A recorded session folder with its ground truth (no seeds).
    Session {
        /// The folder.
        path: PathBuf,
    },
}

/// One entry of a suite.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// Its name in the report and in folder names (unique in the suite).
    pub name: String,
    /// Where its sessions come from.
    pub source: Source,
    /// The paper's task categories it exercises (a scenario's `categories`).
    pub categories: Vec<String>,
}

impl Entry {
    /// What decides its sessions, wherever the files lie: a scenario's contents and length,
    /// a recorded session's folder name.
    fn identity(&self) -> (String, String) {
        match &self.source {
            Source::Scenario {
                duration_s, digest, ..
            } => (
                self.name.clone(),
                format!("scenario {digest} {duration_s:?}"),
            ),
            Source::Session { path } => (
                self.name.clone(),
                format!("session {:?}", path.file_name().unwrap_or_default()),
            ),
        }
    }
}

/// Everything that decides a suite's results: the output folder's `plan.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// Entries, in order.
    pub entries: Vec<Entry>,
    /// Seeds each scenario is written with.
    pub seeds: Vec<u64>,
    /// Modes each session is replayed in.
    pub modes: Vec<RunMode>,
    /// Extra `vista replay` options of every cell (e.g. `--no-lm`).
    pub replay_args: Vec<String>,
    /// The glasses the scenarios' sessions imitate (`vista synth --device`).
    #[serde(default)]
    pub device: SynthDevice,
}

/// One session of a plan: an entry and its seed.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct SessionKey {
    /// The entry's name.
    pub entry: String,
    /// The seed (`None` for a recorded session).
    pub seed: Option<u64>,
}

impl fmt::Display for SessionKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.seed {
            Some(s) => write!(f, "{}-s{s}", self.entry),
            None => write!(f, "{}", self.entry),
        }
    }
}

/// One cell: a session replayed in one mode.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Cell {
    /// The session.
    pub session: SessionKey,
    /// The mode.
    pub mode: RunMode,
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.session, mode_name(self.mode))
    }
}

/// `live` or `offline`.
pub fn mode_name(mode: RunMode) -> &'static str {
    match mode {
        RunMode::Live => "live",
        RunMode::Offline => "offline",
    }
}

/// Parses `live` or `offline`.
pub fn parse_mode(s: &str) -> Option<RunMode> {
    match s {
        "live" => Some(RunMode::Live),
        "offline" => Some(RunMode::Offline),
        _ => None,
    }
}

impl Plan {
    /// The sessions, entry by entry, seeds in order.
    pub fn sessions(&self) -> Vec<SessionKey> {
        let mut out = Vec::new();
        for e in &self.entries {
            match e.source {
                Source::Scenario { .. } => {
                    for &s in &self.seeds {
                        out.push(SessionKey {
                            entry: e.name.clone(),
                            seed: Some(s),
                        });
                    }
                }
                Source::Session { .. } => out.push(SessionKey {
                    entry: e.name.clone(),
                    seed: None,
                }),
            }
        }
        out
    }

    /// Every cell, session by session, modes in the plan's order.
    pub fn cells(&self) -> Vec<Cell> {
        self.sessions()
            .into_iter()
            .flat_map(|s| {
                self.modes.iter().map(move |&mode| Cell {
                    session: s.clone(),
                    mode,
                })
            })
            .collect()
    }

    /// The entry named `name`.
    pub fn entry(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.name == name)
    }

    /// The first difference from `other`, in words (`None`: the same plan).
    pub fn difference(&self, other: &Plan) -> Option<String> {
        if self.seeds != other.seeds {
            return Some(format!("seeds {:?} vs {:?}", other.seeds, self.seeds));
        }
        if self.modes != other.modes {
            return Some(format!("modes {:?} vs {:?}", other.modes, self.modes));
        }
        if self.device != other.device {
            return Some(format!("device {:?} vs {:?}", other.device, self.device));
        }
        if self.replay_args != other.replay_args {
            return Some(format!(
                "replay options {:?} vs {:?}",
                other.replay_args, self.replay_args
            ));
        }
        let names = |p: &Plan| p.entries.iter().map(|e| e.name.clone()).collect::<Vec<_>>();
        if names(self) != names(other) {
            return Some(format!("entries {:?} vs {:?}", names(other), names(self)));
        }
        self.entries
            .iter()
            .zip(&other.entries)
            .find(|(a, b)| a.identity() != b.identity())
            .map(|(a, _)| format!("entry {} changed (its kind, length or contents)", a.name))
    }
}

/// Shard `index` (0-based) of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// 0-based.
    pub index: usize,
    /// At least 1.
    pub count: usize,
}

impl Shard {
    /// The whole suite.
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    /// Parses `I/N` (1-based `I`, as a job array numbers its tasks).
    pub fn parse(s: &str) -> Result<Shard, SuiteError> {
        let bad = || SuiteError::Shard(s.to_string());
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let i: usize = i.trim().parse().map_err(|_| bad())?;
        let n: usize = n.trim().parse().map_err(|_| bad())?;
        if n == 0 || i == 0 || i > n {
            return Err(bad());
        }
        Ok(Shard {
            index: i - 1,
            count: n,
        })
    }

    /// The sessions of this shard: every `count`-th from `index`.
    pub fn select(&self, sessions: &[SessionKey]) -> Vec<SessionKey> {
        sessions
            .iter()
            .enumerate()
            .filter(|(k, _)| k % self.count == self.index)
            .map(|(_, s)| s.clone())
            .collect()
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index + 1, self.count)
    }
}

/// FNV-1a, 64 bits, as 16 hex digits.
pub fn digest(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// The longest a scenario may be cut to in a list (`duration=`), s.
const MAX_DURATION_S: f64 = 3600.0;

/// Reads a suite: a folder of scenario files, or a list (see the module doc). Names are
/// looked up in `scenarios`; relative paths in a list are taken from the list's folder.
pub fn read_suite(suite: &Path, scenarios: &Path) -> Result<Vec<Entry>, SuiteError> {
    let entries = if suite.is_dir() {
        let files = scenario_files(suite).map_err(|e| SuiteError::Scenario {
            path: suite.to_path_buf(),
            why: e.to_string(),
        })?;
        files
            .iter()
            .map(|f| scenario_entry(f, None))
            .collect::<Result<Vec<_>, _>>()?
    } else {
        let text = std::fs::read_to_string(suite).map_err(|e| SuiteError::io(suite, e))?;
        let base = suite.parent().unwrap_or(Path::new("."));
        let mut out = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let err = |why: String| SuiteError::SuiteLine {
                path: suite.to_path_buf(),
                line: i + 1,
                why,
            };
            out.push(list_entry(line, base, scenarios).map_err(|e| match e {
                SuiteError::SuiteLine { why, .. } => err(why),
                other => err(other.to_string()),
            })?);
        }
        out
    };
    if entries.is_empty() {
        return Err(SuiteError::Suite(format!(
            "{}: the suite has no entries",
            suite.display()
        )));
    }
    for (k, e) in entries.iter().enumerate() {
        if entries[..k].iter().any(|o| o.name == e.name) {
            return Err(SuiteError::Suite(format!(
                "{}: two entries are named {}",
                suite.display(),
                e.name
            )));
        }
    }
    Ok(entries)
}

/// One line of a list.
fn list_entry(line: &str, base: &Path, scenarios: &Path) -> Result<Entry, SuiteError> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let line_err = |why: String| SuiteError::SuiteLine {
        path: PathBuf::new(),
        line: 0,
        why,
    };
    if words[0] == "session" {
        let [_, path] = words[..] else {
            return Err(line_err("want: session FOLDER".into()));
        };
        let path = resolve(base, path);
        if !path.join("ground_truth.json").is_file() {
            return Err(line_err(format!(
                "{} has no ground_truth.json",
                path.display()
            )));
        }
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .filter(|n| safe_name(n))
            .ok_or_else(|| line_err(format!("{}: not a usable folder name", path.display())))?;
        return Ok(Entry {
            name,
            source: Source::Session { path },
            categories: Vec::new(),
        });
    }
    let mut duration_s = None;
    for w in &words[1..] {
        match w.split_once('=') {
            Some(("duration", v)) => {
                let d: f64 = v
                    .parse()
                    .map_err(|_| line_err(format!("duration={v} is not a number")))?;
                if !(d.is_finite() && d > 0.0 && d <= MAX_DURATION_S) {
                    return Err(line_err(format!(
                        "duration={v} must be within (0, {MAX_DURATION_S}] s"
                    )));
                }
                duration_s = Some(d);
            }
            _ => return Err(line_err(format!("unknown option {w:?} (duration=S)"))),
        }
    }
    let word = words[0];
    let file = if word.ends_with(".json") {
        resolve(base, word)
    } else {
        let files = scenario_files(scenarios).map_err(|e| line_err(e.to_string()))?;
        files
            .into_iter()
            .find(|f| f.file_stem().is_some_and(|s| s == word))
            .ok_or_else(|| {
                line_err(format!(
                    "no scenario {word} in {} (vista synth --list)",
                    scenarios.display()
                ))
            })?
    };
    scenario_entry(&file, duration_s)
}

fn resolve(base: &Path, p: &str) -> PathBuf {
    let p = Path::new(p);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        base.join(p)
    }
}

/// Letters, digits, `-`, `_` and `.`, not starting with a dot.
fn safe_name(n: &str) -> bool {
    !n.is_empty()
        && !n.starts_with('.')
        && n.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

fn scenario_entry(file: &Path, duration_s: Option<f64>) -> Result<Entry, SuiteError> {
    let bytes = std::fs::read(file).map_err(|e| SuiteError::io(file, e))?;
    let sc = Scenario::load(file).map_err(|e| SuiteError::Scenario {
        path: file.to_path_buf(),
        why: e.to_string(),
    })?;
    let name = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|n| safe_name(n))
        .ok_or_else(|| SuiteError::Scenario {
            path: file.to_path_buf(),
            why: "not a usable file name (letters, digits, - _ .)".into(),
        })?;
    let file = std::fs::canonicalize(file).map_err(|e| SuiteError::io(file, e))?;
    Ok(Entry {
        name,
        source: Source::Scenario {
            file,
            duration_s,
            digest: digest(&bytes),
        },
        categories: sc.categories,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, session: bool) -> Entry {
        Entry {
            name: name.into(),
            source: if session {
                Source::Session {
                    path: PathBuf::from(name),
                }
            } else {
                Source::Scenario {
                    file: PathBuf::from(name),
                    duration_s: None,
                    digest: String::new(),
                }
            },
            categories: vec![],
        }
    }

    fn plan() -> Plan {
        Plan {
            entries: vec![entry("a", false), entry("rec", true), entry("b", false)],
            seeds: vec![0, 1, 2],
            modes: vec![RunMode::Live, RunMode::Offline],
            replay_args: vec![],
            device: SynthDevice::Gen1,
        }
    }

    #[test]
    fn a_recorded_session_has_no_seeds() {
        let p = plan();
        let names: Vec<String> = p.sessions().iter().map(|s| s.to_string()).collect();
        assert_eq!(
            names,
            ["a-s0", "a-s1", "a-s2", "rec", "b-s0", "b-s1", "b-s2"]
        );
        assert_eq!(p.cells().len(), 14);
        assert_eq!(p.cells()[0].to_string(), "a-s0-live");
        assert_eq!(p.cells()[7].to_string(), "rec-offline");
    }

    #[test]
    fn shards_cover_every_session_once() {
        let sessions = plan().sessions();
        for n in 1..=9 {
            let mut seen: Vec<SessionKey> = (1..=n)
                .flat_map(|i| Shard::parse(&format!("{i}/{n}")).unwrap().select(&sessions))
                .collect();
            seen.sort();
            let mut all = sessions.clone();
            all.sort();
            assert_eq!(seen, all, "{n} shards");
        }
    }

    #[test]
    fn a_shard_outside_its_count_is_refused() {
        for bad in ["0/3", "4/3", "1/0", "3", "a/b", "-1/2", ""] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(Shard::parse("2/4").unwrap(), Shard { index: 1, count: 4 });
    }

    #[test]
    fn plans_that_differ_say_how() {
        let a = plan();
        let mut b = plan();
        assert_eq!(a.difference(&b), None);
        b.replay_args = vec!["--no-lm".into()];
        assert!(a.difference(&b).unwrap().contains("replay options"));
        let mut c = plan();
        if let Source::Scenario { digest, .. } = &mut c.entries[0].source {
            *digest = "x".into();
        }
        assert!(a.difference(&c).unwrap().contains("entry a"));
    }

    #[test]
    fn a_list_names_scenarios_cuts_them_and_refuses_what_it_cannot_read() {
        let dir = tempfile::tempdir().unwrap();
        let scenarios = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
        let list = dir.path().join("suite.txt");
        std::fs::write(&list, "# two\nread_sign\n\nmixed_walk duration=90  # cut\n").unwrap();
        let e = read_suite(&list, &scenarios).unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!(e[1].name, "mixed_walk");
        assert!(matches!(e[1].source, Source::Scenario { duration_s: Some(d), .. } if d == 90.0));
        assert!(e[0].categories.iter().any(|c| c == "text understanding"));
        for (bad, says) in [
            ("nope\n", "no scenario nope"),
            ("read_sign duration=-1\n", "duration=-1"),
            ("read_sign speed=2\n", "unknown option"),
            ("session /nonexistent\n", "no ground_truth.json"),
            ("read_sign\nread_sign\n", "two entries"),
            ("# nothing\n", "no entries"),
        ] {
            std::fs::write(&list, bad).unwrap();
            let err = read_suite(&list, &scenarios).unwrap_err().to_string();
            assert!(err.contains(says), "{bad:?}: {err}");
        }
        std::fs::write(&list, "read_sign\nnope\n").unwrap();
        let err = read_suite(&list, &scenarios).unwrap_err().to_string();
        assert!(err.contains("suite.txt:2:"), "{err}");
    }
}
