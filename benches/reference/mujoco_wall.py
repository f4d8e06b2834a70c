"""The wall experiment of the SDRS paper (sec. V-J, Fig. 24 top) in MuJoCo, beside sdrs: a fixed
wall, two boxes on the ground, the second spun about the vertical into the first; prints both
boxes' yaw angles over time and at rest next to sdrs's final angles.

The wall example writes the scene as `scene.json` (time step, steps, gravity, friction, the
wall's and boxes' poses and half-extents, the boxes' masses and principal inertias, box 2's
spin, sdrs's final yaws). This script builds the same scene in MuJoCo: the ground a plane at
z = 0, the wall a static box, each box a free body with sdrs's inertia (its mass at the 8
corners, not MuJoCo's solid box) and friction `mu` on every geom (MuJoCo takes the larger of a
pair's coefficients), elliptic friction cones, the implicit integrator, and sets box 2's
angular velocity.

    cargo run --release -p sdrs-examples --example wall
    python3 -m venv target/venv-mujoco && target/venv-mujoco/bin/pip install mujoco
    target/venv-mujoco/bin/python benches/reference/mujoco_wall.py target/sdrs-out/wall/scene.json

Contact differs by design (MuJoCo's soft contact with its default solver parameters against
sdrs's barrier), so the angles are expected to be close, not equal; the paper's Fig. 24 shows
the two simulators' curves nearly overlapping.
"""

import json
import math
import sys

import mujoco


def yaw(quat):
    """The angle of a body's x axis about z, from MuJoCo's (w, x, y, z)."""
    w, x, y, z = quat
    return math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))


def main(path):
    scene = json.loads(open(path).read())
    spec = mujoco.MjSpec()
    spec.option.timestep = scene["dt"]
    spec.option.gravity = [0.0, 0.0, -scene["gravity"]]
    spec.option.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    spec.option.cone = mujoco.mjtCone.mjCONE_ELLIPTIC
    friction = [scene["mu"], 0.005, 0.0001]
    spec.worldbody.add_geom(
        type=mujoco.mjtGeom.mjGEOM_PLANE, size=[20.0, 20.0, 0.1], friction=friction
    )
    wall = scene["wall"]
    spec.worldbody.add_geom(
        type=mujoco.mjtGeom.mjGEOM_BOX,
        size=wall["half"],
        pos=wall["pos"],
        quat=wall["quat"],
        friction=friction,
    )
    for b in scene["boxes"]:
        body = spec.worldbody.add_body(
            name=b["name"],
            pos=b["pos"],
            quat=b["quat"],
            mass=b["mass"],
            inertia=b["inertia"],
            # Without it MuJoCo's compiler replaces both by the box geom's (density 1000:
            # 1.92 kg and a solid box's inertia); the centre of mass is the box's centre.
            explicitinertial=True,
            ipos=[0.0, 0.0, 0.0],
        )
        body.add_freejoint()
        body.add_geom(type=mujoco.mjtGeom.mjGEOM_BOX, size=b["half"], friction=friction)
    model = spec.compile()
    data = mujoco.MjData(model)
    # Box 2's free joint: qvel = (linear in world, angular in the body frame); it starts level.
    second = model.body(scene["boxes"][1]["name"])
    data.qvel[model.jnt_dofadr[second.jntadr[0]] + 5] = scene["spin"]
    names = [b["name"] for b in scene["boxes"]]
    unwrapped = [0.0, 0.0]
    print("  time (s)  box 1 yaw (rad)  box 2 yaw (rad)")
    for k in range(scene["steps"] + 1):
        for i, name in enumerate(names):
            a = yaw(data.body(name).xquat)
            unwrapped[i] = a - round((a - unwrapped[i]) / (2 * math.pi)) * 2 * math.pi
        if k % 10 == 0:
            print(f"{k * scene['dt']:>10.2f}  {unwrapped[0]:>15.5f}  {unwrapped[1]:>15.5f}")
        if k < scene["steps"]:
            mujoco.mj_step(model, data)
    ours = scene["sdrs_final_yaw"]
    print(f"final yaw, MuJoCo: box 1 {unwrapped[0]:.5f} rad, box 2 {unwrapped[1]:.5f} rad")
    print(f"final yaw, sdrs:   box 1 {ours[0]:.5f} rad, box 2 {ours[1]:.5f} rad")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "target/sdrs-out/wall/scene.json")
