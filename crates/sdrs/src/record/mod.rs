//! Trajectory files: per step the time, the state, every link's pose and the active
//! contacts with their forces, as JSON lines ([`TrajectoryWriter`], [`TrajectoryFile::read`])
//! or as a NumPy `.npz` archive ([`TrajectoryFile::write_npz`]).
//!
//! A JSON-lines file starts with a header line ([`TrajectoryHeader`]: format, version, Δt,
//! link and DoF names), then holds one [`StepRecord`] per line.
//!
//! ```
//! use sdrs::prelude::*;
//! use sdrs::record::{TrajectoryFile, TrajectoryWriter};
//! let cube = ConvexHull::cuboid(Vector3::repeat(0.1))?;
//! let mut world = World::new(0.01)?.with_ground();
//! world.add_object("box", cube, 1.0, Isometry3::translation(0.0, 0.0, 0.12));
//! let (model, mut sim) = world.build()?;
//! let mut motion = Motion::at_rest(&model, State::zero(&model));
//! let path = std::env::temp_dir().join(format!("sdrs-doc-{}.jsonl", std::process::id()));
//! let mut writer = TrajectoryWriter::create(&path, &model, 0.01)?;
//! writer.record(&model, &motion.state, &sim.contacts(&motion)?)?;
//! for _ in 0..10 {
//!     sim.advance(&mut motion, &Control::passive(&model))?;
//!     writer.record(&model, &motion.state, &sim.contacts(&motion)?)?;
//! }
//! writer.finish()?;
//! let file = TrajectoryFile::read(&path)?;
//! assert_eq!(file.steps.len(), 11);
//! assert_eq!(file.header.links, ["ground", "box"]);
//! // The box has settled onto the ground: one contact, carrying its weight.
//! let last = &file.steps[10];
//! assert_eq!(last.contacts[0].links, [0, 1]);
//! # std::fs::remove_file(&path)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod npz;

use nalgebra::{DVector, Isometry3, Quaternion, UnitQuaternion};
use sdrs_dynamics::{ActiveContact, Kinematics, Model, State};
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::Path;
use thiserror::Error;

/// The `format` field of a trajectory file's header.
pub const FORMAT: &str = "sdrs-trajectory";

/// The version of the trajectory format this crate writes and reads.
pub const VERSION: u32 = 1;

/// What went wrong writing or reading a trajectory file.
#[derive(Debug, Error)]
pub enum TrajectoryError {
    /// The file could not be created, written or read.
    #[error("{path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// The system's reason.
        message: String,
    },
    /// A line of a JSON-lines file is not what the format says.
    #[error("{path}:{line}: {message}")]
    Malformed {
        /// The file.
        path: String,
        /// 1-based line.
        line: usize,
        /// What was wrong (with the key, for a missing or mistyped field).
        message: String,
    },
    /// A state does not fit the model the file describes.
    #[error("step {step}: {message}")]
    Mismatch {
        /// The step recorded.
        step: usize,
        /// What did not fit.
        message: String,
    },
}

/// A trajectory module's result.
pub type Result<T, E = TrajectoryError> = std::result::Result<T, E>;

/// The first line of a trajectory file: what the records describe.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrajectoryHeader {
    /// Always [`FORMAT`].
    pub format: String,
    /// The format version ([`VERSION`]).
    pub version: u32,
    /// Time step Δt (s).
    pub dt: f64,
    /// The model's link names, in its order (the order of [`StepRecord::poses`]).
    pub links: Vec<String>,
    /// The model's DoF names ([`Model::dof_name`]), in the order of the state's `q`.
    pub dofs: Vec<String>,
}

impl TrajectoryHeader {
    /// The header of `model`'s trajectories with time step `dt`.
    pub fn new(model: &Model, dt: f64) -> Self {
        Self {
            format: FORMAT.into(),
            version: VERSION,
            dt,
            links: model.links().iter().map(|l| l.name.clone()).collect(),
            dofs: (0..model.dof()).map(|k| model.dof_name(k)).collect(),
        }
    }
}

/// A link's world pose.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkPose {
    /// Translation (m).
    pub translation: [f64; 3],
    /// Rotation as a unit quaternion `[w, x, y, z]`.
    pub rotation: [f64; 4],
}

impl From<&Isometry3<f64>> for LinkPose {
    fn from(pose: &Isometry3<f64>) -> Self {
        let t = pose.translation.vector;
        Self {
            translation: [t.x, t.y, t.z],
            rotation: quaternion(&pose.rotation),
        }
    }
}

/// A rotation's `[w, x, y, z]`.
fn quaternion(r: &UnitQuaternion<f64>) -> [f64; 4] {
    let q = r.quaternion();
    [q.w, q.i, q.j, q.k]
}

/// One active contact ([`ActiveContact`]) as recorded.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContactRecord {
    /// The two links' indices (first < second).
    pub links: [usize; 2],
    /// The centre of pressure (world frame, m).
    pub point: [f64; 3],
    /// Unit normal, from the first link to the second.
    pub normal: [f64; 3],
    /// Distance between the two shapes (m).
    pub gap: f64,
    /// Normal force magnitude (N).
    pub normal_force: f64,
    /// Friction force on the second link (N), when the contact model has friction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub friction_force: Option<[f64; 3]>,
}

impl From<&ActiveContact> for ContactRecord {
    fn from(c: &ActiveContact) -> Self {
        Self {
            links: c.links,
            point: c.point.coords.into(),
            normal: c.normal.into(),
            gap: c.gap,
            normal_force: c.normal_force,
            friction_force: c.friction_force.map(Into::into),
        }
    }
}

/// One step of a trajectory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepRecord {
    /// The step index (0 for the start).
    pub step: usize,
    /// Time (s): `step · Δt`.
    pub time: f64,
    /// The generalized coordinates `q`, in the order of the header's DoF names.
    pub q: Vec<f64>,
    /// Per link, the reference rotation of its spherical or free joint (identity
    /// otherwise), as a unit quaternion `[w, x, y, z]`.
    pub references: Vec<[f64; 4]>,
    /// Every link's world pose, in the model's order.
    pub poses: Vec<LinkPose>,
    /// The contacts active at this configuration.
    pub contacts: Vec<ContactRecord>,
}

impl StepRecord {
    /// The record of `state` at step `step` (time `step · dt`) with `contacts`; checks the
    /// state fits `model`.
    pub fn new(
        model: &Model,
        step: usize,
        dt: f64,
        state: &State,
        contacts: &[ActiveContact],
    ) -> Result<Self> {
        state.check(model).map_err(|e| TrajectoryError::Mismatch {
            step,
            message: e.to_string(),
        })?;
        let kinematics = Kinematics::new(model, state);
        Ok(Self {
            step,
            time: step as f64 * dt,
            q: state.q.iter().copied().collect(),
            references: state.references.iter().map(quaternion).collect(),
            poses: kinematics.poses().iter().map(LinkPose::from).collect(),
            contacts: contacts.iter().map(ContactRecord::from).collect(),
        })
    }

    /// The recorded configuration as a [`State`] (exactly the one recorded).
    pub fn state(&self) -> State {
        State {
            q: DVector::from_column_slice(&self.q),
            references: self
                .references
                .iter()
                .map(|&[w, x, y, z]| UnitQuaternion::new_unchecked(Quaternion::new(w, x, y, z)))
                .collect(),
        }
    }
}

/// Writes a trajectory as JSON lines while it runs: the header when created, then a line per
/// [`TrajectoryWriter::record`].
#[derive(Debug)]
pub struct TrajectoryWriter<W: Write> {
    out: W,
    path: String,
    dt: f64,
    steps: usize,
}

impl TrajectoryWriter<BufWriter<File>> {
    /// Creates (or truncates) the file at `path` and writes `model`'s header.
    pub fn create(path: impl AsRef<Path>, model: &Model, dt: f64) -> Result<Self> {
        Self::create_with(path.as_ref(), &TrajectoryHeader::new(model, dt))
    }

    fn create_with(path: &Path, header: &TrajectoryHeader) -> Result<Self> {
        let file = File::create(path).map_err(|e| io_error(path, e))?;
        Self::with_header(BufWriter::new(file), path.display().to_string(), header)
    }
}

impl<W: Write> TrajectoryWriter<W> {
    /// Writes `model`'s header to `out` (named `path` in messages).
    pub fn new(out: W, path: String, model: &Model, dt: f64) -> Result<Self> {
        Self::with_header(out, path, &TrajectoryHeader::new(model, dt))
    }

    fn with_header(out: W, path: String, header: &TrajectoryHeader) -> Result<Self> {
        let mut writer = Self {
            out,
            path,
            dt: header.dt,
            steps: 0,
        };
        writer.line(header)?;
        Ok(writer)
    }

    /// Appends the next step: `state` (of `model`) and the `contacts` active there.
    pub fn record(
        &mut self,
        model: &Model,
        state: &State,
        contacts: &[ActiveContact],
    ) -> Result<()> {
        let record = StepRecord::new(model, self.steps, self.dt, state, contacts)?;
        self.write_record(&record)
    }

    /// Appends a step record as it is.
    pub fn write_record(&mut self, record: &StepRecord) -> Result<()> {
        self.line(record)?;
        self.steps += 1;
        Ok(())
    }

    /// The number of steps written.
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// Flushes the file and returns the output.
    pub fn finish(mut self) -> Result<W> {
        let path = self.path.clone();
        self.out.flush().map_err(|e| io_error(&path, e))?;
        Ok(self.out)
    }

    fn line(&mut self, value: &impl Serialize) -> Result<()> {
        let fail = |message: String| TrajectoryError::Io {
            path: self.path.clone(),
            message,
        };
        serde_json::to_writer(&mut self.out, value).map_err(|e| fail(e.to_string()))?;
        self.out.write_all(b"\n").map_err(|e| fail(e.to_string()))
    }
}

/// A whole trajectory in memory: header and steps.
#[derive(Debug, Clone, PartialEq)]
pub struct TrajectoryFile {
    /// What the records describe.
    pub header: TrajectoryHeader,
    /// The steps, in order.
    pub steps: Vec<StepRecord>,
}

impl TrajectoryFile {
    /// An empty trajectory of `model` with time step `dt`.
    pub fn new(model: &Model, dt: f64) -> Self {
        Self {
            header: TrajectoryHeader::new(model, dt),
            steps: Vec::new(),
        }
    }

    /// Appends the next step: `state` and the `contacts` active there.
    pub fn record(
        &mut self,
        model: &Model,
        state: &State,
        contacts: &[ActiveContact],
    ) -> Result<()> {
        let record = StepRecord::new(model, self.steps.len(), self.header.dt, state, contacts)?;
        self.steps.push(record);
        Ok(())
    }

    /// The states `θ^0 … θ^H` of an optimiser's or a rollout's trajectory (no contacts).
    pub fn from_trajectory(
        model: &Model,
        dt: f64,
        trajectory: &sdrs_diff::Trajectory,
    ) -> Result<Self> {
        let mut file = Self::new(model, dt);
        for state in &trajectory.states {
            file.record(model, state, &[])?;
        }
        Ok(file)
    }

    /// Writes the trajectory as JSON lines at `path`.
    pub fn write_jsonl(&self, path: impl AsRef<Path>) -> Result<()> {
        let mut writer = TrajectoryWriter::create_with(path.as_ref(), &self.header)?;
        for record in &self.steps {
            writer.write_record(record)?;
        }
        writer.finish().map(drop)
    }

    /// Reads a JSON-lines trajectory file; every record must fit the header (as many
    /// coordinates as DoF names, as many poses and references as links).
    pub fn read(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let name = path.display().to_string();
        let file = File::open(path).map_err(|e| io_error(path, e))?;
        let mut lines = BufReader::new(file).lines().enumerate();
        let malformed = |line: usize, message: String| TrajectoryError::Malformed {
            path: name.clone(),
            line: line + 1,
            message,
        };
        let header: TrajectoryHeader = match lines.next() {
            Some((n, text)) => {
                let text = text.map_err(|e| io_error(path, e))?;
                parse(&text).map_err(|e| malformed(n, format!("header: {e}")))?
            }
            None => return Err(malformed(0, "empty file: no header line".into())),
        };
        if header.format != FORMAT || header.version != VERSION {
            return Err(malformed(
                0,
                format!(
                    "format '{}' version {} (this reader reads '{FORMAT}' version {VERSION})",
                    header.format, header.version
                ),
            ));
        }
        let mut steps = Vec::new();
        for (n, text) in lines {
            let text = text.map_err(|e| io_error(path, e))?;
            if text.trim().is_empty() {
                continue;
            }
            let record: StepRecord = parse(&text).map_err(|e| malformed(n, e))?;
            let fits = [
                ("q", record.q.len(), header.dofs.len(), "DoF names"),
                (
                    "references",
                    record.references.len(),
                    header.links.len(),
                    "links",
                ),
                ("poses", record.poses.len(), header.links.len(), "links"),
            ];
            for (key, actual, expected, what) in fits {
                if actual != expected {
                    return Err(malformed(
                        n,
                        format!("{key}: {actual} entries, the header has {expected} {what}"),
                    ));
                }
            }
            steps.push(record);
        }
        Ok(Self { header, steps })
    }
}

/// A JSON value of type `T`, or a message naming the key path of what did not fit.
fn parse<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, String> {
    let mut de = serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(&mut de).map_err(|e| format!("{}: {}", e.path(), e.inner()))
}

fn io_error(path: impl AsRef<Path>, e: std::io::Error) -> TrajectoryError {
    TrajectoryError::Io {
        path: path.as_ref().display().to_string(),
        message: e.to_string(),
    }
}
