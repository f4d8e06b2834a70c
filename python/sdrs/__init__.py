"""sdrs from Python: a shape-differentiable robot simulator.

Build a world (:class:`World`: robots from links or URDF, objects, a ground, contact) or load
a scene file (:class:`Scene`), step it (:class:`Simulator`, :class:`Motion`, :class:`Control`),
roll it out under controls or policies (:class:`OpenLoop`, :class:`SineWaves`,
:class:`CubicSpline`), and differentiate: :meth:`Simulator.adjoint` / :meth:`Simulator.tangent`
on a recorded :class:`Trajectory`, or an :class:`Objective` (policy, loss, design map) whose
``evaluate(c, p)`` gives the loss and its gradients. Batches run on all cores
(:func:`evaluate_batch`, :func:`rollout_batch`, and :class:`StepBatch`, many environments
stepped one step at a time); :mod:`sdrs.torch` makes a batched step and rollouts
``torch.autograd`` functions and :mod:`sdrs.ray` maps them over a Ray cluster.
:mod:`sdrs.envs` (with ``gymnasium``) builds vector environments with differentiable rewards
on the batched step, and :mod:`sdrs.learn` trains policies on them (SHAC, PPO).

Arrays are NumPy ``float64``; wrong shapes and NaN raise ``ValueError``, unknown names
``KeyError``, failed simulations :class:`SimulationError` (:class:`PenetrationError`,
:class:`ConvergenceError`), all with the Rust message.
"""

from ._sdrs import (
    Adam,
    Block,
    CentreOfMass,
    ContactSettings,
    Control,
    ConvergenceError,
    CubicSpline,
    DesignMap,
    Distance,
    Effort,
    Evaluation,
    Gradient,
    Hull,
    Link,
    LinkPoint,
    Loss,
    Model,
    Motion,
    ObjectHandle,
    Objective,
    OpenLoop,
    Optimum,
    PenetrationError,
    PointTarget,
    Policy,
    RobotHandle,
    Rollout,
    Scene,
    SceneSetup,
    SimulationError,
    Simulator,
    SineWaves,
    StepBatch,
    StepRecord,
    Sum,
    Trajectory,
    World,
    evaluate_batch,
    load_trajectory,
    minimise,
    projected_step,
    rollout_batch,
)

__all__ = [
    "Adam",
    "Block",
    "CentreOfMass",
    "ContactSettings",
    "Control",
    "ConvergenceError",
    "CubicSpline",
    "DesignMap",
    "Distance",
    "Effort",
    "Evaluation",
    "Gradient",
    "Hull",
    "Link",
    "LinkPoint",
    "Loss",
    "Model",
    "Motion",
    "ObjectHandle",
    "Objective",
    "OpenLoop",
    "Optimum",
    "PenetrationError",
    "PointTarget",
    "Policy",
    "RobotHandle",
    "Rollout",
    "Scene",
    "SceneSetup",
    "SimulationError",
    "Simulator",
    "SineWaves",
    "StepBatch",
    "StepRecord",
    "Sum",
    "Trajectory",
    "World",
    "evaluate_batch",
    "load_trajectory",
    "minimise",
    "projected_step",
    "rollout_batch",
]
