//! The table-top scene shared by the long-range paper's sort, gather and gather-with-meshes
//! benchmarks (sec. 6, appendix A.6.2): a rod held by stable PD above a flat ground pushes
//! free objects about.
//!
//! The paper counts 66 DoF for a rod and 10 cubes, so its rod is a 6-DoF body of which the PD
//! controller drives 3 (sort: translation) or 4 (gather: translation and the horizontal
//! rotation). Here the rod hangs on six 1-DoF joints (x, y, z, yaw, roll, pitch, the first
//! five frames massless): the driven DoFs follow the policy's targets, the others are held at
//! their start by the same PD gains, so they yield to contact like the paper's passive
//! DoFs but do not topple the rod. The paper gives no sizes, masses or gains; the choices are
//! stated on the constants below.
//!
//! **The rod's height** (issue 18). The paper's plan drives the rod's 3 translations; ours
//! drives x and y (and gather's yaw) and holds z by PD at its start, 1 cm above the ground
//! (gravity compensated: the trivial plan keeps it there, `long_range_tasks`). With z driven
//! the rod drifts in height because no loss term depends on it: away from the cubes the
//! gradient's z entries are close to zero, and Adam, whose steps have the learning rate's size
//! whatever the gradient's, random-walks them. Measured on the 2-cube sort
//! (`long_range_tabletop -- sort --cubes 2 --rod=-0.375,-0.35,0 --drive-z --frames 100`): z
//! reaches +2.1 cm by frame 5, before any cube has moved; +11.3 cm at frame 20 and +16.2 cm at
//! frame 40 (the rod's underside then 12-17 cm up, above the 10 cm cubes); from frame 50 on
//! it sits at −0.9 cm, its underside resting on the ground. Holding z, the same 30 frames end
//! at loss 1.0369 instead of 1.1650 (over 60 frames both stall for the layout's reason given
//! in [`super::sort`]'s docs), and the 2-cube gather from next to the cubes succeeds at frame
//! 20 either way (`gather --first 1 --cubes 2 --rod 0,-0.55,0 --horizon 16`).

use sdrs::contact::long_range::{FarField, LongRange};
use sdrs::diff::{ContactModels, TargetRegion, descend, paper_adam};
use sdrs::dynamics::scenes::ground_grid;
use sdrs::geometry::TriMesh;
use sdrs::prelude::*;

/// Time step Δt (s), Table 3 (sort, gather, gather-bunny).
pub const DT: f64 = 0.04;
/// Potential coefficient μ of the long-range model, Table 3 (sort and gather).
pub const STIFFNESS: f64 = 3e-8;
/// Margin ε of the long-range potential's blending (m), as in the billiards scene.
pub const MARGIN: f64 = 0.1;
/// Friction coefficient between every pair of bodies (the paper does not say; 0.5 lets a
/// pushed cube stop within a few centimetres).
pub const FRICTION: f64 = 0.5;
/// Half extents of the rod (m): 60 cm long along x, 4 cm thick, 8 cm tall (our choice: long
/// enough to sweep several cubes, low enough to stay clear of the ground).
pub const ROD_HALF: Vector3<f64> = Vector3::new(0.3, 0.02, 0.04);
/// Height of the rod's centre above the ground (m): 1 cm of clearance under it.
pub const ROD_HEIGHT: f64 = 0.05;
/// Half extents of the standing post ([`RodShape::POST`]), an alternative pusher for sort
/// (m): 4 × 4 cm across, 16 cm tall.
pub const POST_HALF: Vector3<f64> = Vector3::new(0.02, 0.02, 0.08);
/// Height of the post's centre above the ground (m): 1 cm of clearance under it, as the
/// rod's.
pub const POST_HEIGHT: f64 = 0.09;
/// Rod mass (kg).
pub const ROD_MASS: f64 = 1.0;
/// PD stiffness of every rod DoF (N/m or N·m/rad for its 1 kg): a 10 rad/s follower.
pub const ROD_KP: f64 = 100.0;
/// Side of a cube (m).
pub const CUBE_SIZE: f64 = 0.1;
/// Mass of a cube (kg).
pub const CUBE_MASS: f64 = 0.2;
/// Side of the square ground grid (m) and its cells per side.
pub const GROUND: (f64, usize) = (3.0, 2);

/// IPC's activation distance `d̂` (m; the paper is silent).
pub const IPC_DHAT: f64 = 1e-3;
/// IPC's barrier stiffness `κ`: a cube rests 75 µm above the ground (7.5% of `d̂`) and the
/// rod pushes it. IPC's barrier acts on squared distances and pushes with about `2κd̂⁴/d`,
/// so the 1e3 used before held the cube 7e-9 m up, and Newton stalled (200 iterations) as
/// soon as the rod pushed it (test `ipc_rests_a_cube_at_a_resolvable_gap_and_the_rod_pushes_it`).
pub const IPC_STIFFNESS: f64 = 1e7;

/// The names of the rod's joints' links, in DoF order: x, y, z, yaw, roll, pitch.
const ROD_FRAMES: [&str; 6] = ["rod_x", "rod_y", "rod_z", "rod_yaw", "rod_roll", "rod"];

/// Which contact model a table-top scene steps with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Contact {
    /// The long-range potential (the paper's method), μ = [`STIFFNESS`].
    LongRange,
    /// The IPC barrier between the meshes (baseline), activation distance [`IPC_DHAT`],
    /// stiffness [`IPC_STIFFNESS`].
    Ipc,
    /// The SDRS plane barrier between the convex hulls (baseline).
    Hulls,
}

impl Contact {
    /// The contact settings of this model for the table-top scenes ([`Contact::settings_at`]
    /// with the long-range coefficient [`STIFFNESS`]).
    pub fn settings(self) -> Result<ContactSettings, Box<dyn std::error::Error>> {
        self.settings_at(STIFFNESS)
    }

    /// The contact settings of this model for the table-top scenes, parent-child pairs
    /// skipped (the rod's frames), with friction [`FRICTION`] except under IPC (whose lagged
    /// friction the backward pass cannot differentiate yet); `long_range_stiffness` is the
    /// potential coefficient μ of the long-range model (Table 3 sets it per task; the
    /// baselines keep their own).
    pub fn settings_at(
        self,
        long_range_stiffness: f64,
    ) -> Result<ContactSettings, Box<dyn std::error::Error>> {
        let settings = match self {
            Contact::LongRange => ContactSettings::new(
                ContactKind::LongRange(LongRange::new(MARGIN)?),
                long_range_stiffness,
            )?,
            Contact::Ipc => ContactSettings::new(
                ContactKind::Ipc(sdrs::contact::ipc::potential::Ipc::new(IPC_DHAT)?),
                IPC_STIFFNESS,
            )?,
            Contact::Hulls => ContactSettings::default_for(CUBE_SIZE)?,
        };
        Ok(match self {
            // IPC's lagged friction has no step-t derivatives for the backward pass.
            Contact::Ipc => settings,
            Contact::LongRange | Contact::Hulls => {
                settings.with_friction(FrictionSettings::new(FRICTION)?)
            }
        })
    }
}

/// The blending margin ε of the long-range model with the counted far field
/// ([`counted_far_field`]): wide enough that its push falls with distance through every blend
/// (at 0.1 it still rises 14% where a rod's and a cube's child nodes blend).
pub const COUNTED_MARGIN: f64 = 0.5;

/// `settings` with the counted far field ([`FarField::Counted`], margin [`COUNTED_MARGIN`])
/// if they are a long-range model's, instead of the paper's eq. 7, whose far-field push grows
/// where node pairs blend, so that gradient descent from afar moves the rod away from the
/// cubes (see [`super::gather`]); other models unchanged.
pub fn counted_far_field(
    mut settings: ContactSettings,
) -> Result<ContactSettings, Box<dyn std::error::Error>> {
    if let ContactKind::LongRange(_) = settings.kind {
        settings.kind = ContactKind::LongRange(
            LongRange::new(COUNTED_MARGIN)?.with_far_field(FarField::Counted),
        );
    }
    Ok(settings)
}

/// The three contact models of the paper's comparison ([`ContactModels`]) for the table-top
/// scenes, the long-range one with coefficient `long_range_stiffness`.
pub fn contact_models(
    long_range_stiffness: f64,
) -> Result<ContactModels, Box<dyn std::error::Error>> {
    Ok(ContactModels {
        long_range: Contact::LongRange.settings_at(long_range_stiffness)?,
        ipc: Contact::Ipc.settings()?,
        hulls: Contact::Hulls.settings()?,
    })
}

/// One free object of a table-top scene: its convex hulls (mass is lumped on their
/// vertices), its collision mesh and where it starts.
#[derive(Debug, Clone)]
pub struct Piece {
    /// Link name.
    pub name: String,
    /// Convex parts (SDRS contact and mass).
    pub hulls: Vec<ConvexHull>,
    /// Collision mesh (long-range and IPC contact).
    pub mesh: TriMesh,
    /// Start pose (its lowest point should be about 1 mm above the ground).
    pub pose: Isometry3<f64>,
}

impl Piece {
    /// A [`CUBE_SIZE`] cube named `name` resting (1 mm up) at `(x, y)`.
    pub fn cube(name: impl Into<String>, x: f64, y: f64) -> Self {
        let half = Vector3::repeat(0.5 * CUBE_SIZE);
        Self {
            name: name.into(),
            hulls: vec![ConvexHull::cuboid(half).expect("positive extents")],
            mesh: TriMesh::cuboid(half).expect("positive extents"),
            pose: Isometry3::translation(x, y, 0.5 * CUBE_SIZE + 1e-3),
        }
    }
}

impl Piece {
    /// The piece as a free link of [`CUBE_MASS`] (lumped on its hulls' vertices) with its
    /// collision mesh, at its start pose.
    pub fn link(&self) -> Link {
        Link::new(
            self.name.clone(),
            None,
            self.pose,
            JointKind::Free,
            self.hulls.clone(),
            MassModel::Lumped { mass: CUBE_MASS },
        )
        .with_mesh(self.mesh.clone())
    }

    /// A non-convex L-shaped piece of three [`CUBE_SIZE`] cubes (a corner cube and one on
    /// each of its +x and +y sides; 36 triangles, 3 hulls) named `name`, its centre of mass
    /// resting (1 mm up) at `(x, y)`: a generated stand-in for the paper's bunny
    /// (Gather-Bunny), far simpler (the bunnies have 278 triangles each; see
    /// [`Piece::bunny_like`] for one of that size).
    pub fn ell(
        name: impl Into<String>,
        x: f64,
        y: f64,
    ) -> Result<Self, Box<dyn std::error::Error>> {
        let half = Vector3::repeat(0.5 * CUBE_SIZE);
        let box_hull = ConvexHull::cuboid(half)?;
        let box_mesh = TriMesh::cuboid(half)?;
        let parts = [(0.0, 0.0), (CUBE_SIZE, 0.0), (0.0, CUBE_SIZE)]
            .iter()
            .map(|&(a, b)| {
                let o = Vector3::new(a, b, 0.0);
                Ok((
                    ConvexHull::new(box_hull.vertices().iter().map(|v| v + o).collect())?,
                    box_mesh.transformed(&Isometry3::translation(a, b, 0.0)),
                ))
            })
            .collect::<Result<Vec<_>, sdrs::geometry::GeometryError>>()?;
        Self::from_parts(name, x, y, parts)
    }

    /// A generated rabbit-shaped piece named `name`, its lumped centre of mass at `(x, y)`
    /// and its feet 1 mm above the ground: a stand-in for the paper's Gather-Bunny pieces
    /// (Stanford bunnies of 278 triangles each), of which we found no copy with a
    /// redistributable licence in a registry package. It is the union of 8 overlapping
    /// convex ellipsoids, each one hull and one closed icosphere mesh: body and head (80
    /// triangles each), two ears tilted back and four feet (20 each), so 280 triangles and
    /// 156 hull vertices, about 1.2 [`CUBE_SIZE`] long, 0.7 wide and 1.2 tall. It stands on
    /// its feet, each touching down along an edge of its icosahedron.
    pub fn bunny_like(
        name: impl Into<String>,
        x: f64,
        y: f64,
    ) -> Result<Self, Box<dyn std::error::Error>> {
        let s = CUBE_SIZE;
        // (centre, semi-axes, tilt about y (rad), icosphere level), in units of CUBE_SIZE,
        // x forward, z up.
        let mut parts = vec![
            ((0.0, 0.0, 0.36), (0.5, 0.34, 0.3), 0.0, 1),    // body
            ((0.45, 0.0, 0.68), (0.24, 0.22, 0.22), 0.0, 1), // head
        ];
        for side in [-1.0, 1.0] {
            parts.push(((0.36, 0.1 * side, 1.0), (0.07, 0.05, 0.22), -0.3, 0)); // ear
            for end in [-1.0, 1.0] {
                parts.push((
                    (0.1 + 0.3 * end, 0.16 * side, 0.14),
                    (0.16, 0.09, 0.14),
                    0.0,
                    0,
                )); // foot
            }
        }
        let parts = parts
            .into_iter()
            .map(|((cx, cy, cz), (ax, ay, az), tilt, level)| {
                let pose = Isometry3::new(Vector3::new(cx, cy, cz) * s, Vector3::y() * tilt);
                ellipsoid(&pose, Vector3::new(ax, ay, az) * s, level)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Self::from_parts(name, x, y, parts)
    }

    /// A piece of convex `parts` (each a hull and its closed mesh, in one frame) named
    /// `name`: moved so that its lumped centre of mass (the mean of the hulls' vertices) is
    /// the link's origin, which starts at `(x, y)` with the lowest vertex 1 mm above the
    /// ground. Errors: no parts, or a part's hull with no volume.
    fn from_parts(
        name: impl Into<String>,
        x: f64,
        y: f64,
        parts: Vec<(ConvexHull, TriMesh)>,
    ) -> Result<Self, Box<dyn std::error::Error>> {
        let vertices = parts.iter().flat_map(|(h, _)| h.vertices());
        let count = vertices.clone().count();
        if count == 0 {
            return Err("a piece needs at least one part".into());
        }
        let mean = vertices.fold(Vector3::zeros(), |sum, v| sum + v.coords) / count as f64;
        let shift = Isometry3::translation(-mean.x, -mean.y, -mean.z);
        let mut hulls = Vec::with_capacity(parts.len());
        let mut meshes = Vec::with_capacity(parts.len());
        for (hull, mesh) in &parts {
            hulls.push(ConvexHull::new(
                hull.vertices().iter().map(|v| v - mean).collect(),
            )?);
            meshes.push(mesh.transformed(&shift));
        }
        let lowest = hulls
            .iter()
            .flat_map(|h| h.vertices())
            .chain(meshes.iter().flat_map(|m| m.vertices()))
            .map(|v| v.z)
            .fold(f64::INFINITY, f64::min);
        Ok(Self {
            name: name.into(),
            hulls,
            mesh: TriMesh::merged(&meshes)?,
            pose: Isometry3::translation(x, y, 1e-3 - lowest),
        })
    }
}

/// An ellipsoid of `semi_axes` placed by `pose`: its hull and its closed mesh, both the
/// vertices of an icosphere of subdivision `level` (`20 · 4^level` triangles) scaled.
fn ellipsoid(
    pose: &Isometry3<f64>,
    semi_axes: Vector3<f64>,
    level: u32,
) -> Result<(ConvexHull, TriMesh), sdrs::geometry::GeometryError> {
    let unit = TriMesh::icosphere(1.0, level)?;
    let vertices: Vec<Point3<f64>> = unit
        .vertices()
        .iter()
        .map(|v| pose * Point3::from(v.coords.component_mul(&semi_axes)))
        .collect();
    Ok((
        ConvexHull::new(vertices.clone())?,
        TriMesh::new(vertices, unit.triangles().to_vec())?,
    ))
}

/// A table-top scene: the model (ground, a pusher, pieces), its step settings, the pusher's
/// PD control at rest and the start state (the pusher is the rod of [`tabletop`] or another
/// mechanism, e.g. the Panda arm of [`super::franka`]).
#[derive(Debug, Clone)]
pub struct Tabletop {
    /// Ground, the pusher's links (the rod's six frames), then one link per piece.
    pub model: Model,
    /// Step settings (Δt = [`DT`], backward blocks on, design blocks off).
    pub settings: StepSettings,
    /// PD gains on the pusher's DoFs, targets at the start (the rod's: zero).
    pub control: Control,
    /// Index of each piece's link.
    pub pieces: Vec<usize>,
    /// The start configuration (the rod's scenes: zero, every link at its attachment).
    pub start: State,
}

/// The table-top scenes' ground: a fixed slab 10 cm thick whose top face (z = 0) spans the
/// [`GROUND`] square, its collision mesh that face as a grid of triangles
/// ([`ground_grid`]).
pub fn ground() -> Result<Link, Box<dyn std::error::Error>> {
    let (size, cells) = GROUND;
    Ok(Link::new(
        "ground",
        None,
        Isometry3::identity(),
        JointKind::Fixed,
        vec![ConvexHull::new(vec![
            Point3::new(-0.5 * size, -0.5 * size, -0.1),
            Point3::new(0.5 * size, -0.5 * size, -0.1),
            Point3::new(0.5 * size, 0.5 * size, -0.1),
            Point3::new(-0.5 * size, 0.5 * size, -0.1),
            Point3::new(-0.5 * size, -0.5 * size, 0.0),
            Point3::new(0.5 * size, -0.5 * size, 0.0),
            Point3::new(0.5 * size, 0.5 * size, 0.0),
            Point3::new(-0.5 * size, 0.5 * size, 0.0),
        ])?],
        MassModel::Lumped { mass: 1.0 },
    )
    .with_mesh(ground_grid(size, cells)?))
}

/// The pusher's box: its half extents and the height of its centre above the ground (same
/// mass, joints and PD gains whatever the shape).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RodShape {
    /// Half extents (m) along the rod's x, y, z at yaw 0.
    pub half: Vector3<f64>,
    /// Height of its centre above the ground (m).
    pub height: f64,
}

impl RodShape {
    /// The rod lying along x ([`ROD_HALF`] at [`ROD_HEIGHT`]): every task's default.
    pub const LYING: RodShape = RodShape {
        half: ROD_HALF,
        height: ROD_HEIGHT,
    };
    /// A standing post ([`POST_HALF`] at [`POST_HEIGHT`]): it pushes a cube with a 4 cm
    /// face in any horizontal direction instead of the rod's 60 cm face along ±y (tried on
    /// sort; see [`super::sort`]'s docs).
    pub const POST: RodShape = RodShape {
        half: POST_HALF,
        height: POST_HEIGHT,
    };
}

/// Builds the ground, a rod centred at `rod` (x, y; yaw `yaw` about z) and the pieces, under
/// contact model `contact` ([`tabletop_with`] the lying rod, [`RodShape::LYING`]).
pub fn tabletop(
    rod: (f64, f64),
    yaw: f64,
    pieces: &[Piece],
    contact: Contact,
) -> Result<Tabletop, Box<dyn std::error::Error>> {
    tabletop_with(rod, yaw, RodShape::LYING, pieces, contact)
}

/// [`tabletop`] with the pusher's box `shape` (e.g. [`RodShape::POST`]).
pub fn tabletop_with(
    rod: (f64, f64),
    yaw: f64,
    shape: RodShape,
    pieces: &[Piece],
    contact: Contact,
) -> Result<Tabletop, Box<dyn std::error::Error>> {
    let ground = ground()?;
    let mut links = vec![ground];
    let axes = [
        JointKind::Prismatic { axis: Vector3::x() },
        JointKind::Prismatic { axis: Vector3::y() },
        JointKind::Prismatic { axis: Vector3::z() },
        JointKind::Revolute { axis: Vector3::z() },
        JointKind::Revolute { axis: Vector3::x() },
        JointKind::Revolute { axis: Vector3::y() },
    ];
    let start = Isometry3::new(Vector3::new(rod.0, rod.1, shape.height), Vector3::z() * yaw);
    for (k, (name, joint)) in ROD_FRAMES.iter().zip(axes).enumerate() {
        let (parent, attachment) = if k == 0 {
            (None, start)
        } else {
            (Some(k), Isometry3::identity())
        };
        links.push(if k + 1 < ROD_FRAMES.len() {
            Link::frame(*name, parent, attachment, joint)
        } else {
            Link::new(
                *name,
                parent,
                attachment,
                joint,
                vec![ConvexHull::cuboid(shape.half)?],
                MassModel::Lumped { mass: ROD_MASS },
            )
            .with_mesh(TriMesh::cuboid(shape.half)?)
        });
    }
    let mut indices = Vec::with_capacity(pieces.len());
    for piece in pieces {
        indices.push(links.len());
        links.push(piece.link());
    }
    let model = Model::new(links)?;
    let mut settings = StepSettings::new(DT)?;
    settings.contact = Some(contact.settings()?);
    settings.backward = true;
    settings.design_derivatives = false;
    // Every rod DoF under PD; damping c = 2√(k m) makes the translations critically damped.
    let mut control = Control::passive(&model);
    for j in 0..ROD_FRAMES.len() {
        control.kp[j] = ROD_KP;
        control.kd[j] = 2.0 * (ROD_KP * ROD_MASS).sqrt();
    }
    // The rod's weight is carried by a constant lift on its z DoF (gravity compensation), so
    // its height target holds it 1 cm above the ground: the z spring alone (100 N/m against
    // 9.81 N) would sag 9.8 cm and drag the rod along the ground under friction.
    control.force[2] = ROD_MASS * settings.gravity;
    Ok(Tabletop {
        start: State::zero(&model),
        model,
        settings,
        control,
        pieces: indices,
    })
}

/// A table-top task: the rod's open-loop PD targets on the driven DoFs, one per step (the
/// trivial start holds the rod where it is), scored by the paper's loss
/// `Σ ReLU(|x_COM − x*_COM|² − ε²)` over the pieces at the end of the horizon (appendix
/// A.6.2, [`TargetRegion`]).
pub type TabletopTask = Objective<OpenLoop, Sum>;

/// The task on `scene`: piece `k` should end within `epsilon` of `targets[k]`, the rod's DoFs
/// `driven` (0-5: x, y, z, yaw, roll, pitch) follow open-loop targets over `steps` steps.
pub fn task(
    scene: Tabletop,
    targets: &[Vector3<f64>],
    epsilon: f64,
    driven: Vec<usize>,
    steps: usize,
) -> Result<TabletopTask, Box<dyn std::error::Error>> {
    if targets.len() != scene.pieces.len() {
        return Err(format!(
            "{} targets for {} pieces: give one target per piece",
            targets.len(),
            scene.pieces.len()
        )
        .into());
    }
    let mut loss = Sum::new();
    for (&link, target) in scene.pieces.iter().zip(targets) {
        let name = &scene.model.links()[link].name;
        loss = loss.with(
            1.0,
            TargetRegion::links(&scene.model, &[name], *target, epsilon)?,
        );
    }
    Ok(Objective {
        policy: OpenLoop::new(scene.control, driven, steps)?,
        loss,
        start: scene.start,
        steps,
        design: DesignMap::new(&scene.model, 0),
        settings: scene.settings,
        recording: Recording::Blocks,
        model: scene.model,
    })
}

/// A table-top problem before its horizon is chosen: the scene, each piece's target, the
/// success radius and the rod's driven DoFs; [`TabletopProblem::task`] makes it a task over
/// a horizon (the whole trajectory, or one receding-horizon window).
#[derive(Debug, Clone)]
pub struct TabletopProblem {
    /// The scene.
    pub scene: Tabletop,
    /// Each piece's target (centre of mass).
    pub targets: Vec<Vector3<f64>>,
    /// Success radius ε_target (m).
    pub epsilon: f64,
    /// The rod's DoFs driven by PD targets (0-5: x, y, z, yaw, roll, pitch).
    pub driven: Vec<usize>,
}

impl TabletopProblem {
    /// The task over `steps` steps ([`task`]).
    pub fn task(&self, steps: usize) -> Result<TabletopTask, Box<dyn std::error::Error>> {
        task(
            self.scene.clone(),
            &self.targets,
            self.epsilon,
            self.driven.clone(),
            steps,
        )
    }

    /// Each piece's distance (m) from its target in `state` ([`misses`]).
    pub fn misses(&self, state: &State) -> Vec<f64> {
        misses(&self.scene.model, &self.scene.pieces, &self.targets, state)
    }

    /// Bounds on the driven DoFs' PD targets that keep the pusher's centre at least `margin`
    /// inside the [`GROUND`] square's edges (x and y; the other DoFs unbounded), for
    /// [`sdrs::diff::RecedingHorizon::with_action_bounds`]. The targets are offsets along the
    /// rod's starting frame, so its starting yaw must be 0.
    pub fn ground_bounds(
        &self,
        margin: f64,
    ) -> Result<(DVector<f64>, DVector<f64>), Box<dyn std::error::Error>> {
        let model = &self.scene.model;
        let start = model.links()[model.link_index(ROD_FRAMES[0])?].attachment;
        if start.rotation.angle() != 0.0 {
            return Err(format!(
                "ground bounds: the rod starts turned by {} rad; they need a starting yaw of 0",
                start.rotation.angle()
            )
            .into());
        }
        let half = 0.5 * GROUND.0 - margin;
        if !(half > 0.0) {
            return Err(format!(
                "ground bounds: a margin of {margin} m leaves nothing of the {} m ground",
                GROUND.0
            )
            .into());
        }
        let bound = |dof: usize, side: f64| match dof {
            0 | 1 => side * half - start.translation.vector[dof],
            _ => side * f64::INFINITY,
        };
        let (lower, upper) = self
            .driven
            .iter()
            .map(|&dof| (bound(dof, -1.0), bound(dof, 1.0)))
            .unzip::<_, _, Vec<f64>, Vec<f64>>();
        Ok((DVector::from_vec(lower), DVector::from_vec(upper)))
    }
}

/// Each piece's distance (m) from its target in `state`.
pub fn misses(
    model: &Model,
    pieces: &[usize],
    targets: &[Vector3<f64>],
    state: &State,
) -> Vec<f64> {
    let kinematics = Kinematics::new(model, state);
    pieces
        .iter()
        .zip(targets)
        .map(|(&link, target)| (kinematics.poses()[link].translation.vector - target).norm())
        .collect()
}

/// The paper's loss `Σ ReLU(d² − ε²)` (appendix A.6.2) of pieces at distances `misses`
/// from their targets with success radius `epsilon`: the value [`TargetRegion`] gives at a
/// trajectory's end, here of a state alone.
pub fn region_loss(misses: &[f64], epsilon: f64) -> f64 {
    misses
        .iter()
        .map(|d| (d * d - epsilon * epsilon).max(0.0))
        .sum()
}

/// One optimisation run: the loss before each iteration, the last parameters and the
/// evaluation at them, and the mean wall time of an iteration (s).
#[derive(Debug, Clone)]
pub struct Run {
    /// Loss at each iterate, the start first.
    pub history: Vec<f64>,
    /// The last iterate.
    pub parameters: DVector<f64>,
    /// Its evaluation.
    pub end: sdrs::diff::Evaluation,
    /// Mean wall time of one evaluation (rollout and adjoint), s.
    pub seconds_per_iteration: f64,
}

/// `iterations` Adam steps of learning rate `learning_rate` with the paper's
/// (β₁, β₂) = (0.3, 0.5) (Table 3, [`paper_adam`]) from `start`; `progress(k, loss)` before
/// each step.
pub fn optimise(
    task: &TabletopTask,
    start: DVector<f64>,
    iterations: usize,
    learning_rate: f64,
    mut progress: impl FnMut(usize, f64),
) -> Result<Run, Box<dyn std::error::Error>> {
    let mut adam = paper_adam(start.len(), learning_rate);
    let none = DVector::zeros(0);
    let mut parameters = start;
    let mut last = None;
    let clock = std::time::Instant::now();
    let mut source = |x: &DVector<f64>| {
        let e = task.evaluate(x, &none)?;
        let out = (e.loss, e.parameters.clone());
        last = Some(e);
        Ok(out)
    };
    let history = descend(&mut parameters, &mut adam, iterations, &mut source, |i| {
        progress(i.iteration, i.value)
    })?;
    let seconds_per_iteration = clock.elapsed().as_secs_f64() / (iterations + 1) as f64;
    Ok(Run {
        history,
        parameters,
        end: last.ok_or("no evaluation")?,
        seconds_per_iteration,
    })
}
