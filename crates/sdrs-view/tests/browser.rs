//! The viewer page in a real browser: headless Chromium opens it from `file://` at the first and
//! the last frame of a two-box animation; the screenshots (kept under
//! `<target>/sdrs-out/viewer/`) must show both boxes, and the moving one further right at the end,
//! and a red contact-force bar unless the fragment hides the contact forces; a 10 cm box that
//! travels 20 m is followed (large and in place in the view) unless the fragment says not to;
//! the grid shows on a ground slab that a body dips into, and on one that a turned octagonal
//! log rests on (whose loose bounding box dips below it).
//! Set `SDRS_SKIP_BROWSER_TESTS=1` to skip when Chromium is not installed.

use std::path::{Path, PathBuf};
use std::process::Command;

use sdrs_view::html::Viewer;

const CHROMIUM: &str = "/usr/bin/chromium";

/// A unit cube's 8 corners and its 12 outward triangles.
fn cube() -> (Vec<[f32; 3]>, Vec<u16>) {
    let corners = (0..8)
        .map(|i| {
            let c = |bit: u32| if i & (1 << bit) != 0 { 0.5 } else { -0.5 };
            [c(0), c(1), c(2)]
        })
        .collect();
    #[rustfmt::skip]
    let triangles = vec![
        0, 2, 1, 1, 2, 3, // -z
        4, 5, 6, 5, 7, 6, // +z
        0, 1, 4, 1, 5, 4, // -y
        2, 6, 3, 3, 6, 7, // +y
        0, 4, 2, 2, 4, 6, // -x
        1, 3, 5, 3, 7, 5, // +x
    ];
    (corners, triangles)
}

/// Key frames of the moving box: 20 keys, 0.1 s apart, x from 0.5 to 0.5 + `travel` at
/// height `y`.
fn keys(travel: f32, y: f32) -> (Vec<f32>, Vec<[f32; 3]>) {
    let times = (0..20).map(|k| k as f32 * 0.1).collect();
    let xs = (0..20)
        .map(|k| [0.5 + travel * k as f32 / 19.0, y, 0.0])
        .collect();
    (times, xs)
}

/// A glb with a blue unit box at rest at x = -1, an orange box of edge `edge` translated
/// along +x by `travel` over 20 keys, and a thin red bar above the blue box named like a
/// contact force.
fn two_box_glb(edge: f32, travel: f32) -> Vec<u8> {
    let nodes = format!(
        r#"{{"name":"box_at_rest","mesh":0,"translation":[-1,0.5,0]}},{{"name":"box_moving","mesh":1,"translation":[0.5,0.5,0],"scale":[{edge},{edge},{edge}]}},
{{"name":"contact_force_0","mesh":2,"translation":[-1,1.5,0],"scale":[0.1,1,0.1]}}"#
    );
    boxes_glb(&nodes, 0.5, travel)
}

/// A glb with a 40 m x 1 m x 40 m green slab at rest, its top at y = 0, and an orange box of
/// edge 0.2 whose bottom sinks 1 cm into it, moving 0.5 m along +x (as a body's drawn hull
/// can reach below a ground it rests on).
fn slab_glb() -> Vec<u8> {
    let nodes = r#"{"name":"ground","mesh":3,"translation":[0,-0.5,0],"scale":[40,1,40]},{"name":"box_moving","mesh":1,"translation":[0.5,0.09,0],"scale":[0.2,0.2,0.2]},
{"name":"contact_force_0","mesh":2,"translation":[0.5,0.5,0],"scale":[0.02,0.2,0.02]}"#;
    boxes_glb(nodes, 0.09, 0.5)
}

/// A glb of unit cubes: the three `nodes` (JSON) with meshes 0-3 in blue, orange, red and
/// green; node 1 moves along +x by `travel` over 20 keys at height `y`.
fn boxes_glb(nodes: &str, y: f32, travel: f32) -> Vec<u8> {
    let (corners, triangles) = cube();
    let (times, xs) = keys(travel, y);
    let mut bin: Vec<u8> = Vec::new();
    corners
        .iter()
        .flatten()
        .for_each(|v| bin.extend(v.to_le_bytes()));
    triangles.iter().for_each(|i| bin.extend(i.to_le_bytes()));
    times.iter().for_each(|t| bin.extend(t.to_le_bytes()));
    xs.iter()
        .flatten()
        .for_each(|v| bin.extend(v.to_le_bytes()));
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":[0,1,2]}}],
"nodes":[{nodes}],
"meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}},"indices":1,"material":0}}]}},{{"primitives":[{{"attributes":{{"POSITION":0}},"indices":1,"material":1}}]}},{{"primitives":[{{"attributes":{{"POSITION":0}},"indices":1,"material":2}}]}},{{"primitives":[{{"attributes":{{"POSITION":0}},"indices":1,"material":3}}]}}],
"materials":[{{"pbrMetallicRoughness":{{"baseColorFactor":[0.1,0.3,0.9,1],"metallicFactor":0}}}},{{"pbrMetallicRoughness":{{"baseColorFactor":[0.95,0.45,0.05,1],"metallicFactor":0}}}},{{"pbrMetallicRoughness":{{"baseColorFactor":[0.9,0.05,0.05,1],"metallicFactor":0}}}},{{"pbrMetallicRoughness":{{"baseColorFactor":[0.1,0.5,0.1,1],"metallicFactor":0}}}}],
"buffers":[{{"byteLength":{len}}}],
"bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":96}},{{"buffer":0,"byteOffset":96,"byteLength":72}},{{"buffer":0,"byteOffset":168,"byteLength":80}},{{"buffer":0,"byteOffset":248,"byteLength":240}}],
"accessors":[{{"bufferView":0,"componentType":5126,"count":8,"type":"VEC3","min":[-0.5,-0.5,-0.5],"max":[0.5,0.5,0.5]}},
{{"bufferView":1,"componentType":5123,"count":36,"type":"SCALAR"}},
{{"bufferView":2,"componentType":5126,"count":20,"type":"SCALAR","min":[0],"max":[{tmax}]}},
{{"bufferView":3,"componentType":5126,"count":20,"type":"VEC3"}}],
"animations":[{{"name":"motion","samplers":[{{"input":2,"output":3,"interpolation":"LINEAR"}}],"channels":[{{"sampler":0,"target":{{"node":1,"path":"translation"}}}}]}}]}}"#,
        len = bin.len(),
        tmax = times[19],
    );
    let mut json = json.into_bytes();
    while !json.len().is_multiple_of(4) {
        json.push(b' ');
    }
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let total = 12 + 8 + json.len() + 8 + bin.len();
    let mut glb = b"glTF".to_vec();
    glb.extend(2u32.to_le_bytes());
    glb.extend((total as u32).to_le_bytes());
    glb.extend((json.len() as u32).to_le_bytes());
    glb.extend(b"JSON");
    glb.extend(json);
    glb.extend((bin.len() as u32).to_le_bytes());
    glb.extend(b"BIN\0");
    glb.extend(bin);
    glb
}

/// `<target>/sdrs-out/viewer/`, made if missing.
fn out_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    let dir = target.join("sdrs-out").join("viewer");
    std::fs::create_dir_all(&dir).expect("create the screenshot directory");
    dir
}

/// Headless Chromium on `page#fragment` with `extra` flags; its stdout.
fn chromium(page: &Path, fragment: &str, extra: &[String]) -> String {
    let url = format!("file://{}#{fragment}", page.display());
    let out = Command::new(CHROMIUM)
        .args([
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--use-angle=swiftshader",
            "--enable-unsafe-swiftshader",
            "--hide-scrollbars",
            "--window-size=900,600",
            "--virtual-time-budget=5000",
        ])
        .args(extra)
        .arg(&url)
        .output()
        .expect("run chromium");
    assert!(
        out.status.success(),
        "chromium failed on {url}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A fresh screenshot of `page#fragment` at `png`.
fn screenshot(page: &Path, fragment: &str, png: &Path) {
    let _ = std::fs::remove_file(png);
    chromium(page, fragment, &[format!("--screenshot={}", png.display())]);
}

/// Pixels of a body colour in the 3-D view (left of the 250 px side panel, above the control
/// bar): their count and mean x.
fn body_pixels(png: &Path, is_body: fn([u8; 3]) -> bool) -> (usize, f64) {
    let img = image::open(png).expect("read screenshot").to_rgb8();
    let (mut n, mut sum_x) = (0usize, 0.0);
    for (x, y, p) in img.enumerate_pixels() {
        if x < img.width() - 250 && y < img.height() - 40 && is_body(p.0) {
            n += 1;
            sum_x += f64::from(x);
        }
    }
    (n, if n > 0 { sum_x / n as f64 } else { f64::NAN })
}

fn orange([r, g, b]: [u8; 3]) -> bool {
    i32::from(r) > i32::from(g) + 40 && i32::from(g) > i32::from(b) + 20
}

fn red([r, g, b]: [u8; 3]) -> bool {
    u32::from(r) > 2 * u32::from(g) && u32::from(r) > 2 * u32::from(b)
}

fn blue([r, g, b]: [u8; 3]) -> bool {
    i32::from(b) > i32::from(r) + 60 && i32::from(b) > i32::from(g) + 30
}

/// Whether the page's plot `id` (its `<svg>` in the DOM `dom`) is hidden.
fn plot_hidden(dom: &str, id: &str) -> bool {
    let svg = plot(dom, id);
    svg[..svg.find('>').expect("the tag ends")].contains("display: none")
}

/// The page's plot `id` in the DOM `dom`: its `<svg>` element up to its closing tag.
fn plot<'a>(dom: &'a str, id: &str) -> &'a str {
    let start = dom
        .find(&format!(r#"<svg id="{id}""#))
        .unwrap_or_else(|| panic!("no plot {id} in the page"));
    &dom[start..start + dom[start..].find("</svg>").expect("the plot ends")]
}

/// Whether Chromium is there to run; without it a browser test fails, unless
/// `SDRS_SKIP_BROWSER_TESTS=1` asks to skip.
fn browser_available() -> bool {
    if Path::new(CHROMIUM).exists() {
        return true;
    }
    if std::env::var("SDRS_SKIP_BROWSER_TESTS").as_deref() == Ok("1") {
        eprintln!("{CHROMIUM} not found; skipped (SDRS_SKIP_BROWSER_TESTS=1)");
        return false;
    }
    panic!(
        "{CHROMIUM} not found: install Debian's chromium (apt-get install -y chromium) \
         or set SDRS_SKIP_BROWSER_TESTS=1 to skip the browser tests"
    );
}

#[test]
fn chromium_draws_the_first_and_last_frames() {
    if !browser_available() {
        return;
    }
    let dir = out_dir();
    let page = dir.join("two_boxes.html");
    Viewer::new(&two_box_glb(1.0, 2.0), "two boxes")
        .unwrap()
        .with_loss(vec![(0.0, 4.0), (1.0, 2.0), (2.0, 1.0), (3.0, 0.5)])
        .unwrap()
        .with_step_times(vec![1.2, 1.1, 1.3, 1.2])
        .unwrap()
        .write_html(&page)
        .unwrap();

    let dom = chromium(&page, "t=last", &["--dump-dom".to_owned()]);
    assert!(
        dom.contains(r#"data-ready="1""#),
        "the page did not finish drawing: {}",
        &dom[..dom.len().min(600)]
    );
    assert!(!plot_hidden(&dom, "loss") && !plot_hidden(&dom, "steps"));

    // Screenshot of `page#t=<fragment>`: (orange, blue, red) pixel counts and mean x.
    let shoot = |name: &str, fragment: &str| {
        let png = dir.join(format!("two_boxes_{name}.png"));
        screenshot(&page, fragment, &png);
        let counts = [orange, blue, red].map(|colour| body_pixels(&png, colour));
        let [(n_orange, _), (n_blue, _), _] = counts;
        assert!(
            n_orange > 500 && n_blue > 500,
            "{name}: {n_orange} orange and {n_blue} blue pixels in {}",
            png.display()
        );
        counts
    };
    let [(_, orange0), (_, blue0), (red0, _)] = shoot("first", "t=first");
    let [(_, orange1), (_, blue1), (red1, _)] = shoot("last", "t=last");
    let [_, _, (red_off, _)] = shoot("last_no_contacts", "t=last&contacts=off");
    assert!(
        orange1 - orange0 > 100.0,
        "the moving box went from x = {orange0:.0} px to {orange1:.0} px"
    );
    assert!(
        (blue1 - blue0).abs() < 2.0,
        "the box at rest went from x = {blue0:.0} px to {blue1:.0} px"
    );
    assert!(
        red0 > 100 && red1 > 100 && red_off == 0,
        "contact-force pixels: {red0} first, {red1} last, {red_off} with contacts=off"
    );
}

/// The text of the element of class `class` inside the page's plot `id` (in the DOM `dom`).
fn plot_label(dom: &str, id: &str, class: &str) -> String {
    let svg = plot(dom, id);
    let opening = format!(r#"class="{class}">"#);
    let at = svg
        .find(&opening)
        .unwrap_or_else(|| panic!("no label {class} in plot {id}: {svg}"));
    let text = &svg[at + opening.len()..];
    text[..text.find('<').expect("the label ends")].to_owned()
}

#[test]
fn a_loss_that_changes_in_its_fifth_digit_gets_two_different_axis_labels() {
    if !browser_available() {
        return;
    }
    let dir = out_dir();
    // (loss from, to, the labels expected at the low and high ends)
    let cases = [
        // A receding-horizon window's loss (the long-range gather example): 2.38 at both ends
        // before the labels took more digits.
        ((2.3775, 2.37742), ("2.3774", "2.3775")),
        // A loss that halves keeps 3 digits.
        ((4.0, 0.5), ("0.500", "4.00")),
    ];
    for (k, ((from, to), (low, high))) in cases.into_iter().enumerate() {
        let page = dir.join(format!("axis_labels_{k}.html"));
        Viewer::new(&two_box_glb(1.0, 2.0), "axis labels")
            .unwrap()
            .with_loss(vec![(0.0, from), (1.0, to)])
            .unwrap()
            .write_html(&page)
            .unwrap();
        let dom = chromium(&page, "t=first", &["--dump-dom".to_owned()]);
        assert_eq!(
            (
                plot_label(&dom, "loss", "y-low"),
                plot_label(&dom, "loss", "y-high")
            ),
            (low.to_owned(), high.to_owned()),
            "the loss plot's labels for a loss from {from} to {to}"
        );
    }
}

#[test]
fn the_camera_follows_a_small_body_that_travels_far() {
    if !browser_available() {
        return;
    }
    let dir = out_dir();
    let page = dir.join("far_traveller.html");
    Viewer::new(&two_box_glb(0.1, 20.0), "a 10 cm box travelling 20 m")
        .unwrap()
        .write_html(&page)
        .unwrap();
    // Orange pixels (count, mean x) of `page#fragment`.
    let orange_at = |name: &str, fragment: &str| {
        let png = dir.join(format!("far_traveller_{name}.png"));
        screenshot(&page, fragment, &png);
        body_pixels(&png, orange)
    };
    let (first, x_first) = orange_at("first", "t=first");
    let (last, x_last) = orange_at("last", "t=last");
    let (still, _) = orange_at("last_still", "t=last&follow=off");
    assert!(
        first > 1000 && last > 1000 && 20 * still < last,
        "orange pixels: {first} first and {last} last followed, {still} last without following"
    );
    assert!(
        (x_last - x_first).abs() < 20.0,
        "followed, the box moved in the view from x = {x_first:.0} px to {x_last:.0} px"
    );
}

/// Pixels of the 3-D view (left of the side panel, above the controls) of the screenshot at
/// `png` where the green slab does not show: grey grid lines over it (antialiased into the
/// green) rather than the slab or the orange box.
fn grid_over_green(png: &Path) -> usize {
    let img = image::open(png).expect("read screenshot").to_rgb8();
    img.enumerate_pixels()
        .filter(|&(x, y, p)| {
            let [r, g, b] = p.0.map(i32::from);
            // Not the page's background (0xe8ecf1), should the slab not fill the view.
            let background = (r - 0xe8).abs() + (g - 0xec).abs() + (b - 0xf1).abs() < 12;
            x < 600 && y < 540 && r <= g && g - r < 50 && !background
        })
        .count()
}

#[test]
fn the_grid_lies_on_the_ground_slab_even_when_a_body_dips_into_it() {
    if !browser_available() {
        return;
    }
    let dir = out_dir();
    let page = dir.join("slab.html");
    Viewer::new(&slab_glb(), "a box on a slab")
        .unwrap()
        .write_html(&page)
        .unwrap();
    // A run without a loss or step times shows no empty plot for them.
    let dom = chromium(&page, "t=last", &["--dump-dom".to_owned()]);
    assert!(plot_hidden(&dom, "loss") && plot_hidden(&dom, "steps"));
    let png = dir.join("slab_last.png");
    screenshot(&page, "t=last&contacts=off", &png);
    let lines = grid_over_green(&png);
    let (box_pixels, _) = body_pixels(&png, orange);
    // At the box's lowest point, under the slab's top, the grid was hidden: 0 pixels.
    assert!(
        lines > 2000 && box_pixels > 500,
        "{lines} grid pixels and {box_pixels} orange ones in {}",
        png.display()
    );
}

/// Pixels of grid lines over a light grey slab in the 3-D view: light, slightly blue grey
/// (the lines' 0x8a94a3 and 0xc3cad3 blended into the slab's grey), not the page's background.
fn grid_over_grey(png: &Path) -> usize {
    let img = image::open(png).expect("read screenshot").to_rgb8();
    img.enumerate_pixels()
        .filter(|&(x, y, p)| {
            let [r, g, b] = p.0.map(i32::from);
            let background = (r - 0xe8).abs() + (g - 0xec).abs() + (b - 0xf1).abs() < 12;
            x < 600 && y < 540 && r > 150 && b - r > 2 && b - r < 40 && !background
        })
        .count()
}

/// An sdrs run: a 40 m ground slab (top at z = 0) and an octagonal log (radius 0.1 m, 0.6 m
/// long along x, vertices at multiples of 45° about its axis) turned 45° about that axis,
/// resting on the slab, sliding 0.5 m along x. Its local bounding box turned with it reaches
/// 4.1 cm below the slab's top.
fn log_glb() -> Vec<u8> {
    use sdrs::dynamics::{JointKind, Link, MassModel, Model, State};
    use sdrs::geometry::ConvexHull;
    use sdrs::prelude::{Isometry3, Point3, Translation3, UnitQuaternion, Vector3};
    let octagon: Vec<Point3<f64>> = (0..8)
        .flat_map(|k| {
            let a = f64::from(k) * std::f64::consts::FRAC_PI_4;
            [-0.3, 0.3].map(|x| Point3::new(x, 0.1 * a.cos(), 0.1 * a.sin()))
        })
        .collect();
    let ground = Link::new(
        "ground",
        None,
        Isometry3::translation(0.0, 0.0, -0.5),
        JointKind::Fixed,
        vec![ConvexHull::cuboid(Vector3::new(20.0, 20.0, 0.5)).unwrap()],
        MassModel::Lumped { mass: 1.0 },
    );
    let turned = Isometry3::from_parts(
        Translation3::new(0.0, 0.0, 0.1),
        UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f64::consts::FRAC_PI_4),
    );
    let log = Link::new(
        "log",
        None,
        turned,
        JointKind::Prismatic { axis: Vector3::x() },
        vec![ConvexHull::new(octagon).unwrap()],
        MassModel::Lumped { mass: 1.0 },
    );
    let model = Model::new(vec![ground, log]).unwrap();
    let states: Vec<State> = (0..20)
        .map(|k| {
            let mut state = State::zero(&model);
            state.q[0] = 0.5 * f64::from(k) / 19.0;
            state
        })
        .collect();
    sdrs_view::glb::Animation::from_states(&model, 0.05, &states)
        .unwrap()
        .to_glb()
        .unwrap()
}

#[test]
fn the_grid_lies_on_the_ground_under_a_turned_body_whose_loose_box_dips_below_it() {
    if !browser_available() {
        return;
    }
    let dir = out_dir();
    let page = dir.join("log.html");
    Viewer::new(&log_glb(), "a turned log on a slab")
        .unwrap()
        .write_html(&page)
        .unwrap();
    let png = dir.join("log_last.png");
    screenshot(&page, "t=last&contacts=off", &png);
    // Framed by the log's loose box, the grid lay 4.1 cm under the slab's top: hidden.
    let lines = grid_over_grey(&png);
    assert!(lines > 2000, "{lines} grid pixels in {}", png.display());
}
