//! Plain-line progress: one line per tenth of the work, one at the end, message included.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sdrs_report::{Progress, ProgressMode};

#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Shared {
    fn lines(&self) -> Vec<String> {
        String::from_utf8(self.0.lock().unwrap().clone())
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect()
    }
}

#[test]
fn lines_at_every_tenth_and_at_the_end() {
    let out = Shared::default();
    let progress = Progress::lines_to(
        "simulate",
        200,
        Duration::from_secs(3600),
        Box::new(out.clone()),
    );
    for i in 0..200 {
        if i == 100 {
            progress.set_message("halfway");
        }
        progress.inc(1);
    }
    assert_eq!(progress.position(), 200);
    progress.finish();
    let lines = out.lines();
    // Ten tenths; `finish` adds nothing at the position already shown.
    assert_eq!(lines.len(), 10, "{lines:#?}");
    assert!(
        lines[0].starts_with("simulate: 20/200 (10%) "),
        "{}",
        lines[0]
    );
    assert!(
        lines[4].starts_with("simulate: 100/200 (50%) "),
        "{}",
        lines[4]
    );
    assert!(!lines[4].contains("halfway"));
    assert!(lines[5].ends_with(" halfway"), "{}", lines[5]);
    assert!(
        lines[9].starts_with("simulate: 200/200 (100%) "),
        "{}",
        lines[9]
    );
}

#[test]
fn a_zero_interval_writes_a_line_per_increment_and_overshoot_is_clamped() {
    let out = Shared::default();
    let progress = Progress::lines_to("bench", 1000, Duration::ZERO, Box::new(out.clone()));
    progress.inc(1);
    progress.inc(1);
    progress.inc(5000);
    assert_eq!(progress.position(), 1000);
    assert_eq!(out.lines().len(), 3);
    assert!(out.lines()[2].starts_with("bench: 1000/1000 (100%)"));
    progress.finish();
    assert_eq!(out.lines().len(), 3);
}

#[test]
fn finish_adds_a_line_when_the_last_one_is_stale() {
    let out = Shared::default();
    let progress = Progress::lines_to(
        "stop",
        100,
        Duration::from_secs(3600),
        Box::new(out.clone()),
    );
    progress.inc(10);
    progress.inc(5);
    progress.finish();
    let lines = out.lines();
    assert_eq!(lines.len(), 2, "{lines:#?}");
    assert!(lines[0].starts_with("stop: 10/100 (10%)"), "{}", lines[0]);
    assert!(lines[1].starts_with("stop: 15/100 (15%)"), "{}", lines[1]);
}

#[test]
fn zero_total_does_not_divide_by_zero() {
    let out = Shared::default();
    let progress = Progress::lines_to("empty", 0, Duration::from_secs(3600), Box::new(out.clone()));
    progress.inc(1);
    progress.finish();
    assert_eq!(
        out.lines()[0].split(' ').take(3).collect::<Vec<_>>(),
        ["empty:", "0/0", "(100%)"]
    );
}

#[test]
fn hidden_and_bar_modes_count() {
    for mode in [ProgressMode::Hidden, ProgressMode::Bar] {
        let progress = Progress::new("quiet", 3, mode);
        progress.inc(2);
        progress.set_message("m");
        assert_eq!(progress.position(), 2);
        progress.finish();
    }
    // Tests run with stderr captured or piped, never a terminal here: auto picks lines.
    if !std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        assert!(matches!(ProgressMode::auto(), ProgressMode::Lines { .. }));
    }
}

#[test]
fn a_note_is_written_at_once_between_the_periodic_lines() {
    let out = Shared::default();
    let progress = Progress::lines_to(
        "descent",
        100,
        Duration::from_secs(3600),
        Box::new(out.clone()),
    );
    progress.inc(3);
    progress.note("iteration 3: step not taken: the rollout failed");
    progress.inc(7);
    assert_eq!(
        out.lines(),
        [
            "descent: iteration 3: step not taken: the rollout failed".to_owned(),
            out.lines()[1].clone(),
        ]
    );
    assert!(out.lines()[1].starts_with("descent: 10/100 (10%)"));
    // Hidden progress shows no notes either.
    Progress::new("quiet", 1, ProgressMode::Hidden).note("nothing");
}
