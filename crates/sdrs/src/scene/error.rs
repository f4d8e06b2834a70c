//! Errors of scene files, and where in the file a key sits.

use std::fmt;
use thiserror::Error;
use toml::de::DeValue;

/// What went wrong reading, writing or building a scene.
#[derive(Debug, Error)]
pub enum SceneError {
    /// The file could not be read.
    #[error("cannot read scene file {path}: {message}")]
    Read {
        /// The path as given.
        path: String,
        /// The system's reason.
        message: String,
    },
    /// A value of the file is malformed or refused, at a known place in the file.
    #[error("{file}:{line}:{column}: {key}: {message}")]
    Malformed {
        /// The scene file (`<string>` for text).
        file: String,
        /// 1-based line of the offending value.
        line: usize,
        /// 1-based column of the offending value.
        column: usize,
        /// The key path, e.g. `robot[1].base.xyz`.
        key: String,
        /// What was wrong and what is allowed.
        message: String,
    },
    /// A value of a scene made in code (no source text to point into) is refused.
    #[error("{file}: {key}: {message}")]
    Invalid {
        /// The scene's origin (`<code>` for a scene made in code).
        file: String,
        /// The key path.
        key: String,
        /// What was wrong and what is allowed.
        message: String,
    },
    /// The scene could not be written as TOML.
    #[error("cannot write the scene as TOML: {0}")]
    Write(String),
}

/// A scene module's result.
pub type Result<T, E = SceneError> = std::result::Result<T, E>;

/// One step of a key path: a table key or an array index.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Segment {
    Key(String),
    Index(usize),
}

/// A path of keys into the scene file, printed as `robot[1].base.xyz`.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct KeyPath(pub(crate) Vec<Segment>);

impl KeyPath {
    /// The path of a top-level key.
    pub(crate) fn root(key: &str) -> Self {
        Self(vec![Segment::Key(key.to_string())])
    }

    /// The `index`-th entry of the array of tables `key` (`robot`, `object`).
    pub(crate) fn entry(key: &str, index: usize) -> Self {
        Self(vec![Segment::Key(key.to_string()), Segment::Index(index)])
    }

    /// This path extended by `key`.
    pub(crate) fn key(&self, key: &str) -> Self {
        let mut out = self.clone();
        out.0.push(Segment::Key(key.to_string()));
        out
    }

    /// This path's own form from `serde_path_to_error`'s.
    pub(crate) fn from_serde(path: &serde_path_to_error::Path) -> Self {
        use serde_path_to_error::Segment as S;
        Self(
            path.iter()
                .filter_map(|s| match s {
                    S::Seq { index } => Some(Segment::Index(*index)),
                    S::Map { key } => Some(Segment::Key(key.clone())),
                    S::Enum { variant } => Some(Segment::Key(variant.clone())),
                    S::Unknown => None,
                })
                .collect(),
        )
    }

    /// The byte span of the deepest part of this path that `text` holds (the whole document
    /// when not even the first key is there).
    pub(crate) fn span_in(&self, text: &str) -> Option<std::ops::Range<usize>> {
        let root = toml::de::DeTable::parse(text).ok()?;
        let mut span = root.span();
        let root = DeValue::Table(root.into_inner());
        let mut value = &root;
        for segment in &self.0 {
            let next = match segment {
                Segment::Key(k) => value.get(k.as_str()),
                Segment::Index(i) => value.get(*i),
            };
            match next {
                Some(v) => {
                    span = v.span();
                    value = v.get_ref();
                }
                None => break,
            }
        }
        Some(span)
    }
}

impl fmt::Display for KeyPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("(document)");
        }
        for (i, segment) in self.0.iter().enumerate() {
            match segment {
                Segment::Key(k) if i == 0 => write!(f, "{k}")?,
                Segment::Key(k) => write!(f, ".{k}")?,
                Segment::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

/// 1-based line and column of byte `offset` in `text`.
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}
