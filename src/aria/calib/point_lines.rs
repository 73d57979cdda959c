//! Points through a camera, one text line each (`vista calib --project / --unproject`):
//! `x y z` (metres, camera frame) to `u v` pixels and back to unit rays; `invalid` (or
//! `null` in JSON) for points behind the camera or outside the valid image region. Blank
//! lines and lines starting with `#` are skipped; any other malformed line is an error
//! naming its line number.

use std::io::{BufRead, Write};

use nalgebra::{Point2, Vector3};

use crate::aria::calib::CameraCalibration;

/// A malformed, unreadable or unwritable line.
#[derive(Debug, thiserror::Error)]
pub enum PointLinesError {
    /// A line could not be read.
    #[error("stdin line {line}: cannot read")]
    Read {
        /// 1-based line number.
        line: usize,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A line holds the wrong number of numbers.
    #[error("stdin line {line}: expected {expected} numbers, found {found} in {text:?}")]
    Count {
        /// 1-based line number.
        line: usize,
        /// Numbers expected.
        expected: usize,
        /// Numbers found.
        found: usize,
        /// The line, trimmed.
        text: String,
    },
    /// A field is not a finite number.
    #[error("stdin line {line}: {field:?} is not a finite number")]
    NotFinite {
        /// 1-based line number.
        line: usize,
        /// The field.
        field: String,
    },
    /// The output could not be written.
    #[error(transparent)]
    Write(#[from] std::io::Error),
}

/// Parses the `N` numbers of one input line (whitespace or comma separated); `None` when the
/// line is blank or a `#` comment.
fn parse_numbers<const N: usize>(
    line: &str,
    line_no: usize,
) -> Result<Option<[f64; N]>, PointLinesError> {
    let trimmed = line.trim();
    if trimmed.is_empty() || trimmed.starts_with('#') {
        return Ok(None);
    }
    let fields: Vec<&str> = trimmed
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|s| !s.is_empty())
        .collect();
    if fields.len() != N {
        return Err(PointLinesError::Count {
            line: line_no,
            expected: N,
            found: fields.len(),
            text: trimmed.to_string(),
        });
    }
    let mut out = [0.0; N];
    for (o, f) in out.iter_mut().zip(&fields) {
        *o = match f.parse::<f64>() {
            Ok(x) if x.is_finite() => x,
            _ => {
                return Err(PointLinesError::NotFinite {
                    line: line_no,
                    field: (*f).to_string(),
                })
            }
        };
    }
    Ok(Some(out))
}

fn write_values(out: &mut impl Write, values: Option<&[f64]>, json: bool) -> std::io::Result<()> {
    match (values, json) {
        (None, false) => writeln!(out, "invalid"),
        (None, true) => writeln!(out, "null"),
        (Some(v), false) => {
            let s: Vec<String> = v.iter().map(|x| x.to_string()).collect();
            writeln!(out, "{}", s.join(" "))
        }
        (Some(v), true) => {
            let s: Vec<String> = v.iter().map(|x| format!("{x:?}")).collect();
            writeln!(out, "[{}]", s.join(","))
        }
    }
}

/// `x y z` lines (metres, camera frame) → `u v` pixel lines (or `invalid`; with `json`,
/// `[u,v]` or `null`).
pub fn project_lines(
    cam: &CameraCalibration,
    input: impl BufRead,
    out: &mut impl Write,
    json: bool,
) -> Result<(), PointLinesError> {
    for (i, line) in input.lines().enumerate() {
        let line = line.map_err(|source| PointLinesError::Read {
            line: i + 1,
            source,
        })?;
        if let Some([x, y, z]) = parse_numbers::<3>(&line, i + 1)? {
            let uv = cam.project(&Vector3::new(x, y, z));
            write_values(out, uv.as_ref().map(|p| p.coords.as_slice()), json)?;
        }
    }
    Ok(())
}

/// `u v` pixel lines → unit ray `x y z` lines (or `invalid`; with `json`, `[x,y,z]` or
/// `null`).
pub fn unproject_lines(
    cam: &CameraCalibration,
    input: impl BufRead,
    out: &mut impl Write,
    json: bool,
) -> Result<(), PointLinesError> {
    for (i, line) in input.lines().enumerate() {
        let line = line.map_err(|source| PointLinesError::Read {
            line: i + 1,
            source,
        })?;
        if let Some([u, v]) = parse_numbers::<2>(&line, i + 1)? {
            let ray = cam.unproject(&Point2::new(u, v));
            write_values(out, ray.as_ref().map(|r| r.as_slice()), json)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_numbers_reports_line_numbers() {
        assert_eq!(parse_numbers::<2>(" 1, 2 ", 1).unwrap(), Some([1.0, 2.0]));
        assert_eq!(parse_numbers::<3>("# comment", 2).unwrap(), None);
        assert_eq!(parse_numbers::<3>("   ", 2).unwrap(), None);
        let e = parse_numbers::<3>("1 2", 7).unwrap_err().to_string();
        assert!(e.contains("line 7") && e.contains("expected 3"), "{e}");
        let e = parse_numbers::<2>("1 x", 9).unwrap_err().to_string();
        assert!(e.contains("line 9") && e.contains("\"x\""), "{e}");
        assert!(parse_numbers::<2>("1 nan", 3).is_err());
    }
}
