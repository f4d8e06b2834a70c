"""Replays a walker optimised by sdrs in MuJoCo and compares the walking distance (SDRS paper
Fig. 22: the optimised robot and controller carried to another simulator).

The quadruped example writes, per run, a folder with the robot as URDF + OBJ meshes and
`replay.json` (time step, horizon, gravity, friction, the slope as a plane through a point, and
per actuated joint its PD gains and sine waves `(a, ω, φ)`, target `base + Σ a sin(ω t + φ)`
taken at the end of each step, `t = (k + 1) Δt`). This script loads the URDF into MuJoCo (a
free root hangs from `world` by a floating joint, which MuJoCo makes a free joint; the
spider's base hangs by its three prismatic joints and its yaw; every hull is a convex mesh,
which MuJoCo collides exactly), adds the slope, drives each joint by a position
actuator with the same gains (`kp (q* − q) − kd q̇`, plus `kd q̇*` as an applied force: the PD
of sdrs, `kp (q* − q) + kd (q̇* − q̇)`), runs the horizon with MuJoCo's implicit integrator,
and prints how far the robot's centre of mass moved along the slope, beside sdrs's distance,
and whether the robot fell in MuJoCo: the first step at which its root (the floating base,
`root` in `replay.json`) tipped more than 45° from its starting orientation or sank more than
15 cm towards the ground (along its normal), the biped example's criterion
(`sdrs_examples::walker::first_fall`, on flat ground).

    cargo run --release -p sdrs-examples --example quadruped
    python3 -m venv target/venv-mujoco && target/venv-mujoco/bin/pip install mujoco
    target/venv-mujoco/bin/python benches/reference/mujoco_replay.py [--substeps N] \
        target/sdrs-out/quadruped/control_only_urdf target/sdrs-out/quadruped/co_design_urdf

`--substeps N` runs MuJoCo at Δt / N (the targets at each substep's end). At the paper's
Δt = 10 ms MuJoCo's PD is not stable for the biped's k_p = 1e3 on its 0.1 kg feet (its
integrator takes the actuators' stiffness explicitly): the biped falls even standing still,
and stands at 1 ms (`--substeps 10`).

Contact differs by design: MuJoCo's soft contact with its default solver parameters against
sdrs's barrier, so the distances are expected to differ; the paper's point (Fig. 22) is that
the optimised gait still walks, and which design walks farther.
"""

import json
import math
import pathlib
import sys

import mujoco
import numpy as np


def quaternion_from_z(normal):
    """The rotation taking +z to `normal`, as MuJoCo's (w, x, y, z)."""
    n = np.asarray(normal, float) / np.linalg.norm(normal)
    axis = np.cross([0.0, 0.0, 1.0], n)
    s, c = np.linalg.norm(axis), n[2]
    if s < 1e-15:
        return [1.0, 0.0, 0.0, 0.0] if c > 0 else [0.0, 1.0, 0.0, 0.0]
    half = 0.5 * math.atan2(s, c)
    axis /= s
    return [math.cos(half), *(math.sin(half) * axis)]


def replay(folder: pathlib.Path, substeps: int = 1) -> tuple[float, float, "int | str | None"]:
    """MuJoCo's and sdrs's walking distances (m) for the run in `folder`, and the step at
    which the robot fell in MuJoCo (None if it did not; "unknown" for an export without its
    root), MuJoCo stepping `substeps` times per step of sdrs."""
    spec_json = json.loads((folder / "replay.json").read_text())
    spec = mujoco.MjSpec.from_file(str(folder / spec_json["urdf"]))
    spec.option.timestep = spec_json["dt"] / substeps
    spec.option.gravity = [0.0, 0.0, -spec_json["gravity"]]
    spec.option.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    # A base of joint frames (the spider's 3 translations and yaw, a hip's yaw frame) has
    # massless bodies, which MuJoCo refuses to move; 1 mg and 1e-12 kg m² are negligible.
    spec.compiler.boundmass = 1e-6
    spec.compiler.boundinertia = 1e-12
    mu = spec_json["mu"] or 0.0
    ground = spec_json["ground"]
    spec.worldbody.add_geom(
        type=mujoco.mjtGeom.mjGEOM_PLANE,
        size=[20.0, 20.0, 0.1],
        pos=ground["point"],
        quat=quaternion_from_z(ground["normal"]),
        friction=[mu, 0.005, 0.0001],
    )
    for geom in spec.geoms:
        geom.friction = [mu, 0.005, 0.0001]
    for joint in spec_json["joints"]:
        actuator = spec.add_actuator(name=joint["joint"] + " pd", target=joint["joint"])
        actuator.trntype = mujoco.mjtTrn.mjTRN_JOINT
        actuator.set_to_position(kp=joint["kp"], kv=joint["kd"])
    model = spec.compile()
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    dofs = [model.jnt_dofadr[model.joint(j["joint"]).id] for j in spec_json["joints"]]
    links = [model.body(name).id for name in spec_json["links"]]
    direction = np.asarray(spec_json["direction"])

    def centre():
        masses = model.body_mass[links]
        return (data.xipos[links] * masses[:, None]).sum(0) / masses.sum()

    # Exports before the root was written have none: no fall test for them.
    root = model.body(spec_json["root"]).id if "root" in spec_json else None
    normal = np.asarray(ground["normal"], float) / np.linalg.norm(ground["normal"])
    if root is not None:
        z0, height0 = data.xmat[root].reshape(3, 3)[:, 2].copy(), float(data.xpos[root] @ normal)
    fell = None
    start = centre()
    dt = spec_json["dt"] / substeps
    for k in range(spec_json["steps"] * substeps):
        t = (k + 1) * dt
        data.qfrc_applied[:] = 0.0
        for a, (joint, dof) in enumerate(zip(spec_json["joints"], dofs)):
            target, rate = joint["base_target"], 0.0
            for amplitude, omega, phase in joint["waves"]:
                target += amplitude * math.sin(omega * t + phase)
                rate += amplitude * omega * math.cos(omega * t + phase)
            data.ctrl[a] = target
            data.qfrc_applied[dof] = joint["kd"] * rate
        mujoco.mj_step(model, data)
        if root is None:
            continue
        z = data.xmat[root].reshape(3, 3)[:, 2]
        tilt = math.acos(max(-1.0, min(1.0, float(z @ z0))))
        if fell is None and (tilt > math.pi / 4 or height0 - float(data.xpos[root] @ normal) > 0.15):
            fell = (k + substeps) // substeps
    travel = float((centre() - start) @ direction)
    return travel, spec_json["sdrs_travel_m"], fell if root is not None else "unknown"


def main() -> None:
    args = sys.argv[1:]
    substeps = 1
    if args[:1] == ["--substeps"]:
        if len(args) < 2 or not args[1].isdigit() or int(args[1]) < 1:
            sys.exit("--substeps takes a whole number of MuJoCo steps per sdrs step, at least 1")
        substeps, args = int(args[1]), args[2:]
    if not args:
        sys.exit(__doc__)
    print(f"{'run':<40} {'sdrs (m)':>10} {'MuJoCo (m)':>11}  MuJoCo: fell (sdrs steps)")
    for folder in map(pathlib.Path, args):
        theirs, ours, fell = replay(folder, substeps)
        verdict = "no" if fell is None else fell if isinstance(fell, str) else f"at step {fell}"
        print(f"{folder.name:<40} {ours:>10.3f} {theirs:>11.3f}  {verdict}")


if __name__ == "__main__":
    main()
