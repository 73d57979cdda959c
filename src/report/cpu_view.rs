//! The CPU panel of the latency picture: one bar per stage (its share of one core over the
//! run), the unattributed rest and the process, added below any SVG picture.

use std::fmt::Write as _;

use super::panel::size;
use super::plot::xml_escape;
use crate::profile::cpu::CpuReport;

const ROW: f64 = 18.0;
const LEFT: f64 = 290.0;
const BAR_W: f64 = 500.0;

/// `svg` (a whole document from [`super::plot::render_svg`]) with the CPU panel below it;
/// `svg` unchanged when its size cannot be read.
pub fn with_cpu_panel(svg: &str, cpu: &CpuReport) -> String {
    let Some((w, h)) = size(svg) else {
        return svg.to_string();
    };
    let panel = panel(cpu, w);
    let ph = panel_height(cpu);
    let total = h + ph;
    let mut s = String::with_capacity(svg.len() + panel.len() + 512);
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{total}" viewBox="0 0 {w} {total}" font-family="sans-serif" font-size="12">"#
    );
    s.push_str(svg.trim_end());
    s.push('\n');
    let _ = writeln!(s, r#"<g id="cpu" transform="translate(0,{h})">"#);
    s.push_str(&panel);
    s.push_str("</g>\n</svg>\n");
    s
}

fn panel_height(cpu: &CpuReport) -> f64 {
    40.0 + ROW * (cpu.stages.len() + 2) as f64 + 20.0
}

/// The panel's elements, from y = 0.
fn panel(cpu: &CpuReport, w: f64) -> String {
    let mut s = String::new();
    let h = panel_height(cpu);
    let _ = writeln!(
        s,
        r#"<rect x="0" y="0" width="{w}" height="{h}" fill="white"/>"#
    );
    let _ = writeln!(
        s,
        r#"<text x="10" y="24" font-weight="bold">CPU per stage (thread CPU time, share of one core over {:.1} s; process {:.3} cores, peak RSS {:.0} MiB)</text>"#,
        cpu.wall_s, cpu.cores_used, cpu.peak_rss_mib
    );
    let unattributed = if cpu.wall_s > 0.0 {
        cpu.unattributed_cpu_s / cpu.wall_s
    } else {
        0.0
    };
    let mut rows: Vec<(String, f64, f64, &str)> = cpu
        .stages
        .iter()
        .map(|st| (st.stage.clone(), st.cpu_s, st.share_of_core, "#90caf9"))
        .collect();
    rows.push((
        "unattributed".into(),
        cpu.unattributed_cpu_s,
        unattributed,
        "#e0e0e0",
    ));
    rows.push((
        "process".into(),
        cpu.process_cpu_s,
        cpu.cores_used,
        "#ffab91",
    ));
    let scale = rows.iter().map(|r| r.2).fold(1.0f64, f64::max);
    for (i, (name, cpu_s, cores, colour)) in rows.iter().enumerate() {
        let y = 40.0 + ROW * i as f64;
        let bw = (cores.max(0.0) / scale * BAR_W).max(0.5);
        let name = xml_escape(name);
        let _ = writeln!(
            s,
            r##"<g class="cpu"><title>{name}: {cpu_s:.3} s CPU, {cores:.3} of a core</title><text x="{tx}" y="{ty:.1}" text-anchor="end">{name}</text><rect x="{LEFT}" y="{y:.1}" width="{bw:.1}" height="12" fill="{colour}" stroke="#555"/><text x="{rx:.1}" y="{ty:.1}" fill="#333">{cores:.3} cores · {cpu_s:.2} s</text></g>"##,
            tx = LEFT - 8.0,
            ty = y + 10.0,
            rx = LEFT + bw + 6.0,
        );
    }
    let x1 = LEFT + BAR_W / scale;
    let _ = writeln!(
        s,
        r##"<line x1="{x1:.1}" y1="36" x2="{x1:.1}" y2="{:.1}" stroke="#b71c1c" stroke-dasharray="3,3"><title>one core</title></line>"##,
        40.0 + ROW * rows.len() as f64
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::cpu::StageCpu;

    fn report() -> CpuReport {
        CpuReport {
            wall_s: 10.0,
            process_cpu_s: 5.0,
            process_user_s: 4.5,
            process_system_s: 0.5,
            workers_cpu_s: 0.0,
            cores_used: 0.5,
            peak_rss_mib: 100.0,
            stages: vec![StageCpu {
                stage: "perception<1>".into(),
                cpu_s: 3.0,
                threads: 1,
                live_threads: 0,
                share_of_core: 0.3,
            }],
            attributed_cpu_s: 3.0,
            unattributed_cpu_s: 2.0,
            untracked_threads: 0,
            folded_stages: 0,
        }
    }

    #[test]
    fn the_panel_goes_below_the_picture_with_a_row_per_stage() {
        let svg =
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1000\" height=\"300\">\n</svg>\n";
        let out = with_cpu_panel(svg, &report());
        assert!(out.starts_with("<svg"));
        let (w, h) = size(&out).unwrap();
        assert_eq!(w, 1000.0);
        assert!(h > 300.0);
        assert!(out.contains(r#"translate(0,300)"#));
        assert!(out.contains("perception&lt;1&gt;"));
        assert!(out.contains("unattributed"));
        assert_eq!(out.matches("class=\"cpu\"").count(), 3);
        assert_eq!(out.matches("<svg").count(), out.matches("</svg>").count());
    }

    #[test]
    fn an_unreadable_picture_is_left_as_it_is() {
        assert_eq!(with_cpu_panel("not svg", &report()), "not svg");
    }
}
