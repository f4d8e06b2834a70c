//! The command line of the experiment examples: `--NAME VALUE` flags and the output folder.

use std::path::PathBuf;

/// The program's arguments.
pub struct Flags(Vec<String>);

impl Flags {
    /// The arguments this program was started with.
    pub fn from_env() -> Self {
        Self(std::env::args().collect())
    }

    /// The value after `name`, if given.
    fn value(&self, name: &str) -> Option<&String> {
        self.0
            .iter()
            .position(|a| a == name)
            .and_then(|i| self.0.get(i + 1))
    }

    /// The value after `name` parsed, or `default` when the flag is absent.
    pub fn parsed<T: std::str::FromStr>(&self, name: &str, default: T) -> Result<T, T::Err> {
        self.value(name).map_or(Ok(default), |s| s.parse())
    }

    /// The output folder (`--out`, default `target/sdrs-out/ncp`), created.
    pub fn out(&self) -> std::io::Result<PathBuf> {
        let out = self.value("--out").map_or_else(
            || sdrs_report::target_dir().join("sdrs-out/ncp"),
            PathBuf::from,
        );
        std::fs::create_dir_all(&out)?;
        Ok(out)
    }
}
