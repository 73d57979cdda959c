//! The latency picture of a session as one self-contained SVG (no dependencies): per-stage
//! latency distributions on a log-millisecond axis, and a session timeline on device time.
//!
//! * Distributions, one row per stage: a thin line from the minimum (or p50 when unknown)
//!   to the maximum, a box from p50 to p95, a dot at p50 and a bar at p99; p50 and p99 are
//!   also written at the right.
//! * Timeline (x: seconds from the session start): one lane for the hazards' useful windows
//!   (relevant → latest alert, from ground truth), one per utterance kind with a bar per
//!   decision (light: decided → first audio, dark: audio), and a lane of request ticks.

use std::fmt::Write as _;

use crate::profile::Percentiles;

/// One stage's distribution, milliseconds.
#[derive(Clone, Debug, PartialEq)]
pub struct Distribution {
    /// Stage name.
    pub name: String,
    /// Values.
    pub count: u64,
    /// Smallest, when known.
    pub min_ms: Option<f64>,
    /// Median.
    pub p50_ms: f64,
    /// 95th percentile.
    pub p95_ms: f64,
    /// 99th percentile.
    pub p99_ms: f64,
    /// Largest.
    pub max_ms: f64,
}

impl Distribution {
    /// From µs [`Percentiles`].
    pub fn from_percentiles(name: &str, p: &Percentiles, min_us: Option<f64>) -> Self {
        Self {
            name: name.to_string(),
            count: p.count,
            min_ms: min_us.map(|v| v / 1e3),
            p50_ms: p.p50 / 1e3,
            p95_ms: p.p95 / 1e3,
            p99_ms: p.p99 / 1e3,
            max_ms: p.max / 1e3,
        }
    }
}

/// One decision on the timeline, seconds from the session start.
#[derive(Clone, Debug, PartialEq)]
pub struct UtteranceBar {
    /// Lane (`alert`, `answer`, `ambient`).
    pub kind: String,
    /// Decided.
    pub decided_s: f64,
    /// `(start, end)` of each utterance that played, in order (empty: never played).
    pub spoken_s: Vec<(f64, f64)>,
    /// Tooltip text.
    pub label: String,
}

impl UtteranceBar {
    /// When it stops being shown: the end of its last utterance, else the decision.
    pub fn end_s(&self) -> f64 {
        self.spoken_s
            .iter()
            .map(|(_, e)| *e)
            .fold(self.decided_s, f64::max)
    }
}

/// A span on the timeline (a hazard's useful window), seconds.
#[derive(Clone, Debug, PartialEq)]
pub struct Window {
    /// Label.
    pub label: String,
    /// Start.
    pub from_s: f64,
    /// End.
    pub to_s: f64,
    /// Whether it was caught (colours it).
    pub ok: Option<bool>,
}

/// A tick on the timeline (a request), seconds.
#[derive(Clone, Debug, PartialEq)]
pub struct Tick {
    /// Label.
    pub label: String,
    /// When.
    pub at_s: f64,
}

/// Everything the picture shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Picture {
    /// Title line.
    pub title: String,
    /// Per-stage distributions, top to bottom.
    pub stages: Vec<Distribution>,
    /// Utterances.
    pub bars: Vec<UtteranceBar>,
    /// Hazard windows.
    pub windows: Vec<Window>,
    /// Requests.
    pub ticks: Vec<Tick>,
    /// Session length, s (else the timeline spans what it shows).
    pub duration_s: Option<f64>,
}

/// Escapes text for XML content and attributes.
pub fn xml_escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            c if c.is_control() => o.push(' '),
            c => o.push(c),
        }
    }
    o
}

const W: f64 = 1000.0;
const LEFT: f64 = 290.0;
const RIGHT: f64 = 170.0;
const ROW: f64 = 24.0;
const LANE: f64 = 26.0;

fn fmt_ms(v: f64) -> String {
    if v == 0.0 {
        "0".to_string()
    } else if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 1.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.3}")
    }
}

/// An axis label: up to 4 decimals, trailing zeros trimmed.
fn fmt_axis(v: f64) -> String {
    let s = format!("{v:.4}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Log-axis decades `[lo, hi]` (powers of ten, ms) covering the finite positive values.
fn decades(stages: &[Distribution]) -> (i32, i32) {
    let vals = stages
        .iter()
        .flat_map(|d| [d.min_ms.unwrap_or(d.p50_ms), d.p50_ms, d.max_ms])
        .filter(|v| v.is_finite() && *v > 0.0);
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in vals {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (-1, 3);
    }
    let lo = (lo.log10().floor() as i32).clamp(-4, 6);
    let hi = (hi.log10().ceil() as i32).clamp(lo + 1, 7);
    (lo, hi)
}

/// `s` cut to `n` characters (with an ellipsis).
fn short(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut o: String = s.chars().take(n.saturating_sub(1)).collect();
        o.push('…');
        o
    }
}

fn lane_colour(kind: &str) -> (&'static str, &'static str) {
    match kind {
        "alert" => ("#f4b6b6", "#c62828"),
        "answer" => ("#b8d4f0", "#1565c0"),
        _ => ("#d9d9d9", "#616161"),
    }
}

/// The smallest of 1, 2, 5 × 10^k that is at least `raw` (1 for anything not positive
/// and finite).
fn nice_step(raw: f64) -> f64 {
    if !(raw.is_finite() && raw > 0.0) {
        return 1.0;
    }
    let base = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * base)
        .find(|s| *s >= raw * (1.0 - 1e-12))
        .unwrap_or(10.0 * base)
}

/// Renders the picture as an SVG document.
pub fn render_svg(p: &Picture) -> String {
    let mut s = String::new();
    let plot_w = W - LEFT - RIGHT;
    let dist_top = 60.0;
    let dist_h = ROW * p.stages.len().max(1) as f64;
    let timeline_top = dist_top + dist_h + 80.0;
    let mut lanes: Vec<String> = vec!["hazards".into()];
    for k in ["alert", "answer", "ambient"] {
        if k != "ambient" || p.bars.iter().any(|b| b.kind == k) {
            lanes.push(k.into());
        }
    }
    for b in &p.bars {
        if !lanes.contains(&b.kind) {
            lanes.push(b.kind.clone());
        }
    }
    lanes.push("requests".into());
    let timeline_h = LANE * lanes.len() as f64;
    let h = timeline_top + timeline_h + 60.0;
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{h}" viewBox="0 0 {W} {h}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(
        s,
        r#"<rect x="0" y="0" width="{W}" height="{h}" fill="white"/>"#
    );
    let _ = writeln!(
        s,
        r#"<text x="10" y="22" font-size="16" font-weight="bold">{}</text>"#,
        xml_escape(&p.title)
    );

    // Distributions.
    let _ = writeln!(
        s,
        r#"<text x="10" y="{}" font-weight="bold">Latency per stage (ms, log scale) — line min–max, box p50–p95, dot p50, bar p99</text>"#,
        dist_top - 18.0
    );
    let (lo, hi) = decades(&p.stages);
    let x_of = |ms: f64| {
        let v = if ms.is_finite() && ms > 0.0 {
            ms.log10()
        } else {
            f64::from(lo)
        };
        let f = ((v - f64::from(lo)) / f64::from(hi - lo)).clamp(0.0, 1.0);
        LEFT + f * plot_w
    };
    let _ = writeln!(s, r#"<g id="distributions">"#);
    for d in lo..=hi {
        let x = x_of(10f64.powi(d));
        let label = fmt_axis(10f64.powi(d));
        let _ = writeln!(
            s,
            r##"<line x1="{x:.1}" y1="{dist_top}" x2="{x:.1}" y2="{:.1}" stroke="#e0e0e0"/><text x="{x:.1}" y="{:.1}" text-anchor="middle" fill="#555">{label}</text>"##,
            dist_top + dist_h,
            dist_top + dist_h + 14.0
        );
    }
    if p.stages.is_empty() {
        let _ = writeln!(
            s,
            r#"<text x="{LEFT}" y="{}">no latency values</text>"#,
            dist_top + 16.0
        );
    }
    for (i, d) in p.stages.iter().enumerate() {
        let y = dist_top + ROW * i as f64 + ROW / 2.0;
        let lo_x = x_of(d.min_ms.unwrap_or(d.p50_ms));
        let _ = writeln!(
            s,
            r##"<g class="stage"><title>{name}: n={n} p50={p50} ms p95={p95} ms p99={p99} ms max={max} ms</title><text x="{tx}" y="{ty:.1}" text-anchor="end">{name} (n={n})</text><line x1="{lo_x:.1}" y1="{y:.1}" x2="{mx:.1}" y2="{y:.1}" stroke="#888"/><rect x="{bx:.1}" y="{by:.1}" width="{bw:.1}" height="10" fill="#90caf9" stroke="#1565c0"/><line x1="{p99x:.1}" y1="{y0:.1}" x2="{p99x:.1}" y2="{y1:.1}" stroke="#b71c1c" stroke-width="2"/><circle cx="{p50x:.1}" cy="{y:.1}" r="3.5" fill="#0d47a1"/><text x="{rx}" y="{ty:.1}" fill="#333">p50 {p50} · p99 {p99}</text></g>"##,
            name = xml_escape(&d.name),
            n = d.count,
            p50 = fmt_ms(d.p50_ms),
            p95 = fmt_ms(d.p95_ms),
            p99 = fmt_ms(d.p99_ms),
            max = fmt_ms(d.max_ms),
            tx = LEFT - 8.0,
            ty = y + 4.0,
            mx = x_of(d.max_ms),
            bx = x_of(d.p50_ms),
            by = y - 5.0,
            bw = (x_of(d.p95_ms) - x_of(d.p50_ms)).max(1.0),
            p99x = x_of(d.p99_ms),
            y0 = y - 8.0,
            y1 = y + 8.0,
            p50x = x_of(d.p50_ms),
            rx = W - RIGHT + 8.0,
        );
    }
    let _ = writeln!(s, "</g>");

    // Timeline.
    let end_s = p
        .duration_s
        .filter(|d| d.is_finite() && *d > 0.0)
        .unwrap_or_else(|| {
            let m = p
                .bars
                .iter()
                .map(UtteranceBar::end_s)
                .chain(p.windows.iter().map(|w| w.to_s))
                .chain(p.ticks.iter().map(|t| t.at_s))
                .filter(|v| v.is_finite())
                .fold(0.0, f64::max);
            if m > 0.0 {
                m
            } else {
                1.0
            }
        });
    let t_of = |t: f64| {
        let t = if t.is_finite() { t } else { 0.0 };
        LEFT + (t / end_s).clamp(0.0, 1.0) * plot_w
    };
    let _ = writeln!(
        s,
        r#"<text x="10" y="{}" font-weight="bold">Session timeline (device time, s)</text>"#,
        timeline_top - 18.0
    );
    let _ = writeln!(s, r#"<g id="timeline">"#);
    let step = nice_step(end_s / 12.0);
    let ticks = (end_s / step + 1e-9).floor().clamp(0.0, 100.0) as u32;
    for i in 0..=ticks {
        let t = f64::from(i) * step;
        let x = t_of(t);
        let _ = writeln!(
            s,
            r##"<line x1="{x:.1}" y1="{timeline_top}" x2="{x:.1}" y2="{:.1}" stroke="#eeeeee"/><text x="{x:.1}" y="{:.1}" text-anchor="middle" fill="#555">{}</text>"##,
            timeline_top + timeline_h,
            timeline_top + timeline_h + 14.0,
            fmt_axis(t)
        );
    }
    let lane_y = |name: &str| {
        let i = lanes.iter().position(|l| l == name).unwrap_or(0);
        timeline_top + LANE * i as f64
    };
    for l in &lanes {
        let y = lane_y(l);
        let _ = writeln!(
            s,
            r##"<text x="{}" y="{:.1}" text-anchor="end">{}</text><line x1="{LEFT}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#f5f5f5"/>"##,
            LEFT - 8.0,
            y + LANE / 2.0 + 4.0,
            xml_escape(l),
            y + LANE,
            W - RIGHT,
            y + LANE
        );
    }
    let y = lane_y("hazards");
    for w in &p.windows {
        let (x0, x1) = (t_of(w.from_s), t_of(w.to_s));
        let colour = match w.ok {
            Some(true) => "#a5d6a7",
            Some(false) => "#ffab91",
            None => "#ffe082",
        };
        let _ = writeln!(
            s,
            r##"<g class="hazard"><title>{l}: {a:.2}–{b:.2} s</title><rect x="{x0:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{colour}" fill-opacity="0.8" stroke="#bf360c"/><text x="{:.1}" y="{:.1}" font-size="10">{l}</text></g>"##,
            y + 3.0,
            (x1 - x0).max(1.0),
            LANE - 6.0,
            x0 + 3.0,
            y + LANE / 2.0 + 4.0,
            l = xml_escape(&w.label),
            a = w.from_s,
            b = w.to_s,
        );
    }
    for b in &p.bars {
        let y = lane_y(&b.kind) + 5.0;
        let (light, dark) = lane_colour(&b.kind);
        let x0 = t_of(b.decided_s);
        let first = b.spoken_s.first().map_or_else(|| b.end_s(), |(a, _)| *a);
        let mut audio = String::new();
        for (a, e) in &b.spoken_s {
            let (xa, xe) = (t_of(*a), t_of(*e));
            let _ = write!(
                audio,
                r#"<rect x="{xa:.1}" y="{y:.1}" width="{:.1}" height="{:.1}" fill="{dark}"/>"#,
                (xe - xa).max(1.5),
                LANE - 10.0
            );
        }
        let unspoken = if b.spoken_s.is_empty() {
            format!(
                r#"<text x="{:.1}" y="{:.1}" font-size="10" fill="{dark}">✕</text>"#,
                x0 - 3.0,
                y + LANE / 2.0 - 1.0
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            s,
            r##"<g class="utterance"><title>{l}</title><rect x="{x0:.1}" y="{y:.1}" width="{:.1}" height="{:.1}" fill="{light}"/>{audio}{unspoken}</g>"##,
            (t_of(first) - x0).max(1.0),
            LANE - 10.0,
            l = xml_escape(&b.label),
        );
    }
    let y = lane_y("requests");
    for tk in &p.ticks {
        let x = t_of(tk.at_s);
        let _ = writeln!(
            s,
            r##"<g class="request"><title>{full} at {at:.2} s</title><line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="black" stroke-width="2"/><text x="{:.1}" y="{:.1}" font-size="10">{l}</text></g>"##,
            y + 3.0,
            y + LANE - 3.0,
            x + 3.0,
            y + LANE / 2.0 + 4.0,
            l = xml_escape(&short(&tk.label, 28)),
            full = xml_escape(&tk.label),
            at = tk.at_s,
        );
    }
    let _ = writeln!(s, "</g>");
    let _ = writeln!(
        s,
        r##"<text x="10" y="{:.1}" fill="#555">utterance bars: light = decided → first audio, dark = each clause spoken, ✕ = never played; hazard windows: green caught, orange not caught, yellow unscored</text>"##,
        h - 14.0
    );
    s.push_str("</svg>\n");
    s
}
