//! Resolving a scene's file paths: relative to the scene file, or `package://NAME/...` URIs
//! looked up in package folders.

use super::Scene;
use super::error::{KeyPath, Result};
use std::path::{Path, PathBuf};

impl Scene {
    /// The folders searched for `package://` paths: the file's `package_paths` (relative to
    /// the scene file), then those given with [`Scene::with_package_path`].
    pub(super) fn package_folders(&self) -> Vec<PathBuf> {
        let own = self.description.package_paths.iter();
        own.map(|p| self.origin.directory.join(p))
            .chain(self.package_paths.iter().cloned())
            .collect()
    }

    /// The existing file that `path` (the value at `key`) names.
    pub(super) fn resolve(&self, key: &KeyPath, path: &Path) -> Result<PathBuf> {
        let text = path.to_string_lossy();
        if let Some(rest) = text.strip_prefix("package://") {
            let folders = self.package_folders();
            let candidates: Vec<PathBuf> = folders.iter().map(|f| f.join(rest)).collect();
            return match candidates.iter().find(|c| c.is_file()) {
                Some(found) => Ok(found.clone()),
                None if candidates.is_empty() => Err(self.origin.error(
                    key,
                    format!(
                        "'{text}' needs a package folder: add `package_paths = [...]` to the \
                         scene (none is set)"
                    ),
                )),
                None => Err(self.origin.error(
                    key,
                    format!(
                        "no package folder holds '{text}'; looked at {}",
                        candidates
                            .iter()
                            .map(|c| c.display().to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )),
            };
        }
        let full = self.origin.directory.join(path);
        if full.is_file() {
            Ok(full)
        } else {
            Err(self.origin.error(
                key,
                format!(
                    "file '{}' not found (resolved to {})",
                    path.display(),
                    full.display()
                ),
            ))
        }
    }
}
