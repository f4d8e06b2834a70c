"""torch.autograd.gradcheck of sdrs.torch on three scenes with contact and friction: the Rust
adjoint against torch's central finite differences (eps 1e-6) of the whole final state."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import sdrs.torch  # noqa: E402
from scenes import STEPS, chain_on_ground, designed_box, push, sliding_box  # noqa: E402

# gradcheck's defaults (atol 1e-5, rtol 1e-3) hold: each step is solved to |∇O|∞ ≤ 1e-11,
# so the differences' error (~tolerance / eps) stays well below them.
TOLERANCES = dict(eps=1e-6, atol=1e-5, rtol=1e-3)


def tensor(x) -> torch.Tensor:
    return torch.tensor(np.asarray(x, dtype=np.float64), requires_grad=True)


def max_error(f, inputs) -> float:
    """The largest |analytic − numerical| entry of the Jacobians gradcheck compares."""
    analytic = torch.autograd.functional.jacobian(f, inputs)
    numeric = []
    for k, x in enumerate(inputs):
        cols = []
        for i in range(x.numel()):
            hi = [y.detach().clone() for y in inputs]
            lo = [y.detach().clone() for y in inputs]
            hi[k].view(-1)[i] += 1e-6
            lo[k].view(-1)[i] -= 1e-6
            cols.append(((f(*hi) - f(*lo)) / 2e-6).reshape(-1))
        numeric.append(torch.stack(cols, dim=1))
    return max(float((a.reshape(n.shape) - n).abs().max()) for a, n in zip(analytic, numeric))


def test_box_sliding_with_friction():
    objective = sliding_box()
    f = lambda c, q0: sdrs.torch.rollout(objective, c, None, q0)[-1]  # noqa: E731
    inputs = (tensor(push()), tensor([0.0, 0.0, 0.0, 0.0, 0.0, 0.0]))
    final = f(*inputs)
    assert final[0] > 0.0  # the push overcomes friction
    assert torch.autograd.gradcheck(f, inputs, **TOLERANCES)
    print(f"box sliding: max |analytic - numerical| = {max_error(f, inputs):.2e}")


def test_chain_hitting_the_ground():
    objective = chain_on_ground()
    f = lambda c, q0: sdrs.torch.rollout(objective, c, None, q0)[-1]  # noqa: E731
    c = np.linspace(0.6, 1.2, STEPS)
    inputs = (tensor(c), tensor([0.3, 0.2, 0.2]))
    states = sdrs.torch.rollout(objective, inputs[0], None, inputs[1])
    run = objective.rollout(c, None, [0.3, 0.2, 0.2])
    assert np.array_equal(states.detach().numpy(), run.states)
    e = objective.evaluate(c)
    assert max(e.active_pairs) > 0, "the chain must touch the ground"
    assert torch.autograd.gradcheck(f, inputs, **TOLERANCES)
    print(f"chain on the ground: max |analytic - numerical| = {max_error(f, inputs):.2e}")


def test_design_gradient_of_hull_vertices():
    objective = designed_box()
    c = torch.tensor(push(), dtype=torch.float64)
    f = lambda p: sdrs.torch.rollout(objective, c, p)[-1]  # noqa: E731
    inputs = (tensor([0.01, 0.0]),)
    assert torch.autograd.gradcheck(f, inputs, **TOLERANCES)
    print(f"hull-vertex design: max |analytic - numerical| = {max_error(f, inputs):.2e}")


def test_loss_function_matches_evaluate():
    objective = designed_box()
    c, p = tensor(push()), tensor([0.01, 0.0])
    loss = sdrs.torch.loss(objective, c, p)
    loss.backward()
    e = objective.evaluate(push(), [0.01, 0.0])
    assert float(loss) == e.loss
    assert np.array_equal(c.grad.numpy(), e.parameters) and np.array_equal(p.grad.numpy(), e.design)
    assert torch.autograd.gradcheck(lambda p: sdrs.torch.loss(objective, c.detach(), p), (p,), **TOLERANCES)
