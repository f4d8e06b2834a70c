//! Convergence histories as CSV and as a small SVG line chart (log-scale y), without a
//! plotting dependency.

use std::fmt::Write as _;
use std::path::Path;

/// One named series of `(x, y)` points.
#[derive(Debug, Clone)]
pub struct Series {
    /// Legend label.
    pub name: String,
    /// Stroke colour (SVG syntax).
    pub colour: &'static str,
    /// The points.
    pub points: Vec<(f64, f64)>,
}

/// Writes `series` as CSV rows `series,x,y` with a header.
pub fn write_csv(
    path: &Path,
    x_label: &str,
    y_label: &str,
    series: &[Series],
) -> std::io::Result<()> {
    let mut out = format!("series,{x_label},{y_label}\n");
    for s in series {
        for (x, y) in &s.points {
            let _ = writeln!(out, "{},{x},{y:e}", s.name);
        }
    }
    std::fs::write(path, out)
}

/// Writes a line chart of `series` with a logarithmic y axis (positive values only).
pub fn write_svg(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
) -> std::io::Result<()> {
    let (w, h, margin) = (720.0, 440.0, 70.0);
    let points = series.iter().flat_map(|s| s.points.iter());
    let x_max = points.clone().map(|p| p.0).fold(1.0, f64::max);
    let ys: Vec<f64> = points.map(|p| p.1).filter(|y| *y > 0.0).collect();
    let lo = ys
        .iter()
        .copied()
        .fold(f64::INFINITY, f64::min)
        .log10()
        .floor();
    let hi = ys
        .iter()
        .copied()
        .fold(f64::NEG_INFINITY, f64::max)
        .log10()
        .ceil();
    let hi = if hi > lo { hi } else { lo + 1.0 };
    let px = |x: f64| margin + x / x_max * (w - 1.5 * margin);
    let py = |y: f64| h - margin - (y.log10() - lo) / (hi - lo) * (h - 1.7 * margin);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"13\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{}\" y=\"28\" text-anchor=\"middle\" font-size=\"16\">{title}</text>\n\
         <text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{x_label}</text>\n\
         <text x=\"18\" y=\"{}\" text-anchor=\"middle\" transform=\"rotate(-90 18 {})\">{y_label}</text>\n",
        w / 2.0,
        w / 2.0,
        h - 20.0,
        h / 2.0,
        h / 2.0
    );
    let (x0, x1, y0, y1) = (px(0.0), px(x_max), py(10f64.powf(lo)), py(10f64.powf(hi)));
    let _ = writeln!(
        svg,
        "<path d=\"M{x0},{y1} L{x0},{y0} L{x1},{y0}\" stroke=\"black\" fill=\"none\"/>"
    );
    for e in lo as i32..=hi as i32 {
        let y = py(10f64.powi(e));
        let _ = writeln!(
            svg,
            "<line x1=\"{x0}\" y1=\"{y}\" x2=\"{x1}\" y2=\"{y}\" stroke=\"#ddd\"/><text x=\"{}\" y=\"{}\" text-anchor=\"end\">1e{e}</text>",
            x0 - 6.0,
            y + 4.0
        );
    }
    for k in 0..=4 {
        let x = x_max * k as f64 / 4.0;
        let _ = writeln!(
            svg,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{x:.0}</text>",
            px(x),
            y0 + 18.0
        );
    }
    for (i, s) in series.iter().enumerate() {
        let d: Vec<String> = s
            .points
            .iter()
            .filter(|p| p.1 > 0.0)
            .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
            .collect();
        let _ = writeln!(
            svg,
            "<polyline points=\"{}\" stroke=\"{}\" stroke-width=\"2\" fill=\"none\"/>",
            d.join(" "),
            s.colour
        );
        let ly = margin + 20.0 * i as f64;
        let _ = writeln!(
            svg,
            "<line x1=\"{}\" y1=\"{ly}\" x2=\"{}\" y2=\"{ly}\" stroke=\"{}\" stroke-width=\"2\"/><text x=\"{}\" y=\"{}\">{}</text>",
            x1 - 170.0,
            x1 - 140.0,
            s.colour,
            x1 - 134.0,
            ly + 4.0,
            s.name
        );
    }
    svg.push_str("</svg>\n");
    std::fs::write(path, svg)
}
