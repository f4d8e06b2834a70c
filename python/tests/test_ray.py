"""sdrs.ray on a local Ray instance (2 CPUs, no network): the same numbers as the local
batch, the scene shipped as its scene-file TOML."""

from __future__ import annotations

import os

import numpy as np
import pytest

ray = pytest.importorskip("ray")
import sdrs  # noqa: E402
import sdrs.ray  # noqa: E402

SCENE = """
dt = 0.01
ground = true

[contact]
friction = 0.5

[[object]]
name = "box"
shape = { type = "box", half_extents = [0.1, 0.1, 0.1] }
mass = 1.0
pose = { xyz = [0.0, 0.0, 0.1008] }
"""


def build(scene: sdrs.Scene) -> sdrs.Objective:
    """The box of the scene pushed along x by open-loop forces, with a hull-vertex design."""
    setup = scene.build()
    sim = setup.simulator
    model = sim.model
    design = sdrs.DesignMap(model, 1)
    design.hull_vertices(model, "box", 0, [0, 1, 2, 3], (1.0, 0.0, 0.0), 0)
    policy = sdrs.OpenLoop(setup.control, [0], 8, channel="force")
    target = sdrs.PointTarget(sdrs.LinkPoint.fixed(model, "box", (0.0, 0.0, 0.0)), (0.3, 0.0, 0.1))
    return sdrs.Objective(sim, policy, target, 8, design=design)


@pytest.fixture(scope="module")
def cluster():
    # The workers import `build` from this module: put the tests folder on their path.
    tests = os.path.dirname(os.path.abspath(__file__))
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": tests}},
    )
    yield
    ray.shutdown()


def test_ray_equals_the_local_batch(cluster):
    scene = sdrs.Scene.from_str(SCENE)
    cs = np.stack([np.full(8, f) for f in (4.0, 6.0, 8.0, 10.0, 12.0)])
    ps = np.linspace(-0.01, 0.01, 5)[:, None]
    local = sdrs.evaluate_batch(build(scene), cs, ps)
    remote = sdrs.ray.evaluate(build, scene, cs, ps)
    for a, b in zip(local, remote):
        assert np.array_equal(a, b)
    assert np.array_equal(sdrs.ray.rollout(build, scene, cs, ps, chunks=3), sdrs.rollout_batch(build(scene), cs, ps))
    with pytest.raises(ValueError, match=r"ps must have shape \(5, k\)"):
        sdrs.ray.evaluate(build, scene, cs, ps[:2])
