"""Batches on all cores equal the sequential results, whatever the thread count."""

from __future__ import annotations

import numpy as np

import sdrs
from scenes import designed_box, push


def rows():
    cs = np.stack([push(force=f) for f in (5.0, 6.0, 7.0, 8.0, 9.0)])
    ps = np.array([[0.0, 0.0], [0.01, 0.0], [0.0, -0.002], [-0.01, -0.001], [0.02, -0.0005]])
    return cs, ps


def test_evaluate_batch_equals_sequential_for_1_and_2_threads():
    objective = designed_box()
    cs, ps = rows()
    sequential = [objective.evaluate(c, p) for c, p in zip(cs, ps)]
    for threads in (1, 2, None):
        losses, dc, dp = sdrs.evaluate_batch(objective, cs, ps, threads=threads)
        assert losses.shape == (5,) and dc.shape == (5, cs.shape[1]) and dp.shape == (5, 2)
        assert np.array_equal(losses, [e.loss for e in sequential])
        assert np.array_equal(dc, np.stack([e.parameters for e in sequential]))
        assert np.array_equal(dp, np.stack([e.design for e in sequential]))


def test_rollout_batch_equals_sequential_for_1_and_2_threads():
    objective = designed_box()
    cs, ps = rows()
    sequential = np.stack([objective.rollout(c, p).states for c, p in zip(cs, ps)])
    for threads in (1, 2):
        states = sdrs.rollout_batch(objective, cs, ps, threads=threads)
        assert states.shape == (5, objective.steps + 1, 6)
        assert np.array_equal(states, sequential)
    # Without designs, the base design.
    assert np.array_equal(sdrs.rollout_batch(objective, cs[:1])[0], objective.rollout(cs[0]).states)


def test_batch_errors():
    objective = designed_box()
    cs, ps = rows()
    import pytest

    with pytest.raises(ValueError, match=r"ps must have shape \(5, 2\)"):
        sdrs.evaluate_batch(objective, cs, ps[:, :1])
    with pytest.raises(ValueError, match="threads must be at least 1"):
        sdrs.rollout_batch(objective, cs, threads=0)
