//! Where outputs go: a directory under the cargo target directory (honouring
//! `CARGO_TARGET_DIR`), and paths printed cleanly (no `.`/`..`, relative to the current
//! directory when inside it).

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

use crate::ReportError;

/// The cargo target directory as cargo would choose it from the current directory: see
/// [`target_dir_from`].
pub fn target_dir() -> PathBuf {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    target_dir_from(std::env::var_os("CARGO_TARGET_DIR"), &cwd)
}

/// The cargo target directory for a working directory `cwd`: `CARGO_TARGET_DIR` when set and
/// non-empty (relative values are taken from `cwd`, as cargo does); otherwise `target/` beside
/// the nearest enclosing workspace manifest (a `Cargo.toml` with a `[workspace]` table), else
/// beside the nearest `Cargo.toml`, else in `cwd`.
///
/// ```
/// use std::path::Path;
/// let dir = sdrs_report::target_dir_from(Some("/tmp/t".into()), Path::new("/home/me"));
/// assert_eq!(dir, Path::new("/tmp/t"));
/// let dir = sdrs_report::target_dir_from(Some("build".into()), Path::new("/home/me"));
/// assert_eq!(dir, Path::new("/home/me/build"));
/// ```
pub fn target_dir_from(cargo_target_dir: Option<OsString>, cwd: &Path) -> PathBuf {
    if let Some(dir) = cargo_target_dir.filter(|d| !d.is_empty()) {
        return clean_path(&cwd.join(dir));
    }
    let manifests = || {
        cwd.ancestors()
            .filter(|dir| dir.join("Cargo.toml").is_file())
    };
    let is_workspace = |dir: &&Path| {
        std::fs::read_to_string(dir.join("Cargo.toml"))
            .is_ok_and(|text| text.lines().any(|line| line.trim() == "[workspace]"))
    };
    let root = manifests()
        .find(is_workspace)
        .or_else(|| manifests().next())
        .unwrap_or(cwd);
    clean_path(&root.join("target"))
}

/// `target_dir()/sdrs-out/NAME`, created if missing.
pub fn output_dir(name: &str) -> Result<PathBuf, ReportError> {
    let dir = target_dir().join("sdrs-out").join(name);
    std::fs::create_dir_all(&dir).map_err(|source| ReportError::Io {
        path: dir.clone(),
        source,
    })?;
    Ok(dir)
}

/// Removes `.` components and resolves `..` against the preceding component, without touching
/// the file system (a leading `..` of a relative path is kept).
///
/// ```
/// use std::path::Path;
/// assert_eq!(sdrs_report::clean_path(Path::new("/a/./b/../c")), Path::new("/a/c"));
/// assert_eq!(sdrs_report::clean_path(Path::new("../x/./y")), Path::new("../x/y"));
/// ```
pub fn clean_path(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(".."),
            },
            other => out.push(other),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// A path as printed to users: cleaned, and relative to the current directory when it lies
/// inside it.
pub fn display_path(path: &Path) -> String {
    let cwd = std::env::current_dir().map(|d| clean_path(&d));
    let path = clean_path(path);
    let shown = match &cwd {
        Ok(cwd) if path.is_absolute() => path.strip_prefix(cwd).unwrap_or(&path),
        _ => &path,
    };
    if shown.as_os_str().is_empty() {
        ".".to_owned()
    } else {
        shown.display().to_string()
    }
}
