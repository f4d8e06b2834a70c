//! `sdrs info`: a robot's links, joints, masses, hulls and collision filter, and an MJCF
//! file's actuators in the order a scene's `ctrl` gives their controls.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;
use sdrs::dynamics::mjcf::{Actuator, ActuatorKind, MjcfOptions, Transmission, load_mjcf};
use sdrs::dynamics::{JointKind, Model, Srdf, State, UrdfOptions, load_urdf};
use serde::Serialize;

use crate::error::{CliError, existing, print};

/// Arguments of `sdrs info`.
#[derive(Debug, Args)]
pub struct InfoArgs {
    /// The robot: a URDF (`.urdf`) or an MJCF (`.xml`).
    pub robot: PathBuf,
    /// An SRDF whose disabled collision pairs are applied (URDF only).
    #[arg(long)]
    pub srdf: Option<PathBuf>,
    /// A folder searched for `package://NAME/...` meshes as `DIR/NAME/...` (repeatable; the
    /// URDF's ancestor folders named NAME are searched too).
    #[arg(long, value_name = "DIR")]
    pub package_path: Vec<PathBuf>,
    /// Attach a URDF's root link with a free joint instead of fixing it.
    #[arg(long)]
    pub floating: bool,
    /// Also run the automatic filter: exclude pairs closer than MARGIN (m, default 0.005) in
    /// the neutral configuration, and list them (write `--exclude-touching=MARGIN`).
    #[arg(long, value_name = "MARGIN", num_args = 0..=1, default_missing_value = "0.005")]
    pub exclude_touching: Option<f64>,
    /// Leave out parent/child body pairs, as the contact setting `skip_adjacent` does.
    #[arg(long)]
    pub skip_adjacent: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Two link names.
type Pair = (String, String);

/// Everything `info` reports.
#[derive(Debug, Serialize)]
struct Report {
    file: String,
    format: &'static str,
    links: Vec<LinkInfo>,
    dof: usize,
    mass: f64,
    /// Link pairs that may touch.
    may_touch: Vec<Pair>,
    /// Link pairs the filter leaves out (excluding pairs within one rigid body).
    filtered: Vec<Pair>,
    /// SRDF pairs applied, and those naming unknown links.
    #[serde(skip_serializing_if = "Option::is_none")]
    srdf: Option<SrdfInfo>,
    /// Pairs the automatic filter excluded, with their distance (m).
    #[serde(skip_serializing_if = "Option::is_none")]
    excluded_touching: Option<Vec<(String, String, f64)>>,
    /// An MJCF file's actuators, in `ctrl` order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    actuators: Vec<ActuatorInfo>,
    /// Fixed tendons (MJCF `<fixed>` tendons and equality constraints).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tendons: Vec<TendonInfo>,
    /// Welds and connections (MJCF `<connect>` and `<weld>`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    welds: Vec<WeldInfo>,
}

/// One weld: the links it holds together (`None`: the world) and its springs.
#[derive(Debug, Serialize)]
struct WeldInfo {
    name: String,
    link: String,
    other: Option<String>,
    stiffness: f64,
    torsion: f64,
}

fn welds(model: &Model) -> Vec<WeldInfo> {
    let name = |l: usize| model.links()[l].name.clone();
    model
        .welds()
        .iter()
        .map(|w| WeldInfo {
            name: w.name.clone(),
            link: name(w.link),
            other: w.other.map(name),
            stiffness: w.stiffness,
            torsion: w.torsion,
        })
        .collect()
}

/// One fixed tendon: its joints and coefficients, spring, damper and limits.
#[derive(Debug, Serialize)]
struct TendonInfo {
    name: String,
    joints: Vec<(String, f64)>,
    stiffness: f64,
    rest: f64,
    damping: f64,
    limits: Option<(f64, f64)>,
}

fn tendons(model: &Model) -> Vec<TendonInfo> {
    model
        .tendons()
        .iter()
        .map(|t| TendonInfo {
            name: t.name.clone(),
            joints: t
                .joints
                .iter()
                .map(|&(link, c)| (model.links()[link].joint_label(), c))
                .collect(),
            stiffness: t.stiffness,
            rest: t.rest,
            damping: t.damping,
            limits: t.limits,
        })
        .collect()
}

/// One MJCF actuator: what a scene's `ctrl` entry at its index drives.
#[derive(Debug, Serialize)]
struct ActuatorInfo {
    /// `NAME on JOINT`.
    #[serde(skip)]
    label: String,
    name: Option<String>,
    /// The joint it drives, or
    #[serde(skip_serializing_if = "Option::is_none")]
    joint: Option<String>,
    /// the tendon.
    #[serde(skip_serializing_if = "Option::is_none")]
    tendon: Option<String>,
    /// `motor`, `position` or `velocity`.
    kind: &'static str,
    /// Position gain (position servos).
    #[serde(skip_serializing_if = "Option::is_none")]
    kp: Option<f64>,
    /// Velocity gain (servos).
    #[serde(skip_serializing_if = "Option::is_none")]
    kv: Option<f64>,
    gear: f64,
    ctrlrange: Option<(f64, f64)>,
}

impl From<&Actuator> for ActuatorInfo {
    fn from(a: &Actuator) -> Self {
        let (kind, kp, kv) = match a.kind {
            ActuatorKind::Motor => ("motor", None, None),
            ActuatorKind::Position { kp, kv } => ("position", Some(kp), Some(kv)),
            ActuatorKind::Velocity { kv } => ("velocity", None, Some(kv)),
        };
        Self {
            label: a.label(),
            name: a.name.clone(),
            joint: matches!(a.transmission, Transmission::Joint { .. }).then(|| a.target.clone()),
            tendon: matches!(a.transmission, Transmission::Tendon { .. }).then(|| a.target.clone()),
            kind,
            kp,
            kv,
            gear: a.gear,
            ctrlrange: a.ctrlrange,
        }
    }
}

#[derive(Debug, Serialize)]
struct LinkInfo {
    name: String,
    parent: Option<String>,
    joint: Option<String>,
    kind: &'static str,
    /// Generalized coordinates `[start, end)`.
    dofs: (usize, usize),
    limits: Option<(f64, f64)>,
    mass: f64,
    hulls: usize,
    vertices: usize,
}

#[derive(Debug, Serialize)]
struct SrdfInfo {
    file: String,
    applied: usize,
    unknown: Vec<Pair>,
    /// The group states (named configurations).
    states: Vec<String>,
    /// Their entries skipped (joints the model does not have or fixes), and states that
    /// cannot be built, as messages.
    warnings: Vec<String>,
}

/// Runs `sdrs info`.
pub fn run(args: &InfoArgs) -> Result<(), CliError> {
    let report = report(args)?;
    if args.json {
        let json = serde_json::to_string_pretty(&report).expect("the report is plain data");
        print(&format!("{json}\n"))
    } else {
        print(&text(&report))
    }
}

fn report(args: &InfoArgs) -> Result<Report, CliError> {
    if let Some(margin) = args.exclude_touching
        && !(margin >= 0.0 && margin.is_finite())
    {
        return Err(CliError::Usage(format!(
            "--exclude-touching {margin}: the margin must be finite and non-negative (m)"
        )));
    }
    existing(&args.robot)?;
    let extension = args
        .robot
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let (format, mut model, actuators) = match extension.as_deref() {
        Some("urdf") => {
            let options = UrdfOptions {
                floating_base: args.floating,
                package_paths: args.package_path.clone(),
                ..UrdfOptions::default()
            };
            ("URDF", load_urdf(&args.robot, &options)?, Vec::new())
        }
        Some("xml") => {
            if args.floating {
                return Err(CliError::Usage(
                    "--floating applies to URDF only; MJCF declares free joints itself".into(),
                ));
            }
            let mjcf = load_mjcf(&args.robot, &MjcfOptions::default())?;
            let actuators = mjcf.actuators.iter().map(ActuatorInfo::from).collect();
            ("MJCF", mjcf.model, actuators)
        }
        _ => {
            return Err(CliError::FileType {
                path: args.robot.clone(),
                allowed: "expected a URDF (.urdf) or an MJCF (.xml)",
            });
        }
    };
    let srdf = match &args.srdf {
        None => None,
        Some(_) if format != "URDF" => {
            return Err(CliError::Usage("--srdf applies to URDF robots only".into()));
        }
        Some(path) => {
            existing(path)?;
            let srdf = Srdf::from_file(path)?;
            let applied = srdf.apply(&mut model)?;
            let zero = State::zero(&model);
            let warnings = srdf
                .state_names()
                .into_iter()
                .flat_map(|name| match srdf.configuration(&model, name, &zero) {
                    Ok(c) => c.skipped.iter().map(ToString::to_string).collect(),
                    Err(e) => vec![format!("group_state '{name}' cannot be built: {e}")],
                })
                .collect();
            Some(SrdfInfo {
                file: sdrs_report::display_path(path),
                applied: applied.applied,
                unknown: applied
                    .unknown
                    .into_iter()
                    .map(|p| (p.link1, p.link2))
                    .collect(),
                states: srdf.state_names().into_iter().map(String::from).collect(),
                warnings,
            })
        }
    };
    let excluded_touching = match args.exclude_touching {
        None => None,
        Some(margin) => {
            let neutral = model.neutral(margin);
            let pairs = model.exclude_touching(&neutral, margin)?;
            Some(
                pairs
                    .into_iter()
                    .map(|p| (p.link_a, p.link_b, p.distance))
                    .collect(),
            )
        }
    };
    let (may_touch, filtered) = pairs(&model, args.skip_adjacent);
    Ok(Report {
        file: sdrs_report::display_path(&args.robot),
        format,
        links: links(&model),
        dof: model.dof(),
        mass: (0..model.links().len()).map(|i| model.mass(i)).sum(),
        may_touch,
        filtered,
        srdf,
        excluded_touching,
        actuators,
        tendons: tendons(&model),
        welds: welds(&model),
    })
}

fn links(model: &Model) -> Vec<LinkInfo> {
    let all = model.links();
    all.iter()
        .enumerate()
        .map(|(i, link)| {
            let start = model.dof_offset(i);
            LinkInfo {
                name: link.name.clone(),
                parent: link.parent.map(|p| all[p].name.clone()),
                joint: (link.joint != JointKind::Fixed || link.joint_name.is_some())
                    .then(|| link.joint_label()),
                kind: link.joint.kind_name(),
                dofs: (start, start + link.joint.dof()),
                limits: link.limits,
                mass: model.mass(i),
                hulls: link.hulls.len(),
                vertices: link.hulls.iter().map(|h| h.vertices().len()).sum(),
            }
        })
        .collect()
}

/// Pairs of links that may touch, and pairs left out by the filter; pairs within one rigid
/// body (links joined by fixed joints) and pairs of links without hulls are not listed.
fn pairs(model: &Model, skip_adjacent: bool) -> (Vec<Pair>, Vec<Pair>) {
    let links = model.links();
    let (mut may, mut filtered) = (Vec::new(), Vec::new());
    for a in 0..links.len() {
        for b in a + 1..links.len() {
            if links[a].hulls.is_empty()
                || links[b].hulls.is_empty()
                || model.body(a) == model.body(b)
            {
                continue;
            }
            let pair = (links[a].name.clone(), links[b].name.clone());
            if model.may_touch(a, b, skip_adjacent) {
                may.push(pair);
            } else {
                filtered.push(pair);
            }
        }
    }
    (may, filtered)
}

fn text(report: &Report) -> String {
    let mut out = format!(
        "{} ({}): {} links, {} DoF, total mass {:.4} kg\n",
        report.file,
        report.format,
        report.links.len(),
        report.dof,
        report.mass
    );
    let width = |f: fn(&LinkInfo) -> usize| report.links.iter().map(f).max().unwrap_or(0).max(6);
    let name_w = width(|l| l.name.len());
    let parent_w = width(|l| l.parent.as_ref().map_or(7, String::len));
    let joint_w = width(|l| l.joint.as_ref().map_or(1, String::len));
    let _ = writeln!(
        out,
        "  {:<name_w$}  {:<parent_w$}  {:<joint_w$}  {:<9}  {:<7}  {:<18}  {:>9}  {:>5}  {:>8}",
        "link", "parent", "joint", "kind", "dofs", "limits", "mass (kg)", "hulls", "vertices"
    );
    for link in &report.links {
        let dofs = if link.dofs.0 == link.dofs.1 {
            "-".to_owned()
        } else {
            format!("{}..{}", link.dofs.0, link.dofs.1)
        };
        let limits = link
            .limits
            .map_or("-".to_owned(), |(lo, hi)| format!("[{lo:.3}, {hi:.3}]"));
        let _ = writeln!(
            out,
            "  {:<name_w$}  {:<parent_w$}  {:<joint_w$}  {:<9}  {:<7}  {:<18}  {:>9.4}  {:>5}  {:>8}",
            link.name,
            link.parent.as_deref().unwrap_or("(world)"),
            link.joint.as_deref().unwrap_or("-"),
            link.kind,
            dofs,
            limits,
            link.mass,
            link.hulls,
            link.vertices
        );
    }
    if let Some(srdf) = &report.srdf {
        let _ = writeln!(
            out,
            "SRDF {}: {} disabled pairs applied, {} naming unknown links; group states: {}",
            srdf.file,
            srdf.applied,
            srdf.unknown.len(),
            if srdf.states.is_empty() {
                "none".to_string()
            } else {
                srdf.states.join(", ")
            }
        );
        for warning in &srdf.warnings {
            let _ = writeln!(out, "warning: {warning}");
        }
    }
    if let Some(excluded) = &report.excluded_touching {
        let _ = writeln!(
            out,
            "automatic filter: {} pairs touching in the neutral configuration, now excluded",
            excluded.len()
        );
        for (a, b, d) in excluded {
            let _ = writeln!(out, "  {a} - {b} ({d:.4} m)");
        }
    }
    if !report.actuators.is_empty() {
        let _ = writeln!(
            out,
            "actuators: {} (a scene's `ctrl = [...]` gives their controls in this order)",
            report.actuators.len()
        );
        for (i, a) in report.actuators.iter().enumerate() {
            let gains = match (a.kp, a.kv) {
                (Some(kp), Some(kv)) => format!(", kp {kp}, kv {kv}"),
                (None, Some(kv)) => format!(", kv {kv}"),
                _ => String::new(),
            };
            let range = a
                .ctrlrange
                .map_or("unlimited".to_owned(), |(lo, hi)| format!("[{lo}, {hi}]"));
            let _ = writeln!(
                out,
                "  {i}: {}: {}, gear {}{gains}, ctrl {range}",
                a.label, a.kind, a.gear
            );
        }
    }
    if !report.tendons.is_empty() {
        let _ = writeln!(out, "tendons: {}", report.tendons.len());
        for t in &report.tendons {
            let terms: Vec<String> = t.joints.iter().map(|(j, c)| format!("{c} {j}")).collect();
            let limits = t
                .limits
                .map_or(String::new(), |(lo, hi)| format!(", limits [{lo}, {hi}]"));
            let _ = writeln!(
                out,
                "  {}: {}; stiffness {} (rest {}), damping {}{limits}",
                t.name,
                terms.join(" + "),
                t.stiffness,
                t.rest,
                t.damping
            );
        }
    }
    if !report.welds.is_empty() {
        let _ = writeln!(out, "welds: {}", report.welds.len());
        for w in &report.welds {
            let kind = if w.torsion > 0.0 {
                format!(
                    "weld, stiffness {} N/m and {} N·m/rad",
                    w.stiffness, w.torsion
                )
            } else {
                format!("connection, stiffness {} N/m", w.stiffness)
            };
            let other = w.other.as_deref().unwrap_or("the world");
            let _ = writeln!(out, "  {}: {} to {other}; {kind}", w.name, w.link);
        }
    }
    for (title, pairs) in [
        ("may touch", &report.may_touch),
        ("filtered", &report.filtered),
    ] {
        let _ = writeln!(out, "{title}: {} pairs", pairs.len());
        for (a, b) in pairs {
            let _ = writeln!(out, "  {a} - {b}");
        }
    }
    out
}
