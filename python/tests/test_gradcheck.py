"""torch.autograd.gradcheck of sdrs.torch on three scenes with contact and friction: the Rust
adjoint against torch's central finite differences of the final state.

The differences step by 1e-8: a box resting on the ground sits 0.8 mm up in a barrier whose
support is 0.4 mm, so its final state is strongly nonlinear in its start height (central
differences of dx/dz0 read 0.515 at a step of 1e-8, 0.520 at 1e-7 and 1.78 at 1e-6, against
the adjoint's 0.5148). Each step is solved to |∇O|∞ ≤ 1e-9 (the default is 1e-4), which keeps
the differences' round-off below gradcheck's tolerances (atol 1e-5, rtol 1e-3). A free body's
rotation coordinates are re-centred after every step (its state's chart moves), so for the
boxes the start's and the final state's translations are compared."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import sdrs.torch  # noqa: E402
from scenes import STEPS, chain_on_ground, designed_box, push, sliding_box  # noqa: E402

EPS = 1e-8
TOLERANCES = dict(eps=EPS, atol=1e-5, rtol=1e-3)
# The chain meets the ground during the run, not at the start: the usual step of 1e-6 keeps
# the differences' round-off (Newton's residual over its 0.1 kg links) below 1e-6.
CHAIN_EPS = 1e-6


def tensor(x) -> torch.Tensor:
    return torch.tensor(np.asarray(x, dtype=np.float64), requires_grad=True)


def free(xyz: torch.Tensor) -> torch.Tensor:
    """A free body's start at translation `xyz`, unrotated."""
    return torch.cat([xyz, torch.zeros(3, dtype=torch.float64)])


def max_error(f, inputs, eps: float = EPS) -> float:
    """The largest |analytic − numerical| entry of the Jacobians gradcheck compares."""
    analytic = torch.autograd.functional.jacobian(f, inputs)
    numeric = []
    for k, x in enumerate(inputs):
        cols = []
        for i in range(x.numel()):
            hi = [y.detach().clone() for y in inputs]
            lo = [y.detach().clone() for y in inputs]
            hi[k].view(-1)[i] += eps
            lo[k].view(-1)[i] -= eps
            cols.append(((f(*hi) - f(*lo)) / (2 * eps)).reshape(-1))
        numeric.append(torch.stack(cols, dim=1))
    return max(float((a.reshape(n.shape) - n).abs().max()) for a, n in zip(analytic, numeric))


def test_box_sliding_with_friction():
    objective = sliding_box()
    f = lambda c, xyz: sdrs.torch.rollout(objective, c, None, free(xyz))[-1, :3]  # noqa: E731
    inputs = (tensor(push()), tensor([0.0, 0.0, 0.0]))
    final = f(*inputs)
    assert final[0] > 0.0  # the push overcomes friction
    assert torch.autograd.gradcheck(f, inputs, **TOLERANCES)
    print(f"box sliding: max |analytic - numerical| = {max_error(f, inputs):.2e}")


def test_chain_hitting_the_ground():
    objective = chain_on_ground()
    f = lambda c, q0: sdrs.torch.rollout(objective, c, None, q0)[-1]  # noqa: E731
    c = np.linspace(0.0, 0.3, STEPS)
    inputs = (tensor(c), tensor([0.3, 0.2, 0.2]))
    states = sdrs.torch.rollout(objective, inputs[0], None, inputs[1])
    run = objective.rollout(c, None, [0.3, 0.2, 0.2])
    assert np.array_equal(states.detach().numpy(), run.states)
    e = objective.evaluate(c)
    assert max(e.active_pairs) > 0, "the chain must touch the ground"
    assert torch.autograd.gradcheck(f, inputs, **{**TOLERANCES, "eps": CHAIN_EPS})
    print(f"chain on the ground: max |analytic - numerical| = {max_error(f, inputs, CHAIN_EPS):.2e}")


# Each design column is differenced with the step its own conditioning allows. Parameter 1
# moves the bottom vertices down, which acts like the start height: strongly nonlinear, so it
# needs EPS (d x_final / d p1: -0.5149 at 1e-8, -0.520 at 1e-7, -1.78 at 1e-6; adjoint
# -0.51480). Parameter 0 moves them along x, whose effect on x_final is tiny (adjoint
# -2.510e-7), so at 1e-8 the differences are round-off (-1.05e-5 at 1e-8, +4.2e-7 at 1e-7,
# -2.555e-7 at 1e-6, -2.488e-7 at 1e-5).
DESIGN_EPS = (1e-6, EPS)


def test_design_gradient_of_hull_vertices():
    objective = designed_box()
    c = torch.tensor(push(), dtype=torch.float64)
    p = [0.01, 0.0]
    for k, eps in enumerate(DESIGN_EPS):

        def f(x, k=k):
            fixed = [torch.tensor(v, dtype=torch.float64) for v in p]
            design = torch.stack([x[0] if i == k else v for i, v in enumerate(fixed)])
            return sdrs.torch.rollout(objective, c, design)[-1, :3]

        inputs = (tensor([p[k]]),)
        assert torch.autograd.gradcheck(f, inputs, **{**TOLERANCES, "eps": eps})
        error = max_error(f, inputs, eps)
        print(f"hull-vertex design {k}: max |analytic - numerical| = {error:.2e}")


def test_loss_function_matches_evaluate():
    objective = designed_box()
    c, p = tensor(push()), tensor([0.01, 0.0])
    loss = sdrs.torch.loss(objective, c, p)
    loss.backward()
    e = objective.evaluate(push(), [0.01, 0.0])
    assert float(loss.detach()) == e.loss
    assert np.array_equal(c.grad.numpy(), e.parameters) and np.array_equal(p.grad.numpy(), e.design)
    assert torch.autograd.gradcheck(lambda p: sdrs.torch.loss(objective, c.detach(), p), (p,), **TOLERANCES)
