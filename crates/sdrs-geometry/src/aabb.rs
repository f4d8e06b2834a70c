//! Axis-aligned bounding boxes in world space.

use nalgebra::{Point3, Vector3};

/// An axis-aligned box `[mins, maxs]`.
///
/// ```
/// use sdrs_geometry::Aabb;
/// use nalgebra::Point3;
/// let a = Aabb::new(Point3::origin(), Point3::new(1.0, 1.0, 1.0));
/// let b = Aabb::new(Point3::new(1.5, 0.0, 0.0), Point3::new(2.0, 1.0, 1.0));
/// assert!(!a.intersects(&b));
/// assert!(a.inflated(0.25).intersects(&b.inflated(0.25)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aabb {
    /// Lower corner.
    pub mins: Point3<f64>,
    /// Upper corner.
    pub maxs: Point3<f64>,
}

impl Aabb {
    /// A box from its two corners (`mins <= maxs` componentwise is the caller's promise).
    pub fn new(mins: Point3<f64>, maxs: Point3<f64>) -> Self {
        Self { mins, maxs }
    }

    /// The empty box: merging anything into it gives that thing.
    pub fn empty() -> Self {
        Self {
            mins: Point3::from(Vector3::repeat(f64::INFINITY)),
            maxs: Point3::from(Vector3::repeat(f64::NEG_INFINITY)),
        }
    }

    /// The smallest box holding all `points` (empty if there are none).
    pub fn from_points<'a>(points: impl IntoIterator<Item = &'a Point3<f64>>) -> Self {
        points
            .into_iter()
            .fold(Self::empty(), |b, p| b.including(p))
    }

    /// This box grown to hold `p`.
    #[inline]
    pub fn including(&self, p: &Point3<f64>) -> Self {
        Self {
            mins: self.mins.inf(p),
            maxs: self.maxs.sup(p),
        }
    }

    /// The smallest box holding both boxes.
    #[inline]
    pub fn merged(&self, other: &Self) -> Self {
        Self {
            mins: self.mins.inf(&other.mins),
            maxs: self.maxs.sup(&other.maxs),
        }
    }

    /// This box grown by `margin` on every side.
    #[inline]
    pub fn inflated(&self, margin: f64) -> Self {
        let m = Vector3::repeat(margin);
        Self {
            mins: self.mins - m,
            maxs: self.maxs + m,
        }
    }

    /// Whether the closed boxes overlap (touching counts).
    #[inline]
    pub fn intersects(&self, other: &Self) -> bool {
        self.mins.x <= other.maxs.x
            && other.mins.x <= self.maxs.x
            && self.mins.y <= other.maxs.y
            && other.mins.y <= self.maxs.y
            && self.mins.z <= other.maxs.z
            && other.mins.z <= self.maxs.z
    }

    /// Whether `other` lies inside this box.
    pub fn contains(&self, other: &Self) -> bool {
        self.mins.x <= other.mins.x
            && self.mins.y <= other.mins.y
            && self.mins.z <= other.mins.z
            && self.maxs.x >= other.maxs.x
            && self.maxs.y >= other.maxs.y
            && self.maxs.z >= other.maxs.z
    }

    /// Centre point.
    pub fn center(&self) -> Point3<f64> {
        nalgebra::center(&self.mins, &self.maxs)
    }

    /// Edge lengths.
    pub fn extents(&self) -> Vector3<f64> {
        self.maxs - self.mins
    }

    /// Surface area (the cost measure of surface-area-heuristic builders).
    pub fn surface_area(&self) -> f64 {
        let e = self.extents();
        2.0 * (e.x * e.y + e.y * e.z + e.z * e.x)
    }
}
