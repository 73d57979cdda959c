//! A minimal baseline JPEG encoder (pure compute) for 8-bit greyscale images and for RGB
//! images as YCbCr 4:2:0: separable float DCT, the standard luminance and chrominance
//! quantisation tables scaled by quality (IJG rule) and the standard luminance Huffman
//! tables (ITU T.81 Annex K) for every component. Enough to store rendered SLAM and RGB
//! frames the way Aria records them (`image/jpg`); decoded by any JPEG reader.

const ZIGZAG: [usize; 64] = [
    0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20,
    13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59,
    52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
];

/// Annex K.1 luminance quantisation table, natural order.
const LUMA_Q: [u16; 64] = [
    16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56,
    14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113,
    92, 49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
];

const DC_BITS: [u8; 16] = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0];
const DC_VALS: [u8; 12] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
const AC_BITS: [u8; 16] = [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7d];
const AC_VALS: [u8; 162] = [
    0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07,
    0x22, 0x71, 0x14, 0x32, 0x81, 0x91, 0xa1, 0x08, 0x23, 0x42, 0xb1, 0xc1, 0x15, 0x52, 0xd1, 0xf0,
    0x24, 0x33, 0x62, 0x72, 0x82, 0x09, 0x0a, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x25, 0x26, 0x27, 0x28,
    0x29, 0x2a, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49,
    0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69,
    0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89,
    0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
    0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5,
    0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe1, 0xe2,
    0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8,
    0xf9, 0xfa,
];

/// `(code, length)` per symbol.
fn huffman_codes(bits: &[u8; 16], vals: &[u8]) -> [(u16, u8); 256] {
    let mut out = [(0u16, 0u8); 256];
    let mut code = 0u16;
    let mut k = 0usize;
    for (i, &n) in bits.iter().enumerate() {
        for _ in 0..n {
            if let Some(&v) = vals.get(k) {
                out[v as usize] = (code, i as u8 + 1);
            }
            code = code.wrapping_add(1);
            k += 1;
        }
        code <<= 1;
    }
    out
}

struct Bits {
    out: Vec<u8>,
    acc: u32,
    n: u32,
}

impl Bits {
    fn put(&mut self, code: u32, len: u32) {
        if len == 0 {
            return;
        }
        self.acc = (self.acc << len) | (code & ((1 << len) - 1));
        self.n += len;
        while self.n >= 8 {
            let b = (self.acc >> (self.n - 8)) as u8;
            self.out.push(b);
            if b == 0xff {
                self.out.push(0);
            }
            self.n -= 8;
        }
        self.acc &= (1 << self.n) - 1;
    }
    fn flush(&mut self) {
        let pad = (8 - self.n % 8) % 8;
        self.put((1 << pad) - 1, pad);
    }
}

fn category(v: i32) -> u32 {
    32 - v.unsigned_abs().leading_zeros()
}

fn magnitude_bits(v: i32, size: u32) -> u32 {
    if v >= 0 {
        v as u32
    } else {
        (v + (1 << size) - 1) as u32
    }
}

fn segment(out: &mut Vec<u8>, marker: u8, body: &[u8]) {
    out.extend_from_slice(&[0xff, marker]);
    out.extend_from_slice(&((body.len() + 2) as u16).to_be_bytes());
    out.extend_from_slice(body);
}

/// Annex K.2 chrominance quantisation table, natural order.
const CHROMA_Q: [u16; 64] = [
    17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99, 24, 26, 56, 99, 99, 99, 99, 99,
    47, 66, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
    99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
];

/// A quantisation table scaled by `quality` 1..=100 (IJG rule), natural order.
fn scaled_table(base: &[u16; 64], quality: u8) -> [u16; 64] {
    let q = quality.clamp(1, 100) as u32;
    let scale = if q < 50 { 5000 / q } else { 200 - 2 * q };
    let mut out = [1u16; 64];
    for (o, &v) in out.iter_mut().zip(base) {
        *o = ((v as u32 * scale + 50) / 100).clamp(1, 255) as u16;
    }
    out
}

/// Entropy coder state of one scan: bit writer, Huffman codes, DCT basis, per-component DC
/// predictors.
struct Coder {
    bits: Bits,
    dc: [(u16, u8); 256],
    ac: [(u16, u8); 256],
    cos: [[f32; 8]; 8],
}

impl Coder {
    fn new(out: Vec<u8>) -> Self {
        let mut cos = [[0f32; 8]; 8];
        for (x, row) in cos.iter_mut().enumerate() {
            for (u, c) in row.iter_mut().enumerate() {
                let cu = if u == 0 {
                    std::f32::consts::FRAC_1_SQRT_2
                } else {
                    1.0
                };
                *c = 0.5 * cu * (((2 * x + 1) * u) as f32 * std::f32::consts::PI / 16.0).cos();
            }
        }
        Self {
            bits: Bits { out, acc: 0, n: 0 },
            dc: huffman_codes(&DC_BITS, &DC_VALS),
            ac: huffman_codes(&AC_BITS, &AC_VALS),
            cos,
        }
    }

    /// Transforms, quantises and entropy-codes one 8×8 block of level-shifted samples
    /// (`block`, natural order; overwritten), updating the DC predictor `prev_dc`.
    fn block(&mut self, block: &mut [f32; 64], qt: &[u16; 64], prev_dc: &mut i32) {
        let mut tmp = [0f32; 64];
        // Rows, then columns.
        for y in 0..8 {
            for u in 0..8 {
                let mut acc = 0f32;
                for x in 0..8 {
                    acc += block[y * 8 + x] * self.cos[x][u];
                }
                tmp[y * 8 + u] = acc;
            }
        }
        for u in 0..8 {
            for v in 0..8 {
                let mut acc = 0f32;
                for y in 0..8 {
                    acc += tmp[y * 8 + u] * self.cos[y][v];
                }
                block[v * 8 + u] = acc;
            }
        }
        let mut coef = [0i32; 64];
        for (c, &i) in coef.iter_mut().zip(ZIGZAG.iter()) {
            *c = (block[i] / qt[i] as f32).round() as i32;
        }
        let diff = coef[0] - *prev_dc;
        *prev_dc = coef[0];
        let s = category(diff);
        let (c, l) = self.dc[s as usize];
        self.bits.put(c as u32, l as u32);
        self.bits.put(magnitude_bits(diff, s), s);
        let mut run = 0u32;
        for &v in &coef[1..] {
            let v = v.clamp(-1023, 1023);
            if v == 0 {
                run += 1;
                continue;
            }
            while run >= 16 {
                let (c, l) = self.ac[0xf0];
                self.bits.put(c as u32, l as u32);
                run -= 16;
            }
            let s = category(v).min(10);
            let (c, l) = self.ac[((run << 4) | s) as usize];
            self.bits.put(c as u32, l as u32);
            self.bits.put(magnitude_bits(v, s), s);
            run = 0;
        }
        if run > 0 {
            let (c, l) = self.ac[0x00];
            self.bits.put(c as u32, l as u32);
        }
    }

    fn finish(mut self) -> Vec<u8> {
        self.bits.flush();
        let mut out = self.bits.out;
        out.extend_from_slice(&[0xff, 0xd9]);
        out
    }
}

/// SOI, JFIF, quantisation tables, SOF0 (`components`: `(id, sampling, table)`), the
/// standard Huffman tables (shared by every component) and SOS.
fn headers(
    width: usize,
    height: usize,
    tables: &[&[u16; 64]],
    components: &[(u8, u8, u8)],
) -> Vec<u8> {
    let mut out = Vec::with_capacity(width * height / 4 + 1024);
    out.extend_from_slice(&[0xff, 0xd8]);
    segment(&mut out, 0xe0, b"JFIF\0\x01\x01\0\0\x01\0\x01\0\0");
    for (id, qt) in tables.iter().enumerate() {
        let mut dqt = vec![id as u8];
        dqt.extend(ZIGZAG.iter().map(|&i| qt[i] as u8));
        segment(&mut out, 0xdb, &dqt);
    }
    let mut sof = vec![8u8];
    sof.extend_from_slice(&(height as u16).to_be_bytes());
    sof.extend_from_slice(&(width as u16).to_be_bytes());
    sof.push(components.len() as u8);
    for &(id, sampling, table) in components {
        sof.extend_from_slice(&[id, sampling, table]);
    }
    segment(&mut out, 0xc0, &sof);
    for (class, bits, vals) in [
        (0x00u8, &DC_BITS, &DC_VALS[..]),
        (0x10, &AC_BITS, &AC_VALS[..]),
    ] {
        let mut dht = vec![class];
        dht.extend_from_slice(bits);
        dht.extend_from_slice(vals);
        segment(&mut out, 0xc4, &dht);
    }
    let mut sos = vec![components.len() as u8];
    for &(id, _, _) in components {
        sos.extend_from_slice(&[id, 0x00]);
    }
    sos.extend_from_slice(&[0, 63, 0]);
    segment(&mut out, 0xda, &sos);
    out
}

fn size_ok(width: usize, height: usize) -> bool {
    width > 0 && height > 0 && width <= 65_535 && height <= 65_535
}

/// Encodes a `width × height` greyscale image (row-major, `pixels.len() ≥ width·height`)
/// at `quality` 1..=100. Returns `None` for an empty image, a short buffer or a side over
/// 65535.
pub fn encode_grey(pixels: &[u8], width: usize, height: usize, quality: u8) -> Option<Vec<u8>> {
    if !size_ok(width, height) || pixels.len() < width * height {
        return None;
    }
    let qt = scaled_table(&LUMA_Q, quality);
    let mut coder = Coder::new(headers(width, height, &[&qt], &[(1, 0x11, 0)]));
    let mut prev_dc = 0i32;
    let mut block = [0f32; 64];
    for by in (0..height).step_by(8) {
        for bx in (0..width).step_by(8) {
            for y in 0..8 {
                let sy = (by + y).min(height - 1);
                for x in 0..8 {
                    let sx = (bx + x).min(width - 1);
                    block[y * 8 + x] =
                        pixels.get(sy * width + sx).copied().unwrap_or(0) as f32 - 128.0;
                }
            }
            coder.block(&mut block, &qt, &mut prev_dc);
        }
    }
    Some(coder.finish())
}

/// Encodes a `width × height` RGB image (row-major, 3 bytes per pixel,
/// `rgb.len() ≥ 3·width·height`) at `quality` 1..=100 as baseline YCbCr 4:2:0 — the
/// layout of Aria's RGB camera JPEGs (sampling factors 2×2, 1×1, 1×1). Returns `None` for
/// an empty image, a short buffer or a side over 65535.
pub fn encode_rgb(rgb: &[u8], width: usize, height: usize, quality: u8) -> Option<Vec<u8>> {
    if !size_ok(width, height) || rgb.len() < 3 * width * height {
        return None;
    }
    let qy = scaled_table(&LUMA_Q, quality);
    let qc = scaled_table(&CHROMA_Q, quality);
    let mut coder = Coder::new(headers(
        width,
        height,
        &[&qy, &qc],
        &[(1, 0x22, 0), (2, 0x11, 1), (3, 0x11, 1)],
    ));
    let px = |x: usize, y: usize| -> [f32; 3] {
        let i = 3 * (y.min(height - 1) * width + x.min(width - 1));
        match rgb.get(i..i + 3) {
            Some(p) => [p[0] as f32, p[1] as f32, p[2] as f32],
            None => [0.0; 3],
        }
    };
    let (mut dc_y, mut dc_cb, mut dc_cr) = (0i32, 0i32, 0i32);
    let mut block = [0f32; 64];
    // One MCU: 16×16 pixels as YCbCr, chroma averaged over 2×2.
    let mut luma = [0f32; 256];
    let mut cb = [0f32; 64];
    let mut cr = [0f32; 64];
    for my in (0..height).step_by(16) {
        for mx in (0..width).step_by(16) {
            cb.fill(0.0);
            cr.fill(0.0);
            for y in 0..16 {
                for x in 0..16 {
                    let [r, g, b] = px(mx + x, my + y);
                    luma[y * 16 + x] = 0.299 * r + 0.587 * g + 0.114 * b - 128.0;
                    let c = (y / 2) * 8 + x / 2;
                    cb[c] += 0.25 * (-0.168_736 * r - 0.331_264 * g + 0.5 * b);
                    cr[c] += 0.25 * (0.5 * r - 0.418_688 * g - 0.081_312 * b);
                }
            }
            for (oy, ox) in [(0, 0), (0, 8), (8, 0), (8, 8)] {
                for y in 0..8 {
                    for x in 0..8 {
                        block[y * 8 + x] = luma[(oy + y) * 16 + ox + x];
                    }
                }
                coder.block(&mut block, &qy, &mut dc_y);
            }
            block = cb;
            coder.block(&mut block, &qc, &mut dc_cb);
            block = cr;
            coder.block(&mut block, &qc, &mut dc_cr);
        }
    }
    Some(coder.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(jpeg: &[u8]) -> (usize, usize, Vec<u8>) {
        let mut d = zune_jpeg::JpegDecoder::new(jpeg);
        let px = d.decode().unwrap();
        let (w, h) = d.dimensions().unwrap();
        (w, h, px)
    }

    fn psnr_db(a: &[u8], b: &[u8]) -> f64 {
        let mse = a
            .iter()
            .zip(b)
            .map(|(&x, &y)| (x as f64 - y as f64).powi(2))
            .sum::<f64>()
            / a.len() as f64;
        10.0 * (255.0f64.powi(2) / mse.max(1e-12)).log10()
    }

    #[test]
    fn zune_jpeg_decodes_what_we_encode() {
        // Odd size (partial blocks), smooth gradient, hard edges and saturated pixels.
        let (w, h) = (37usize, 21usize);
        let img: Vec<u8> = (0..w * h)
            .map(|i| {
                let (x, y) = (i % w, i / w);
                if (10..20).contains(&x) && (5..12).contains(&y) {
                    255
                } else if x > 30 {
                    0
                } else {
                    (x * 5 + y * 3) as u8
                }
            })
            .collect();
        for (q, min_db) in [(95u8, 35.0), (75, 28.0)] {
            let jpg = encode_grey(&img, w, h, q).unwrap();
            let (dw, dh, px) = decode(&jpg);
            assert_eq!((dw, dh), (w, h));
            assert_eq!(px.len(), w * h, "one channel");
            let db = psnr_db(&img, &px);
            assert!(db > min_db, "quality {q}: {db} dB");
        }
        assert!(encode_grey(&img, 0, h, 90).is_none());
        assert!(encode_grey(&img[..10], w, h, 90).is_none());
    }

    #[test]
    fn zune_jpeg_decodes_colour_420() {
        // Odd size (partial MCUs), colour gradients and saturated colour patches.
        let (w, h) = (45usize, 29usize);
        let mut img = vec![0u8; 3 * w * h];
        for y in 0..h {
            for x in 0..w {
                let p = &mut img[3 * (y * w + x)..3 * (y * w + x) + 3];
                if (8..24).contains(&x) && (8..20).contains(&y) {
                    p.copy_from_slice(&[200, 30, 40]);
                } else if x >= 32 {
                    p.copy_from_slice(&[20, 60, 220]);
                } else {
                    p.copy_from_slice(&[(x * 5) as u8, (y * 8) as u8, 128]);
                }
            }
        }
        let jpg = encode_rgb(&img, w, h, 92).unwrap();
        let mut d = zune_jpeg::JpegDecoder::new(&jpg);
        let px = d.decode().unwrap();
        assert_eq!(d.dimensions().unwrap(), (w, h));
        assert_eq!(px.len(), 3 * w * h, "three channels");
        // Chroma is subsampled: compare away from colour edges, per channel, and overall.
        let at = |v: &[u8], x: usize, y: usize| {
            let i = 3 * (y * w + x);
            [v[i] as i32, v[i + 1] as i32, v[i + 2] as i32]
        };
        for (x, y) in [(15, 13), (40, 5), (3, 25)] {
            let (a, b) = (at(&img, x, y), at(&px, x, y));
            for k in 0..3 {
                assert!(
                    (a[k] - b[k]).abs() <= 12,
                    "({x},{y}) channel {k}: {a:?} vs {b:?}"
                );
            }
        }
        let db = psnr_db(&img, &px);
        assert!(db > 28.0, "{db} dB");
        assert!(encode_rgb(&img[..10], w, h, 90).is_none());
    }
}
