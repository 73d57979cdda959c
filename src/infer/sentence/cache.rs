//! The vectors of a fixed list of sentences, computed once and kept in a file beside the
//! model (~2.5 s of one core for 250 sentences, then ~1 ms to read back).
//!
//! The file is named by a hash of the sentences and holds, after a header, the vector of a
//! probe sentence and then one vector per sentence (`f32`, little-endian). It is used only
//! when the encoder gives the probe the same vector now (the same weights and arithmetic,
//! within 1e-4); anything else (a missing, short, damaged or stale file) is recomputed and
//! rewritten (atomically: a temporary file renamed). A folder that cannot be written only
//! costs the time.

use std::path::{Path, PathBuf};

use super::encoder::SentenceEncoder;

const MAGIC: &[u8; 8] = b"VSENTV01";

/// The probe whose vector vouches for the file.
const PROBE: &str = "Is the way ahead clear of obstacles?";

/// Largest difference per component between the probe's stored and current vector.
const PROBE_TOLERANCE: f32 = 1e-4;

/// 64-bit FNV-1a (stable across builds, unlike `DefaultHasher`).
fn fnv1a(bytes: impl IntoIterator<Item = u8>) -> u64 {
    bytes.into_iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The cache file for `texts` in `dir`.
pub fn cache_path(dir: &Path, texts: &[&str]) -> PathBuf {
    let h = fnv1a(texts.iter().flat_map(|t| t.bytes().chain([0u8])));
    dir.join(format!("sentences-{h:016x}.f32"))
}

/// Where the vectors of `texts` came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// Read from the file.
    File,
    /// Computed now (and written when the folder allowed).
    Computed,
}

/// The vectors of `texts`, from the file in `dir` when it is valid, else computed (and
/// written there).
pub fn embed_all(
    encoder: &SentenceEncoder,
    texts: &[&str],
    dir: Option<&Path>,
) -> (Vec<Vec<f32>>, Source) {
    let probe = encoder.embed(PROBE);
    let path = dir.map(|d| cache_path(d, texts));
    if let Some(v) = path
        .as_deref()
        .and_then(|p| read(p, &probe, texts.len(), encoder.width()))
    {
        return (v, Source::File);
    }
    let vectors: Vec<Vec<f32>> = texts.iter().map(|t| encoder.embed(t)).collect();
    if let Some(p) = &path {
        if let Err(e) = write(p, &probe, &vectors) {
            log::debug!("{}: not kept: {e}", p.display());
        }
    }
    (vectors, Source::Computed)
}

fn read(path: &Path, probe: &[f32], n: usize, width: usize) -> Option<Vec<Vec<f32>>> {
    let expected = MAGIC.len() + 8 + (n + 1) * width * 4;
    let len = std::fs::metadata(path).ok()?.len();
    if len != expected as u64 {
        return None;
    }
    let bytes = std::fs::read(path).ok()?;
    if bytes.len() != expected || &bytes[..8] != MAGIC {
        return None;
    }
    let count = u32::from_le_bytes(bytes[8..12].try_into().ok()?) as usize;
    let w = u32::from_le_bytes(bytes[12..16].try_into().ok()?) as usize;
    if count != n || w != width {
        return None;
    }
    let floats: Vec<f32> = bytes[16..]
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let mut rows = floats.chunks_exact(width);
    let stored_probe = rows.next()?;
    let same = stored_probe
        .iter()
        .zip(probe)
        .all(|(a, b)| (a - b).abs() <= PROBE_TOLERANCE);
    same.then(|| rows.map(<[f32]>::to_vec).collect())
}

fn write(path: &Path, probe: &[f32], vectors: &[Vec<f32>]) -> std::io::Result<()> {
    let too_many = |_| std::io::Error::other("too many sentences");
    let mut out = Vec::with_capacity(16 + (vectors.len() + 1) * probe.len() * 4);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(
        &u32::try_from(vectors.len())
            .map_err(too_many)?
            .to_le_bytes(),
    );
    out.extend_from_slice(&u32::try_from(probe.len()).map_err(too_many)?.to_le_bytes());
    for v in std::iter::once(probe).chain(vectors.iter().map(Vec::as_slice)) {
        for x in v {
            out.extend_from_slice(&x.to_le_bytes());
        }
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, &out)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_is_named_by_the_sentences_and_their_order() {
        let d = Path::new("/x");
        assert_eq!(cache_path(d, &["a", "b"]), cache_path(d, &["a", "b"]));
        assert_ne!(cache_path(d, &["a", "b"]), cache_path(d, &["b", "a"]));
        assert_ne!(cache_path(d, &["ab"]), cache_path(d, &["a", "b"]));
    }

    #[test]
    fn a_stored_file_is_used_only_when_its_probe_matches() {
        let dir = std::env::temp_dir().join(format!("vista-sent-cache-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("x.f32");
        let probe = vec![0.5f32, -0.5];
        let vectors = vec![vec![1.0f32, 0.0], vec![0.0, 1.0], vec![0.6, 0.8]];
        write(&p, &probe, &vectors).unwrap();
        assert_eq!(read(&p, &probe, 3, 2), Some(vectors.clone()));
        assert_eq!(read(&p, &[0.5, -0.4], 3, 2), None, "another model");
        assert_eq!(read(&p, &probe, 2, 2), None, "another count");
        let mut bytes = std::fs::read(&p).unwrap();
        bytes.truncate(bytes.len() - 1);
        std::fs::write(&p, &bytes).unwrap();
        assert_eq!(read(&p, &probe, 3, 2), None, "short");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
