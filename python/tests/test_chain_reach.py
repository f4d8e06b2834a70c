"""The worked example: the chain-reach co-design driven by torch optimisers (the torch port of
the demo's trust region, and torch.optim.Adam) reproduces the Rust demo's trust-region loop
(`sdrs.minimise`, the loop of examples/chain_codesign.rs with its settings) within 1e-6 of its
final loss."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")
import chain_reach  # noqa: E402

import sdrs  # noqa: E402

ITERATIONS = 60  # as the Rust demo
# The Rust demo's boxes and trust-region radii.
BLOCKS = [
    sdrs.Block(np.full(4, -chain_reach.TRAVEL), np.full(4, chain_reach.TRAVEL), 0.05, 0.2),
    sdrs.Block(np.full(8, chain_reach.LENGTH_CHANGE[0]), np.full(8, chain_reach.LENGTH_CHANGE[1]), 0.02, 0.05),
]


def test_torch_trust_region_reproduces_the_rust_loop():
    objective = chain_reach.build()
    assert objective.parameters == 4 and objective.design_parameters == chain_reach.LINKS
    loss, c, p = chain_reach.trust_region(objective, ITERATIONS)
    rust = sdrs.minimise(objective, [np.zeros(4), np.zeros(8)], BLOCKS, ITERATIONS)
    print(f"chain reach: torch trust region {loss:.9e}, Rust minimise {rust.loss:.9e}")
    assert abs(loss - rust.loss) < 1e-6
    assert rust.loss < 0.01 * rust.history[0]  # the co-design reaches the target


def test_torch_adam_reaches_the_rust_demos_loss():
    objective = chain_reach.build()
    rust = sdrs.minimise(objective, [np.zeros(4), np.zeros(8)], BLOCKS, ITERATIONS)
    loss, c, p = chain_reach.adam(objective)
    print(f"chain reach: torch.optim.Adam {loss:.9e}, Rust minimise {rust.loss:.9e}")
    assert abs(loss - rust.loss) < 1e-6
    assert np.all(np.abs(c) <= chain_reach.TRAVEL)
    assert np.all((p >= chain_reach.LENGTH_CHANGE[0]) & (p <= chain_reach.LENGTH_CHANGE[1]))
