//! The GLB container: a 12-byte header, the JSON chunk padded with spaces and the BIN chunk
//! padded with zeros, each chunk 4-byte aligned (glTF 2.0 §4.4).

use super::{ExportError, Result};

const MAGIC: &[u8; 4] = b"glTF";
const VERSION: u32 = 2;
const CHUNK_JSON: &[u8; 4] = b"JSON";
const CHUNK_BIN: &[u8; 4] = b"BIN\0";

/// The GLB file of `json` (the document) and `bin` (its single buffer).
pub(super) fn glb(json: &[u8], bin: &[u8]) -> Result<Vec<u8>> {
    let json_len = json.len().next_multiple_of(4);
    let bin_len = bin.len().next_multiple_of(4);
    let total = 12 + 8 + json_len + if bin.is_empty() { 0 } else { 8 + bin_len };
    let length = u32::try_from(total).map_err(|_| ExportError::TooLarge { bytes: total })?;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&length.to_le_bytes());
    chunk(&mut out, CHUNK_JSON, json, json_len, b' ');
    if !bin.is_empty() {
        chunk(&mut out, CHUNK_BIN, bin, bin_len, 0);
    }
    Ok(out)
}

/// Appends one chunk: its padded length, type, data and padding.
fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8], padded: usize, pad: u8) {
    // `padded` fits in u32: the whole file's length was checked first.
    out.extend_from_slice(&(padded as u32).to_le_bytes());
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    out.resize(out.len() + padded - data.len(), pad);
}
