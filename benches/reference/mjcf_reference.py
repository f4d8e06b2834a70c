"""MuJoCo's joint-space mass matrix and bias forces for sdrs's MJCF importer test.

For every model in crates/sdrs-dynamics/tests/data/mjcf/ (the gymnasium models, features.xml
and the dm_control suite models in dm_control/), at qpos0 and at random configurations (hinge/slide uniform within their range
when limited, else qpos0 ± 1; free/ball orientations uniformly random) with random velocities,
writes MuJoCo's

- `M`: mj_fullM (dense joint-space inertia; MuJoCo 4 takes (m, d, dst)). MuJoCo adds each
  DoF's armature to the diagonal, so `M` INCLUDES the armature (also written, `armature`);
  sdrs's rigid-body mass matrix is compared with M − diag(armature), and the step's inertia
  with M itself.
- `bias`: qfrc_bias (Coriolis, centrifugal and gravity; no damping, springs or armature).
- `stiffness` (per joint) and `damping` (per DoF): the compiled jnt_stiffness and dof_damping,
  which `springdamper` sets from the joint-space inertia at qpos0.

Run (the output is committed, so the Rust test needs no Python):

    python3 -m venv target/venv-mjcf && target/venv-mjcf/bin/pip install mujoco numpy
    target/venv-mjcf/bin/python benches/reference/mjcf_reference.py
"""

import json
import pathlib

import mujoco
import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT / "crates" / "sdrs-dynamics" / "tests" / "data" / "mjcf"
MODELS = [
    "ant",
    "half_cheetah",
    "hopper",
    "humanoid",
    "walker2d",
    "inverted_pendulum",
    "inverted_double_pendulum",
    "features",
] + [
    # dm_control's suite models that sdrs loads (tests/data/mjcf/dm_control/README.md).
    f"dm_control/{name}"
    for name in [
        "acrobot",
        "cartpole",
        "cheetah",
        "finger",
        "hopper",
        "humanoid",
        "humanoid_CMU",
        "manipulator",
        "pendulum",
        "point_mass",
        "reacher",
        "stacker",
        "walker",
    ]
]
RANDOM_CASES = 3


def random_quat(rng):
    q = rng.normal(size=4)
    return q / np.linalg.norm(q)


def random_qpos(m, rng):
    qpos = m.qpos0.copy()
    for j in range(m.njnt):
        a = m.jnt_qposadr[j]
        t = m.jnt_type[j]
        if t == mujoco.mjtJoint.mjJNT_FREE:
            qpos[a : a + 3] += rng.uniform(-0.5, 0.5, size=3)
            qpos[a + 3 : a + 7] = random_quat(rng)
        elif t == mujoco.mjtJoint.mjJNT_BALL:
            qpos[a : a + 4] = random_quat(rng)
        elif m.jnt_limited[j]:
            lo, hi = m.jnt_range[j]
            qpos[a] = rng.uniform(lo, hi)
        else:
            qpos[a] += rng.uniform(-1.0, 1.0)
    return qpos


def main():
    out = {
        "mujoco_version": mujoco.__version__,
        "note": "M is mj_fullM (the full inertia matrix) and includes armature on its diagonal; bias is qfrc_bias",
        "models": {},
    }
    for k, name in enumerate(MODELS):
        m = mujoco.MjModel.from_xml_path(str(DATA / f"{name}.xml"))
        d = mujoco.MjData(m)
        rng = np.random.default_rng(1000 + k)
        cases = []
        for c in range(1 + RANDOM_CASES):
            qpos = m.qpos0.copy() if c == 0 else random_qpos(m, rng)
            qvel = rng.normal(scale=1.5, size=m.nv)
            d.qpos[:] = qpos
            d.qvel[:] = qvel
            mujoco.mj_forward(m, d)
            full = np.zeros((m.nv, m.nv))
            mujoco.mj_fullM(m, d, full)
            cases.append(
                {
                    "qpos": d.qpos.tolist(),
                    "qvel": d.qvel.tolist(),
                    "M": full.tolist(),
                    "bias": d.qfrc_bias.tolist(),
                }
            )
        out["models"][name] = {
            "nq": m.nq,
            "nv": m.nv,
            "nbody": m.nbody,
            "njnt": m.njnt,
            "nu": m.nu,
            "armature": m.dof_armature.tolist(),
            "stiffness": m.jnt_stiffness.tolist(),
            "damping": m.dof_damping.tolist(),
            "body_mass": m.body_mass.tolist(),
            "gravity": m.opt.gravity.tolist(),
            "qpos0": m.qpos0.tolist(),
            "cases": cases,
        }
        print(f"{name}: nq {m.nq} nv {m.nv} bodies {m.nbody} total mass {m.body_mass.sum():.6g}")
    path = DATA / "reference.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
