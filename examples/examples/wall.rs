//! The wall experiment of the SDRS paper (sec. V-J, Fig. 24 top; scene in
//! [`sdrs_examples::wall`]): box 2 spins into box 1 beside a fixed wall, and friction brings
//! both to rest. Prints both boxes' yaw angles (rad) every 0.1 s and their final angles,
//! checks that both came to rest without any hulls touching, and writes every step's angles,
//! energy and speed to `target/sdrs-out/wall/angles.csv` (or `--out`), the yaws as a plot
//! (`yaw.{csv,svg,png}`), the motion as an animation (`wall.{glb,html}`), and the scene as
//! `scene.json` for `benches/reference/mujoco_wall.py`.
//!
//! `cargo run --release -p sdrs-examples --example wall -- [--seconds T] [--mu MU] [--spin W]`
//!
//! `benches/reference/mujoco_wall.py` builds the same scene in MuJoCo and prints its angles.

use clap::Parser;
use sdrs::prelude::*;
use sdrs_examples::wall::{DT, MU, SPIN, Sample, WallScene, wall_scene};
use sdrs_report::{LinePlot, display_path, target_dir};
use sdrs_view::glb::Animation;
use sdrs_view::{Plots, write_run};
use std::fmt::Write as _;
use std::path::PathBuf;

#[derive(Parser)]
#[command(about = "SDRS sec. V-J: two boxes, one spun into the other beside a wall")]
struct Args {
    /// Simulated time (s).
    #[arg(long, default_value_t = 3.0)]
    seconds: f64,
    /// Friction coefficient.
    #[arg(long, default_value_t = MU)]
    mu: f64,
    /// Box 2's starting angular velocity about z (rad/s).
    #[arg(long, default_value_t = SPIN, allow_hyphen_values = true)]
    spin: f64,
    /// Output directory (default target/sdrs-out/wall).
    #[arg(long)]
    out: Option<PathBuf>,
}

/// The scene for `benches/reference/mujoco_wall.py`: time step, steps, gravity, friction, the
/// wall's and boxes' poses (position, quaternion w x y z) and half-extents, the boxes' masses
/// and principal inertias (sdrs's, mass at the corners), box 2's spin, and sdrs's final yaws.
fn scene_json(
    scene: &WallScene,
    args: &Args,
    steps: usize,
    last: &Sample,
) -> Result<serde_json::Value, Box<dyn std::error::Error>> {
    let model = &scene.model;
    let kin = Kinematics::new(model, &scene.start.state);
    let body = |l: usize| -> Result<serde_json::Value, Box<dyn std::error::Error>> {
        let pose = kin.poses()[l];
        let q = pose.rotation.into_inner();
        let hull = &model.links()[l].hulls[0];
        let half = hull
            .vertices()
            .iter()
            .fold(Vector3::zeros(), |h: Vector3<f64>, v| {
                h.sup(&v.coords.abs())
            });
        let s = model.second_moment(l).fixed_view::<3, 3>(0, 0).into_owned();
        // Principal moments of the box (its axes are principal): I_xx = S_yy + S_zz, ...
        let inertia = [1, 2, 0].map(|k| s[(k, k)] + s[((k + 1) % 3, (k + 1) % 3)]);
        Ok(serde_json::json!({
            "name": model.links()[l].name,
            "pos": [pose.translation.x, pose.translation.y, pose.translation.z],
            "quat": [q.w, q.i, q.j, q.k],
            "half": [half.x, half.y, half.z],
            "mass": model.mass(l),
            "inertia": inertia,
        }))
    };
    Ok(serde_json::json!({
        "dt": DT,
        "steps": steps,
        "gravity": scene.simulator.settings().gravity,
        "mu": args.mu,
        "spin": args.spin,
        "wall": body(scene.wall)?,
        "boxes": [body(scene.boxes[0])?, body(scene.boxes[1])?],
        "sdrs_final_yaw": last.yaw,
    }))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| target_dir().join("sdrs-out").join("wall"));
    std::fs::create_dir_all(&out)?;
    let mut scene = wall_scene(args.mu, args.spin)?;
    let steps = (args.seconds / DT).round() as usize;
    let clock = std::time::Instant::now();
    let samples = scene.simulate(steps)?;
    let wall_time = clock.elapsed().as_secs_f64();
    let mut csv = String::from("time_s,box1_yaw_rad,box2_yaw_rad,energy_j,max_speed_m_s,gap_m\n");
    println!("  time (s)  box 1 yaw (rad)  box 2 yaw (rad)  energy (J)  max speed (m/s)");
    for (k, s) in samples.iter().enumerate() {
        writeln!(
            csv,
            "{:.3},{:.9},{:.9},{:.9},{:.3e},{:.3e}",
            s.time, s.yaw[0], s.yaw[1], s.energy, s.speed, s.gap
        )?;
        if k % 10 == 0 {
            println!(
                "{:>10.2}  {:>15.5}  {:>15.5}  {:>10.5}  {:>15.2e}",
                s.time, s.yaw[0], s.yaw[1], s.energy, s.speed
            );
        }
    }
    let last = samples.last().ok_or("no samples")?;
    let gap = samples.iter().map(|s| s.gap).fold(f64::INFINITY, f64::min);
    println!(
        "final angles: box 1 {:.5} rad ({:.2}°), box 2 {:.5} rad ({:.2}°)",
        last.yaw[0],
        last.yaw[0].to_degrees(),
        last.yaw[1],
        last.yaw[1].to_degrees()
    );
    println!(
        "at rest: fastest vertex {:.2e} m/s at the end; smallest gap between hulls {gap:.2e} m; energy {:.4} J -> {:.4} J; {steps} steps in {wall_time:.2} s",
        last.speed, samples[0].energy, last.energy
    );
    println!(
        "distance to the wall at the end: box 1 {:.2e} m, box 2 {:.2e} m",
        last.to_wall[0], last.to_wall[1]
    );
    println!(
        "paper (Fig. 24, top): SDRS's and MuJoCo's angle curves nearly coincide; MuJoCo on this \
         scene: `benches/reference/mujoco_wall.py` with the scene.json written here"
    );
    let path = out.join("angles.csv");
    std::fs::write(&path, csv)?;
    println!("wrote {}", display_path(&path));
    let mut plot = LinePlot::new("wall experiment: both boxes' yaw (SDRS Fig. 24, top)")
        .x_label("time (s)")
        .y_label("yaw (rad)");
    for k in 0..2 {
        plot = plot.series(
            &format!("box {}", k + 1),
            samples.iter().map(|s| (s.time, s.yaw[k])).collect(),
        );
    }
    for path in plot.write_all(&out, "yaw")? {
        println!("wrote {}", display_path(&path));
    }
    let states: Vec<State> = samples.iter().map(|s| s.state.clone()).collect();
    let animation = Animation::from_states(&scene.model, DT, &states)?;
    let title = "wall experiment: box 2 spun into box 1 beside a wall";
    for path in write_run(&animation, title, &Plots::default(), &out, "wall")? {
        println!("wrote {}", display_path(&path));
    }
    let path = out.join("scene.json");
    std::fs::write(
        &path,
        serde_json::to_string_pretty(&scene_json(&scene, &args, steps, last)?)?,
    )?;
    println!("wrote {}", display_path(&path));
    Ok(())
}
