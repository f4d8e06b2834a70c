use sdrs::prelude::*;
use sdrs_examples::biped::biped;
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let amp: f64 = std::env::args()
        .nth(1)
        .map(|s| s.parse().unwrap())
        .unwrap_or(0.0);
    let walker = biped(400)?;
    let mut c = walker.initial();
    for k in 0..c.len() / 3 {
        c[3 * k] *= amp;
    }
    let model = walker.objective.model.clone();
    let mut settings = walker.objective.settings.clone();
    settings.backward = false;
    let mut sim = Simulator::new(model.clone(), settings)?;
    let start = Motion::at_rest(&model, walker.objective.start.clone());
    let tr = rollout_policy(
        &mut sim,
        &start,
        &walker.objective.policy,
        &c,
        400,
        Recording::States,
    )?;
    for (k, s) in tr.states.iter().enumerate().step_by(20) {
        let kin = Kinematics::new(&model, s);
        let p = kin.poses()[walker.root];
        let (r, pi, y) = p.rotation.euler_angles();
        let lf = kin.poses()[model.link_index("left_foot")?];
        println!(
            "{k:4} pelvis {:.3} {:.3} {:.3} rpy {:.3} {:.3} {:.3} lfoot z {:.4} q {:?}",
            p.translation.x,
            p.translation.y,
            p.translation.z,
            r,
            pi,
            y,
            lf.translation.z,
            s.q.as_slice()[6..]
                .iter()
                .map(|v| (v * 1000.0).round() / 1000.0)
                .collect::<Vec<_>>()
        );
    }
    Ok(())
}
