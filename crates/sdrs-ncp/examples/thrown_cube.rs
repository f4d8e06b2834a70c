//! A 1 kg, 20 cm cube thrown onto the ground at 3 m/s along x (and 1 m/s down) with μ = 0.4:
//! it lands, slides and comes to rest (the NCP paper's Fig. 3 scene). Prints its trajectory
//! every 50 ms with the contact modes, and the sliding distance beside the analytic
//! `v²/(2 μ g)` of a block sliding flat from the landing speed.
//!
//! `cargo run --release -p sdrs-ncp --example thrown_cube`

#[path = "common/cube.rs"]
mod cube;

use cube::cube;
use nalgebra::{DVector, Vector3};
use sdrs_dynamics::{Control, State};
use sdrs_ncp::{ContactMode, NcpSettings, NcpSimulator};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (dt, mu, g) = (1e-3, 0.4, 9.81);
    let model = cube()?;
    let settings = NcpSettings::new(dt)?
        .with_friction(mu)?
        .with_ground(Vector3::z(), 0.0)?;
    let mut sim = NcpSimulator::new(model.clone(), settings);
    let mut state = State::new(
        &model,
        DVector::from_vec(vec![0.0, 0.0, 0.3, 0.0, 0.0, 0.0]),
    )?;
    let mut v = DVector::from_vec(vec![3.0, 0.0, -1.0, 0.0, 0.0, 0.0]);
    let control = Control::passive(&model);
    println!("   t (s)      x (m)      z (m)   vx (m/s)   vz (m/s)  contacts  modes");
    let mut landing: Option<(f64, f64)> = None;
    for step in 0..=1500 {
        let report = sim.step(&mut state, &mut v, &control)?;
        if landing.is_none()
            && !report.contacts.is_empty()
            && report
                .contacts
                .iter()
                .any(|c| c.mode != ContactMode::Breaking)
        {
            landing = Some((state.q[0], v[0]));
        }
        if step % 50 == 0 {
            let modes: Vec<&str> = report
                .contacts
                .iter()
                .map(|c| match c.mode {
                    ContactMode::Breaking => "B",
                    ContactMode::Sticking => "St",
                    ContactMode::Sliding => "Sl",
                })
                .collect();
            println!(
                "{:8.3} {:10.4} {:10.4} {:10.4} {:10.4} {:9} {}",
                (step + 1) as f64 * dt,
                state.q[0],
                state.q[2],
                v[0],
                v[2],
                report.contacts.len(),
                modes.join(",")
            );
        }
    }
    if let Some((x0, speed)) = landing {
        println!(
            "slid {:.4} m after landing at {speed:.3} m/s; a block sliding flat: v²/(2 μ g) = {:.4} m",
            state.q[0] - x0,
            speed * speed / (2.0 * mu * g)
        );
    }
    Ok(())
}
