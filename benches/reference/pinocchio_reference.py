"""Pinocchio's rigid-body algorithms on UR5, Solo-12 and TALOS: reference numbers and timings.

Writes
- crates/sdrs-dynamics/tests/data/pinocchio/reference.json: per robot, at a few random states
  (q, v, a, tau), the joint-space inertia M (crba), RNEA tau, ABA ddq, the RNEA derivatives
  (dtau/dq, dtau/dv), the ABA derivatives (dddq/dq, dddq/dv, M^-1), a frame's placement and
  LOCAL_WORLD_ALIGNED Jacobian, and the centre of mass with its Jacobian;
- benches/reference/pinocchio_timings.json: per-call microseconds of aba,
  computeABADerivatives, rnea, computeRNEADerivatives, crba and an ABA + semi-implicit Euler
  step, in the "peer" format `cargo xtask bench` reads (see benches/reference/README.md).

A floating base gets six elementary root joints PX, PY, PZ, RX, RY, RZ in a chain (massless
bodies between them), the fixed-base URDF model appended to the last: that is sdrs's free joint
with identity reference rotation, so the coordinates and velocities of both libraries
coincide. (A `JointModelComposite` of the same joints gives the same M, RNEA and ABA, but
Pinocchio 4.1's RNEA/ABA derivatives are wrong for composite joints, whose motion subspace
varies with q: off by up to 25 N·m/rad from its own finite differences on Solo-12.) Pinocchio
orders DoFs depth first, sdrs breadth first: `dof_names` names every column (a 1-DoF joint's
name, `root_joint[k]` for the base) so the Rust test maps them.

The timings use what a Pinocchio user would: the usual `JointModelFreeFlyer` root (quaternion
coordinates) for floating bases.

Usage (see benches/reference/README.md):
    python3 -m venv target/venv-pin && target/venv-pin/bin/pip install pin numpy
    target/venv-pin/bin/python benches/reference/pinocchio_reference.py [--no-timings | --timings-only]
"""

import json
import pathlib
import platform
import sys
import time

import numpy as np
import pinocchio as pin

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "example-robot-data" / "robots"
OUT = ROOT / "crates" / "sdrs-dynamics" / "tests" / "data" / "pinocchio" / "reference.json"
TIMINGS = ROOT / "benches" / "reference" / "pinocchio_timings.json"

# (short name, URDF under robots/, floating base, frame to report)
ROBOTS = [
    ("ur5", "ur_description/urdf/ur5_robot.urdf", False, "tool0"),
    ("solo12", "solo_description/robots/solo12.urdf", True, "FL_FOOT"),
    ("talos", "talos_data/robots/talos_reduced.urdf", True, "left_sole_link"),
]
STATES = 3
SEED = 14


ELEMENTARY = (pin.JointModelPX, pin.JointModelPY, pin.JointModelPZ,
              pin.JointModelRX, pin.JointModelRY, pin.JointModelRZ)


def load(path, floating):
    """The reference model: sdrs's coordinates (see the module docs)."""
    fixed = pin.buildModelFromUrdf(str(DATA / path))
    if not floating:
        return fixed
    base = pin.Model()
    parent = 0
    for k, joint in enumerate(ELEMENTARY):
        parent = base.addJoint(parent, joint(), pin.SE3.Identity(), f"root_joint[{k}]")
    frame = base.addFrame(pin.Frame("root_frame", parent, 0, pin.SE3.Identity(),
                                    pin.FrameType.OP_FRAME))
    return pin.appendModel(base, fixed, frame, pin.SE3.Identity())


def load_for_timing(path, floating):
    """The model a Pinocchio user would time: a free-flyer root for a floating base."""
    urdf = str(DATA / path)
    if floating:
        return pin.buildModelFromUrdf(urdf, pin.JointModelFreeFlyer())
    return pin.buildModelFromUrdf(urdf)


def dof_names(model):
    names = [""] * model.nv
    for joint, name in zip(model.joints[1:], model.names[1:]):
        if joint.nv == 1:
            names[joint.idx_v] = name
        else:
            for k in range(joint.nv):
                names[joint.idx_v + k] = f"{name}[{k}]"
    return names


def symmetric(upper):
    upper = np.triu(upper)
    return upper + np.triu(upper, 1).T


def matrix(m):
    return [list(map(float, row)) for row in np.asarray(m)]


def vector(v):
    return list(map(float, np.asarray(v).ravel()))


def random_state(model, rng):
    # Coordinates within the joints' usual range; the base rotation coordinates stay well
    # inside the chart (|q| < 0.6 rad, far from the Ry = ±π/2 singularity).
    q = rng.uniform(-1.0, 1.0, model.nq)
    v = rng.normal(0.0, 1.0, model.nv)
    a = rng.normal(0.0, 1.0, model.nv)
    tau = rng.normal(0.0, 5.0, model.nv)
    if model.names[1] == "root_joint[0]":
        q[3:6] *= 0.6
    if model.joints[1].nq == 7:  # free flyer: a unit quaternion
        q[:7] = pin.neutral(model)[:7]
    return q, v, a, tau


def reference(name, path, floating, frame_name, rng):
    model = load(path, floating)
    data = model.createData()
    frame = model.getFrameId(frame_name)
    states = []
    for _ in range(STATES):
        q, v, a, tau = random_state(model, rng)
        mass = symmetric(pin.crba(model, data, q))
        rnea = pin.rnea(model, data, q, v, a).copy()
        aba = pin.aba(model, data, q, v, tau).copy()
        dtau_dq, dtau_dv, _ = pin.computeRNEADerivatives(model, data, q, v, a)
        dtau_dq, dtau_dv = dtau_dq.copy(), dtau_dv.copy()
        ddq_dq, ddq_dv, minv = pin.computeABADerivatives(model, data, q, v, tau)
        ddq_dq, ddq_dv, minv = ddq_dq.copy(), ddq_dv.copy(), symmetric(minv)
        pin.computeJointJacobians(model, data, q)
        pin.updateFramePlacements(model, data)
        placement = data.oMf[frame].homogeneous.copy()
        jacobian = pin.getFrameJacobian(model, data, frame, pin.LOCAL_WORLD_ALIGNED).copy()
        com = pin.centerOfMass(model, data, q).copy()
        com_jacobian = pin.jacobianCenterOfMass(model, data, q).copy()
        states.append({
            "q": vector(q), "v": vector(v), "a": vector(a), "tau": vector(tau),
            "mass_matrix": matrix(mass), "rnea": vector(rnea), "aba": vector(aba),
            "dtau_dq": matrix(dtau_dq), "dtau_dv": matrix(dtau_dv),
            "dddq_dq": matrix(ddq_dq), "dddq_dv": matrix(ddq_dv), "minv": matrix(minv),
            "frame_placement": matrix(placement), "frame_jacobian": matrix(jacobian),
            "com": vector(com), "com_jacobian": matrix(com_jacobian),
        })
    # Pinocchio keeps a fixed base's root link on the universe joint and leaves it out of
    # the centre of mass: its COM is that of the subtree below the first joint. (The
    # appended floating models keep the root link on the last root joint.)
    return {
        "urdf": path, "floating_base": floating, "frame": frame_name,
        "gravity": vector(model.gravity.linear), "dof_names": dof_names(model),
        "com_subtree_of_joint": None if floating else model.names[1],
        "states": states,
    }


def per_call_us(call, repeats=7, target_seconds=0.2):
    """Median over `repeats` runs of the mean per-call time of a loop of many calls."""
    call()
    count = 1
    while True:
        start = time.perf_counter()
        for _ in range(count):
            call()
        if time.perf_counter() - start > 0.02:
            break
        count *= 2
    count = max(count, int(count * target_seconds / 0.02 / 2))
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(count):
            call()
        runs.append((time.perf_counter() - start) / count * 1e6)
    return float(np.median(runs))


def timings(name, path, floating, rng):
    model = load_for_timing(path, floating)
    data = model.createData()
    q, v, a, tau = random_state(model, rng)
    dt = 1e-3

    def euler():
        ddq = pin.aba(model, data, q, v, tau)
        v_next = v + dt * ddq
        return pin.integrate(model, q, v_next * dt)

    calls = {
        "aba": lambda: pin.aba(model, data, q, v, tau),
        "aba_derivatives": lambda: pin.computeABADerivatives(model, data, q, v, tau),
        "rnea": lambda: pin.rnea(model, data, q, v, a),
        "rnea_derivatives": lambda: pin.computeRNEADerivatives(model, data, q, v, a),
        "crba": lambda: pin.crba(model, data, q),
        "aba_euler_step": euler,
    }
    return {f"{key}/{name}": per_call_us(call) for key, call in calls.items()}


def binding_overhead_us():
    """Per-call time of `rnea` on a one-DoF pendulum: an upper bound of the Python-to-C++
    overhead each timing above carries."""
    model = pin.Model()
    joint = model.addJoint(0, pin.JointModelRY(), pin.SE3.Identity(), "pendulum")
    model.appendBodyToJoint(joint, pin.Inertia.FromSphere(1.0, 0.1), pin.SE3.Identity())
    data = model.createData()
    q, v = np.zeros(1), np.zeros(1)
    return per_call_us(lambda: pin.rnea(model, data, q, v, v))


def main():
    rng = np.random.default_rng(SEED)
    if "--timings-only" not in sys.argv:
        robots = {}
        for name, path, floating, frame in ROBOTS:
            robots[name] = reference(name, path, floating, frame, rng)
        OUT.parent.mkdir(parents=True, exist_ok=True)
        OUT.write_text(json.dumps({"pinocchio": pin.__version__, "seed": SEED, "robots": robots}))
        print(f"wrote {OUT.relative_to(ROOT)} ({OUT.stat().st_size / 1e6:.2f} MB)")
    if "--no-timings" in sys.argv:
        return
    rows = {}
    for name, path, floating, _ in ROBOTS:
        rows.update(timings(name, path, floating, rng))
    overhead = binding_overhead_us()
    out = {
        "suite": "algorithms",
        "peer": f"Pinocchio {pin.__version__} (C++ through its Python bindings)",
        "measured": time.strftime("%Y-%m-%d"),
        "machine": f"{platform.machine()}, {platform.python_implementation()} {platform.python_version()}",
        "note": f"median of 7 loops of many calls; each call includes the Python binding overhead, "
                f"at most {overhead:.2f} us (rnea on a 1-DoF pendulum)",
        "unit": "us",
        "rows": rows,
    }
    TIMINGS.write_text(json.dumps(out, indent=2) + "\n")
    for key, value in rows.items():
        print(f"{key:40s} {value:8.2f} us")
    print(f"binding overhead <= {overhead:.2f} us")


if __name__ == "__main__":
    main()
