//! The book stack of both papers' accuracy experiments ([`sdrs_examples::book_stack`]): 20
//! planks (2.0 x 0.4 x 0.2 m, 0.16 kg) at the harmonic maximum overhang plus `OFFSET · L`
//! (`−0.001`, the papers' 0.1% inward, must stand; `+0.01`, beyond the maximum, must fall).
//!
//! ```text
//! cargo run --release -p sdrs-examples --example book_stack -- \
//!     [DURATION_S=60] [OFFSET=-0.001] [--expect stand|fall] [--mu MU=0.5]
//!     [--contact S:KAPPA:EPS_V | --long-range COEFFICIENT] [--trace]
//! cargo run --release -p sdrs-examples --example book_stack -- --table2 [DURATION_S=1]
//! ```
//!
//! - Default contact: the `World` defaults (SDRS plane barrier) with plane friction (SDRS
//!   paper sec. V-J). `--contact` overrides the barrier support `s` (m), the stiffness `κ`
//!   (N·m²) and the friction smoothing `ε_v` (m²/s²), e.g. `--contact 0.01:1:1e-6` for the
//!   authors' settings; `--long-range C` steps the long-range potential (long-range paper
//!   sec. 4-5) with coefficient `μ = C` instead; `--mu 0` turns friction off.
//! - Prints whether the stack stood (at the end no plank's centre is more than 1 cm from
//!   where it started, and none was ever 5 cm away), fell (a plank's centre moved more than
//!   5 cm; the run stops there) or neither, the top plank's drift, the wall time and Newton
//!   iterations per step, and each interface's gap, contact force and centre of pressure
//!   beside the statics solution (SDRS Fig. 24, bottom). With `--expect`, exits with status 1
//!   when the verdict differs. `--trace` prints every plank's x/z displacement every 0.05 s.
//! - `--table2` reproduces the long-range paper's Table 2: the stack under the long-range
//!   potential for `μ` = 1e-5, 1e-6, 1e-7, 1e-8 and 1e-10, each for DURATION_S (1 s by
//!   default; a long-range step of the 20 planks takes about a second on 2 cores, so the
//!   default sweep takes some 10 minutes): the mean margin between planks, the error of the
//!   top plank's contact force from the plank under it against its weight, and whether it
//!   stood, beside the paper's.

use sdrs::contact::long_range::LongRange;
use sdrs::prelude::*;
use sdrs_examples::book_stack::{
    FELL, Interface, LENGTH, MASS, PAPER_OFFSET, PLANKS, Run, Stack, Verdict, interfaces, run,
    stack,
};
use std::error::Error;

type Result<T> = std::result::Result<T, Box<dyn Error>>;

/// Blending margin of the long-range potential (relative; the table-top scenes' value).
const LONG_RANGE_MARGIN: f64 = 0.1;
/// Table 2 of the long-range paper: coefficient, margin (m), top force error (N), stood.
const TABLE2: [(f64, f64, f64, bool); 5] = [
    (1e-5, 1.82e-2, 6.38e-3, false),
    (1e-6, 5.67e-3, 6.40e-4, true),
    (1e-7, 1.47e-3, 6.42e-5, true),
    (1e-8, 4.12e-4, 6.42e-6, true),
    (1e-10, 3.13e-5, 6.42e-8, true),
];

struct Options {
    duration: Option<f64>,
    offset: f64,
    expect: Option<Verdict>,
    mu: f64,
    contact: Option<(f64, f64, f64)>,
    long_range: Option<f64>,
    table2: bool,
    trace: bool,
}

fn parse() -> Result<Options> {
    let mut options = Options {
        duration: None,
        offset: PAPER_OFFSET,
        expect: None,
        mu: 0.5,
        contact: None,
        long_range: None,
        table2: false,
        trace: false,
    };
    let mut positional = 0;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--expect" => {
                options.expect = Some(match value()?.as_str() {
                    "stand" => Verdict::Stood,
                    "fall" => Verdict::Fell,
                    other => return Err(format!("--expect stand|fall, not {other}").into()),
                })
            }
            "--trace" => options.trace = true,
            "--table2" => options.table2 = true,
            "--mu" => options.mu = value()?.parse()?,
            "--long-range" => options.long_range = Some(value()?.parse()?),
            "--contact" => {
                let parts: Vec<f64> = value()?
                    .split(':')
                    .map(str::parse)
                    .collect::<std::result::Result<_, _>>()?;
                let [s, k, e] = parts[..] else {
                    return Err("--contact S:KAPPA:EPS_V".into());
                };
                options.contact = Some((s, k, e));
            }
            _ => {
                match positional {
                    0 => options.duration = Some(arg.parse()?),
                    1 => options.offset = arg.parse()?,
                    _ => return Err(format!("unexpected argument {arg}").into()),
                }
                positional += 1;
            }
        }
    }
    if options.contact.is_some() && options.long_range.is_some() {
        return Err("--contact (plane barrier) and --long-range exclude each other".into());
    }
    Ok(options)
}

/// The contact settings of `options`: the `World` defaults, the barrier of `--contact`, or the
/// long-range potential with `coefficient`; friction `options.mu` unless 0.
fn contact(options: &Options, long_range: Option<f64>) -> Result<ContactSettings> {
    let friction = (options.mu > 0.0).then(|| FrictionSettings::new(options.mu));
    if let Some(coefficient) = long_range {
        let settings = ContactSettings::new(
            ContactKind::LongRange(LongRange::new(LONG_RANGE_MARGIN)?),
            coefficient,
        )?;
        return Ok(match friction {
            Some(f) => settings.with_friction(f?),
            None => settings,
        });
    }
    let mut world = World::new(0.01)?;
    if options.mu > 0.0 {
        world = world.with_friction(options.mu)?;
    }
    let mut settings = world.settings_mut().contact.clone().ok_or("no contact")?;
    if let Some((s, k, e)) = options.contact {
        settings.kind = ContactKind::Hulls(PlaneBarrier::new(s)?);
        settings.stiffness = k;
        if let Some(f) = settings.friction.take() {
            settings.friction = Some(f.with_velocity_epsilon(e)?);
        }
    }
    Ok(settings)
}

fn describe(settings: &ContactSettings) -> String {
    match &settings.kind {
        ContactKind::LongRange(_) => format!("long-range potential, μ = {:e}", settings.stiffness),
        ContactKind::Hulls(barrier) => format!(
            "plane barrier, s = {:e} m, κ = {:e} N·m²",
            barrier.support(),
            settings.stiffness
        ),
        other => format!("{other:?}, κ = {:e}", settings.stiffness),
    }
}

/// Builds and runs the stack; prints the trace when asked.
fn simulate(settings: &ContactSettings, options: &Options, seconds: f64) -> Result<(Stack, Run)> {
    let mut stack = stack(settings, options.offset)?;
    let dt = stack.sim.settings().dt;
    let trace = options.trace;
    let result = run(&mut stack, seconds, |step, _, displacement| {
        if !trace || (step + 1) % 5 != 0 {
            return;
        }
        let worst = (0..PLANKS)
            .max_by(|&a, &b| displacement[a].norm().total_cmp(&displacement[b].norm()))
            .unwrap_or(0);
        let d: Vec<String> = displacement
            .iter()
            .map(|d| format!("{:+.2}/{:+.2}", d.x * 1e3, d.z * 1e3))
            .collect();
        println!(
            "t {:.2} s: largest displacement {:.3} mm (plank {worst} from the bottom); x/z mm: {}",
            (step + 1) as f64 * dt,
            displacement[worst].norm() * 1e3,
            d.join(" ")
        );
    })?;
    Ok((stack, result))
}

fn print_run(run: &Run, dt: f64) {
    match run.verdict {
        Verdict::Fell => println!(
            "verdict: FELL after {:.2} s (a plank's centre moved > {FELL} m)",
            run.steps as f64 * dt
        ),
        verdict => println!(
            "verdict: {} after {:.1} s (largest plank displacement at the end {:.3} mm, during \
             the run {:.3} mm)",
            if verdict == Verdict::Stood {
                "STOOD"
            } else {
                "UNDECIDED"
            },
            run.steps as f64 * dt,
            run.moved * 1e3,
            run.largest * 1e3
        ),
    }
    let [last, before] = run.top;
    println!(
        "top plank: drift ({:+.4}, {:+.4}, {:+.4}) mm, horizontal drift over the last second \
         {:.3e} m/s",
        last.x * 1e3,
        last.y * 1e3,
        last.z * 1e3,
        (last - before).xy().norm()
    );
    let seconds = run.time.as_secs_f64();
    println!(
        "{} steps: {:.3} ms/step, wall {seconds:.2} s; Newton iterations mean {:.2}, max {}",
        run.steps,
        seconds * 1e3 / run.steps.max(1) as f64,
        run.iterations.0 as f64 / run.steps.max(1) as f64,
        run.iterations.1
    );
}

fn print_interfaces(interfaces: &[Interface]) {
    println!(
        "interface (plank on) | gap (mm) | force (N) | statics (N) | force error | centre of \
         pressure x (m) | statics x | right edge below x"
    );
    for (i, f) in interfaces.iter().enumerate() {
        let on = if i == 0 {
            "ground".to_string()
        } else {
            format!("plank {}", i - 1)
        };
        println!(
            "plank {i:2} on {on:8} | {:8.4} | {:9.5} | {:11.5} | {:+10.2e} | {:.5} | {:.5} | {:.5}",
            f.gap * 1e3,
            f.force,
            f.statics,
            (f.force - f.statics) / f.statics,
            f.pressure_x,
            f.mass_centre_x,
            f.edge_x
        );
    }
}

/// The long-range paper's Table 2: margin, top-plank force error and stability per `μ`.
fn table2(options: &Options, seconds: f64) -> Result<()> {
    println!(
        "long-range paper Table 2: {PLANKS} planks, overhang L/(2k) {:+.3}% L, friction {}, \
         {seconds} s each",
        100.0 * options.offset,
        options.mu
    );
    println!(
        "| μ | margin (m), ours | paper | top plank force error (N), ours | paper | stood, ours | \
         paper | ms/step |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for (coefficient, margin, error, stood) in TABLE2 {
        let settings = contact(options, Some(coefficient))?;
        let (mut stack, result) = match simulate(&settings, options, seconds) {
            Ok(done) => done,
            Err(e) => {
                println!(
                    "| {coefficient:e} | failed: {e} | {margin:.2e} | | {error:.2e} | | {stood} | |"
                );
                continue;
            }
        };
        let found = interfaces(&mut stack, &result.end)?;
        let planks = &found[1..];
        let mean_gap = planks.iter().map(|f| f.gap).sum::<f64>() / planks.len() as f64;
        let top = &found[PLANKS - 1];
        // A stack that did not stand is not at rest: its forces are not a statics error.
        let top_error = match result.verdict {
            Verdict::Stood => format!("{:.2e}", (top.force - MASS * 9.81).abs()),
            _ => "– (moving)".to_string(),
        };
        println!(
            "| {coefficient:e} | {mean_gap:.2e} | {margin:.2e} | {top_error} | {error:.2e} | {} | {} | {:.1} |",
            result.verdict == Verdict::Stood,
            stood,
            result.time.as_secs_f64() * 1e3 / result.steps as f64
        );
    }
    Ok(())
}

fn main() -> Result<()> {
    let options = parse()?;
    if options.table2 {
        return table2(&options, options.duration.unwrap_or(1.0));
    }
    let seconds = options.duration.unwrap_or(60.0);
    let settings = contact(&options, options.long_range)?;
    println!(
        "book stack: {PLANKS} planks {LENGTH} m long, {MASS} kg, overhang L/(2k) {:+.3}% L, \
         friction {}, {}, {seconds} s",
        100.0 * options.offset,
        options.mu,
        describe(&settings)
    );
    let (mut stack, result) = simulate(&settings, &options, seconds)?;
    print_run(&result, stack.sim.settings().dt);
    print_interfaces(&interfaces(&mut stack, &result.end)?);
    if let Some(expected) = options.expect
        && expected != result.verdict
    {
        eprintln!("expected {expected:?}, got {:?}", result.verdict);
        std::process::exit(1);
    }
    Ok(())
}
