"""PyTorch integration: a differentiable batched step (:func:`step`), rollouts and objectives
as ``torch.autograd.Function`` s whose backward pass runs the Rust adjoint, and
:class:`TrustRegion`, the projected trust-region step of SDRS eq. 15 as a
``torch.optim.Optimizer``.

``step(batch, q_prev, q, ...)`` advances a :class:`sdrs.StepBatch` of ``B`` environments by one
step; its backward pass is the implicit function theorem on each step's own linearisation
(one solve with the factor of the step's Hessian, no finite differences), so any torch code
composes steps: a policy network reading the state, a loss on the states, truncated
backpropagation over a window. :class:`TorchPolicy` goes the other way: a torch module as the
policy of the Rust rollouts, objectives and batches.

Tensors are float64 on the CPU. ``rollout(objective, c, p, q0)`` returns the states
``(H + 1, n)``; any torch loss of them back-propagates to the policy parameters ``c``, the
design parameters ``p`` and the start ``q0`` (a start at rest: the poses before it move with
it). ``loss(objective, c, p)`` returns the objective's own loss (computed in Rust) as a
scalar with the same gradients.
"""

from __future__ import annotations

from typing import Callable, Optional

import numpy as np
import torch

from . import CallbackPolicy, Objective, SimulationError, StepBatch, projected_step

__all__ = ["step", "rollout", "loss", "TrustRegion", "TorchPolicy"]


def _numpy(x: Optional[torch.Tensor]) -> Optional[np.ndarray]:
    return None if x is None else x.detach().cpu().numpy().astype(np.float64)


def _tensor(x: Optional[np.ndarray], like: torch.Tensor) -> Optional[torch.Tensor]:
    return None if x is None else torch.from_numpy(np.asarray(x)).to(like.device, torch.float64)


def _design_changed(batch: StepBatch, design: Optional[torch.Tensor]) -> None:
    """Rebuilds ``batch`` for ``design`` when it differs from the batch's."""
    if design is not None:
        d = _numpy(design)
        if not np.array_equal(d, batch.design):
            batch.set_design(d)


class _Step(torch.autograd.Function):
    @staticmethod
    def forward(ctx, batch, q_prev, q, position, velocity, force, design, on_failure):  # type: ignore[override]
        _design_changed(batch, design)
        q_next, record = batch.step_record(
            _numpy(q_prev), _numpy(q), _numpy(position), _numpy(velocity), _numpy(force), on_failure
        )
        ctx.record = record
        return _tensor(q_next, q)

    @staticmethod
    def backward(ctx, grad):  # type: ignore[override]
        if grad is None:
            return (None,) * 8
        g = ctx.record.backward(_numpy(grad))
        need = ctx.needs_input_grad
        if need[6] and g["design"] is None:
            raise RuntimeError(
                "the steps gave no design gradient (solid-hull masses, user energies, or "
                "design_derivatives off)"
            )
        out = [None]
        for k, name in enumerate(["q_prev", "q", "position", "velocity", "force"], start=1):
            out.append(_tensor(g[name], grad) if need[k] else None)
        out.append(_tensor(g["design"].sum(axis=0), grad) if need[6] else None)
        out.append(None)
        return tuple(out)


def step(
    batch: StepBatch,
    q_prev: torch.Tensor,
    q: torch.Tensor,
    position: Optional[torch.Tensor] = None,
    velocity: Optional[torch.Tensor] = None,
    force: Optional[torch.Tensor] = None,
    design: Optional[torch.Tensor] = None,
    on_failure: str = "raise",
) -> torch.Tensor:
    """One step of every environment of ``batch``: ``q_next`` ``(B, n)``, differentiable in
    every tensor given.

    The state of environment ``b`` is the coordinate pair ``(q_prev[b], q[b])``, each
    ``(B, n)``: the configuration one step ago and now (spherical and free joints as XYZ
    angles, as :meth:`sdrs.Motion.at_rest` takes them); ``(q - q_prev) / batch.dt`` is its
    velocity. Roll out by ``q_prev, q = q, step(batch, q_prev, q, ...)``. ``position``,
    ``velocity`` (PD targets) and ``force`` (generalized forces, N·m or N) are ``(B, n)``, the
    batch's ``control`` where ``None``; its ``kp``/``kd`` are the gains. ``design`` is the
    model's whole design vector ``(|d|,)`` shared by the batch (see ``Model.design``): build
    it as ``d0 + B @ p`` to differentiate with respect to your own parameters.

    A step that fails raises (``on_failure="raise"``), or (``"hold"``) leaves its environment
    at ``q`` (``q_next[b] = q[b]``, so its derivative is the identity to ``q``) and lists it
    in ``batch.last_failures``: an environment can then reset it rather than lose the batch.

    Tensors are computed in float64 on the CPU and returned on ``q``'s device. Without
    gradients to take (``torch.no_grad()`` or no input requiring them), the step keeps no
    record.
    """
    inputs = [q_prev, q, position, velocity, force, design]
    tracked = torch.is_grad_enabled() and any(x is not None and x.requires_grad for x in inputs)
    if not tracked:
        _design_changed(batch, design)
        q_next = batch.step(
            _numpy(q_prev), _numpy(q), _numpy(position), _numpy(velocity), _numpy(force), on_failure
        )
        return _tensor(q_next, q)
    if not batch.gradients:
        raise RuntimeError("this StepBatch was built with gradients=False; build it with gradients=True")
    return _Step.apply(batch, q_prev, q, position, velocity, force, design, on_failure)


class _Rollout(torch.autograd.Function):
    @staticmethod
    def forward(ctx, objective, c, p, q0):  # type: ignore[override]
        run = objective.rollout(_numpy(c), _numpy(p), _numpy(q0))
        ctx.run = run
        ctx.has = (p is not None, q0 is not None)
        return _tensor(run.states, c)

    @staticmethod
    def backward(ctx, grad):  # type: ignore[override]
        dq0, dc, dp = ctx.run.backward(_numpy(grad))
        has_p, has_q0 = ctx.has
        if has_p and dp is None:
            raise RuntimeError("the steps gave no design gradient (design blocks are off)")
        return (
            None,
            _tensor(dc, grad),
            _tensor(dp, grad) if has_p else None,
            _tensor(dq0, grad) if has_q0 else None,
        )


class _Loss(torch.autograd.Function):
    @staticmethod
    def forward(ctx, objective, c, p):  # type: ignore[override]
        e = objective.evaluate(_numpy(c), _numpy(p))
        ctx.gradients = (e.parameters, e.design)
        return torch.tensor(e.loss, dtype=torch.float64, device=c.device)

    @staticmethod
    def backward(ctx, grad):  # type: ignore[override]
        dc, dp = ctx.gradients
        if ctx.needs_input_grad[2] and dp is None:
            raise RuntimeError("the steps gave no design gradient (design blocks are off)")
        return (
            None,
            grad * _tensor(dc, grad),
            grad * _tensor(dp, grad) if ctx.needs_input_grad[2] else None,
        )


def rollout(
    objective: Objective,
    c: torch.Tensor,
    p: Optional[torch.Tensor] = None,
    q0: Optional[torch.Tensor] = None,
) -> torch.Tensor:
    """The states ``(H + 1, n)`` of ``objective``'s rollout from rest at ``q0`` (its start
    for ``None``) with policy parameters ``c`` and design parameters ``p`` (zeros for
    ``None``), differentiable in ``c``, ``p`` and ``q0``."""
    return _Rollout.apply(objective, c, p, q0)


def loss(objective: Objective, c: torch.Tensor, p: Optional[torch.Tensor] = None) -> torch.Tensor:
    """``objective``'s loss at policy parameters ``c`` and design parameters ``p`` (zeros for
    ``None``), a scalar differentiable in ``c`` and ``p``."""
    return _Loss.apply(objective, c, p)


class TrustRegion(torch.optim.Optimizer):
    """The trust-region loop of SDRS sec. V (``sdrs_diff::minimise``) as a torch optimiser.

    Each parameter group is one block with a box (``lower``, ``upper``: tensors like its one
    parameter), an initial ``radius`` and a ``max_radius``. ``step(closure)`` takes the
    eq. 15 step of every block from the best point so far along its gradient there; the
    closure (which must zero the gradients, compute the loss and call ``backward``) is
    evaluated at the trial point, which is kept if it lowers the loss (the radii grow by 1.5
    up to their maxima) and dropped otherwise (the radii halve). The first call also
    evaluates the start. After a step the parameters hold the best point; ``step`` returns its
    loss. With the same objective this gives the same iterates as ``sdrs.minimise``.
    """

    def __init__(self, groups: list) -> None:
        for g in groups:
            if len(g["params"]) != 1:
                raise ValueError("each TrustRegion group holds exactly one parameter tensor (one block)")
        super().__init__(groups, {})
        self.best_loss: Optional[float] = None
        self._x: list = []  # the best point so far, per block
        self._g: list = []  # the gradient there, per block

    def _evaluate(self, closure: Callable[[], torch.Tensor]) -> tuple:
        with torch.enable_grad():
            value = float(closure().detach())
        points = [g["params"][0].detach().clone() for g in self.param_groups]
        grads = [g["params"][0].grad.detach().clone() for g in self.param_groups]
        return value, points, grads

    @torch.no_grad()
    def step(self, closure: Callable[[], torch.Tensor]) -> float:  # type: ignore[override]
        if self.best_loss is None:
            self.best_loss, self._x, self._g = self._evaluate(closure)
        for group, x, g in zip(self.param_groups, self._x, self._g):
            d = projected_step(
                x.numpy(), g.numpy(), group["radius"], _numpy(group["lower"]), _numpy(group["upper"])
            )
            group["params"][0].copy_(x + torch.from_numpy(d))
        try:
            value, points, grads = self._evaluate(closure)
        except (SimulationError, ValueError):  # a trial the simulator rejects is a failed step
            value = float("inf")
        accepted = value < self.best_loss
        if accepted:
            self.best_loss, self._x, self._g = value, points, grads
        for group, x in zip(self.param_groups, self._x):
            group["radius"] = min(group["radius"] * 1.5, group["max_radius"]) if accepted else group["radius"] * 0.5
            group["params"][0].copy_(x)
        return self.best_loss


class TorchPolicy:
    """A torch module as a policy of the Rust rollouts: ``TorchPolicy(module, model, base,
    dofs)`` gives ``.policy``, an :class:`sdrs.Policy` for :class:`sdrs.Objective`,
    :meth:`sdrs.Simulator.rollout_policy`, :func:`sdrs.evaluate_batch` and
    :func:`sdrs.rollout_batch`, whose parameters are the module's (flattened in
    ``module.parameters()`` order: :meth:`initial` gives them, :meth:`load` writes them back).

    Each step, ``module(features(q, q_prev))`` gives one value per coordinate of ``dofs``,
    written into ``base``'s PD targets (``channel="position"``) or generalized forces
    (``"force"``). ``q`` and ``q_prev`` are the configuration now and one step ago (torch
    float64 tensors, spherical and free joints as XYZ angles; ``q_prev`` is ``q`` at a
    rollout's first step, a start at rest); ``features`` defaults to ``cat([q, q - q_prev])``.
    The policy's derivatives (parameters and, through the state, feedback) are torch's.
    """

    def __init__(self, module, model, base, dofs, channel: str = "position", features=None) -> None:
        if channel not in ("position", "force"):
            raise ValueError(f"channel must be 'position' or 'force', not {channel!r}")
        if features is None:
            features = lambda q, q_prev: torch.cat([q, q - q_prev])  # noqa: E731
        self.module = module
        self.dofs = torch.as_tensor(list(dofs), dtype=torch.long)
        self.channel = channel
        self.features = features
        self._base = torch.from_numpy(np.asarray(base.position if channel == "position" else base.force))
        self._names = [name for name, _ in module.named_parameters()]
        self._shapes = [p.shape for _, p in module.named_parameters()]
        count = sum(p.numel() for p in module.parameters())
        self.policy = CallbackPolicy(model, base, count, self)

    def initial(self) -> np.ndarray:
        """The module's parameters as one vector."""
        return torch.nn.utils.parameters_to_vector(self.module.parameters()).detach().double().numpy()

    def load(self, c) -> None:
        """Writes the parameter vector ``c`` into the module."""
        with torch.no_grad():
            torch.nn.utils.vector_to_parameters(torch.as_tensor(c, dtype=torch.float64), self.module.parameters())

    def values(self, c: torch.Tensor, q: torch.Tensor, q_prev: torch.Tensor) -> torch.Tensor:
        """The channel's values for every coordinate under parameters ``c``: the module's at
        ``dofs``, ``base``'s elsewhere (differentiable in ``c``, ``q`` and ``q_prev``)."""
        params, start = {}, 0
        for name, shape in zip(self._names, self._shapes):
            size = int(np.prod(shape))
            params[name] = c[start : start + size].reshape(shape)
            start += size
        values = torch.func.functional_call(self.module, params, (self.features(q, q_prev),))
        return self._base.index_put((self.dofs,), values.reshape(-1).to(torch.float64))

    def _inputs(self, c, q, q_prev, grad: bool):
        c = torch.as_tensor(c).requires_grad_(grad)
        q = torch.as_tensor(q).requires_grad_(grad)
        q_prev = q if q_prev is None else torch.as_tensor(q_prev).requires_grad_(grad)
        return c, q, q_prev

    def _split(self, u):
        return (u, None, None) if self.channel == "position" else (None, None, u)

    # The protocol sdrs.CallbackPolicy calls.

    def control(self, c, step, time, q, q_prev):
        with torch.no_grad():
            u = self.values(*self._inputs(c, q, q_prev, False)).numpy()
        return self._split(u)

    def vjp(self, c, step, time, q, q_prev, g_position, g_velocity, g_force):
        first = q_prev is None
        g = torch.as_tensor(g_position if self.channel == "position" else g_force)
        # Called from Rust, possibly inside a torch Function's forward or backward, where
        # gradients are off.
        with torch.enable_grad():
            c, q, q_prev = self._inputs(c, q, q_prev, True)
            u = self.values(c, q, q_prev)
            wrt = (c, q) if first else (c, q, q_prev)
            grads = torch.autograd.grad(u, wrt, g, allow_unused=True)
        grads = [torch.zeros_like(x) if d is None else d for x, d in zip(wrt, grads)]
        return grads[0].numpy(), grads[1].numpy(), None if first else grads[2].numpy()

    def jvp(self, c, step, time, q, q_prev, s_c, s_q, s_prev):
        first = q_prev is None
        c, q, q_prev = self._inputs(c, q, q_prev, False)
        if first:
            f = lambda c, q: self.values(c, q, q)  # noqa: E731
            inputs, tangents = (c, q), (s_c, s_q)
        else:
            f = self.values
            inputs, tangents = (c, q, q_prev), (s_c, s_q, s_prev)
        with torch.enable_grad():
            jacobians = torch.autograd.functional.jacobian(f, inputs)
        u = sum(j @ torch.as_tensor(s) for j, s in zip(jacobians, tangents))
        return self._split(u.numpy())
