//! Where a step runs: a contact hook that evaluates many pairs moves its steps onto a thread of
//! rayon's pool ([`ContactHook::runs_on_pool`]), and a step is the same bit for bit whichever
//! thread runs it and however many threads the pool has.

use nalgebra::DVector;
use sdrs_contact::PlaneBarrier;
use sdrs_dynamics::scenes::{Scene, box_on_incline, rotating_chains};
use sdrs_dynamics::{ContactHook, Kinematics, Motion, SdrsContact, Simulator, State};

/// The states of `steps` steps of `scene` from rest, each step called from `call`'s thread.
fn states(
    scene: &Scene,
    steps: usize,
    call: impl Fn(&mut (dyn FnMut() + Send)),
) -> Vec<DVector<f64>> {
    let mut sim = Simulator::new(scene.model.clone(), scene.settings.clone()).unwrap();
    let mut motion = Motion::at_rest(&scene.model, State::zero(&scene.model));
    let mut out = Vec::new();
    for _ in 0..steps {
        call(&mut || {
            sim.advance(&mut motion, &scene.control).unwrap();
        });
        out.push(motion.state.q.clone());
    }
    out
}

/// Whether a fresh hull hook over `scene`'s links asks to run on the pool after evaluating
/// the scene at rest.
fn runs_on_pool(scene: &Scene) -> bool {
    let model = &scene.model;
    let mut hook = SdrsContact::new(model, PlaneBarrier::default(), 1.0, false).unwrap();
    assert!(!hook.runs_on_pool(), "nothing evaluated yet");
    let kin = Kinematics::new(model, &State::zero(model));
    let mut gradient = DVector::zeros(model.dof());
    hook.add(model, &kin, Some(&mut gradient), None).unwrap();
    hook.runs_on_pool()
}

#[test]
fn many_pairs_run_on_the_pool_and_a_few_do_not() {
    assert!(runs_on_pool(&rotating_chains(4, 0.01).unwrap()));
    assert!(!runs_on_pool(&box_on_incline(0.0, 0.5, 0.01).unwrap()));
}

#[test]
fn a_step_is_the_same_on_any_thread() {
    let scene = rotating_chains(4, 0.01).unwrap();
    let steps = 25;
    // From this (non-pool) thread: the steps after the first move onto the global pool.
    let outside = states(&scene, steps, |step| step());
    for threads in [1, 2, 3] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        // From a thread of another pool: the steps stay on it and fork there.
        let inside = states(&scene, steps, |step| pool.install(step));
        for (k, (a, b)) in outside.iter().zip(&inside).enumerate() {
            assert_eq!(a, b, "step {k} differs on a pool of {threads} threads");
        }
    }
}
