//! `.npz` export of a trajectory, for NumPy (`numpy.load(path)`).

use super::{ContactRecord, Result, TrajectoryError, TrajectoryFile};
use npyz::WriterBuilder;
use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use zip::ZipWriter;
use zip::write::SimpleFileOptions;

impl TrajectoryFile {
    /// Writes the trajectory as a NumPy `.npz` archive (uncompressed, as `numpy.savez`), with
    /// `H + 1` steps, `n` DoFs, `L` links and `C` contacts over all steps:
    ///
    /// | array | shape | holds |
    /// | --- | --- | --- |
    /// | `dt` | `()` | the time step (s) |
    /// | `time` | `(H+1,)` | each step's time (s) |
    /// | `q` | `(H+1, n)` | generalized coordinates |
    /// | `references` | `(H+1, L, 4)` | reference rotations `[w, x, y, z]` |
    /// | `poses` | `(H+1, L, 7)` | link poses `[x, y, z, qw, qx, qy, qz]` |
    /// | `contact_step` | `(C,)` | the step of each contact (int64) |
    /// | `contact_links` | `(C, 2)` | its two links (int64) |
    /// | `contact_point` | `(C, 3)` | centre of pressure (m) |
    /// | `contact_normal` | `(C, 3)` | unit normal, first link to second |
    /// | `contact_gap` | `(C,)` | distance between the shapes (m) |
    /// | `contact_normal_force` | `(C,)` | normal force (N) |
    /// | `contact_friction_force` | `(C, 3)` | friction force on the second link (N; zero without friction) |
    ///
    /// Link and DoF names are in the JSON-lines header ([`super::TrajectoryHeader`]).
    pub fn write_npz(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        let fail = |message: String| TrajectoryError::Io {
            path: path.display().to_string(),
            message,
        };
        let file = File::create(path).map_err(|e| fail(e.to_string()))?;
        let mut zip = Npz {
            zip: ZipWriter::new(BufWriter::new(file)),
        };
        let h = self.steps.len() as u64;
        let n = self.header.dofs.len() as u64;
        let links = self.header.links.len() as u64;
        let steps = &self.steps;
        let contacts: Vec<(usize, &ContactRecord)> = steps
            .iter()
            .flat_map(|s| s.contacts.iter().map(move |c| (s.step, c)))
            .collect();
        let c = contacts.len() as u64;
        let mut write = || -> std::io::Result<()> {
            zip.array("dt", &[], [self.header.dt])?;
            zip.array("time", &[h], steps.iter().map(|s| s.time))?;
            zip.array("q", &[h, n], steps.iter().flat_map(|s| s.q.iter().copied()))?;
            zip.array(
                "references",
                &[h, links, 4],
                steps
                    .iter()
                    .flat_map(|s| s.references.iter().flatten().copied()),
            )?;
            zip.array(
                "poses",
                &[h, links, 7],
                steps.iter().flat_map(|s| {
                    s.poses.iter().flat_map(|p| {
                        let ([x, y, z], [qw, qx, qy, qz]) = (p.translation, p.rotation);
                        [x, y, z, qw, qx, qy, qz]
                    })
                }),
            )?;
            zip.array(
                "contact_step",
                &[c],
                contacts.iter().map(|(s, _)| *s as i64),
            )?;
            zip.array(
                "contact_links",
                &[c, 2],
                contacts.iter().flat_map(|(_, k)| k.links.map(|l| l as i64)),
            )?;
            zip.array(
                "contact_point",
                &[c, 3],
                contacts.iter().flat_map(|(_, k)| k.point),
            )?;
            zip.array(
                "contact_normal",
                &[c, 3],
                contacts.iter().flat_map(|(_, k)| k.normal),
            )?;
            zip.array("contact_gap", &[c], contacts.iter().map(|(_, k)| k.gap))?;
            zip.array(
                "contact_normal_force",
                &[c],
                contacts.iter().map(|(_, k)| k.normal_force),
            )?;
            zip.array(
                "contact_friction_force",
                &[c, 3],
                contacts
                    .iter()
                    .flat_map(|(_, k)| k.friction_force.unwrap_or([0.0; 3])),
            )
        };
        write().map_err(|e| fail(e.to_string()))?;
        zip.zip
            .finish()
            .map_err(|e| fail(e.to_string()))?
            .into_inner()
            .map_err(|e| fail(e.to_string()))?;
        Ok(())
    }
}

/// A `.npz` archive being written.
struct Npz {
    zip: ZipWriter<BufWriter<File>>,
}

impl Npz {
    /// Adds `NAME.npy`: an array of `shape` (C order) holding `data`.
    fn array<T: npyz::AutoSerialize>(
        &mut self,
        name: &str,
        shape: &[u64],
        data: impl IntoIterator<Item = T>,
    ) -> std::io::Result<()> {
        let options =
            SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
        self.zip.start_file(format!("{name}.npy"), options)?;
        let mut writer = npyz::WriteOptions::new()
            .default_dtype()
            .shape(shape)
            .writer(&mut self.zip)
            .begin_nd()?;
        writer.extend(data)?;
        writer.finish()
    }
}
