//! Convergence of the NCP solver's defaults (spectral ρ, proximal term) on hard problems:
//! real Delassus problems captured from stepper runs (box towers of 3-5 boxes, a 17-box tower
//! with 68 contacts, Solo-12 standing), random physical problems with many more contact rows
//! than DoFs, and warm starts across steps. The iteration budgets are about twice what the
//! solver needs (stated per test); the previous fixed-ρ ADMM needed 400-10,000 iterations on
//! the same problems at the stepper's tolerance 1e-12.

use crate::captured::{Captured, box_tower, fixed_rho_solver, solo12_standing};
use nalgebra::{DMatrix, DVector};
use proptest::prelude::*;
use sdrs_ncp::{NcpProblem, NcpSolution, SolverSettings, solve};

/// The stepper's tolerance.
const TOL: f64 = 1e-12;

/// The default solver at the stepper's tolerance.
fn spectral(max_iterations: usize) -> SolverSettings {
    SolverSettings::builder()
        .tolerance(TOL)
        .max_iterations(max_iterations)
        .build()
        .unwrap()
}

/// Solves `captured` cold with the defaults within `budget` iterations and checks the
/// contact velocities against those of the stepper's (fixed-ρ) solution: `σ = G λ + g` is
/// what the step integrates (the impulses themselves are not unique when `G` is singular).
fn solves_within(name: &str, captured: &Captured, budget: usize) -> NcpSolution {
    let problem = &captured.problem;
    let solution = solve(problem, &spectral(budget), None)
        .unwrap_or_else(|e| panic!("{name}, {} contacts: {e}", problem.contacts()));
    assert!(solution.residuals.max() <= TOL);
    let reference = problem.velocity(&captured.impulses);
    let difference = (&solution.velocities - reference).amax();
    assert!(
        difference < 1e-9,
        "{name}: velocities differ by {difference:e}"
    );
    eprintln!(
        "{name}: {} contacts, {} iterations",
        problem.contacts(),
        solution.iterations
    );
    solution
}

#[test]
fn box_towers_of_three_to_five_converge_in_tens_of_iterations() {
    // Measured: 9, 10 and 11 iterations (fixed ρ: 387, ~700, 994).
    for boxes in 3..=5 {
        let captured = box_tower(boxes, 200, fixed_rho_solver());
        assert_eq!(captured.problem.contacts(), 4 * boxes);
        solves_within(&format!("tower of {boxes}"), &captured, 30);
    }
}

#[test]
fn tower_of_seventeen_boxes_with_68_contacts_converges() {
    // Measured: 23 iterations (fixed ρ: 9,953).
    let captured = box_tower(17, 100, fixed_rho_solver());
    assert_eq!(captured.problem.contacts(), 68);
    solves_within("tower of 17", &captured, 60);
}

#[test]
fn solo12_standing_problems_converge_in_a_few_hundred_iterations() {
    // Measured: about 190-230 iterations (fixed ρ: about 470-680).
    for steps in [30, 300, 600] {
        let captured = solo12_standing(steps, fixed_rho_solver());
        assert!(captured.problem.contacts() >= 12);
        solves_within(&format!("Solo-12 step {steps}"), &captured, 500);
    }
}

#[test]
fn solo12_stands_with_the_default_solver_in_the_loop() {
    // The trajectory of robot.rs with the defaults at the stepper's tolerance: every step
    // converges within the budget (a failed step panics in the capture).
    let captured = solo12_standing(600, spectral(600));
    let most = captured.iterations.iter().max().unwrap();
    let mean = captured.iterations.iter().sum::<usize>() as f64 / 600.0;
    eprintln!("Solo-12 in the loop: at most {most} iterations per step, {mean:.1} on average");
    assert!(*most <= 600);
}

#[test]
fn warm_start_from_the_previous_step_helps() {
    let previous = solo12_standing(300, fixed_rho_solver());
    let next = solo12_standing(301, fixed_rho_solver());
    assert_eq!(previous.problem.contacts(), next.problem.contacts());
    let settings = spectral(500);
    let cold = solve(&next.problem, &settings, None).unwrap();
    let warm = solve(&next.problem, &settings, Some(&previous.impulses)).unwrap();
    eprintln!(
        "Solo-12 step 301: cold {}, warm {} iterations",
        cold.iterations, warm.iterations
    );
    assert!(
        warm.iterations < cold.iterations,
        "warm {} vs cold {}",
        warm.iterations,
        cold.iterations
    );
}

/// A random physical problem with more contact rows than DoFs: `G = J M⁻¹ Jᵀ` (rank ≤ DoFs),
/// `g = J v`.
fn rank_deficient() -> impl Strategy<Value = NcpProblem> {
    (4usize..16, 6usize..13).prop_flat_map(|(contacts, dof)| {
        let m = 3 * contacts;
        (
            proptest::collection::vec(-1.0..1.0f64, m * dof),
            proptest::collection::vec(-1.0..1.0f64, dof * dof),
            proptest::collection::vec(-2.0..2.0f64, dof),
            proptest::collection::vec(0.05..1.2f64, contacts),
        )
            .prop_map(move |(j, r, v, mu)| {
                let jacobian = DMatrix::from_vec(m, dof, j);
                let root = DMatrix::from_vec(dof, dof, r);
                let mass = &root * root.transpose() + DMatrix::identity(dof, dof);
                let minv_jt = mass.cholesky().unwrap().solve(&jacobian.transpose());
                let delassus = &jacobian * minv_jt;
                let delassus = (&delassus + delassus.transpose()) * 0.5;
                NcpProblem::new(delassus, &jacobian * DVector::from_vec(v), mu).unwrap()
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_rank_deficient_problems_converge(problem in rank_deficient()) {
        let settings = SolverSettings::builder().tolerance(1e-10).max_iterations(5000).build().unwrap();
        let solution = solve(&problem, &settings, None);
        prop_assert!(solution.is_ok(), "{} contacts: {:?}", problem.contacts(), solution);
    }
}
