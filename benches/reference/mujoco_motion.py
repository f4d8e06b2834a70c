"""Times MuJoCo on the `motion` suite's robots in motion (`benches/src/motion.rs`, run by
`cargo xtask bench motion`): the gymnasium ant trotting under joint PD, Unitree A1 and Solo-12
from example-robot-data trotting the same way (their URDFs through MuJoCo's URDF compiler), the
gymnasium humanoid collapsing and lying on the ground, a box pushed along the ground, a box
sliding down a 30° incline, a 3-link arm sweeping a stack of cubes off a table, a box at rest
and a stack of 5.

Every workload is a fixed rollout of 400 steps of 5 ms (implicitfast integrator, gravity
9.81 m/s² along −z, condim 3, geom friction "MU 0.005 0.0001": sdrs has no torsional or rolling
friction, so those keep MuJoCo's defaults) from a fixed start at rest, under controls that are
a function of the step index only. Each is run through `mujoco.rollout.rollout` (one
trajectory, the whole control sequence, one reused MjData, zero initial warm start) once per
round, in 50 rounds over all workloads (5 with --quick). The fastest run's mean per step (the
least disturbed on a shared machine) is written, in nanoseconds, to
benches/reference/mujoco_motion.json (or --out) with the final position of each workload's
tracked body, so the Rust side can print MuJoCo beside sdrs and check that the two simulators
end up in the same place.

The URDF robots are read from the example-robot-data folder the Rust side uses (`robot_data`);
when there is none (the Rust side fetches it from PyPI on first use) their rows are left out
and the Rust table prints "–" for MuJoCo. Both load honestly: A1's collision geometry is boxes,
cylinders and spheres (its COLLADA meshes, which MuJoCo cannot read, are visual only and
discarded), Solo-12's is STL meshes, each colliding by its convex hull as in sdrs.

    python3 -m venv target/venv-mujoco && target/venv-mujoco/bin/pip install mujoco numpy
    target/venv-mujoco/bin/python benches/reference/mujoco_motion.py [--quick] [--out PATH]
"""

import argparse
import datetime
import json
import math
import os
import pathlib
import platform
import time
import xml.etree.ElementTree as ET

import mujoco
import mujoco.rollout
import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[2]
MJCF_DIR = REPO / "crates/sdrs-dynamics/tests/data/mjcf"

DT = 0.005  # time step (s)
STEPS = 400  # steps of every rollout (2 s)
GRAVITY = 9.81
CLEARANCE = 0.005  # a robot's lowest point above the ground at its start (m)
ROBOT_FRICTION = 0.8  # ant and humanoid
HALF = 0.1  # half extent of the 1 kg boxes (m)
BOX_Z = HALF + 0.0008  # their centre height at rest on the ground, 0.8 mm gap (m)

# The ant's trot: PD gains (N·m/rad, N·m·s/rad), standing time (s), frequency (Hz), starting
# ankle angles of legs 1-4 (rad) and the signs of the hip swing and ankle lift, as in
# `ant_trot` of benches/src/motion.rs. A hip turn about z moves the foot of a leg at angle ψ
# from +x along (−sin ψ, cos ψ), so the front legs (1, 2) swing with the opposite sign of the
# back ones (3, 4) for all four to stroke along x; with one sign for all four the diagonal legs
# turn the ant about z in place (its torso stays at x = y = 0 by symmetry).
ANT_KP, ANT_KV = 40.0, 1.0
ANT_STAND, ANT_HZ = 0.5, 2.0
ANT_ANKLES = (1.0, -1.0, -1.0, 1.0)
ANT_HIP_SIGN = (-1.0, -1.0, 1.0, 1.0)  # hip target = sign · 0.3 sin w
ANT_LIFT_SIGN = -1.0  # ankle target = ankle0 + sign · sign(ankle0) · 0.2 cos w

INCLINE = math.radians(30.0)  # the incline's tilt about +y; downhill is +x

# The URDF quadrupeds of example-robot-data (`a1_trot`, `solo12_trot` of benches/src/motion.rs):
# URDF and SRDF under the robot data folder, leg prefixes (front left, front right, hind left,
# hind right), joint suffixes (abduction, hip pitch, knee) and PD gains (N·m/rad, N·m·s/rad).
QUADRUPEDS = {
    "a1_trot": dict(
        urdf="example-robot-data/robots/a1_description/urdf/a1.urdf",
        srdf="example-robot-data/robots/a1_description/srdf/a1.srdf",
        legs=("FL", "FR", "RL", "RR"),
        joints=("_hip_joint", "_thigh_joint", "_calf_joint"),
        gains=(100.0, 3.0),
    ),
    "solo12_trot": dict(
        urdf="example-robot-data/robots/solo_description/robots/solo12.urdf",
        srdf="example-robot-data/robots/solo_description/srdf/solo.srdf",
        legs=("FL", "FR", "HL", "HR"),
        joints=("_HAA", "_HFE", "_KFE"),
        gains=(5.0, 0.15),
    ),
}
TOUCHING = 1e-3  # geoms of two bodies this close at the start are left out of contact (m)


def trot_targets(t: float, phase: float, swing, lift) -> tuple:
    """The trot's PD targets of a swing joint and a lift joint at time `t`, as `trot_targets`
    of benches/src/motion.rs: `swing` and `lift` are (standing angle, sign); standing for
    ANT_STAND s, then the swing joint at angle ± 0.3 rad and the lift joint at angle ± 0.2 rad
    a quarter period later, at ANT_HZ, `phase` 0 or π."""
    (swing0, swing_sign), (lift0, lift_sign) = swing, lift
    if t < ANT_STAND:
        return swing0, lift0
    w = 2.0 * math.pi * ANT_HZ * (t - ANT_STAND) + phase
    return swing0 + swing_sign * 0.3 * math.sin(w), lift0 + lift_sign * 0.2 * math.cos(w)


def friction(mu: float) -> str:
    """A geom's friction triple: sliding `mu`, MuJoCo's default torsional and rolling."""
    return f"{mu} 0.005 0.0001"


def option_xml() -> str:
    """The option element of the scenes built here (MuJoCo's default solver)."""
    return f'<option timestep="{DT}" integrator="implicitfast" gravity="0 0 -{GRAVITY}"/>'


class Workload:
    """A model, a start (qpos, at rest) and the control of every step (STEPS x ncontrol)."""

    def __init__(self, name, model, qpos, control, tracked, control_spec=mujoco.mjtState.mjSTATE_CTRL):
        self.name = name
        self.model = model
        self.qpos = np.asarray(qpos, dtype=float)
        self.control = np.asarray(control, dtype=float)
        self.tracked = tracked  # body whose final position is recorded
        self.control_spec = int(control_spec)

    def initial_state(self, data: mujoco.MjData) -> np.ndarray:
        """The full physics state at the start: qpos, zero velocity, time 0."""
        mujoco.mj_resetData(self.model, data)
        data.qpos[:] = self.qpos
        state = np.empty(mujoco.mj_stateSize(self.model, mujoco.mjtState.mjSTATE_FULLPHYSICS))
        mujoco.mj_getState(self.model, data, state, mujoco.mjtState.mjSTATE_FULLPHYSICS)
        return state


# ---------------------------------------------------------------------------------------------
# Model edits and starts


def edit_mjcf(file: str, mu: float) -> ET.Element:
    """Parses a vendored MJCF file and applies the edits common to both robots: every geom (and
    the geom default) gets friction `mu` and condim 3; the option gets our time step, integrator
    and gravity, and MuJoCo's default solver (Newton, 100 iterations) as the box scenes have:
    humanoid.xml asks for PGS with 50 iterations, which moves the humanoid the same (its torso
    ends within 1e-5 m) at twice the cost."""
    root = ET.parse(MJCF_DIR / file).getroot()
    for geom in root.iter("geom"):
        geom.set("friction", friction(mu))
        geom.set("condim", "3")
    option = root.find("option")
    if option is None:
        option = ET.SubElement(root, "option")
    option.set("timestep", str(DT))
    option.set("integrator", "implicitfast")
    option.set("gravity", f"0 0 -{GRAVITY}")
    for setting in ("solver", "iterations"):
        option.attrib.pop(setting, None)
    return root


def geom_bottom(model: mujoco.MjModel, data: mujoco.MjData, g: int) -> float:
    """The lowest z of geom `g` at the current kinematics: exact for spheres, capsules,
    boxes, ellipsoids, cylinders and meshes (their lowest vertex), the bounding sphere for any
    other type."""
    z = data.geom_xpos[g, 2]
    r = data.geom_xmat[g].reshape(3, 3)[2]  # the world z row of the geom's rotation
    size = model.geom_size[g]
    kind = model.geom_type[g]
    if kind == mujoco.mjtGeom.mjGEOM_SPHERE:
        return z - size[0]
    if kind == mujoco.mjtGeom.mjGEOM_CAPSULE:
        return z - abs(r[2]) * size[1] - size[0]
    if kind == mujoco.mjtGeom.mjGEOM_BOX:
        return z - np.abs(r) @ size
    if kind == mujoco.mjtGeom.mjGEOM_ELLIPSOID:
        return z - np.linalg.norm(r * size)
    if kind == mujoco.mjtGeom.mjGEOM_CYLINDER:
        return z - abs(r[2]) * size[1] - size[0] * math.sqrt(max(0.0, 1.0 - r[2] ** 2))
    if kind == mujoco.mjtGeom.mjGEOM_MESH:
        mesh = model.geom_dataid[g]
        first = model.mesh_vertadr[mesh]
        return z + (model.mesh_vert[first:first + model.mesh_vertnum[mesh]] @ r).min()
    return z - model.geom_rbound[g]


def lift_to_clearance(model: mujoco.MjModel, qpos: np.ndarray) -> np.ndarray:
    """`qpos` with the free root's z (qpos[2]) shifted so that the lowest point of any geom
    not on the world body is CLEARANCE above the ground."""
    data = mujoco.MjData(model)
    data.qpos[:] = qpos
    mujoco.mj_kinematics(model, data)
    lowest = min(geom_bottom(model, data, g) for g in range(model.ngeom) if model.geom_bodyid[g] != 0)
    lifted = np.array(qpos, dtype=float)
    lifted[2] += CLEARANCE - lowest
    return lifted


def box_body(name: str, pos, mu: float, half: float = HALF, mass: float = 1.0, quat=None) -> str:
    """A free cube (solid-box inertia from its mass) at `pos`."""
    orientation = f' quat="{" ".join(f"{q:.12g}" for q in quat)}"' if quat is not None else ""
    return f"""    <body name="{name}" pos="{" ".join(f"{p:.12g}" for p in pos)}"{orientation}>
      <freejoint/>
      <geom type="box" size="{half} {half} {half}" mass="{mass}" friction="{friction(mu)}" condim="3"/>
    </body>"""


def scene(bodies: str, mu: float, extra: str = "", ground: bool = True) -> mujoco.MjModel:
    """A model of `bodies` (MJCF body elements) over a ground plane of friction `mu`."""
    plane = (f'    <geom name="ground" type="plane" size="20 20 0.1" friction="{friction(mu)}" condim="3"/>'
             if ground else "")
    return mujoco.MjModel.from_xml_string(f"""<mujoco>
  {option_xml()}
  <worldbody>
{plane}
{bodies}
  </worldbody>
{extra}
</mujoco>""")


def free_qpos(model: mujoco.MjModel) -> np.ndarray:
    """qpos0: every free body where the XML placed it."""
    return model.qpos0.copy()


# ---------------------------------------------------------------------------------------------
# Workloads


def ant_trot() -> Workload:
    """The gymnasium ant (ant.xml: 8 hinges, capsule legs, μ 0.8) standing 0.5 s at its
    starting pose under joint PD (40 N·m/rad, 1 N·m·s/rad), then trotting 1.5 s at 2 Hz:
    hips ±0.3 rad, ankles ±0.2 rad a quarter period later, diagonal legs in phase (legs 1
    and 3 at phase 0, legs 2 and 4 at π; signs: ANT_HIP_SIGN, ANT_LIFT_SIGN).

    Edits of ant.xml: joint default armature 0 and damping 0, every geom friction
    "0.8 0.005 0.0001" and condim 3, the 8 motors replaced by one `position` actuator per hinge
    (hip_1, ankle_1, …, hip_4, ankle_4; kp 40, kv 1, no ctrl limits). The joint ranges and
    the geoms' contact margin (0.01 m) are the file's."""
    root = edit_mjcf("ant.xml", ROBOT_FRICTION)
    joint_default = root.find("default/joint")
    joint_default.set("armature", "0")
    joint_default.set("damping", "0")
    actuators = root.find("actuator")
    for child in list(actuators):
        actuators.remove(child)
    for leg in range(1, 5):
        for joint in (f"hip_{leg}", f"ankle_{leg}"):
            ET.SubElement(actuators, "position", joint=joint, kp=str(ANT_KP), kv=str(ANT_KV))
    model = mujoco.MjModel.from_xml_string(ET.tostring(root, encoding="unicode"))

    qpos = [0.0, 0.0, 0.55, 1.0, 0.0, 0.0, 0.0]
    for ankle in ANT_ANKLES:
        qpos += [0.0, ankle]
    control = np.zeros((STEPS, model.nu))
    for k in range(STEPS):
        for leg, ankle0 in enumerate(ANT_ANKLES):
            phase = math.pi if leg % 2 else 0.0
            lift = (ankle0, ANT_LIFT_SIGN * math.copysign(1.0, ankle0))
            control[k, 2 * leg: 2 * leg + 2] = trot_targets(k * DT, phase, (0.0, ANT_HIP_SIGN[leg]), lift)
    return Workload("ant_trot", model, lift_to_clearance(model, np.array(qpos)), control, "torso")


def robot_data() -> pathlib.Path | None:
    """The folder holding example-robot-data/, where the Rust side (crate sdrs-robot-data) finds
    it: $SDRS_ROBOT_DATA, ../shared beside the repository, or target/robot-data/share (what the
    Rust side fetched from PyPI); None when it is in none of them."""
    candidates = [REPO.parent / "shared", REPO / "target/robot-data/share"]
    if os.environ.get("SDRS_ROBOT_DATA"):
        candidates.insert(0, pathlib.Path(os.environ["SDRS_ROBOT_DATA"]))
    return next((c for c in candidates if (c / "example-robot-data").is_dir()), None)


def urdf_on_ground(urdf: pathlib.Path, data: pathlib.Path, mu: float) -> mujoco.MjSpec:
    """A URDF robot through MuJoCo's URDF compiler on a ground plane of friction `mu`, as a spec
    to add actuators to. The URDF is edited in memory: package:// URIs become paths under
    `data`, a `<mujoco><compiler>` block keeps the URDF compiler's defaults (visual geoms
    discarded, fixed links fused into their parents, so a parent-child pair of the fused bodies
    does not collide) and a floating joint `root` from a new static link frees the root link.
    Every geom gets friction `mu` and condim 3, the option our time step, integrator and
    gravity. A mesh collides by its convex hull, as in sdrs (one hull per mesh there too)."""
    root = ET.parse(urdf).getroot()
    for mesh in root.iter("mesh"):
        name = mesh.get("filename")
        if name.startswith("package://"):
            mesh.set("filename", str(data / name.removeprefix("package://")))
    compiler = ET.SubElement(ET.SubElement(root, "mujoco"), "compiler")
    compiler.set("discardvisual", "true")
    compiler.set("fusestatic", "true")
    children = {joint.find("child").get("link") for joint in root.iter("joint")}
    base = next(link.get("name") for link in root.iter("link") if link.get("name") not in children)
    ET.SubElement(root, "link", name="anchor")
    free = ET.SubElement(root, "joint", name="root", type="floating")
    ET.SubElement(free, "parent", link="anchor")
    ET.SubElement(free, "child", link=base)

    spec = mujoco.MjSpec.from_string(ET.tostring(root, encoding="unicode"))
    spec.option.timestep = DT
    spec.option.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    spec.option.gravity = [0.0, 0.0, -GRAVITY]
    spec.worldbody.add_geom(name="ground", type=mujoco.mjtGeom.mjGEOM_PLANE, size=[20, 20, 0.1])
    for geom in spec.geoms:
        geom.friction = [mu, 0.005, 0.0001]
        geom.condim = 3
    return spec


def srdf_qpos(model: mujoco.MjModel, srdf: pathlib.Path, name: str) -> np.ndarray:
    """qpos of the SRDF's group state `name`: its joints' values, the free root at the
    `root_joint` pose (x y z qx qy qz qw) or at qpos0."""
    qpos = model.qpos0.copy()
    state = next(s for s in ET.parse(srdf).getroot().iter("group_state") if s.get("name") == name)
    for joint in state.iter("joint"):
        values = [float(v) for v in joint.get("value").split()]
        if joint.get("name") == "root_joint":
            x, y, z, qx, qy, qz, qw = values
            qpos[:7] = x, y, z, qw, qx, qy, qz
        else:
            qpos[model.joint(joint.get("name")).qposadr[0]] = values[0]
    return qpos


def exclude_touching(spec: mujoco.MjSpec, qpos: np.ndarray) -> mujoco.MjModel:
    """The compiled spec with every pair of robot bodies whose geoms are within TOUCHING at
    `qpos` left out of contact, as sdrs's `Model::exclude_touching` does."""
    model = spec.compile()
    data = mujoco.MjData(model)
    data.qpos[:] = qpos
    mujoco.mj_kinematics(model, data)
    body = model.geom_bodyid
    pairs = {
        (body[a], body[b])
        for a in range(model.ngeom) for b in range(a + 1, model.ngeom)
        if 0 not in (body[a], body[b]) and body[a] != body[b]
        and mujoco.mj_geomDistance(model, data, a, b, TOUCHING, None) < TOUCHING
    }
    for a, b in sorted(pairs):
        spec.add_exclude(bodyname1=model.body(a).name, bodyname2=model.body(b).name)
    return spec.compile()


def quadruped_trot(name: str) -> Workload:
    """A quadruped of example-robot-data (QUADRUPEDS) through MuJoCo's URDF compiler
    (`urdf_on_ground`, μ 0.8), standing 0.5 s in its SRDF's `standing` pose under joint PD and
    then trotting 1.5 s as the ant does: hip pitch at angle − 0.3 sin w, knee at
    angle + sign(angle) · 0.2 cos w (bent further while the foot swings forward), the front
    left and hind right legs at phase 0, the other two at π; abduction joints held at their
    standing angles. One `position` actuator per joint (the QUADRUPEDS gains, no ctrl limits);
    the URDF's joint limits are kept. Pairs of bodies touching at the start are left out of
    contact (`exclude_touching`). Tracks the root link."""
    robot = QUADRUPEDS[name]
    data = robot_data()
    spec = urdf_on_ground(data / robot["urdf"], data, ROBOT_FRICTION)
    joints = [[leg + joint for joint in robot["joints"]] for leg in robot["legs"]]
    kp, kv = robot["gains"]
    for joint in sum(joints, []):
        spec.add_actuator(target=joint, trntype=mujoco.mjtTrn.mjTRN_JOINT).set_to_position(kp=kp, kv=kv)
    model = spec.compile()
    qpos = lift_to_clearance(model, srdf_qpos(model, data / robot["srdf"], "standing"))
    model = exclude_touching(spec, qpos)

    standing = qpos[[model.joint(j).qposadr[0] for j in sum(joints, [])]].reshape(4, 3)
    control = np.zeros((STEPS, model.nu))
    for k in range(STEPS):
        for leg, (abduction, swing0, knee0) in enumerate(standing):
            phase = 0.0 if leg in (0, 3) else math.pi
            swing, knee = trot_targets(k * DT, phase, (swing0, -1.0), (knee0, math.copysign(1.0, knee0)))
            control[k, 3 * leg: 3 * leg + 3] = abduction, swing, knee
    base = model.body(model.jnt_bodyid[model.joint("root").id]).name
    return Workload(name, model, qpos, control, base)


def a1_trot() -> Workload:
    """Unitree A1 (a1.urdf: boxes, cylinders and sphere feet; its visual meshes are COLLADA,
    which MuJoCo cannot read, but they are discarded) under PD 100 N·m/rad, 3 N·m·s/rad."""
    return quadruped_trot("a1_trot")


def solo12_trot() -> Workload:
    """Solo-12 (solo12.urdf: STL meshes, each colliding by its convex hull) under PD 5 N·m/rad,
    0.15 N·m·s/rad."""
    return quadruped_trot("solo12_trot")


def humanoid_lying() -> Workload:
    """The gymnasium humanoid (humanoid.xml: 21 hinges, capsules and spheres, μ 0.8), passive
    (its 17 motors at ctrl 0), starting upright at qpos0 just above the ground: it collapses
    and lies on the ground.

    Edits of humanoid.xml: armature 0 on every joint and the joint default (the joints'
    damping and stiffness are kept), every geom friction "0.8 0.005 0.0001" and condim 3 (the
    file's default is condim 1), MuJoCo's default solver (see `edit_mjcf`). The file's joint
    ranges, tendons and contact margins (0.001 m) are kept."""
    root = edit_mjcf("humanoid.xml", ROBOT_FRICTION)
    # The joint default and every joint of the bodies (not the tendons' <joint> references).
    for section in ("default", "worldbody"):
        for joint in root.find(section).iter("joint"):
            joint.set("armature", "0")
    model = mujoco.MjModel.from_xml_string(ET.tostring(root, encoding="unicode"))
    assert not model.dof_armature.any()
    control = np.zeros((STEPS, model.nu))
    return Workload("humanoid_lying", model, lift_to_clearance(model, model.qpos0), control, "torso")


def box_push() -> Workload:
    """A free 0.2 m, 1 kg cube (μ 0.3) resting on the ground, pushed 2 s by a constant 5 N
    along world +x at its centre, applied as `xfrc_applied` (rollout's control_spec
    mjSTATE_XFRC_APPLIED). Coulomb friction leaves (5 − 0.3·9.81)/1 ≈ 2.06 m/s²."""
    model = scene(box_body("box", (0, 0, BOX_Z), 0.3), 0.3)
    box = model.body("box").id
    control = np.zeros((STEPS, model.nbody, 6))
    control[:, box, 0] = 5.0  # xfrc_applied: world force then torque, at the body's centre of mass
    return Workload("box_push", model, free_qpos(model), control.reshape(STEPS, -1), "box",
                    mujoco.mjtState.mjSTATE_XFRC_APPLIED)


def box_incline() -> Workload:
    """The 1 kg cube at rest on a plane tilted 30° about +y (downhill +x), μ 0.3, its face
    0.8 mm above the incline: tan 30° > 0.3, so it slides down at
    g (sin 30° − 0.3 cos 30°) ≈ 2.36 m/s². The incline is the only ground."""
    quat = (math.cos(INCLINE / 2), 0.0, math.sin(INCLINE / 2), 0.0)
    normal = np.array([math.sin(INCLINE), 0.0, math.cos(INCLINE)])
    incline = (f'    <geom name="incline" type="plane" size="20 20 0.1" quat="{" ".join(map(str, quat))}"'
               f' friction="{friction(0.3)}" condim="3"/>')
    model = scene(incline + "\n" + box_body("box", BOX_Z * normal, 0.3, quat=quat), 0.3, ground=False)
    return Workload("box_incline", model, free_qpos(model), np.zeros((STEPS, 0)), "box")


def arm_sweep() -> Workload:
    """A 3-link arm (hinges about z, base fixed at (0, 0, 0.45), links 0.3, 0.3 and 0.2 m of
    1, 1 and 0.5 kg) under position control (kp 200 N·m/rad, kv 5 N·m·s/rad) swinging its base
    joint from −π/2 to +π/3 over t = 0.25…1.25 s through a stack of three 0.1 m, 0.5 kg cubes
    on a table (top at z = 0.4, stack at x = 0.6), μ 0.5 everywhere. The arm's links do not
    collide with each other: their contype 2 and conaffinity 1 meet only the other geoms'
    defaults (contype 1, conaffinity 1)."""
    mu = 0.5
    arm_geom = f'contype="2" conaffinity="1" friction="{friction(mu)}" condim="3"'
    arm = f"""    <body name="link1" pos="0 0 0.45">
      <joint name="j1" type="hinge" axis="0 0 1"/>
      <geom type="box" size="0.15 0.02 0.02" pos="0.15 0 0" mass="1" {arm_geom}/>
      <body name="link2" pos="0.3 0 0">
        <joint name="j2" type="hinge" axis="0 0 1"/>
        <geom type="box" size="0.15 0.02 0.02" pos="0.15 0 0" mass="1" {arm_geom}/>
        <body name="link3" pos="0.3 0 0">
          <joint name="j3" type="hinge" axis="0 0 1"/>
          <geom type="box" size="0.1 0.02 0.02" pos="0.1 0 0" mass="0.5" {arm_geom}/>
        </body>
      </body>
    </body>"""
    table = (f'    <geom name="table" type="box" size="0.4 0.4 0.2" pos="0.6 0 0.2"'
             f' friction="{friction(mu)}" condim="3"/>')
    cubes = "\n".join(box_body(f"cube{k}", (0.6, 0, z), mu, half=0.05, mass=0.5)
                      for k, z in enumerate((0.451, 0.552, 0.653)))
    actuators = "\n".join(f'  <position joint="j{j}" kp="200" kv="5"/>' for j in (1, 2, 3))
    model = scene(f"{table}\n{arm}\n{cubes}", mu, extra=f"<actuator>\n{actuators}\n</actuator>")

    qpos = free_qpos(model)
    qpos[model.joint("j1").qposadr[0]] = -math.pi / 2
    control = np.zeros((STEPS, model.nu))
    for k in range(STEPS):
        t = k * DT
        s = min(max((t - 0.25) / 1.0, 0.0), 1.0)
        control[k, 0] = -math.pi / 2 + s * (math.pi / 3 + math.pi / 2)
    return Workload("arm_sweep", model, qpos, control, "cube0")


def resting_box() -> Workload:
    """The 1 kg 0.2 m cube at rest on the ground, μ 0.5, no force."""
    model = scene(box_body("box", (0, 0, BOX_Z), 0.5), 0.5)
    return Workload("resting_box", model, free_qpos(model), np.zeros((STEPS, 0)), "box")


def stack_5() -> Workload:
    """Five such cubes stacked, 0.8 mm apart, μ 0.5, no force; tracks the top one."""
    bodies = "\n".join(box_body(f"box{k}", (0, 0, BOX_Z + (2 * HALF + 0.0008) * k), 0.5) for k in range(5))
    model = scene(bodies, 0.5)
    return Workload("stack_5", model, free_qpos(model), np.zeros((STEPS, 0)), "box4")


WORKLOADS = (ant_trot, a1_trot, solo12_trot, humanoid_lying, box_push, box_incline, arm_sweep, resting_box,
             stack_5)


# ---------------------------------------------------------------------------------------------
# Timing


def rollout(w: Workload, data: mujoco.MjData, initial: np.ndarray, out: np.ndarray) -> None:
    """One rollout of the whole control sequence into `out` (1 x STEPS x nstate)."""
    mujoco.rollout.rollout(
        w.model,
        data,
        initial[None, :],
        w.control[None, :, :],
        control_spec=w.control_spec,
        nstep=STEPS,
        initial_warmstart=np.zeros((1, w.model.nv)),
        state=out,
    )


def final_position(w: Workload, data: mujoco.MjData, last: np.ndarray) -> list:
    """The tracked body's world position at the rollout's last state."""
    mujoco.mj_setState(w.model, data, last, mujoco.mjtState.mjSTATE_FULLPHYSICS)
    mujoco.mj_kinematics(w.model, data)
    return data.xpos[w.model.body(w.tracked).id].tolist()


class Timed:
    """A workload's reused MjData, start and output buffer, and the fastest rollout so far."""

    def __init__(self, w: Workload):
        self.w = w
        self.data = mujoco.MjData(w.model)
        self.initial = w.initial_state(self.data)
        self.out = np.empty((1, STEPS, self.initial.size))
        self.best = math.inf  # ns per step
        self.final = None

    def run(self) -> None:
        """One timed rollout; every rollout must end in the same place (same start, controls
        and zero warm start)."""
        start = time.perf_counter_ns()
        rollout(self.w, self.data, self.initial, self.out)
        self.best = min(self.best, (time.perf_counter_ns() - start) / STEPS)
        final = final_position(self.w, self.data, self.out[0, -1])
        assert self.final in (None, final), f"{self.w.name}: rollouts differ"
        self.final = final


def time_all(workloads: dict, repeats: int) -> dict:
    """Each workload's fastest of `repeats` rollouts, taken in rounds over all workloads so
    that a burst of other load on a shared machine spoils one round, not every rollout of
    one workload."""
    timed = {name: Timed(w) for name, w in workloads.items()}
    for _ in range(repeats):
        for t in timed.values():
            t.run()
    return timed


def start_position(w: Workload) -> np.ndarray:
    """The tracked body's world position at the start."""
    data = mujoco.MjData(w.model)
    data.qpos[:] = w.qpos
    mujoco.mj_kinematics(w.model, data)
    return data.xpos[w.model.body(w.tracked).id].copy()


def checks(workloads: dict, finals: dict) -> list:
    """Lines comparing the sliding boxes with Coulomb friction's constant acceleration over
    the 2 s (the first few ms are a fall of 0.8 mm)."""
    duration = STEPS * DT
    lines = []
    push = np.array(finals["box_push"]) - start_position(workloads["box_push"])
    lines.append(f"box_push: moved {push[0]:.3f} m along x; ½·(5 − 0.3·{GRAVITY})·t² = "
                 f"{0.5 * (5 - 0.3 * GRAVITY) * duration ** 2:.3f} m")
    downhill = np.array([math.cos(INCLINE), 0.0, -math.sin(INCLINE)])
    slide = (np.array(finals["box_incline"]) - start_position(workloads["box_incline"])) @ downhill
    a = GRAVITY * (math.sin(INCLINE) - 0.3 * math.cos(INCLINE))
    lines.append(f"box_incline: slid {slide:.3f} m down the slope; ½·g(sin30° − 0.3 cos30°)·t² = "
                 f"{0.5 * a * duration ** 2:.3f} m")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="5 rounds instead of 50")
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path(__file__).with_name("mujoco_motion.json"))
    args = parser.parse_args()
    repeats = 5 if args.quick else 50

    makes = WORKLOADS
    if robot_data() is None:
        makes = [make for make in WORKLOADS if make.__name__ not in QUADRUPEDS]
        print(f"no example-robot-data folder (SDRS_ROBOT_DATA, ../shared, target/robot-data/share): "
              f"{', '.join(QUADRUPEDS)} left out; the Rust side fetches it (`cargo test -p sdrs-robot-data`)")
    workloads = {make.__name__: make() for make in makes}
    timed = time_all(workloads, repeats)
    rows = {name: t.best for name, t in timed.items()}
    finals = {name: t.final for name, t in timed.items()}
    print(f"{'workload':<16} {'µs/step':>9}  tracked body's final position (m)")
    for name, w in workloads.items():
        x, y, z = finals[name]
        print(f"{name:<16} {rows[name] / 1e3:>9.2f}  {w.tracked}: ({x:.4f}, {y:.4f}, {z:.4f})")
    for line in checks(workloads, finals):
        print(line)

    out = {
        "suite": "motion",
        "peer": f"MuJoCo {mujoco.__version__} rollout (implicitfast)",
        "measured": datetime.date.today().isoformat(),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, CPython {platform.python_version()}",
        "unit": "ns",
        "rows": {k: round(v, 1) for k, v in rows.items()},
        "final": {k: [round(c, 6) + 0.0 for c in v] for k, v in finals.items()},  # + 0.0: no -0.0
        "note": (f"fastest of {repeats} rounds of single-trajectory mujoco.rollout runs of {STEPS} steps of "
                 f"{DT * 1e3:g} ms, ns per step; final: the tracked body's world position after "
                 "the last step (ant, humanoid: torso; a1, solo12: the root link; box_push, box_incline, resting_box: the box; "
                 "arm_sweep: the bottom cube; stack_5: the top cube)"),
    }
    args.out.write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
