//! The wearer's standing settings, kept in a config file so that a run starts the way they
//! like to listen: how fast the voice speaks, how much is said and in which voice answers
//! come. The command line wins over the file, the file over the built-in defaults; "faster"
//! or "less talking" during a run changes them for that run ([`super::control`]).
//!
//! ```toml
//! [speech]
//! rate_wpm = 300        # 150 to 450
//! verbosity = "brief"   # "full", "brief" or "alerts"
//! answer_voice = "piper" # "espeak" or "piper"
//! ```
//!
//! The file is `--config FILE`, else `$VISTA_CONFIG`, else
//! `$XDG_CONFIG_HOME/vista/config.toml` (`~/.config/vista/config.toml`) when it exists. An
//! unknown key, a value of the wrong type or out of range is refused with the file, the
//! line and the range.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::control::{RATE_MAX_WPM, RATE_MIN_WPM};
use super::verbosity::Verbosity;
use crate::infer::bundle::line_col;

/// Largest config file read, bytes (it holds a few lines).
pub const MAX_SETTINGS_BYTES: u64 = 64 * 1024;

/// The settings a config file holds; what it leaves out is `None`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// How the assistant speaks.
    #[serde(default)]
    pub speech: SpeechSettings,
}

/// The `[speech]` table.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpeechSettings {
    /// Speaking rate, words per minute.
    pub rate_wpm: Option<u32>,
    /// How much is said.
    pub verbosity: Option<Verbosity>,
    /// The voice answers are said in.
    pub answer_voice: Option<crate::speech::AnswerVoice>,
}

/// Why a config file was refused.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// It could not be read.
    #[error("settings {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// It is larger than [`MAX_SETTINGS_BYTES`].
    #[error(
        "settings {path}: {bytes} bytes, more than a settings file holds ({MAX_SETTINGS_BYTES})"
    )]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size.
        bytes: u64,
    },
    /// It is not valid TOML, or holds a key or value it may not.
    #[error("settings {path}:{line}:{column}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// Line, from 1.
        line: usize,
        /// Column, from 1.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// The speaking rate is out of range.
    #[error(
        "settings {path}: speech.rate_wpm = {rate_wpm} is out of range ({RATE_MIN_WPM} to {RATE_MAX_WPM} words per minute)"
    )]
    Rate {
        /// The file.
        path: PathBuf,
        /// The value.
        rate_wpm: u32,
    },
}

impl Settings {
    /// Checks settings `text` as if read from `path`.
    pub fn parse(text: &str, path: &Path) -> Result<Self, SettingsError> {
        let s: Settings = toml::from_str(text).map_err(|e| {
            let (line, column) = e.span().map_or((0, 0), |s| line_col(text, s.start));
            SettingsError::Parse {
                path: path.to_path_buf(),
                line,
                column,
                message: e.message().trim().to_string(),
            }
        })?;
        if let Some(rate_wpm) = s.speech.rate_wpm {
            if !(RATE_MIN_WPM..=RATE_MAX_WPM).contains(&rate_wpm) {
                return Err(SettingsError::Rate {
                    path: path.to_path_buf(),
                    rate_wpm,
                });
            }
        }
        Ok(s)
    }

    /// Reads and checks the file at `path`.
    pub fn load(path: &Path) -> Result<Self, SettingsError> {
        let io = |source| SettingsError::Io {
            path: path.to_path_buf(),
            source,
        };
        let bytes = std::fs::metadata(path).map_err(io)?.len();
        if bytes > MAX_SETTINGS_BYTES {
            return Err(SettingsError::TooLarge {
                path: path.to_path_buf(),
                bytes,
            });
        }
        let text = std::fs::read_to_string(path).map_err(io)?;
        Self::parse(&text, path)
    }

    /// The settings a run starts with: `explicit` (`--config`) when given, else the file at
    /// [`default_path`] when there is one, else none.
    pub fn find(explicit: Option<&Path>) -> Result<(Self, Option<PathBuf>), SettingsError> {
        let path = match explicit {
            Some(p) => Some(p.to_path_buf()),
            None => default_path(
                std::env::var_os("VISTA_CONFIG"),
                std::env::var_os("XDG_CONFIG_HOME"),
                std::env::var_os("HOME"),
            )
            .filter(|p| p.is_file()),
        };
        match path {
            Some(p) => Ok((Self::load(&p)?, Some(p))),
            None => Ok((Self::default(), None)),
        }
    }
}

/// Where the settings file is looked for: `$VISTA_CONFIG`, else
/// `$XDG_CONFIG_HOME/vista/config.toml`, else `$HOME/.config/vista/config.toml` (an empty
/// variable counts as unset, as the XDG specification says).
pub fn default_path(
    vista_config: Option<std::ffi::OsString>,
    xdg_config_home: Option<std::ffi::OsString>,
    home: Option<std::ffi::OsString>,
) -> Option<PathBuf> {
    let set = |v: Option<std::ffi::OsString>| v.filter(|s| !s.is_empty()).map(PathBuf::from);
    if let Some(p) = set(vista_config) {
        return Some(p);
    }
    let base = set(xdg_config_home).or_else(|| set(home).map(|h| h.join(".config")))?;
    Some(base.join("vista").join("config.toml"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Settings, SettingsError> {
        Settings::parse(text, Path::new("config.toml"))
    }

    #[test]
    fn reads_rate_and_verbosity_and_leaves_out_what_is_missing() {
        let s = parse("[speech]\nrate_wpm = 300\nverbosity = \"brief\"\n").unwrap();
        assert_eq!(s.speech.rate_wpm, Some(300));
        assert_eq!(s.speech.verbosity, Some(Verbosity::Brief));
        assert_eq!(parse("").unwrap(), Settings::default());
        let only = parse("[speech]\nverbosity = \"alerts\"").unwrap();
        assert_eq!(only.speech.rate_wpm, None);
        assert_eq!(only.speech.answer_voice, None);
        let piper = parse("[speech]\nanswer_voice = \"piper\"").unwrap();
        assert_eq!(
            piper.speech.answer_voice,
            Some(crate::speech::AnswerVoice::Piper)
        );
        assert!(parse("[speech]\nanswer_voice = \"robot\"").is_err());
    }

    #[test]
    fn refuses_out_of_range_unknown_and_mistyped_values_naming_where() {
        let e = parse("[speech]\nrate_wpm = 900\n").unwrap_err().to_string();
        assert!(e.contains("150 to 450"), "{e}");
        let e = parse("[speech]\nrate_wpm = 300\nspeed = 2\n").unwrap_err();
        assert!(
            matches!(e, SettingsError::Parse { line: 3, .. }),
            "{e}: unknown key on line 3"
        );
        let e = parse("[speech]\nverbosity = \"loud\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("config.toml:2:"), "{e}");
        assert!(parse("[speech]\nrate_wpm = \"fast\"\n").is_err());
        assert!(parse("[speech]\nrate_wpm = -5\n").is_err());
        assert!(parse("[voice]\n").is_err());
    }

    #[test]
    fn the_file_is_looked_for_where_the_wearer_keeps_settings() {
        let os = |s: &str| Some(std::ffi::OsString::from(s));
        assert_eq!(
            default_path(os("/etc/v.toml"), os("/x"), os("/home/a")),
            Some(PathBuf::from("/etc/v.toml"))
        );
        assert_eq!(
            default_path(None, os("/x"), os("/home/a")),
            Some(PathBuf::from("/x/vista/config.toml"))
        );
        assert_eq!(
            default_path(os(""), os(""), os("/home/a")),
            Some(PathBuf::from("/home/a/.config/vista/config.toml"))
        );
        assert_eq!(default_path(None, None, None), None);
    }
}
