//! The self-contained HTML viewer: one `.html` file that shows a `.glb` animation with three.js
//! (vendored in `assets/three/`, inlined as `data:` modules of an import map), an orbit camera,
//! play/pause, a time slider, playback speed, a contact-force toggle (nodes whose names start
//! with `contact`) and the run's plots (loss curve, per-step timings; each only when the run has
//! it) as inline SVG. It needs no
//! server and no internet: it opens from `file://`.
//!
//! The camera frames the whole motion, unless the bodies travel more than four times their
//! own size (a walker crossing a slope): then it follows them at a few body sizes, over a grid
//! of body-sized cells that shows the motion (a "follow" toggle turns it off); otherwise a grid
//! lies under them. Either grid lies at the bodies' lowest point, or on the ground slab's top
//! face (a large, flat fixed part level with that point), since the bodies' bounding boxes can
//! dip below it.
//!
//! The fragment `#t=first`, `#t=last` or `#t=<seconds>` opens the page paused at that time
//! (`&contacts=off` also hides the contact forces, `&follow=off` starts with the camera still); the
//! root element's `data-ready` attribute becomes `1` once the scene is drawn (`error` if the
//! `.glb` could not be read), for deterministic screenshots.

use std::path::{Path, PathBuf};

use base64::Engine;

/// The page template; `{{TITLE}}`, `{{IMPORTMAP}}`, `{{DATA}}` and `{{SCRIPT}}` are filled in.
const TEMPLATE: &str = include_str!("../assets/viewer.html");
/// The viewer's module script.
const SCRIPT: &str = include_str!("../assets/viewer.js");

/// A vendored three.js module: its import-map name, its source, and the relative imports in it
/// that are rewritten to import-map names (a `data:` module cannot resolve relative URLs).
struct Module {
    name: &'static str,
    source: &'static str,
    rewrites: &'static [(&'static str, &'static str)],
}

const MODULES: [Module; 5] = [
    Module {
        name: "three",
        source: include_str!("../assets/three/three.module.min.js"),
        rewrites: &[("\"./three.core.min.js\"", "\"three/core\"")],
    },
    Module {
        name: "three/core",
        source: include_str!("../assets/three/three.core.min.js"),
        rewrites: &[],
    },
    Module {
        name: "three/addons/controls/OrbitControls.js",
        source: include_str!("../assets/three/OrbitControls.js"),
        rewrites: &[],
    },
    Module {
        name: "three/addons/loaders/GLTFLoader.js",
        source: include_str!("../assets/three/GLTFLoader.js"),
        rewrites: &[(
            "'../utils/BufferGeometryUtils.js'",
            "'three/addons/utils/BufferGeometryUtils.js'",
        )],
    },
    Module {
        name: "three/addons/utils/BufferGeometryUtils.js",
        source: include_str!("../assets/three/BufferGeometryUtils.js"),
        rewrites: &[],
    },
];

/// What went wrong building or writing a viewer page.
#[derive(Debug, thiserror::Error)]
pub enum ViewerError {
    /// The bytes are not a glTF 2.0 binary.
    #[error(
        "not a glTF 2.0 binary (.glb): {0}; a .glb starts with the magic `glTF`, version 2 and its total length"
    )]
    NotGlb(&'static str),
    /// A plot value is NaN or infinite.
    #[error("{plot} value {index} is {value}; plot values must be finite")]
    NonFinite {
        /// Which plot (`loss` or `step time`).
        plot: &'static str,
        /// The index of the offending value.
        index: usize,
        /// The offending value.
        value: f64,
    },
    /// A step time is negative.
    #[error("step time {index} is {value} ms; step times must be non-negative")]
    NegativeStepTime {
        /// The index of the offending step.
        index: usize,
        /// The offending time in milliseconds.
        value: f64,
    },
    /// Writing the page failed.
    #[error("could not write the viewer page {path}: {source}")]
    Io {
        /// The file written.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
}

/// A viewer page for one `.glb` animation and the run's plots.
///
/// ```
/// use sdrs_view::html::Viewer;
/// # fn glb() -> Vec<u8> {
/// #     let json = br#"{"asset":{"version":"2.0"}}  "#;
/// #     let mut b = b"glTF".to_vec();
/// #     b.extend(2u32.to_le_bytes());
/// #     b.extend((12 + 8 + json.len() as u32).to_le_bytes());
/// #     b.extend((json.len() as u32).to_le_bytes());
/// #     b.extend(b"JSON");
/// #     b.extend(json);
/// #     b
/// # }
/// let glb: Vec<u8> = glb(); // e.g. from `sdrs_view::glb`
/// let viewer = Viewer::new(&glb, "falling box")?
///     .with_loss(vec![(0.0, 1.0), (1.0, 0.25)])?
///     .with_step_times(vec![1.5, 1.4, 1.6])?;
/// let page = viewer.to_html();
/// assert!(page.starts_with("<!DOCTYPE html>") && page.contains("falling box"));
/// viewer.write_html(std::env::temp_dir().join("sdrs-doc-viewer.html"))?;
/// # Ok::<(), sdrs_view::html::ViewerError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Viewer {
    glb: Vec<u8>,
    title: String,
    loss: Vec<(f64, f64)>,
    step_ms: Vec<f64>,
}

impl Viewer {
    /// A viewer of the glTF 2.0 binary `glb`, titled `title`, with no plots yet.
    ///
    /// # Errors
    /// [`ViewerError::NotGlb`] if the header is not that of a glTF 2.0 binary of this length.
    pub fn new(glb: &[u8], title: &str) -> Result<Self, ViewerError> {
        check_glb_header(glb)?;
        Ok(Self {
            glb: glb.to_vec(),
            title: title.to_owned(),
            loss: Vec::new(),
            step_ms: Vec::new(),
        })
    }

    /// Adds the loss curve, as (iteration, loss) points.
    ///
    /// # Errors
    /// [`ViewerError::NonFinite`] if a coordinate is NaN or infinite.
    pub fn with_loss(mut self, loss: Vec<(f64, f64)>) -> Result<Self, ViewerError> {
        let values = loss.iter().flat_map(|&(x, y)| [x, y]);
        if let Some((index, value)) = values.enumerate().find(|(_, v)| !v.is_finite()) {
            return Err(ViewerError::NonFinite {
                plot: "loss",
                index: index / 2,
                value,
            });
        }
        self.loss = loss;
        Ok(self)
    }

    /// Adds the per-step wall-clock timings in milliseconds.
    ///
    /// # Errors
    /// [`ViewerError::NonFinite`] or [`ViewerError::NegativeStepTime`] for a bad timing.
    pub fn with_step_times(mut self, step_ms: Vec<f64>) -> Result<Self, ViewerError> {
        for (index, &value) in step_ms.iter().enumerate() {
            if !value.is_finite() {
                return Err(ViewerError::NonFinite {
                    plot: "step time",
                    index,
                    value,
                });
            }
            if value < 0.0 {
                return Err(ViewerError::NegativeStepTime { index, value });
            }
        }
        self.step_ms = step_ms;
        Ok(self)
    }

    /// The page as one self-contained HTML document.
    pub fn to_html(&self) -> String {
        let data = serde_json::json!({
            "title": self.title,
            "loss": self.loss.iter().map(|&(x, y)| [x, y]).collect::<Vec<_>>(),
            "step_ms": self.step_ms,
            "glb": base64::engine::general_purpose::STANDARD.encode(&self.glb),
        });
        // Fill the template left to right so that no inserted text is searched for placeholders.
        let mut page = String::new();
        let mut rest = TEMPLATE;
        for (key, value) in [
            ("{{TITLE}}", escape_html(&self.title)),
            ("{{IMPORTMAP}}", script_safe(&import_map())),
            ("{{DATA}}", script_safe(&data.to_string())),
            ("{{SCRIPT}}", SCRIPT.to_owned()),
        ] {
            let (before, after) = rest
                .split_once(key)
                .expect("the viewer template holds each placeholder once, in order");
            page.push_str(before);
            page.push_str(&value);
            rest = after;
        }
        page.push_str(rest);
        page
    }

    /// Writes the page to `path`.
    ///
    /// # Errors
    /// [`ViewerError::Io`] if the file cannot be written.
    pub fn write_html(&self, path: impl AsRef<Path>) -> Result<(), ViewerError> {
        let path = path.as_ref();
        std::fs::write(path, self.to_html()).map_err(|source| ViewerError::Io {
            path: path.to_owned(),
            source,
        })
    }
}

/// Checks the 12-byte glb header: magic `glTF`, version 2, total length equal to the data's.
fn check_glb_header(glb: &[u8]) -> Result<(), ViewerError> {
    let word = |i: usize| u32::from_le_bytes([glb[i], glb[i + 1], glb[i + 2], glb[i + 3]]);
    if glb.len() < 12 {
        return Err(ViewerError::NotGlb("shorter than its 12-byte header"));
    }
    if &glb[..4] != b"glTF" {
        return Err(ViewerError::NotGlb("the magic is not `glTF`"));
    }
    if word(4) != 2 {
        return Err(ViewerError::NotGlb("the version is not 2"));
    }
    if word(8) as usize != glb.len() {
        return Err(ViewerError::NotGlb(
            "the header's length differs from the data's",
        ));
    }
    Ok(())
}

/// The import map naming each vendored module as a base64 `data:` URL.
fn import_map() -> String {
    let imports: serde_json::Map<String, serde_json::Value> = MODULES
        .iter()
        .map(|m| {
            let source = m
                .rewrites
                .iter()
                .fold(m.source.to_owned(), |s, (from, to)| s.replace(from, to));
            let url = format!(
                "data:text/javascript;base64,{}",
                base64::engine::general_purpose::STANDARD.encode(source)
            );
            (m.name.to_owned(), serde_json::Value::String(url))
        })
        .collect();
    serde_json::json!({ "imports": imports }).to_string()
}

/// JSON made safe inside a `<script>` element: `</` cannot close it (`<\/` is the same JSON).
fn script_safe(json: &str) -> String {
    json.replace("</", "<\\/")
}

/// Text escaped for HTML element content.
fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn empty_glb() -> Vec<u8> {
        let json = br#"{"asset":{"version":"2.0"}}  "#;
        let mut b = b"glTF".to_vec();
        b.extend(2u32.to_le_bytes());
        b.extend((20 + json.len() as u32).to_le_bytes());
        b.extend((json.len() as u32).to_le_bytes());
        b.extend(b"JSON");
        b.extend(json);
        b
    }

    #[test]
    fn every_relative_import_is_rewritten() {
        for m in &MODULES {
            for (from, _) in m.rewrites {
                assert!(m.source.contains(from), "{} lacks {from}", m.name);
            }
            let map = import_map();
            assert!(map.contains(&format!("\"{}\"", m.name)));
        }
        let three = MODULES[0]
            .rewrites
            .iter()
            .fold(MODULES[0].source.to_owned(), |s, (f, t)| s.replace(f, t));
        assert!(!three.contains("./three.core.min.js"));
    }

    #[test]
    fn bad_glb_headers_are_rejected() {
        let good = empty_glb();
        assert!(Viewer::new(&good, "t").is_ok());
        assert!(matches!(
            Viewer::new(&good[..8], "t"),
            Err(ViewerError::NotGlb(_))
        ));
        let mut magic = good.clone();
        magic[0] = b'x';
        assert!(matches!(
            Viewer::new(&magic, "t"),
            Err(ViewerError::NotGlb(_))
        ));
        let mut version = good.clone();
        version[4] = 1;
        assert!(matches!(
            Viewer::new(&version, "t"),
            Err(ViewerError::NotGlb(_))
        ));
        let mut longer = good;
        longer.push(0);
        assert!(matches!(
            Viewer::new(&longer, "t"),
            Err(ViewerError::NotGlb(_))
        ));
    }

    #[test]
    fn bad_plot_values_are_rejected() {
        let v = Viewer::new(&empty_glb(), "t").unwrap();
        let err = v
            .clone()
            .with_loss(vec![(0.0, 1.0), (1.0, f64::NAN)])
            .unwrap_err();
        assert!(matches!(err, ViewerError::NonFinite { index: 1, .. }));
        let err = v.clone().with_step_times(vec![1.0, -2.0]).unwrap_err();
        assert!(matches!(
            err,
            ViewerError::NegativeStepTime { index: 1, .. }
        ));
        let err = v.with_step_times(vec![f64::INFINITY]).unwrap_err();
        assert!(matches!(err, ViewerError::NonFinite { index: 0, .. }));
    }

    #[test]
    fn title_and_data_cannot_close_their_elements() {
        let page = Viewer::new(&empty_glb(), "a </script><b> & c")
            .unwrap()
            .to_html();
        assert!(page.contains("<title>a &lt;/script&gt;&lt;b&gt; &amp; c</title>"));
        assert_eq!(page.matches("</script>").count(), 3);
        assert!(!page.contains("{{"));
    }

    #[test]
    fn write_html_reports_the_path() {
        let v = Viewer::new(&empty_glb(), "t").unwrap();
        let dir = std::env::temp_dir().join("sdrs-view-no-such-dir").join("x");
        let err = v.write_html(dir.join("v.html")).unwrap_err();
        assert!(err.to_string().contains("sdrs-view-no-such-dir"));
    }
}
