//! A panel of share bars added below any SVG picture: one row per measure, its share of a
//! whole drawn as a bar, its value in words beside it, and the target's share as a mark.
//! The CPU panel ([`super::cpu_view`]) has its own scale (cores); this one draws shares
//! from 0 to 1 (the listener's metrics: speech duty cycle, answers heard whole).

use std::fmt::Write as _;

use super::plot::xml_escape;

const ROW: f64 = 18.0;
const LEFT: f64 = 290.0;
const BAR_W: f64 = 400.0;

/// One row of a panel.
#[derive(Clone, Debug, PartialEq)]
pub struct PanelRow {
    /// What it measures.
    pub label: String,
    /// Its share of the whole, 0 to 1 (`None`: no bar, the value alone).
    pub share: Option<f64>,
    /// The value as read ("12.3 s, 35 %").
    pub value: String,
    /// The target's share, marked on the bar.
    pub target: Option<f64>,
    /// Whether the value misses its target (drawn in red).
    pub missed: bool,
}

/// `svg` (a whole document) with a panel titled `title` below it; `svg` unchanged when
/// its size cannot be read.
pub fn with_panel(svg: &str, id: &str, title: &str, rows: &[PanelRow]) -> String {
    let Some((w, h)) = size(svg) else {
        return svg.to_string();
    };
    let ph = 40.0 + ROW * rows.len() as f64 + 16.0;
    let total = h + ph;
    let mut s = String::with_capacity(svg.len() + 256 * (rows.len() + 2));
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{total}" viewBox="0 0 {w} {total}" font-family="sans-serif" font-size="12">"#
    );
    s.push_str(svg.trim_end());
    s.push('\n');
    let _ = writeln!(
        s,
        r#"<g id="{}" transform="translate(0,{h})">"#,
        xml_escape(id)
    );
    let _ = writeln!(
        s,
        r#"<rect x="0" y="0" width="{w}" height="{ph}" fill="white"/>"#
    );
    let _ = writeln!(
        s,
        r#"<text x="10" y="24" font-weight="bold">{}</text>"#,
        xml_escape(title)
    );
    for (i, r) in rows.iter().enumerate() {
        let y = 40.0 + ROW * i as f64;
        let ty = y + 10.0;
        let label = xml_escape(&r.label);
        let value = xml_escape(&r.value);
        let fill = if r.missed { "#ef9a9a" } else { "#a5d6a7" };
        let colour = if r.missed { "#b71c1c" } else { "#333" };
        let _ = write!(
            s,
            r#"<g class="row"><title>{label}: {value}</title><text x="{tx}" y="{ty:.1}" text-anchor="end">{label}</text>"#,
            tx = LEFT - 8.0
        );
        let mut vx = LEFT;
        if let Some(share) = r.share.filter(|v| v.is_finite()) {
            let bw = (share.clamp(0.0, 1.0) * BAR_W).max(0.5);
            let _ = write!(
                s,
                r##"<rect x="{LEFT}" y="{y:.1}" width="{BAR_W}" height="12" fill="#f5f5f5" stroke="#bbb"/><rect x="{LEFT}" y="{y:.1}" width="{bw:.1}" height="12" fill="{fill}" stroke="#555"/>"##
            );
            if let Some(t) = r.target.filter(|v| v.is_finite()) {
                let tx = LEFT + t.clamp(0.0, 1.0) * BAR_W;
                let _ = write!(
                    s,
                    r##"<line x1="{tx:.1}" y1="{:.1}" x2="{tx:.1}" y2="{:.1}" stroke="#1a237e" stroke-width="2"/>"##,
                    y - 2.0,
                    y + 14.0
                );
            }
            vx = LEFT + BAR_W;
        }
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{ty:.1}" fill="{colour}">{value}</text></g>"#,
            vx + 8.0
        );
    }
    s.push_str("</g>\n</svg>\n");
    s
}

/// Width and height of the document's outer `<svg>` element.
pub(crate) fn size(svg: &str) -> Option<(f64, f64)> {
    let start = svg.find("<svg")?;
    let end = start + svg[start..].find('>')?;
    let tag = &svg[start..end];
    let attr = |name: &str| -> Option<f64> {
        let key = format!(" {name}=\"");
        let i = tag.find(&key)? + key.len();
        let j = i + tag[i..].find('"')?;
        tag[i..j].parse().ok()
    };
    Some((attr("width")?, attr("height")?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(label: &str, share: Option<f64>, missed: bool) -> PanelRow {
        PanelRow {
            label: label.into(),
            share,
            value: "v <1>".into(),
            target: Some(0.35),
            missed,
        }
    }

    #[test]
    fn the_panel_goes_below_with_a_row_per_measure() {
        let svg =
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1000\" height=\"300\">\n</svg>\n";
        let rows = [row("duty", Some(0.5), true), row("words lost", None, false)];
        let out = with_panel(svg, "listening", "What the wearer heard", &rows);
        let (w, h) = size(&out).unwrap();
        assert_eq!(w, 1000.0);
        assert!((h - (300.0 + 40.0 + 36.0 + 16.0)).abs() < 1e-9, "{h}");
        assert!(out.contains(r#"<g id="listening" transform="translate(0,300)">"#));
        assert_eq!(out.matches("class=\"row\"").count(), 2);
        // A bar for the share and one mark for its target; a missed target in red.
        assert!(out.contains(r#"width="200.0""#), "{out}");
        assert_eq!(out.matches("#1a237e").count(), 1);
        assert!(out.contains("#b71c1c"));
        assert!(out.contains("v &lt;1&gt;"));
        assert_eq!(out.matches("<svg").count(), out.matches("</svg>").count());
    }

    #[test]
    fn an_unreadable_picture_is_left_as_it_is() {
        assert_eq!(with_panel("no", "x", "t", &[]), "no");
    }
}
