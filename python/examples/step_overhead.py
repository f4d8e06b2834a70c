"""Python overhead per step: a Python loop of `Simulator.step` against the same steps run as
one Rust-side rollout (`Simulator.rollout`), interleaved, several repeats; prints the median
time per step of each and their difference.

``python examples/step_overhead.py [STEPS] [REPEATS]``
"""

from __future__ import annotations

import statistics
import sys
import time

import sdrs


def pendulum() -> tuple:
    """A 1-DoF pendulum without contact: a step of a few microseconds shows the overhead."""
    world = sdrs.World(0.01)
    world.set_contact(None)
    bob = sdrs.Link("bob", "revolute", axis=(0.0, 1.0, 0.0), hulls=[sdrs.Hull.box((0.05, 0.05, 0.05))])
    world.add_robot([bob], xyz=(0.0, 0.0, 1.0))
    sim = world.build()
    return sim, sdrs.Control(sim.model)


def sliding_box() -> tuple:
    """A 20 cm box sliding on the ground with friction (6 DoF, one contact pair)."""
    world = sdrs.World(0.01)
    world.add_ground()
    world.set_friction(0.5)
    box = world.add_object("box", sdrs.Hull.box((0.1, 0.1, 0.1)), 1.0, xyz=(0.0, 0.0, 0.1008))
    sim = world.build()
    control = sdrs.Control(sim.model)
    force = control.force
    force[box.dofs[0]] = 6.0
    control.force = force
    return sim, control


def measure(name: str, sim: sdrs.Simulator, control: sdrs.Control, steps: int, repeats: int) -> None:
    """Times both ways, interleaved, and prints the medians."""
    start = sdrs.Motion.at_rest(sim.model)
    controls = [control] * steps
    python_loop, rust_rollout = [], []
    for _ in range(repeats):
        motion = start.copy()
        clock = time.perf_counter()
        for _ in range(steps):
            sim.step(motion, control)
        python_loop.append((time.perf_counter() - clock) / steps)
        clock = time.perf_counter()
        trajectory = sim.rollout(start, controls)
        rust_rollout.append((time.perf_counter() - clock) / steps)
    assert trajectory.steps == steps
    a, b = statistics.median(python_loop), statistics.median(rust_rollout)
    print(f"{name}: {steps} steps x {repeats} repeats (median per step):")
    print(f"  Python loop of Simulator.step: {a * 1e6:8.1f} us")
    print(f"  Rust-side Simulator.rollout:   {b * 1e6:8.1f} us")
    print(f"  Python overhead per step:      {(a - b) * 1e6:8.1f} us ({100 * (a - b) / b:.1f}%)")


def main() -> None:
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    for name, build in (("pendulum, no contact", pendulum), ("box sliding on the ground", sliding_box)):
        measure(name, *build(), steps, repeats)


if __name__ == "__main__":
    main()
