"""MuJoCo's motion of tests/data/mjcf/coupled.xml for sdrs's tendon and equality test.

The model ties two pendulums by a joint equality constraint, a cart to the first pendulum by a
fixed tendon with a spring and a damper, and drives a second tendon with a motor. Starting at
qpos0 (b given its constrained value 0.1 + 0.5 a) at rest, under ctrl(t) = sin(2π t), MuJoCo
(its default Euler integrator) steps 1 s; every 25th step's qpos is written, with the
constraint's violation b − 0.1 − 0.5 (a − a₀) along the way.

Run (the output is committed, so the Rust test needs no Python):

    python3 -m venv target/venv-mjcf && target/venv-mjcf/bin/pip install mujoco numpy
    target/venv-mjcf/bin/python benches/reference/mjcf_coupling.py
"""

import json
import math
import pathlib

import mujoco

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT / "crates" / "sdrs-dynamics" / "tests" / "data" / "mjcf"
STEPS = 500
EVERY = 25


def main():
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
    out = {
        "mujoco_version": mujoco.__version__,
        "timestep": m.opt.timestep,
        "every": EVERY,
        "qpos0": m.qpos0.tolist(),
        "start_b": 0.1,
        "largest_violation": worst,
        "samples": samples,
    }
    path = DATA / "coupled_reference.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"largest violation {worst:.3e}; final qpos {d.qpos.tolist()}; wrote {path}")


if __name__ == "__main__":
    main()
