//! Sign text as a texture (pure compute once the font is loaded): each sign's text is laid
//! out with a real font (DejaVu Sans Bold by default, [`FONT_ENV`] overrides) on one to
//! three lines — whichever gives the largest letters — centred, dark ink on light paper,
//! rasterised with `ab_glyph` into a coverage mask of [`TEXELS_PER_M`] texels per metre,
//! and sampled bilinearly by the renderer.

use std::path::{Path, PathBuf};

use ab_glyph::{Font, FontVec, PxScale, ScaleFont};

use super::render::Rgb;

/// Environment variable naming the font file to use instead of [`DEFAULT_FONT`].
pub const FONT_ENV: &str = "VISTA_FONT";
/// The default font (Debian `fonts-dejavu-core`, installed by `scripts/setup.sh`).
pub const DEFAULT_FONT: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf";
/// Texture resolution, texels per metre of sign (2.5 mm texels).
pub const TEXELS_PER_M: f64 = 400.0;
/// Share of the sign's height the text block may take.
pub const TEXT_HEIGHT_SHARE: f32 = 0.72;
/// Share of the sign's width a line may take.
pub const TEXT_WIDTH_SHARE: f32 = 0.9;
/// Ink colour (near-black).
pub const INK_RGB: Rgb = [0.06, 0.06, 0.08];
/// Paper colour (near-white, the sign's colour).
pub const PAPER_RGB: Rgb = super::render::SIGN_RGB;
/// Largest texture side, texels (a bound on memory for absurd sign sizes).
pub const MAX_TEXELS: usize = 4096;

/// Errors loading the font or laying out a sign.
#[derive(Debug, thiserror::Error)]
pub enum TextError {
    /// The font file cannot be read.
    #[error("font {}: {source} (install fonts-dejavu-core, or set {FONT_ENV} to a .ttf file)", path.display())]
    Read {
        /// The font file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not a font `ab_glyph` can read.
    #[error("font {}: not a TrueType/OpenType font", path.display())]
    Invalid {
        /// The font file.
        path: PathBuf,
    },
}

/// A loaded font and where it came from.
#[derive(Debug)]
pub struct SignFont {
    font: FontVec,
    /// The file it was read from.
    pub path: PathBuf,
}

impl SignFont {
    /// Loads [`FONT_ENV`] if set, else [`DEFAULT_FONT`].
    pub fn load_default() -> Result<Self, TextError> {
        let path = std::env::var_os(FONT_ENV)
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(DEFAULT_FONT));
        Self::load(&path)
    }

    /// Loads the font file at `path`.
    pub fn load(path: &Path) -> Result<Self, TextError> {
        let data = std::fs::read(path).map_err(|source| TextError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let font = FontVec::try_from_vec(data).map_err(|_| TextError::Invalid {
            path: path.to_path_buf(),
        })?;
        Ok(Self {
            font,
            path: path.to_path_buf(),
        })
    }

    /// Width of `line` at scale 1 px per em unit of `PxScale(1)`, px.
    fn line_width(&self, line: &str, scale: f32) -> f32 {
        let f = self.font.as_scaled(PxScale::from(scale));
        let mut w = 0.0;
        let mut prev = None;
        for c in line.chars() {
            let id = f.glyph_id(c);
            if let Some(p) = prev {
                w += f.kern(p, id);
            }
            w += f.h_advance(id);
            prev = Some(id);
        }
        w
    }
}

/// A sign texture: ink coverage per texel (row-major, row 0 at the top), ink and paper
/// colours.
#[derive(Debug, Clone, PartialEq)]
pub struct Texture {
    /// Width, texels.
    pub width: usize,
    /// Height, texels.
    pub height: usize,
    /// Ink coverage, 0 (paper) ..= 255 (ink).
    pub coverage: Vec<u8>,
    /// Ink colour.
    pub ink: Rgb,
    /// Paper colour.
    pub paper: Rgb,
    /// The text's lines as laid out.
    pub lines: Vec<String>,
    /// Cap height of the letters on the sign, m (how large the text is in the world).
    pub cap_height_m: f64,
    /// A photograph's colours per texel (row-major, row 0 at the top), used instead of ink
    /// and paper when not empty ([`Texture::photo`]).
    pub rgb: Vec<Rgb>,
}

impl Texture {
    /// A photograph of `width × height` texels with colours `rgb` (row-major, top first).
    pub fn photo(width: usize, height: usize, rgb: Vec<Rgb>) -> Self {
        Self {
            width,
            height,
            coverage: Vec::new(),
            ink: PAPER_RGB,
            paper: PAPER_RGB,
            lines: Vec::new(),
            cap_height_m: 0.0,
            rgb,
        }
    }

    /// Colour at texture coordinates `(s, t)` ∈ [0, 1]² (`t = 0` the top), bilinear.
    pub fn sample(&self, s: f64, t: f64) -> Rgb {
        if self.width == 0 || self.height == 0 {
            return self.paper;
        }
        let x = (s.clamp(0.0, 1.0) * self.width as f64 - 0.5).max(0.0);
        let y = (t.clamp(0.0, 1.0) * self.height as f64 - 0.5).max(0.0);
        let (x0, y0) = (x.floor() as usize, y.floor() as usize);
        let (fx, fy) = ((x - x0 as f64) as f32, (y - y0 as f64) as f32);
        let x1 = (x0 + 1).min(self.width - 1);
        let y1 = (y0 + 1).min(self.height - 1);
        if !self.rgb.is_empty() {
            let at = |x: usize, y: usize| {
                self.rgb
                    .get(y * self.width + x)
                    .copied()
                    .unwrap_or(self.paper)
            };
            let (a, b, c, d) = (at(x0, y0), at(x1, y0), at(x0, y1), at(x1, y1));
            let mix = |k: usize| {
                let top = a[k] * (1.0 - fx) + b[k] * fx;
                let bottom = c[k] * (1.0 - fx) + d[k] * fx;
                top * (1.0 - fy) + bottom * fy
            };
            return [mix(0), mix(1), mix(2)];
        }
        let at = |x: usize, y: usize| {
            self.coverage
                .get(y * self.width + x)
                .map_or(0.0, |&c| c as f32 / 255.0)
        };
        let top = at(x0, y0) * (1.0 - fx) + at(x1, y0) * fx;
        let bottom = at(x0, y1) * (1.0 - fx) + at(x1, y1) * fx;
        let a = top * (1.0 - fy) + bottom * fy;
        [
            self.paper[0] + (self.ink[0] - self.paper[0]) * a,
            self.paper[1] + (self.ink[1] - self.paper[1]) * a,
            self.paper[2] + (self.ink[2] - self.paper[2]) * a,
        ]
    }
}

/// Splits `text` into `n` lines of whole words with the most even character counts
/// (greedy: each line takes words until it reaches the remaining average).
pub fn split_lines(text: &str, n: usize) -> Vec<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let n = n.clamp(1, words.len().max(1));
    let mut lines: Vec<String> = Vec::with_capacity(n);
    let mut rest = words.as_slice();
    for k in 0..n {
        let left = n - k;
        if left == 1 {
            lines.push(rest.join(" "));
            break;
        }
        let remaining: usize = rest.iter().map(|w| w.len() + 1).sum();
        let target = remaining as f64 / left as f64;
        let mut len = 0usize;
        let mut take = 0usize;
        // Leave at least one word for each later line.
        while take < rest.len().saturating_sub(left - 1) {
            let Some(w) = rest.get(take) else { break };
            let next = len + w.len() + 1;
            if take > 0 && (next as f64 - target).abs() > (len as f64 - target).abs() {
                break;
            }
            len = next;
            take += 1;
        }
        let (line, tail) = rest.split_at(take.max(1).min(rest.len()));
        lines.push(line.join(" "));
        rest = tail;
    }
    lines.retain(|l| !l.is_empty());
    lines
}

/// Lays out and rasterises `text` for a sign of `size_m` (`[width, height]`).
pub fn sign_texture(font: &SignFont, text: &str, size_m: [f64; 2]) -> Texture {
    let w = ((size_m[0] * TEXELS_PER_M).round() as usize).clamp(1, MAX_TEXELS);
    let h = ((size_m[1] * TEXELS_PER_M).round() as usize).clamp(1, MAX_TEXELS);
    let mut coverage = vec![0u8; w * h];
    // Choose the line count giving the largest letters.
    let f1 = font.font.as_scaled(PxScale::from(1.0));
    let line_h1 = f1.ascent() - f1.descent();
    let mut best: Option<(f32, Vec<String>)> = None;
    for n in 1..=3 {
        let lines = split_lines(text, n);
        if lines.is_empty() || (n > 1 && lines.len() < n) {
            continue;
        }
        let widest = lines
            .iter()
            .map(|l| font.line_width(l, 1.0))
            .fold(0.0f32, f32::max);
        let by_h = TEXT_HEIGHT_SHARE * h as f32 / (line_h1 * lines.len() as f32);
        let by_w = if widest > 0.0 {
            TEXT_WIDTH_SHARE * w as f32 / widest
        } else {
            by_h
        };
        let s = by_h.min(by_w);
        if best.as_ref().is_none_or(|b| s > b.0) {
            best = Some((s, lines));
        }
    }
    let (scale, lines) = best.unwrap_or((1.0, Vec::new()));
    let f = font.font.as_scaled(PxScale::from(scale));
    let line_h = f.ascent() - f.descent();
    let block_h = line_h * lines.len() as f32;
    let top = (h as f32 - block_h) / 2.0;
    for (k, line) in lines.iter().enumerate() {
        let lw = font.line_width(line, scale);
        let mut x = (w as f32 - lw) / 2.0;
        let baseline = top + k as f32 * line_h + f.ascent();
        let mut prev = None;
        for c in line.chars() {
            let id = f.glyph_id(c);
            if let Some(p) = prev {
                x += f.kern(p, id);
            }
            let glyph = id.with_scale_and_position(scale, ab_glyph::point(x, baseline));
            x += f.h_advance(id);
            prev = Some(id);
            let Some(outline) = font.font.outline_glyph(glyph) else {
                continue;
            };
            let b = outline.px_bounds();
            outline.draw(|gx, gy, cov| {
                let px = b.min.x as i64 + gx as i64;
                let py = b.min.y as i64 + gy as i64;
                if px < 0 || py < 0 || px >= w as i64 || py >= h as i64 {
                    return;
                }
                if let Some(t) = coverage.get_mut(py as usize * w + px as usize) {
                    let v = (cov.clamp(0.0, 1.0) * 255.0).round() as u8;
                    *t = (*t).max(v);
                }
            });
        }
    }
    // Cap height: the height of "H" at this scale, in texels, to metres.
    let cap_px = font
        .font
        .outline_glyph(f.glyph_id('H').with_scale(scale))
        .map_or(0.0, |o| o.px_bounds().height());
    Texture {
        width: w,
        height: h,
        coverage,
        ink: INK_RGB,
        paper: PAPER_RGB,
        lines,
        cap_height_m: cap_px as f64 / TEXELS_PER_M,
        rgb: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_on_words_evenly() {
        assert_eq!(split_lines("EXIT", 1), vec!["EXIT"]);
        assert_eq!(split_lines("EXIT", 3), vec!["EXIT"]);
        assert_eq!(
            split_lines("Trains to Central every 10 min", 2),
            vec!["Trains to Central", "every 10 min"]
        );
        let three = split_lines("Trains to Central every 10 min", 3);
        assert_eq!(three.len(), 3);
        assert_eq!(three.join(" "), "Trains to Central every 10 min");
        assert!(split_lines("", 2).is_empty());
    }

    #[test]
    fn missing_font_is_a_clear_error() {
        let e = SignFont::load(Path::new("/no/such/font.ttf")).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("/no/such/font.ttf") && msg.contains(FONT_ENV),
            "{msg}"
        );
    }
}
