"""SHAC (first-order, through sdrs's gradients) against PPO (zeroth-order) on an sdrs vector
environment, from several seeds, with the same budget of simulated steps: writes the runs
(JSON), a plot of episode reward against simulated steps and against wall time (PNG, if
matplotlib is installed) and prints a summary.

``python examples/shac_vs_ppo.py [--env cartpole|ant] [--seeds 0 1 2] [--steps 600000]
[--envs 64] [--out DIR]``  (default DIR: ``target/sdrs-out/shac_vs_ppo`` in the repository)
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np
import torch

from sdrs.envs import AntRun, CartpoleSwingUp
from sdrs.learn import PpoSettings, ShacSettings, evaluate, ppo, shac

ENVS = {"cartpole": CartpoleSwingUp, "ant": AntRun}
HORIZON = 32  # SHAC's horizon and PPO's rollout length alike


def filled(rewards: list) -> list:
    """Episode rewards carried forward over iterations in which no episode ended."""
    out, last = [], float("nan")
    for r in rewards:
        last = r if not np.isnan(r) else last
        out.append(last)
    return out


def one_run(name: str, algorithm: str, seed: int, steps: int, envs: int) -> dict:
    make = ENVS[name]
    iterations = max(1, steps // (HORIZON * envs))
    env = make(envs, gradients=algorithm == "shac")
    clock = time.perf_counter()
    if algorithm == "shac":
        policy, log = shac(env, ShacSettings(iterations=iterations, horizon=HORIZON), seed=seed)
    else:
        policy, log = ppo(env, PpoSettings(iterations=iterations, rollout=HORIZON), seed=seed)
    seconds = time.perf_counter() - clock
    final = evaluate(make(16, gradients=False), policy, seed=10_000 + seed)
    print(
        f"{name} {algorithm} seed {seed}: {log.steps[-1]} steps in {seconds:.0f} s, "
        f"final reward (mean action, 16 episodes) {final:.1f}, step failures {env.step_failures}",
        flush=True,
    )
    return {
        "algorithm": algorithm,
        "seed": seed,
        "steps": log.steps,
        "seconds": log.seconds,
        "episode_reward": filled(log.episode_reward),
        "final_reward": final,
        "step_failures": env.step_failures,
    }


def plot(runs: list, path: str, title: str) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for algorithm, colour in (("shac", "tab:blue"), ("ppo", "tab:orange")):
        for k, run in enumerate(r for r in runs if r["algorithm"] == algorithm):
            label = algorithm.upper() if k == 0 else None
            axes[0].plot(run["steps"], run["episode_reward"], color=colour, alpha=0.8, label=label)
            axes[1].plot(run["seconds"], run["episode_reward"], color=colour, alpha=0.8, label=label)
    axes[0].set_xlabel("simulated steps")
    axes[1].set_xlabel("wall time (s, 2 cores)")
    for ax in axes:
        ax.set_ylabel("episode reward")
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return True


def main() -> None:
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", choices=sorted(ENVS), default="cartpole")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--steps", type=int, default=600_000)
    parser.add_argument("--envs", type=int, default=64)
    parser.add_argument("--out", default=os.path.join(root, "target", "sdrs-out", "shac_vs_ppo"))
    args = parser.parse_args()
    torch.set_num_threads(1)  # the simulator's batch uses the cores
    os.makedirs(args.out, exist_ok=True)
    runs = [
        one_run(args.env, algorithm, seed, args.steps, args.envs)
        for seed in args.seeds
        for algorithm in ("shac", "ppo")
    ]
    stem = os.path.join(args.out, args.env)
    with open(stem + ".json", "w") as f:
        json.dump({"env": args.env, "envs": args.envs, "horizon": HORIZON, "runs": runs}, f)
    print(f"runs: {stem}.json")
    title = f"{args.env}: {args.envs} environments, {len(args.seeds)} seeds"
    if plot(runs, stem + ".png", title):
        print(f"plot: {stem}.png")
    else:
        print("plot skipped: pip install matplotlib to draw it")
    for algorithm in ("shac", "ppo"):
        mine = [r for r in runs if r["algorithm"] == algorithm]
        finals = [r["final_reward"] for r in mine]
        print(
            f"{algorithm.upper():4s}: final reward {np.mean(finals):8.1f} ± {np.std(finals):.1f} "
            f"over seeds, {np.mean([r['seconds'][-1] for r in mine]):.0f} s per run"
        )
    # Simulated steps and wall time SHAC needed to reach PPO's mean final training reward.
    target = np.mean([r["episode_reward"][-1] for r in runs if r["algorithm"] == "ppo"])
    for r in (r for r in runs if r["algorithm"] == "shac"):
        reached = [k for k, v in enumerate(r["episode_reward"]) if v >= target]
        where = (
            f"{r['steps'][reached[0]]} steps, {r['seconds'][reached[0]]:.0f} s" if reached else "not reached"
        )
        print(f"SHAC seed {r['seed']} reaches PPO's final training reward {target:.1f}: {where}")


if __name__ == "__main__":
    main()
