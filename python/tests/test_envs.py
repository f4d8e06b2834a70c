"""sdrs.envs and sdrs.learn: the vector environments' Gymnasium API (gymnasium's own checker on
one environment, seeding, partial resets, same-step autoreset), their differentiable rewards
against differences, failed steps ending episodes, and a short SHAC run whose reward rises."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
gymnasium = pytest.importorskip("gymnasium")
from gymnasium.utils.env_checker import check_env  # noqa: E402

import sdrs  # noqa: E402
from sdrs.envs import AntRun, CartpoleSwingUp, DifferentiableVectorEnv, SingleEnv  # noqa: E402
from sdrs.learn import GaussianPolicy, ShacSettings, evaluate, shac  # noqa: E402


@pytest.mark.parametrize("make", [CartpoleSwingUp, AntRun])
def test_one_environment_passes_gymnasiums_checker(make):
    check_env(SingleEnv(make), skip_render_check=True)


def run(env, seed: int, steps: int) -> list:
    """Observations, rewards, terminations and truncations of `steps` seeded random steps."""
    out = [env.reset(seed=seed)[0]]
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        obs, reward, terminated, truncated, _ = env.step(rng.uniform(-1, 1, env.action_space.shape))
        out += [obs, reward, terminated, truncated]
    return out


@pytest.mark.parametrize("make", [CartpoleSwingUp, AntRun])
def test_seeded_runs_repeat_and_seeds_differ(make):
    a, b = make(3, gradients=False), make(3, gradients=False)
    first, again = run(a, 7, 5), run(b, 7, 5)
    for x, y in zip(first, again):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(run(a, 8, 0)[0], first[0])
    assert a.observation_space.contains(first[-4]) and first[-4].dtype == np.float64


def test_partial_reset_and_same_step_autoreset():
    env = CartpoleSwingUp(4, max_episode_steps=3, gradients=False)
    obs, _ = env.reset(seed=1)
    moved = env.step(np.full((4, 1), 0.5))[0]
    mask = np.array([True, False, True, False])
    again, _ = env.reset(options={"reset_mask": mask})
    np.testing.assert_array_equal(again[~mask], moved[~mask])
    assert not np.allclose(again[mask], moved[mask])
    assert list(env.elapsed) == [0, 1, 0, 1]
    with pytest.raises(ValueError, match="reset_mask"):
        env.reset(options={"reset_mask": np.array([1, 0, 1, 0])})
    env.step(np.zeros((4, 1)))
    obs, _, terminated, truncated, info = env.step(np.zeros((4, 1)))
    # Environments 1 and 3 reach 3 steps: reset in the same step, their last observation kept.
    assert list(truncated) == [False, True, False, True] and not terminated.any()
    assert list(info["_final_obs"]) == [False, True, False, True]
    assert info["final_obs"][1].shape == (5,) and info["final_obs"][0] is None
    assert list(env.elapsed) == [2, 0, 2, 0]
    assert not np.allclose(obs[1], info["final_obs"][1])


def test_rewards_are_differentiable_through_the_steps():
    """The sum of 4 steps' rewards of the cartpole (solved to 1e-11) in the actions of every
    step, against torch's differences."""
    env = CartpoleSwingUp(2, tolerance=1e-11)

    def total(actions: torch.Tensor) -> torch.Tensor:
        env.reset(seed=3)
        rewards = [env.step_torch(actions[t])[1] for t in range(actions.shape[0])]
        return torch.stack(rewards).sum(0)

    actions = torch.tensor(np.random.default_rng(0).uniform(-0.8, 0.8, (4, 2, 1)), requires_grad=True)
    assert torch.autograd.gradcheck(total, (actions,), eps=1e-6, atol=1e-5, rtol=1e-4)


class BoxesOneSunk(DifferentiableVectorEnv):
    """Boxes on the ground, the second started inside it: its every step fails."""

    def __init__(self, num_envs: int, gradients: bool = True) -> None:
        world = sdrs.World(0.01)
        world.add_ground()
        world.add_object("box", sdrs.Hull.box((0.1, 0.1, 0.1)), 1.0, xyz=(0.0, 0.0, 0.1008))
        super().__init__(world.build(), num_envs, 1, 6, 50, gradients)

    def initial_state(self, rng, count):
        q = np.zeros((count, 6))
        q[1::2, 2] = -0.05  # odd environments 5 cm into the ground
        return q, q

    def controls(self, action):
        return {"force": torch.cat([5.0 * action, torch.zeros(action.shape[0], 5, dtype=torch.float64)], 1)}

    def observe(self, q_prev, q):
        return q

    def reward(self, q_prev, q, q_next, action):
        return q_next[:, 0]


def test_a_failed_step_ends_its_episode_and_the_others_go_on():
    env = BoxesOneSunk(2)
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step_torch(torch.ones(2, 1, dtype=torch.float64))
    assert list(truncated) == [False, True] and not terminated.any()
    assert list(info["step_failures"]) == [1] and "overlap" in info["step_failures"][1]
    assert env.step_failures == 1 and float(reward[1]) == 0.0 and float(reward[0]) > 0.0


def test_a_short_shac_run_raises_the_reward():
    """40 SHAC iterations on 32 cartpoles with 100-step episodes: the last training episodes
    beat the first ones, and the policy's mean actions beat the untrained policy's on the same
    starts (seeded: -431 before, -396 after)."""
    env = CartpoleSwingUp(32, max_episode_steps=100)
    torch.manual_seed(0)
    untrained = GaussianPolicy(5, 1)  # shac's first policy, from the same seed
    policy, log = shac(env, ShacSettings(iterations=40, horizon=25), seed=0)
    ended = [r for r in log.episode_reward if not np.isnan(r)]
    assert len(ended) >= 8
    assert np.mean(ended[-3:]) > np.mean(ended[:3]) + 50.0, ended
    judge = CartpoleSwingUp(16, max_episode_steps=100, gradients=False)
    assert evaluate(judge, policy) > evaluate(judge, untrained) + 20.0
    assert log.steps[-1] == 40 * 25 * 32 and log.seconds == sorted(log.seconds)
