//! System identification (issue 46) at the example's scale: the box's friction coefficient and
//! mass recovered from its own recorded trajectory, within 1e-6 relative (the target
//! without model mismatch), from guesses on either side of the truth.

use sdrs_examples::identify::{TRUTH, identify, record};

#[test]
fn a_thrown_box_gives_back_its_friction_and_mass() {
    let recorded = record(TRUTH[0], TRUTH[1]).unwrap();
    for guess in [[0.5, 1.0], [0.25, 2.0]] {
        let fit = identify(&recorded, guess, |_, _, _| {}).unwrap();
        for (found, truth) in fit.found.iter().zip(TRUTH) {
            assert!(
                (found - truth).abs() < 1e-6 * truth,
                "from {guess:?}: found {:?}, true {TRUTH:?}",
                fit.found
            );
        }
        assert!(fit.history.last().unwrap() < &1e-12, "{:?}", fit.history);
    }
}
