"""Type stubs of the native module ``sdrs._sdrs`` (re-exported by ``sdrs``)."""

from os import PathLike
from typing import Any, Dict, List, Literal, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

ArrayLike = npt.ArrayLike
Array = npt.NDArray[np.float64]
Path = Union[str, PathLike]

class SimulationError(Exception):
    """A simulation failed: a step, a rollout or its derivatives could not be computed."""

class PenetrationError(SimulationError):
    """Two links overlap where a step starts, so the contact barrier is infinite there."""

class ConvergenceError(SimulationError):
    """A time step's Newton solve did not reach its tolerance."""

class Hull:
    """A convex hull in V-representation, from ``(n, 3)`` points."""
    def __init__(self, vertices: ArrayLike) -> None: ...
    @staticmethod
    def box(half_extents: ArrayLike) -> Hull:
        """A box with half extents ``(hx, hy, hz)`` centred at the origin."""
    @property
    def vertices(self) -> Array:
        """The vertices, ``(n, 3)``."""

class Link:
    """One link of a robot: joint (``fixed``, ``revolute``, ``prismatic``, ``spherical``,
    ``free``), attachment ``xyz``/``rpy`` to the parent link (an index in the same list),
    hulls and lumped mass; the joint's dry ``friction`` per DoF (N·m or N, MuJoCo's
    ``frictionloss``) and rotor ``armature`` (kg·m² or kg, revolute and prismatic joints)."""
    def __init__(
        self,
        name: str,
        joint: str,
        *,
        axis: Optional[ArrayLike] = None,
        parent: Optional[int] = None,
        xyz: Optional[ArrayLike] = None,
        rpy: Optional[ArrayLike] = None,
        hulls: Sequence[Hull] = ...,
        mass: float = 1.0,
        limits: Optional[Tuple[float, float]] = None,
        joint_name: Optional[str] = None,
        friction: float = 0.0,
        armature: float = 0.0,
    ) -> None: ...
    @property
    def name(self) -> str: ...

class ContactSettings:
    """Contact of ``model`` ``"hulls"`` (SDRS plane barrier of ``support``, default 1 cm, the
    authors' setting, at which bodies rest about 2 cm apart; ``World``'s own contact, until
    replaced, has a support of at most 0.4 mm, scaled to its thinnest body, and stiffness
    1e5 N times its square),
    ``"long_range"`` (long-range potential, blending margin ``epsilon``, far field
    ``"centred"``, the paper's eq. 7 and the default, or ``"counted"``, whose push falls with
    distance) or ``"ipc"`` (activation distance ``support``), barrier ``stiffness``, optional
    friction ``mu``."""
    def __init__(
        self,
        stiffness: float = 1.0,
        mu: Optional[float] = None,
        skip_adjacent: bool = False,
        model: str = "hulls",
        support: Optional[float] = None,
        epsilon: Optional[float] = None,
        far_field: Optional[str] = None,
    ) -> None: ...
    @property
    def model(self) -> str: ...
    @property
    def far_field(self) -> Optional[str]: ...
    @property
    def stiffness(self) -> float: ...
    @property
    def mu(self) -> Optional[float]: ...
    @property
    def skip_adjacent(self) -> bool: ...

class RobotHandle:
    """A robot in a world: its links, coordinates and name prefix."""
    @property
    def links(self) -> range: ...
    @property
    def dofs(self) -> range: ...
    @property
    def prefix(self) -> str: ...
    def link(self, model: Model, name: str) -> int: ...
    def joint_dofs(self, model: Model, name: str) -> List[int]: ...
    @property
    def actuators(self) -> List[str]:
        """Its MJCF file's actuators in `ctrl` order (empty if not from an MJCF file)."""
    def set_ctrl(self, control: Control, ctrl: Optional[Sequence[float]] = None) -> None:
        """Writes its MJCF actuators, springs and dampers under MuJoCo's `ctrl` into `control`
        (MuJoCo's gains are SI, as `Control`'s)."""
    @property
    def group_states(self) -> List[str]:
        """Its SRDF's group states (empty without an SRDF given to `World.add_urdf`)."""
    def group_state(self, name: str) -> Array:
        """Its coordinates in its SRDF's group state `name` (write them at `dofs`)."""

class ObjectHandle:
    """A free object in a world: its link and six coordinates."""
    @property
    def link(self) -> int: ...
    @property
    def dofs(self) -> range: ...

class World:
    """A world under construction: robots, objects, a ground and contact."""
    def __init__(self, dt: float) -> None: ...
    def add_ground(self) -> None: ...
    def set_friction(self, mu: float) -> None: ...
    def set_contact(self, contact: Optional[ContactSettings]) -> None: ...
    def add_object(
        self, name: str, hull: Hull, mass: float, xyz: Optional[ArrayLike] = None, rpy: Optional[ArrayLike] = None
    ) -> ObjectHandle: ...
    def add_robot(
        self, links: Sequence[Link], xyz: Optional[ArrayLike] = None, rpy: Optional[ArrayLike] = None, prefix: str = ""
    ) -> RobotHandle: ...
    def add_urdf(
        self,
        path: Path,
        xyz: Optional[ArrayLike] = None,
        rpy: Optional[ArrayLike] = None,
        prefix: str = "",
        *,
        floating: Optional[bool] = None,
        package_paths: Optional[Sequence[Path]] = None,
        srdf: Optional[Path] = None,
        joint_friction: bool = False,
    ) -> RobotHandle:
        """A URDF robot. `floating`: a free root joint (`None`: the SRDF's virtual joint, else
        fixed); `package_paths`: folders searched for `package://NAME/...`; `srdf`: its
        disabled collision pairs are left out of contact, its group states kept;
        `joint_friction`: `<dynamics friction>` read as the joints' dry friction."""
    def add_mjcf(
        self,
        path: Path,
        xyz: Optional[ArrayLike] = None,
        rpy: Optional[ArrayLike] = None,
        prefix: str = "",
        floor: bool = False,
    ) -> RobotHandle: ...
    gravity: float
    tolerance: float
    joint_friction_velocity: float
    max_iterations: int
    newton_start: Literal["extrapolated", "current"]
    anchored_newton: bool
    @property
    def contact(self) -> Optional[ContactSettings]: ...
    def build(self) -> Simulator: ...

class Scene:
    """A scene file (TOML); pickles as its text."""
    @staticmethod
    def from_file(path: Path) -> Scene: ...
    @staticmethod
    def from_str(text: str, directory: Optional[Path] = None) -> Scene: ...
    def to_toml(self) -> str: ...
    @property
    def directory(self) -> str: ...
    def build(self) -> SceneSetup: ...

class SceneSetup:
    """What a scene builds."""
    simulator: Simulator
    motion: Motion
    control: Control
    steps: Optional[int]
    robots: List[RobotHandle]
    objects: List[int]

class Model:
    """An articulated model, inspected by name."""
    @property
    def dof(self) -> int: ...
    @property
    def link_names(self) -> List[str]: ...
    @property
    def joint_names(self) -> List[str]: ...
    @property
    def dof_names(self) -> List[str]: ...
    def link(self, name: str) -> int: ...
    def joint_dofs(self, name: str) -> List[int]: ...
    def parent(self, link: int) -> Optional[int]: ...
    @property
    def masses(self) -> Array: ...
    def hull_vertices(self, link: int, hull: int) -> Array: ...
    @property
    def design(self) -> Array: ...
    def with_design(self, d: ArrayLike) -> Model: ...
    def neutral(self) -> Array: ...

class Control:
    """One step's actuation (PD gains and targets, generalized forces)."""
    def __init__(self, model: Model) -> None: ...
    kp: Array
    """PD stiffness per coordinate: N·m/rad (N/m on a prismatic coordinate), at least 0."""
    kd: Array
    """PD damping per coordinate: N·m·s/rad (N·s/m on a prismatic coordinate), at least 0."""
    position: Array
    velocity: Array
    force: Array
    def copy(self) -> Control: ...

class Motion:
    """A running simulation's state."""
    @staticmethod
    def at_rest(model: Model, q: Optional[ArrayLike] = None) -> Motion: ...
    @staticmethod
    def from_velocity(model: Model, q: ArrayLike, v: ArrayLike, dt: float) -> Motion: ...
    @property
    def q(self) -> Array: ...
    def velocity(self, model: Model, dt: float) -> Array: ...
    def coordinate_pair(self, model: Model) -> Tuple[Array, Array]:
        """``(q_prev, q)`` as ``StepBatch`` and ``sdrs.torch.step`` take them."""
    def copy(self) -> Motion: ...

class Trajectory:
    """A recorded trajectory."""
    @property
    def steps(self) -> int: ...
    @property
    def states(self) -> Array: ...
    @property
    def target_positions(self) -> Array: ...
    @property
    def forces(self) -> Array: ...
    @property
    def iterations(self) -> List[int]: ...
    @property
    def active_pairs(self) -> List[int]: ...
    def save(self, model: Model, dt: float, path: Path) -> None: ...

class Gradient:
    """What the adjoint gives."""
    @property
    def initial(self) -> Array: ...
    @property
    def initial_previous(self) -> Array: ...
    @property
    def parameters(self) -> Array: ...
    @property
    def design(self) -> Optional[Array]: ...
    @property
    def physical(self) -> Array:
        """``dL/dp`` of the simulator's ``physical_parameters``, in their order."""
    @property
    def target_position(self) -> Array: ...
    @property
    def force(self) -> Array: ...

PhysicalParameter = Union[str, Tuple[str, Union[str, int]]]

class Simulator:
    """A simulator for one model and its step settings."""
    @property
    def model(self) -> Model: ...
    @property
    def dt(self) -> float: ...
    @property
    def physical_parameters(self) -> List[PhysicalParameter]:
        """The physical parameters ``adjoint`` differentiates with respect to: ``"gravity"``,
        ``"contact_stiffness"``, ``"friction"``, ``("kp", joint)``, ``("kd", joint)``,
        ``("mass", link)`` (names or indices; read back with indices)."""
    @physical_parameters.setter
    def physical_parameters(self, parameters: Sequence[PhysicalParameter]) -> None: ...
    def step(self, motion: Motion, control: Control) -> Dict[str, Union[int, bool]]: ...
    def rollout(self, motion: Motion, controls: Sequence[Control], recording: str = "states") -> Trajectory: ...
    def rollout_policy(
        self, motion: Motion, policy: Policy, parameters: ArrayLike, steps: int, recording: str = "states"
    ) -> Trajectory: ...
    def adjoint(self, trajectory: Trajectory, state_gradients: ArrayLike) -> Gradient: ...
    def tangent(
        self,
        trajectory: Trajectory,
        initial: ArrayLike,
        parameters: Optional[ArrayLike] = None,
        design: Optional[ArrayLike] = None,
    ) -> Array: ...

class StepBatch:
    """``B`` environments of one model stepped together on all cores; the state of environment
    ``b`` is the coordinate pair ``(q_prev[b], q[b])``."""
    def __init__(self, simulator: Simulator, size: int, gradients: bool = True) -> None: ...
    @property
    def size(self) -> int: ...
    @property
    def model(self) -> Model: ...
    @property
    def dt(self) -> float: ...
    @property
    def gradients(self) -> bool: ...
    @property
    def last_step_seconds(self) -> float:
        """Wall time of the last call's steps themselves, without array conversions."""
    @property
    def control(self) -> Control: ...
    @control.setter
    def control(self, control: Control) -> None: ...
    @property
    def design(self) -> Array: ...
    def set_design(self, d: ArrayLike) -> None: ...
    def reset(self, indices: Optional[Sequence[int]] = None) -> None: ...
    def step(
        self,
        q_prev: ArrayLike,
        q: ArrayLike,
        position: Optional[ArrayLike] = None,
        velocity: Optional[ArrayLike] = None,
        force: Optional[ArrayLike] = None,
        on_failure: Literal["raise", "hold"] = "raise",
    ) -> Array: ...
    def step_record(
        self,
        q_prev: ArrayLike,
        q: ArrayLike,
        position: Optional[ArrayLike] = None,
        velocity: Optional[ArrayLike] = None,
        force: Optional[ArrayLike] = None,
        on_failure: Literal["raise", "hold"] = "raise",
    ) -> Tuple[Array, StepRecord]: ...
    @property
    def last_failures(self) -> Dict[int, str]:
        """The environments held by the last call with ``on_failure="hold"``, with messages."""

class StepRecord:
    """One batched step's record for its backward pass."""
    @property
    def iterations(self) -> List[int]: ...
    @property
    def active_pairs(self) -> List[int]: ...
    def backward(self, grad: ArrayLike) -> Dict[str, Optional[Array]]: ...

class Policy:
    """A control policy (base class)."""
    @property
    def parameters(self) -> int: ...

class OpenLoop(Policy):
    def __init__(self, base: Control, dofs: Sequence[int], steps: int, channel: str = "position") -> None: ...
    def initial(self) -> Array: ...

class SineWaves(Policy):
    def __init__(self, base: Control, dofs: Sequence[int], waves: int) -> None: ...

class CubicSpline(Policy):
    def __init__(self, base: Control, dofs: Sequence[int], points: int, duration: float) -> None: ...

class CallbackPolicy(Policy):
    """A policy written in Python: ``obj.control``, ``obj.vjp`` and ``obj.jvp`` give each
    step's control and its derivatives (see ``sdrs.torch.TorchPolicy``)."""
    def __init__(self, model: Model, base: Control, parameters: int, obj: Any) -> None: ...

class LinkPoint:
    """A point on a link."""
    @staticmethod
    def fixed(model: Model, link: str, point: ArrayLike) -> LinkPoint: ...
    @staticmethod
    def vertex_mean(model: Model, link: str, hull: int, vertices: Sequence[int]) -> LinkPoint: ...

class Loss:
    """A loss of a trajectory (base class)."""

class PointTarget(Loss):
    def __init__(self, point: LinkPoint, target: ArrayLike, every_step: bool = False) -> None: ...

class CentreOfMass(Loss):
    def __init__(
        self, model: Model, target: ArrayLike, links: Optional[Sequence[str]] = None, every_step: bool = False
    ) -> None: ...

class Distance(Loss):
    def __init__(self, a: LinkPoint, b: LinkPoint, distance: float, every_step: bool = False) -> None: ...

class Effort(Loss):
    def __init__(self, torque: float = 0.0, target_change: float = 0.0) -> None: ...

class Sum(Loss):
    def __init__(self, terms: Sequence[Tuple[float, Loss]]) -> None: ...

class DesignMap:
    """A design ``d = d0 + B p``."""
    def __init__(self, model: Model, parameters: int) -> None: ...
    @property
    def parameters(self) -> int: ...
    def set(self, entry: int, parameter: int, weight: float) -> None: ...
    def attachment(self, model: Model, link: str, axis: int, parameter: int, weight: float) -> None: ...
    def hull_vertices(
        self, model: Model, link: str, hull: int, vertices: Sequence[int], direction: ArrayLike, parameter: int
    ) -> None: ...
    def link_length(self, model: Model, link: str, parameter: int) -> None: ...
    def design(self, p: ArrayLike) -> Array: ...

class Evaluation:
    """A loss and its total derivatives."""
    @property
    def loss(self) -> float: ...
    @property
    def parameters(self) -> Array: ...
    @property
    def design(self) -> Optional[Array]: ...
    @property
    def initial(self) -> Array: ...
    @property
    def states(self) -> Array: ...
    @property
    def active_pairs(self) -> List[int]: ...

class Rollout:
    """A rollout kept for its backward pass."""
    @property
    def states(self) -> Array: ...
    def backward(self, state_gradients: ArrayLike) -> Tuple[Array, Array, Optional[Array]]: ...

class Objective:
    """A differentiable task: policy, loss, design map, horizon."""
    def __init__(
        self,
        simulator: Simulator,
        policy: Policy,
        loss: Loss,
        steps: int,
        design: Optional[DesignMap] = None,
        start: Optional[ArrayLike] = None,
        recording: str = "states",
    ) -> None: ...
    @property
    def parameters(self) -> int: ...
    @property
    def design_parameters(self) -> int: ...
    @property
    def steps(self) -> int: ...
    def model(self, p: Optional[ArrayLike] = None) -> Model: ...
    def evaluate(self, c: ArrayLike, p: Optional[ArrayLike] = None) -> Evaluation: ...
    def rollout(self, c: ArrayLike, p: Optional[ArrayLike] = None, q0: Optional[ArrayLike] = None) -> Rollout: ...

def evaluate_batch(
    objective: Objective, cs: ArrayLike, ps: Optional[ArrayLike] = None, threads: Optional[int] = None
) -> Tuple[Array, Array, Array]: ...
def rollout_batch(
    objective: Objective, cs: ArrayLike, ps: Optional[ArrayLike] = None, threads: Optional[int] = None
) -> Array: ...

class Adam:
    def __init__(
        self,
        n: int,
        learning_rate: float,
        beta1: float = 0.9,
        beta2: float = 0.999,
        epsilon: float = 1e-8,
        lower: Optional[ArrayLike] = None,
        upper: Optional[ArrayLike] = None,
        decay_to: Optional[float] = None,
        decay_over: Optional[int] = None,
    ) -> None: ...
    @property
    def learning_rate(self) -> float: ...
    def step(self, params: ArrayLike, gradient: ArrayLike) -> Array: ...

def projected_step(x: ArrayLike, gradient: ArrayLike, radius: float, lower: ArrayLike, upper: ArrayLike) -> Array: ...

class Block:
    def __init__(self, lower: ArrayLike, upper: ArrayLike, radius: float, max_radius: float) -> None: ...

class Optimum:
    parameters: List[Array]
    loss: float
    history: List[float]
    failures: List[Tuple[int, str]]

def minimise(objective: Objective, start: Sequence[ArrayLike], blocks: Sequence[Block], iterations: int) -> Optimum: ...
def load_trajectory(path: Path) -> Dict[str, Any]: ...
