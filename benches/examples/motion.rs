//! Runs the motion workloads (`sdrs_benches::motion`) and prints per-step statistics.
use sdrs_dynamics::{FrictionSettings, Simulator};
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let only: Vec<String> = std::env::args().skip(1).collect();
    for mut w in sdrs_benches::motion::workloads()? {
        if !only.is_empty() && !only.iter().any(|o| o == w.name) {
            continue;
        }
        let mut settings = w.sim.settings().clone();
        if let Ok(e) = std::env::var("EPSV") {
            let c = settings.contact.as_mut().unwrap();
            let mu = c.friction.as_ref().unwrap().mu;
            c.friction = Some(FrictionSettings::new(mu)?.with_velocity_epsilon(e.parse()?)?);
        }
        if std::env::var("NOFRICTION").is_ok() {
            settings.contact.as_mut().unwrap().friction = None;
        }
        if let Ok(t) = std::env::var("TOL") {
            settings.tolerance = t.parse()?;
        }
        if std::env::var("CURRENT").is_ok() {
            settings.start = sdrs_dynamics::NewtonStart::Current;
        }
        w.sim = Simulator::new(w.model.clone(), settings)?;
        if let Ok(k) = std::env::var("TRACE_STEP") {
            let k: usize = k.parse()?;
            let mut motion = w.start.clone();
            let mut control = sdrs_dynamics::Control::passive(&w.model);
            for s in 0..=k {
                (w.schedule)(s, &mut control);
                eprintln!("STEP {s}");
                let r = w.sim.advance(&mut motion, &control)?;
                if s == k {
                    println!(
                        "step {s}: {} iterations, residual {:.3e}, active {}",
                        r.iterations, r.residual, r.active_pairs
                    );
                }
            }
            return Ok(());
        }
        let m = w.run()?;
        println!(
            "{:<14} {:>3} DoF  step {:>9.1} µs  iterations {:>5.2} (max {:>3})  trials {:>5.2}  per iteration {:>7.1} µs  final base {:?}",
            w.name,
            w.model.dof(),
            1e6 * m.mean_step(),
            m.mean_iterations(),
            m.max_iterations(),
            m.mean_trials(),
            1e6 * m.per_iteration().unwrap_or(0.0),
            &m.final_q[..3.min(m.final_q.len())]
        );
        if std::env::var("HIST").is_ok() {
            let mut worst: Vec<(usize, usize, usize)> = m
                .iterations
                .iter()
                .zip(&m.trials)
                .enumerate()
                .map(|(k, (&i, &t))| (i, t, k))
                .collect();
            worst.sort();
            println!("worst {:?}", &worst[worst.len() - 15..]);
            let mut hist = [0usize; 8];
            for &i in &m.iterations {
                hist[(i as f64).log2().floor().max(0.0).min(7.0) as usize
                    + if i == 0 { 0 } else { 0 }] += 1;
            }
            println!("hist (log2 buckets) {:?}", hist);
        }
    }
    Ok(())
}
