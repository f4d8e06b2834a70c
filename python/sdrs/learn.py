"""Policy learning on :mod:`sdrs.envs`: SHAC, which backpropagates short horizons of rewards
through the simulator (Xu et al. 2022, "Accelerated Policy Learning with Parallel
Differentiable Simulation"), and PPO (Schulman et al. 2017), the zeroth-order baseline.
Both are compact torch implementations with Gaussian MLP policies and running observation
normalisation, and both log ``(simulated steps, wall seconds, mean episode reward)``.

SHAC, per iteration: cut the state's gradients (``env.detach()``); roll ``horizon`` steps
with reparameterised actions; the actor's loss is minus the mean over environments of the
discounted rewards plus the discounted value of the last state (a target critic), with values
added where episodes end early (not where they are terminated); one Adam step on its gradient,
which flows through every step by :func:`sdrs.torch.step`. The critic then fits TD(λ)
targets of the same rollout for a few epochs, and its target follows it (Polyak averaging).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, List, Optional, Tuple

import numpy as np
import torch
from torch import nn

from .envs import DifferentiableVectorEnv

__all__ = ["GaussianPolicy", "Log", "ShacSettings", "PpoSettings", "shac", "ppo", "evaluate"]


def mlp(inputs: int, outputs: int, hidden: Tuple[int, ...], activation=nn.ELU) -> nn.Sequential:
    """A multilayer perceptron."""
    layers: List[nn.Module] = []
    for width in hidden:
        layers += [nn.Linear(inputs, width), activation()]
        inputs = width
    layers.append(nn.Linear(inputs, outputs))
    return nn.Sequential(*layers).double()


class RunningNormal(nn.Module):
    """Running mean and variance of observations, which it normalises (clipped to ±5σ)."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.register_buffer("mean", torch.zeros(size, dtype=torch.float64))
        self.register_buffer("var", torch.ones(size, dtype=torch.float64))
        self.register_buffer("count", torch.tensor(1e-4, dtype=torch.float64))

    @torch.no_grad()
    def update(self, x: torch.Tensor) -> None:
        batch_mean, batch_var, n = x.mean(0), x.var(0, unbiased=False), x.shape[0]
        total = self.count + n
        delta = batch_mean - self.mean
        self.mean += delta * n / total
        self.var = (self.var * self.count + batch_var * n + delta**2 * self.count * n / total) / total
        self.count = total

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return ((x - self.mean) / torch.sqrt(self.var + 1e-8)).clamp(-5.0, 5.0)


class GaussianPolicy(nn.Module):
    """Actions ``N(μ(normalised obs), σ²)`` with a state-independent, learned ``log σ``."""

    def __init__(self, observations: int, actions: int, hidden: Tuple[int, ...] = (64, 64), log_std: float = -0.5):
        super().__init__()
        self.normal = RunningNormal(observations)
        self.mean = mlp(observations, actions, hidden)
        self.log_std = nn.Parameter(torch.full((actions,), log_std, dtype=torch.float64))

    def distribution(self, obs: torch.Tensor) -> torch.distributions.Normal:
        return torch.distributions.Normal(self.mean(self.normal(obs)), self.log_std.exp())

    def act(self, obs: torch.Tensor, deterministic: bool = False) -> torch.Tensor:
        """An action: the mean, or a reparameterised sample (differentiable in both cases)."""
        d = self.distribution(obs)
        return d.mean if deterministic else d.rsample()


@dataclass
class Log:
    """A learning run's record: after each iteration, simulated steps so far, wall seconds
    so far, and the mean reward of the episodes that ended in it (NaN if none did)."""

    steps: List[int] = field(default_factory=list)
    seconds: List[float] = field(default_factory=list)
    episode_reward: List[float] = field(default_factory=list)

    def add(self, steps: int, seconds: float, rewards: List[float]) -> None:
        self.steps.append(steps)
        self.seconds.append(seconds)
        self.episode_reward.append(float(np.mean(rewards)) if rewards else float("nan"))


class EpisodeTracker:
    """Sums each environment's rewards over its episode; collects the sums as episodes end."""

    def __init__(self, num_envs: int) -> None:
        self.running = np.zeros(num_envs)
        self.finished: List[float] = []

    def add(self, reward: np.ndarray, done: np.ndarray) -> None:
        self.running += reward
        self.finished.extend(self.running[done].tolist())
        self.running[done] = 0.0

    def take(self) -> List[float]:
        out, self.finished = self.finished, []
        return out


def _networks(env: DifferentiableVectorEnv, hidden: Tuple[int, ...], seed: int) -> Tuple[GaussianPolicy, nn.Sequential]:
    """A learner's actor and critic for ``env``, initialised from ``seed``."""
    torch.manual_seed(seed)
    obs_dim = env.single_observation_space.shape[0]
    actor = GaussianPolicy(obs_dim, env.single_action_space.shape[0], hidden)
    return actor, mlp(obs_dim, 1, hidden)


@dataclass
class ShacSettings:
    """SHAC's hyperparameters (the paper's defaults, but a smaller network)."""

    iterations: int = 200
    horizon: int = 32
    gamma: float = 0.99
    lam: float = 0.95
    actor_lr: float = 2e-3
    critic_lr: float = 2e-3
    critic_epochs: int = 16
    critic_minibatches: int = 4
    target_polyak: float = 0.2
    max_grad_norm: float = 1.0
    hidden: Tuple[int, ...] = (64, 64)


def shac(
    env: DifferentiableVectorEnv,
    settings: ShacSettings = ShacSettings(),
    seed: int = 0,
    progress: Optional[Callable[[int, Log], None]] = None,
) -> Tuple[GaussianPolicy, Log]:
    """Trains a policy on ``env`` (built with ``gradients=True``) by SHAC; returns it and the
    run's log. ``progress(iteration, log)`` is called after every iteration."""
    actor, critic = _networks(env, settings.hidden, seed)
    obs_dim = env.single_observation_space.shape[0]
    target = mlp(obs_dim, 1, settings.hidden)
    target.load_state_dict(critic.state_dict())
    target.requires_grad_(False)  # values pass gradients to their states, not to its weights
    actor_opt = torch.optim.Adam(actor.parameters(), lr=settings.actor_lr)
    critic_opt = torch.optim.Adam(critic.parameters(), lr=settings.critic_lr)
    value = lambda net, o: net(actor.normal(o)).squeeze(-1)  # noqa: E731
    obs = torch.from_numpy(env.reset(seed=seed)[0])
    episodes = EpisodeTracker(env.num_envs)
    log, clock, steps = Log(), time.perf_counter(), 0
    H, B, gamma = settings.horizon, env.num_envs, settings.gamma
    for iteration in range(settings.iterations):
        env.detach()
        obs = obs.detach()
        total = torch.zeros(B, dtype=torch.float64)
        discount = torch.ones(B, dtype=torch.float64)
        observations = torch.zeros(H + 1, B, obs_dim, dtype=torch.float64)
        rewards = torch.zeros(H, B, dtype=torch.float64)
        ends = torch.zeros(H, B, dtype=torch.bool)  # the episode ended after step h
        cut = torch.zeros(H, B, dtype=torch.bool)  # ... and was truncated (bootstrapped)
        finals = torch.zeros(H, B, obs_dim, dtype=torch.float64)
        actor.normal.update(obs)
        for h in range(H):
            observations[h] = obs.detach()
            action = actor.act(obs)
            obs, reward, terminated, truncated, info = env.step_torch(action)
            steps += B
            done = terminated | truncated
            total = total + discount * reward
            if done.any():
                final = info["final_obs"]
                bootstrap = value(target, final)
                total = total + torch.where(truncated, discount * gamma * bootstrap, torch.zeros_like(total))
                finals[h] = final.detach()
            rewards[h] = reward.detach()
            ends[h], cut[h] = done, truncated
            discount = torch.where(done, torch.ones_like(discount), discount * gamma)
            episodes.add(reward.detach().numpy(), done.numpy())
        total = total + discount * value(target, obs)
        observations[H] = obs.detach()
        actor_loss = -total.mean() / H
        actor_opt.zero_grad()
        actor_loss.backward()
        nn.utils.clip_grad_norm_(actor.parameters(), settings.max_grad_norm)
        actor_opt.step()
        # The critic: TD(λ) targets from the target critic, backwards over the horizon.
        with torch.no_grad():
            values = value(target, observations.reshape(-1, obs_dim)).reshape(H + 1, B)
            final_values = value(target, finals.reshape(-1, obs_dim)).reshape(H, B)
            targets = torch.zeros(H, B, dtype=torch.float64)
            ahead = values[H]
            for h in reversed(range(H)):
                after = torch.where(ends[h], torch.where(cut[h], final_values[h], torch.zeros(B, dtype=torch.float64)), values[h + 1])
                ahead = torch.where(ends[h], after, ahead)
                targets[h] = rewards[h] + gamma * ((1 - settings.lam) * after + settings.lam * ahead)
                ahead = targets[h]
        flat_obs, flat_targets = observations[:H].reshape(-1, obs_dim), targets.reshape(-1)
        for _ in range(settings.critic_epochs):
            for part in torch.randperm(H * B).chunk(settings.critic_minibatches):
                loss = ((value(critic, flat_obs[part]) - flat_targets[part]) ** 2).mean()
                critic_opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(critic.parameters(), settings.max_grad_norm)
                critic_opt.step()
        with torch.no_grad():
            for p, q in zip(target.parameters(), critic.parameters()):
                p.mul_(settings.target_polyak).add_((1 - settings.target_polyak) * q)
        log.add(steps, time.perf_counter() - clock, episodes.take())
        if progress is not None:
            progress(iteration, log)
    return actor, log


@dataclass
class PpoSettings:
    """PPO's hyperparameters (common continuous-control defaults)."""

    iterations: int = 200
    rollout: int = 32
    gamma: float = 0.99
    lam: float = 0.95
    lr: float = 3e-4
    epochs: int = 5
    minibatches: int = 4
    clip: float = 0.2
    value_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: Tuple[int, ...] = (64, 64)


def ppo(
    env: DifferentiableVectorEnv,
    settings: PpoSettings = PpoSettings(),
    seed: int = 0,
    progress: Optional[Callable[[int, Log], None]] = None,
) -> Tuple[GaussianPolicy, Log]:
    """Trains a policy on ``env`` (``gradients=False`` is enough, and faster) by PPO with
    clipped ratios and GAE(λ); returns it and the run's log."""
    actor, critic = _networks(env, settings.hidden, seed)
    obs_dim = env.single_observation_space.shape[0]
    act_dim = env.single_action_space.shape[0]
    params = list(actor.parameters()) + list(critic.parameters())
    opt = torch.optim.Adam(params, lr=settings.lr)
    value = lambda o: critic(actor.normal(o)).squeeze(-1)  # noqa: E731
    obs = torch.from_numpy(env.reset(seed=seed)[0])
    episodes = EpisodeTracker(env.num_envs)
    log, clock, steps = Log(), time.perf_counter(), 0
    T, B = settings.rollout, env.num_envs
    for iteration in range(settings.iterations):
        buf_obs = torch.zeros(T, B, obs_dim, dtype=torch.float64)
        buf_act = torch.zeros(T, B, act_dim, dtype=torch.float64)
        buf_logp = torch.zeros(T, B, dtype=torch.float64)
        buf_rew = torch.zeros(T, B, dtype=torch.float64)
        buf_val = torch.zeros(T + 1, B, dtype=torch.float64)
        buf_end = torch.zeros(T, B, dtype=torch.bool)
        buf_boot = torch.zeros(T, B, dtype=torch.float64)
        with torch.no_grad():
            actor.normal.update(obs)
            for t in range(T):
                d = actor.distribution(obs)
                action = d.sample()
                buf_obs[t], buf_act[t] = obs, action
                buf_logp[t] = d.log_prob(action).sum(-1)
                buf_val[t] = value(obs)
                next_obs, reward, terminated, truncated, info = env.step(action.numpy())
                steps += B
                reward = torch.from_numpy(reward)
                truncated, terminated = torch.from_numpy(truncated), torch.from_numpy(terminated)
                done = terminated | truncated
                if truncated.any():
                    final = torch.from_numpy(np.stack([f for f in info["final_obs"][truncated.numpy()]]))
                    buf_boot[t][truncated] = settings.gamma * value(final)
                buf_rew[t], buf_end[t] = reward, done
                episodes.add(reward.numpy(), done.numpy())
                obs = torch.from_numpy(next_obs)
            buf_val[T] = value(obs)
            advantages = torch.zeros(T, B, dtype=torch.float64)
            gae = torch.zeros(B, dtype=torch.float64)
            for t in reversed(range(T)):
                ahead = torch.where(buf_end[t], buf_boot[t], settings.gamma * buf_val[t + 1])
                delta = buf_rew[t] + ahead - buf_val[t]
                gae = delta + settings.gamma * settings.lam * torch.where(buf_end[t], torch.zeros_like(gae), gae)
                advantages[t] = gae
            returns = advantages + buf_val[:T]
        flat = lambda x: x.reshape(T * B, *x.shape[2:])  # noqa: E731
        o, a, lp, adv, ret = map(flat, (buf_obs, buf_act, buf_logp, advantages, returns))
        for _ in range(settings.epochs):
            for part in torch.randperm(T * B).chunk(settings.minibatches):
                d = actor.distribution(o[part])
                ratio = (d.log_prob(a[part]).sum(-1) - lp[part]).exp()
                norm_adv = (adv[part] - adv[part].mean()) / (adv[part].std() + 1e-8)
                policy_loss = -torch.min(ratio * norm_adv, ratio.clamp(1 - settings.clip, 1 + settings.clip) * norm_adv).mean()
                value_loss = ((value(o[part]) - ret[part]) ** 2).mean()
                opt.zero_grad()
                (policy_loss + settings.value_coef * value_loss).backward()
                nn.utils.clip_grad_norm_(params, settings.max_grad_norm)
                opt.step()
        log.add(steps, time.perf_counter() - clock, episodes.take())
        if progress is not None:
            progress(iteration, log)
    return actor, log


@torch.no_grad()
def evaluate(env: DifferentiableVectorEnv, policy: GaussianPolicy, episodes: int = 1, seed: int = 1234) -> float:
    """The mean total reward of the policy's mean actions over ``episodes`` episodes in each of
    ``env``'s environments."""
    obs = torch.from_numpy(env.reset(seed=seed)[0])
    tracker = EpisodeTracker(env.num_envs)
    while len(tracker.finished) < episodes * env.num_envs:
        obs, reward, terminated, truncated, _ = env.step(policy.act(obs, deterministic=True).numpy())
        tracker.add(reward, terminated | truncated)
        obs = torch.from_numpy(obs)
    return float(np.mean(tracker.finished))
