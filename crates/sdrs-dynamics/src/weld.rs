//! Welds and connections between two links, or a link and the world: loop closures as stiff
//! springs in the step (MuJoCo's `<weld>` and `<connect>` equality constraints).
//!
//! A [`Weld`] holds a frame `F_a` on link `a` at a frame `F_b` on link `b` (or in the world).
//! With the frames' world poses `(R_a, p_a)` and `(R_b, p_b)` it adds to the step objective
//!
//! ```text
//! ½ k |p_b − p_a|²  +  ½ k_r (3 − tr(R_b R_aᵀ))
//! ```
//!
//! the first a spring of stiffness `k` (N/m) between the two origins, the second a rotational
//! spring of stiffness `k_r` (N·m/rad): `3 − tr(R_b R_aᵀ) = 2(1 − cos θ) ≈ θ²` for the angle `θ`
//! between the frames, so its torque is `k_r sin θ`. `k_r = 0` is a connection: the two points
//! held together, the links free to turn about them.
//!
//! **Derivatives.** The link twists `(v, ω)` of [`crate::kinematics`] move a point at `r` from
//! the link origin by `v + ω × r + ½ ω × (ω × r)` and turn the link by `Exp(ω)` on the left. With
//! `d = p_b − p_a`, the spring's gradient is `(k d, r_b × k d)` for `b` and the opposite with
//! `r_a` for `a`; its Hessian is `k Jᵀ J` with the point Jacobians `J = [I, −[r]×]`, plus the
//! second-order rotation term `±k (sym(r dᵀ) − (r·d) I)` in each link's `ωω` block. With
//! `M = R_b R_aᵀ` turning as `Exp(ω_b) M Exp(−ω_a)` and `m = axial(M − Mᵀ)`, the rotational
//! spring's gradient is `(−½ k_r m, ½ k_r m)` in `(ω_a, ω_b)` and its Hessian
//! `½ k_r [[S, T], [Tᵀ, S]]` with `S = tr(M) I − sym(M)` and `T = M − tr(M) I`.

use crate::error::{DynamicsError, Result};
use nalgebra::{Isometry3, Matrix3, Point3, SMatrix, SVector, Vector3};
use sdrs_geometry::twist::{BodyPoint, TwistTerm};

/// A spring weld (or, without rotational stiffness, a connection) between a frame on one link
/// and a frame on another link or in the world.
///
/// ```
/// use sdrs_dynamics::{Weld, scenes::chain};
/// use nalgebra::{Isometry3, Point3};
/// // Pin the tip of a two-link chain's last link to the world where it is at rest.
/// let scene = chain(2, 0.01)?;
/// let tip = Point3::new(0.0, 0.0, -0.2);
/// let pin = Weld::connect("pin", 1, tip, None, Point3::new(0.0, 0.0, -0.3), 1e4);
/// let model = scene.model.with_welds(vec![pin])?;
/// assert_eq!(model.welds().len(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Weld {
    /// Name, for messages; unique among a model's welds.
    pub name: String,
    /// The link `a`.
    pub link: usize,
    /// The frame `F_a` in link `a`'s frame.
    pub frame: Isometry3<f64>,
    /// The link `b`, or `None` for the world.
    pub other: Option<usize>,
    /// The frame `F_b` in link `b`'s frame (or the world's).
    pub other_frame: Isometry3<f64>,
    /// Stiffness `k` of the spring between the frames' origins (N/m).
    pub stiffness: f64,
    /// Rotational stiffness `k_r` (N·m/rad); 0 for a connection.
    pub torsion: f64,
}

impl Weld {
    /// Holds `point` of link `link` at `other_point` of link `other` (`None`: the world) with
    /// a spring of stiffness `stiffness` (N/m), the links free to turn about it (MuJoCo's
    /// `<connect>`).
    pub fn connect(
        name: impl Into<String>,
        link: usize,
        point: Point3<f64>,
        other: Option<usize>,
        other_point: Point3<f64>,
        stiffness: f64,
    ) -> Self {
        Self {
            name: name.into(),
            link,
            frame: Isometry3::translation(point.x, point.y, point.z),
            other,
            other_frame: Isometry3::translation(other_point.x, other_point.y, other_point.z),
            stiffness,
            torsion: 0.0,
        }
    }

    /// Holds `frame` of link `link` at `other_frame` of link `other` (`None`: the world) with
    /// springs of stiffness `stiffness` (N/m) and `torsion` (N·m/rad) (MuJoCo's `<weld>`).
    pub fn new(
        name: impl Into<String>,
        link: usize,
        frame: Isometry3<f64>,
        other: Option<usize>,
        other_frame: Isometry3<f64>,
        (stiffness, torsion): (f64, f64),
    ) -> Self {
        Self {
            name: name.into(),
            link,
            frame,
            other,
            other_frame,
            stiffness,
            torsion,
        }
    }

    /// The weld with its links moved by `offset`, its name prefixed and its world frame moved
    /// by `base`, as a world adds a robot placed at `base`.
    pub fn placed(mut self, offset: usize, prefix: &str, base: &Isometry3<f64>) -> Self {
        self.link += offset;
        match &mut self.other {
            Some(other) => *other += offset,
            None => self.other_frame = base * self.other_frame,
        }
        if !prefix.is_empty() {
            self.name = format!("{prefix}{}", self.name);
        }
        self
    }

    /// Checks the weld against a model of `links` links.
    pub(crate) fn check(&self, links: usize) -> Result<()> {
        let bad = |message: String| DynamicsError::BadWeld {
            weld: self.name.clone(),
            message,
        };
        for link in std::iter::once(self.link).chain(self.other) {
            if link >= links {
                return Err(bad(format!(
                    "link index {link} is out of range (the model has {links} links)"
                )));
            }
        }
        if self.other == Some(self.link) {
            return Err(bad("it welds a link to itself".into()));
        }
        for (what, value) in [("stiffness", self.stiffness), ("torsion", self.torsion)] {
            if !(value.is_finite() && value >= 0.0) {
                return Err(bad(format!("{what} {value} must be finite and >= 0")));
            }
        }
        let finite = |f: &Isometry3<f64>| {
            f.translation.vector.iter().all(|x| x.is_finite())
                && f.rotation.coords.iter().all(|x| x.is_finite())
        };
        if !(finite(&self.frame) && finite(&self.other_frame)) {
            return Err(bad("its frames must be finite".into()));
        }
        Ok(())
    }

    /// The energy with its gradient and Hessian in the twists of `(a, b)` (the last six rows
    /// and columns are zero for a weld to the world), at link `a`'s pose `pose` and link `b`'s
    /// `other` (`None`: the world).
    pub(crate) fn energy(
        &self,
        pose: &Isometry3<f64>,
        other: Option<&Isometry3<f64>>,
    ) -> (f64, SVector<f64, 12>, SMatrix<f64, 12, 12>) {
        let fa = pose * self.frame;
        let fb = match other {
            Some(p) => p * self.other_frame,
            None => self.other_frame,
        };
        let point = |body: usize, frame: &Isometry3<f64>, origin: Option<&Isometry3<f64>>| {
            let position = Point3::from(frame.translation.vector);
            BodyPoint {
                body,
                position,
                origin: origin.map_or(position, |o| Point3::from(o.translation.vector)),
            }
        };
        let (pa, pb) = (point(0, &fa, Some(pose)), point(1, &fb, other));
        let d = fb.translation.vector - fa.translation.vector;
        let k = self.stiffness;
        // The spring between the origins, as point terms on the two bodies.
        let mut term = TwistTerm::zero();
        let force = d * k;
        term.add_point_gradient(&pa, &-force);
        term.add_point_gradient(&pb, &force);
        let spring = Matrix3::identity() * k;
        term.add_point_block(&pa, &pa, &spring);
        term.add_point_block(&pb, &pb, &spring);
        term.add_point_block(&pa, &pb, &-spring);
        term.add_point_block(&pb, &pa, &-spring);
        term.add_point_curvature(&pa, &-force);
        term.add_point_curvature(&pb, &force);
        let TwistTerm {
            gradient: mut g,
            hessian: mut h,
            ..
        } = term;
        let mut value = 0.5 * k * d.norm_squared();
        if self.torsion > 0.0 {
            let kr = 0.5 * self.torsion;
            let m: Matrix3<f64> = (fb.rotation * fa.rotation.inverse())
                .to_rotation_matrix()
                .into_inner();
            let axial = Vector3::new(
                m[(2, 1)] - m[(1, 2)],
                m[(0, 2)] - m[(2, 0)],
                m[(1, 0)] - m[(0, 1)],
            );
            let trace = m.trace();
            value += kr * (3.0 - trace);
            let mut ga = g.fixed_rows_mut::<3>(3);
            ga -= axial * kr;
            let mut gb = g.fixed_rows_mut::<3>(9);
            gb += axial * kr;
            let s = (Matrix3::identity() * trace - (m + m.transpose()) * 0.5) * kr;
            let t = (m - Matrix3::identity() * trace) * kr;
            for (at, block) in [
                ((3, 3), s),
                ((9, 9), s),
                ((3, 9), t),
                ((9, 3), t.transpose()),
            ] {
                let mut view = h.fixed_view_mut::<3, 3>(at.0, at.1);
                view += block;
            }
        }
        (value, g, h)
    }
}

/// Every weld's term: value, and gradient and Hessian added through `kinematics`.
pub(crate) fn add_welds(
    model: &crate::Model,
    kinematics: &crate::Kinematics,
    mut gradient: Option<&mut nalgebra::DVector<f64>>,
    mut hessian: Option<&mut nalgebra::DMatrix<f64>>,
) -> f64 {
    let poses = kinematics.poses();
    let mut value = 0.0;
    for weld in model.welds() {
        let other = weld.other.map(|b| &poses[b]);
        let (e, g, h) = weld.energy(&poses[weld.link], other);
        value += e;
        let Some(gradient) = gradient.as_deref_mut() else {
            continue;
        };
        let h = hessian.as_ref().map(|_| h);
        match weld.other {
            Some(b) => kinematics.add_term(
                model,
                [weld.link, b],
                &g,
                h.as_ref(),
                gradient,
                hessian.as_deref_mut(),
            ),
            None => {
                let g6: SVector<f64, 6> = g.fixed_rows::<6>(0).into_owned();
                let h6 = h.map(|h| h.fixed_view::<6, 6>(0, 0).into_owned());
                kinematics.add_term(
                    model,
                    [weld.link],
                    &g6,
                    h6.as_ref(),
                    gradient,
                    hessian.as_deref_mut(),
                )
            }
        }
    }
    value
}
