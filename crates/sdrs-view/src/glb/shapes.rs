//! Colours and the marker shapes of the export: each link gets a hue, each of its hulls a
//! lightness within it; contact points are octahedra and forces arrows along +y.

use nalgebra::Point3;
use sdrs::geometry::ConvexHull;

/// The golden-ratio hue step: consecutive links get well separated hues.
const HUE_STEP: f64 = 0.618_033_988_749_895;

/// The linear RGB colour of hull `hull` of `hulls` on link `link`.
pub(super) fn hull_colour(link: usize, hull: usize, hulls: usize) -> [f32; 3] {
    hsl(
        (link as f64 * HUE_STEP).fract(),
        0.65,
        lightness(hull, hulls, 0.3),
    )
}

/// Hull `hull` of `hulls` on a link that never moves (the ground, a fixed base): greys, so the
/// moving bodies stand out.
pub(super) fn fixed_colour(hull: usize, hulls: usize) -> [f32; 3] {
    hsl(0.0, 0.0, lightness(hull, hulls, 0.6))
}

/// Colour `k` of the markers' palette: saturated hues a golden-ratio step apart, red first.
pub(super) fn marker_colour(k: usize) -> [f32; 3] {
    hsl((k as f64 * HUE_STEP).fract(), 0.9, 0.5)
}

/// Lightness `from` to `from + 0.4` over a link's hulls (the middle for a single hull).
fn lightness(hull: usize, hulls: usize, from: f64) -> f64 {
    if hulls > 1 {
        from + 0.4 * hull as f64 / (hulls - 1) as f64
    } else {
        from + 0.2
    }
}

/// HSL (all in `[0, 1]`) to RGB.
fn hsl(hue: f64, saturation: f64, lightness: f64) -> [f32; 3] {
    let chroma = (1.0 - (2.0 * lightness - 1.0).abs()) * saturation;
    let channel = |n: f64| {
        let k = (n + hue * 12.0) % 12.0;
        let a = chroma / 2.0;
        (lightness - a * (k - 3.0).min(9.0 - k).clamp(-1.0, 1.0)) as f32
    };
    [channel(0.0), channel(8.0), channel(4.0)]
}

/// A hull from vertices that span 3-D by construction.
fn hull(vertices: Vec<Point3<f64>>) -> ConvexHull {
    ConvexHull::new(vertices).expect("the marker vertices span three dimensions")
}

/// The unit octahedron (vertices at distance 1 on the axes): a contact or target marker.
pub(super) fn octahedron() -> ConvexHull {
    let mut vertices = Vec::with_capacity(6);
    for s in [1.0, -1.0] {
        vertices.extend([
            Point3::new(s, 0.0, 0.0),
            Point3::new(0.0, s, 0.0),
            Point3::new(0.0, 0.0, s),
        ]);
    }
    hull(vertices)
}

/// An arrow from the origin to `(0, 1, 0)` of unit width: a square shaft to `y = 0.75` and a
/// pyramid head; scaled by (width, length, width).
pub(super) fn arrow() -> [ConvexHull; 2] {
    let square = |half: f64, y: f64| {
        [(1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0)]
            .map(|(sx, sz)| Point3::new(sx * half, y, sz * half))
    };
    let mut shaft = square(0.2, 0.0).to_vec();
    shaft.extend(square(0.2, 0.75));
    let mut head = square(0.5, 0.75).to_vec();
    head.push(Point3::new(0.0, 1.0, 0.0));
    [hull(shaft), hull(head)]
}
