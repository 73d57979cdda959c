//! Turning read lines into [`TextFact`]s: frame orientation (Aria's RGB camera is mounted a
//! quarter turn, so its frames are read upright after a clockwise turn), the box in the
//! recorded frame, the clock direction of its centre, whether the wearer looks at it, and
//! the filters that keep guesses away from the user.

use super::bearing::RgbGeometry;
use super::engine::TextLine;
use super::geometry::quad_bounds;
pub use crate::aria::recording::orientation::Orientation;
use crate::state::{ClockHour, TextFact};
use crate::time::DeviceTime;

/// What is kept and how it is placed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FactFilter {
    /// Lines recognised with less confidence are dropped (0.8: a wrong sign read aloud is
    /// worse than none; RapidOCR's own cut is 0.5).
    pub min_confidence: f32,
    /// Lines with fewer non-space characters are dropped (2: single glyphs are mostly noise
    /// on textures; a lone digit on a sign is lost, see the report).
    pub min_chars: usize,
    /// A box counts as looked at when the gaze pixel is within this margin of it (40 px in
    /// the 1408² frame, about 2.4°).
    pub gaze_margin_px: f32,
}

impl Default for FactFilter {
    fn default() -> Self {
        Self {
            min_confidence: 0.8,
            min_chars: 2,
            gaze_margin_px: 40.0,
        }
    }
}

/// Facts from lines read in the upright image of a recorded `raw_w × raw_h` frame.
/// `gaze_px` is in the recorded frame. Returns the facts and how many lines were filtered.
#[allow(clippy::too_many_arguments)]
pub fn facts_from_lines(
    lines: &[TextLine],
    orientation: Orientation,
    raw_h: u32,
    geometry: Option<&RgbGeometry>,
    gaze_px: Option<[f32; 2]>,
    at: DeviceTime,
    filter: &FactFilter,
) -> (Vec<TextFact>, usize) {
    let mut out = Vec::new();
    let mut filtered = 0;
    for l in lines {
        let text = l.text.trim();
        let chars = text.chars().filter(|c| !c.is_whitespace()).count();
        let confident = l.confidence.is_finite() && l.confidence >= filter.min_confidence;
        if !confident || chars < filter.min_chars {
            filtered += 1;
            continue;
        }
        let mut q = l.quad;
        for p in &mut q {
            *p = orientation.to_recorded(*p, raw_h);
        }
        let b = quad_bounds(&q);
        let centre = [(b[0] + b[2]) * 0.5, (b[1] + b[3]) * 0.5];
        let clock = geometry
            .and_then(|g| g.clock(centre))
            .unwrap_or_else(|| ClockHour::new(12));
        let m = filter.gaze_margin_px;
        let gazed = gaze_px.is_some_and(|g| {
            g[0] >= b[0] - m && g[0] <= b[2] + m && g[1] >= b[1] - m && g[1] <= b[3] + m
        });
        out.push(TextFact {
            text: text.to_string(),
            confidence: l.confidence,
            clock,
            distance_m: None,
            rgb_box: b,
            gazed,
            at,
        });
    }
    (out, filtered)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str, confidence: f32, quad: [[f32; 2]; 4]) -> TextLine {
        TextLine {
            quad,
            text: text.into(),
            confidence,
            det_score: 0.9,
        }
    }

    #[test]
    fn orientation_round_trips_and_turns_the_right_way() {
        let o = Orientation::RotateCw90;
        // Raw top-left (0, 0) of a 1408-high frame is the upright top-right (1407, 0).
        assert_eq!(o.to_upright([0.0, 0.0], 1408), [1407.0, 0.0]);
        let p = [123.5, 456.0];
        assert_eq!(o.to_recorded(o.to_upright(p, 1408), 1408), p);
        assert_eq!(Orientation::AsRecorded.to_upright(p, 10), p);
    }

    #[test]
    fn weak_and_short_lines_are_dropped_and_gaze_marks_the_box() {
        let q = [[100.0, 50.0], [300.0, 50.0], [300.0, 90.0], [100.0, 90.0]];
        let lines = vec![
            line("Gate 12", 0.95, q),
            line("x", 0.99, q),
            line("blur", 0.6, q),
            line("NaN", f32::NAN, q),
        ];
        let (facts, filtered) = facts_from_lines(
            &lines,
            Orientation::AsRecorded,
            400,
            None,
            Some([320.0, 60.0]),
            DeviceTime(5),
            &FactFilter::default(),
        );
        assert_eq!(filtered, 3);
        assert_eq!(facts.len(), 1);
        let f = &facts[0];
        assert_eq!(f.text, "Gate 12");
        assert_eq!(f.rgb_box, [100.0, 50.0, 300.0, 90.0]);
        assert!(f.gazed);
        assert_eq!(f.clock.get(), 12);
        assert_eq!(f.at, DeviceTime(5));
    }

    #[test]
    fn boxes_return_to_the_recorded_frame() {
        // An upright box at x 1000..1200, y 100..140 in the turned 1408² frame.
        let q = [
            [1000.0, 100.0],
            [1200.0, 100.0],
            [1200.0, 140.0],
            [1000.0, 140.0],
        ];
        let (facts, _) = facts_from_lines(
            &[line("EXIT", 0.99, q)],
            Orientation::RotateCw90,
            1408,
            None,
            None,
            DeviceTime(0),
            &FactFilter::default(),
        );
        // Raw u = upright y, raw v = 1407 − upright x.
        assert_eq!(facts[0].rgb_box, [100.0, 207.0, 140.0, 407.0]);
        assert!(!facts[0].gazed);
    }
}
