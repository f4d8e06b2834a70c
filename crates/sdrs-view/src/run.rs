//! A run's animation on disk: `NAME.glb` and `NAME.html` side by side.

use crate::glb::{Animation, ExportError};
use crate::html::{Viewer, ViewerError};
use std::path::{Path, PathBuf};

/// Why a run could not be written.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The glTF export failed.
    #[error(transparent)]
    Export(#[from] ExportError),
    /// The viewer page failed.
    #[error(transparent)]
    Viewer(#[from] ViewerError),
}

/// The plots shown next to the 3-D view.
#[derive(Debug, Clone, Default)]
pub struct Plots {
    /// The loss after each iteration of an optimisation, as `(iteration, loss)`.
    pub loss: Vec<(f64, f64)>,
    /// The wall time of each step (ms).
    pub step_ms: Vec<f64>,
}

/// Writes `dir/name.glb` (for Blender or any glTF viewer) and `dir/name.html` (the
/// self-contained viewer, titled `title`, with `plots`); returns the two paths.
///
/// ```
/// use sdrs::dynamics::{State, scenes};
/// use sdrs_view::glb::Animation;
/// use sdrs_view::{Plots, write_run};
///
/// let scene = scenes::chain(2, 0.01)?;
/// let mut bent = State::zero(&scene.model);
/// bent.q[1] = 0.4;
/// let states = [State::zero(&scene.model), bent];
/// let animation = Animation::from_states(&scene.model, 0.01, &states)?;
/// let dir = std::env::temp_dir().join("sdrs-view-run-doc");
/// let [glb, html] = write_run(&animation, "a bending chain", &Plots::default(), &dir, "chain")?;
/// assert!(glb.is_file() && html.is_file());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_run(
    animation: &Animation,
    title: &str,
    plots: &Plots,
    dir: &Path,
    name: &str,
) -> Result<[PathBuf; 2], RunError> {
    let glb = animation.to_glb()?;
    let glb_path = dir.join(format!("{name}.glb"));
    std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(&glb_path, &glb))
        .map_err(|source| ExportError::Io {
            path: glb_path.clone(),
            source,
        })?;
    let mut viewer = Viewer::new(&glb, title)?;
    if !plots.loss.is_empty() {
        viewer = viewer.with_loss(plots.loss.clone())?;
    }
    if !plots.step_ms.is_empty() {
        viewer = viewer.with_step_times(plots.step_ms.clone())?;
    }
    let html_path = dir.join(format!("{name}.html"));
    viewer.write_html(&html_path)?;
    Ok([glb_path, html_path])
}
