"""Gymnasium vector environments on sdrs whose rewards are differentiable torch functions of
the state: the same environment serves a policy-gradient learner through the NumPy
``gymnasium.vector.VectorEnv`` API (``reset``, ``step``) and a first-order learner (SHAC)
through :meth:`DifferentiableVectorEnv.step_torch`, whose rewards and observations carry
gradients back through every step to the actions (and so to a policy's parameters).

Two environments ship:

- :class:`AntRun`: gymnasium's ant (``ant.xml`` from the installed ``gymnasium`` package, or
  any copy, e.g. ``../shared/mjcf/ant.xml``) running along +x. Its actions are joint PD
  targets (see the class for why not the file's 150 N·m motors).
- :class:`CartpoleSwingUp`: a cart pushed along a rail swings its pole up from hanging
  (``assets/cartpole.xml``, ours).

Both take ``tolerance``, the Newton tolerance of the steps (``World.tolerance``; tighten it
for gradients checked against differences). Writing one's own: subclass :class:`DifferentiableVectorEnv` with a simulator and define
``initial_state`` (NumPy, from the environment's seeded generator), ``controls`` (actions in
[-1, 1] to the step's PD targets and forces), ``observe``, ``reward`` and ``terminated`` (torch
functions of the coordinate pair). The state of environment ``b`` is the pair ``(q_prev[b],
q[b])`` of :func:`sdrs.torch.step`; velocities are ``(q - q_prev) / dt``.

Episodes end by ``terminated`` or at ``max_episode_steps`` (truncated). Autoreset follows
Gymnasium's ``SAME_STEP`` mode: an environment that ends is reset within the same ``step``,
which returns its new observation, with the last one in ``info["final_obs"]`` (mask
``info["_final_obs"]``). A step the simulator cannot solve (``sdrs.ConvergenceError``) ends
that environment's episode as truncated, with the message in ``info["step_failures"]``; the
other environments go on.
"""

from __future__ import annotations

import importlib.resources
import os
from typing import Dict, Optional, Tuple

import numpy as np
import torch

try:
    import gymnasium
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError("sdrs.envs needs gymnasium (pip install gymnasium, or sdrs[envs])") from e
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from . import Control, Simulator, StepBatch, World
from . import torch as sdrs_torch

__all__ = ["DifferentiableVectorEnv", "AntRun", "CartpoleSwingUp", "SingleEnv"]

Tensor = torch.Tensor


class DifferentiableVectorEnv(VectorEnv):
    """A batch of ``num_envs`` environments of one simulator (see the module docs).

    ``gradients=True`` keeps each step's linearisation, so that :meth:`step_torch` can be
    differentiated; ``False`` steps faster for learners that need no gradients. The
    environments' warm starts are forgotten when they are reset, so an episode depends on
    its seed and actions alone.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        simulator: Simulator,
        num_envs: int,
        action_dim: int,
        observation_dim: int,
        max_episode_steps: int,
        gradients: bool = True,
    ) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        if max_episode_steps < 1:
            raise ValueError(f"max_episode_steps must be at least 1, got {max_episode_steps}")
        self.batch = StepBatch(simulator, num_envs, gradients=gradients)
        self.num_envs = num_envs
        self.dt = self.batch.dt
        self.max_episode_steps = max_episode_steps
        self.single_action_space = spaces.Box(-1.0, 1.0, (action_dim,), np.float64)
        self.single_observation_space = spaces.Box(-np.inf, np.inf, (observation_dim,), np.float64)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        n = self.batch.model.dof
        self.q_prev = torch.zeros(num_envs, n, dtype=torch.float64)
        self.q = torch.zeros(num_envs, n, dtype=torch.float64)
        self.elapsed = np.zeros(num_envs, dtype=np.int64)
        #: Steps the simulator could not solve since construction (each ended an episode).
        self.step_failures = 0
        self._np_random, self._np_random_seed = seeding.np_random()

    # What an environment defines.

    def initial_state(self, rng: np.random.Generator, count: int) -> Tuple[np.ndarray, np.ndarray]:
        """``count`` starts ``(q_prev, q)``, each ``(count, n)``, drawn from ``rng``."""
        raise NotImplementedError

    def controls(self, action: Tensor) -> Dict[str, Tensor]:
        """The step's ``position``/``velocity``/``force`` tensors ``(B, n)`` for actions in
        [-1, 1] ``(B, action_dim)``."""
        raise NotImplementedError

    def observe(self, q_prev: Tensor, q: Tensor) -> Tensor:
        """Observations ``(B, observation_dim)``."""
        raise NotImplementedError

    def reward(self, q_prev: Tensor, q: Tensor, q_next: Tensor, action: Tensor) -> Tensor:
        """The reward ``(B,)`` of the step from ``(q_prev, q)`` to ``q_next`` under ``action``."""
        raise NotImplementedError

    def terminated(self, q_prev: Tensor, q: Tensor) -> Tensor:
        """Whether each environment's episode has ended at ``(q_prev, q)`` (bool ``(B,)``)."""
        return torch.zeros(q.shape[0], dtype=torch.bool)

    # The vector environment.

    def _restart(self, mask: np.ndarray) -> None:
        """New starts for the environments in ``mask``, cut from the others' gradients."""
        index = np.flatnonzero(mask)
        if len(index) == 0:
            return
        q_prev, q = self.initial_state(self.np_random, len(index))
        rows = torch.as_tensor(mask)[:, None]
        new_prev = self.q_prev.detach().clone()
        new_q = self.q.detach().clone()
        new_prev[index] = torch.as_tensor(q_prev, dtype=torch.float64)
        new_q[index] = torch.as_tensor(q, dtype=torch.float64)
        self.q_prev = torch.where(rows, new_prev, self.q_prev)
        self.q = torch.where(rows, new_q, self.q)
        self.elapsed[index] = 0
        self.batch.reset(index.tolist())

    def reset(
        self, *, seed: Optional[int] = None, options: Optional[dict] = None
    ) -> Tuple[np.ndarray, dict]:
        """Resets every environment, or those of ``options["reset_mask"]`` (bool ``(B,)``); a
        ``seed`` reseeds the generator the starts are drawn from. The state's gradients are
        cut (:meth:`detach`) for every environment."""
        if seed is not None:
            self._np_random, self._np_random_seed = seeding.np_random(seed)
        mask = np.ones(self.num_envs, dtype=bool)
        if options is not None and "reset_mask" in options:
            mask = np.asarray(options["reset_mask"])
            if mask.shape != (self.num_envs,) or mask.dtype != np.bool_:
                raise ValueError(f"options['reset_mask'] must be a bool array of shape ({self.num_envs},)")
        self.detach()
        self._restart(mask)
        with torch.no_grad():
            obs = self.observe(self.q_prev, self.q)
        return obs.numpy(), {}

    def step_torch(self, actions: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, dict]:
        """One step under ``actions`` ``(B, action_dim)`` (clipped to [-1, 1]): observations,
        rewards, terminated and truncated (bool), info; differentiable in the actions and,
        through the state, in every earlier action since the last :meth:`detach`."""
        actions = torch.as_tensor(actions, dtype=torch.float64)
        if actions.shape != (self.num_envs, self.single_action_space.shape[0]):
            raise ValueError(f"actions must have shape {self.action_space.shape}, got {tuple(actions.shape)}")
        action = actions.clamp(-1.0, 1.0)
        q_next = sdrs_torch.step(self.batch, self.q_prev, self.q, on_failure="hold", **self.controls(action))
        failures = self.batch.last_failures
        failed = np.zeros(self.num_envs, dtype=bool)
        failed[list(failures)] = True
        self.step_failures += len(failures)
        reward = self.reward(self.q_prev, self.q, q_next, action)
        reward = torch.where(torch.as_tensor(failed), torch.zeros_like(reward), reward)
        self.q_prev, self.q = self.q, q_next
        self.elapsed += 1
        terminated = self.terminated(self.q_prev, self.q).detach()
        truncated = torch.as_tensor((self.elapsed >= self.max_episode_steps) | failed) & ~terminated
        done = (terminated | truncated).numpy()
        info: dict = {}
        if failures:
            info["step_failures"] = failures
        if done.any():
            info["final_obs"] = self.observe(self.q_prev, self.q)
            info["_final_obs"] = done
            self._restart(done)
        return self.observe(self.q_prev, self.q), reward, terminated, truncated, info

    def step(self, actions: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        """The NumPy step of ``gymnasium.vector.VectorEnv`` (no gradients kept)."""
        with torch.no_grad():
            obs, reward, terminated, truncated, info = self.step_torch(torch.as_tensor(actions))
        if "final_obs" in info:
            final = np.empty(self.num_envs, dtype=object)
            for b in np.flatnonzero(info["_final_obs"]):
                final[b] = info["final_obs"][b].numpy()
            info["final_obs"] = final
        return obs.numpy(), reward.numpy(), terminated.numpy(), truncated.numpy(), info

    def detach(self) -> None:
        """Cuts the state from the gradients of the steps so far (truncated backpropagation:
        SHAC calls it at the start of every short horizon)."""
        self.q_prev = self.q_prev.detach()
        self.q = self.q.detach()


def _gymnasium_asset(name: str) -> str:
    """The path of a MuJoCo model shipped in the installed gymnasium package."""
    return str(importlib.resources.files(gymnasium) / "envs" / "mujoco" / "assets" / name)


class AntRun(DifferentiableVectorEnv):
    """Gymnasium's ant (14 DoF: a free torso and 8 hinges, capsule legs) on the ground with
    friction 1, running along +x; Δt = 10 ms, episodes of 1000 steps (10 s).

    - Actions (8): PD targets of the hips and ankles across their ranges (±30° about each
      hip's centre, the ankles' 30-70°), stiffness ``kp`` (default 40 N·m/rad) and damping
      ``kd`` (1 N·m·s/rad). Not the file's 150 N·m motors: sdrs does not model joint armature
      yet, which gives MuJoCo's legs an inertia of 1 kg·m²; without it such torques fling
      the 30 g legs and the steps fail.
    - Observations (26): the torso's height and XYZ angles, the 8 joint angles, and the 14
      velocities ``(q - q_prev) / dt`` (as gymnasium's Ant, without x and y).
    - Reward: the torso's forward velocity, plus 1 while healthy, minus 0.05 |a|².
    - Terminated when the torso's height leaves [0.26, 1.0] m or it turns over.
    """

    HIPS = (6, 8, 10, 12)
    ANKLES = (7, 9, 11, 13)

    def __init__(
        self,
        num_envs: int,
        model: Optional[str] = None,
        *,
        max_episode_steps: int = 1000,
        kp: float = 40.0,
        kd: float = 1.0,
        gradients: bool = True,
        tolerance: Optional[float] = None,
    ) -> None:
        world = World(0.01)
        if tolerance is not None:
            world.tolerance = tolerance
        world.add_ground()
        world.set_friction(1.0)
        world.add_mjcf(model or _gymnasium_asset("ant.xml"))
        sim = world.build()
        n = sim.model.dof
        if n != 14:
            raise ValueError(f"{model} is not gymnasium's ant: it has {n} DoF, the ant 14")
        super().__init__(sim, num_envs, 8, 26, max_episode_steps, gradients)
        control = Control(sim.model)
        joints = list(self.HIPS + self.ANKLES)
        gains = np.zeros(n)
        gains[joints] = kp
        control.kp = gains
        gains[joints] = kd
        control.kd = gains
        self.batch.control = control
        # Hips ±30°; ankles 30-70° with the sign of each leg's range (ant.xml).
        centre = np.zeros(n)
        half = np.zeros(n)
        half[list(self.HIPS)] = np.radians(30.0)
        for j, sign in zip(self.ANKLES, (1.0, -1.0, -1.0, 1.0)):
            centre[j] = sign * np.radians(50.0)
            half[j] = np.radians(20.0)
        self._centre = torch.from_numpy(centre)
        self._half = torch.from_numpy(half)
        # The torso's body sits 0.75 m up in ant.xml; its free joint moves it from there.
        self._height = 0.75

    def initial_state(self, rng: np.random.Generator, count: int) -> Tuple[np.ndarray, np.ndarray]:
        q = np.tile(self._centre.numpy(), (count, 1))
        q[:, 2] = -0.2  # the torso at 0.55 m, gymnasium's start; the joints mid-range
        q[:, 6:] += rng.uniform(-0.1, 0.1, (count, 8))
        velocity = 0.1 * rng.standard_normal((count, q.shape[1]))
        return q - self.dt * velocity, q

    def controls(self, action: Tensor) -> Dict[str, Tensor]:
        joints = list(self.HIPS + self.ANKLES)
        index = torch.tensor(joints)
        position = self._centre.expand(action.shape[0], -1).clone()
        position[:, index] = self._centre[index] + self._half[index] * action
        return {"position": position}

    def observe(self, q_prev: Tensor, q: Tensor) -> Tensor:
        height = q[:, 2:3] + self._height
        return torch.cat([height, q[:, 3:], (q - q_prev) / self.dt], dim=1)

    def reward(self, q_prev: Tensor, q: Tensor, q_next: Tensor, action: Tensor) -> Tensor:
        forward = (q_next[:, 0] - q[:, 0]) / self.dt
        return forward + 1.0 - 0.05 * (action**2).sum(dim=1)

    def terminated(self, q_prev: Tensor, q: Tensor) -> Tensor:
        height = q[:, 2] + self._height
        # Up-vector of Rx(a) Ry(b) Rz(c): its z is cos a cos b.
        upright = torch.cos(q[:, 3]) * torch.cos(q[:, 4])
        return (height < 0.26) | (height > 1.0) | (upright < 0.0)


class CartpoleSwingUp(DifferentiableVectorEnv):
    """A 1 kg cart on a ±3 m rail with a 0.6 m, 0.1 kg pole hanging from it, swung up by
    pushing the cart (``assets/cartpole.xml``); Δt = 20 ms, episodes of 250 steps (5 s), no
    contact.

    - Actions (1): the push, ±20 N.
    - Observations (5): the cart's position, the pole's angle as (cos, sin) (0 upright), and
      both velocities.
    - Reward: ``−(θ² + 0.05 x² + 0.01 θ̇² + 0.01 ẋ² + 0.01 a²)`` with θ the pole's angle from
      upright in (−π, π]: 0 upright and still at the centre, about −10 hanging. Its slope
      does not vanish at the bottom as ``cos θ``'s does, so first-order learners get a push.
    """

    def __init__(
        self,
        num_envs: int,
        *,
        max_episode_steps: int = 250,
        gradients: bool = True,
        tolerance: Optional[float] = None,
    ) -> None:
        world = World(0.02)
        if tolerance is not None:
            world.tolerance = tolerance
        world.set_contact(None)
        world.add_mjcf(os.path.join(os.path.dirname(__file__), "assets", "cartpole.xml"))
        super().__init__(world.build(), num_envs, 1, 5, max_episode_steps, gradients)

    def initial_state(self, rng: np.random.Generator, count: int) -> Tuple[np.ndarray, np.ndarray]:
        q = np.stack([rng.uniform(-0.2, 0.2, count), np.pi + rng.uniform(-0.2, 0.2, count)], axis=1)
        velocity = 0.1 * rng.standard_normal((count, 2))
        return q - self.dt * velocity, q

    def controls(self, action: Tensor) -> Dict[str, Tensor]:
        hinge = torch.zeros(action.shape[0], 1, dtype=torch.float64)
        return {"force": torch.cat([20.0 * action, hinge], dim=1)}

    def observe(self, q_prev: Tensor, q: Tensor) -> Tensor:
        v = (q - q_prev) / self.dt
        return torch.stack([q[:, 0], torch.cos(q[:, 1]), torch.sin(q[:, 1]), v[:, 0], v[:, 1]], dim=1)

    def reward(self, q_prev: Tensor, q: Tensor, q_next: Tensor, action: Tensor) -> Tensor:
        v = (q_next - q) / self.dt
        x, theta = q_next[:, 0], torch.atan2(torch.sin(q_next[:, 1]), torch.cos(q_next[:, 1]))
        cost = theta**2 + 0.05 * x**2 + 0.01 * v[:, 1] ** 2 + 0.01 * v[:, 0] ** 2 + 0.01 * action[:, 0] ** 2
        return -cost


class SingleEnv(gymnasium.Env):
    """One environment of a :class:`DifferentiableVectorEnv` class as a ``gymnasium.Env``
    (``SingleEnv(CartpoleSwingUp)``), for single-environment tools such as
    ``gymnasium.utils.env_checker.check_env``. Its episodes end rather than reset."""

    metadata = {"render_modes": []}

    def __init__(self, make, **kwargs) -> None:
        self.vector = make(1, gradients=False, **kwargs)
        self.observation_space = self.vector.single_observation_space
        self.action_space = self.vector.single_action_space

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        super().reset(seed=seed)
        obs, info = self.vector.reset(seed=seed, options=options)
        return obs[0], info

    def step(self, action):
        obs, reward, terminated, truncated, info = self.vector.step(np.asarray(action)[None, :])
        if terminated[0] or truncated[0]:
            obs = info["final_obs"]
        return obs[0], float(reward[0]), bool(terminated[0]), bool(truncated[0]), {}
