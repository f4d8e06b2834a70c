"""Gradients with respect to physical parameters from Python (``Simulator.physical_parameters``,
``Gradient.physical``) against central differences of re-simulated rollouts: a box pushed
across the ground with friction (gravity, contact stiffness, friction, its mass) and a chain
under PD swinging into the ground (its six gains)."""

from __future__ import annotations

import numpy as np
import pytest

import sdrs
from scenes import DT, HALF, REST, chain_over_ground

STEPS = 15


# The ground's default contact: support 0.4 mm, stiffness 1e5 N times its square.
SUPPORT = 4e-4
STIFFNESS = 1e5 * SUPPORT**2


def box(gravity=9.81, stiffness=STIFFNESS, mu=0.5, mass=1.0):
    world = sdrs.World(DT)
    world.add_ground()
    world.set_contact(sdrs.ContactSettings(stiffness=stiffness, mu=mu, support=SUPPORT))
    world.gravity = gravity
    world.tolerance = 1e-10
    world.add_object("box", sdrs.Hull.box((HALF, HALF, HALF)), mass, xyz=(0.0, 0.0, REST + 0.002))
    sim = world.build()
    control = sdrs.Control(sim.model)
    control.force = [3.0, 0.5, 0.0, 0.0, 0.0, 0.0]  # pushed along x and a little along y
    return sim, control


def final_position(sim, control):
    t = sim.rollout(sdrs.Motion.at_rest(sim.model), [control] * STEPS)
    return t.states[-1, :3]


WEIGHTS = np.array([1.0, -0.7, 2.0])


def adjoint_of(sim, control, parameters):
    sim.physical_parameters = parameters
    t = sim.rollout(sdrs.Motion.at_rest(sim.model), [control] * STEPS)
    dl = np.zeros(t.states.shape)
    dl[-1, :3] = WEIGHTS
    return sim.adjoint(t, dl).physical


def test_a_pushed_box_differentiates_with_respect_to_gravity_contact_friction_and_mass():
    sim, control = box()
    g = adjoint_of(sim, control, ["gravity", "contact_stiffness", "friction", ("mass", "box")])
    assert g.shape == (4,)
    base = dict(gravity=9.81, stiffness=STIFFNESS, mu=0.5, mass=1.0)
    for value, key in zip(g, ["gravity", "stiffness", "mu", "mass"]):
        h = 1e-5 * base[key]

        def loss(delta):
            moved = dict(base)
            moved[key] += delta
            return WEIGHTS @ final_position(*box(**moved))

        fd = (loss(h) - loss(-h)) / (2 * h)
        assert value == pytest.approx(fd, rel=1e-4, abs=1e-9), key


def test_a_chain_differentiates_with_respect_to_its_gains():
    def chain(kp, kd):
        sim = chain_over_ground(1e-10)
        control = sdrs.Control(sim.model)
        control.kp, control.kd = kp, kd
        control.position = [0.6, -0.3, 0.4]
        return sim, control

    kp, kd = np.array([10.0, 6.0, 4.0]), np.array([0.5, 0.3, 0.2])
    sim, control = chain(kp, kd)
    parameters = [("kp", k) for k in range(3)] + [("kd", k) for k in range(3)]
    sim.physical_parameters = parameters
    assert sim.physical_parameters == parameters
    start = sdrs.Motion.at_rest(sim.model, [0.3, 0.2, 0.2])
    t = sim.rollout(start, [control] * STEPS)
    dl = np.zeros((STEPS + 1, 3))
    dl[-1] = [1.0, 0.5, -0.8]
    g = sim.adjoint(t, dl).physical
    for k, (kind, dof) in enumerate(parameters):
        h = 1e-5

        def loss(delta):
            gains = {"kp": kp.copy(), "kd": kd.copy()}
            gains[kind][dof] += delta
            s, c = chain(gains["kp"], gains["kd"])
            return dl[-1] @ s.rollout(start, [c] * STEPS).states[-1]

        fd = (loss(h) - loss(-h)) / (2 * h)
        assert g[k] == pytest.approx(fd, rel=1e-4, abs=1e-7), (kind, dof)


def test_bad_physical_parameters_name_what_is_allowed():
    sim, _ = box()
    with pytest.raises(ValueError, match="unknown"):
        sim.physical_parameters = ["viscosity"]
    with pytest.raises(ValueError, match="physical parameter"):
        sim.physical_parameters = [("mass",)]
    with pytest.raises(KeyError):
        sim.physical_parameters = [("mass", "no such link")]
    with pytest.raises(ValueError, match="6 DoFs"):
        sim.physical_parameters = [("kp", 6)]
    assert sim.physical_parameters == []
