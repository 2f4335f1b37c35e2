//! The protobuf wire format as ONNX files use it: fields read and written as they stand in the
//! bytes, and the few ONNX messages a rewrite decodes (nodes, attributes, tensors). Malformed bytes
//! are errors, never panics.

/// Protobuf wire types.
pub(crate) const VARINT: u8 = 0;
pub(crate) const FIXED64: u8 = 1;
pub(crate) const LEN: u8 = 2;
pub(crate) const FIXED32: u8 = 5;

/// ONNX `TensorProto.DataType` values.
pub(crate) const FLOAT: u64 = 1;
pub(crate) const UINT8: u64 = 2;
pub(crate) const INT8: u64 = 3;
pub(crate) const INT64: u64 = 7;

/// ONNX Runtime's contrib operator domain.
pub(crate) const MS_DOMAIN: &str = "com.microsoft";

/// One field of a protobuf message as it stands in the bytes.
#[derive(Debug)]
pub(crate) struct Field<'a> {
    pub number: u64,
    pub wire: u8,
    /// The whole field, key included, to copy it unchanged.
    pub raw: &'a [u8],
    /// The payload of a length-delimited field, or the bytes of a fixed-width one (empty for
    /// varints).
    pub payload: &'a [u8],
    /// The value of a varint field.
    pub value: u64,
}

pub(crate) fn read_varint(buf: &[u8], at: &mut usize) -> Result<u64, String> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *buf.get(*at).ok_or("the file ends inside a number")?;
        *at += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err("a number is longer than 64 bits".into())
}

fn take<'a>(buf: &'a [u8], at: &mut usize, len: u64) -> Result<&'a [u8], String> {
    let end = usize::try_from(len)
        .ok()
        .and_then(|len| at.checked_add(len))
        .filter(|&end| end <= buf.len())
        .ok_or("a field runs past the end of its message")?;
    let out = &buf[*at..end];
    *at = end;
    Ok(out)
}

/// The fields of one message, in order.
pub(crate) fn fields(buf: &[u8]) -> Result<Vec<Field<'_>>, String> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < buf.len() {
        let start = at;
        let key = read_varint(buf, &mut at)?;
        let (number, wire) = (key >> 3, (key & 7) as u8);
        let (mut payload, mut value): (&[u8], u64) = (&[], 0);
        match wire {
            VARINT => value = read_varint(buf, &mut at)?,
            FIXED64 => payload = take(buf, &mut at, 8)?,
            FIXED32 => payload = take(buf, &mut at, 4)?,
            LEN => {
                let len = read_varint(buf, &mut at)?;
                payload = take(buf, &mut at, len)?;
            }
            other => return Err(format!("field {number} has wire type {other}, which ONNX files do not use")),
        }
        out.push(Field { number, wire, raw: &buf[start..at], payload, value });
    }
    Ok(out)
}

pub(crate) fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8 & 0x7f) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

pub(crate) fn put_bytes(out: &mut Vec<u8>, number: u64, payload: &[u8]) {
    put_varint(out, (number << 3) | u64::from(LEN));
    put_varint(out, payload.len() as u64);
    out.extend_from_slice(payload);
}

pub(crate) fn put_number(out: &mut Vec<u8>, number: u64, value: u64) {
    put_varint(out, number << 3);
    put_varint(out, value);
}

fn put_fixed32(out: &mut Vec<u8>, number: u64, bits: u32) {
    put_varint(out, (number << 3) | u64::from(FIXED32));
    out.extend_from_slice(&bits.to_le_bytes());
}

pub(crate) fn text<'a>(field: &Field<'a>) -> Result<&'a str, String> {
    std::str::from_utf8(field.payload).map_err(|_| format!("field {} is not UTF-8 text", field.number))
}

/// The numbers of a repeated integer field, packed or not (appended to `out`).
fn repeated_ints(field: &Field<'_>, out: &mut Vec<i64>) -> Result<(), String> {
    match field.wire {
        VARINT => out.push(field.value as i64),
        LEN => {
            let mut at = 0;
            while at < field.payload.len() {
                out.push(read_varint(field.payload, &mut at)? as i64);
            }
        }
        other => return Err(format!("field {} has wire type {other} for integers", field.number)),
    }
    Ok(())
}

/// What a rewrite reads of a node's attribute (`AttributeProto`).
#[derive(Debug, Default)]
pub(crate) struct Attribute<'a> {
    pub name: &'a str,
    pub int: Option<i64>,
    pub float: Option<f32>,
    pub ints: Vec<i64>,
}

/// What a rewrite needs of a `NodeProto`.
#[derive(Debug, Default)]
pub(crate) struct Node<'a> {
    pub inputs: Vec<&'a str>,
    pub outputs: Vec<&'a str>,
    pub name: &'a str,
    pub op_type: &'a str,
    pub domain: &'a str,
    pub attributes: Vec<Attribute<'a>>,
    /// Whether an attribute holds a graph (`If`, `Loop`, `Scan`), which may read outer values.
    pub subgraph: bool,
}

impl Node<'_> {
    /// Whether this is the standard operator `op` (the default domain).
    pub fn is(&self, op: &str) -> bool {
        self.op_type == op && matches!(self.domain, "" | "ai.onnx")
    }

    fn attribute(&self, name: &str) -> Option<&Attribute<'_>> {
        self.attributes.iter().find(|a| a.name == name)
    }

    /// The integer attribute `name`.
    pub fn int(&self, name: &str) -> Option<i64> {
        self.attribute(name).and_then(|a| a.int)
    }

    /// The integer-list attribute `name`.
    pub fn ints(&self, name: &str) -> Option<&[i64]> {
        self.attribute(name).map(|a| a.ints.as_slice())
    }
}

pub(crate) fn node(buf: &[u8]) -> Result<Node<'_>, String> {
    let mut node = Node::default();
    for f in fields(buf)? {
        match (f.number, f.wire) {
            (1, LEN) => node.inputs.push(text(&f)?),
            (2, LEN) => node.outputs.push(text(&f)?),
            (3, LEN) => node.name = text(&f)?,
            (4, LEN) => node.op_type = text(&f)?,
            (7, LEN) => node.domain = text(&f)?,
            (5, LEN) => {
                let mut attribute = Attribute::default();
                for a in fields(f.payload)? {
                    match (a.number, a.wire) {
                        (1, LEN) => attribute.name = text(&a)?,
                        (2, FIXED32) => {
                            attribute.float = Some(f32::from_le_bytes(a.payload.try_into().unwrap_or([0; 4])))
                        }
                        (3, VARINT) => attribute.int = Some(a.value as i64),
                        (8, VARINT | LEN) => repeated_ints(&a, &mut attribute.ints)?,
                        (6 | 11, _) => node.subgraph = true,
                        _ => {}
                    }
                }
                node.attributes.push(attribute);
            }
            _ => {}
        }
    }
    Ok(node)
}

/// An attribute to write on a new node.
pub(crate) enum NewAttribute<'a> {
    Int(&'a str, i64),
    Float(&'a str, f32),
    Ints(&'a str, &'a [i64]),
    Str(&'a str, &'a str),
}

/// A `NodeProto`.
pub(crate) fn encode_node(
    op_type: &str,
    domain: &str,
    inputs: &[&str],
    outputs: &[&str],
    name: &str,
    attributes: &[NewAttribute<'_>],
) -> Vec<u8> {
    let mut out = Vec::new();
    for input in inputs {
        put_bytes(&mut out, 1, input.as_bytes());
    }
    for output in outputs {
        put_bytes(&mut out, 2, output.as_bytes());
    }
    put_bytes(&mut out, 3, name.as_bytes());
    put_bytes(&mut out, 4, op_type.as_bytes());
    for attribute in attributes {
        // AttributeProto: name (1), f (2), i (3), type (20: FLOAT = 1, INT = 2).
        let mut a = Vec::new();
        match attribute {
            NewAttribute::Int(name, value) => {
                put_bytes(&mut a, 1, name.as_bytes());
                put_number(&mut a, 3, *value as u64);
                put_number(&mut a, 20, 2);
            }
            NewAttribute::Float(name, value) => {
                put_bytes(&mut a, 1, name.as_bytes());
                put_fixed32(&mut a, 2, value.to_bits());
                put_number(&mut a, 20, 1);
            }
            NewAttribute::Ints(name, values) => {
                // ints (8), type INTS = 7
                put_bytes(&mut a, 1, name.as_bytes());
                for v in *values {
                    put_number(&mut a, 8, *v as u64);
                }
                put_number(&mut a, 20, 7);
            }
            NewAttribute::Str(name, value) => {
                // s (4), type STRING = 3
                put_bytes(&mut a, 1, name.as_bytes());
                put_bytes(&mut a, 4, value.as_bytes());
                put_number(&mut a, 20, 3);
            }
        }
        put_bytes(&mut out, 5, &a);
    }
    put_bytes(&mut out, 7, domain.as_bytes());
    out
}

/// What a rewrite needs of an initialiser (`TensorProto`).
#[derive(Debug)]
pub(crate) struct Initializer {
    /// Index of the initialiser among the graph's fields.
    pub field: usize,
    pub dims: Vec<u64>,
    pub data_type: u64,
}

pub(crate) fn initializer(buf: &[u8], field: usize) -> Result<(String, Initializer), String> {
    let (mut name, mut dims, mut data_type) = (String::new(), Vec::new(), 0);
    for f in fields(buf)? {
        match (f.number, f.wire) {
            (1, VARINT) => dims.push(f.value),
            (1, LEN) => {
                let mut at = 0;
                while at < f.payload.len() {
                    dims.push(read_varint(f.payload, &mut at)?);
                }
            }
            (2, VARINT) => data_type = f.value,
            (8, LEN) => name = text(&f)?.to_string(),
            _ => {}
        }
    }
    Ok((name, Initializer { field, dims, data_type }))
}

/// The values of a float tensor (`raw_data`, or `float_data`).
pub(crate) fn float_values(tensor: &[u8]) -> Result<Vec<f32>, String> {
    let mut out = Vec::new();
    for f in fields(tensor)? {
        match (f.number, f.wire) {
            (9, LEN) => {
                let words = f.payload.chunks_exact(4);
                if !words.remainder().is_empty() {
                    return Err("a float tensor's raw data is not a whole number of floats".into());
                }
                out.extend(words.map(|w| f32::from_le_bytes([w[0], w[1], w[2], w[3]])));
            }
            (4, LEN) => out.extend(f.payload.chunks_exact(4).map(|w| f32::from_le_bytes([w[0], w[1], w[2], w[3]]))),
            (4, FIXED32) => out.push(f32::from_le_bytes([f.payload[0], f.payload[1], f.payload[2], f.payload[3]])),
            _ => {}
        }
    }
    Ok(out)
}

/// The values of an int64 tensor (`raw_data`, or `int64_data`).
pub(crate) fn int64_values(tensor: &[u8]) -> Result<Vec<i64>, String> {
    let mut out = Vec::new();
    for f in fields(tensor)? {
        match (f.number, f.wire) {
            (9, LEN) => {
                let words = f.payload.chunks_exact(8);
                if !words.remainder().is_empty() {
                    return Err("an int64 tensor's raw data is not a whole number of values".into());
                }
                out.extend(words.map(|w| i64::from_le_bytes(w.try_into().unwrap_or([0; 8]))));
            }
            (7, VARINT | LEN) => repeated_ints(&f, &mut out)?,
            _ => {}
        }
    }
    Ok(out)
}

/// `tensor` with its dimensions replaced by `dims` (every other field kept).
pub(crate) fn with_dims(tensor: &[u8], dims: &[u64]) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(tensor.len() + 8);
    let mut packed = Vec::new();
    for d in dims {
        put_varint(&mut packed, *d);
    }
    put_bytes(&mut out, 1, &packed);
    for f in fields(tensor)? {
        if f.number != 1 {
            out.extend_from_slice(f.raw);
        }
    }
    Ok(out)
}
