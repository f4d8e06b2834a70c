"""sdrs.torch.TorchPolicy: a torch module as a policy of the Rust rollouts, objectives and
batches. Its parameter gradient through `sdrs.torch.rollout` equals the one taken by chaining
`sdrs.torch.step` under the same module; batches agree with single evaluations; forward mode
agrees with reverse mode; an exception in the module is raised after the rollout."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import sdrs  # noqa: E402
import sdrs.torch  # noqa: E402
from scenes import chain_over_ground  # noqa: E402

STEPS = 15
Q0 = np.array([0.6, 0.4, 0.3])


def chain() -> sdrs.Simulator:
    """The 3-link chain over the ground, solved to 1e-10."""
    return chain_over_ground(1e-10)


def torch_policy(sim, features=None):
    """A tanh layer from the state (6 features) to the PD targets of joints 0 and 1."""
    torch.manual_seed(0)
    module = torch.nn.Sequential(torch.nn.Linear(6, 2), torch.nn.Tanh()).double()
    base = sdrs.Control(sim.model)
    base.kp, base.kd = [10.0, 10.0, 0.0], [0.1, 0.1, 0.0]
    return sdrs.torch.TorchPolicy(module, sim.model, base, dofs=[0, 1], features=features), base


WEIGHTS = torch.tensor([1.0, -0.5, 0.25], dtype=torch.float64)


def test_the_rollouts_gradient_is_that_of_chained_steps():
    sim = chain()
    policy, base = torch_policy(sim)
    objective = sdrs.Objective(sim, policy.policy, sdrs.Effort(), STEPS, start=Q0)
    c = torch.tensor(policy.initial(), requires_grad=True)
    states = sdrs.torch.rollout(objective, c)
    (states[-1] @ WEIGHTS).backward()
    # The same motion stepped by sdrs.torch.step under the module itself.
    batch = sdrs.StepBatch(sim, 1)
    batch.control = base
    q_prev = q = torch.tensor(Q0)[None, :]
    for _ in range(STEPS):
        position = policy.values(torch.nn.utils.parameters_to_vector(policy.module.parameters()), q[0], q_prev[0])
        q_prev, q = q, sdrs.torch.step(batch, q_prev, q, position=position[None, :])
    np.testing.assert_allclose(q[0].detach().numpy(), states[-1].detach().numpy(), rtol=0, atol=1e-12)
    (q[0] @ WEIGHTS).backward()
    by_steps = torch.cat([p.grad.reshape(-1) for p in policy.module.parameters()])
    assert c.grad.abs().max() > 1e-3
    np.testing.assert_allclose(c.grad.numpy(), by_steps.numpy(), rtol=1e-7, atol=1e-10)


def test_batches_on_threads_agree_with_single_evaluations():
    sim = chain()
    policy, _ = torch_policy(sim)
    objective = sdrs.Objective(sim, policy.policy, sdrs.Effort(torque=1.0), STEPS, start=Q0)
    cs = policy.initial()[None, :] + 0.1 * np.random.default_rng(0).standard_normal((3, policy.policy.parameters))
    losses, dc, _ = sdrs.evaluate_batch(objective, cs, threads=2)
    for b in range(3):
        e = objective.evaluate(cs[b])
        assert losses[b] == e.loss
        np.testing.assert_array_equal(dc[b], e.parameters)


def test_forward_mode_agrees_with_reverse_mode():
    sim = chain()
    policy, _ = torch_policy(sim)
    c = policy.initial()
    start = sdrs.Motion.at_rest(sim.model, Q0)
    trajectory = sim.rollout_policy(start, policy.policy, c, STEPS)
    direction = np.random.default_rng(1).standard_normal((len(c), 1))
    tangents = sim.tangent(trajectory, np.zeros((3, 1)), parameters=direction)
    gradients = np.zeros((STEPS + 1, 3))
    gradients[-1] = WEIGHTS.numpy()
    g = sim.adjoint(trajectory, gradients)
    forward = float(WEIGHTS.numpy() @ tangents[-1, :, 0])
    assert abs(forward - float(g.parameters @ direction[:, 0])) < 1e-9 * (1.0 + abs(forward))


def test_an_exception_in_the_module_is_raised_after_the_rollout():
    sim = chain()

    def broken(q, q_prev):
        raise ValueError("this policy cannot see")

    policy, _ = torch_policy(sim, features=broken)
    objective = sdrs.Objective(sim, policy.policy, sdrs.Effort(), STEPS, start=Q0)
    with pytest.raises(ValueError, match="this policy cannot see"):
        objective.evaluate(policy.initial())
    with pytest.raises(ValueError, match="cannot see"):
        sdrs.evaluate_batch(objective, policy.initial()[None, :])
