"""Throughput of batched steps of 64 ants (``sdrs.envs.AntRun`` under random PD targets) on
this machine's cores: simulated steps per second forward only and forward plus backward, the
Python overhead of a batched step (the call's time minus the time of the steps themselves,
``StepBatch.last_step_seconds``), and the backward pass's time against the forward's.

``python examples/step_batch_throughput.py [ENVS] [STEPS]``  (defaults 64 and 100)
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np
import torch

import sdrs.torch
from sdrs.envs import AntRun


def main() -> None:
    envs = int(sys.argv[1]) if len(sys.argv) > 1 else 64
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    torch.set_num_threads(1)
    results = {}
    for gradients in (False, True):
        env = AntRun(envs, gradients=gradients)
        env.reset(seed=0)
        rng = np.random.default_rng(0)
        calls, inside, backward, torch_calls = [], [], [], []
        q_prev, q = env.q_prev.numpy().copy(), env.q.numpy().copy()
        for _ in range(steps):
            control = env.controls(torch.from_numpy(rng.uniform(-1, 1, (envs, 8))))
            position = control["position"].numpy()
            clock = time.perf_counter()
            if gradients:
                q_next, record = env.batch.step_record(q_prev, q, position=position)
            else:
                q_next = env.batch.step(q_prev, q, position=position)
            calls.append(time.perf_counter() - clock)
            inside.append(env.batch.last_step_seconds)
            if gradients:
                grad = rng.standard_normal(q_next.shape)
                clock = time.perf_counter()
                record.backward(grad)
                backward.append(time.perf_counter() - clock)
                # The same step again through torch (tensors in, autograd record kept).
                tq_prev, tq = torch.from_numpy(q_prev), torch.from_numpy(q).requires_grad_()
                clock = time.perf_counter()
                sdrs.torch.step(env.batch, tq_prev, tq, position=control["position"])
                torch_calls.append(time.perf_counter() - clock)
            q_prev, q = q, q_next
        call, own = statistics.median(calls), statistics.median(inside)
        results[gradients] = call
        kind = "forward + record" if gradients else "forward only"
        print(
            f"{kind:16s}: {call * 1e3:7.2f} ms per batched step ({envs / call:7.0f} steps/s), "
            f"Python overhead {100 * (call - own) / own:.2f}% of the steps' {own * 1e3:.2f} ms"
        )
        if gradients:
            back = statistics.median(backward)
            print(
                f"backward        : {back * 1e3:7.2f} ms per batched step = {back / call:.2f}x its forward; "
                f"forward + backward {envs / (call + back):.0f} steps/s"
            )
            print(f"sdrs.torch.step : {statistics.median(torch_calls) * 1e3:7.2f} ms per batched step")
    print(f"keeping the backward record costs {results[True] / results[False]:.2f}x the forward-only step")


if __name__ == "__main__":
    main()
