//! Properties of the OCR geometry that hold for any input: the minimum-area rectangle
//! encloses every point and is never larger than the axis-aligned bounding box; DB boxes from
//! any probability map lie inside the destination image; region squares lie inside the frame.

use proptest::prelude::*;
use vista::ocr::db_post::{db_boxes, DbParams};
use vista::ocr::geometry::min_area_rect;
use vista::ocr::{region_rect, Region};

proptest! {
    #[test]
    fn min_area_rect_encloses_and_beats_the_bounding_box(
        pts in prop::collection::vec((-500.0f64..500.0, -500.0f64..500.0), 3..60)
    ) {
        let pts: Vec<[f64; 2]> = pts.into_iter().map(|(x, y)| [x, y]).collect();
        let r = min_area_rect(&pts).unwrap();
        let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
        for p in &pts {
            x0 = x0.min(p[0]); y0 = y0.min(p[1]); x1 = x1.max(p[0]); y1 = y1.max(p[1]);
        }
        prop_assert!(r.side_a * r.side_b <= (x1 - x0) * (y1 - y0) + 1e-6);
        // Every point lies within the rectangle: its coordinates along both sides are in range.
        let c = r.corners;
        let u = [c[1][0] - c[0][0], c[1][1] - c[0][1]];
        let v = [c[3][0] - c[0][0], c[3][1] - c[0][1]];
        let (uu, vv) = (u[0] * u[0] + u[1] * u[1], v[0] * v[0] + v[1] * v[1]);
        for p in &pts {
            let d = [p[0] - c[0][0], p[1] - c[0][1]];
            if uu > 1e-12 {
                let s = (d[0] * u[0] + d[1] * u[1]) / uu;
                prop_assert!((-1e-6..=1.0 + 1e-6).contains(&s), "{s}");
            }
            if vv > 1e-12 {
                let t = (d[0] * v[0] + d[1] * v[1]) / vv;
                prop_assert!((-1e-6..=1.0 + 1e-6).contains(&t), "{t}");
            }
        }
    }

    #[test]
    fn db_boxes_stay_inside_the_image(
        w in 4usize..40, h in 4usize..40,
        seed in prop::collection::vec(0.0f32..1.0, 1600),
        dw in 1u32..300, dh in 1u32..300,
    ) {
        let map: Vec<f32> = seed.into_iter().take(w * h).collect();
        for b in db_boxes(&map, w, h, dw, dh, &DbParams::default()) {
            for p in b.quad {
                prop_assert!(p[0] >= 0.0 && p[0] <= dw as f32 && p[1] >= 0.0 && p[1] <= dh as f32);
            }
            prop_assert!((0.0..=1.0).contains(&b.score));
        }
    }

    #[test]
    fn region_squares_stay_inside(
        w in 1u32..3000, h in 1u32..3000, cx in -1e4f32..1e4, cy in -1e4f32..1e4, s in 1u32..2000
    ) {
        let r = region_rect(w, h, Region::Around { center_px: [cx, cy], size_px: s });
        prop_assert!(r.w >= 1 && r.h >= 1 && r.x0 + r.w <= w && r.y0 + r.h <= h);
        prop_assert_eq!((r.w, r.h), (s.min(w), s.min(h)));
    }
}
