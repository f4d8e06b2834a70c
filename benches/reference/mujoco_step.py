"""Times MuJoCo's `mj_step` on the `dynamics` suite's box scenes (`box_step` in
benches/benches/dynamics.rs): a 20 cm, 1 kg box resting on the ground, and a stack of 5 such
boxes, friction 0.5, time step 10 ms. Each scene first settles for 1 s of simulated time
(100 steps, as the Rust bench warms up), then `mj_step` is timed in many short rounds; the
fastest round's mean (the least disturbed by other load on a shared machine; compare with the
fastest criterion sample) is written, in nanoseconds per call, to
benches/reference/mujoco_timings.json as a peer table keyed by the criterion benchmark ids.

    python3 -m venv target/venv-mujoco && target/venv-mujoco/bin/pip install mujoco
    target/venv-mujoco/bin/python benches/reference/mujoco_step.py
"""

import datetime
import json
import pathlib
import platform
import time

import mujoco

DT = 0.01
HALF = 0.1  # box half extent (m)
GAP = 0.0195  # the Rust scene's starting gap under each box (m)


def stack_xml(count: int) -> str:
    """A ground plane and `count` free boxes stacked on it, as in `box_stack` of the bench."""
    bodies = "\n".join(
        f"""    <body name="box{k}" pos="0 0 {HALF + GAP + (2 * HALF + GAP) * k:.4f}">
      <freejoint/>
      <geom type="box" size="{HALF} {HALF} {HALF}" mass="1" friction="0.5 0.005 0.0001"/>
    </body>"""
        for k in range(count)
    )
    return f"""<mujoco>
  <option timestep="{DT}" gravity="0 0 -9.81"/>
  <worldbody>
    <geom type="plane" size="20 20 0.1" friction="0.5 0.005 0.0001"/>
{bodies}
  </worldbody>
</mujoco>"""


def time_step(count: int, calls: int = 200, rounds: int = 200) -> float:
    """The least over `rounds` of the mean ns per `mj_step`, after 100 settling steps; each
    round starts from the settled state, so every call steps a resting scene."""
    model = mujoco.MjModel.from_xml_string(stack_xml(count))
    data = mujoco.MjData(model)
    for _ in range(100):
        mujoco.mj_step(model, data)
    settled = (data.qpos.copy(), data.qvel.copy(), data.qacc_warmstart.copy())
    means = []
    for _ in range(rounds):
        data.qpos[:], data.qvel[:], data.qacc_warmstart[:] = settled
        mujoco.mj_forward(model, data)
        start = time.perf_counter_ns()
        for _ in range(calls):
            mujoco.mj_step(model, data)
        means.append((time.perf_counter_ns() - start) / calls)
    top = data.qpos[7 * (count - 1) + 2]
    assert abs(top - (HALF + (2 * HALF) * (count - 1))) < 0.02, f"stack of {count} fell: {top}"
    return min(means)


def main() -> None:
    rows = {
        "box_step/resting_box": time_step(1),
        "box_step/stack_5": time_step(5),
    }
    out = {
        "suite": "dynamics",
        "peer": f"MuJoCo {mujoco.__version__} mj_step",
        "measured": datetime.date.today().isoformat(),
        "machine": f"{platform.machine()}, CPython {platform.python_version()}",
        "note": "fastest round's mean of mj_step after 1 s of settling (compare with the fastest criterion sample)",
        "unit": "ns",
        "rows": {k: round(v, 1) for k, v in rows.items()},
    }
    path = pathlib.Path(__file__).with_name("mujoco_timings.json")
    path.write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
