//! Typed errors of the dynamics crate.

use thiserror::Error;

/// What can go wrong when building a model or stepping it.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum DynamicsError {
    /// A model needs at least one link.
    #[error("a model needs at least one link")]
    EmptyModel,
    /// Links must be listed parents first.
    #[error(
        "link {link} ('{name}') names parent {parent}, which is not an earlier link (links must be listed parents first)"
    )]
    BadParent {
        /// Index of the offending link.
        link: usize,
        /// Its name.
        name: String,
        /// The parent it names.
        parent: usize,
    },
    /// A joint axis must be a non-zero finite vector.
    #[error("joint of link '{link}': axis {axis:?} is not a finite non-zero vector")]
    BadAxis {
        /// The link whose joint is wrong.
        link: String,
        /// The axis given.
        axis: [f64; 3],
    },
    /// Joint limits need a 1-DoF joint and finite `lower < upper`.
    #[error(
        "link '{link}': limits ({lower}, {upper}) need a revolute or prismatic joint and finite lower < upper"
    )]
    BadLimits {
        /// The link.
        link: String,
        /// Lower limit given.
        lower: f64,
        /// Upper limit given.
        upper: f64,
    },
    /// A link's joint friction is negative or not finite.
    #[error("link '{link}': joint friction {friction} must be finite and >= 0 (N·m or N per DoF)")]
    BadFriction {
        /// The link.
        link: String,
        /// The friction given.
        friction: f64,
    },
    /// A link's armature is negative, not finite, or on a joint other than a revolute or
    /// prismatic one.
    #[error(
        "link '{link}': armature {armature} must be finite and >= 0, on a revolute or prismatic joint (kg·m² or kg)"
    )]
    BadArmature {
        /// The link.
        link: String,
        /// The armature given.
        armature: f64,
    },
    /// A tendon that cannot be modelled ([`crate::Tendon`]).
    #[error("tendon '{tendon}': {message}")]
    BadTendon {
        /// The tendon's name.
        tendon: String,
        /// What is wrong, and what is allowed.
        message: String,
    },
    /// A weld or connection that cannot be modelled ([`crate::Weld`]).
    #[error("weld '{weld}': {message}")]
    BadWeld {
        /// The weld's name.
        weld: String,
        /// What is wrong, and what is allowed.
        message: String,
    },
    /// A state is at or beyond a joint limit (the limit barrier is infinite there).
    #[error(
        "joint '{joint}' = {value} is not strictly inside its limits ({lower}, {upper}): the \
         limit barrier is infinite at and beyond a limit; start inside them, e.g. from \
         Model::neutral() or with Model::clamp_inside_limits"
    )]
    OutsideLimits {
        /// The joint's name.
        joint: String,
        /// Its value.
        value: f64,
        /// Lower limit.
        lower: f64,
        /// Upper limit.
        upper: f64,
    },
    /// A link index beyond the model's links.
    #[error("link index {index} is out of range: the model has {links} links")]
    LinkIndex {
        /// The index given.
        index: usize,
        /// Number of links.
        links: usize,
    },
    /// A name that the model does not have.
    #[error("no {kind} named '{name}' (known: {known})")]
    UnknownName {
        /// `link`, `joint`, …
        kind: &'static str,
        /// The name asked for.
        name: String,
        /// Some of the names the model has.
        known: String,
    },
    /// Two links (or two joints) of one model share a name.
    #[error(
        "{kind} name '{name}' is used twice ({} {first} and {second}): names must be unique; \
         to add a robot twice, prefix its names (sdrs::World::add_robot_as)",
        match *kind { "tendon" => "tendons", "weld" => "welds", _ => "links" }
    )]
    DuplicateName {
        /// `link`, `joint`, `tendon` or `weld`.
        kind: &'static str,
        /// The name.
        name: String,
        /// The index of the first link (or tendon) carrying it.
        first: usize,
        /// The index of the second.
        second: usize,
    },
    /// An operation needs a joint of another kind.
    #[error("joint '{joint}' is {actual}: {operation} needs {needed}")]
    WrongJointKind {
        /// The joint's name.
        joint: String,
        /// Its kind.
        actual: &'static str,
        /// What was asked.
        operation: &'static str,
        /// The kinds it works for.
        needed: &'static str,
    },
    /// Link poses that the model's joints cannot produce.
    #[error(
        "link '{link}' is {error:e} m or rad away from any pose its joint allows: the poses \
         are not a configuration of this model (they must come from its forward kinematics)"
    )]
    UnreachablePose {
        /// The link.
        link: String,
        /// The distance between the given pose and the nearest pose its joint allows.
        error: f64,
    },
    /// A URDF or SRDF file could not be read or is not well-formed XML, or a URDF's links do
    /// not form one tree.
    #[error("{format} {file}{}: {message}", .line.map(|l| format!(":{l}")).unwrap_or_default())]
    Urdf {
        /// `URDF` or `SRDF`.
        format: &'static str,
        /// The file (or `"<string>"` for text).
        file: String,
        /// Line of the problem (1-based), when known.
        line: Option<u32>,
        /// What went wrong.
        message: String,
    },
    /// A URDF or SRDF element is malformed, not supported or inconsistent.
    #[error("{format} {file}:{line}: {element}: {message}")]
    UrdfElement {
        /// `URDF` or `SRDF`.
        format: &'static str,
        /// The file (or `"<string>"` for text).
        file: String,
        /// Line of the element (1-based).
        line: u32,
        /// The element, e.g. `joint 'elbow'` or `link 'base' collision 2`.
        element: String,
        /// What is wrong and what is allowed.
        message: String,
    },
    /// An MJCF file could not be read, or one of its elements is unsupported or inconsistent.
    #[error("MJCF {file}{}: {element}: {message}", .line.map(|l| format!(":{l}")).unwrap_or_default())]
    Mjcf {
        /// The file (or `"<string>"` for text).
        file: String,
        /// Line of the element (1-based), when known.
        line: Option<u32>,
        /// The element, e.g. `<joint name='hip'>`.
        element: String,
        /// What is wrong and what is allowed.
        message: String,
    },
    /// A design vector makes a hull degenerate.
    #[error("design: hull {hull} of link '{link}' is invalid: {message}")]
    BadDesign {
        /// The link.
        link: String,
        /// The hull's index in the link.
        hull: usize,
        /// What the hull constructor reported.
        message: String,
    },
    /// A mass setting must be positive and finite.
    #[error("link '{link}': {what} = {value} must be positive and finite")]
    BadMass {
        /// The link.
        link: String,
        /// Which setting.
        what: &'static str,
        /// Its value.
        value: f64,
    },
    /// A link with a lumped or solid mass model needs at least one hull.
    #[error("link '{link}' has a {model} mass model but no hulls to take it from")]
    MassWithoutHulls {
        /// The link.
        link: String,
        /// The mass model.
        model: &'static str,
    },
    /// A vector has the wrong length.
    #[error("{what} has length {actual}, expected {expected}")]
    LengthMismatch {
        /// What was given.
        what: &'static str,
        /// Its length.
        actual: usize,
        /// The length allowed.
        expected: usize,
    },
    /// A control written at a robot's coordinates does not fit the control it goes into.
    #[error(
        "a control of {count} coordinates written from coordinate {offset} needs {what} of at least {} entries; it has {length} (make the control from the model the robot is in)",
        offset.saturating_add(*count)
    )]
    InvalidControlSpan {
        /// The field too short.
        what: &'static str,
        /// Its length.
        length: usize,
        /// Where the robot's coordinates start.
        offset: usize,
        /// How many there are.
        count: usize,
    },
    /// Controls given for an MJCF model's actuators do not match them in number.
    #[error("{}", actuator_count(*given, actuators))]
    ActuatorCount {
        /// How many controls were given.
        given: usize,
        /// The model's actuators in `ctrl` order ([`crate::mjcf::Actuator::label`]).
        actuators: Vec<String>,
    },
    /// A setting is out of range.
    #[error("setting {name} = {value} is invalid: must be {allowed}")]
    InvalidSetting {
        /// Setting name.
        name: &'static str,
        /// Value given.
        value: f64,
        /// What is allowed.
        allowed: &'static str,
    },
    /// A physical parameter to differentiate with respect to does not exist in the model or
    /// the settings ([`crate::stepper::PhysicalParameter`]).
    #[error("cannot differentiate with respect to the {parameter}: {reason}")]
    BadParameter {
        /// The parameter.
        parameter: String,
        /// What is wrong.
        reason: String,
    },
    /// A PD gain of a control is negative or not finite.
    #[error("{} = {value} at DoF {dof} is not a valid {}: a gain is finite and at least 0", gain.key(), gain.units())]
    InvalidGain {
        /// Which gain.
        gain: crate::stepper::Gain,
        /// The DoF it is given for.
        dof: usize,
        /// The value given.
        value: f64,
    },
    /// A state or control holds NaN or infinity.
    #[error("{what} holds a non-finite value at index {index}")]
    NonFinite {
        /// What was given.
        what: &'static str,
        /// Where.
        index: usize,
    },
    /// Forward dynamics met a DoF that moves no inertia: its articulated inertia along its
    /// motion is not positive.
    #[error(
        "DoF {dof} ({name}) moves no inertia (articulated inertia {pivot:e} along its motion): \
         forward dynamics needs mass in every DoF's subtree that the DoF moves (no massless \
         leaf link, no rotation chart at its singularity)"
    )]
    SingularInertia {
        /// The DoF.
        dof: usize,
        /// Its name ([`crate::Model::dof_name`]).
        name: String,
        /// `S_kᵀ I^A_k S_k`.
        pivot: f64,
    },
    /// Two links' collision shapes overlap in the state a step starts from.
    #[error(
        "links '{link_a}' and '{link_b}' overlap at the start of the step, so the contact \
         barrier is infinite there: start from a configuration where they are apart, or leave \
         the pair out of contact (an SRDF <disable_collisions>, Model::exclude_pair, or \
         Model::exclude_touching to exclude every pair that touches in a reference \
         configuration)"
    )]
    InitialPenetration {
        /// First link's name.
        link_a: String,
        /// Second link's name.
        link_b: String,
    },
    /// A step starts from a state where the objective is infinite for a reason other than
    /// contact.
    #[error("the step starts where its objective is infinite: {what}")]
    ForbiddenStart {
        /// Which term is infinite.
        what: String,
    },
    /// A term of the objective produced NaN (or −∞).
    #[error("not a number in {term}")]
    NotANumber {
        /// Which term, and where.
        term: String,
    },
    /// A state given as a step's solution has infinite energy (a joint limit or a user energy
    /// forbids it), so the step cannot be linearised there.
    #[error(
        "the objective is infinite at the given solution (outside a joint limit or forbidden by a user energy)"
    )]
    InfiniteEnergy,
    /// The Newton solve of a time step did not reach the tolerance.
    #[error(
        "Newton did not converge in {iterations} iterations: |∇O|∞ = {residual:e} (tolerance {tolerance:e}, energy {energy:e}, last step length {step:e}){hint}"
    )]
    NotConverged {
        /// Iterations taken.
        iterations: usize,
        /// Final residual `|∇O|∞` (N or N·m).
        residual: f64,
        /// The tolerance asked for.
        tolerance: f64,
        /// Objective value at the last iterate.
        energy: f64,
        /// Line-search step length of the last iteration.
        step: f64,
        /// What the stepper suspects (the contact pair with the largest energy), or empty.
        hint: String,
    },
    /// [`crate::Simulator::with_contact`] was given a hook and settings that select a
    /// contact model too.
    #[error(
        "a custom contact hook was given while the step settings also select a contact model \
         ({settings}): set `StepSettings::contact` to None to use the hook, or use \
         `Simulator::new` for the model the settings select"
    )]
    TwoContactModels {
        /// The model the settings select.
        settings: String,
    },
    /// A contact setting was rejected.
    #[error("contact settings: {0}")]
    ContactSettings(#[from] sdrs_contact::ContactError),
    /// A contact evaluation failed.
    #[error("contact between links '{link_a}' and '{link_b}': {source}")]
    Contact {
        /// First link's name.
        link_a: String,
        /// Second link's name.
        link_b: String,
        /// What the contact crate reported.
        source: sdrs_contact::ContactError,
    },
    /// Factorising a step's Hessian failed.
    #[error("factorising the step's Hessian: {0}")]
    Factor(#[from] crate::factor::FactorError),
}

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, DynamicsError>;

/// Checks that `v` (named `what`) has `expected` entries, all finite.
pub(crate) fn check_vector(
    what: &'static str,
    v: &nalgebra::DVector<f64>,
    expected: usize,
) -> Result<()> {
    if v.len() != expected {
        return Err(DynamicsError::LengthMismatch {
            what,
            actual: v.len(),
            expected,
        });
    }
    match v.iter().position(|x| !x.is_finite()) {
        Some(index) => Err(DynamicsError::NonFinite { what, index }),
        None => Ok(()),
    }
}

/// The message of [`DynamicsError::ActuatorCount`].
fn actuator_count(given: usize, actuators: &[String]) -> String {
    let plural = |k: usize, word: &str| format!("{k} {word}{}", if k == 1 { "" } else { "s" });
    if actuators.is_empty() {
        format!(
            "{} given, but the file declares no actuators",
            plural(given, "control")
        )
    } else {
        format!(
            "{} given; the file has {}, in this order: [{}]",
            plural(given, "control"),
            plural(actuators.len(), "actuator"),
            actuators.join(", ")
        )
    }
}
