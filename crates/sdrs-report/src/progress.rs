//! Progress of a long loop: an indicatif bar on a terminal, periodic plain lines otherwise
//! (logs, CI, pipes), or nothing.

use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

/// How a [`Progress`] shows itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProgressMode {
    /// An animated indicatif bar on standard error.
    Bar,
    /// A plain line on standard error at every tenth of the work and at least every
    /// `interval`, plus one at the end.
    Lines {
        /// The longest time between two lines.
        interval: Duration,
    },
    /// Nothing.
    Hidden,
}

impl ProgressMode {
    /// A bar when standard error is a terminal, otherwise lines every 5 s (and every tenth).
    pub fn auto() -> Self {
        if std::io::stderr().is_terminal() {
            Self::Bar
        } else {
            Self::Lines {
                interval: Duration::from_secs(5),
            }
        }
    }
}

/// Progress through `total` units of work, with a label and a changing message.
///
/// ```
/// use sdrs_report::{Progress, ProgressMode};
/// let progress = Progress::new("simulate", 100, ProgressMode::Hidden);
/// for _ in 0..100 {
///     progress.inc(1);
/// }
/// progress.set_message("done");
/// assert_eq!(progress.position(), 100);
/// progress.finish();
/// ```
pub struct Progress {
    label: String,
    total: u64,
    state: Mutex<LineState>,
    shown: Shown,
}

enum Shown {
    Bar(ProgressBar),
    Lines {
        interval: Duration,
        out: Mutex<Box<dyn Write + Send>>,
    },
    Hidden,
}

struct LineState {
    position: u64,
    message: String,
    start: Instant,
    last_line: Instant,
    /// Tenths of the work already reported.
    tenths: u64,
    /// The position of the last line written.
    printed: Option<u64>,
}

impl Progress {
    /// Progress over `total` units shown as `mode` (lines go to standard error).
    pub fn new(label: &str, total: u64, mode: ProgressMode) -> Self {
        let shown = match mode {
            ProgressMode::Bar => {
                let bar = ProgressBar::new(total);
                let style = ProgressStyle::with_template(
                    "{prefix} [{bar:30}] {pos}/{len} {elapsed_precise} eta {eta} {msg}",
                )
                .expect("the template is valid")
                .progress_chars("=> ");
                bar.set_style(style);
                bar.set_prefix(label.to_owned());
                Shown::Bar(bar)
            }
            ProgressMode::Lines { interval } => Shown::Lines {
                interval,
                out: Mutex::new(Box::new(std::io::stderr())),
            },
            ProgressMode::Hidden => Shown::Hidden,
        };
        Self::with_shown(label, total, shown)
    }

    /// Progress shown as plain lines written to `out` (see [`ProgressMode::Lines`]).
    pub fn lines_to(
        label: &str,
        total: u64,
        interval: Duration,
        out: Box<dyn Write + Send>,
    ) -> Self {
        let shown = Shown::Lines {
            interval,
            out: Mutex::new(out),
        };
        Self::with_shown(label, total, shown)
    }

    fn with_shown(label: &str, total: u64, shown: Shown) -> Self {
        let now = Instant::now();
        Self {
            label: label.to_owned(),
            total,
            state: Mutex::new(LineState {
                position: 0,
                message: String::new(),
                start: now,
                last_line: now,
                tenths: 0,
                printed: None,
            }),
            shown,
        }
    }

    /// Advances by `n` units.
    pub fn inc(&self, n: u64) {
        let mut state = self.lock();
        state.position = (state.position + n).min(self.total);
        if let Shown::Bar(bar) = &self.shown {
            bar.set_position(state.position);
        }
        self.maybe_line(&mut state, false);
    }

    /// One unit done, with `message` shown after the count (an optimiser's iteration and
    /// its progress line).
    ///
    /// ```
    /// use sdrs_report::{Progress, ProgressMode};
    /// let bar = Progress::new("descent", 2, ProgressMode::Hidden);
    /// bar.tick("loss 1.0e-2");
    /// assert_eq!(bar.position(), 1);
    /// ```
    pub fn tick(&self, message: impl std::fmt::Display) {
        self.set_message(&message.to_string());
        self.inc(1);
    }

    /// [`Progress::tick`], after writing `note` at once when there is one
    /// ([`Progress::note`]): an optimiser's iteration with the reason a step was not taken.
    ///
    /// ```
    /// use sdrs_report::{Progress, ProgressMode};
    /// let bar = Progress::new("descent", 2, ProgressMode::Hidden);
    /// bar.tick_noting("loss 1.0e-2", Some("iteration 1: step not taken: the rollout failed"));
    /// bar.tick_noting("loss 9.0e-3", None::<String>);
    /// assert_eq!(bar.position(), 2);
    /// ```
    pub fn tick_noting(&self, message: impl std::fmt::Display, note: Option<impl AsRef<str>>) {
        if let Some(note) = note {
            self.note(note.as_ref());
        }
        self.tick(message);
    }

    /// Replaces the message shown after the count.
    pub fn set_message(&self, message: &str) {
        let mut state = self.lock();
        state.message = message.to_owned();
        if let Shown::Bar(bar) = &self.shown {
            bar.set_message(message.to_owned());
        }
    }

    /// Writes `line` at once, above the bar or between the periodic lines (nothing when
    /// hidden): an event the periodic display would skip, such as a step an optimiser did not
    /// take and why.
    ///
    /// ```
    /// use sdrs_report::Progress;
    /// use std::time::Duration;
    /// let bar = Progress::lines_to("descent", 100, Duration::from_secs(60), Box::new(std::io::sink()));
    /// bar.note("iteration 3: step not taken: the rollout failed");
    /// ```
    pub fn note(&self, line: &str) {
        match &self.shown {
            Shown::Bar(bar) => bar.println(line),
            Shown::Lines { out, .. } => {
                let mut out = out.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                // Progress is advisory: a closed stderr must not stop the work.
                let _ = writeln!(out, "{}: {line}", self.label);
            }
            Shown::Hidden => {}
        }
    }

    /// Units done so far.
    pub fn position(&self) -> u64 {
        self.lock().position
    }

    /// Ends the display: the bar stays on screen at its final state; lines print a last line
    /// unless the previous one showed the same position.
    pub fn finish(self) {
        let mut state = self.lock();
        match &self.shown {
            Shown::Bar(bar) => bar.finish(),
            Shown::Lines { .. } => self.maybe_line(&mut state, true),
            Shown::Hidden => {}
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, LineState> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Writes a line when a new tenth is reached or `interval` has passed; with `force` (at
    /// the end), whenever the last line showed another position.
    fn maybe_line(&self, state: &mut LineState, force: bool) {
        let Shown::Lines { interval, out } = &self.shown else {
            return;
        };
        let tenths = (state.position * 10).checked_div(self.total).unwrap_or(10);
        let now = Instant::now();
        let due = if force {
            state.printed != Some(state.position)
        } else {
            tenths > state.tenths || now - state.last_line >= *interval
        };
        if !due {
            return;
        }
        state.tenths = tenths;
        state.printed = Some(state.position);
        state.last_line = now;
        let percent = (state.position * 100)
            .checked_div(self.total)
            .unwrap_or(100);
        let elapsed = (now - state.start).as_secs_f64();
        let mut line = format!(
            "{}: {}/{} ({percent}%) {elapsed:.1} s",
            self.label, state.position, self.total
        );
        if !state.message.is_empty() {
            line.push(' ');
            line.push_str(&state.message);
        }
        let mut out = out.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        // Progress is advisory: a closed stderr must not stop the work.
        let _ = writeln!(out, "{line}");
    }
}
