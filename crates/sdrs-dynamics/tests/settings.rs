//! Contact settings select the contact model `Simulator::new` builds, friction steps with the
//! simulator's Δt, and a custom hook cannot silently override the settings.

use sdrs_contact::ipc::potential::Ipc;
use sdrs_contact::long_range::LongRange;
use sdrs_dynamics::scenes::{box_on_incline, sliding_block};
use sdrs_dynamics::{
    ContactKind, ContactSettings, DynamicsError, FrictionSettings, Kinematics, Motion, Simulator,
    State, StepSettings,
};

/// `steps` passive steps of `sim` from `start`: every motion on the way.
fn run(sim: &mut Simulator, start: &Motion, steps: usize) -> Vec<Motion> {
    let control = sdrs_dynamics::Control::passive(sim.model());
    let mut motion = start.clone();
    (0..steps)
        .map(|_| {
            sim.advance(&mut motion, &control).unwrap();
            motion.clone()
        })
        .collect()
}

/// The settings' long-range model with friction is the hook the scene builds by hand: the
/// same trajectory, bit for bit.
#[test]
fn long_range_settings_build_the_long_range_hook() {
    let scene = sliding_block(0.5, 0.5, 0.01).unwrap();
    let model = scene.scene.model.clone();
    let mut by_hand = Simulator::with_contact(
        model.clone(),
        scene.scene.settings.clone(),
        Box::new(scene.contact),
    )
    .unwrap();
    let mut settings = scene.scene.settings;
    settings.contact = Some(
        ContactSettings::new(ContactKind::LongRange(LongRange::new(0.1).unwrap()), 1e-7)
            .unwrap()
            .with_skip_adjacent(false)
            .with_friction(FrictionSettings::new(0.5).unwrap()),
    );
    let mut selected = Simulator::new(model, settings).unwrap();
    let expected = run(&mut by_hand, &scene.start, 10);
    assert_eq!(run(&mut selected, &scene.start, 10), expected);
    // And it is not the SDRS hull model between the same links' hulls.
    let mut hulls = selected.settings().clone();
    hulls.contact = Some(ContactSettings::default_for(f64::INFINITY).unwrap());
    let mut other = Simulator::new(selected.model().clone(), hulls).unwrap();
    assert_ne!(run(&mut other, &scene.start, 10), expected);
}

/// IPC settings carry a sliding block on the slab's mesh as the IPC hook does.
#[test]
fn ipc_settings_build_the_ipc_hook() {
    use sdrs_contact::ipc::friction::IpcFriction;
    use sdrs_dynamics::IpcContact;
    let scene = sliding_block(0.5, 0.0, 0.01).unwrap();
    let model = scene.scene.model.clone();
    let ipc = Ipc::new(2e-3).unwrap();
    let hook = IpcContact::new(&model, ipc.clone(), 1e8, true)
        .unwrap()
        .with_friction(IpcFriction::new(&ipc, 0.5, 0.01).unwrap());
    let mut by_hand =
        Simulator::with_contact(model.clone(), scene.scene.settings.clone(), Box::new(hook))
            .unwrap();
    let mut settings = scene.scene.settings;
    settings.contact = Some(
        ContactSettings::new(ContactKind::Ipc(ipc), 1e8)
            .unwrap()
            .with_friction(FrictionSettings::new(0.5).unwrap()),
    );
    let mut selected = Simulator::new(model, settings).unwrap();
    assert_eq!(
        run(&mut selected, &scene.start, 10),
        run(&mut by_hand, &scene.start, 10)
    );
}

/// Friction is built with the simulator's Δt: settings made for Δt = 0.01 s and then changed
/// to 0.005 s give a block sliding at 1 m/s on a flat slab the Coulomb deceleration `μ g`
/// at the new Δt.
#[test]
fn friction_steps_with_the_settings_dt() {
    let mu = 0.5;
    let mut scene = box_on_incline(0.0, mu, 0.01).unwrap();
    let dt = 0.005;
    scene.settings.dt = dt;
    let mut sim = Simulator::new(scene.model.clone(), scene.settings).unwrap();
    let mut rest = Motion::at_rest(&scene.model, State::zero(&scene.model));
    rest = run(&mut sim, &rest, 200).pop().unwrap();
    let mut before = rest.state.clone();
    before.q[0] -= 1.0 * dt;
    let start = Motion {
        previous: Kinematics::new(&scene.model, &before).poses().to_vec(),
        state: rest.state.clone(),
    };
    let path = run(&mut sim, &start, 2);
    let x = [
        before.q[0],
        rest.state.q[0],
        path[0].state.q[0],
        path[1].state.q[0],
    ];
    let deceleration = -(x[2] - 2.0 * x[1] + x[0]) / (dt * dt);
    eprintln!(
        "DBG {} {}",
        deceleration,
        -(x[3] - 2.0 * x[2] + x[1]) / (dt * dt)
    );
    assert!(x[3] > x[2] && x[2] > x[1], "still sliding: {x:?}");
    assert!(
        (deceleration - mu * 9.81).abs() < 1e-3 * mu * 9.81,
        "deceleration {deceleration} m/s², Coulomb {}",
        mu * 9.81
    );
}

#[test]
fn a_custom_hook_next_to_selected_contact_is_an_error() {
    let scene = sliding_block(0.0, 0.0, 0.01).unwrap();
    let mut settings = StepSettings::new(0.01).unwrap();
    settings.contact = Some(ContactSettings::default_for(f64::INFINITY).unwrap());
    let result = Simulator::with_contact(scene.scene.model, settings, Box::new(scene.contact));
    assert!(matches!(
        result,
        Err(DynamicsError::TwoContactModels { .. })
    ));
}

#[test]
fn bad_contact_settings_are_rejected_with_their_name() {
    let hulls = || ContactKind::Hulls(Default::default());
    let named = |r: Result<_, DynamicsError>, name: &str| {
        let Err(DynamicsError::InvalidSetting { name: n, .. }) = r else {
            panic!("{name} accepted")
        };
        assert!(n.contains(name), "{n}");
    };
    named(ContactSettings::new(hulls(), 0.0).map(|_| ()), "stiffness");
    named(
        ContactSettings::new(hulls(), f64::NAN).map(|_| ()),
        "stiffness",
    );
    named(FrictionSettings::new(-0.1).map(|_| ()), "mu");
    named(
        FrictionSettings::new(0.5)
            .unwrap()
            .with_velocity_epsilon(f64::INFINITY)
            .map(|_| ()),
        "velocity_epsilon",
    );
    // Public fields edited after construction are checked when a simulator is built.
    let scene = box_on_incline(0.0, 0.5, 0.01).unwrap();
    let mut settings = scene.settings;
    settings
        .contact
        .as_mut()
        .unwrap()
        .friction
        .as_mut()
        .unwrap()
        .mu = -1.0;
    named(Simulator::new(scene.model, settings).map(|_| ()), "mu");
}
