//! URDF text for the `diff` suite's robots, loaded through the URDF importer: a UR5-like
//! 6-DoF arm, a Go1-like 12-DoF quadruped on a floating base (18 DoF) and a Talos-like
//! humanoid on a floating base (36 DoF). Dimensions and masses are close to the originals',
//! collision geometry is one box per link; written for sdrs (not copied from the robots'
//! description packages).

use sdrs_dynamics::{Model, Result, UrdfOptions, urdf_from_str};
use std::fmt::Write as _;
use std::path::Path;

/// Builds URDF text link by link.
struct Urdf {
    text: String,
}

impl Urdf {
    fn new(name: &str) -> Self {
        Self {
            text: format!("<?xml version=\"1.0\"?>\n<robot name=\"{name}\">\n"),
        }
    }

    /// A link of `mass` kg: a solid box `size` centred at `centre` (inertia and collision).
    fn link(&mut self, name: &str, mass: f64, size: [f64; 3], centre: [f64; 3]) {
        let [x, y, z] = size;
        let i = |a: f64, b: f64| mass * (a * a + b * b) / 12.0;
        let [cx, cy, cz] = centre;
        let _ = write!(
            self.text,
            "  <link name=\"{name}\">\n    <inertial><origin xyz=\"{cx} {cy} {cz}\"/><mass value=\"{mass}\"/>\
             <inertia ixx=\"{}\" ixy=\"0\" ixz=\"0\" iyy=\"{}\" iyz=\"0\" izz=\"{}\"/></inertial>\n    \
             <collision><origin xyz=\"{cx} {cy} {cz}\"/><geometry><box size=\"{x} {y} {z}\"/></geometry></collision>\n  </link>\n",
            i(y, z),
            i(x, z),
            i(x, y)
        );
    }

    /// A revolute joint from `parent` to `child` at `xyz` about `axis`.
    fn joint(&mut self, parent: &str, child: &str, xyz: [f64; 3], axis: [f64; 3]) {
        let [x, y, z] = xyz;
        let [a, b, c] = axis;
        let _ = writeln!(
            self.text,
            "  <joint name=\"{child}_joint\" type=\"revolute\"><parent link=\"{parent}\"/><child link=\"{child}\"/>\
             <origin xyz=\"{x} {y} {z}\"/><axis xyz=\"{a} {b} {c}\"/>\
             <limit lower=\"-3.1\" upper=\"3.1\" effort=\"100\" velocity=\"10\"/></joint>"
        );
    }

    /// A serial limb: `(name, mass, length along −z or the given offset, axis)` per link.
    fn limb(&mut self, root: &str, at: [f64; 3], links: &[(&str, f64, [f64; 3], [f64; 3])]) {
        let mut parent = root.to_string();
        let mut offset = at;
        for &(name, mass, next, axis) in links {
            let length = next.iter().map(|v| v * v).sum::<f64>().sqrt().max(0.04);
            let centre = next.map(|v| 0.5 * v);
            let thick = 0.2 * length + 0.03;
            let size = [
                thick.max(next[0].abs()),
                thick.max(next[1].abs()),
                thick.max(next[2].abs()),
            ];
            self.link(name, mass, size, centre);
            self.joint(&parent, name, offset, axis);
            parent = name.to_string();
            offset = next;
        }
    }

    fn load(mut self, floating: bool) -> Result<Model> {
        self.text.push_str("</robot>\n");
        let options = UrdfOptions {
            floating_base: floating,
            ..UrdfOptions::default()
        };
        urdf_from_str(&self.text, Path::new("."), &options)
    }
}

const X: [f64; 3] = [1.0, 0.0, 0.0];
const Y: [f64; 3] = [0.0, 1.0, 0.0];
const Z: [f64; 3] = [0.0, 0.0, 1.0];

/// A UR5-like arm: 6 revolute joints (base yaw, shoulder, elbow, three wrist joints).
pub fn arm6() -> Result<Model> {
    let mut u = Urdf::new("arm6");
    u.link("base", 4.0, [0.15, 0.15, 0.09], [0.0, 0.0, 0.045]);
    u.limb(
        "base",
        [0.0, 0.0, 0.089],
        &[
            ("shoulder", 3.7, [0.0, 0.136, 0.0], Z),
            ("upper_arm", 8.4, [0.0, 0.0, 0.425], Y),
            ("forearm", 2.3, [0.0, -0.12, 0.392], Y),
            ("wrist1", 1.2, [0.0, 0.093, 0.0], Y),
            ("wrist2", 1.2, [0.0, 0.0, 0.095], Z),
            ("wrist3", 0.19, [0.0, 0.082, 0.0], Y),
        ],
    );
    u.load(false)
}

/// A Go1-like quadruped: a 5 kg trunk on a free joint and four legs of hip (x), thigh (y)
/// and calf (y) joints.
pub fn quadruped() -> Result<Model> {
    let mut u = Urdf::new("quadruped");
    u.link("trunk", 5.2, [0.38, 0.09, 0.11], [0.0, 0.0, 0.0]);
    for (leg, x, y) in [
        ("fr", 0.19, -0.05f64),
        ("fl", 0.19, 0.05),
        ("rr", -0.19, -0.05),
        ("rl", -0.19, 0.05),
    ] {
        let side = y.signum();
        u.limb(
            "trunk",
            [x, y, 0.0],
            &[
                (&format!("{leg}_hip"), 0.68, [0.0, 0.08 * side, 0.0], X),
                (&format!("{leg}_thigh"), 1.0, [0.0, 0.0, -0.213], Y),
                (&format!("{leg}_calf"), 0.2, [0.0, 0.0, -0.213], Y),
            ],
        );
    }
    u.load(true)
}

/// A Talos-like humanoid: a free pelvis, a 2-DoF torso, a 2-DoF head, two 7-DoF arms and two
/// 6-DoF legs (30 joints, 36 DoF).
pub fn humanoid() -> Result<Model> {
    let mut u = Urdf::new("humanoid");
    u.link("pelvis", 13.0, [0.2, 0.3, 0.2], [0.0, 0.0, 0.0]);
    u.limb(
        "pelvis",
        [0.0, 0.0, 0.1],
        &[
            ("torso_yaw", 3.0, [0.0, 0.0, 0.05], Z),
            ("torso_pitch", 17.0, [0.0, 0.0, 0.3], Y),
        ],
    );
    u.limb(
        "torso_pitch",
        [0.0, 0.0, 0.3],
        &[
            ("head_yaw", 0.7, [0.0, 0.0, 0.05], Z),
            ("head_pitch", 1.4, [0.0, 0.0, 0.2], Y),
        ],
    );
    for (side, s) in [("left", 1.0), ("right", -1.0)] {
        let n = |part: &str| format!("{side}_{part}");
        u.limb(
            "torso_pitch",
            [0.0, 0.2 * s, 0.25],
            &[
                (&n("shoulder_pitch"), 2.7, [0.0, 0.05 * s, 0.0], Y),
                (&n("shoulder_roll"), 2.4, [0.0, 0.0, -0.05], X),
                (&n("shoulder_yaw"), 2.0, [0.0, 0.0, -0.25], Z),
                (&n("elbow"), 1.0, [0.0, 0.0, -0.05], Y),
                (&n("wrist_yaw"), 1.5, [0.0, 0.0, -0.25], Z),
                (&n("wrist_roll"), 0.3, [0.0, 0.0, -0.05], X),
                (&n("wrist_pitch"), 0.6, [0.0, 0.0, -0.1], Y),
            ],
        );
        u.limb(
            "pelvis",
            [0.0, 0.085 * s, -0.1],
            &[
                (&n("hip_yaw"), 1.8, [0.0, 0.0, -0.05], Z),
                (&n("hip_roll"), 1.5, [0.0, 0.0, -0.05], X),
                (&n("hip_pitch"), 6.2, [0.0, 0.0, -0.38], Y),
                (&n("knee"), 3.8, [0.0, 0.0, -0.325], Y),
                (&n("ankle_pitch"), 1.2, [0.0, 0.0, -0.05], Y),
                (&n("ankle_roll"), 1.5, [0.1, 0.0, -0.05], X),
            ],
        );
    }
    u.load(true)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_benchmark_robots_load_with_their_dof() {
        assert_eq!(super::arm6().unwrap().dof(), 6);
        assert_eq!(super::quadruped().unwrap().dof(), 18);
        assert_eq!(super::humanoid().unwrap().dof(), 36);
    }
}
