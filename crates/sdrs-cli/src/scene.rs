//! Loading a scene file for `simulate` and `bench`.

use std::path::{Path, PathBuf};

use sdrs::scene::{Scene, SceneSetup};

use crate::error::{CliError, existing};

/// A built scene and the number of steps to run.
pub struct Loaded {
    /// Model, simulator, start and control.
    pub setup: SceneSetup,
    /// Steps to run: the command line's, else the scene's.
    pub steps: usize,
}

/// Reads and builds the scene at `path`, with extra package folders; `steps` overrides the
/// scene's `steps`, one of which must be given and positive.
pub fn load(
    path: &Path,
    package_paths: &[PathBuf],
    steps: Option<usize>,
) -> Result<Loaded, CliError> {
    existing(path)?;
    if path.extension().and_then(|e| e.to_str()) != Some("toml") {
        return Err(CliError::FileType {
            path: path.to_owned(),
            allowed: "expected a scene file (.toml)",
        });
    }
    let mut scene = Scene::from_file(path)?;
    for folder in package_paths {
        scene = scene.with_package_path(folder);
    }
    let setup = scene.build()?;
    for warning in &setup.warnings {
        eprintln!("warning: {warning}");
    }
    let steps = steps.or(setup.steps).ok_or_else(|| {
        CliError::Usage(format!(
            "{}: the scene sets no `steps`; give --steps N",
            path.display()
        ))
    })?;
    if steps == 0 {
        return Err(CliError::Usage("--steps must be at least 1".into()));
    }
    Ok(Loaded { setup, steps })
}
