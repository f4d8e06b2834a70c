"""URDF robots from example-robot-data through `World.add_urdf`'s options (a floating base,
package paths, an SRDF), and PD gains in SI units."""

import math
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
import sdrs

ROOT = Path(__file__).resolve().parents[2]
SOLO = "example-robot-data/robots/solo_description"


def robot_data():
    """The folder holding `example-robot-data/` as `sdrs-robot-data` finds it: `$SDRS_ROBOT_DATA`,
    the shared data beside the workspace, or the copy the Rust tests fetch into
    `target/robot-data/share` (`cargo xtask test` runs them first)."""
    candidates = [os.environ.get("SDRS_ROBOT_DATA"), ROOT.parent / "shared", ROOT / "target/robot-data/share"]
    for folder in candidates:
        if folder and (Path(folder) / SOLO).is_dir():
            return Path(folder)
    if os.environ.get("CI") in ("true", "1"):
        pytest.fail("example-robot-data is missing (cargo test -p sdrs-robot-data fetches it)")
    pytest.skip("example-robot-data is missing: run `cargo test -p sdrs-robot-data` to fetch it")


def solo12(world, **options):
    data = robot_data()
    return world.add_urdf(data / SOLO / "robots/solo12.urdf", **options)


def test_a_floating_solo12_with_package_paths_and_its_srdf_falls_freely():
    data = robot_data()
    world = sdrs.World(0.01)
    solo = solo12(
        world,
        xyz=(0.0, 0.0, 1.0),
        floating=True,
        package_paths=[data],
        srdf=data / SOLO / "srdf/solo.srdf",
    )
    assert len(solo.dofs) == 18  # the free base's 6 and 12 joints
    assert "standing" in solo.group_states
    standing = solo.group_state("standing")
    # The state lists the root joint's height (0.235 m) and the legs' angles.
    assert standing.shape == (18,) and standing[2] == pytest.approx(0.235)
    assert abs(standing[6:]).max() > 0.5
    sim = world.build()
    model = sim.model
    q = np.zeros(model.dof)
    q[list(solo.dofs)] = standing
    control = sdrs.Control(model)
    joints = list(solo.dofs)[6:]
    kp, kd, target = control.kp, control.kd, control.position
    kp[joints], kd[joints], target[joints] = 5.0, 0.15, standing[6:]  # N·m/rad, N·m·s/rad
    control.kp, control.kd, control.position = kp, kd, target
    motion = sdrs.Motion.at_rest(model, q)
    steps = 20
    for _ in range(steps):
        sim.step(motion, control)
    # No ground: the base falls, g Δt² n (n + 1) / 2 after n steps from rest (the legs' limits
    # move the hind hips by 0.1 rad, which moves the base a little against the centre of mass).
    fall = standing[2] - motion.q[2]
    assert fall == pytest.approx(9.81 * 0.01**2 * steps * (steps + 1) / 2, rel=2e-2)


def test_the_srdf_says_whether_the_base_floats_unless_floating_is_given():
    # A1's SRDF declares a floating virtual joint; Solo's declares none.
    data = robot_data()
    a1 = data / "example-robot-data/robots/a1_description"
    urdf, srdf = a1 / "urdf/a1.urdf", a1 / "srdf/a1.srdf"
    fixed = sdrs.World(0.01).add_urdf(urdf, package_paths=[data])
    from_srdf = sdrs.World(0.01).add_urdf(urdf, package_paths=[data], srdf=srdf)
    forced = sdrs.World(0.01).add_urdf(urdf, package_paths=[data], srdf=srdf, floating=False)
    assert (len(fixed.dofs), len(from_srdf.dofs), len(forced.dofs)) == (12, 18, 12)
    solo = solo12(sdrs.World(0.01), package_paths=[data], srdf=data / SOLO / "srdf/solo.srdf")
    assert len(solo.dofs) == 12
    assert fixed.group_states == []
    with pytest.raises(ValueError, match="no SRDF"):
        fixed.group_state("standing")
    with pytest.raises(KeyError, match="standing"):
        from_srdf.group_state("sitting")


def test_srdf_entries_the_robot_cannot_take_are_skipped_with_a_warning(tmp_path):
    # As Pinocchio's SRDF reader does: a joint the URDF lacks (romeo.srdf's toes) is skipped
    # with a UserWarning naming the file and line, and the rest of the state applies.
    data = robot_data()
    srdf = (data / SOLO / "srdf/solo.srdf").read_text()
    srdf = srdf.replace(
        '<group_state name="standing" group="all_legs">',
        '<group_state name="standing" group="all_legs">\n    <joint name="LToePitch" value="0.2"/>',
    )
    assert "LToePitch" in srdf
    path = tmp_path / "solo.srdf"
    path.write_text(srdf)
    solo = solo12(sdrs.World(0.01), floating=True, package_paths=[data], srdf=path)
    with pytest.warns(UserWarning, match="joint 'LToePitch'.*entry skipped"):
        standing = solo.group_state("standing")
    assert standing[2] == pytest.approx(0.235)


def test_package_uris_are_found_through_package_paths(tmp_path):
    # A copy of the URDF outside the data's folders: its `package://example-robot-data/...`
    # meshes are found through `package_paths` only.
    data = robot_data()
    urdf = tmp_path / "solo12.urdf"
    shutil.copy(data / SOLO / "robots/solo12.urdf", urdf)
    robot = sdrs.World(0.01).add_urdf(urdf, floating=True, package_paths=[data])
    assert len(robot.dofs) == 18
    with pytest.raises(Exception, match="example-robot-data"):
        sdrs.World(0.01).add_urdf(urdf, floating=True)


def test_gains_are_si_and_bad_ones_are_refused_naming_their_units():
    # A 1 kg point on a slide under 100 N/m and 20 N·s/m (critically damped, ω = 10 rad/s)
    # moves as the damped oscillator x'' = -100 x - 20 x' does.
    world = sdrs.World(0.0005)
    world.gravity = 0.0
    block = sdrs.Hull.box((0.05, 0.05, 0.05))
    world.add_robot([sdrs.Link("slider", "prismatic", axis=(1.0, 0.0, 0.0), hulls=[block], mass=1.0)])
    sim = world.build()
    control = sdrs.Control(sim.model)
    control.kp, control.kd, control.position = [100.0], [20.0], [0.1]
    motion = sdrs.Motion.at_rest(sim.model, [0.0])
    for _ in range(600):
        sim.step(motion, control)
    t = 0.3
    exact = 0.1 * (1.0 - (1.0 + 10.0 * t) * math.exp(-10.0 * t))
    assert motion.q[0] == pytest.approx(exact, rel=2e-2)
    with pytest.raises(ValueError, match="N·m/rad"):
        control.kp = [-1.0]
    with pytest.raises(ValueError, match=r"N·m·s/rad"):
        control.kd = [float("nan")]
    assert control.kp[0] == 100.0 and control.kd[0] == 20.0


def slide(force, creep=None, **joint):
    """A 1 kg block on a slide along x, without gravity, pushed by ``force`` (N) for 0.2 s from
    rest; ``joint`` is its friction or armature, ``creep`` the world's
    ``joint_friction_velocity``. Returns how far it went (m)."""
    world = sdrs.World(0.01)
    world.gravity = 0.0
    if creep is not None:
        world.joint_friction_velocity = creep
    block = sdrs.Hull.box((0.05, 0.05, 0.05))
    world.add_robot([sdrs.Link("slider", "prismatic", axis=(1.0, 0.0, 0.0), hulls=[block], mass=1.0, **joint)])
    sim = world.build()
    control = sdrs.Control(sim.model)
    control.force = [force]
    motion = sdrs.Motion.at_rest(sim.model, [0.0])
    for _ in range(20):
        sim.step(motion, control)
    return motion.q[0]


def test_joint_friction_and_armature_act_as_in_mujoco():
    # Dry friction of 2 N: a 1 N push barely creeps; a 4 N push moves the block as 2 N
    # would without friction. A 1 kg rotor (armature) on the slide halves the acceleration.
    assert abs(slide(1.0, friction=2.0)) < 1e-4
    assert slide(4.0, friction=2.0) == pytest.approx(slide(2.0), rel=1e-4)
    assert slide(2.0, armature=1.0) == pytest.approx(0.5 * slide(2.0), rel=1e-6)
    # Held below its friction it creeps at about ε τ/√(f² − τ²): ε = 1e-2 m/s creeps 100 times
    # as far as the default 1e-4 (1.15e-3 m in 0.2 s against 1.15e-5 m, less the start).
    slow, fast = slide(1.0, friction=2.0), slide(1.0, creep=1e-2, friction=2.0)
    assert fast == pytest.approx(100.0 * slow, rel=0.05)
    assert sdrs.World(0.01).joint_friction_velocity == 1e-4
    with pytest.raises(ValueError, match="joint_friction_velocity"):
        sdrs.World(0.01).joint_friction_velocity = 0.0
    with pytest.raises(Exception, match="friction"):
        slide(1.0, friction=-1.0)
    world = sdrs.World(0.01)
    world.add_robot([sdrs.Link("ball", "spherical", hulls=[sdrs.Hull.box((0.05, 0.05, 0.05))], armature=0.1)])
    with pytest.raises(Exception, match="armature .* on a revolute or prismatic joint"):
        world.build()


def test_urdf_dynamics_friction_is_read_when_asked(tmp_path):
    # A one-joint URDF whose joint carries <dynamics friction="0.4">: read as the joint's dry
    # friction with joint_friction=True, left alone by default, as in the Rust loader.
    urdf = tmp_path / "hinge.urdf"
    urdf.write_text(
        """<robot name="hinge"><link name="base"/>
          <link name="arm"><inertial><mass value="1"/>
            <inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial>
            <collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision></link>
          <joint name="hinge" type="continuous"><parent link="base"/><child link="arm"/>
            <axis xyz="0 0 1"/><dynamics friction="0.4"/></joint></robot>"""
    )

    def turned(read):
        world = sdrs.World(0.01)
        world.gravity = 0.0
        world.add_urdf(urdf, joint_friction=read)
        sim = world.build()
        control = sdrs.Control(sim.model)
        control.force = [0.2]
        motion = sdrs.Motion.at_rest(sim.model, [0.0])
        for _ in range(20):
            sim.step(motion, control)
        return motion.q[0]

    # Held by half its friction the joint creeps; without reading it, it turns freely.
    assert abs(turned(True)) < 1e-4
    assert turned(False) > 0.01
