//! Scene files (TOML): a world's robots, objects, ground, contact and solver settings and
//! controls, read into plain descriptions ([`SceneDescription`]) and built into a model, a
//! simulator, a start motion and a control ([`Scene::build`]).
//!
//! ```
//! use sdrs::scene::Scene;
//! use std::str::FromStr;
//! let scene = Scene::from_str(r#"
//! dt = 0.01
//! ground = true
//! steps = 20
//!
//! [[object]]
//! name = "box"
//! shape = { type = "box", half_extents = [0.1, 0.1, 0.1] }
//! mass = 1.0
//! pose = { xyz = [0.0, 0.0, 0.1008] }
//! "#)?;
//! let mut setup = scene.build()?;
//! for _ in 0..setup.steps.unwrap_or(0) {
//!     setup.simulator.advance(&mut setup.motion, &setup.control)?;
//! }
//! // The box rests on the ground.
//! assert!(setup.motion.state.q.rows(0, 3).norm() < 1e-4);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A malformed file is refused with the file, line, column and key path of the culprit:
//!
//! ```
//! use sdrs::scene::Scene;
//! use std::str::FromStr;
//! let error = Scene::from_str("dt = 0.01\n[[robot]]\nurdf = \"a.urdf\"\nbase = { xyz = [1.0, 2.0] }\n")
//!     .unwrap_err()
//!     .to_string();
//! assert!(error.starts_with("<string>:4:"), "{error}");
//! assert!(error.contains("robot[0].base.xyz"), "{error}");
//! ```

mod build;
mod description;
mod error;
mod paths;

pub use build::SceneSetup;
pub use description::{
    ContactDescription, ContactModelName, FarFieldName, JointControlDescription, ObjectDescription,
    PoseDescription, RobotDescription, SceneDescription, ShapeDescription, SolverDescription,
};
pub use error::{Result, SceneError};

use error::{KeyPath, line_column};
use std::fmt::Display;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// A scene: its description, and where it came from (to resolve its relative paths and to
/// point at the line of a refused value).
#[derive(Debug, Clone)]
pub struct Scene {
    /// What the scene file says.
    pub description: SceneDescription,
    origin: Origin,
    package_paths: Vec<PathBuf>,
}

/// Where a scene came from.
#[derive(Debug, Clone)]
struct Origin {
    /// The file's name in messages.
    file: String,
    /// The folder relative paths start from.
    directory: PathBuf,
    /// The TOML text, to locate keys in.
    text: Option<String>,
}

impl Origin {
    /// The error for the value at `key`, with its line and column when the text holds it.
    fn error(&self, key: &KeyPath, message: impl Display) -> SceneError {
        match self
            .text
            .as_deref()
            .and_then(|t| Some((t, key.span_in(t)?)))
        {
            Some((text, span)) => {
                let (line, column) = line_column(text, span.start);
                SceneError::Malformed {
                    file: self.file.clone(),
                    line,
                    column,
                    key: key.to_string(),
                    message: message.to_string(),
                }
            }
            None => SceneError::Invalid {
                file: self.file.clone(),
                key: key.to_string(),
                message: message.to_string(),
            },
        }
    }
}

impl Scene {
    /// A scene made in code; relative paths start from the current folder.
    pub fn new(description: SceneDescription) -> Self {
        Self {
            description,
            origin: Origin {
                file: "<code>".into(),
                directory: PathBuf::from("."),
                text: None,
            },
            package_paths: Vec::new(),
        }
    }

    /// Reads the scene file at `path`; its relative paths start from the file's folder.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| SceneError::Read {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        let directory = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        Self::parse(text, path.display().to_string(), directory)
    }

    /// The same scene with relative paths starting from `directory`.
    pub fn with_directory(mut self, directory: impl Into<PathBuf>) -> Self {
        self.origin.directory = directory.into();
        self
    }

    /// The same scene, also searching `folder` for `package://NAME/...` paths (after the
    /// file's own `package_paths`).
    pub fn with_package_path(mut self, folder: impl Into<PathBuf>) -> Self {
        self.package_paths.push(folder.into());
        self
    }

    /// The folder relative paths start from.
    pub fn directory(&self) -> &Path {
        &self.origin.directory
    }

    /// The scene as TOML, which reads back ([`Scene::from_str`]) into the same description.
    pub fn to_toml(&self) -> Result<String> {
        toml::to_string(&self.description).map_err(|e| SceneError::Write(e.to_string()))
    }

    /// The world the scene describes: model, simulator, start motion and control.
    pub fn build(&self) -> Result<SceneSetup> {
        build::build(self)
    }

    fn parse(text: String, file: String, directory: PathBuf) -> Result<Self> {
        let description = {
            let fail = |key: &KeyPath, e: toml::de::Error| {
                let span = e.span().or_else(|| key.span_in(&text)).unwrap_or(0..0);
                let (line, column) = line_column(&text, span.start);
                SceneError::Malformed {
                    file: file.clone(),
                    line,
                    column,
                    key: key.to_string(),
                    message: e.message().trim().to_string(),
                }
            };
            let deserializer =
                toml::de::Deserializer::parse(&text).map_err(|e| fail(&KeyPath::default(), e))?;
            serde_path_to_error::deserialize(deserializer).map_err(|e| {
                let key = KeyPath::from_serde(e.path());
                fail(&key, e.into_inner())
            })?
        };
        Ok(Self {
            description,
            origin: Origin {
                file,
                directory,
                text: Some(text),
            },
            package_paths: Vec::new(),
        })
    }
}

impl FromStr for Scene {
    type Err = SceneError;

    /// Reads a scene from TOML text (named `<string>` in messages); relative paths start from
    /// the current folder ([`Scene::with_directory`] changes that).
    fn from_str(text: &str) -> Result<Self> {
        Self::parse(text.to_string(), "<string>".into(), PathBuf::from("."))
    }
}
