"""Every public call of the package at least once: building, inspecting by name, stepping,
rolling out, differentiating, optimising, trajectory files; shapes, dtypes and the mapping
of Rust errors to Python exceptions."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import sdrs
from scenes import DT, HALF, REST, STEPS, box_world, chain_links, chain_on_ground, push, sliding_box

SCENE = """
dt = 0.01
ground = true
steps = 20

[[object]]
name = "box"
shape = { type = "box", half_extents = [0.1, 0.1, 0.1] }
mass = 1.0
pose = { xyz = [0.0, 0.0, 0.1008] }
"""


def test_world_model_and_names():
    world = sdrs.World(DT)
    world.add_ground()
    world.set_friction(0.5)
    assert world.contact is not None and world.contact.mu == 0.5
    assert world.contact.stiffness > 0.0 and world.contact.skip_adjacent
    world.tolerance = 1e-6
    assert world.tolerance == 1e-6
    assert world.newton_start == "extrapolated"
    world.newton_start = "current"
    assert world.newton_start == "current"
    with pytest.raises(ValueError, match="extrapolated"):
        world.newton_start = "zero"
    assert world.anchored_newton
    world.anchored_newton = False
    assert not world.anchored_newton
    world.anchored_newton = True
    custom = sdrs.ContactSettings(stiffness=2.0, mu=0.3)
    assert (custom.stiffness, custom.mu, custom.skip_adjacent) == (2.0, 0.3, False)
    assert custom.model == "hulls"
    world.gravity = 9.81
    assert world.gravity == 9.81
    box = world.add_object("box", sdrs.Hull.box((HALF, HALF, HALF)), 2.0, xyz=(1.0, 0.0, 0.5))
    arm = world.add_robot(chain_links(2), xyz=(0.0, 0.0, 1.0), prefix="arm_")
    sim = world.build()
    model = sim.model
    assert model.dof == 6 + 2
    assert model.link_names == ["ground", "box", "arm_link0", "arm_link1"]
    assert len(model.joint_names) == 4 and len(model.dof_names) == 8
    assert model.link("arm_link1") == 3 and arm.link(model, "link1") == 3
    assert model.joint_names[3] == "arm_link1 joint"
    assert arm.joint_dofs(model, "link1 joint") == [7] and model.joint_dofs("arm_link0 joint") == [6]
    assert list(box.dofs) == list(range(0, 6)) and box.link == 1
    assert list(arm.dofs) == [6, 7] and list(arm.links) == [2, 3] and arm.prefix == "arm_"
    assert model.parent(3) == 2 and model.parent(2) is None
    masses = model.masses
    assert masses.dtype == np.float64 and masses.shape == (4,) and masses[1] == pytest.approx(2.0)
    v = model.hull_vertices(1, 0)
    assert v.shape == (8, 3) and np.allclose(np.abs(v), HALF)
    assert model.design.dtype == np.float64 and model.design.shape[0] > 0
    moved = model.with_design(model.design)
    assert np.array_equal(moved.design, model.design)
    assert model.neutral().shape == (8,)
    assert sim.dt == DT
    assert "Model(4 links, 8 DoF)" == repr(model)
    hull = sdrs.Hull([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]])
    assert hull.vertices.shape == (4, 3) and "4 vertices" in repr(hull)
    link = sdrs.Link("l", "fixed")
    assert link.name == "l" and "fixed" in repr(link)


def test_unknown_names_raise_key_error_with_the_rust_message():
    sim, _ = box_world()
    with pytest.raises(KeyError, match="no link named 'boxx'.*box"):
        sim.model.link("boxx")
    with pytest.raises(KeyError, match="no joint named"):
        sim.model.joint_dofs("nope")
    with pytest.raises(ValueError, match="unknown joint kind 'hinge'.*allowed"):
        sdrs.Link("l", "hinge")
    with pytest.raises(ValueError, match="needs an axis"):
        sdrs.Link("l", "revolute")


def test_step_and_rollout_shapes_and_dtypes():
    sim, box = box_world()
    model = sim.model
    motion = sdrs.Motion.at_rest(model, np.zeros(6))
    control = sdrs.Control(model)
    report = sim.step(motion, control)
    assert report["iterations"] >= 1 and report["active_pairs"] >= 1
    assert report["damped"] is False
    q = motion.q
    assert q.dtype == np.float64 and q.shape == (6,)
    assert abs(q[2]) < 1e-3  # resting on the ground
    v = motion.velocity(model, DT)
    assert v.shape == (6,)
    thrown = sdrs.Motion.from_velocity(model, np.zeros(6), [1.0, 0, 0, 0, 0, 0], DT)
    assert thrown.velocity(model, DT)[0] == pytest.approx(1.0)
    copy, before = motion.copy(), motion.q
    sim.step(copy, sdrs.Control(model))
    assert np.array_equal(motion.q, before)  # the copy is independent
    controls = []
    for f in push(5):
        u = control.copy()
        force = np.zeros(6)
        force[box.dofs[0]] = f
        u.force = force
        controls.append(u)
    for name in ("kp", "kd", "position", "velocity", "force"):
        assert getattr(control, name).shape == (6,)
    control.kp, control.kd, control.position, control.velocity = [np.zeros(6)] * 4
    t = sim.rollout(motion, controls)
    assert t.steps == 5 and t.states.shape == (6, 6) and t.states.dtype == np.float64
    assert t.target_positions.shape == (5, 6) and t.forces.shape == (5, 6)
    assert t.forces[0, 0] == pytest.approx(push(5)[0])
    assert len(t.iterations) == 5 and len(t.active_pairs) == 5
    assert t.states[-1, 0] > t.states[0, 0]  # pushed along x


def test_bad_shapes_and_nan_raise_value_error():
    sim, _ = box_world()
    model = sim.model
    with pytest.raises(ValueError, match=r"q must have shape \(6,\), got \(3,\)"):
        sdrs.Motion.at_rest(model, np.zeros(3))
    with pytest.raises(ValueError, match="q holds NaN at flat index 1: values must be finite"):
        sdrs.Motion.at_rest(model, [0.0, float("nan"), 0, 0, 0, 0])
    control = sdrs.Control(model)
    with pytest.raises(ValueError, match=r"force must have shape \(6,\)"):
        control.force = np.zeros((2, 3))
    with pytest.raises(ValueError, match="vertices must have shape"):
        sdrs.Hull(np.zeros((4, 2)))
    objective = sliding_box()
    with pytest.raises(ValueError, match=r"c \(policy parameters\) must have shape \(12,\)"):
        objective.evaluate(np.zeros(3))
    with pytest.raises(ValueError, match="must be finite"):
        objective.evaluate(np.full(STEPS, np.inf))
    with pytest.raises(ValueError, match="recording 'all' is unknown"):
        sim.rollout(sdrs.Motion.at_rest(model), [], recording="all")


def test_a_penetrating_start_raises_penetration_error():
    sim, _ = box_world()
    sunk = sdrs.Motion.at_rest(sim.model, [0.0, 0.0, -0.05, 0.0, 0.0, 0.0])
    with pytest.raises(sdrs.PenetrationError, match="links 'ground' and 'box' overlap"):
        sim.step(sunk, sdrs.Control(sim.model))
    assert issubclass(sdrs.PenetrationError, sdrs.SimulationError)
    assert issubclass(sdrs.ConvergenceError, sdrs.SimulationError)


def test_a_step_that_cannot_converge_raises_convergence_error():
    # A box thrown onto the ground at 3 m/s: the impact's step needs more than the one undamped
    # and one damped Newton iteration a cap of 1 allows. (A tolerance below round-off is not
    # an error: a step whose gradient reaches its round-off floor is converged.)
    world = sdrs.World(DT)
    world.add_ground()
    world.max_iterations = 1
    box = world.add_object("box", sdrs.Hull.box((HALF, HALF, HALF)), 1.0, xyz=(0.0, 0.0, REST))
    sim = world.build()
    v = np.zeros(sim.model.dof)
    v[box.dofs[2]] = -3.0
    thrown = sdrs.Motion.from_velocity(sim.model, np.zeros(sim.model.dof), v, DT)
    with pytest.raises(sdrs.ConvergenceError, match="largest residual is on 'box"):
        sim.step(thrown, sdrs.Control(sim.model))
    with pytest.raises(ValueError):
        world.max_iterations = 0


def test_a_tolerance_below_round_off_ends_at_the_round_off_floor():
    world = sdrs.World(DT)
    world.add_ground()
    world.tolerance = 1e-300
    world.add_object("box", sdrs.Hull.box((HALF, HALF, HALF)), 1.0, xyz=(0.0, 0.0, REST))
    sim = world.build()
    motion = sdrs.Motion.at_rest(sim.model)
    for _ in range(5):
        sim.step(motion, sdrs.Control(sim.model))
    assert abs(motion.q[2]) < 1e-3


def test_scene_files_build_and_pickle_as_toml(tmp_path):
    scene = sdrs.Scene.from_str(SCENE)
    setup = scene.build()
    assert setup.steps == 20 and setup.objects == [1] and setup.robots == []
    motion = setup.motion
    for _ in range(setup.steps):
        setup.simulator.step(motion, setup.control)
    assert np.linalg.norm(motion.q[:3]) < 1e-4
    text = scene.to_toml()
    path = tmp_path / "box.toml"
    path.write_text(text)
    again = sdrs.Scene.from_file(str(path))
    assert again.to_toml() == text and str(again.directory) == str(tmp_path)
    clone = pickle.loads(pickle.dumps(scene))
    assert clone.to_toml() == text
    with pytest.raises(ValueError, match="<string>:2"):
        sdrs.Scene.from_str("dt = 0.01\nground = 3\n")
    with pytest.raises(OSError, match="missing.toml"):
        sdrs.Scene.from_file(str(tmp_path / "missing.toml"))


def test_urdf_robots(tmp_path):
    urdf = tmp_path / "arm.urdf"
    urdf.write_text(
        """<robot name="arm">
  <link name="base"><collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision>
    <inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="arm"><collision><geometry><box size="0.05 0.05 0.3"/></geometry></collision>
    <inertial><mass value="0.5"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="arm"/>
    <origin xyz="0 0 0.2"/><axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>"""
    )
    world = sdrs.World(DT)
    robot = world.add_urdf(str(urdf), xyz=(0.0, 0.0, 1.0), prefix="r_")
    model = world.build().model
    assert robot.joint_dofs(model, "shoulder") == [0] and model.link("r_arm") == 1


def test_robot_from_mjcf(tmp_path):
    mjcf = tmp_path / "pendulum.xml"
    mjcf.write_text(
        """<mujoco model="pendulum"><worldbody>
  <geom name="floor" type="plane" size="1 1 0.1"/>
  <body name="arm" pos="0 0 1"><joint name="hinge" type="hinge" axis="0 1 0"/>
    <geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.05"/></body>
</worldbody></mujoco>"""
    )
    world = sdrs.World(DT)
    world.add_ground()
    robot = world.add_mjcf(str(mjcf), prefix="p_")
    model = world.build().model
    assert robot.joint_dofs(model, "hinge") == [0] and model.link("p_arm") == 1
    # Without the world's ground, the MJCF's plane is left out unless `floor` keeps it as a
    # fixed slab of its own.
    bare, kept = sdrs.World(DT), sdrs.World(DT)
    bare.add_mjcf(str(mjcf))
    kept.add_mjcf(str(mjcf), floor=True)
    assert bare.build().model.link_names == ["arm"]
    assert len(kept.build().model.link_names) == 2
    with pytest.raises(Exception, match="nowhere.xml"):
        sdrs.World(DT).add_mjcf(str(tmp_path / "nowhere.xml"))


def test_mjcf_actuators_act_in_a_scene(tmp_path):
    # A scene's MJCF robot feels its actuators under `ctrl` (MuJoCo's order) and its joints'
    # dampers: a 2 kg block on a damped slide, pushed by a motor of gear 2.
    (tmp_path / "slider.xml").write_text(
        """<mujoco model="slider"><worldbody><body name="block">
  <joint name="slide" type="slide" axis="1 0 0" damping="4"/>
  <geom type="box" size="0.1 0.1 0.1" mass="2"/></body></worldbody>
  <actuator><motor joint="slide" gear="2"/></actuator></mujoco>"""
    )
    text = """dt = 0.01
gravity = 0.0
[contact]
model = "none"
[[robot]]
mjcf = "slider.xml"
ctrl = [0.5]
"""
    setup = sdrs.Scene.from_str(text, tmp_path).build()
    assert setup.control.force[0] == 1.0
    assert setup.control.kd[0] == 4.0  # MuJoCo's damping, N·s/m
    motion = setup.motion
    for _ in range(1000):
        setup.simulator.step(motion, setup.control)
    # The damper's terminal speed F / c = 1 / 4.
    assert motion.velocity(setup.simulator.model, 0.01)[0] == pytest.approx(0.25, rel=1e-5)
    with pytest.raises(Exception, match="1 actuator, in this order"):
        sdrs.Scene.from_str(text.replace("[0.5]", "[0.5, 1.0]"), tmp_path).build()
    # A new ctrl for the scene's robot, from Python.
    slider = setup.robots[0]
    assert slider.actuators == ["(unnamed) on slide"]
    control = setup.control
    slider.set_ctrl(control, [-1.0])
    assert control.force[0] == -2.0 and control.kd[0] == 4.0


def test_mjcf_actuators_act_through_a_worlds_control(tmp_path):
    # A World's MJCF robot writes its actuators and dampers into a Control at its own
    # coordinates: a 2 kg block on a damped slide, behind a free box, pushed by a motor of
    # gear 2 and held by nothing else.
    (tmp_path / "slider.xml").write_text(
        """<mujoco model="slider"><worldbody><body name="block">
  <joint name="slide" type="slide" axis="1 0 0" damping="4"/>
  <geom type="box" size="0.1 0.1 0.1" mass="2"/></body></worldbody>
  <actuator><motor name="push" joint="slide" gear="2"/></actuator></mujoco>"""
    )
    world = sdrs.World(DT)
    world.gravity = 0.0
    box = world.add_object("box", sdrs.Hull.box([0.1, 0.1, 0.1]), 1.0, xyz=(0.0, 3.0, 0.0))
    slider = world.add_mjcf(str(tmp_path / "slider.xml"), prefix="s_")
    assert slider.actuators == ["push on slide"] and list(slider.dofs) == [6]
    sim = world.build()
    control = sdrs.Control(sim.model)
    slider.set_ctrl(control, [0.5])
    assert control.force[6] == 1.0 and control.kd[6] == 4.0
    assert not control.force[list(box.dofs)].any() and not control.kd[:6].any()
    motion = sdrs.Motion.at_rest(sim.model, None)
    for _ in range(1000):
        sim.step(motion, control)
    # The damper's terminal speed F / c = 1 / 4; the box stays put.
    velocity = motion.velocity(sim.model, DT)
    assert velocity[6] == pytest.approx(0.25, rel=1e-5) and abs(velocity[:6]).max() < 1e-12
    with pytest.raises(Exception, match="2 controls given; the file has 1 actuator"):
        slider.set_ctrl(control, [0.5, 1.0])
    # A Control of another world, too short for the slider's coordinates.
    other = sdrs.World(DT)
    other.add_object("box", sdrs.Hull.box([0.1, 0.1, 0.1]), 1.0)
    with pytest.raises(Exception, match="at least 7 entries; it has 6"):
        slider.set_ctrl(sdrs.Control(other.build().model), [0.5])
    arm = sdrs.World(DT).add_robot(chain_links())
    assert arm.actuators == []
    with pytest.raises(ValueError, match="did not come from an MJCF file"):
        arm.set_ctrl(control)


def test_policies_adjoint_tangent_and_trajectory_files(tmp_path):
    objective = chain_on_ground()
    sim_world = sdrs.World(DT)
    sim_world.add_ground()
    sim_world.add_robot(chain_links(), xyz=(0.0, 0.0, 0.27))
    sim = sim_world.build()
    model = sim.model
    base = sdrs.Control(model)
    base.kp = [10.0, 0.0, 0.0]  # N·m/rad
    start = sdrs.Motion.at_rest(model, [0.3, 0.2, 0.2])
    spline = sdrs.CubicSpline(base, [0], 4, STEPS * DT)
    waves = sdrs.SineWaves(base, [0], 1)
    open_loop = sdrs.OpenLoop(base, [0], STEPS)
    assert isinstance(spline, sdrs.Policy) and spline.parameters == 4 and waves.parameters == 3
    assert np.array_equal(open_loop.initial(), np.zeros(STEPS))
    assert "CubicSpline" in repr(spline)
    t = sim.rollout_policy(start, waves, [0.2, 1.0, 0.0], STEPS)
    assert t.states.shape == (STEPS + 1, 3)
    t = sim.rollout_policy(start, spline, [0.0, 0.2, 0.4, 0.6], STEPS)
    dl = np.zeros((STEPS + 1, 3))
    dl[-1, 0] = 1.0
    g = sim.adjoint(t, dl)
    assert g.parameters.shape == (4,) and g.initial.shape == (3,)
    assert g.target_position.shape == (STEPS, 3) and g.force.shape == (STEPS, 3)
    assert g.initial_previous.shape == (6 * len(model.link_names),) and g.design.shape == model.design.shape
    seeds = np.zeros((3, 4))
    j = sim.tangent(t, seeds, parameters=np.eye(4))
    assert j.shape == (STEPS + 1, 3, 4)
    # Forward and reverse mode agree: dθ^H_0/dc.
    assert np.allclose(j[-1, 0, :], g.parameters, rtol=1e-8, atol=1e-12)
    jd = sim.tangent(t, np.zeros((3, 1)), design=np.ones((model.design.shape[0], 1)))
    assert jd.shape == (STEPS + 1, 3, 1)
    path = tmp_path / "chain.jsonl"
    t.save(model, DT, str(path))
    loaded = sdrs.load_trajectory(str(path))
    assert loaded["dt"] == DT and loaded["dofs"] == model.dof_names
    assert np.array_equal(loaded["states"], t.states)
    t.save(model, DT, str(tmp_path / "chain.npz"))
    assert np.load(tmp_path / "chain.npz") is not None
    assert objective.steps == STEPS and objective.parameters == STEPS


def test_objective_losses_design_and_optimisers():
    from scenes import designed_box

    objective = designed_box()
    assert objective.design_parameters == 2
    e = objective.evaluate(push(), [0.0, 0.0])
    assert e.loss == pytest.approx(float(np.sum(push() ** 2)))
    assert e.parameters.shape == (STEPS,) and e.design.shape == (2,) and e.initial.shape == (6,)
    assert e.states.shape == (STEPS + 1, 6) and len(e.active_pairs) == STEPS
    assert objective.model([0.01, 0.0]).hull_vertices(1, 0).shape == (8, 3)
    sim, box = box_world()
    model = sim.model
    corner = sdrs.LinkPoint.fixed(model, "box", (HALF, 0.0, 0.0))
    centre = sdrs.LinkPoint.vertex_mean(model, "box", 0, list(range(8)))
    losses = sdrs.Sum(
        [
            (1.0, sdrs.PointTarget(corner, (0.5, 0.0, 0.1))),
            (0.5, sdrs.PointTarget(centre, (0.5, 0.0, 0.1), every_step=True)),
            (0.1, sdrs.CentreOfMass(model, (0.5, 0.0, 0.1), links=["box"])),
            (0.1, sdrs.CentreOfMass(model, (0.5, 0.0, 0.1), every_step=True)),
            (0.2, sdrs.Distance(corner, centre, 0.05)),
            (1e-3, sdrs.Effort(torque=1.0, target_change=1.0)),
        ]
    )
    assert isinstance(losses, sdrs.Loss)
    design = sdrs.DesignMap(model, 1)
    design.attachment(model, "box", 0, 0, 1.0)
    design.set(0, 0, 1.0)
    assert design.parameters == 1 and design.design([0.1]).shape == model.design.shape
    policy = sdrs.OpenLoop(sdrs.Control(model), [box.dofs[0]], STEPS, channel="force")
    objective = sdrs.Objective(sim, policy, losses, STEPS, design=design, recording="blocks")
    e = objective.evaluate(push(), [0.0])
    assert np.isfinite(e.loss) and e.design.shape == (1,)
    adam = sdrs.Adam(2, 0.1)
    x = adam.step([1.0, 1.0], [1.0, -1.0])
    assert np.allclose(x, [0.9, 1.1])
    boxed = sdrs.Adam(2, 0.1, lower=[0.95, -1e9], upper=[1e9, 1e9])
    assert np.allclose(boxed.step([1.0, 1.0], [1.0, -1.0]), [0.95, 1.1])
    with pytest.raises(ValueError, match="lower bound must not exceed"):
        sdrs.Adam(1, 0.1, lower=[1.0], upper=[0.0])
    decaying = sdrs.Adam(1, 0.1, decay_to=0.01, decay_over=2)
    assert decaying.learning_rate == pytest.approx(0.1)
    assert np.allclose(decaying.step([0.0], [1.0]), [-0.1])
    assert decaying.learning_rate == pytest.approx(0.01)  # 0.1 * 0.01^(1/2)
    with pytest.raises(ValueError, match=r"in \(0, 1\]"):
        sdrs.Adam(1, 0.1, decay_to=0.0, decay_over=2)
    with pytest.raises(ValueError, match="both decay_to and decay_over"):
        sdrs.Adam(1, 0.1, decay_to=0.5)
    d = sdrs.projected_step(np.zeros(2), np.ones(2), 0.5, -np.ones(2), np.full(2, 0.1))
    assert np.linalg.norm(d) == pytest.approx(0.5)
    block = sdrs.Block(np.full(STEPS, -10.0), np.full(STEPS, 10.0), 0.5, 2.0)
    best = sdrs.minimise(objective, [push()], [block], 3)
    assert isinstance(best, sdrs.Optimum) and len(best.history) == 4
    assert best.loss <= best.history[0] and best.parameters[0].shape == (STEPS,)
    assert best.failures == []  # (iteration, why) of each trial the rollout failed at
    with pytest.raises(ValueError, match="1 block .* or 2"):
        sdrs.minimise(objective, [], [], 3)


@pytest.mark.parametrize(
    "settings",
    [
        dict(model="hulls", support=1e-3, stiffness=0.1),
        dict(model="long_range", epsilon=0.5, stiffness=1e-8),
        dict(model="long_range", epsilon=0.5, stiffness=1e-8, far_field="counted"),
        dict(model="ipc", support=1e-2, stiffness=1e2),
    ],
)
def test_every_contact_model_holds_a_box_above_the_ground(settings):
    contact = sdrs.ContactSettings(**settings)
    assert contact.model == settings["model"] and contact.stiffness == settings["stiffness"]
    long_range = settings["model"] == "long_range"
    assert contact.far_field == (settings.get("far_field", "centred") if long_range else None)
    world = sdrs.World(DT)
    world.add_ground()
    world.set_contact(contact)
    drop = 0.05
    world.add_object("box", sdrs.Hull.box((HALF, HALF, HALF)), 1.0, xyz=(0.0, 0.0, HALF + drop))
    sim = world.build()
    motion = sdrs.Motion.at_rest(sim.model)  # coordinates relative to the placement
    control = sdrs.Control(sim.model)
    for _ in range(60):
        report = sim.step(motion, control)
    # It fell 5 cm and stopped on the ground (within 5 mm: each model's own rest distance).
    height = HALF + drop + motion.q[2]
    assert report["active_pairs"] == 1 and HALF - 1e-4 < height < HALF + 5e-3


def test_contact_settings_errors_name_the_model_and_its_parameters():
    with pytest.raises(ValueError, match="unknown: use 'hulls', 'long_range' or 'ipc'"):
        sdrs.ContactSettings(model="springs")
    with pytest.raises(ValueError, match="'long_range' needs `epsilon`"):
        sdrs.ContactSettings(model="long_range")
    with pytest.raises(ValueError, match="'ipc' needs `support`"):
        sdrs.ContactSettings(model="ipc")
    with pytest.raises(ValueError, match="takes no `epsilon`"):
        sdrs.ContactSettings(model="hulls", epsilon=0.1)
    with pytest.raises(ValueError, match="takes no `far_field`"):
        sdrs.ContactSettings(model="hulls", far_field="counted")
    with pytest.raises(ValueError, match="use 'centred' or 'counted'"):
        sdrs.ContactSettings(model="long_range", epsilon=0.5, far_field="near")
    with pytest.raises(ValueError):
        sdrs.ContactSettings(model="ipc", support=-1.0)


def test_anchored_and_exact_newton_directions_reach_the_same_steps():
    """The chain swinging into the ground with friction, solved to 1e-9 with exact Newton
    directions and with the force-anchored ones (the default): the same states within the
    tolerance's reach, in no more iterations."""
    from scenes import chain_over_ground

    exact = chain_over_ground(1e-9)  # anchored_newton = False
    world = sdrs.World(DT)
    world.add_ground()
    world.set_friction(0.3)
    world.tolerance = 1e-9
    world.newton_start = "current"
    world.add_robot(chain_links(), xyz=(0.0, 0.0, 0.27))
    anchored = world.build()
    start = sdrs.Motion.at_rest(exact.model, [1.0, 0.8, 0.5])
    control = sdrs.Control(exact.model)
    runs = [sim.rollout(start, [control] * 40) for sim in (exact, anchored)]
    states = [np.asarray(run.states) for run in runs]
    assert np.abs(states[0] - states[1]).max() < 1e-9  # 4.4e-12 measured
    assert sum(runs[1].iterations) <= sum(runs[0].iterations)
