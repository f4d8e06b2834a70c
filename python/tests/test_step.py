"""sdrs.StepBatch and sdrs.torch.step: a batched step whose backward pass is each step's
implicit-function-theorem product, checked by torch.autograd.gradcheck through friction,
a design change and a policy network, and against the simulator's own rollouts.

As in test_gradcheck.py, every step is solved to 1e-9 from θ^t (``newton_start =
"current"``) and the differences step by 1e-8; each function gradcheck differentiates
resets the batch's warm starts first, so that it depends on its inputs alone."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import sdrs  # noqa: E402
import sdrs.torch  # noqa: E402
from scenes import DT, HALF, REST, chain_over_ground  # noqa: E402

TOLERANCES = dict(eps=1e-8, atol=1e-5, rtol=1e-3)


def tensor(x) -> torch.Tensor:
    return torch.tensor(np.asarray(x, dtype=np.float64), requires_grad=True)


def sliding_boxes() -> tuple:
    """Two boxes resting on the ground with friction (μ 0.5; coordinates are relative to the
    box's attachment, where it rests), turned 0.3 and −0.2 rad about z and sliding along x at
    0.5 and 0.3 m/s: (batch, q_prev, q)."""
    world = sdrs.World(DT)
    world.add_ground()
    world.set_friction(0.5)
    # Tighter than test_gradcheck's 1e-9: the box's rotational inertia is small, so a yaw
    # solved to a gradient of 1e-9 is off by 1e-11 rad, a 1e-3 error in differences of 1e-8.
    world.tolerance = 1e-12
    world.newton_start = "current"
    world.add_object("box", sdrs.Hull.box((HALF, HALF, HALF)), 1.0, xyz=(0.0, 0.0, REST))
    batch = sdrs.StepBatch(world.build(), 2)
    q = np.array([[0.0, 0.0, 0.0, 0.0, 0.0, 0.3], [0.5, 0.2, 0.0, 0.0, 0.0, -0.2]])
    q_prev = q.copy()
    q_prev[:, 0] -= np.array([0.5, 0.3]) * DT
    return batch, q_prev, q


def roll(batch, q_prev, q, steps, **controls):
    """`steps` steps from a cold start: the final coordinates."""
    batch.reset()
    for _ in range(steps):
        q_prev, q = q, sdrs.torch.step(batch, q_prev, q, **controls)
    return q


def test_steps_through_friction_pass_gradcheck():
    batch, q_prev, q = sliding_boxes()
    # Pushes along x (below what friction holds on the second box). Not a torque on a free
    # joint's rotation coordinates: see `sdrs.torch.step` on why those are first-order only.
    force = np.zeros((2, 6))
    force[:, 0] = [6.0, 2.0]
    assert batch.step_record(q_prev, q, force=force)[1].active_pairs == [1, 1]
    # The final translations: a flat box's yaw is stiff in its roll (a roll shifts the load
    # between its edges, and their friction turns it: d yaw / d roll ≈ −100), too nonlinear
    # for differences of 1e-8 to resolve to gradcheck's tolerance (1% off at 1e-8). The
    # angles' derivatives are checked in Rust (tests/coordinate_step.rs).
    f = lambda a, b, u: roll(batch, a, b, 3, force=u)[:, :3]  # noqa: E731
    inputs = (tensor(q_prev), tensor(q), tensor(force))
    final = f(*inputs)
    assert final[0, 0] > q[0, 0] + 3 * 0.5 * DT * 0.9  # pushed harder than friction holds
    assert torch.autograd.gradcheck(f, inputs, **TOLERANCES)


def test_a_design_change_passes_gradcheck():
    """The boxes' bottom vertices moved along x and down by two parameters, the design vector
    built in torch as d0 + B p."""
    batch, q_prev, q = sliding_boxes()
    model = batch.model
    vertices = model.hull_vertices(model.link("box"), 0)
    bottom = [v for v in range(len(vertices)) if vertices[v, 2] < 0.0]
    design = sdrs.DesignMap(model, 2)
    design.hull_vertices(model, "box", 0, bottom, (1.0, 0.0, 0.0), 0)
    design.hull_vertices(model, "box", 0, bottom, (0.0, 0.0, -1.0), 1)
    d0 = torch.from_numpy(design.design([0.0, 0.0]))
    basis = torch.from_numpy(np.stack([design.design(e) for e in np.eye(2)], axis=1)) - d0[:, None]
    f = lambda p, a, b: roll(batch, a, b, 2, design=d0 + basis @ p)[:, :3]  # noqa: E731
    inputs = (tensor([0.0, 0.0]), tensor(q_prev), tensor(q))
    assert torch.autograd.gradcheck(f, inputs, **TOLERANCES)


def chain_batch(size: int = 2, gradients: bool = True) -> tuple:
    """3-link chains hanging 27 cm above the ground (their tips reach it when they swing), PD
    stiffness 10 N·m/rad and damping 0.1 N·m·s/rad on every joint: (simulator, batch)."""
    sim = chain_over_ground(1e-9)
    batch = sdrs.StepBatch(sim, size, gradients=gradients)
    control = batch.control
    control.kp = [10.0, 10.0, 10.0]
    control.kd = [0.1, 0.1, 0.1]
    batch.control = control
    return sim, batch


def test_a_policy_network_gets_its_gradient_through_the_steps():
    """A one-layer tanh policy reads each chain's state and sets its PD targets; its weights'
    gradient through 6 steps of contact passes gradcheck."""
    _, batch = chain_batch()
    q0 = torch.tensor([[0.3, 0.2, 0.2], [1.0, 0.8, 0.5]], dtype=torch.float64)

    def f(weights: torch.Tensor) -> torch.Tensor:
        batch.reset()
        q_prev, q = q0, q0
        for _ in range(6):
            state = torch.cat([q, (q - q_prev) / DT], dim=1)
            target = torch.tanh(state @ weights)
            q_prev, q = q, sdrs.torch.step(batch, q_prev, q, position=target)
        return q

    weights = tensor(0.3 * np.sin(np.arange(18.0)).reshape(6, 3))
    assert torch.autograd.gradcheck(f, (weights,), eps=1e-6, atol=1e-5, rtol=1e-3)
    f(weights).sum().backward()
    assert weights.grad is not None and weights.grad.abs().max() > 0.0


def test_steps_are_the_simulators_rollout():
    """Ten steps of the batch from rest give the states of `Simulator.rollout` under the same
    control, for each environment."""
    sim, batch = chain_batch()
    starts = np.array([[0.3, 0.2, 0.2], [1.0, 0.8, 0.5]])
    q_prev = q = torch.from_numpy(starts)
    with torch.no_grad():
        for _ in range(10):
            q_prev, q = q, sdrs.torch.step(batch, q_prev, q)
    for b in range(2):
        trajectory = sim.rollout(sdrs.Motion.at_rest(sim.model, starts[b]), [batch.control] * 10)
        np.testing.assert_allclose(q[b].numpy(), trajectory.states[-1], rtol=0, atol=1e-12)


def test_bad_input_gets_a_clear_error():
    _, batch = chain_batch()
    q = np.zeros((2, 3))
    with pytest.raises(ValueError, match=r"q must have shape \(2, 3\)"):
        batch.step(q, np.zeros((3, 3)))
    with pytest.raises(ValueError, match="force .* finite"):
        batch.step(q, q, force=np.full((2, 3), np.nan))
    sunk = np.array([[1.0, 0.8, 0.5], [0.0, 0.0, 0.0]])  # the second chain hangs into the ground
    with pytest.raises(sdrs.PenetrationError, match="environment 1"):
        batch.step(sunk, sunk)
    _, forward_only = chain_batch(gradients=False)
    with pytest.raises(RuntimeError, match="gradients=False"):
        sdrs.torch.step(forward_only, tensor(q), tensor(q))
    # Forward-only batches step the same as differentiable ones.
    bent = np.array([[0.3, 0.2, 0.2], [1.0, 0.8, 0.5]])
    batch.reset()
    np.testing.assert_array_equal(forward_only.step(bent, bent), batch.step(bent, bent))


def test_a_motion_as_a_coordinate_pair_steps_as_the_simulator_steps_it():
    """A box thrown and spinning about all three axes, as `Motion.coordinate_pair`, steps in a
    batch where `Simulator.step` takes the motion itself."""
    world = sdrs.World(DT)
    world.gravity = 0.0
    world.add_object("box", sdrs.Hull.box((HALF, HALF, HALF)), 1.0)
    sim = world.build()
    q = np.array([0.1, 0.2, 0.3, 0.4, -0.5, 0.6])
    motion = sdrs.Motion.from_velocity(sim.model, q, [1.0, 0.0, 0.5, 2.0, -1.0, 3.0], DT)
    q_prev, q_now = motion.coordinate_pair(sim.model)
    np.testing.assert_allclose(q_now, q, atol=1e-12)
    batch = sdrs.StepBatch(sim, 1)
    q_next = batch.step(q_prev[None, :], q_now[None, :])[0]
    sim.step(motion, sdrs.Control(sim.model))
    np.testing.assert_allclose(motion.coordinate_pair(sim.model)[1], q_next, atol=1e-9)
