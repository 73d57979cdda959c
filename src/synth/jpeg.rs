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

/// AAN scale factors of the 1-D float DCT (`1` for `k = 0`, `√2·cos(kπ/16)` otherwise):
/// [`fdct_aan`] leaves coefficient `(u, v)` multiplied by `8 · AAN[u] · AAN[v]`.
const AAN: [f32; 8] = [
    1.0,
    1.387_039_8,
    1.306_563,
    1.175_875_6,
    1.0,
    0.785_694_96,
    0.541_196_1,
    0.275_899_38,
];

/// The reciprocal divisors of a quantisation table for [`fdct_aan`]'s output, natural
/// order: `1 / (q · 8 · AAN[u] · AAN[v])` (the IJG float method).
fn aan_divisors(qt: &[u16; 64]) -> [f32; 64] {
    let mut out = [0f32; 64];
    for (i, o) in out.iter_mut().enumerate() {
        let (v, u) = (i / 8, i % 8);
        *o = 1.0 / (f32::from(qt[i]) * 8.0 * AAN[u] * AAN[v]);
    }
    out
}

/// One 8-point AAN forward DCT (Arai, Agui, Nakajima; the IJG `jfdctflt` flow graph) on
/// `d[0], d[s], …, d[7s]`, in place, unscaled (see [`AAN`]).
#[inline(always)]
fn dct8(d: &mut [f32; 64], o: usize, s: usize) {
    let at = |k: usize| o + k * s;
    let (d0, d1, d2, d3) = (d[at(0)], d[at(1)], d[at(2)], d[at(3)]);
    let (d4, d5, d6, d7) = (d[at(4)], d[at(5)], d[at(6)], d[at(7)]);
    let (t0, t7) = (d0 + d7, d0 - d7);
    let (t1, t6) = (d1 + d6, d1 - d6);
    let (t2, t5) = (d2 + d5, d2 - d5);
    let (t3, t4) = (d3 + d4, d3 - d4);
    // Even part.
    let (t10, t13) = (t0 + t3, t0 - t3);
    let (t11, t12) = (t1 + t2, t1 - t2);
    d[at(0)] = t10 + t11;
    d[at(4)] = t10 - t11;
    let z1 = (t12 + t13) * std::f32::consts::FRAC_1_SQRT_2;
    d[at(2)] = t13 + z1;
    d[at(6)] = t13 - z1;
    // Odd part.
    let (t10, t11, t12) = (t4 + t5, t5 + t6, t6 + t7);
    let z5 = (t10 - t12) * 0.382_683_43;
    let z2 = 0.541_196_1 * t10 + z5;
    let z4 = 1.306_563 * t12 + z5;
    let z3 = t11 * std::f32::consts::FRAC_1_SQRT_2;
    let (z11, z13) = (t7 + z3, t7 - z3);
    d[at(5)] = z13 + z2;
    d[at(3)] = z13 - z2;
    d[at(1)] = z11 + z4;
    d[at(7)] = z11 - z4;
}

/// The forward DCT of an 8×8 block (natural order, in place), each coefficient scaled by
/// `8 · AAN[u] · AAN[v]` ([`aan_divisors`] undoes it while quantising).
fn fdct_aan(block: &mut [f32; 64]) {
    for row in 0..8 {
        dct8(block, row * 8, 1);
    }
    for col in 0..8 {
        dct8(block, col, 8);
    }
}

/// A quantisation table ready for encoding: the table (for the DQT segment) and the
/// divisors of [`fdct_aan`]'s output.
struct Quant {
    table: [u16; 64],
    div: [f32; 64],
}

impl Quant {
    fn new(base: &[u16; 64], quality: u8) -> Self {
        let table = scaled_table(base, quality);
        Self {
            div: aan_divisors(&table),
            table,
        }
    }
}

/// Entropy coder state of one scan: bit writer and Huffman codes.
struct Coder {
    bits: Bits,
    dc: [(u16, u8); 256],
    ac: [(u16, u8); 256],
}

impl Coder {
    fn new(out: Vec<u8>) -> Self {
        Self {
            bits: Bits { out, acc: 0, n: 0 },
            dc: huffman_codes(&DC_BITS, &DC_VALS),
            ac: huffman_codes(&AC_BITS, &AC_VALS),
        }
    }

    /// Transforms, quantises and entropy-codes one 8×8 block of level-shifted samples
    /// (`block`, natural order; overwritten), updating the DC predictor `prev_dc`.
    fn block(&mut self, block: &mut [f32; 64], q: &Quant, prev_dc: &mut i32) {
        fdct_aan(block);
        let mut coef = [0i32; 64];
        for (c, &i) in coef.iter_mut().zip(ZIGZAG.iter()) {
            *c = (block[i] * q.div[i]).round_ties_even() as i32;
        }
        self.code(&coef, prev_dc);
    }

    /// Entropy-codes one block of quantised coefficients (zigzag order).
    fn code(&mut self, coef: &[i32; 64], prev_dc: &mut i32) {
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
    let q = Quant::new(&LUMA_Q, quality);
    let mut coder = Coder::new(headers(width, height, &[&q.table], &[(1, 0x11, 0)]));
    let mut prev_dc = 0i32;
    let mut block = [0f32; 64];
    for by in (0..height).step_by(8) {
        for bx in (0..width).step_by(8) {
            for (y, dst) in block.chunks_exact_mut(8).enumerate() {
                let sy = (by + y).min(height - 1);
                let row = pixels.get(sy * width..(sy + 1) * width).unwrap_or(&[]);
                for (x, d) in dst.iter_mut().enumerate() {
                    let sx = (bx + x).min(width - 1);
                    *d = f32::from(row.get(sx).copied().unwrap_or(0)) - 128.0;
                }
            }
            coder.block(&mut block, &q, &mut prev_dc);
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
    let qy = Quant::new(&LUMA_Q, quality);
    let qc = Quant::new(&CHROMA_Q, quality);
    let mut coder = Coder::new(headers(
        width,
        height,
        &[&qy.table, &qc.table],
        &[(1, 0x22, 0), (2, 0x11, 1), (3, 0x11, 1)],
    ));
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
            for (y, lrow) in luma.chunks_exact_mut(16).enumerate() {
                let sy = (my + y).min(height - 1);
                let row = rgb.get(3 * sy * width..3 * (sy + 1) * width).unwrap_or(&[]);
                let c0 = (y / 2) * 8;
                for (x, l) in lrow.iter_mut().enumerate() {
                    let sx = 3 * (mx + x).min(width - 1);
                    let [r, g, b] = match row.get(sx..sx + 3) {
                        Some(p) => [f32::from(p[0]), f32::from(p[1]), f32::from(p[2])],
                        None => [0.0; 3],
                    };
                    *l = 0.299 * r + 0.587 * g + 0.114 * b - 128.0;
                    let c = c0 + x / 2;
                    cb[c] += 0.25 * (-0.168_736 * r - 0.331_264 * g + 0.5 * b);
                    cr[c] += 0.25 * (0.5 * r - 0.418_688 * g - 0.081_312 * b);
                }
            }
            for (oy, ox) in [(0, 0), (0, 8), (8, 0), (8, 8)] {
                for (y, dst) in block.chunks_exact_mut(8).enumerate() {
                    let src = (oy + y) * 16 + ox;
                    dst.copy_from_slice(&luma[src..src + 8]);
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

    /// The textbook 2-D DCT of T.81 (A.3.3) of a level-shifted block, natural order.
    fn reference_dct(block: &[f32; 64]) -> [f64; 64] {
        let c = |k: usize| {
            if k == 0 {
                std::f64::consts::FRAC_1_SQRT_2
            } else {
                1.0
            }
        };
        let mut out = [0f64; 64];
        for v in 0..8 {
            for u in 0..8 {
                let mut acc = 0.0;
                for y in 0..8 {
                    for x in 0..8 {
                        acc += f64::from(block[y * 8 + x])
                            * (((2 * x + 1) * u) as f64 * std::f64::consts::PI / 16.0).cos()
                            * (((2 * y + 1) * v) as f64 * std::f64::consts::PI / 16.0).cos();
                    }
                }
                out[v * 8 + u] = 0.25 * c(u) * c(v) * acc;
            }
        }
        out
    }

    #[test]
    fn the_fast_dct_matches_the_textbook_dct() {
        let mut rng = crate::synth::SplitMix64::new(7);
        let ones = [1u16; 64];
        let q = aan_divisors(&ones);
        for _ in 0..50 {
            let mut block = [0f32; 64];
            for v in block.iter_mut() {
                *v = (rng.uniform() * 255.0 - 128.0) as f32;
            }
            let want = reference_dct(&block);
            fdct_aan(&mut block);
            for i in 0..64 {
                let got = f64::from(block[i] * q[i]);
                assert!(
                    (got - want[i]).abs() < 2e-3,
                    "coefficient {i}: {got} vs {}",
                    want[i]
                );
            }
        }
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
