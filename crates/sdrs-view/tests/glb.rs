//! The `.glb` export: read back with the `gltf` crate, checked by the Khronos validator, and
//! timed on a 250-step, 25-link chain.

use nalgebra::{Isometry3, Matrix4, Vector3, Vector4};
use sdrs::dynamics::{Control, Model, Motion, Simulator, State, scenes};
use sdrs::geometry::{ConvexHull, TriMesh};
use sdrs::prelude::World;
use sdrs::record::TrajectoryFile;
use sdrs_view::glb::{Animation, ContactLayer, ExportError, MARKER_OPACITY, Marker};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Instant;

const DT: f64 = 0.01;

/// `steps` steps of the `n`-link chain scene, simulated from rest.
fn chain_trajectory(n: usize, steps: usize) -> (Model, TrajectoryFile) {
    let scene = scenes::chain(n, DT).unwrap();
    let model = scene.model.clone();
    let mut sim = Simulator::new(scene.model, scene.settings).unwrap();
    let mut motion = Motion::at_rest(&model, State::zero(&model));
    let mut file = TrajectoryFile::new(&model, DT);
    file.record(&model, &motion.state, &[]).unwrap();
    for _ in 1..steps {
        sim.advance(&mut motion, &scene.control).unwrap();
        file.record(&model, &motion.state, &[]).unwrap();
    }
    (model, file)
}

/// A box dropped on the ground (with contacts recorded), `steps` steps.
fn box_drop(steps: usize) -> (Model, TrajectoryFile) {
    let cube = ConvexHull::cuboid(Vector3::repeat(0.1)).unwrap();
    let mut world = World::new(DT).unwrap().with_ground();
    world.add_object("box", cube, 1.0, Isometry3::translation(0.0, 0.0, 0.12));
    let (model, mut sim) = world.build().unwrap();
    let mut motion = Motion::at_rest(&model, State::zero(&model));
    let mut file = TrajectoryFile::new(&model, DT);
    for _ in 0..steps {
        let contacts = sim.contacts(&motion).unwrap();
        file.record(&model, &motion.state, &contacts).unwrap();
        sim.advance(&mut motion, &Control::passive(&model)).unwrap();
    }
    (model, file)
}

fn close(a: &[f32], b: &[f64]) -> bool {
    a.iter().zip(b).all(|(&x, &y)| (x as f64 - y).abs() < 1e-6)
}

#[test]
fn round_trip_matches_the_simulated_poses() {
    let (model, file) = chain_trajectory(6, 40);
    let glb = Animation::from_trajectory(&model, &file)
        .unwrap()
        .to_glb()
        .unwrap();
    let (doc, buffers, _) = gltf::import_slice(&glb).unwrap();
    let links = model.links().len();
    // The links, and the root that turns sdrs's z-up world into glTF's y-up.
    assert_eq!(doc.nodes().count(), links + 1);
    let root = doc.default_scene().unwrap().nodes().next().unwrap();
    assert_eq!(root.children().count(), links);
    let [x, y, z, w] = root.transform().decomposed().1;
    let up = nalgebra::UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(w, x, y, z))
        * Vector3::z();
    assert!(
        (up - Vector3::y()).norm() < 1e-6,
        "sdrs's up shows as {up:?}"
    );
    assert_eq!(doc.meshes().count(), links);
    let animation = doc.animations().next().unwrap();
    assert_eq!(doc.animations().count(), 1);
    assert_eq!(animation.samplers().count(), 2 * links);
    let mut checked = 0;
    for channel in animation.channels() {
        assert_eq!(
            channel.sampler().interpolation(),
            gltf::animation::Interpolation::Linear
        );
        let link = channel.target().node().index();
        assert_eq!(
            channel.target().node().name(),
            Some(&*model.links()[link].name)
        );
        let reader = channel.reader(|b| Some(&buffers[b.index()]));
        let times: Vec<f32> = reader.read_inputs().unwrap().collect();
        assert_eq!(times.len(), file.steps.len());
        for (k, t) in times.iter().enumerate() {
            assert_eq!(*t, (k as f64 * DT) as f32);
        }
        match reader.read_outputs().unwrap() {
            gltf::animation::util::ReadOutputs::Translations(t) => {
                for (v, step) in t.zip(&file.steps) {
                    assert!(close(&v, &step.poses[link].translation));
                }
            }
            gltf::animation::util::ReadOutputs::Rotations(r) => {
                for (v, step) in r.into_f32().zip(&file.steps) {
                    // glTF stores [x, y, z, w]; q and -q are the same rotation.
                    let [w, x, y, z] = step.poses[link].rotation;
                    let q = [x, y, z, w];
                    assert!(close(&v, &q) || close(&v.map(|c| -c), &q), "{v:?} vs {q:?}");
                }
            }
            _ => panic!("only translation and rotation channels are expected"),
        }
        checked += 1;
    }
    assert_eq!(checked, 2 * links);
}

#[test]
fn hull_triangles_face_outwards_and_each_hull_has_its_colour() {
    let hulls = vec![
        ConvexHull::cuboid(Vector3::new(0.1, 0.1, 0.1)).unwrap(),
        ConvexHull::from_point_cloud(
            &[
                [0.0, 0.0, 0.1],
                [0.2, 0.0, 0.1],
                [0.0, 0.2, 0.1],
                [0.0, 0.0, 0.3],
            ]
            .map(|p| p.into()),
        )
        .unwrap(),
    ];
    let link = sdrs::dynamics::Link::new(
        "pair",
        None,
        Isometry3::identity(),
        sdrs::dynamics::JointKind::Free,
        hulls,
        sdrs::dynamics::MassModel::Lumped { mass: 1.0 },
    );
    // A link without hulls shows its triangle mesh.
    let mut meshed = sdrs::dynamics::Link::new(
        "meshed",
        None,
        Isometry3::translation(1.0, 0.0, 0.0),
        sdrs::dynamics::JointKind::Fixed,
        Vec::new(),
        sdrs::dynamics::MassModel::SecondMoment(Matrix4::from_diagonal(&Vector4::new(
            0.1, 0.1, 0.1, 1.0,
        ))),
    );
    let corners = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]].map(Into::into);
    meshed.mesh = Some(TriMesh::new(corners.to_vec(), vec![[0, 1, 2]]).unwrap());
    let model = Model::new(vec![link, meshed]).unwrap();
    let glb = Animation::from_states(&model, DT, &[State::zero(&model)])
        .unwrap()
        .to_glb()
        .unwrap();
    let (doc, buffers, _) = gltf::import_slice(&glb).unwrap();
    let triangle = doc.nodes().nth(1).unwrap().mesh().unwrap();
    let triangle = triangle.primitives().next().unwrap();
    let indices = triangle
        .reader(|b| Some(&buffers[b.index()]))
        .read_indices();
    assert_eq!(indices.unwrap().into_u32().collect::<Vec<_>>(), [0, 1, 2]);
    let mesh = doc.nodes().next().unwrap().mesh().unwrap();
    let primitives: Vec<_> = mesh.primitives().collect();
    assert_eq!(primitives.len(), 2);
    let colours: Vec<_> = primitives
        .iter()
        .map(|p| p.material().pbr_metallic_roughness().base_color_factor())
        .collect();
    assert_ne!(colours[0], colours[1]);
    for primitive in &primitives {
        let reader = primitive.reader(|b| Some(&buffers[b.index()]));
        let p: Vec<Vector3<f32>> = reader.read_positions().unwrap().map(Into::into).collect();
        let centre = p.iter().sum::<Vector3<f32>>() / p.len() as f32;
        let indices: Vec<u32> = reader.read_indices().unwrap().into_u32().collect();
        for t in indices.chunks(3) {
            let [a, b, c] = [0, 1, 2].map(|k| p[t[k] as usize]);
            assert!((b - a).cross(&(c - a)).dot(&(a - centre)) > 0.0);
        }
    }
    validate(&glb);
}

#[test]
fn contact_layer_target_and_shapes_are_animated_nodes() {
    let (model, file) = box_drop(30);
    let max_contacts = file.steps.iter().map(|s| s.contacts.len()).max().unwrap();
    assert!(max_contacts > 0, "the box must touch the ground");
    let animation = Animation::from_trajectory(&model, &file)
        .unwrap()
        .with_contacts(ContactLayer {
            force_scale: 0.01,
            marker_size: 0.01,
        })
        .unwrap()
        .with_target([0.5, 0.0, 0.2])
        .unwrap()
        .with_shape(
            "wall",
            ConvexHull::cuboid(Vector3::new(0.05, 1.0, 0.5)).unwrap(),
            Isometry3::translation(1.0, 0.0, 0.5),
        )
        .unwrap();
    let glb = animation.to_glb().unwrap();
    let (doc, buffers, _) = gltf::import_slice(&glb).unwrap();
    let links = model.links().len();
    assert_eq!(doc.nodes().count(), links + 2 * max_contacts + 2 + 1);
    let samplers = doc.animations().next().unwrap().samplers().count();
    assert_eq!(samplers, 2 * links + 5 * max_contacts);
    // The marker of slot 0 is at the first contact point when active and scaled to 0 when not.
    let marker = doc
        .nodes()
        .find(|n| n.name() == Some("contact 0 point"))
        .unwrap();
    let channels = doc.animations().next().unwrap();
    let scale = channels
        .channels()
        .find(|c| {
            c.target().node().index() == marker.index()
                && c.target().property() == gltf::animation::Property::Scale
        })
        .unwrap();
    let scale = match scale.reader(|b| Some(&buffers[b.index()])).read_outputs() {
        Some(gltf::animation::util::ReadOutputs::Scales(s)) => s.collect::<Vec<_>>(),
        _ => panic!("scale channel"),
    };
    for (s, step) in scale.iter().zip(&file.steps) {
        let expected = if step.contacts.is_empty() { 0.0 } else { 0.01 };
        assert_eq!(*s, [expected; 3]);
    }
    validate(&glb);
}

#[test]
fn markers_are_static_translucent_spheres_at_their_centres() {
    let (model, file) = chain_trajectory(3, 5);
    let markers = [
        Marker::new("target A", [0.5, -0.2, 0.1], 0.03, Marker::colour(0)),
        Marker::new("target B", [-0.7, 0.6, 0.05], 0.08, Marker::colour(1)),
    ];
    let glb = Animation::from_trajectory(&model, &file)
        .unwrap()
        .with_markers(markers.clone())
        .unwrap()
        .to_glb()
        .unwrap();
    let (doc, buffers, _) = gltf::import_slice(&glb).unwrap();
    assert_eq!(doc.nodes().count(), model.links().len() + markers.len() + 1);
    let animated: Vec<usize> = doc
        .animations()
        .flat_map(|a| a.channels().map(|c| c.target().node().index()))
        .collect();
    // The markers hang under the z-up root, so their translation is the world centre.
    let root = doc.scenes().next().unwrap().nodes().next().unwrap();
    for marker in &markers {
        let node = root
            .children()
            .find(|n| n.name() == Some(marker.name.as_str()))
            .unwrap_or_else(|| panic!("no node `{}`", marker.name));
        let (translation, rotation, scale) = node.transform().decomposed();
        assert!(close(&translation, &marker.centre), "{translation:?}");
        assert_eq!(rotation, [0.0, 0.0, 0.0, 1.0]);
        assert_eq!(scale, [marker.radius as f32; 3]);
        assert!(!animated.contains(&node.index()), "a marker does not move");
        // The unit sphere: every vertex at distance 1, so the drawn radius is the scale.
        let primitive = node.mesh().unwrap().primitives().next().unwrap();
        let reader = primitive.reader(|b| Some(&buffers[b.index()]));
        for p in reader.read_positions().unwrap() {
            let r = p.iter().map(|c| c * c).sum::<f32>().sqrt();
            assert!((r - 1.0).abs() < 1e-5, "vertex at {r}");
        }
        let material = primitive.material();
        let [r, g, b, a] = material.pbr_metallic_roughness().base_color_factor();
        assert_eq!([r, g, b], marker.colour);
        assert_eq!(a, MARKER_OPACITY);
        assert_eq!(material.alpha_mode(), gltf::material::AlphaMode::Blend);
    }
    validate(&glb);
}

#[test]
fn bad_markers_are_typed_errors() {
    let (model, _) = chain_trajectory(2, 1);
    let fine = Animation::from_states(&model, DT, &[State::zero(&model)]).unwrap();
    let good = Marker::new("good", [0.0; 3], 0.1, [0.2, 0.4, 0.6]);
    let bad = [
        (
            Marker {
                centre: [0.0, f64::NAN, 0.0],
                ..good.clone()
            },
            "centre",
        ),
        (
            Marker {
                centre: [f64::INFINITY, 0.0, 0.0],
                ..good.clone()
            },
            "centre",
        ),
        (
            Marker {
                radius: 0.0,
                ..good.clone()
            },
            "radius",
        ),
        (
            Marker {
                radius: -0.1,
                ..good.clone()
            },
            "radius",
        ),
        (
            Marker {
                radius: f64::NAN,
                ..good.clone()
            },
            "radius",
        ),
        (
            Marker {
                colour: [0.0, 1.5, 0.0],
                ..good.clone()
            },
            "colour",
        ),
        (
            Marker {
                colour: [f32::NAN, 0.0, 0.0],
                ..good.clone()
            },
            "colour",
        ),
    ];
    for (marker, field) in bad {
        let err = fine
            .clone()
            .with_markers([good.clone(), marker])
            .unwrap_err();
        match &err {
            ExportError::InvalidMarker {
                index, name, what, ..
            } => {
                assert_eq!((*index, name.as_str(), *what), (1, "good", field));
            }
            other => panic!("expected InvalidMarker, got {other:?}"),
        }
        assert!(err.to_string().contains(field), "{err}");
    }
}

#[test]
fn bad_input_is_rejected_with_typed_errors() {
    let (model, mut file) = chain_trajectory(3, 3);
    let empty = TrajectoryFile::new(&model, DT);
    assert!(matches!(
        Animation::from_trajectory(&model, &empty),
        Err(ExportError::EmptyTrajectory)
    ));
    assert!(matches!(
        Animation::from_states(&model, -1.0, &[State::zero(&model)]),
        Err(ExportError::InvalidTimeStep { .. })
    ));
    let (other, _) = chain_trajectory(4, 1);
    assert!(matches!(
        Animation::from_trajectory(&other, &file),
        Err(ExportError::LinkCount {
            found: 3,
            expected: 4
        })
    ));
    let mut renamed = file.clone();
    renamed.header.links[1] = "elbow".into();
    assert!(matches!(
        Animation::from_trajectory(&model, &renamed),
        Err(ExportError::LinkName { index: 1, .. })
    ));
    file.steps[1].poses[2].translation[0] = f64::NAN;
    assert!(matches!(
        Animation::from_trajectory(&model, &file),
        Err(ExportError::InvalidPose { step: 1, link: 2 })
    ));
    file.steps[1].poses.pop();
    let err = Animation::from_trajectory(&model, &file).unwrap_err();
    assert!(matches!(
        err,
        ExportError::PoseCount {
            step: 1,
            found: 2,
            expected: 3
        }
    ));
    assert!(err.to_string().contains("2 link poses"));
    let fine = Animation::from_states(&model, DT, &[State::zero(&model)]).unwrap();
    assert!(matches!(
        fine.clone().with_target([f64::NAN, 0.0, 0.0]),
        Err(ExportError::InvalidOption { .. })
    ));
    assert!(matches!(
        fine.clone().with_contacts(ContactLayer {
            force_scale: 0.0,
            marker_size: 0.01
        }),
        Err(ExportError::InvalidOption { .. })
    ));
    let tiny = Animation::from_states(&model, 1e-300, &vec![State::zero(&model); 2]).unwrap();
    assert!(matches!(
        tiny.to_glb(),
        Err(ExportError::TimeResolution { step: 1 })
    ));
    let mut states = vec![State::zero(&model); 3];
    states[2].q[0] = f64::INFINITY;
    assert!(matches!(
        Animation::from_states(&model, DT, &states),
        Err(ExportError::State { step: 2, .. })
    ));
    let poses = vec![file.steps[0].poses.clone(); 2];
    assert!(matches!(
        Animation::new(&model, DT, poses, vec![Vec::new()]),
        Err(ExportError::ContactCount { found: 1, steps: 2 })
    ));
    let missing = Path::new("/nonexistent-dir/out.glb");
    assert!(matches!(
        fine.write_glb(missing),
        Err(ExportError::Io { .. })
    ));
}

#[test]
fn glb_container_layout() {
    let (model, file) = chain_trajectory(2, 5);
    let glb = Animation::from_trajectory(&model, &file)
        .unwrap()
        .to_glb()
        .unwrap();
    let word = |at: usize| u32::from_le_bytes(glb[at..at + 4].try_into().unwrap()) as usize;
    assert_eq!(&glb[..4], b"glTF");
    assert_eq!(word(4), 2);
    assert_eq!(word(8), glb.len());
    let json_len = word(12);
    assert_eq!(&glb[16..20], b"JSON");
    assert_eq!(json_len % 4, 0);
    let json = &glb[20..20 + json_len];
    let value: serde_json::Value = serde_json::from_slice(json).unwrap();
    assert_eq!(value["asset"]["version"], "2.0");
    let bin = 20 + json_len;
    assert_eq!(&glb[bin + 4..bin + 8], b"BIN\0");
    assert_eq!(bin + 8 + word(bin), glb.len());
    assert_eq!(word(bin) % 4, 0);
}

/// Exports the 250-step, 25-link chain (the size of the chain-reach example), validates it
/// and prints the export time and file size.
#[test]
fn chain_of_25_links_over_250_steps_validates() {
    let (model, file) = chain_trajectory(25, 250);
    let start = Instant::now();
    let animation = Animation::from_trajectory(&model, &file).unwrap();
    let glb = animation.to_glb().unwrap();
    let elapsed = start.elapsed();
    println!(
        "export of 250 steps x 25 links: {:.2} ms, {} bytes",
        elapsed.as_secs_f64() * 1e3,
        glb.len()
    );
    let (doc, _, _) = gltf::import_slice(&glb).unwrap();
    assert_eq!(doc.nodes().count(), 25 + 1);
    validate(&glb);
}

/// The cargo target directory (from this test binary's path: `<target>/<profile>/deps/`).
fn target_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(dir);
    }
    let exe = std::env::current_exe().unwrap();
    exe.ancestors().nth(3).unwrap().to_path_buf()
}

const VALIDATOR: &str = "gltf-validator@2.0.0-dev.3.10";

/// Installs the validator under the target directory unless it is there; returns the prefix.
fn install_validator() -> PathBuf {
    let prefix = target_dir().join("npm");
    if !prefix
        .join("node_modules/gltf-validator/package.json")
        .exists()
    {
        let status = Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--prefix"])
            .arg(&prefix)
            .arg(VALIDATOR)
            .status()
            .unwrap_or_else(|e| {
                panic!(
                    "npm is needed to install the glTF validator ({e}); install Node.js and npm, \
                     or set SDRS_SKIP_BROWSER_TESTS=1 to skip"
                )
            });
        assert!(status.success(), "npm install {VALIDATOR} failed: {status}");
    }
    prefix
}

/// Runs the Khronos glTF validator (npm `gltf-validator`, installed once under the target
/// directory) on `glb`; asserts no errors and prints the warnings.
fn validate(glb: &[u8]) {
    if std::env::var("SDRS_SKIP_BROWSER_TESTS").as_deref() == Ok("1") {
        eprintln!("SDRS_SKIP_BROWSER_TESTS=1: glTF validator skipped");
        return;
    }
    static INSTALLED: OnceLock<PathBuf> = OnceLock::new();
    let prefix = INSTALLED.get_or_init(install_validator);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("export.glb");
    std::fs::write(&file, glb).unwrap();
    let script = r#"
const validator = require('gltf-validator');
const bytes = new Uint8Array(require('fs').readFileSync(process.argv[1]));
validator.validateBytes(bytes, { maxIssues: 100 })
  .then(report => { console.log(JSON.stringify(report)); })
  .catch(error => { console.error(error); process.exit(1); });
"#;
    let output = Command::new("node")
        .arg("-e")
        .arg(script)
        .arg(&file)
        .env("NODE_PATH", prefix.join("node_modules"))
        .output()
        .unwrap_or_else(|e| panic!("node is needed to run the glTF validator: {e}"));
    assert!(
        output.status.success(),
        "the validator failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let issues = &report["issues"];
    println!(
        "glTF validator: {} errors, {} warnings, {} infos, {} hints",
        issues["numErrors"], issues["numWarnings"], issues["numInfos"], issues["numHints"]
    );
    for message in issues["messages"].as_array().unwrap() {
        println!("  {message}");
    }
    assert_eq!(
        issues["numErrors"], 0,
        "validator errors: {}",
        issues["messages"]
    );
}
