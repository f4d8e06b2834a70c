//! Why does TALOS topple in its zero pose? A probe of the issue's setting: TALOS reduced on a
//! floating base, zero configuration with the knees at 0.05 rad (or an SRDF state), only the
//! feet (`leg_left_6_link`, `leg_right_6_link`) in contact with the ground, PD on every actuated
//! DoF with stiffness `gain · m g h` (N·m/rad), dropped onto the ground, under the old SDRS contact
//! (`s = 1 cm`, `κ = 1`) or the world's defaults.
//!
//! ```sh
//! cargo run --release -p sdrs-examples --example talos_probe -- [--contact old|new|unadapted] \
//!     [--mu 0.8] [--epsilon 1e-6] [--dt 0.01] [--gain 20] [--damping 0.1] [--knee 0.05] \
//!     [--state half_sitting] [--drop 0.05] [--seconds 5] [--all-links]
//! ```
//!
//! Prints the forward kinematics at the start configuration with the base at the origin (the
//! centre of mass, the sole frames and the centroidal inertia, to compare with Pinocchio), the
//! foot hulls' soles against the URDF sole frames, the centre of mass in the sole frame, and
//! then over time the base height and pitch, the centre of mass, the support polygon (foot hull
//! vertices within the barrier's support distance of the ground), the contact force and its
//! centre of pressure (from the root's generalized contact force), and how the run ends.
//!
//! Columns: `com/sole` is the centre of mass along the mid-sole frame's x (forward), `margin`
//! the distance of its ground projection inside the support polygon (negative outside, `-inf`
//! when the vertices within the support distance span no area: a line or a point), `n` those
//! vertices, `cop x` the centre of pressure, `left Fz` the left foot's share of `F_z`.
//!
//! Findings (knees 0.05, see the report of the TALOS toppling issue): the soles start pitched
//! 0.05 rad toe down, so the robot lands on one toe vertex per foot, 7 cm in front of its centre
//! of mass, pivots backwards onto its heels and rolls over them; with `--level-feet`, in
//! `half_sitting` or with knees up to 0.035 it stands, under old and new contact alike.

use clap::{Parser, ValueEnum};
use sdrs::dynamics::FrictionSettings;
use sdrs::dynamics::scenes::sdrs_contact;
use sdrs::dynamics::srdf::Srdf;
use sdrs::prelude::*;
use std::path::PathBuf;

const TALOS: &str = "/work/shared/example-robot-data/robots/talos_data";

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ContactChoice {
    /// The SDRS authors' settings: support 1 cm, stiffness 1 (`scenes::sdrs_contact`).
    Old,
    /// The world's defaults (`World::new`, adapted to the thinnest body in `World::build`).
    New,
    /// The world's defaults before adaptation (support 0.4 mm): what the robots `Trial`
    /// simulates, as it clones the settings before `World::build`.
    Unadapted,
}

#[derive(Parser, Debug)]
#[command(
    about = "TALOS standing on its feet under PD: where is the centre of mass, and why it falls"
)]
struct Args {
    /// The URDF.
    #[arg(long, default_value_t = format!("{TALOS}/robots/talos_reduced.urdf"))]
    urdf: String,
    /// The SRDF (for --state).
    #[arg(long, default_value_t = format!("{TALOS}/srdf/talos.srdf"))]
    srdf: String,
    /// Directory searched for `package://` meshes.
    #[arg(long, default_value = "/work/shared")]
    package_path: PathBuf,
    /// Contact settings.
    #[arg(long, value_enum, default_value_t = ContactChoice::New)]
    contact: ContactChoice,
    /// Friction coefficient (none if not given).
    #[arg(long)]
    mu: Option<f64>,
    /// Friction velocity smoothing ε_v (m²/s²), replacing the contact choice's.
    #[arg(long)]
    epsilon: Option<f64>,
    /// Time step (s).
    #[arg(long, default_value_t = 0.01)]
    dt: f64,
    /// PD stiffness per DoF (N·m/rad) as a multiple of m g h.
    #[arg(long, default_value_t = 20.0)]
    gain: f64,
    /// PD damping (N·m·s/rad) as a multiple of the stiffness: a time constant in seconds (0.1,
    /// as the robots Trial).
    #[arg(long, default_value_t = 0.1)]
    damping: f64,
    /// Knee angle (leg_left_4_joint, leg_right_4_joint) of the zero configuration (rad).
    #[arg(long, default_value_t = 0.05)]
    knee: f64,
    /// An SRDF state to hold instead of the zero configuration (e.g. half_sitting).
    #[arg(long)]
    state: Option<String>,
    /// Height (m) of the lowest foot vertex above the ground at the start.
    #[arg(long, default_value_t = 0.05)]
    drop: f64,
    /// Pitch the whole robot (rad, about y, positive leans forward) before dropping it;
    /// `--level-feet` sets it so the soles start parallel to the ground.
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true)]
    pitch: f64,
    /// Start with the soles parallel to the ground (overrides --pitch).
    #[arg(long)]
    level_feet: bool,
    /// Simulated time (s).
    #[arg(long, default_value_t = 5.0)]
    seconds: f64,
    /// Print interval (s).
    #[arg(long, default_value_t = 0.1)]
    every: f64,
    /// Print every foot hull vertex within 2 mm of the lowest (sole frame).
    #[arg(long)]
    dump_sole: bool,
    /// Keep every link in contact (SRDF pairs and the automatic filter applied), not only the feet.
    #[arg(long)]
    all_links: bool,
}

const FEET: [&str; 2] = ["leg_left_6_link", "leg_right_6_link"];
const SOLES: [&str; 2] = ["left_sole_link", "right_sole_link"];
const KNEES: [&str; 2] = ["leg_left_4_joint", "leg_right_4_joint"];

/// Mass and first moment (world) of links `links`.
fn centre_of_mass(
    model: &Model,
    kin: &Kinematics,
    links: std::ops::Range<usize>,
) -> (f64, Point3<f64>) {
    let (mut mass, mut first) = (0.0, Vector3::zeros());
    for i in links {
        let column = model.second_moment(i).column(3).into_owned();
        if column.w == 0.0 {
            continue;
        }
        let local = Point3::from(column.xyz() / column.w);
        first += column.w * (kin.poses()[i] * local).coords;
        mass += column.w;
    }
    (mass, Point3::from(first / mass))
}

/// The inertia tensor about the centre of mass (world axes) of links `links`.
fn centroidal_inertia(
    model: &Model,
    kin: &Kinematics,
    links: std::ops::Range<usize>,
) -> DMatrix<f64> {
    let mut world = DMatrix::zeros(4, 4);
    for i in links {
        let h = kin.poses()[i].to_homogeneous();
        let moment = h * model.second_moment(i) * h.transpose();
        world += DMatrix::from_column_slice(4, 4, moment.as_slice());
    }
    let m = world[(3, 3)];
    let c = world.view((0, 3), (3, 1)) / m;
    let spread = world.view((0, 0), (3, 3)) - m * &c * c.transpose();
    DMatrix::identity(3, 3) * spread.trace() - spread
}

/// World vertices of link `i`'s hulls.
fn world_vertices(model: &Model, kin: &Kinematics, i: usize) -> Vec<Point3<f64>> {
    let pose = kin.poses()[i];
    model.links()[i]
        .hulls
        .iter()
        .flat_map(|h| h.vertices().iter().map(move |v| pose * v))
        .collect()
}

/// Convex hull (counter-clockwise) of points in the plane.
fn hull_2d(mut points: Vec<[f64; 2]>) -> Vec<[f64; 2]> {
    points.sort_by(|a, b| a.partial_cmp(b).expect("finite"));
    points.dedup();
    if points.len() < 3 {
        return points;
    }
    let cross = |o: [f64; 2], a: [f64; 2], b: [f64; 2]| {
        (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
    };
    let mut hull: Vec<[f64; 2]> = Vec::new();
    for pass in 0..2 {
        let start = hull.len();
        let iter: Box<dyn Iterator<Item = &[f64; 2]>> = if pass == 0 {
            Box::new(points.iter())
        } else {
            Box::new(points.iter().rev())
        };
        for &p in iter {
            while hull.len() >= start + 2
                && cross(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0
            {
                hull.pop();
            }
            hull.push(p);
        }
        hull.pop();
    }
    hull
}

/// Signed distance from `p` to the boundary of the convex polygon (positive inside).
fn margin(polygon: &[[f64; 2]], p: [f64; 2]) -> f64 {
    if polygon.len() < 3 {
        return f64::NEG_INFINITY;
    }
    (0..polygon.len())
        .map(|k| {
            let (a, b) = (polygon[k], polygon[(k + 1) % polygon.len()]);
            let (ex, ey) = (b[0] - a[0], b[1] - a[1]);
            let len = ex.hypot(ey);
            (ex * (p[1] - a[1]) - ey * (p[0] - a[0])) / len
        })
        .fold(f64::INFINITY, f64::min)
}

/// The contact wrench on the robot (force, moment about the world origin) from the generalized
/// contact force on the free root's six DoFs: `Q_k = v_k · F + ω_k · M`.
fn root_wrench(
    kin: &Kinematics,
    first: usize,
    q: &DVector<f64>,
) -> Option<(Vector3<f64>, Vector3<f64>)> {
    let mut a = DMatrix::zeros(6, 6);
    let mut b = DVector::zeros(6);
    for k in 0..6 {
        let (w, v) = kin.screw(first + k);
        for j in 0..3 {
            a[(k, j)] = v[j];
            a[(k, 3 + j)] = w[j];
        }
        b[k] = q[first + k];
    }
    let x = a.lu().solve(&b)?;
    Some((
        Vector3::new(x[0], x[1], x[2]),
        Vector3::new(x[3], x[4], x[5]),
    ))
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let options = UrdfOptions {
        package_paths: vec![args.package_path.clone()],
        floating_base: true,
        ..UrdfOptions::default()
    };
    let robot = load_urdf(&args.urdf, &options)?;
    let mut world = World::new(args.dt)?.with_ground();
    if let Some(mu) = args.mu {
        world = world.with_friction(mu)?;
    }
    match args.contact {
        ContactChoice::Old => world.set_contact(Some(sdrs_contact(args.mu)?)),
        ContactChoice::Unadapted => {
            let contact = ContactSettings::default_for(f64::INFINITY)?;
            world.set_contact(Some(match args.mu {
                Some(mu) => contact.with_friction(
                    FrictionSettings::new(mu)?
                        .with_velocity_epsilon(ContactSettings::DEFAULT_VELOCITY_EPSILON)?,
                ),
                None => contact,
            }));
        }
        ContactChoice::New => {}
    }
    if let Some(e) = args.epsilon
        && let Some(f) = world
            .settings_mut()
            .contact
            .as_mut()
            .and_then(|c| c.friction.as_mut())
    {
        *f = f.clone().with_velocity_epsilon(e)?;
    }
    let robot_links = world
        .add_robot(robot.links().to_vec(), Isometry3::identity())
        .link_range();
    let root = robot_links.start;
    let (mut model, simulator) = world.build()?;
    let settings = simulator.settings().clone();
    let contact = settings.contact.clone().expect("contact");
    println!(
        "contact: support s = {:.3e} m (support distance {:.3e} m), stiffness κ = {:.3e}, friction {}",
        contact.barrier().expect("hull contact").support(),
        contact.support_distance(),
        contact.stiffness,
        match (&contact.friction, args.mu) {
            (Some(_), Some(mu)) => format!(
                "μ = {mu}, ε_v = {:.0e}",
                args.epsilon.unwrap_or(match args.contact {
                    ContactChoice::Old => 1e-6,
                    _ => ContactSettings::DEFAULT_VELOCITY_EPSILON,
                })
            ),
            _ => "none".to_string(),
        }
    );

    // The configuration.
    let srdf = Srdf::from_file(&args.srdf)?;
    let mut state = match &args.state {
        Some(name) => srdf.state(&model, name)?,
        None => {
            let mut s = State::zero(&model);
            for knee in KNEES {
                let i = model.joint_link(knee)?;
                s.q[model.dof_offset(i)] = args.knee;
            }
            s
        }
    };
    let first = model.dof_offset(root);
    for k in 0..6 {
        state.q[first + k] = 0.0;
    }
    state.references[root] = UnitQuaternion::identity();
    let moved = model.clamp_inside_limits(&mut state, settings.limit_support);
    if !moved.is_empty() {
        println!("moved inside their limits: {}", moved.join(", "));
    }
    let feet = FEET.map(|n| model.link_index(n).expect("TALOS foot"));
    let soles = SOLES.map(|n| model.link_index(n).expect("TALOS sole"));

    // Forward kinematics with the base at the origin: compare with Pinocchio.
    let kin = Kinematics::new(&model, &state);
    let (mass, com) = centre_of_mass(&model, &kin, robot_links.clone());
    println!("\n== base at the origin (compare with pinocchio, same URDF and configuration) ==");
    println!("mass {mass:.9} kg");
    println!("com {:.12} {:.12} {:.12}", com.x, com.y, com.z);
    for (name, i) in SOLES.iter().zip(soles).chain(FEET.iter().zip(feet)) {
        let p = kin.poses()[i];
        let (r, pt, y) = p.rotation.euler_angles();
        let t = p.translation.vector;
        println!(
            "{name} {:.12} {:.12} {:.12} rpy {r:.9} {pt:.9} {y:.9}",
            t.x, t.y, t.z
        );
    }
    let inertia = centroidal_inertia(&model, &kin, robot_links.clone());
    println!("centroidal inertia (world axes, kg m²):");
    for r in 0..3 {
        println!(
            "  {:.9} {:.9} {:.9}",
            inertia[(r, 0)],
            inertia[(r, 1)],
            inertia[(r, 2)]
        );
    }

    // The feet's hulls against the sole frames.
    println!("\n== foot hulls in the sole frame (x forward, z up; URDF sole at z = 0) ==");
    for (f, s) in feet.iter().zip(soles) {
        let to_sole = kin.poses()[s].inverse() * kin.poses()[*f];
        let link = &model.links()[*f];
        let vs: Vec<Point3<f64>> = link
            .hulls
            .iter()
            .flat_map(|h| h.vertices().iter().map(|v| to_sole * v))
            .collect();
        let lowest = vs.iter().map(|v| v.z).fold(f64::INFINITY, f64::min);
        let bottom: Vec<&Point3<f64>> = vs.iter().filter(|v| v.z < lowest + 1e-3).collect();
        let range = |k: usize, set: &[&Point3<f64>]| {
            set.iter()
                .map(|v| v[k])
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
                    (a.min(x), b.max(x))
                })
        };
        let all: Vec<&Point3<f64>> = vs.iter().collect();
        let (bx, by) = (range(0, &bottom), range(1, &bottom));
        let (ax, ay) = (range(0, &all), range(1, &all));
        println!(
            "{}: {} hulls, {} vertices ({}); lowest z {:+.5} m; {} vertices within 1 mm of it, x {:+.4}..{:+.4}, y {:+.4}..{:+.4}; whole foot x {:+.4}..{:+.4}, y {:+.4}..{:+.4}",
            link.name,
            link.hulls.len(),
            vs.len(),
            link.hulls
                .iter()
                .map(|h| h.vertices().len().to_string())
                .collect::<Vec<_>>()
                .join("+"),
            lowest,
            bottom.len(),
            bx.0,
            bx.1,
            by.0,
            by.1,
            ax.0,
            ax.1,
            ay.0,
            ay.1
        );
        if args.dump_sole {
            let mut near: Vec<&Point3<f64>> = vs.iter().filter(|v| v.z < lowest + 2e-3).collect();
            near.sort_by(|a, b| a.x.total_cmp(&b.x));
            for v in near {
                println!("    x {:+.4} y {:+.4} z {:+.5}", v.x, v.y, v.z);
            }
        }
    }

    // The centre of mass in the sole frames: where it is once the soles are flat.
    let mid_sole = |kin: &Kinematics| -> Isometry3<f64> {
        let (a, b) = (kin.poses()[soles[0]], kin.poses()[soles[1]]);
        Isometry3::from_parts(
            Translation3::from((a.translation.vector + b.translation.vector) / 2.0),
            a.rotation.slerp(&b.rotation, 0.5),
        )
    };
    let sole = mid_sole(&kin);
    let in_sole = sole.inverse() * com;
    let world_offset = com - sole.translation.vector;
    println!(
        "\ncom − mid-sole, world axes (base upright): x {:+.4} y {:+.4} z {:+.4} m; sole pitch {:+.4} rad",
        world_offset.x,
        world_offset.y,
        world_offset.z,
        sole.rotation.euler_angles().1
    );
    println!(
        "com in the mid-sole frame (what matters once the soles lie flat): x {:+.4} y {:+.4} z {:+.4} m",
        in_sole.x, in_sole.y, in_sole.z
    );

    // Place the robot: pitched as asked, lowest foot vertex `drop` above the ground.
    let pitch = if args.level_feet {
        -sole.rotation.euler_angles().1
    } else {
        args.pitch
    };
    state.references[root] = UnitQuaternion::from_scaled_axis(Vector3::y() * pitch);
    let kin = Kinematics::new(&model, &state);
    let lowest = feet
        .iter()
        .flat_map(|&f| world_vertices(&model, &kin, f))
        .map(|v| v.z)
        .fold(f64::INFINITY, f64::min);
    state.q[first + 2] = -lowest + args.drop;

    // Collision, at the placed configuration: only the feet (against the ground), unless
    // asked otherwise.
    if args.all_links {
        srdf.apply(&mut model)?;
        let excluded = model.exclude_touching(&state, contact.support_distance())?;
        println!(
            "all links in contact; automatic filter excluded {} pairs",
            excluded.len()
        );
    } else {
        for i in robot_links.clone() {
            if !feet.contains(&i) {
                let name = model.links()[i].name.clone();
                model.exclude_link(&name)?;
            }
        }
        model.exclude_pair_indices(feet[0], feet[1])?;
    }

    // PD on every actuated DoF.
    let kin = Kinematics::new(&model, &state);
    let (lo, hi) = robot_links
        .clone()
        .flat_map(|i| world_vertices(&model, &kin, i))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v.z), hi.max(v.z))
        });
    let height = hi - lo;
    let kp = args.gain * mass * 9.81 * height;
    let mut control = Control::passive(&model);
    for j in first + 6..model.dof() {
        control.kp[j] = kp;
        control.kd[j] = args.damping * kp;
        control.position[j] = state.q[j];
    }
    println!(
        "\nm = {mass:.3} kg, h = {height:.3} m, PD stiffness {kp:.0} N·m/rad (gravity about the ankles m g l ≈ {:.0} N·m/rad), damping {:.1} N·m·s/rad",
        mass * 9.81 * in_sole.z,
        args.damping * kp
    );
    println!(
        "start: pitch {pitch:+.4} rad, lowest foot vertex {:.4} m above the ground",
        args.drop
    );

    // Simulators: the robot's, one without contact (the root's generalized contact force is
    // the no-contact objective's gradient at the solution) and one with the left foot only.
    let mut sim = Simulator::new(model.clone(), settings.clone())?;
    let mut free = Simulator::new(model.clone(), settings.clone().with_contact(None))?;
    let mut left_model = model.clone();
    left_model.exclude_link(FEET[1])?;
    let mut left_sim = Simulator::new(left_model, settings.clone())?;
    let support = contact.support_distance();

    println!(
        "\n{:>5} {:>8} {:>7} {:>8} {:>8} {:>8} {:>16} {:>5} {:>8} {:>8} {:>8} {:>8} {:>6} {:>4}",
        "t",
        "base z",
        "pitch°",
        "com x",
        "com/sole",
        "margin",
        "touch x range",
        "n",
        "F_z",
        "F_x",
        "cop x",
        "left Fz",
        "pairs",
        "it"
    );
    let steps = (args.seconds / args.dt).round() as usize;
    let every = ((args.every / args.dt).round() as usize).max(1);
    let mut motion = Motion::at_rest(&model, state);
    let mut fell = None;
    let mut error = None;
    for step in 0..steps {
        let (current, previous) = (motion.state.clone(), motion.previous.clone());
        let report = match sim.advance(&mut motion, &control) {
            Ok(r) => r,
            Err(e) => {
                error = Some(format!(
                    "step {step} (t = {:.2} s): {e}",
                    step as f64 * args.dt
                ));
                break;
            }
        };
        let t = (step + 1) as f64 * args.dt;
        let kin = Kinematics::new(&model, &motion.state);
        let base = kin.poses()[root];
        let base_pitch = base.rotation.euler_angles().1;
        let (_, com) = centre_of_mass(&model, &kin, robot_links.clone());
        if base.rotation.angle() > std::f64::consts::FRAC_PI_4 {
            fell = Some((t, base_pitch));
        }
        if (step + 1) % every != 0 && step + 1 != steps && fell.is_none() {
            continue;
        }
        let sole = mid_sole(&kin);
        let com_sole = (sole.inverse() * com).x;
        let touching: Vec<Point3<f64>> = feet
            .iter()
            .flat_map(|&f| world_vertices(&model, &kin, f))
            .filter(|v| v.z < support)
            .collect();
        let polygon = hull_2d(touching.iter().map(|v| [v.x, v.y]).collect());
        let inside = margin(&polygon, [com.x, com.y]);
        let (tx0, tx1) = touching
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                (a.min(v.x), b.max(v.x))
            });
        // The whole contact force: the no-contact objective's gradient at the solution; the
        // left foot's: minus the gradient of its contact energy (left-foot-only objective minus
        // the no-contact one).
        let nc = free
            .objective(&motion.state, &current, &previous, &control)
            .ok()
            .flatten();
        let whole = nc
            .as_ref()
            .and_then(|o| root_wrench(&kin, first, &o.gradient));
        let left = left_sim
            .objective(&motion.state, &current, &previous, &control)
            .ok()
            .flatten()
            .zip(nc.as_ref())
            .and_then(|(l, nc)| root_wrench(&kin, first, &-(l.gradient - &nc.gradient)));
        let (fz, fx, cop) = match whole {
            Some((f, m)) if f.z.abs() > 1e-9 => (f.z, f.x, -m.y / f.z),
            Some((f, _)) => (f.z, f.x, f64::NAN),
            None => (f64::NAN, f64::NAN, f64::NAN),
        };
        println!(
            "{t:5.2} {:8.4} {:7.2} {:+8.4} {:+8.4} {:+8.4} {:+7.4}..{:+7.4} {:5} {:8.1} {:+8.1} {:+8.4} {:8.1} {:6} {:4}",
            base.translation.vector.z,
            base_pitch.to_degrees(),
            com.x,
            com_sole,
            inside,
            tx0,
            tx1,
            touching.len(),
            fz,
            fx,
            cop,
            left.map_or(f64::NAN, |(f, _)| f.z),
            report.active_pairs,
            report.iterations
        );
        if fell.is_some() {
            break;
        }
    }
    match fell {
        _ if error.is_some() => println!("ERROR at {}", error.unwrap_or_default()),
        Some((t, p)) => println!(
            "FELL at t = {t:.2} s: base tilted past 45°, pitch {:+.0}° ({})",
            p.to_degrees(),
            if p < 0.0 { "backwards" } else { "forwards" }
        ),
        None => println!("stood for {:.2} s", args.seconds),
    }
    Ok(())
}
