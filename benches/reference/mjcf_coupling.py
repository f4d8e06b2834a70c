"""MuJoCo's motion of tests/data/mjcf/coupled.xml and loop.xml for sdrs's tendon, equality
and loop-closure tests.

coupled.xml ties two pendulums by a joint equality constraint, a cart to the first pendulum
by a fixed tendon with a spring and a damper, and drives a second tendon with a motor.
Starting at qpos0 (b given its constrained value 0.1 + 0.5 a) at rest, under
ctrl(t) = sin(2π t), MuJoCo (its default Euler integrator) steps 1 s; every 25th step's qpos
is written, with the constraint's violation b − 0.1 − 0.5 (a − a₀) along the way.

loop.xml is a four-bar linkage closed by a connect constraint and a block welded to its
crank, the crank driven by ctrl(t) = 0.5 sin(2π t) from qpos0 at rest for 1 s: every 25th
step's qpos, with the largest distance between the connected points and the largest
position and angle errors of the weld.

Run (the output is committed, so the Rust test needs no Python):

    python3 -m venv target/venv-mjcf && target/venv-mjcf/bin/pip install mujoco numpy
    target/venv-mjcf/bin/python benches/reference/mjcf_coupling.py
"""

import json
import math
import pathlib

import mujoco
import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT / "crates" / "sdrs-dynamics" / "tests" / "data" / "mjcf"
STEPS = 500
EVERY = 25


def write(name, m, samples, measured):
    """Writes NAME_reference.json beside the model: MuJoCo's version, time step, qpos0, the
    samples and what the run measured."""
    out = {
        "mujoco_version": mujoco.__version__,
        "timestep": m.opt.timestep,
        "every": EVERY,
        "qpos0": m.qpos0.tolist(),
        **measured,
        "samples": samples,
    }
    path = DATA / f"{name}_reference.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    return path


def coupled():
    m = mujoco.MjModel.from_xml_path(str(DATA / "coupled.xml"))
    d = mujoco.MjData(m)
    a0 = m.qpos0[0]
    d.qpos[1] = 0.1
    samples = []
    worst = 0.0
    for k in range(STEPS):
        d.ctrl[0] = math.sin(2 * math.pi * d.time)
        mujoco.mj_step(m, d)
        worst = max(worst, abs(d.qpos[1] - 0.1 - 0.5 * (d.qpos[0] - a0)))
        if (k + 1) % EVERY == 0:
            samples.append({"time": d.time, "qpos": d.qpos.tolist()})
    path = write("coupled", m, samples, {"start_b": 0.1, "largest_violation": worst})
    print(f"largest violation {worst:.3e}; final qpos {d.qpos.tolist()}; wrote {path}")


def loop():
    m = mujoco.MjModel.from_xml_path(str(DATA / "loop.xml"))
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    coupler, rocker, block, crank = (m.body(n).id for n in ["coupler", "rocker", "block", "crank"])
    anchor = np.array([0.5, 0.0, 0.3])
    relative = d.xmat[crank].reshape(3, 3).T @ (d.xpos[block] - d.xpos[crank])
    samples = []
    gap = shift = turn = 0.0
    for k in range(STEPS):
        d.ctrl[0] = 0.5 * math.sin(2 * math.pi * d.time)
        mujoco.mj_step(m, d)
        mujoco.mj_kinematics(m, d)
        end = d.xpos[coupler] + d.xmat[coupler].reshape(3, 3) @ anchor
        rocker_end = d.xpos[rocker] + d.xmat[rocker].reshape(3, 3) @ np.array([0.1, 0.0, 0.3])
        gap = max(gap, float(np.linalg.norm(end - rocker_end)))
        held = d.xpos[crank] + d.xmat[crank].reshape(3, 3) @ relative
        shift = max(shift, float(np.linalg.norm(d.xpos[block] - held)))
        r = d.xmat[crank].reshape(3, 3).T @ d.xmat[block].reshape(3, 3)
        turn = max(turn, float(math.acos(max(-1.0, min(1.0, (np.trace(r) - 1) / 2)))))
        if (k + 1) % EVERY == 0:
            samples.append({"time": d.time, "qpos": d.qpos.tolist()})
    path = write(
        "loop", m, samples, {"largest_gap": gap, "largest_shift": shift, "largest_turn": turn}
    )
    print(f"loop: gap {gap:.3e} m, weld shift {shift:.3e} m, turn {turn:.3e} rad; wrote {path}")


if __name__ == "__main__":
    coupled()
    loop()
