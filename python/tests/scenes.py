"""Small scenes shared by the tests: a box sliding with friction, a 3-link chain swinging
into the ground, and a box whose bottom vertices are designed."""

from __future__ import annotations

import numpy as np

import sdrs

DT = 0.01
STEPS = 12
HALF = 0.1
# The box rests with its bottom about where the default barrier carries it.
REST = HALF + 0.0008


def box_world(mu: float = 0.5) -> tuple:
    """A 1 kg, 20 cm box on the ground with friction: (simulator, object handle)."""
    world = sdrs.World(DT)
    world.add_ground()
    world.set_friction(mu)
    world.tolerance = 1e-9
    # The differences step by 1e-8 and need the two rollouts to take the same path within each
    # step's tolerance: the extrapolated start chooses between two starts per step, and on the
    # sliding box that choice left the differences 2e-5 off an exactly linear derivative.
    # Newton started at θ^t (the paper's Algorithm 1) keeps the path; the adjoint does not
    # depend on the start.
    world.newton_start = "current"
    # For the same reason, exact Newton directions: force-anchored ones carry estimates from
    # step to step, and the two rollouts' stopping points inside the tolerance then differ by
    # 5e-13 m, 2% of the differences of the first pushes.
    world.anchored_newton = False
    box = world.add_object("box", sdrs.Hull.box((HALF, HALF, HALF)), 1.0, xyz=(0.0, 0.0, REST))
    return world.build(), box


def sliding_box() -> sdrs.Objective:
    """The box pushed along x by open-loop forces (one per step) against friction."""
    sim, box = box_world()
    base = sdrs.Control(sim.model)
    policy = sdrs.OpenLoop(base, [box.dofs[0]], STEPS, channel="force")
    return sdrs.Objective(sim, policy, sdrs.Effort(torque=1.0), STEPS)


def chain_links(n: int = 3, length: float = 0.1) -> list:
    """A chain of `n` links on revolute joints about y, each a 2 cm thick box hanging down."""
    corners = [(-0.01, -0.01), (0.01, -0.01), (0.01, 0.01), (-0.01, 0.01)]
    hull = sdrs.Hull([(x, y, z) for z in (0.0, -length) for x, y in corners])
    return [
        sdrs.Link(
            f"link{k}",
            "revolute",
            axis=(0.0, 1.0, 0.0),
            parent=None if k == 0 else k - 1,
            xyz=(0.0, 0.0, 0.0) if k == 0 else (0.0, 0.0, -length),
            hulls=[hull],
            mass=0.1,
        )
        for k in range(n)
    ]


def chain_over_ground(tolerance: float) -> sdrs.Simulator:
    """The 3-link chain 27 cm above the ground with friction (μ 0.3; its tip reaches the
    ground when it swings), solved to `tolerance` from θ^t (``newton_start = "current"``) with
    exact Newton directions (``anchored_newton = False``): a batch that records the backward
    pass evaluates each step's exact Hessian once more after anchored directions, which moves
    the warm starts of the next step by round-off (1.9e-12 after 10 steps), and the tests
    compare its steps with a plain rollout to 1e-12 and difference them at 1e-8."""
    world = sdrs.World(DT)
    world.add_ground()
    world.set_friction(0.3)
    world.tolerance = tolerance
    world.newton_start = "current"
    world.anchored_newton = False
    world.add_robot(chain_links(), xyz=(0.0, 0.0, 0.27))
    return world.build()


def chain_on_ground() -> sdrs.Objective:
    """A 3-link chain hanging 27 cm above the ground, bent, its first joint driven by PD
    targets (open loop): it swings down and its tip hits the ground."""
    world = sdrs.World(DT)
    world.add_ground()
    world.set_friction(0.3)
    world.tolerance = 1e-9
    world.add_robot(chain_links(), xyz=(0.0, 0.0, 0.27))
    sim = world.build()
    base = sdrs.Control(sim.model)
    base.kp = [10.0, 0.0, 0.0]  # N·m/rad
    policy = sdrs.OpenLoop(base, [0], STEPS)
    return sdrs.Objective(sim, policy, sdrs.Effort(), STEPS, start=[0.3, 0.2, 0.2])


def designed_box() -> sdrs.Objective:
    """The sliding box whose four bottom vertices move along x (parameter 0) and down
    (parameter 1): a design gradient of hull vertices with friction."""
    sim, box = box_world()
    model = sim.model
    design = sdrs.DesignMap(model, 2)
    vertices = model.hull_vertices(box.link, 0)
    bottom = [v for v in range(len(vertices)) if vertices[v, 2] < 0.0]
    design.hull_vertices(model, "box", 0, bottom, (1.0, 0.0, 0.0), 0)
    design.hull_vertices(model, "box", 0, bottom, (0.0, 0.0, -1.0), 1)
    base = sdrs.Control(model)
    policy = sdrs.OpenLoop(base, [box.dofs[0]], STEPS, channel="force")
    return sdrs.Objective(sim, policy, sdrs.Effort(torque=1.0), STEPS, design=design)


def push(steps: int = STEPS, force: float = 6.0) -> np.ndarray:
    """Forces that push the box along x harder than friction holds it (μ m g ≈ 4.9 N)."""
    return np.linspace(force, force + 2.0, steps)
