//! Loader fuzzing: URDF, SRDF, OBJ, STL (ASCII and binary) and COLLADA loaders fed mutated
//! real files must return `Ok` or a typed error: never panic, never put a non-finite number in
//! a model, mesh or state.
//!
//! Each target starts from a seed file in `tests/data` and applies one to four random
//! mutations: byte flips, truncation, deletion or duplication of a byte range, of a line, of
//! an XML element or of an attribute, and numbers replaced by NaN, infinities, huge, tiny,
//! negative or malformed values. Proptest catches a panic in the loader and reports it as a
//! failure with the (shrunk) input, which the test prints (checked by
//! `proptest_reports_a_panic_as_a_failure`).
//!
//! Deterministic by default (a fixed seed, 48 cases per target, a few seconds in all);
//! `PROPTEST_CASES` and `PROPTEST_RNG_SEED` change that, which is what `cargo xtask fuzz`
//! does. Each target prints `fuzz target NAME: N inputs, F failures`.

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestCaseError, TestError, TestRunner};
use sdrs_dynamics::srdf::Srdf;
use sdrs_dynamics::{Model, UrdfOptions, urdf_from_str};
use sdrs_geometry::TriMesh;
use sdrs_geometry::mesh::DecompositionSettings;
use std::cell::Cell;
use std::path::{Path, PathBuf};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

/// One edit of a file's bytes; positions are fractions of the length so they stay in range
/// after earlier edits.
#[derive(Debug, Clone)]
enum Mutation {
    Flip { at: f64, mask: u8 },
    Truncate { at: f64 },
    DeleteBytes { at: f64, len: usize },
    DuplicateBytes { at: f64, len: usize },
    DeleteLine { at: f64 },
    DuplicateLine { at: f64 },
    DeleteElement { at: f64 },
    DuplicateElement { at: f64 },
    DeleteAttribute { at: f64 },
    ReplaceNumber { at: f64, with: &'static str },
}

const NUMBERS: &[&str] = &[
    "NaN",
    "nan",
    "inf",
    "-inf",
    "1e308",
    "-1e308",
    "1e-320",
    "-1",
    "0",
    "-0",
    "1e999",
    "99999999999999999999999",
    "4294967296",
    "-2147483649",
    "0x10",
    "1..2",
    "",
    "-",
];

fn mutation() -> impl Strategy<Value = Mutation> {
    let at = 0.0..1.0f64;
    prop_oneof![
        (at.clone(), 1..=255u8).prop_map(|(at, mask)| Mutation::Flip { at, mask }),
        at.clone().prop_map(|at| Mutation::Truncate { at }),
        (at.clone(), 1..64usize).prop_map(|(at, len)| Mutation::DeleteBytes { at, len }),
        (at.clone(), 1..64usize).prop_map(|(at, len)| Mutation::DuplicateBytes { at, len }),
        at.clone().prop_map(|at| Mutation::DeleteLine { at }),
        at.clone().prop_map(|at| Mutation::DuplicateLine { at }),
        at.clone().prop_map(|at| Mutation::DeleteElement { at }),
        at.clone().prop_map(|at| Mutation::DuplicateElement { at }),
        at.clone().prop_map(|at| Mutation::DeleteAttribute { at }),
        (at, proptest::sample::select(NUMBERS))
            .prop_map(|(at, with)| Mutation::ReplaceNumber { at, with }),
    ]
}

/// The `k`-th of `ranges` for a fraction `at`.
fn pick(ranges: &[(usize, usize)], at: f64) -> Option<(usize, usize)> {
    (!ranges.is_empty())
        .then(|| ranges[((at * ranges.len() as f64) as usize).min(ranges.len() - 1)])
}

/// Byte ranges of lines, XML elements (`<...>` up to the matching close, or the tag alone),
/// attributes (`name="value"`) and numbers in `bytes`.
fn lines(b: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, &c) in b.iter().enumerate() {
        if c == b'\n' {
            out.push((start, i + 1));
            start = i + 1;
        }
    }
    if start < b.len() {
        out.push((start, b.len()));
    }
    out
}

fn elements(b: &[u8]) -> Vec<(usize, usize)> {
    let text = String::from_utf8_lossy(b);
    if text.len() != b.len() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (start, _) in text.match_indices('<') {
        let Some(close) = text[start..].find('>') else {
            continue;
        };
        let tag = &text[start + 1..start + close];
        let end = start + close + 1;
        let name: String = tag
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() || tag.ends_with('/') {
            out.push((start, end));
            continue;
        }
        let closing = format!("</{name}>");
        match text[end..].find(&closing) {
            Some(k) => out.push((start, end + k + closing.len())),
            None => out.push((start, end)),
        }
    }
    out
}

fn attributes(b: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'=' && b.get(i + 1) == Some(&b'"') {
            let mut s = i;
            while s > 0 && (b[s - 1].is_ascii_alphanumeric() || b[s - 1] == b'_') {
                s -= 1;
            }
            if let Some(k) = b[i + 2..].iter().position(|&c| c == b'"') {
                out.push((s, i + 3 + k));
                i += 3 + k;
                continue;
            }
        }
        i += 1;
    }
    out
}

fn numbers(b: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    let is_number = |c: u8| c.is_ascii_digit() || matches!(c, b'.' | b'-' | b'+' | b'e' | b'E');
    while i < b.len() {
        if b[i].is_ascii_digit() || (b[i] == b'-' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            let s = i;
            while i < b.len() && is_number(b[i]) {
                i += 1;
            }
            out.push((s, i));
        } else {
            i += 1;
        }
    }
    out
}

fn apply(mut b: Vec<u8>, mutations: &[Mutation]) -> Vec<u8> {
    let index = |len: usize, at: f64| ((at * len as f64) as usize).min(len.saturating_sub(1));
    let splice = |b: &mut Vec<u8>, (s, e): (usize, usize), with: &[u8]| {
        b.splice(s..e, with.iter().copied());
    };
    for m in mutations {
        if b.is_empty() {
            break;
        }
        match *m {
            Mutation::Flip { at, mask } => {
                let i = index(b.len(), at);
                b[i] ^= mask;
            }
            Mutation::Truncate { at } => b.truncate(index(b.len(), at)),
            Mutation::DeleteBytes { at, len } => {
                let s = index(b.len(), at);
                b.drain(s..(s + len).min(b.len()));
            }
            Mutation::DuplicateBytes { at, len } => {
                let s = index(b.len(), at);
                let copy = b[s..(s + len).min(b.len())].to_vec();
                splice(&mut b, (s, s), &copy);
            }
            Mutation::DeleteLine { at } => {
                if let Some(r) = pick(&lines(&b), at) {
                    splice(&mut b, r, b"");
                }
            }
            Mutation::DuplicateLine { at } => {
                if let Some((s, e)) = pick(&lines(&b), at) {
                    let copy = b[s..e].to_vec();
                    splice(&mut b, (e, e), &copy);
                }
            }
            Mutation::DeleteElement { at } => {
                if let Some(r) = pick(&elements(&b), at) {
                    splice(&mut b, r, b"");
                }
            }
            Mutation::DuplicateElement { at } => {
                if let Some((s, e)) = pick(&elements(&b), at) {
                    let copy = b[s..e].to_vec();
                    splice(&mut b, (e, e), &copy);
                }
            }
            Mutation::DeleteAttribute { at } => {
                if let Some(r) = pick(&attributes(&b), at) {
                    splice(&mut b, r, b"");
                }
            }
            Mutation::ReplaceNumber { at, with } => {
                if let Some(r) = pick(&numbers(&b), at) {
                    splice(&mut b, r, with.as_bytes());
                }
            }
        }
    }
    b
}

/// Runs `check` on mutated copies of `seed`, deterministically unless `PROPTEST_RNG_SEED` is
/// set; fails with the input that failed (a panic included).
fn fuzz(target: &str, seed: &[u8], check: impl Fn(&[u8]) -> Result<(), String>) {
    let mut config = Config {
        failure_persistence: None,
        ..Config::default()
    };
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = 48;
    }
    if std::env::var_os("PROPTEST_RNG_SEED").is_none() {
        config.rng_seed = RngSeed::Fixed(0x5d25_f022);
    }
    let tried = Cell::new(0usize);
    let mut runner = TestRunner::new(config);
    let strategy = proptest::collection::vec(mutation(), 1..=4)
        .prop_map(|mutations| apply(seed.to_vec(), &mutations));
    let result = runner.run(&strategy, |input| {
        tried.set(tried.get() + 1);
        check(&input).map_err(TestCaseError::fail)
    });
    let failures = usize::from(result.is_err());
    eprintln!(
        "fuzz target {target}: {} inputs, {failures} failures",
        tried.get()
    );
    match result {
        Ok(()) => {}
        Err(TestError::Fail(reason, input)) => panic!(
            "fuzz target {target} failed: {reason}\n--- input ---\n{}\n--- end ---",
            String::from_utf8_lossy(&input)
        ),
        Err(e) => panic!("fuzz target {target}: {e}"),
    }
}

/// A model with no non-finite number in it.
fn check_model(model: &Model) -> Result<(), String> {
    for (i, link) in model.links().iter().enumerate() {
        let finite = link
            .attachment
            .translation
            .vector
            .iter()
            .all(|x| x.is_finite())
            && link
                .attachment
                .rotation
                .coords
                .iter()
                .all(|x| x.is_finite())
            && model.second_moment(i).iter().all(|x| x.is_finite())
            && link.hulls.iter().all(|h| {
                h.vertices()
                    .iter()
                    .all(|v| v.coords.iter().all(|x| x.is_finite()))
            })
            && link
                .limits
                .is_none_or(|(l, u)| l.is_finite() && u.is_finite())
            && link.mesh.as_ref().is_none_or(check_mesh_finite);
        if !finite {
            return Err(format!("link '{}' holds a non-finite number", link.name));
        }
    }
    Ok(())
}

fn check_mesh_finite(mesh: &TriMesh) -> bool {
    mesh.vertices()
        .iter()
        .all(|v| v.coords.iter().all(|x| x.is_finite()))
}

fn urdf_options() -> UrdfOptions {
    UrdfOptions {
        package_paths: vec![data()],
        decomposition: DecompositionSettings {
            resolution: 16,
            concavity: 0.05,
        },
        ..UrdfOptions::default()
    }
}

#[test]
fn fuzz_urdf() {
    let seed = std::fs::read(data().join("arm.urdf")).unwrap();
    let options = urdf_options();
    fuzz("urdf", &seed, |input| {
        let text = String::from_utf8_lossy(input);
        match urdf_from_str(&text, &data(), &options) {
            Ok(model) => check_model(&model),
            Err(_) => Ok(()),
        }
    });
}

#[test]
fn fuzz_srdf() {
    let seed = std::fs::read(data().join("arm.srdf")).unwrap();
    let model = sdrs_dynamics::load_urdf(data().join("arm.urdf"), &urdf_options()).unwrap();
    fuzz("srdf", &seed, |input| {
        let Ok(srdf) = Srdf::from_str(&String::from_utf8_lossy(input)) else {
            return Ok(());
        };
        let mut model = model.clone();
        let _ = srdf.apply(&mut model);
        for name in srdf.state_names() {
            if let Ok(state) = srdf.state(&model, name) {
                state
                    .check(&model)
                    .map_err(|e| format!("state '{name}': {e}"))?;
            }
        }
        Ok(())
    });
}

/// A mesh loader target: `Ok` meshes must be finite (their constructor validates the rest).
fn fuzz_mesh(target: &str, seed: &[u8], name: &str) {
    fuzz(target, seed, |input| {
        match TriMesh::from_bytes(input, name) {
            Ok(mesh) if !check_mesh_finite(&mesh) => Err("a non-finite vertex".into()),
            _ => Ok(()),
        }
    });
}

#[test]
fn fuzz_obj() {
    let seed = std::fs::read(data().join("sdrs_test_robot/meshes/bracket.obj")).unwrap();
    fuzz_mesh("obj", &seed, "bracket.obj");
}

#[test]
fn fuzz_stl_ascii() {
    let seed = std::fs::read(data().join("fuzz/tet.stl")).unwrap();
    fuzz_mesh("stl-ascii", &seed, "tet.stl");
}

#[test]
fn fuzz_stl_binary() {
    let cube = TriMesh::cuboid(nalgebra::Vector3::new(0.1, 0.2, 0.3)).unwrap();
    let mut seed = b"solid binary cube".to_vec();
    seed.resize(80, b' ');
    seed.extend((cube.triangles().len() as u32).to_le_bytes());
    for t in 0..cube.triangles().len() {
        seed.extend([0u8; 12]);
        for p in cube.corners(t) {
            for x in [p.x, p.y, p.z] {
                seed.extend((x as f32).to_le_bytes());
            }
        }
        seed.extend([0u8; 2]);
    }
    assert_eq!(
        TriMesh::from_bytes(&seed, "cube.stl")
            .unwrap()
            .triangles()
            .len(),
        12
    );
    fuzz_mesh("stl-binary", &seed, "cube.stl");
}

#[test]
fn fuzz_collada() {
    let seed = std::fs::read(data().join("fuzz/cube.dae")).unwrap();
    let cube = TriMesh::from_bytes(&seed, "cube.dae").unwrap();
    assert!(
        (cube.aabb().extents().x - 0.02).abs() < 1e-6,
        "the seed is a 2 cm cube"
    );
    fuzz_mesh("collada", &seed, "cube.dae");
}

/// The fuzz targets rely on proptest turning a panic in the code under test into a failure
/// that carries the input.
#[test]
fn proptest_reports_a_panic_as_a_failure() {
    let mut runner = TestRunner::new(Config {
        failure_persistence: None,
        rng_seed: RngSeed::Fixed(1),
        ..Config::default()
    });
    let result = runner.run(&(0..100u32), |x| {
        assert!(x < 50, "boom at {x}");
        Ok(())
    });
    match result {
        Err(TestError::Fail(reason, x)) => {
            assert_eq!(x, 50, "shrunk to the smallest panicking input");
            assert!(reason.to_string().contains("boom at 50"), "{reason}");
        }
        other => panic!("expected a failure, got {other:?}"),
    }
}
