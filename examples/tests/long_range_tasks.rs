//! Reduced versions of the long-range paper's table-top benchmarks (sec. 6): from the
//! trivial start (the rod held where it is, far from the cubes) gradient descent through the
//! long-range model lowers the loss, while the SDRS barrier's gradient is exactly zero there
//! (its support ends a millimetre from the surfaces).

use sdrs::prelude::DVector;
use sdrs_examples::long_range::gather::{gather, gather_pieces};
use sdrs_examples::long_range::sort::sort;
use sdrs_examples::long_range::tabletop::{Contact, Piece, optimise};

#[test]
fn gather_loss_falls_from_the_trivial_start_under_long_range_contact() {
    let task = gather(2, 6, Contact::LongRange).unwrap();
    let start = task.policy.initial();
    let run = optimise(&task, start, 3, 1e-2, |_, _| ()).unwrap();
    let (first, last) = (run.history[0], *run.history.last().unwrap());
    eprintln!("gather: loss {first:.9e} -> {last:.9e}");
    assert!(
        run.end.parameters.amax() > 0.0,
        "the long-range gradient does not vanish"
    );
    assert!(last < first, "loss {first} -> {last}");
}

#[test]
fn sort_loss_falls_from_the_trivial_start_under_long_range_contact() {
    let (task, _) = sort(2, 6, Contact::LongRange).unwrap();
    let start = task.policy.initial();
    let run = optimise(&task, start, 3, 1e-2, |_, _| ()).unwrap();
    let (first, last) = (run.history[0], *run.history.last().unwrap());
    eprintln!("sort: loss {first:.9e} -> {last:.9e}");
    assert!(last < first, "loss {first} -> {last}");
}

#[test]
fn the_sdrs_barrier_gives_no_gradient_from_the_trivial_start() {
    let task = gather(2, 6, Contact::Hulls).unwrap();
    let e = task
        .evaluate(&task.policy.initial(), &DVector::zeros(0))
        .unwrap();
    assert!(e.loss > 0.0);
    assert_eq!(e.parameters.amax(), 0.0, "{:?}", e.parameters);
}

#[test]
fn gather_of_non_convex_pieces_loss_falls_from_the_trivial_start() {
    let task = gather_pieces(2, 6, Contact::LongRange, Piece::ell).unwrap();
    assert_eq!(
        task.model.links()[task.model.link_index("cube0").unwrap()]
            .hulls
            .len(),
        3
    );
    let start = task.policy.initial();
    let run = optimise(&task, start, 3, 1e-2, |_, _| ()).unwrap();
    let (first, last) = (run.history[0], *run.history.last().unwrap());
    eprintln!("gather (L pieces): loss {first:.9e} -> {last:.9e}");
    assert!(last < first, "loss {first} -> {last}");
}
