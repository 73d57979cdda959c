//! Connected regions of a change mask (pure): 8-connected, each with its pixels and
//! bounding box.

/// One connected region of a mask, in coarse pixels.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blob {
    /// Pixels.
    pub pixels: usize,
    /// Leftmost column.
    pub x0: usize,
    /// Rightmost column.
    pub x1: usize,
    /// Top row.
    pub y0: usize,
    /// Bottom row.
    pub y1: usize,
    /// Its pixels (row-major indices into the mask).
    pub members: Vec<usize>,
}

/// The regions of `mask` (`width` columns) with at least `min_pixels` pixels, largest
/// first, at most `max_blobs` of them. `labels` is scratch space.
pub fn find_blobs(
    mask: &[bool],
    width: usize,
    min_pixels: usize,
    max_blobs: usize,
    labels: &mut Vec<u32>,
) -> Vec<Blob> {
    let mut out = Vec::new();
    if width == 0 || max_blobs == 0 {
        return out;
    }
    let height = mask.len() / width;
    labels.clear();
    labels.resize(width * height, 0);
    let mut stack: Vec<usize> = Vec::new();
    let mut members: Vec<usize> = Vec::new();
    let mut next = 0u32;
    for start in 0..width * height {
        if !mask[start] || labels[start] != 0 {
            continue;
        }
        next = next.saturating_add(1);
        labels[start] = next;
        stack.clear();
        members.clear();
        stack.push(start);
        while let Some(i) = stack.pop() {
            members.push(i);
            let (x, y) = ((i % width) as isize, (i / width) as isize);
            for dy in -1..=1isize {
                for dx in -1..=1isize {
                    let (nx, ny) = (x + dx, y + dy);
                    if nx < 0 || ny < 0 || nx as usize >= width || ny as usize >= height {
                        continue;
                    }
                    let j = ny as usize * width + nx as usize;
                    if mask[j] && labels[j] == 0 {
                        labels[j] = next;
                        stack.push(j);
                    }
                }
            }
        }
        if members.len() < min_pixels {
            continue;
        }
        let (mut x0, mut x1, mut y0, mut y1) = (usize::MAX, 0, usize::MAX, 0);
        for &i in &members {
            let (x, y) = (i % width, i / width);
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
        out.push(Blob {
            pixels: members.len(),
            x0,
            x1,
            y0,
            y1,
            members: members.clone(),
        });
    }
    out.sort_by_key(|b| std::cmp::Reverse(b.pixels));
    out.truncate(max_blobs);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mask(rows: &[&str]) -> (Vec<bool>, usize) {
        let w = rows[0].len();
        (
            rows.iter()
                .flat_map(|r| r.chars().map(|c| c == '#'))
                .collect(),
            w,
        )
    }

    #[test]
    fn regions_are_eight_connected_with_boxes_and_bottoms() {
        let (m, w) = mask(&[
            "##.....", //
            ".#...#.", //
            "..#..##", //
            ".....#.", //
            "....###",
        ]);
        let mut labels = Vec::new();
        let b = find_blobs(&m, w, 1, 8, &mut labels);
        assert_eq!(b.len(), 2);
        // The right one (7 pixels) first.
        assert_eq!(
            (b[0].pixels, b[0].x0, b[0].x1, b[0].y0, b[0].y1,),
            (7, 4, 6, 1, 4)
        );
        let mut m0 = b[0].members.clone();
        m0.sort_unstable();
        assert_eq!(m0, vec![12, 19, 20, 26, 32, 33, 34]);
        // The diagonal chain is one region.
        assert_eq!((b[1].pixels, b[1].x0, b[1].x1, b[1].y1), (4, 0, 2, 2));
    }

    #[test]
    fn small_regions_and_the_cap_are_applied() {
        let (m, w) = mask(&["#.##.###"]);
        let mut labels = Vec::new();
        let b = find_blobs(&m, w, 2, 8, &mut labels);
        assert_eq!(b.iter().map(|b| b.pixels).collect::<Vec<_>>(), vec![3, 2]);
        let b = find_blobs(&m, w, 1, 1, &mut labels);
        assert_eq!(b.len(), 1);
        assert_eq!(b[0].pixels, 3);
        assert!(find_blobs(&m, 0, 1, 8, &mut labels).is_empty());
    }
}
