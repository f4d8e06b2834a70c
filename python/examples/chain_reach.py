"""The chain-reach co-design of the SDRS paper (sec. V-B, Fig. 10) from Python with PyTorch.

The same scene as the Rust demo ``examples/examples/chain_codesign.rs`` (built here with the
Python API, link by link): a carriage on a rail drives a chain of 8 links along a cubic
spline (4 control values); two passive chains hang beside it; the loss is the squared
distance of the chain's tip to a target out of its reach at the end of 250 steps of 10 ms.
The co-design also changes the 8 link lengths.

Two optimisers run on ``sdrs.torch.loss`` (the Rust adjoint behind ``torch.autograd``):

- ``sdrs.torch.TrustRegion``, the projected trust-region step of SDRS eq. 15 with the Rust
  demo's boxes and radii: the same algorithm as the demo, so it reproduces its final loss
  (to round-off);
- ``torch.optim.Adam`` inside the same boxes (a projection after each step), learning rate
  5e-3 annealed by a cosine schedule over 400 iterations: it ends within 1e-6 of the demo's
  final loss (3.2e-8 m² against 2.4e-14 m², measured 2026-11-23).

``python examples/chain_reach.py [ITERATIONS]`` (trust-region iterations, default 60, as the
Rust demo; Adam always takes 400).
"""

from __future__ import annotations

import sys

import numpy as np
import torch

import sdrs
import sdrs.torch

LINKS = 8
LINK_LENGTH = 0.1
STEPS = 250
DT = 0.01
TARGET = (0.45, 0.0, 0.0)
TOP = 1.0
TRAVEL = 0.3
LENGTH_CHANGE = (-0.05, 0.1)
ADAM_ITERATIONS = 400


def link_hull(length: float) -> sdrs.Hull:
    """A box from z = 0 down to z = -length, 2 cm thick."""
    corners = [(-0.01, -0.01), (0.01, -0.01), (0.01, 0.01), (-0.01, 0.01)]
    return sdrs.Hull([(x, y, z) for z in (0.0, -length) for x, y in corners])


def chain(name: str, parent, first: int, xyz) -> list:
    """A passive chain of LINKS links on revolute joints about y."""
    return [
        sdrs.Link(
            f"{name}{k}",
            "revolute",
            axis=(0.0, 1.0, 0.0),
            parent=parent if k == 0 else first + k - 1,
            xyz=xyz if k == 0 else (0.0, 0.0, -LINK_LENGTH),
            hulls=[link_hull(LINK_LENGTH)],
            mass=0.1,
        )
        for k in range(LINKS)
    ]


def build() -> sdrs.Objective:
    """The chain-reach objective, as the Rust demo's ``chain_reach()``."""
    carriage = sdrs.Link(
        "carriage",
        "prismatic",
        axis=(1.0, 0.0, 0.0),
        xyz=(0.0, 0.0, TOP),
        hulls=[sdrs.Hull.box((0.03, 0.03, 0.01))],
        mass=1.0,
        limits=(-TRAVEL - 0.05, TRAVEL + 0.05),
    )
    links = [carriage] + chain("left", 0, 1, (0.0, 0.0, -0.02))
    for c, x in enumerate([0.4, 0.52]):
        links += chain(f"passive{c}_", None, len(links), (x, 0.0, TOP - 0.02))
    world = sdrs.World(DT)
    world.set_contact(sdrs.ContactSettings(stiffness=1.0, mu=0.3, skip_adjacent=True))
    world.add_robot(links)
    sim = world.build()
    model = sim.model
    base = sdrs.Control(model)
    # The carriage: 400 N/m, 54 N·s/m; the chain's hinges: light damping, 0.02 N·m·s/rad.
    kp, kd = base.kp, np.full(model.dof, 0.02)
    kp[0], kd[0] = 400.0, 54.0
    base.kp, base.kd = kp, kd
    design = sdrs.DesignMap(model, LINKS)
    for k in range(LINKS):
        design.link_length(model, f"left{k}", k)
    last = f"left{LINKS - 1}"
    vertices = model.hull_vertices(model.link(last), 0)
    lower = [v for v in range(len(vertices)) if vertices[v, 2] < -0.5 * LINK_LENGTH]
    tip = sdrs.LinkPoint.vertex_mean(model, last, 0, lower)
    return sdrs.Objective(
        sim,
        sdrs.CubicSpline(base, [0], 4, STEPS * DT),
        sdrs.PointTarget(tip, TARGET),
        STEPS,
        design=design,
        start=np.zeros(model.dof),
        recording="blocks",
    )


def trust_region(objective: sdrs.Objective, iterations: int) -> tuple:
    """Co-design with sdrs.torch.TrustRegion (the Rust demo's optimiser and settings)."""
    c = torch.zeros(4, dtype=torch.float64, requires_grad=True)
    p = torch.zeros(LINKS, dtype=torch.float64, requires_grad=True)
    full = lambda n, v: torch.full((n,), v, dtype=torch.float64)  # noqa: E731
    optimiser = sdrs.torch.TrustRegion(
        [
            dict(params=[c], lower=full(4, -TRAVEL), upper=full(4, TRAVEL), radius=0.05, max_radius=0.2),
            dict(params=[p], lower=full(LINKS, LENGTH_CHANGE[0]), upper=full(LINKS, LENGTH_CHANGE[1]),
                 radius=0.02, max_radius=0.05),
        ]
    )

    def closure() -> torch.Tensor:
        optimiser.zero_grad()
        loss = sdrs.torch.loss(objective, c, p)
        loss.backward()
        return loss

    history = [optimiser.step(closure) for _ in range(iterations)]
    return history[-1], c.detach().numpy(), p.detach().numpy()


def adam(objective: sdrs.Objective, iterations: int = ADAM_ITERATIONS, learning_rate: float = 5e-3) -> tuple:
    """Co-design with torch.optim.Adam, its learning rate annealed (cosine) to a thousandth,
    projected onto the same boxes after each step. Adam has no trust region: it needs more,
    cheaper-to-tune iterations than the demo's loop (400 against 60) to reach the same optimum."""
    c = torch.zeros(4, dtype=torch.float64, requires_grad=True)
    p = torch.zeros(LINKS, dtype=torch.float64, requires_grad=True)
    optimiser = torch.optim.Adam([c, p], lr=learning_rate)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimiser, iterations, eta_min=1e-3 * learning_rate)
    for _ in range(iterations):
        optimiser.zero_grad()
        loss = sdrs.torch.loss(objective, c, p)
        loss.backward()
        optimiser.step()
        schedule.step()
        with torch.no_grad():
            c.clamp_(-TRAVEL, TRAVEL)
            p.clamp_(*LENGTH_CHANGE)
    c, p = c.detach(), p.detach()
    return float(sdrs.torch.loss(objective, c, p)), c.numpy(), p.numpy()


def main() -> None:
    iterations = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    objective = build()
    loss, c, p = trust_region(objective, iterations)
    print(f"trust region (as the Rust demo): loss {loss:.6e} m², spline {np.round(c, 3)}, "
          f"link lengths {np.round(LINK_LENGTH + p, 3)} m")
    loss, c, p = adam(objective)
    print(f"torch.optim.Adam ({ADAM_ITERATIONS} iterations): loss {loss:.6e} m², spline {np.round(c, 3)}, "
          f"link lengths {np.round(LINK_LENGTH + p, 3)} m")


if __name__ == "__main__":
    main()
