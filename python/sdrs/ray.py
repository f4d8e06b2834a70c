"""Rollouts and gradients over a Ray cluster, for sweeps that outgrow one machine.

A task is a scene and a builder: the scene travels as its scene-file TOML (a
:class:`sdrs.Scene` pickles as its text and the folder its relative paths start from), and
``build(scene) -> sdrs.Objective`` is a plain Python function that Ray ships to the workers
(cloudpickle). Each Ray task rebuilds the objective from the scene and evaluates its share of
the parameter rows with :func:`sdrs.evaluate_batch` / :func:`sdrs.rollout_batch`, so the
results equal the local batch's, whatever the number of workers or chunks.

::

    import ray, sdrs, sdrs.ray
    ray.init(num_cpus=2)
    losses, dc, dp = sdrs.ray.evaluate(build, scene, cs, ps)
"""

from __future__ import annotations

from typing import Callable, Optional, Tuple

import numpy as np
import ray

from . import Objective, Scene, evaluate_batch, rollout_batch

__all__ = ["evaluate", "rollout"]

Builder = Callable[[Scene], Objective]


@ray.remote
def _evaluate(build: Builder, scene: Scene, cs: np.ndarray, ps: Optional[np.ndarray]):
    return evaluate_batch(build(scene), cs, ps, threads=1)


@ray.remote
def _rollout(build: Builder, scene: Scene, cs: np.ndarray, ps: Optional[np.ndarray]):
    return rollout_batch(build(scene), cs, ps, threads=1)


def _chunks(cs: np.ndarray, ps: Optional[np.ndarray], chunks: int):
    cs = np.ascontiguousarray(cs, dtype=np.float64)
    if cs.ndim != 2:
        raise ValueError(f"cs must have shape (B, m), got {cs.shape}")
    if ps is not None:
        ps = np.ascontiguousarray(ps, dtype=np.float64)
        if ps.ndim != 2 or ps.shape[0] != cs.shape[0]:
            raise ValueError(f"ps must have shape ({cs.shape[0]}, k), got {ps.shape}")
    if chunks < 1:
        raise ValueError(f"chunks must be at least 1, got {chunks}")
    bounds = np.array_split(np.arange(cs.shape[0]), min(chunks, max(cs.shape[0], 1)))
    return [(cs[b], None if ps is None else ps[b]) for b in bounds if len(b)]


def evaluate(
    build: Builder,
    scene: Scene,
    cs: np.ndarray,
    ps: Optional[np.ndarray] = None,
    chunks: Optional[int] = None,
) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Losses and gradients ``(losses (B,), dc (B, m), dp (B, k))`` of ``build(scene)`` at
    every row of ``cs`` (and ``ps``), in ``chunks`` Ray tasks (default: the cluster's CPUs).
    The same numbers as ``sdrs.evaluate_batch(build(scene), cs, ps)``."""
    chunks = chunks or int(ray.available_resources().get("CPU", 1))
    parts = ray.get([_evaluate.remote(build, scene, c, p) for c, p in _chunks(cs, ps, chunks)])
    return tuple(np.concatenate([part[i] for part in parts]) for i in range(3))  # type: ignore[return-value]


def rollout(
    build: Builder,
    scene: Scene,
    cs: np.ndarray,
    ps: Optional[np.ndarray] = None,
    chunks: Optional[int] = None,
) -> np.ndarray:
    """The states ``(B, H + 1, n)`` of ``build(scene)``'s rollouts at every row of ``cs``
    (and ``ps``), in ``chunks`` Ray tasks. The same as ``sdrs.rollout_batch``."""
    chunks = chunks or int(ray.available_resources().get("CPU", 1))
    parts = ray.get([_rollout.remote(build, scene, c, p) for c, p in _chunks(cs, ps, chunks)])
    return np.concatenate(parts)
