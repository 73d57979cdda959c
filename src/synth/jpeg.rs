//! A minimal baseline JPEG encoder for 8-bit greyscale images (pure compute): separable
//! float DCT, the standard luminance quantisation table scaled by quality (IJG rule) and the
//! standard Huffman tables (ITU T.81 Annex K). Enough to store rendered SLAM frames the way
//! Aria records them (`image/jpg`); decoded by any JPEG reader.

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

/// Encodes a `width × height` greyscale image (row-major, `pixels.len() ≥ width·height`)
/// at `quality` 1..=100. Returns `None` for an empty image, a short buffer or a side over
/// 65535.
pub fn encode_grey(pixels: &[u8], width: usize, height: usize, quality: u8) -> Option<Vec<u8>> {
    if width == 0
        || height == 0
        || width > 65_535
        || height > 65_535
        || pixels.len() < width * height
    {
        return None;
    }
    let q = quality.clamp(1, 100) as u32;
    let scale = if q < 50 { 5000 / q } else { 200 - 2 * q };
    let qt: Vec<u16> = LUMA_Q
        .iter()
        .map(|&v| ((v as u32 * scale + 50) / 100).clamp(1, 255) as u16)
        .collect();
    let mut out = Vec::with_capacity(width * height / 4 + 1024);
    out.extend_from_slice(&[0xff, 0xd8]);
    segment(&mut out, 0xe0, b"JFIF\0\x01\x01\0\0\x01\0\x01\0\0");
    let mut dqt = vec![0u8];
    dqt.extend(ZIGZAG.iter().map(|&i| qt[i] as u8));
    segment(&mut out, 0xdb, &dqt);
    let mut sof = vec![8u8];
    sof.extend_from_slice(&(height as u16).to_be_bytes());
    sof.extend_from_slice(&(width as u16).to_be_bytes());
    sof.extend_from_slice(&[1, 1, 0x11, 0]);
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
    segment(&mut out, 0xda, &[1, 1, 0x00, 0, 63, 0]);

    let dc = huffman_codes(&DC_BITS, &DC_VALS);
    let ac = huffman_codes(&AC_BITS, &AC_VALS);
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
    let mut bits = Bits { out, acc: 0, n: 0 };
    let mut prev_dc = 0i32;
    let mut block = [0f32; 64];
    let mut tmp = [0f32; 64];
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
            // Rows, then columns.
            for y in 0..8 {
                for u in 0..8 {
                    tmp[y * 8 + u] = (0..8).map(|x| block[y * 8 + x] * cos[x][u]).sum();
                }
            }
            for u in 0..8 {
                for v in 0..8 {
                    block[v * 8 + u] = (0..8).map(|y| tmp[y * 8 + u] * cos[y][v]).sum();
                }
            }
            let coef: Vec<i32> = ZIGZAG
                .iter()
                .map(|&i| (block[i] / qt[i] as f32).round() as i32)
                .collect();
            let diff = coef[0] - prev_dc;
            prev_dc = coef[0];
            let s = category(diff);
            let (c, l) = dc[s as usize];
            bits.put(c as u32, l as u32);
            bits.put(magnitude_bits(diff, s), s);
            let mut run = 0u32;
            for &v in &coef[1..] {
                let v = v.clamp(-1023, 1023);
                if v == 0 {
                    run += 1;
                    continue;
                }
                while run >= 16 {
                    let (c, l) = ac[0xf0];
                    bits.put(c as u32, l as u32);
                    run -= 16;
                }
                let s = category(v).min(10);
                let (c, l) = ac[((run << 4) | s) as usize];
                bits.put(c as u32, l as u32);
                bits.put(magnitude_bits(v, s), s);
                run = 0;
            }
            if run > 0 {
                let (c, l) = ac[0x00];
                bits.put(c as u32, l as u32);
            }
        }
    }
    bits.flush();
    let mut out = bits.out;
    out.extend_from_slice(&[0xff, 0xd9]);
    Some(out)
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
}
