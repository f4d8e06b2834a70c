//! Line plots of named series (linear or logarithmic y), drawn with plotters as SVG and PNG,
//! and the same data as CSV.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::ReportError;

/// Line colours, cycled through by series index (Tableau 10, readable on white).
const PALETTE: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

/// The font family every text element uses; registered once from the embedded DejaVu Sans so
/// PNG text does not depend on the fonts installed.
const FONT: &str = "sans-serif";

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The embedded font is a valid TrueType file, so registration cannot fail; if it ever
        // did, text would be missing from PNGs and the plot's layout would report the error.
        let _ = plotters::style::register_font(FONT, FontStyle::Normal, dejavu::sans::regular());
    });
}

/// One named series of `(x, y)` points.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend label (also the first CSV column).
    pub name: String,
    /// The points, drawn in order.
    pub points: Vec<(f64, f64)>,
}

/// A line chart of several named series, written as SVG, PNG and CSV.
///
/// Built with chained setters; see the crate example.
#[derive(Debug, Clone, PartialEq)]
pub struct LinePlot {
    title: String,
    x_label: String,
    y_label: String,
    log_y: bool,
    width: u32,
    height: u32,
    series: Vec<Series>,
}

impl LinePlot {
    /// An empty plot with a title, axes labelled `x` and `y`, a linear y axis and 800x500 pixels.
    pub fn new(title: &str) -> Self {
        Self {
            title: title.to_owned(),
            x_label: "x".to_owned(),
            y_label: "y".to_owned(),
            log_y: false,
            width: 800,
            height: 500,
            series: Vec::new(),
        }
    }

    /// Sets the x axis label (also the CSV header of the x column).
    pub fn x_label(mut self, label: &str) -> Self {
        self.x_label = label.to_owned();
        self
    }

    /// Sets the y axis label (also the CSV header of the y column).
    pub fn y_label(mut self, label: &str) -> Self {
        self.y_label = label.to_owned();
        self
    }

    /// Chooses a logarithmic (`true`) or linear y axis.
    pub fn log_y(mut self, log: bool) -> Self {
        self.log_y = log;
        self
    }

    /// Sets the image size in pixels (PNG pixels; SVG user units).
    pub fn size(mut self, width: u32, height: u32) -> Self {
        self.width = width;
        self.height = height;
        self
    }

    /// Adds a named series.
    pub fn series(mut self, name: &str, points: Vec<(f64, f64)>) -> Self {
        self.series.push(Series {
            name: name.to_owned(),
            points,
        });
        self
    }

    /// Adds a named history: `values[k]` at `x = k` (a loss per iteration or per frame).
    ///
    /// ```
    /// let plot = sdrs_report::LinePlot::new("loss").history("Adam", &[3.0, 1.0]);
    /// assert_eq!(plot.all_series()[0].points, vec![(0.0, 3.0), (1.0, 1.0)]);
    /// ```
    pub fn history(self, name: &str, values: &[f64]) -> Self {
        self.series(name, indexed(values))
    }

    /// The series added so far.
    pub fn all_series(&self) -> &[Series] {
        &self.series
    }

    /// Writes the data as CSV: a header `series,X_LABEL,Y_LABEL`, then one row per point.
    /// Fields holding commas, quotes or line breaks are quoted.
    pub fn write_csv(&self, path: &Path) -> Result<(), ReportError> {
        let mut out = format!(
            "series,{},{}\n",
            csv_field(&self.x_label),
            csv_field(&self.y_label)
        );
        for s in &self.series {
            let name = csv_field(&s.name);
            for (x, y) in &s.points {
                let _ = writeln!(out, "{name},{x},{y:e}");
            }
        }
        std::fs::write(path, out).map_err(|source| ReportError::Io {
            path: path.to_owned(),
            source,
        })
    }

    /// Draws the plot as an SVG file.
    pub fn write_svg(&self, path: &Path) -> Result<(), ReportError> {
        let ranges = self.ranges()?;
        register_font();
        let root = SVGBackend::new(path, (self.width, self.height)).into_drawing_area();
        self.draw(root, ranges)
            .map_err(|message| draw_error(path, message))
    }

    /// Draws the plot as a PNG file.
    pub fn write_png(&self, path: &Path) -> Result<(), ReportError> {
        let ranges = self.ranges()?;
        register_font();
        let root = BitMapBackend::new(path, (self.width, self.height)).into_drawing_area();
        self.draw(root, ranges)
            .map_err(|message| draw_error(path, message))
    }

    /// Writes `STEM.csv`, `STEM.svg` and `STEM.png` into `dir` (created if missing) and
    /// returns their paths in that order.
    pub fn write_all(&self, dir: &Path, stem: &str) -> Result<Vec<PathBuf>, ReportError> {
        self.ranges()?;
        std::fs::create_dir_all(dir).map_err(|source| ReportError::Io {
            path: dir.to_owned(),
            source,
        })?;
        let paths: Vec<PathBuf> = ["csv", "svg", "png"]
            .iter()
            .map(|ext| dir.join(format!("{stem}.{ext}")))
            .collect();
        self.write_csv(&paths[0])?;
        self.write_svg(&paths[1])?;
        self.write_png(&paths[2])?;
        Ok(paths)
    }

    /// Validates the data and returns the axis ranges `(x0..x1, y0..y1)`; on a log axis the
    /// y range is widened to whole decades.
    fn ranges(&self) -> Result<(std::ops::Range<f64>, std::ops::Range<f64>), ReportError> {
        if self.width < 100 || self.height < 100 {
            return Err(ReportError::Size {
                width: self.width,
                height: self.height,
            });
        }
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for s in &self.series {
            for (index, &(x, y)) in s.points.iter().enumerate() {
                if !x.is_finite() || !y.is_finite() {
                    return Err(ReportError::NonFinite {
                        series: s.name.clone(),
                        index,
                        x,
                        y,
                    });
                }
                if self.log_y && !(y > 0.0) {
                    return Err(ReportError::NotPositive {
                        series: s.name.clone(),
                        index,
                        y,
                    });
                }
                (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
            }
        }
        if x0 > x1 {
            return Err(ReportError::Empty {
                title: self.title.clone(),
            });
        }
        if x1 == x0 {
            x1 = x0 + 1.0;
        }
        if self.log_y {
            let lo = y0.log10().floor();
            let hi = y1.log10().ceil().max(lo + 1.0);
            (y0, y1) = (10f64.powf(lo), 10f64.powf(hi));
        } else {
            let pad = if y1 > y0 {
                0.05 * (y1 - y0)
            } else {
                0.5 * y0.abs().max(1.0)
            };
            (y0, y1) = (y0 - pad, y1 + pad);
        }
        Ok((x0..x1, y0..y1))
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: DrawingArea<DB, Shift>,
        (xs, ys): (std::ops::Range<f64>, std::ops::Range<f64>),
    ) -> Result<(), String> {
        let text = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
        root.fill(&WHITE).map_err(text)?;
        let mut builder = ChartBuilder::on(&root);
        builder
            .caption(&self.title, (FONT, 20))
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(75);
        if self.log_y {
            let mut chart = builder
                .build_cartesian_2d(xs, ys.log_scale())
                .map_err(text)?;
            chart
                .configure_mesh()
                .x_desc(&self.x_label)
                .y_desc(&self.y_label)
                .label_style((FONT, 13))
                .x_label_formatter(&|x| tick(*x))
                .y_label_formatter(&|y| format!("{y:.0e}"))
                .draw()
                .map_err(text)?;
            self.draw_lines(&mut chart).map_err(text)?;
        } else {
            let mut chart = builder.build_cartesian_2d(xs, ys).map_err(text)?;
            chart
                .configure_mesh()
                .x_desc(&self.x_label)
                .y_desc(&self.y_label)
                .label_style((FONT, 13))
                .x_label_formatter(&|x| tick(*x))
                .y_label_formatter(&|y| tick(*y))
                .draw()
                .map_err(text)?;
            self.draw_lines(&mut chart).map_err(text)?;
        }
        root.present().map_err(text)
    }

    /// Draws every series and the legend into an already configured chart.
    fn draw_lines<'a, DB: DrawingBackend + 'a, Y>(
        &self,
        chart: &mut ChartContext<'a, DB, Cartesian2d<plotters::coord::types::RangedCoordf64, Y>>,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>>
    where
        Y: Ranged<ValueType = f64>,
    {
        for (i, s) in self.series.iter().enumerate() {
            let colour = PALETTE[i % PALETTE.len()];
            chart
                .draw_series(LineSeries::new(
                    s.points.iter().copied(),
                    colour.stroke_width(2),
                ))?
                .label(s.name.as_str())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2))
                });
        }
        chart
            .configure_series_labels()
            .label_font((FONT, 13))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperRight)
            .draw()
    }
}

fn draw_error(path: &Path, message: String) -> ReportError {
    ReportError::Draw {
        path: path.to_owned(),
        message,
    }
}

/// A tick label: at most 4 decimals, without trailing zeros (`2`, not `2.0`).
fn tick(value: f64) -> String {
    let text = format!("{value:.4}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".to_owned()
    } else {
        text.to_owned()
    }
}

/// Quotes a CSV field when it holds a comma, a quote or a line break.
fn csv_field(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_owned()
    }
}

/// `values[k]` as the points `(k, values[k])`: a history to plot against its index.
pub fn indexed(values: &[f64]) -> Vec<(f64, f64)> {
    values
        .iter()
        .enumerate()
        .map(|(k, &v)| (k as f64, v))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::tick;

    #[test]
    fn tick_labels_drop_trailing_zeros() {
        assert_eq!(tick(2.0), "2");
        assert_eq!(tick(100.0), "100");
        assert_eq!(tick(0.25), "0.25");
        assert_eq!(tick(-1.5), "-1.5");
        assert_eq!(tick(-0.00001), "0");
        assert_eq!(tick(1.0 / 3.0), "0.3333");
    }
}
