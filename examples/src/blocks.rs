//! A jaw made of a grid of convex blocks whose vertices are the design (SDRS sec. III-B and
//! V-E/V-F: "we evenly divide the gripper into 156 convex blocks").
//!
//! Each block is a box hull of 8 vertices; every vertex coordinate is one design parameter
//! (its displacement from the initial box corner, in the link's frame), so a block can shrink,
//! grow and shear independently of its neighbours: shrinking the blocks in one place opens a
//! hole (a topology change) while the jaw stays a union of convex hulls.
//!
//! A hull whose 8 vertices collapse onto a plane is degenerate and the model rejects it, so
//! [`JawBlocks::bounds`] keeps every vertex in its own octant of the block (seen from the
//! block's centre): along each axis its distance to the centre stays within
//! `[SHRINK, GROW]` times the block's initial half-extent (a jaw may allow more growth along
//! some axis, [`JawBlocks::with_growth`]). A block shrunk to the lower bound
//! keeps 10% of its size — a 90% hole, not a missing block (chosen: the paper does not say how
//! far blocks shrink; a true vanishing block would need a change of hull count).
//!
//! Those bounds leave a lattice of block cores that a large object cannot pass (the single
//! jaw, [`crate::single_jaw`]). [`JawBlocks::with_retreat`] (ours, not the paper's) adds one
//! parameter per block: a translation of all its 8 vertices along a direction (the plate's
//! normal, away from the object) by `[0, depth]`. A block can then leave the plate wholly
//! while the octant bounds keep its shape a solid (a common translation cannot flatten a
//! hull), and [`JawBlocks::volume_fraction`] counts a block that left as lost material.

use sdrs::prelude::*;

/// Smallest distance of a vertex to its block's centre, per axis, relative to the half-extent.
pub const SHRINK: f64 = 0.1;
/// Largest distance of a vertex to its block's centre, per axis, relative to the half-extent
/// (blocks may grow into their neighbours: they are on one link, which has no self-contact).
pub const GROW: f64 = 1.5;

/// A grid of `counts[0] × counts[1] × counts[2]` box blocks of size `block` (full edge
/// lengths), centred on the link's origin, plus the design parameters that move their vertices.
#[derive(Debug, Clone)]
pub struct JawBlocks {
    /// The blocks' hulls, x fastest, then y, then z.
    pub hulls: Vec<ConvexHull>,
    /// Half-extents of one block (m).
    pub half: Vector3<f64>,
    /// Largest distance of a vertex to its block's centre along each axis, relative to the
    /// half-extent ([`GROW`] on every axis unless set by [`JawBlocks::with_growth`]).
    pub growth: Vector3<f64>,
    /// Each block's translation out of the plate, when set ([`JawBlocks::with_retreat`]).
    pub retreat: Option<Retreat>,
}

/// How far blocks may leave the plate: every block may be translated by `[0, depth]` along
/// `direction` (one design parameter per block, after the vertices' parameters).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Retreat {
    /// The direction blocks leave along, in the link's frame (unit length).
    pub direction: Vector3<f64>,
    /// The largest translation (m).
    pub depth: f64,
}

impl JawBlocks {
    /// The grid; errors when a count is zero or a size not positive.
    ///
    /// ```
    /// use sdrs_examples::blocks::JawBlocks;
    /// use sdrs::prelude::Vector3;
    /// let jaw = JawBlocks::grid([1, 13, 12], Vector3::new(0.03, 0.02, 0.02))?;
    /// assert_eq!(jaw.hulls.len(), 156);
    /// assert_eq!(jaw.parameters(), 156 * 8 * 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn grid(counts: [usize; 3], block: Vector3<f64>) -> Result<Self, BlocksError> {
        if counts.contains(&0) {
            return Err(BlocksError::Counts(counts));
        }
        let half = block / 2.0;
        let mut hulls = Vec::with_capacity(counts.iter().product());
        for k in 0..counts[2] {
            for j in 0..counts[1] {
                for i in 0..counts[0] {
                    let centre = Vector3::new(
                        (i as f64 + 0.5 - counts[0] as f64 / 2.0) * block.x,
                        (j as f64 + 0.5 - counts[1] as f64 / 2.0) * block.y,
                        (k as f64 + 0.5 - counts[2] as f64 / 2.0) * block.z,
                    );
                    let hull = ConvexHull::cuboid(half).map_err(BlocksError::Block)?;
                    let corners = hull.vertices().iter().map(|v| v + centre).collect();
                    hulls.push(ConvexHull::new(corners).map_err(BlocksError::Block)?);
                }
            }
        }
        Ok(Self {
            hulls,
            half,
            growth: Vector3::repeat(GROW),
            retreat: None,
        })
    }

    /// The same blocks with vertices allowed `growth[k]` half-extents from their block's
    /// centre along axis `k` (each at least 1: the initial box stays inside the bounds).
    ///
    /// ```
    /// use sdrs_examples::blocks::{BlocksError, JawBlocks};
    /// use sdrs::prelude::Vector3;
    /// let jaw = JawBlocks::grid([1, 1, 1], Vector3::repeat(0.02))?
    ///     .with_growth(Vector3::new(1.5, 3.0, 1.5))?;
    /// let (lower, upper) = jaw.bounds();
    /// // Vertex 0 is the (−, −, −) corner: it may move 2 cm outwards along y, 5 mm along x.
    /// assert!((lower[1] + 0.02).abs() < 1e-12 && (lower[0] + 0.005).abs() < 1e-12);
    /// assert!(upper[1] > 0.0);
    /// assert!(matches!(jaw.with_growth(Vector3::new(1.5, 0.9, 1.5)), Err(BlocksError::Growth(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_growth(self, growth: Vector3<f64>) -> Result<Self, BlocksError> {
        if !growth.iter().all(|g| g.is_finite() && *g >= 1.0) {
            return Err(BlocksError::Growth(growth));
        }
        Ok(Self { growth, ..self })
    }

    /// The same blocks, each also free to move by up to `depth` along `direction` (in the
    /// link's frame) as a whole: one more parameter per block, parameter
    /// `3·8·blocks + b` for block `b`, bounded to `[0, depth]`. Errors when `depth` is not
    /// finite and positive or `direction` is not finite and non-zero.
    ///
    /// ```
    /// use sdrs_examples::blocks::{BlocksError, JawBlocks};
    /// use sdrs::prelude::{DVector, Vector3};
    /// let jaw = JawBlocks::grid([1, 2, 1], Vector3::repeat(0.02))?
    ///     .with_retreat(Vector3::x(), 0.05)?;
    /// assert_eq!(jaw.parameters(), 2 * 8 * 3 + 2);
    /// let (lower, upper) = jaw.bounds();
    /// assert_eq!((lower[48], upper[48]), (0.0, 0.05));
    /// // Block 1 moved 5 cm out of the plate: half the material left.
    /// let mut p = DVector::zeros(jaw.parameters());
    /// p[49] = 0.05;
    /// assert!((jaw.volume_fraction(&p) - 0.5).abs() < 1e-12);
    /// assert!(matches!(jaw.clone().with_retreat(Vector3::x(), 0.0), Err(BlocksError::Retreat { .. })));
    /// assert!(matches!(jaw.with_retreat(Vector3::zeros(), 0.05), Err(BlocksError::Retreat { .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_retreat(self, direction: Vector3<f64>, depth: f64) -> Result<Self, BlocksError> {
        let norm = direction.norm();
        if !(norm.is_finite() && norm > 0.0 && depth.is_finite() && depth > 0.0) {
            return Err(BlocksError::Retreat { direction, depth });
        }
        Ok(Self {
            retreat: Some(Retreat {
                direction: direction / norm,
                depth,
            }),
            ..self
        })
    }

    /// The same blocks moved by `by` in the link's frame (a grid hanging below its joint rather
    /// than centred on it).
    ///
    /// ```
    /// use sdrs_examples::blocks::JawBlocks;
    /// use sdrs::prelude::Vector3;
    /// let finger = JawBlocks::grid([1, 1, 4], Vector3::new(0.01, 0.02, 0.01))?
    ///     .translated(Vector3::new(0.0, 0.0, -0.02))?;
    /// let lowest = finger.hulls.iter().flat_map(|h| h.vertices()).map(|v| v.z).fold(0.0, f64::min);
    /// assert!((lowest + 0.04).abs() < 1e-12);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn translated(self, by: Vector3<f64>) -> Result<Self, BlocksError> {
        let hulls = self
            .hulls
            .iter()
            .map(|h| ConvexHull::new(h.vertices().iter().map(|v| v + by).collect()))
            .collect::<Result<_, _>>()
            .map_err(BlocksError::Block)?;
        Ok(Self { hulls, ..self })
    }

    /// The number of design parameters: 3 per vertex, plus 1 per block with
    /// [`JawBlocks::with_retreat`].
    pub fn parameters(&self) -> usize {
        self.vertex_parameters() + self.retreat.map_or(0, |_| self.hulls.len())
    }

    /// The number of vertex parameters (3 per vertex): the first retreat parameter's index.
    fn vertex_parameters(&self) -> usize {
        3 * self.hulls.iter().map(|h| h.vertices().len()).sum::<usize>()
    }

    /// The design map of link `link` of `model` (which holds these blocks as its hulls, in
    /// order, from hull 0): parameter `3·(8·b + v) + k` moves coordinate `k` of vertex `v` of
    /// block `b`; with [`JawBlocks::with_retreat`], parameter `3·8·blocks + b` moves all of
    /// block `b`'s vertices along the retreat direction.
    pub fn design(&self, model: &Model, link: &str) -> Result<DesignMap, BlocksError> {
        let mut map = DesignMap::new(model, self.parameters());
        self.add_to(&mut map, model, link, 0)?;
        Ok(map)
    }

    /// Adds these blocks' parameters to `map` from parameter `first` on (the layout of
    /// [`JawBlocks::design`] shifted by `first`), for link `link` of `model`: several jaws
    /// in one design vector. Returns the next free parameter.
    pub fn add_to(
        &self,
        map: &mut DesignMap,
        model: &Model,
        link: &str,
        first: usize,
    ) -> Result<usize, BlocksError> {
        let mut parameter = first;
        for (b, hull) in self.hulls.iter().enumerate() {
            for v in 0..hull.vertices().len() {
                for k in 0..3 {
                    map.hull_vertices(model, link, b, &[v], &Vector3::ith(k, 1.0), parameter)
                        .map_err(BlocksError::Design)?;
                    parameter += 1;
                }
            }
        }
        if let Some(retreat) = self.retreat {
            for (b, hull) in self.hulls.iter().enumerate() {
                let all: Vec<usize> = (0..hull.vertices().len()).collect();
                map.hull_vertices(model, link, b, &all, &retreat.direction, parameter)
                    .map_err(BlocksError::Design)?;
                parameter += 1;
            }
        }
        Ok(parameter)
    }

    /// Lower and upper bounds of the parameters that keep every vertex in its octant
    /// (`[SHRINK, growth[k]]` half-extents from its block's centre along axis `k`), and each
    /// block's retreat in `[0, depth]` ([`JawBlocks::with_retreat`]).
    pub fn bounds(&self) -> (DVector<f64>, DVector<f64>) {
        let n = self.parameters();
        let (mut lower, mut upper) = (DVector::zeros(n), DVector::zeros(n));
        let mut at = 0;
        for hull in &self.hulls {
            let centre = hull
                .vertices()
                .iter()
                .map(|v| v.coords)
                .sum::<Vector3<f64>>()
                / hull.vertices().len() as f64;
            for v in hull.vertices() {
                for k in 0..3 {
                    // The corner sits at centre + s h; it may move to centre + s [SHRINK, growth] h.
                    let s = (v[k] - centre[k]).signum();
                    let (a, b) = (
                        s * (SHRINK - 1.0) * self.half[k],
                        s * (self.growth[k] - 1.0) * self.half[k],
                    );
                    (lower[at], upper[at]) = (a.min(b), a.max(b));
                    at += 1;
                }
            }
        }
        if let Some(retreat) = self.retreat {
            upper.rows_mut(at, self.hulls.len()).fill(retreat.depth);
        }
        (lower, upper)
    }

    /// The fraction of the blocks' initial volume that design `p` keeps (each block's volume
    /// from its axis-aligned extents), to report holes: below 1 the jaw has lost material. A
    /// block moved wholly past the plate's initial extent along the retreat direction
    /// ([`JawBlocks::with_retreat`]) has left the plate and counts nothing.
    pub fn volume_fraction(&self, p: &DVector<f64>) -> f64 {
        let mut kept = 0.0;
        let mut at = 0;
        // The retreat direction and the plate's far face along it.
        let far = self.retreat.map(|r| {
            let depth = |x: &Point3<f64>| x.coords.dot(&r.direction);
            let face = self
                .hulls
                .iter()
                .flat_map(|h| h.vertices())
                .map(depth)
                .fold(f64::NEG_INFINITY, f64::max);
            (r.direction, face)
        });
        let first_retreat = self.vertex_parameters();
        for (b, hull) in self.hulls.iter().enumerate() {
            let shift = far.map_or(Vector3::zeros(), |(d, _)| p[first_retreat + b] * d);
            let moved: Vec<Vector3<f64>> = hull
                .vertices()
                .iter()
                .enumerate()
                .map(|(v, x)| x.coords + p.fixed_rows::<3>(at + 3 * v).into_owned() + shift)
                .collect();
            at += 3 * moved.len();
            if far.is_some_and(|(d, face)| moved.iter().all(|x| x.dot(&d) >= face)) {
                continue;
            }
            let extent = |k: usize| {
                let (lo, hi) = moved
                    .iter()
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
                        (lo.min(x[k]), hi.max(x[k]))
                    });
                (hi - lo) / (2.0 * self.half[k])
            };
            kept += extent(0) * extent(1) * extent(2);
        }
        kept / self.hulls.len() as f64
    }
}

/// What can go wrong building a block jaw.
#[derive(Debug, thiserror::Error)]
pub enum BlocksError {
    /// A grid count was zero.
    #[error("block grid counts {0:?}: every count must be at least 1")]
    Counts([usize; 3]),
    /// A growth bound below 1 or not finite ([`JawBlocks::with_growth`]).
    #[error("block growth {0:?}: every factor must be finite and at least 1")]
    Growth(Vector3<f64>),
    /// A retreat direction not finite and non-zero or a depth not finite and positive
    /// ([`JawBlocks::with_retreat`]).
    #[error(
        "block retreat along {direction:?} by {depth} m: the direction must be finite and non-zero, the depth finite and positive"
    )]
    Retreat {
        /// The direction asked for.
        direction: Vector3<f64>,
        /// The depth asked for (m).
        depth: f64,
    },
    /// A block's hull could not be built (a size not finite and positive).
    #[error("a block's hull: {0}")]
    Block(#[source] sdrs::geometry::GeometryError),
    /// The design map could not be built (the link or its hulls do not match the blocks).
    #[error("the blocks' design map: {0}")]
    Design(#[source] sdrs::diff::DiffError),
}

/// The jaw examples' `--grid width,height` argument as the two block counts.
///
/// ```
/// use sdrs_examples::blocks::grid;
/// assert_eq!(grid(&[13, 12]), Ok([13, 12]));
/// assert!(grid(&[13]).unwrap_err().contains("two counts"));
/// ```
pub fn grid(counts: &[usize]) -> Result<[usize; 2], String> {
    match counts {
        [width, height] => Ok([*width, *height]),
        _ => Err(format!(
            "--grid takes two counts (width,height), got {counts:?}"
        )),
    }
}
