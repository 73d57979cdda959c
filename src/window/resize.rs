//! Bilinear image resizing to RGB (pure compute), with pixel centres aligned
//! (`align_corners = false`, as OpenCV's `INTER_LINEAR` and PIL's bilinear when upscaling).

/// Resizes a tightly packed `src_w × src_h` image with `channels` (1 = grey, expanded to
/// RGB; 3 = RGB) to `dst_w × dst_h` RGB. Errors name what does not fit.
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
    if sw == 0 || sh == 0 || dst_w == 0 || dst_h == 0 {
        return Err(format!("empty image ({src_w}×{src_h} to {dst_w}×{dst_h})"));
    }
    if src.len() < sw * sh * c {
        return Err(format!(
            "{} bytes for a {src_w}×{src_h}×{channels} image",
            src.len()
        ));
    }
    let (dw, dh) = (dst_w as usize, dst_h as usize);
    let mut out = vec![0u8; dw * dh * 3];
    let axis = |d: usize, dn: usize, sn: usize| {
        let x = ((d as f64 + 0.5) * sn as f64 / dn as f64 - 0.5).clamp(0.0, (sn - 1) as f64);
        let i0 = x.floor() as usize;
        let i1 = (i0 + 1).min(sn - 1);
        (i0, i1, x - i0 as f64)
    };
    let px = |x: usize, y: usize, k: usize| -> f64 {
        let k = if c == 1 { 0 } else { k };
        src.get((y * sw + x) * c + k)
            .copied()
            .map_or(0.0, f64::from)
    };
    for y in 0..dh {
        let (y0, y1, fy) = axis(y, dh, sh);
        for x in 0..dw {
            let (x0, x1, fx) = axis(x, dw, sw);
            for k in 0..3 {
                let top = px(x0, y0, k) * (1.0 - fx) + px(x1, y0, k) * fx;
                let bot = px(x0, y1, k) * (1.0 - fx) + px(x1, y1, k) * fx;
                let v = top * (1.0 - fy) + bot * fy;
                if let Some(o) = out.get_mut((y * dw + x) * 3 + k) {
                    *o = v.round().clamp(0.0, 255.0) as u8;
                }
            }
        }
    }
    Ok(out)
}
