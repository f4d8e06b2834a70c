"""The long-range paper's Push benchmark (sec. 6, Fig. 7) in MuJoCo with finite-difference
gradients: the paper's MuJoCo baseline, run the way `long_range_push` runs sdrs's methods.

The scene is `examples/src/long_range/push.rs` and `tabletop.rs` in MJCF: a 10 cm, 0.2 kg box
at the origin whose target is (0.4, 0, 0.05) within ε = 5 cm; a 60 x 4 x 8 cm, 1 kg rod whose
centre starts 20 cm beside it (−y) at 5 cm height, lying along x, on six joints (x, y, z, yaw,
roll, pitch) each driven by a PD position actuator with sdrs's gains (stiffness 100 N/m
or N·m/rad, damping c = 2 √(k m) = 20 N·s/m); friction 0.5; gravity 9.81. Each frame
(Δt = 0.04 s, four MuJoCo steps of 10 ms with the implicit integrator) applies the first
action of an h-frame plan of the six PD targets, optimised from the real state by Adam
(lr 1e-2, (β₁, β₂) = (0.3, 0.5)) on the window loss ReLU(|x_box − x*|² − ε²) at the window's
end, with gradients by central differences (step 1e-4) over all 6 h plan entries; each
frame's plan starts from the last one shifted by a frame, the first from the trivial plan
(the rod held where it is), as sdrs's receding-horizon driver does.

    python3 -m venv target/venv-mujoco && target/venv-mujoco/bin/pip install mujoco numpy
    target/venv-mujoco/bin/python benches/reference/mujoco_push.py [FRAMES=40] [H=16] [ITERATIONS=10]

The defaults are the reduced scale of `cargo run --release -p sdrs-examples --example
long_range_push` (the paper: 200 frames, h = 48, 50 iterations). Prints each frame's real
loss and gradient norm, the box's final distance to the target and whether it got within ε,
and writes the per-frame loss as `target/sdrs-out/push/mujoco.csv` (frame, loss) beside the
Rust example's `convergence.csv`. Nothing here is part of the build, the tests or CI.
"""

import pathlib
import sys
import time

import mujoco
import numpy as np

DT = 0.04
SUBSTEPS = 4
TARGET = np.array([0.4, 0.0, 0.05])
EPSILON = 0.05
LEARNING_RATE = 1e-2
BETAS = (0.3, 0.5)
FD_STEP = 1e-4

MJCF = f"""
<mujoco model="push">
  <option timestep="{DT / SUBSTEPS}" integrator="implicitfast" gravity="0 0 -9.81"/>
  <default>
    <geom friction="0.5 0.005 0.0001"/>
    <position kp="100" kv="20"/>
  </default>
  <worldbody>
    <geom name="ground" type="plane" size="1.5 1.5 0.1"/>
    <body name="rod" pos="0 -0.2 0.05">
      <joint name="x" type="slide" axis="1 0 0"/>
      <joint name="y" type="slide" axis="0 1 0"/>
      <joint name="z" type="slide" axis="0 0 1"/>
      <joint name="yaw" type="hinge" axis="0 0 1"/>
      <joint name="roll" type="hinge" axis="1 0 0"/>
      <joint name="pitch" type="hinge" axis="0 1 0"/>
      <geom type="box" size="0.3 0.02 0.04" mass="1"/>
    </body>
    <body name="box" pos="0 0 0.051">
      <freejoint/>
      <geom type="box" size="0.05 0.05 0.05" mass="0.2"/>
    </body>
  </worldbody>
  <actuator>
    <position joint="x"/> <position joint="y"/> <position joint="z"/>
    <position joint="yaw"/> <position joint="roll"/> <position joint="pitch"/>
  </actuator>
</mujoco>
"""


def loss(model: mujoco.MjModel, data: mujoco.MjData) -> float:
    """ReLU(|x_box − x*|² − ε²) of the box's centre of mass."""
    box = model.body("box").id
    miss = data.xipos[box] - TARGET
    return max(float(miss @ miss) - EPSILON**2, 0.0)


def frame(model: mujoco.MjModel, data: mujoco.MjData, targets: np.ndarray) -> None:
    """One Δt frame under PD targets `targets` (6)."""
    data.ctrl[:] = targets
    for _ in range(SUBSTEPS):
        mujoco.mj_step(model, data)


def window_loss(model, start: mujoco.MjData, scratch: mujoco.MjData, plan: np.ndarray) -> float:
    """The loss at the end of `plan` (h x 6) rolled out from `start`."""
    mujoco.mj_copyData(scratch, model, start)
    for targets in plan:
        frame(model, scratch, targets)
    return loss(model, scratch)


def gradient(model, start, scratch, plan: np.ndarray) -> np.ndarray:
    """Central differences of `window_loss` over every plan entry."""
    g = np.zeros_like(plan)
    for index in np.ndindex(plan.shape):
        up, down = plan.copy(), plan.copy()
        up[index] += FD_STEP
        down[index] -= FD_STEP
        g[index] = (
            window_loss(model, start, scratch, up) - window_loss(model, start, scratch, down)
        ) / (2 * FD_STEP)
    return g


def main() -> None:
    given = [int(a) for a in sys.argv[1:4]]
    frames, horizon, iterations = given + [40, 16, 10][len(given) :]
    model = mujoco.MjModel.from_xml_string(MJCF)
    real = mujoco.MjData(model)
    mujoco.mj_forward(model, real)
    scratch = mujoco.MjData(model)
    plan = np.zeros((horizon, 6))
    losses = [loss(model, real)]
    print(
        f"push in MuJoCo {mujoco.__version__}: {frames} frames, h = {horizon}, {iterations} "
        f"Adam iterations per frame, central differences ({6 * horizon} entries)"
    )
    clock = time.perf_counter()
    largest = 0.0
    for t in range(frames):
        m, v = np.zeros_like(plan), np.zeros_like(plan)
        for k in range(1, iterations + 1):
            g = gradient(model, real, scratch, plan)
            largest = max(largest, float(np.abs(g).max()))
            m = BETAS[0] * m + (1 - BETAS[0]) * g
            v = BETAS[1] * v + (1 - BETAS[1]) * g * g
            step = (m / (1 - BETAS[0] ** k)) / (np.sqrt(v / (1 - BETAS[1] ** k)) + 1e-8)
            plan -= LEARNING_RATE * step
        frame(model, real, plan[0])
        plan = np.vstack([plan[1:], plan[-1:]])
        losses.append(loss(model, real))
        print(f"  frame {t + 1:3}: loss {losses[-1]:.6e}, largest |gradient| so far {largest:.3e}")
    seconds = time.perf_counter() - clock
    box = model.body("box").id
    miss = float(np.linalg.norm(real.xipos[box] - TARGET))
    print(
        f"MuJoCo (central differences): final loss {losses[-1]:.4e} (start {losses[0]:.4e}), "
        f"box {miss:.3f} m from the target, success {miss <= EPSILON}, "
        f"{seconds / (frames * iterations):.3f} s per iteration"
    )
    print("paper (Fig. 7d): MuJoCo makes no progress")
    out = pathlib.Path(__file__).resolve().parents[2] / "target" / "sdrs-out" / "push"
    out.mkdir(parents=True, exist_ok=True)
    lines = ["frame,loss"] + [f"{k},{value:.17e}" for k, value in enumerate(losses)]
    (out / "mujoco.csv").write_text("\n".join(lines) + "\n")
    print(f"wrote {out / 'mujoco.csv'}")


if __name__ == "__main__":
    main()
