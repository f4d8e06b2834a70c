//! MJCF's `<include file="…"/>`: the model assembled from its files before it is read, as
//! MuJoCo does it (XML reference, "include"). An included file is well-formed XML whose top
//! element (any tag, `<mujoco>` by convention) is dropped: its content takes the place of the
//! include element, which may stand wherever an element may. Included files may include others;
//! every path is relative to the directory of the main model file (or the base directory given
//! with text), and a file may be included only once in the whole model. An include element has
//! no children and must bring at least one element.
//!
//! The assembled text keeps where each piece came from ([`Origins::locate`]), so that an
//! error in an included element names that file and its line.

use crate::error::{DynamicsError, Result};
use roxmltree::{Document, Node};
use std::ops::Range;
use std::path::{Path, PathBuf};

/// Nesting depth of includes beyond which assembly stops (a file may be included only once, so
/// only a model of more files than this could reach it).
const MAX_DEPTH: usize = 64;

/// A model's text with its includes replaced, and the origin of every piece of it.
#[derive(Debug)]
pub(super) struct Assembled {
    pub text: String,
    pub origins: Origins,
}

/// Where the pieces of an assembled text come from.
#[derive(Debug, Default)]
pub(super) struct Origins {
    /// Pieces in text order: where each starts in the text, its file and the line (1-based)
    /// its first byte has there.
    pieces: Vec<Piece>,
}

#[derive(Debug)]
struct Piece {
    start: usize,
    file: String,
    line: u32,
}

impl Origins {
    /// The file and line (1-based) of byte `position` of the assembled `text`.
    pub fn locate(&self, text: &str, position: usize) -> (&str, u32) {
        let index = self
            .pieces
            .partition_point(|p| p.start <= position)
            .saturating_sub(1);
        match self.pieces.get(index) {
            Some(piece) => {
                let end = position.min(text.len()).max(piece.start);
                let newlines = text.as_bytes()[piece.start..end]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count();
                (&piece.file, piece.line + newlines as u32)
            }
            None => ("<model>", 1),
        }
    }
}

impl Assembled {
    /// The file and line (1-based) of 1-based line `row` of the assembled text.
    pub fn locate_row(&self, row: u32) -> (&str, u32) {
        self.origins.locate(&self.text, self.line_start(row))
    }

    /// The byte where 1-based line `row` of the assembled text starts.
    fn line_start(&self, row: u32) -> usize {
        if row <= 1 {
            return 0;
        }
        self.text
            .match_indices('\n')
            .nth(row as usize - 2)
            .map_or(self.text.len(), |(at, _)| at + 1)
    }

    fn push(&mut self, text: &str, file: &str, line: u32) {
        if text.is_empty() {
            return;
        }
        self.origins.pieces.push(Piece {
            start: self.text.len(),
            file: file.to_string(),
            line,
        });
        self.text.push_str(text);
    }
}

/// `text` (of `file`, `"<string>"` for text, at `main` if read from a file) with its includes
/// resolved against `base`.
pub(super) fn assemble(
    text: &str,
    file: &str,
    base: &Path,
    main: Option<&Path>,
) -> Result<Assembled> {
    let mut out = Assembled {
        text: String::with_capacity(text.len()),
        origins: Origins::default(),
    };
    if !text.contains("<include") {
        out.push(text, file, 1);
        return Ok(out);
    }
    let mut included: Vec<PathBuf> = main.map(canonical).into_iter().collect();
    Splicer {
        base,
        included: &mut included,
        out: &mut out,
    }
    .splice(text, file, false, 0)?;
    Ok(out)
}

struct Splicer<'a> {
    base: &'a Path,
    /// The files included so far (canonical paths).
    included: &'a mut Vec<PathBuf>,
    out: &'a mut Assembled,
}

impl Splicer<'_> {
    /// Appends `text` (all of it, or what its top element holds if `included`) with its
    /// includes replaced by their files' content.
    fn splice(&mut self, text: &str, file: &str, included: bool, depth: usize) -> Result<()> {
        let doc = Document::parse(text).map_err(|e| DynamicsError::Mjcf {
            file: file.to_string(),
            line: Some(e.pos().row),
            element: "document".into(),
            message: format!("not well-formed XML: {e}"),
        })?;
        let line = |at: usize| doc.text_pos_at(at).row;
        let error = |node: Node, message: String| DynamicsError::Mjcf {
            file: file.to_string(),
            line: Some(line(node.range().start)),
            element: "<include>".into(),
            message,
        };
        let root = doc.root_element();
        let range = match included {
            false => 0..text.len(),
            true => content(root).ok_or_else(|| {
                error(
                    root,
                    format!(
                        "the included file's top element <{}> has no element in it; an include \
                         must bring at least one",
                        root.tag_name().name()
                    ),
                )
            })?,
        };
        let mut cursor = range.start;
        for include in root.descendants().filter(|n| n.has_tag_name("include")) {
            if include == root {
                return Err(error(
                    include,
                    "the top element cannot be an include".into(),
                ));
            }
            if let Some(child) = include.children().find(Node::is_element) {
                return Err(error(
                    include,
                    format!(
                        "an include has no children (found <{}>)",
                        child.tag_name().name()
                    ),
                ));
            }
            if let Some(other) = include.attributes().find(|a| a.name() != "file") {
                return Err(error(
                    include,
                    format!(
                        "attribute '{}' is not supported (supported: file)",
                        other.name()
                    ),
                ));
            }
            let Some(name) = include.attribute("file") else {
                return Err(error(include, "the attribute 'file' is required".into()));
            };
            if depth >= MAX_DEPTH {
                return Err(error(
                    include,
                    format!("includes are nested more than {MAX_DEPTH} deep"),
                ));
            }
            let path = self.base.join(name);
            let read = std::fs::read_to_string(&path).map_err(|e| {
                error(
                    include,
                    format!(
                        "cannot read '{}' ({e}; include paths are relative to the main model \
                         file's directory, {})",
                        path.display(),
                        self.base.display()
                    ),
                )
            })?;
            let canonical = canonical(&path);
            if self.included.contains(&canonical) {
                return Err(error(
                    include,
                    format!(
                        "'{}' is included more than once (MuJoCo includes a file at most once)",
                        path.display()
                    ),
                ));
            }
            self.included.push(canonical);
            let at = include.range();
            self.out.push(&text[cursor..at.start], file, line(cursor));
            self.splice(&read, &path.display().to_string(), true, depth + 1)?;
            cursor = at.end;
        }
        self.out.push(&text[cursor..range.end], file, line(cursor));
        Ok(())
    }
}

/// `path` made absolute with symbolic links and `.` resolved (as it is if that fails).
fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

/// The byte range of what `element` holds (from its first child to its last), if it holds an
/// element.
fn content(element: Node) -> Option<Range<usize>> {
    element.children().find(Node::is_element)?;
    let first = element.first_child()?.range().start;
    let last = element.last_child()?.range().end;
    Some(first..last)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh directory under the system's temporary folder with `files` (name, text) written in it.
    fn folder(name: &str, files: &[(&str, &str)]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("sdrs-include-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (file, text) in files {
            let path = dir.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    /// Why `assemble` refuses `text` (of `file`, read at `main` if given) with includes in `dir`.
    fn refusal(text: &str, file: &str, dir: &Path, main: Option<&Path>) -> String {
        assemble(text, file, dir, main).unwrap_err().to_string()
    }

    #[test]
    fn included_content_replaces_the_include_and_keeps_its_origin() {
        let dir = folder(
            "origin",
            &[
                (
                    "parts/a.xml",
                    "<mujoco>\n  <asset/>\n  <include file=\"parts/b.xml\"/>\n</mujoco>",
                ),
                (
                    "parts/b.xml",
                    "<?xml version=\"1.0\"?>\n<top>\n\n  <visual/>\n</top>\n",
                ),
            ],
        );
        let main =
            "<mujoco model=\"m\">\n  <include file=\"parts/a.xml\"/>\n  <worldbody/>\n</mujoco>";
        let assembled = assemble(main, "main.xml", &dir, None).unwrap();
        let doc = Document::parse(&assembled.text).unwrap();
        let tags: Vec<&str> = doc
            .root_element()
            .children()
            .filter(Node::is_element)
            .map(|n| n.tag_name().name())
            .collect();
        assert_eq!(tags, ["asset", "visual", "worldbody"]);
        let at = |tag: &str| {
            let node = doc.descendants().find(|n| n.has_tag_name(tag)).unwrap();
            let (file, line) = assembled
                .origins
                .locate(&assembled.text, node.range().start);
            (
                Path::new(file)
                    .file_name()
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .to_string(),
                line,
            )
        };
        assert_eq!(at("asset"), ("a.xml".into(), 2));
        assert_eq!(at("visual"), ("b.xml".into(), 4));
        assert_eq!(at("worldbody"), ("main.xml".into(), 3));
    }

    #[test]
    fn a_file_is_included_once_and_must_exist() {
        let dir = folder("twice", &[("x.xml", "<mujoco><asset/></mujoco>")]);
        let twice = "<mujoco>\n<include file=\"x.xml\"/>\n<include file=\"./x.xml\"/>\n</mujoco>";
        let message = refusal(twice, "m.xml", &dir, None);
        assert!(
            message.contains("m.xml:3") && message.contains("more than once"),
            "{message}"
        );
        let missing = "<mujoco>\n<include file=\"nowhere.xml\"/>\n</mujoco>";
        let message = refusal(missing, "m.xml", &dir, None);
        assert!(
            message.contains("m.xml:2") && message.contains("nowhere.xml"),
            "{message}"
        );
        // Including the main file itself is including it twice.
        let main = dir.join("main.xml");
        let itself = "<mujoco>\n<include file=\"main.xml\"/>\n</mujoco>";
        std::fs::write(&main, itself).unwrap();
        let message = refusal(itself, "main.xml", &dir, Some(&main));
        assert!(message.contains("more than once"), "{message}");
    }

    #[test]
    fn empty_or_malformed_included_files_are_refused_by_name() {
        let dir = folder(
            "bad",
            &[
                ("empty.xml", "<mujoco>\n  <!-- nothing -->\n</mujoco>"),
                ("broken.xml", "<mujoco>\n<asset>\n</mujoco>"),
            ],
        );
        let message = refusal(
            "<mujoco><include file=\"empty.xml\"/></mujoco>",
            "m",
            &dir,
            None,
        );
        assert!(
            message.contains("empty.xml:1") && message.contains("at least one"),
            "{message}"
        );
        let message = refusal(
            "<mujoco><include file=\"broken.xml\"/></mujoco>",
            "m",
            &dir,
            None,
        );
        assert!(
            message.contains("broken.xml:3") && message.contains("well-formed"),
            "{message}"
        );
        let message = refusal("<mujoco><include/></mujoco>", "m", &dir, None);
        assert!(message.contains("'file' is required"), "{message}");
    }

    #[test]
    fn text_without_includes_is_kept_as_it_is() {
        let text = "<mujoco>\n<worldbody/>\n</mujoco>";
        let assembled = assemble(text, "m.xml", Path::new("."), None).unwrap();
        assert_eq!(assembled.text, text);
        let at = text.find("<worldbody").unwrap();
        assert_eq!(assembled.origins.locate(text, at), ("m.xml", 2));
        assert_eq!(assembled.line_start(2), at);
        assert_eq!(assembled.locate_row(3), ("m.xml", 3));
    }
}
