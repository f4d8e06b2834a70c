//! How `J_c` and the drift correction change with the configuration (NCP paper appendix C):
//! the contact points and frames move with the bodies
//! ([`sdrs_geometry::contact::derivatives`]), and the DoF screws of `J_c`'s columns move with
//! their ancestors' coordinates.
//!
//! Row block `i` of `J_c` holds, for each DoF `j` moving body B (sign +) or A (sign −),
//! `Rᵀ u_j` with `u_j = v_j + ω_j × p` the velocity of the contact point `p` under the screw
//! `S_j = (v_j, ω_j)`. Along the coordinate `q_k`:
//!
//! - an ancestor screw turns the later ones: `dS_j = [S_k, S_j] = (ω_k × v_j + v_k × ω_j,
//!   ω_k × ω_j)` for `k` before `j` on the path;
//! - `p` moves and the frame turns by `δφ` (`dR = [δφ]× R`), from the bodies' twists
//!   `ξ = (ω_k × o + v_k, ω_k)` (about each body origin `o`);
//! - `d(Rᵀ u) = Rᵀ (du + u × δφ)`, `du = dv_j + dω_j × p + ω_j × dp`.
//!
//! The separation `s` changes by `ds`, and the drift term `c/Δt` of `g` by `c'(s) ds/Δt` with
//! `c' = 1` for a speculative contact and `β` under Baumgarte correction.

use crate::error::NcpError;
use crate::stepper::detection::LinkContact;
use crate::stepper::settings::NcpSettings;
use nalgebra::{DMatrix, DVector, Isometry3, SVector, Vector3};
use sdrs_dynamics::{Model, RigidBodyData};
use sdrs_geometry::contact::derivatives::{halfspace_contact_jacobian, pair_contact_jacobian};

/// The configuration derivatives of the contact terms at fixed impulses and velocity.
pub(super) struct ContactTerms {
    /// Column `k`: `(∂J_c/∂q_k) v⁺` (3 n_c x n).
    pub jacobian_times_velocity: DMatrix<f64>,
    /// Column `k`: `(∂J_c/∂q_k)ᵀ λ` (n x n).
    pub transpose_times_impulse: DMatrix<f64>,
    /// Column `k`: `∂(c/Δt)/∂q_k` in the normal rows (3 n_c x n).
    pub drift: DMatrix<f64>,
}

/// The [`ContactTerms`] of `contacts` at the last forward kinematics of `data`, for the
/// velocity `velocity` and the impulses `impulses`.
pub(super) fn contact_terms(
    model: &Model,
    data: &RigidBodyData,
    settings: &NcpSettings,
    contacts: &[LinkContact],
    velocity: &DVector<f64>,
    impulses: &DVector<f64>,
) -> Result<ContactTerms, NcpError> {
    let n = model.dof();
    let m = 3 * contacts.len();
    let mut out = ContactTerms {
        jacobian_times_velocity: DMatrix::zeros(m, n),
        transpose_times_impulse: DMatrix::zeros(n, n),
        drift: DMatrix::zeros(m, n),
    };
    let screws = data.screws();
    let screw = |k: usize| {
        (
            screws[k].fixed_rows::<3>(0).into_owned(),
            screws[k].fixed_rows::<3>(3).into_owned(),
        )
    };
    let pose = |link: usize| -> Result<Isometry3<f64>, NcpError> {
        Ok(data.link_placement(model.link_id(link)?)?)
    };
    for (i, c) in contacts.iter().enumerate() {
        let pose_b = pose(c.b)?;
        let (jacobian, pose_a) = match c.a {
            None => (halfspace_contact_jacobian(&c.point, &pose_b), None),
            Some(a) => {
                let pose_a = pose(a)?;
                let (_, ha, _, hb, _) = c.key;
                let hull_a = &model.links()[a].hulls[ha];
                let hull_b = &model.links()[c.b].hulls[hb];
                let j = pair_contact_jacobian(hull_a, &pose_a, hull_b, &pose_b, &c.point)?;
                (j, Some(pose_a))
            }
        };
        let p = c.point.position.coords;
        let rt = c.point.frame.matrix().transpose();
        let lambda: Vector3<f64> = impulses.fixed_rows::<3>(3 * i).into_owned();
        let slope = settings.drift_slope(c.point.separation);
        // The moving bodies: (link, sign in J_c, column offset of its twist, origin).
        let mut bodies = vec![(c.b, 1.0, 6, pose_b.translation.vector)];
        if let (Some(a), Some(pose_a)) = (c.a, pose_a) {
            bodies.push((a, -1.0, 0, pose_a.translation.vector));
        }
        let mut dofs: Vec<usize> = bodies
            .iter()
            .flat_map(|&(link, ..)| model.path(link).iter().copied())
            .collect();
        dofs.sort_unstable();
        dofs.dedup();
        for &k in &dofs {
            let (vk, wk) = screw(k);
            let mut twist = SVector::<f64, 12>::zeros();
            for &(link, _, offset, origin) in &bodies {
                if model.path(link).contains(&k) {
                    twist
                        .fixed_rows_mut::<3>(offset)
                        .copy_from(&(wk.cross(&origin) + vk));
                    twist.fixed_rows_mut::<3>(offset + 3).copy_from(&wk);
                }
            }
            let dp = jacobian.position * twist;
            let dphi = jacobian.frame * twist;
            let ds = (jacobian.separation * twist)[0];
            out.drift[(3 * i + 2, k)] = slope * ds / settings.dt();
            for &(link, sign, ..) in &bodies {
                let path = model.path(link);
                let position_k = path.iter().position(|&x| x == k);
                for (jj, &j) in path.iter().enumerate() {
                    let (vj, wj) = screw(j);
                    let u = vj + wj.cross(&p);
                    let (dv, dw) = match position_k {
                        Some(pk) if pk < jj => (wk.cross(&vj) + vk.cross(&wj), wk.cross(&wj)),
                        _ => (Vector3::zeros(), Vector3::zeros()),
                    };
                    let du = dv + dw.cross(&p) + wj.cross(&dp);
                    let w = rt * (du + u.cross(&dphi)) * sign;
                    for r in 0..3 {
                        out.jacobian_times_velocity[(3 * i + r, k)] += w[r] * velocity[j];
                    }
                    out.transpose_times_impulse[(j, k)] += w.dot(&lambda);
                }
            }
        }
    }
    Ok(out)
}
