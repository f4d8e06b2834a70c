//! Plots are written as valid SVG (parsed as XML, series named), valid PNG (signature and
//! requested size) and CSV; bad data gives typed errors.

use std::path::PathBuf;

use sdrs_report::{LinePlot, ReportError};

/// A fresh directory, removed when the returned guard drops.
fn scratch() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_owned();
    (dir, path)
}

fn history() -> LinePlot {
    let decay = |rate: f64| {
        (0..20)
            .map(|i| (i as f64, (-rate * i as f64).exp()))
            .collect()
    };
    LinePlot::new("chain reach")
        .x_label("iteration")
        .y_label("loss (m²)")
        .log_y(true)
        .size(640, 400)
        .series("control only", decay(0.3))
        .series("co-design", decay(0.7))
}

#[test]
fn svg_is_xml_naming_every_series() {
    let (_guard, dir) = scratch();
    let path = dir.join("history.svg");
    history().write_svg(&path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let doc = roxmltree::Document::parse(&text).expect("the SVG parses as XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let texts: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text().map(str::trim))
        .collect();
    for name in [
        "control only",
        "co-design",
        "chain reach",
        "iteration",
        "loss (m²)",
    ] {
        assert!(texts.contains(&name), "{name:?} not among {texts:?}");
    }
    // Whole iterations are labelled without decimals.
    assert!(texts.contains(&"10"), "{texts:?}");
    assert!(!texts.iter().any(|t| t.ends_with(".0")), "{texts:?}");
    // Two series → at least two polylines.
    let lines = doc
        .descendants()
        .filter(|n| n.has_tag_name("polyline"))
        .count();
    assert!(lines >= 2, "{lines} polylines");
}

#[test]
fn png_has_signature_and_requested_size() {
    let (_guard, dir) = scratch();
    let path = dir.join("history.png");
    history().write_png(&path).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(&bytes[12..16], b"IHDR");
    let width = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
    let height = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
    assert_eq!((width, height), (640, 400));
}

#[test]
fn write_all_writes_csv_svg_png_and_csv_holds_the_data() {
    let (_guard, dir) = scratch();
    let dir = dir.join("nested");
    let paths = history().write_all(&dir, "h").unwrap();
    let names: Vec<_> = paths
        .iter()
        .map(|p| p.file_name().unwrap().to_str().unwrap())
        .collect();
    assert_eq!(names, ["h.csv", "h.svg", "h.png"]);
    let csv = std::fs::read_to_string(&paths[0]).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("series,iteration,loss (m²)"));
    assert_eq!(lines.next(), Some("control only,0,1e0"));
    assert_eq!(csv.lines().count(), 1 + 2 * 20);
    let last: Vec<&str> = csv.lines().last().unwrap().split(',').collect();
    assert_eq!(last[0], "co-design");
    assert_eq!(last[1], "19");
    let y: f64 = last[2].parse().unwrap();
    assert!((y - (-0.7f64 * 19.0).exp()).abs() < 1e-15 * y.abs().max(1.0) * 10.0);
}

#[test]
fn csv_quotes_names_with_commas() {
    let (_guard, dir) = scratch();
    let path = dir.join("q.csv");
    LinePlot::new("t")
        .series("a, \"b\"", vec![(1.0, 2.0)])
        .write_csv(&path)
        .unwrap();
    let csv = std::fs::read_to_string(&path).unwrap();
    assert_eq!(csv, "series,x,y\n\"a, \"\"b\"\"\",1,2e0\n");
}

#[test]
fn linear_axis_accepts_signed_and_constant_data() {
    let (_guard, dir) = scratch();
    let plot = LinePlot::new("flat").series("zero", vec![(0.0, 0.0), (1.0, 0.0)]);
    plot.write_svg(&dir.join("flat.svg")).unwrap();
    let plot = LinePlot::new("one point").series("p", vec![(3.0, -2.0)]);
    plot.write_png(&dir.join("one.png")).unwrap();
}

#[test]
fn bad_data_gives_typed_errors() {
    let (_guard, dir) = scratch();
    let svg = dir.join("bad.svg");
    let err = LinePlot::new("empty").write_svg(&svg).unwrap_err();
    assert!(matches!(err, ReportError::Empty { .. }), "{err}");
    let err = LinePlot::new("empty")
        .series("none", vec![])
        .write_png(&svg)
        .unwrap_err();
    assert!(matches!(err, ReportError::Empty { .. }), "{err}");

    let err = LinePlot::new("nan")
        .series("s", vec![(0.0, 1.0), (1.0, f64::NAN)])
        .write_svg(&svg)
        .unwrap_err();
    assert!(
        matches!(err, ReportError::NonFinite { index: 1, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("must be finite"));

    let err = LinePlot::new("log")
        .log_y(true)
        .series("s", vec![(0.0, 1.0), (1.0, 0.0)])
        .write_svg(&svg)
        .unwrap_err();
    assert!(
        matches!(err, ReportError::NotPositive { index: 1, y, .. } if y == 0.0),
        "{err}"
    );

    let err = history().size(20, 400).write_png(&svg).unwrap_err();
    assert!(matches!(err, ReportError::Size { width: 20, .. }), "{err}");

    // Nothing was written for invalid plots.
    assert!(!svg.exists());
}

#[test]
fn unwritable_paths_are_errors_not_panics() {
    let (_guard, dir) = scratch();
    let file = dir.join("a-file");
    std::fs::write(&file, "x").unwrap();
    // A directory cannot be created under a regular file.
    let err = history().write_all(&file.join("sub"), "h").unwrap_err();
    assert!(matches!(err, ReportError::Io { .. }), "{err}");
    let err = history().write_png(&file.join("h.png")).unwrap_err();
    assert!(matches!(err, ReportError::Draw { .. }), "{err}");
    let err = history().write_csv(&file.join("h.csv")).unwrap_err();
    assert!(err.to_string().contains("h.csv"), "{err}");
}
