//! A glTF document under construction with its single binary buffer: typed accessors over
//! 4-byte aligned buffer views.

use gltf_json::accessor::{ComponentType, GenericComponentType, Type};
use gltf_json::buffer::{Target, View};
use gltf_json::validation::{Checked, USize64};
use gltf_json::{Accessor, Index, Root, Value};

/// The JSON document and the bytes of its buffer 0.
#[derive(Debug, Default)]
pub(super) struct Document {
    /// The glTF JSON.
    pub root: Root,
    /// Buffer 0's bytes.
    pub bin: Vec<u8>,
}

impl Document {
    /// A buffer view over `bytes`, appended to the buffer at a 4-byte aligned offset.
    fn view(&mut self, bytes: &[u8], target: Option<Target>) -> Index<View> {
        self.bin.resize(self.bin.len().next_multiple_of(4), 0);
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        self.root.push(View {
            buffer: Index::new(0),
            byte_length: USize64::from(bytes.len()),
            byte_offset: Some(USize64::from(offset)),
            byte_stride: None,
            name: None,
            target: target.map(Checked::Valid),
            extensions: None,
            extras: Default::default(),
        })
    }

    /// An accessor of `count` elements of `type_` stored in `bytes`, with optional bounds.
    fn accessor(
        &mut self,
        bytes: &[u8],
        count: usize,
        component: ComponentType,
        type_: Type,
        target: Option<Target>,
        bounds: Option<(Value, Value)>,
    ) -> Index<Accessor> {
        let view = self.view(bytes, target);
        let (min, max) = bounds.unzip();
        self.root.push(Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: USize64::from(count),
            component_type: Checked::Valid(GenericComponentType(component)),
            extensions: None,
            extras: Default::default(),
            type_: Checked::Valid(type_),
            min,
            max,
            name: None,
            normalized: false,
            sparse: None,
        })
    }

    /// Float scalars (animation key times), with their bounds.
    pub fn scalars(&mut self, values: &[f32]) -> Index<Accessor> {
        let lo = values.iter().copied().fold(f32::INFINITY, f32::min);
        let hi = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        self.accessor(
            &floats(values.iter().copied()),
            values.len(),
            ComponentType::F32,
            Type::Scalar,
            None,
            Some((Value::from(vec![lo]), Value::from(vec![hi]))),
        )
    }

    /// Float 3-vectors; `vertices` marks vertex positions (array-buffer target and bounds).
    pub fn vec3s(&mut self, values: &[[f32; 3]], vertices: bool) -> Index<Accessor> {
        let bounds = vertices.then(|| {
            let mut lo = [f32::INFINITY; 3];
            let mut hi = [f32::NEG_INFINITY; 3];
            for v in values {
                for k in 0..3 {
                    lo[k] = lo[k].min(v[k]);
                    hi[k] = hi[k].max(v[k]);
                }
            }
            (Value::from(lo.to_vec()), Value::from(hi.to_vec()))
        });
        self.accessor(
            &floats(values.iter().flatten().copied()),
            values.len(),
            ComponentType::F32,
            Type::Vec3,
            vertices.then_some(Target::ArrayBuffer),
            bounds,
        )
    }

    /// Float 4-vectors (rotations `[x, y, z, w]`).
    pub fn vec4s(&mut self, values: &[[f32; 4]]) -> Index<Accessor> {
        self.accessor(
            &floats(values.iter().flatten().copied()),
            values.len(),
            ComponentType::F32,
            Type::Vec4,
            None,
            None,
        )
    }

    /// Triangle vertex indices.
    pub fn indices(&mut self, triangles: &[[u32; 3]]) -> Index<Accessor> {
        let bytes: Vec<u8> = triangles
            .iter()
            .flatten()
            .flat_map(|i| i.to_le_bytes())
            .collect();
        self.accessor(
            &bytes,
            3 * triangles.len(),
            ComponentType::U32,
            Type::Scalar,
            Some(Target::ElementArrayBuffer),
            None,
        )
    }
}

/// Little-endian bytes of `values`.
fn floats(values: impl Iterator<Item = f32>) -> Vec<u8> {
    values.flat_map(f32::to_le_bytes).collect()
}
