//! Physical behaviour against analytic solutions.

use nalgebra::{DVector, Isometry3, Matrix4, Vector3, Vector4};
use sdrs_contact::{ContactModel, Order, PlaneBarrier, PlaneCache};
use sdrs_dynamics::scenes::{box_on_incline, sdrs_contact};
use sdrs_dynamics::{
    Control, JointKind, Kinematics, Link, MassModel, Model, Motion, Simulator, State, StepSettings,
};
use sdrs_geometry::ConvexHull;
use std::f64::consts::PI;

/// Runs `steps` steps from rest at `state`, returning every state.
fn run(sim: &mut Simulator, state: State, steps: usize, control: &Control) -> Vec<State> {
    let mut motion = Motion::at_rest(sim.model(), state);
    let mut states = vec![motion.state.clone()];
    for _ in 0..steps {
        sim.advance(&mut motion, control).expect("step converges");
        states.push(motion.state.clone());
    }
    states
}

fn free_box(mass: f64, half: f64, at: Isometry3<f64>) -> Link {
    Link::new(
        "box",
        None,
        at,
        JointKind::Free,
        vec![ConvexHull::cuboid(Vector3::repeat(half)).unwrap()],
        MassModel::Lumped { mass },
    )
}

#[test]
fn free_fall_matches_the_discrete_and_the_analytic_solution() {
    let model = Model::new(vec![free_box(2.0, 0.1, Isometry3::identity())]).unwrap();
    let dt = 0.01;
    let mut sim = Simulator::new(model.clone(), StepSettings::new(dt).unwrap()).unwrap();
    let states = run(
        &mut sim,
        State::zero(&model),
        100,
        &Control::passive(&model),
    );
    for (k, s) in states.iter().enumerate() {
        // Implicit Euler from rest: z_k = −g Δt² k(k+1)/2.
        let discrete = -9.81 * dt * dt * (k * (k + 1)) as f64 / 2.0;
        assert!(
            (s.q[2] - discrete).abs() < 1e-9,
            "step {k}: {} vs {discrete}",
            s.q[2]
        );
        assert!(s.q[0].abs() < 1e-12 && s.q[1].abs() < 1e-12);
    }
    // Against ½ g t² the scheme is first order: off by g t Δt / 2 at t = 1 s (0.5%).
    let analytic = -0.5 * 9.81;
    assert!((states[100].q[2] - analytic).abs() <= 9.81 * dt * 0.5 + 1e-9);
}

#[test]
fn small_pendulum_swings_with_the_analytic_period() {
    // A 1 kg point mass 1 m below a revolute joint about y.
    let length = 1.0;
    let x = Vector4::new(0.0, 0.0, -length, 1.0);
    let point: Matrix4<f64> = x * x.transpose();
    let link = Link::new(
        "bob",
        None,
        Isometry3::identity(),
        JointKind::Revolute { axis: Vector3::y() },
        vec![],
        MassModel::SecondMoment(point),
    );
    let model = Model::new(vec![link]).unwrap();
    let dt = 1e-3;
    let mut sim = Simulator::new(model.clone(), StepSettings::new(dt).unwrap()).unwrap();
    let start = State::new(&model, DVector::from_element(1, 0.05)).unwrap();
    let states = run(&mut sim, start, 6000, &Control::passive(&model));
    // Upward zero crossings, interpolated.
    let mut crossings = Vec::new();
    for k in 1..states.len() {
        let (a, b) = (states[k - 1].q[0], states[k].q[0]);
        if a < 0.0 && b >= 0.0 {
            crossings.push((k as f64 - 1.0 + a / (a - b)) * dt);
        }
    }
    assert!(crossings.len() >= 2, "{} crossings", crossings.len());
    let measured = (crossings.last().unwrap() - crossings[0]) / (crossings.len() - 1) as f64;
    let analytic = 2.0 * std::f64::consts::PI * (length / 9.81).sqrt();
    assert!(
        (measured - analytic).abs() < 0.01 * analytic,
        "{measured} vs {analytic}"
    );
}

fn box_on_ground(tilt: f64, mu: f64, dt: f64) -> (Simulator, State) {
    let scene = box_on_incline(tilt, mu, dt).unwrap();
    let start = State::zero(&scene.model);
    (Simulator::new(scene.model, scene.settings).unwrap(), start)
}

#[test]
fn a_resting_box_stays_put_and_its_contact_force_balances_gravity() {
    let (mut sim, start) = box_on_ground(0.0, 0.5, 0.01);
    let model = sim.model().clone();
    let states = run(&mut sim, start, 300, &Control::passive(&model));
    let last = states.last().unwrap();
    let before = &states[states.len() - 2];
    assert!(
        (last.q[2] - before.q[2]).abs() < 1e-7,
        "still moving: {}",
        last.q[2] - before.q[2]
    );
    assert!(
        last.q[0].abs() < 1e-6 && last.q[1].abs() < 1e-6,
        "drifted: {:?}",
        last.q
    );
    // The barrier's force on the box, at the final pose, is its weight.
    let kin = Kinematics::new(&model, last);
    let barrier = PlaneBarrier::new(0.01).unwrap();
    let pair = barrier
        .evaluate(
            &model.links()[0].hulls[0],
            &kin.poses()[0],
            &model.links()[1].hulls[0],
            &kin.poses()[1],
            &mut PlaneCache::default(),
            Order::Gradient,
        )
        .unwrap();
    let contact = pair.contact().expect("separated");
    assert!(contact.value > 0.0, "the box must rest on the barrier");
    let up = -contact.gradient[8];
    assert!(
        (up - 9.81).abs() < 1e-3 * 9.81,
        "contact force {up} vs weight 9.81"
    );
}

#[test]
fn a_box_slides_down_an_incline_with_coulomb_friction() {
    let tilt = 30f64.to_radians();
    let mu = 0.3;
    let dt = 0.01;
    let (mut sim, start) = box_on_ground(tilt, mu, dt);
    let model = sim.model().clone();
    let states = run(&mut sim, start, 100, &Control::passive(&model));
    // The box's free joint is attached in the slab's frame, so q[0] is the distance travelled
    // down the slope and q[2] the height above the slab; skip the first steps, in which the
    // contact settles.
    let settled = &states[40..];
    let height = settled.iter().map(|s| s.q[2]).fold(f64::NAN, f64::max)
        - settled.iter().map(|s| s.q[2]).fold(f64::NAN, f64::min);
    assert!(
        height < 1e-5,
        "the box must stay on the slope (height varies by {height})"
    );
    // Fit s = s0 + v0 t + ½ a t² over steps 40..100.
    let samples: Vec<(f64, f64)> = (40..=100)
        .map(|k| (k as f64 * dt, states[k].q[0]))
        .collect();
    let acceleration = quadratic_fit_acceleration(&samples);
    let expected = 9.81 * (tilt.sin() - mu * tilt.cos());
    assert!(
        (acceleration - expected).abs() < 0.03 * expected,
        "{acceleration} vs {expected}"
    );
}

/// A box on level ground spun about the vertical at `spin` rad/s, stepped at `dt` for 0.6 s:
/// its yaw (rad, unwrapped) at every step from the spin's start.
fn spin_down(mu: f64, dt: f64, spin: f64) -> Vec<f64> {
    let (mut sim, start) = box_on_ground(0.0, mu, dt);
    let model = sim.model().clone();
    let settled = run(
        &mut sim,
        start,
        (0.4 / dt) as usize,
        &Control::passive(&model),
    )
    .pop()
    .unwrap();
    let link = model.link("box").unwrap();
    let mut motion = Motion::at_rest(&model, settled)
        .with_body_velocity(&model, link, Vector3::zeros(), Vector3::z() * spin, dt)
        .unwrap();
    let yaw = |state: &State| {
        let x = Kinematics::new(&model, state).poses()[link.index()].rotation * Vector3::x();
        x.y.atan2(x.x)
    };
    let mut angles = vec![0.0];
    let mut last = yaw(&motion.state);
    for _ in 0..(0.6 / dt) as usize {
        sim.advance(&mut motion, &Control::passive(&model)).unwrap();
        let now = yaw(&motion.state);
        let turn = (now - last + PI).rem_euclid(2.0 * PI) - PI;
        angles.push(angles.last().unwrap() + turn);
        last = now;
    }
    angles
}

#[test]
fn a_box_spinning_on_the_ground_slows_at_coulomb_frictions_torque() {
    // A 20 cm cube of 1 kg lumped at its 8 corners: each bottom corner slides at ω r, so
    // friction's torque is μ m g r whatever the corners' share of the weight, against
    // I_z = m r² (r = 0.1 √2): ω̇ = −μ g / r until it stops, having turned ω² / (2 |ω̇|).
    // Friction acts on the step's lagged normal force and its smoothed slip, so the
    // deceleration converges with Δt (measured: 5.3%, 3.3%, 1.9%, 0.8% high at 10, 5, 2.5
    // and 1 ms).
    let (mu, spin) = (0.3, 10.0);
    let expected = -mu * 9.81 / (0.1 * 2f64.sqrt());
    let total = spin * spin / (2.0 * expected.abs());
    let mut errors = Vec::new();
    for dt in [0.01, 0.0025, 0.001] {
        let angles = spin_down(mu, dt, spin);
        // Fit over 0.05-0.4 s, while it still turns (it stops after 0.48 s).
        let samples: Vec<(f64, f64)> = ((0.05 / dt).round() as usize..=(0.4 / dt).round() as usize)
            .map(|k| (k as f64 * dt, angles[k]))
            .collect();
        let alpha = quadratic_fit_acceleration(&samples);
        let turned = *angles.last().unwrap();
        eprintln!(
            "Δt {dt}: ω̇ {alpha:.4} vs {expected:.4} rad/s², turned {turned:.4} vs {total:.4} rad"
        );
        errors.push(((alpha - expected) / expected).abs());
        if dt == 0.001 {
            assert!(errors[2] < 0.015, "ω̇ {alpha} vs {expected} rad/s²");
            assert!(
                (turned - total).abs() < 0.03 * total,
                "turned {turned} vs {total} rad"
            );
        }
    }
    assert!(
        errors[1] < 0.5 * errors[0] && errors[2] < errors[1],
        "the error must shrink with Δt: {errors:?}"
    );
}

/// Least-squares `a` of `s = c + b t + ½ a t²`.
fn quadratic_fit_acceleration(samples: &[(f64, f64)]) -> f64 {
    let mut ata = nalgebra::Matrix3::zeros();
    let mut atb = Vector3::zeros();
    for &(t, s) in samples {
        let row = Vector3::new(1.0, t, 0.5 * t * t);
        ata += row * row.transpose();
        atb += row * s;
    }
    ata.lu().solve(&atb).unwrap()[2]
}

#[test]
fn a_pd_controlled_arm_reaches_its_target() {
    // Three revolute links (about z, y, y), 0.3 m apart, 1 kg each.
    let cube = ConvexHull::cuboid(Vector3::new(0.05, 0.05, 0.12)).unwrap();
    let axes = [Vector3::z(), Vector3::y(), Vector3::y()];
    let links = (0..3usize)
        .map(|k| {
            Link::new(
                format!("link{k}"),
                k.checked_sub(1),
                Isometry3::translation(0.0, 0.0, if k == 0 { 0.0 } else { 0.3 }),
                JointKind::Revolute { axis: axes[k] },
                vec![cube.clone()],
                MassModel::Lumped { mass: 1.0 },
            )
        })
        .collect();
    let model = Model::new(links).unwrap();
    let mut settings = StepSettings::new(0.01).unwrap();
    settings.gravity = 0.0;
    let mut sim = Simulator::new(model.clone(), settings).unwrap();
    let target = DVector::from_vec(vec![0.8, -0.5, 1.1]);
    // A damping of 10 N·m·s/rad, about critical for these gains and inertias.
    let control = Control {
        kp: DVector::from_element(3, 100.0),
        kd: DVector::from_element(3, 10.0),
        position: target.clone(),
        velocity: DVector::zeros(3),
        force: DVector::zeros(3),
    };
    let states = run(&mut sim, State::zero(&model), 300, &control);
    let error = (&states.last().unwrap().q - &target).amax();
    assert!(error < 1e-3, "final joint error {error}");
}

#[test]
fn a_contact_rich_scene_stays_finite_and_collision_free_for_10000_steps() {
    // Four boxes dropped in a stack onto the ground, with friction.
    let ground = Link::new(
        "ground",
        None,
        Isometry3::translation(0.0, 0.0, -0.5),
        JointKind::Fixed,
        vec![ConvexHull::cuboid(Vector3::new(5.0, 5.0, 0.5)).unwrap()],
        MassModel::Lumped { mass: 1.0 },
    );
    let mut links = vec![ground];
    for k in 0..4 {
        let at = Isometry3::new(
            Vector3::new(0.03 * k as f64, -0.02 * k as f64, 0.15 + 0.25 * k as f64),
            Vector3::new(0.1 * k as f64, 0.2, -0.1),
        );
        let mut link = free_box(0.5 + 0.2 * k as f64, 0.1, at);
        link.name = format!("box{k}");
        links.push(link);
    }
    let model = Model::new(links).unwrap();
    let dt = 0.01;
    let mut settings = StepSettings::new(dt).unwrap();
    let mut contact = sdrs_contact(Some(0.5)).unwrap();
    contact.skip_adjacent = false;
    settings.contact = Some(contact);
    let mut sim = Simulator::new(model.clone(), settings).unwrap();
    let mut motion = Motion::at_rest(&model, State::zero(&model));
    for step in 0..10_000 {
        sim.advance(&mut motion, &Control::passive(&model))
            .unwrap_or_else(|e| panic!("step {step}: {e}"));
        let state = &motion.state;
        assert!(
            state.q.iter().all(|v| v.is_finite()),
            "step {step}: {:?}",
            state.q
        );
        if step % 500 == 0 {
            // Collision-free by an independent distance: parry's GJK on the same hulls.
            let kin = Kinematics::new(&model, state);
            for a in 0..5 {
                for b in a + 1..5 {
                    let d = parry_distance(
                        &model.links()[a].hulls[0],
                        &kin.poses()[a],
                        &model.links()[b].hulls[0],
                        &kin.poses()[b],
                    );
                    assert!(
                        d > 0.0,
                        "links {a} and {b} penetrate at step {step} (parry: {d})"
                    );
                }
            }
        }
    }
    // Everything came to rest above the ground.
    let kin = Kinematics::new(&model, &motion.state);
    assert!(
        kin.poses()[1..]
            .iter()
            .all(|p| p.translation.vector.z > 0.05)
    );
}

#[test]
fn joint_limits_stop_a_falling_arm_inside_its_range() {
    // A 1 kg point mass 1 m out along x on a revolute joint about y: gravity turns it to +θ.
    let x = Vector4::new(1.0, 0.0, 0.0, 1.0);
    let link = Link::new(
        "arm",
        None,
        Isometry3::identity(),
        JointKind::Revolute { axis: Vector3::y() },
        vec![],
        MassModel::SecondMoment(x * x.transpose()),
    )
    .with_limits(-0.2, 0.2);
    let model = Model::new(vec![link]).unwrap();
    let mut sim = Simulator::new(model.clone(), StepSettings::new(0.01).unwrap()).unwrap();
    let states = run(
        &mut sim,
        State::zero(&model),
        300,
        &Control::passive(&model),
    );
    assert!(states.iter().all(|s| s.q[0] > -0.2 && s.q[0] < 0.2));
    let last = states.last().unwrap().q[0];
    assert!(last > 0.19, "rests against the upper limit: {last}");
    let still = (last - states[states.len() - 2].q[0]).abs();
    assert!(still < 1e-6, "still moving by {still} per step");
    // A state outside the limits is refused, and so are limits on a 2-DoF joint.
    let outside = State::new(&model, DVector::from_element(1, 0.3)).unwrap();
    let previous = Kinematics::new(&model, &outside).poses().to_vec();
    assert!(matches!(
        sim.step(&outside, &previous, &Control::passive(&model)),
        Err(sdrs_dynamics::DynamicsError::OutsideLimits { .. })
    ));
    let universal = Link::new(
        "u",
        None,
        Isometry3::identity(),
        JointKind::Universal {
            first: Vector3::x(),
            second: Vector3::y(),
        },
        vec![],
        MassModel::SecondMoment(x * x.transpose()),
    )
    .with_limits(-1.0, 1.0);
    assert!(matches!(
        Model::new(vec![universal]),
        Err(sdrs_dynamics::DynamicsError::BadLimits { .. })
    ));
}

/// A zero-length spring of stiffness `k` from a world point to the origin of link `link`.
#[derive(Debug)]
struct Spring {
    link: usize,
    anchor: Vector3<f64>,
    k: f64,
}

impl sdrs_dynamics::ExternalEnergy for Spring {
    fn add(
        &self,
        model: &Model,
        kinematics: &Kinematics,
        _state: &State,
        gradient: &mut DVector<f64>,
        hessian: Option<&mut nalgebra::DMatrix<f64>>,
    ) -> f64 {
        let d = kinematics.poses()[self.link].translation.vector - self.anchor;
        let mut g = nalgebra::SVector::<f64, 6>::zeros();
        g.fixed_rows_mut::<3>(0).copy_from(&(d * self.k));
        let mut h = nalgebra::SMatrix::<f64, 6, 6>::zeros();
        h.fixed_view_mut::<3, 3>(0, 0).fill_with_identity();
        h *= self.k;
        kinematics.add_term(model, [self.link], &g, Some(&h), gradient, hessian);
        0.5 * self.k * d.norm_squared()
    }
}

#[test]
fn a_user_spring_holds_a_box_where_its_force_balances_gravity() {
    let model = Model::new(vec![free_box(2.0, 0.1, Isometry3::identity())]).unwrap();
    let mut settings = StepSettings::new(0.01).unwrap();
    let k = 400.0;
    settings.external.push(std::sync::Arc::new(Spring {
        link: 0,
        anchor: Vector3::new(0.1, 0.0, 0.5),
        k,
    }));
    let mut control = Control::passive(&model);
    control.kd = DVector::from_element(6, 40.0); // damping, so the box settles
    let mut sim = Simulator::new(model.clone(), settings).unwrap();
    let states = run(&mut sim, State::zero(&model), 600, &control);
    let q = &states.last().unwrap().q;
    // k (anchor − x) = m g along z.
    let expected = Vector3::new(0.1, 0.0, 0.5 - 2.0 * 9.81 / k);
    assert!(
        (Vector3::new(q[0], q[1], q[2]) - expected).norm() < 1e-6,
        "{q:?} vs {expected:?}"
    );
}

/// A mesh-based contact model through the hook: the SDRS barrier P_s between every vertex of
/// each link's triangle mesh and the floor z = 0.
#[derive(Debug, Clone)]
struct Floor {
    support: f64,
}

impl sdrs_dynamics::ContactHook for Floor {
    fn begin_step(&mut self, _: &Model, _: &Kinematics) -> sdrs_dynamics::Result<()> {
        Ok(())
    }

    fn add(
        &mut self,
        model: &Model,
        kin: &Kinematics,
        mut gradient: Option<&mut DVector<f64>>,
        mut hessian: Option<&mut nalgebra::DMatrix<f64>>,
    ) -> sdrs_dynamics::Result<Option<sdrs_dynamics::ContactEnergy>> {
        let mut energy = sdrs_dynamics::ContactEnergy {
            value: 0.0,
            active_pairs: 0,
        };
        for (i, link) in model.links().iter().enumerate() {
            let Some(mesh) = &link.mesh else { continue };
            let pose = kin.poses()[i];
            let (mut g, mut h) = (
                nalgebra::SVector::<f64, 6>::zeros(),
                nalgebra::SMatrix::<f64, 6, 6>::zeros(),
            );
            for x in mesh.vertices() {
                let y = pose * x;
                let Some((v, d1, d2)) = sdrs_contact::barrier::barrier(y.z, self.support) else {
                    return Ok(None);
                };
                if y.z >= self.support {
                    continue;
                }
                energy.value += v;
                // z(ξ) = (Exp(ω) r + t + v)_z: ∂z/∂ξ = (e_z, r × e_z), ∂²z/∂ω² = sym(r e_zᵀ) − r_z I.
                let r = y.coords - pose.translation.vector;
                let a = nalgebra::SVector::<f64, 6>::from_iterator(
                    [0.0, 0.0, 1.0]
                        .into_iter()
                        .chain(r.cross(&Vector3::z()).iter().copied()),
                );
                g += a * d1;
                h += a * a.transpose() * d2;
                let curvature = (r * Vector3::z().transpose() + Vector3::z() * r.transpose()) * 0.5
                    - nalgebra::Matrix3::identity() * r.z;
                let mut ww = h.fixed_view_mut::<3, 3>(3, 3);
                ww += curvature * d1;
            }
            if let Some(grad) = gradient.as_deref_mut() {
                kin.add_term(model, [i], &g, Some(&h), grad, hessian.as_deref_mut());
            }
        }
        Ok(Some(energy))
    }

    fn pair_terms(
        &mut self,
        _: &Model,
        _: &Kinematics,
    ) -> sdrs_dynamics::Result<Vec<sdrs_dynamics::PairTerm>> {
        Ok(Vec::new())
    }

    fn penetration(&mut self, _: &Model, _: &Kinematics) -> Option<sdrs_dynamics::DynamicsError> {
        None
    }

    fn largest_pair(
        &mut self,
        _: &Model,
        _: &Kinematics,
    ) -> sdrs_dynamics::Result<Option<([usize; 2], f64)>> {
        Ok(None)
    }

    fn reset_warm_starts(&mut self) {}

    fn timings(&self) -> sdrs_dynamics::StepTimings {
        sdrs_dynamics::StepTimings::default()
    }

    fn boxed_clone(&self) -> Box<dyn sdrs_dynamics::ContactHook> {
        Box::new(self.clone())
    }

    /// The floor is no link, so there are no link pairs to report.
    fn contacts(
        &mut self,
        _: &Model,
        _: &[Isometry3<f64>],
        _: &Kinematics,
    ) -> sdrs_dynamics::Result<Vec<sdrs_dynamics::ActiveContact>> {
        Ok(Vec::new())
    }
}

#[test]
fn a_custom_contact_hook_over_link_meshes_holds_a_box_above_the_floor() {
    let mesh = sdrs_geometry::TriMesh::cuboid(Vector3::repeat(0.1)).unwrap();
    let link = free_box(1.0, 0.1, Isometry3::translation(0.0, 0.0, 0.3)).with_mesh(mesh);
    let model = Model::new(vec![link]).unwrap();
    let hook = Box::new(Floor { support: 0.01 });
    let mut sim =
        Simulator::with_contact(model.clone(), StepSettings::new(0.01).unwrap(), hook).unwrap();
    let states = run(
        &mut sim,
        State::zero(&model),
        300,
        &Control::passive(&model),
    );
    let bottom = |s: &State| 0.3 + s.q[2] - 0.1;
    assert!(
        states.iter().all(|s| bottom(s) > 0.0),
        "the box never reaches the floor"
    );
    let last = states.last().unwrap();
    assert!(
        bottom(last) < 0.01,
        "it rests within the barrier's support: {}",
        bottom(last)
    );
    assert!(
        (last.q[2] - states[states.len() - 2].q[2]).abs() < 1e-7,
        "and stays put"
    );
}

/// The distance between two posed hulls by parry3d's GJK, an oracle independent of ours.
fn parry_distance(
    a: &ConvexHull,
    pose_a: &Isometry3<f64>,
    b: &ConvexHull,
    pose_b: &Isometry3<f64>,
) -> f64 {
    use parry3d_f64::math::{Pose, Rotation};
    use parry3d_f64::shape::ConvexPolyhedron;
    use sdrs_geometry::parry_adapter::to_glam;
    let shape = |h: &ConvexHull| {
        let points: Vec<_> = h.vertices().iter().map(to_glam).collect();
        ConvexPolyhedron::from_convex_hull(&points).expect("a valid hull")
    };
    let pose = |p: &Isometry3<f64>| {
        let q = p.rotation.quaternion();
        Pose::from_parts(
            to_glam(&p.translation.vector.into()),
            Rotation::from_xyzw(q.i, q.j, q.k, q.w),
        )
    };
    parry3d_f64::query::distance(&pose(pose_a), &shape(a), &pose(pose_b), &shape(b))
        .expect("convex shapes")
        .distance
}
