//! Image resizing to RGB (pure compute): PIL's `Image.resize(..., BILINEAR)` — a separable
//! triangle filter whose support widens with the downscale factor (antialiased), pixel
//! centres aligned, horizontal pass then vertical with 8-bit rounding in between. The
//! vision-language backbones' preprocessors resize with PIL, so frames made here look like
//! the frames the models were trained on.

/// Per output pixel: the first input index and the normalised weights.
struct Coeffs {
    start: Vec<usize>,
    len: Vec<usize>,
    taps: usize,
    weights: Vec<f32>,
}

impl Coeffs {
    /// Output pixel `i`'s first input index and its weights (exactly its taps).
    fn get(&self, i: usize) -> (usize, &[f32]) {
        let x0 = self.start.get(i).copied().unwrap_or(0);
        let n = self.len.get(i).copied().unwrap_or(0);
        let w = self
            .weights
            .get(i * self.taps..i * self.taps + n)
            .unwrap_or(&[]);
        (x0, w)
    }
}

/// PIL `precompute_coeffs` for the triangle filter (support 1).
fn coeffs(in_size: usize, out_size: usize) -> Coeffs {
    let scale = in_size as f64 / out_size as f64;
    let filterscale = scale.max(1.0);
    let support = filterscale;
    let taps = (support.ceil() as usize) * 2 + 1;
    let mut start = Vec::with_capacity(out_size);
    let mut len = Vec::with_capacity(out_size);
    let mut weights = vec![0f32; out_size * taps];
    for xx in 0..out_size {
        let center = (xx as f64 + 0.5) * scale;
        // C casts truncate toward zero.
        let xmin = ((center - support + 0.5).trunc() as i64).max(0) as usize;
        let xmax = ((center + support + 0.5).trunc() as i64).min(in_size as i64) as usize;
        let n = xmax.saturating_sub(xmin).min(taps);
        let mut w = [0f64; 64];
        let mut total = 0.0;
        for (x, wx) in w.iter_mut().enumerate().take(n.min(64)) {
            let d = ((x + xmin) as f64 - center + 0.5) / filterscale;
            *wx = (1.0 - d.abs()).max(0.0);
            total += *wx;
        }
        if let Some(row) = weights.get_mut(xx * taps..(xx + 1) * taps) {
            for (dst, &src) in row.iter_mut().zip(w.iter()).take(n) {
                *dst = if total > 0.0 {
                    (src / total) as f32
                } else {
                    0.0
                };
            }
        }
        start.push(xmin);
        len.push(n.min(64));
    }
    Coeffs {
        start,
        len,
        taps,
        weights,
    }
}

fn to_u8(v: f32) -> u8 {
    v.round().clamp(0.0, 255.0) as u8
}

/// Resizes a tightly packed `src_w × src_h` image with `channels` (1 = grey, expanded to
/// RGB; 3 = RGB) to `dst_w × dst_h` RGB. Errors name what does not fit. Downscaling by
/// more than ~30× is refused (the filter would need more than 64 taps).
pub fn resize_bilinear(
    src: &[u8],
    src_w: u32,
    src_h: u32,
    channels: u8,
    dst_w: u32,
    dst_h: u32,
) -> Result<Vec<u8>, String> {
    let (sw, sh, c) = (src_w as usize, src_h as usize, channels as usize);
    if c != 1 && c != 3 {
        return Err(format!("{channels} channels (expected 1 or 3)"));
    }
    let (dw, dh) = (dst_w as usize, dst_h as usize);
    if sw == 0 || sh == 0 || dw == 0 || dh == 0 {
        return Err(format!("empty image ({src_w}×{src_h} to {dst_w}×{dst_h})"));
    }
    if sw > 30 * dw || sh > 30 * dh {
        return Err(format!(
            "downscale {src_w}×{src_h} to {dst_w}×{dst_h} exceeds 30×"
        ));
    }
    if src.len() < sw * sh * c {
        return Err(format!(
            "{} bytes for a {src_w}×{src_h}×{channels} image",
            src.len()
        ));
    }
    // Horizontal pass: sh rows of dw RGB pixels.
    let h = coeffs(sw, dw);
    let mut mid = vec![0u8; sh * dw * 3];
    for (y, dst_row) in mid.chunks_exact_mut(dw * 3).enumerate() {
        let Some(row) = src.get(y * sw * c..(y + 1) * sw * c) else {
            continue;
        };
        for (x, dst) in dst_row.chunks_exact_mut(3).enumerate() {
            let (x0, w) = h.get(x);
            let acc = if c == 1 {
                let px = row.get(x0..x0 + w.len()).unwrap_or(&[]);
                let v: f32 = w.iter().zip(px).map(|(wt, &p)| wt * f32::from(p)).sum();
                [v; 3]
            } else {
                let px = row.get(x0 * 3..(x0 + w.len()) * 3).unwrap_or(&[]);
                let mut a = [0f32; 3];
                for (wt, p) in w.iter().zip(px.chunks_exact(3)) {
                    if let [r, g, b] = p {
                        a[0] += wt * f32::from(*r);
                        a[1] += wt * f32::from(*g);
                        a[2] += wt * f32::from(*b);
                    }
                }
                a
            };
            for (d, a) in dst.iter_mut().zip(acc) {
                *d = to_u8(a);
            }
        }
    }
    // Vertical pass.
    let v = coeffs(sh, dh);
    let mut out = vec![0u8; dw * dh * 3];
    let mut acc = vec![0f32; dw * 3];
    for y in 0..dh {
        acc.fill(0.0);
        let (y0, w) = v.get(y);
        for (t, &wt) in w.iter().enumerate() {
            let r = y0 + t;
            let Some(row) = mid.get(r * dw * 3..(r + 1) * dw * 3) else {
                continue;
            };
            for (a, &p) in acc.iter_mut().zip(row) {
                *a += wt * f32::from(p);
            }
        }
        if let Some(dst) = out.get_mut(y * dw * 3..(y + 1) * dw * 3) {
            for (d, &a) in dst.iter_mut().zip(acc.iter()) {
                *d = to_u8(a);
            }
        }
    }
    Ok(out)
}
