//! The ONNX engine abstraction: load a model, check its inputs and outputs against an expected
//! contract (names, shapes, dtypes), run it on `f32` tensors.
//!
//! Implementations: [`crate::infer::ort_engine::OrtEngine`] (ONNX Runtime, always built) and
//! `crate::infer::tract_engine::TractEngine` (pure Rust, cargo feature `tract`). The contract
//! check and input validation here are shared, pure and engine-independent.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::infer::ort_env::OrtEnvError;

/// One dimension of a tensor shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dim {
    /// A fixed size.
    Fixed(usize),
    /// Any size (a symbolic dimension such as `batch`).
    Dynamic,
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Fixed(n) => write!(f, "{n}"),
            Dim::Dynamic => f.write_str("?"),
        }
    }
}

/// A tensor shape that may hold dynamic dimensions, printed as `[?, 64, 12]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapeSpec(pub Vec<Dim>);

impl ShapeSpec {
    /// A shape of fixed dimensions.
    pub fn fixed(dims: &[usize]) -> Self {
        Self(dims.iter().map(|&d| Dim::Fixed(d)).collect())
    }

    /// Whether a model declaring `self` accepts what a caller expecting `expected` provides:
    /// same rank, and every pair of fixed dimensions equal (a dynamic dimension on either side
    /// matches anything).
    pub fn compatible_with(&self, expected: &ShapeSpec) -> bool {
        self.0.len() == expected.0.len()
            && self.0.iter().zip(&expected.0).all(|pair| match pair {
                (Dim::Fixed(a), Dim::Fixed(b)) => a == b,
                _ => true,
            })
    }

    /// Whether the concrete shape `dims` fits this spec.
    pub fn admits(&self, dims: &[usize]) -> bool {
        self.compatible_with(&ShapeSpec::fixed(dims))
    }
}

impl fmt::Display for ShapeSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{d}")?;
        }
        f.write_str("]")
    }
}

/// Element types an ONNX model may declare (only `F32` is run by these engines).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ElemType {
    /// 32-bit float.
    F32,
    /// 16-bit float.
    F16,
    /// 64-bit float.
    F64,
    /// Signed 64-bit integer.
    I64,
    /// Signed 32-bit integer.
    I32,
    /// Signed 8-bit integer.
    I8,
    /// Unsigned 8-bit integer.
    U8,
    /// Boolean.
    Bool,
    /// Anything else, as the engine names it.
    Other(String),
}

impl fmt::Display for ElemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ElemType::F32 => f.write_str("f32"),
            ElemType::F16 => f.write_str("f16"),
            ElemType::F64 => f.write_str("f64"),
            ElemType::I64 => f.write_str("i64"),
            ElemType::I32 => f.write_str("i32"),
            ElemType::I8 => f.write_str("i8"),
            ElemType::U8 => f.write_str("u8"),
            ElemType::Bool => f.write_str("bool"),
            ElemType::Other(s) => f.write_str(s),
        }
    }
}

/// A named input or output: its shape and element type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorSpec {
    /// The ONNX name.
    pub name: String,
    /// Declared shape.
    pub shape: ShapeSpec,
    /// Declared element type.
    pub dtype: ElemType,
}

impl TensorSpec {
    /// An `f32` tensor spec.
    pub fn f32(name: &str, dims: &[Dim]) -> Self {
        Self {
            name: name.to_string(),
            shape: ShapeSpec(dims.to_vec()),
            dtype: ElemType::F32,
        }
    }
}

/// What a caller expects of a model: its inputs and the outputs it reads.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ModelContract {
    /// Every input the model must have (and no others).
    pub inputs: Vec<TensorSpec>,
    /// Outputs the caller reads (the model may have more).
    pub outputs: Vec<TensorSpec>,
}

/// Input or output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// A model input.
    Input,
    /// A model output.
    Output,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Input => "input",
            Side::Output => "output",
        })
    }
}

/// How a model differs from the expected contract.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ContractMismatch {
    /// An expected tensor is not in the model.
    #[error("{side} `{name}` is missing (the model has: {present})")]
    Missing {
        /// Input or output.
        side: Side,
        /// Expected name.
        name: String,
        /// The model's names, comma-separated.
        present: String,
    },
    /// The model has an input the contract does not know (it could not be fed).
    #[error("unexpected input `{name}`")]
    UnexpectedInput {
        /// The model's input name.
        name: String,
    },
    /// Shapes differ.
    #[error("{side} `{name}`: expected shape {expected}, the model declares {got}")]
    Shape {
        /// Input or output.
        side: Side,
        /// Name.
        name: String,
        /// Expected shape.
        expected: ShapeSpec,
        /// Declared shape.
        got: ShapeSpec,
    },
    /// Element types differ.
    #[error("{side} `{name}`: expected dtype {expected}, the model declares {got}")]
    Dtype {
        /// Input or output.
        side: Side,
        /// Name.
        name: String,
        /// Expected type.
        expected: ElemType,
        /// Declared type.
        got: ElemType,
    },
}

/// Why loading or running a model failed.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The model file is not there.
    #[error("model file {path} not found")]
    NotFound {
        /// The file.
        path: PathBuf,
    },
    /// The model file could not be read.
    #[error("model file {path} could not be read: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The engine rejected the file (not ONNX, damaged, unsupported operator).
    #[error("model {path} did not load in {engine}: {reason}")]
    Load {
        /// The file.
        path: PathBuf,
        /// `ort` or `tract`.
        engine: &'static str,
        /// What the engine said.
        reason: String,
    },
    /// The model does not match the expected contract.
    #[error("model {path}: {mismatch}")]
    Contract {
        /// The file.
        path: PathBuf,
        /// The first difference found.
        mismatch: ContractMismatch,
    },
    /// A tensor handed to `run` does not fit the model.
    #[error("model {path}: input `{name}`: expected shape {expected}, got {got:?} ({len} values)")]
    InputShape {
        /// The file.
        path: PathBuf,
        /// Input name.
        name: String,
        /// The model's shape.
        expected: ShapeSpec,
        /// The shape given.
        got: Vec<usize>,
        /// Values given.
        len: usize,
    },
    /// An input the model needs was not given, or one it does not have was.
    #[error("model {path}: input `{name}` {problem}")]
    InputName {
        /// The file.
        path: PathBuf,
        /// Input name.
        name: String,
        /// `is missing` or `is not an input of the model`.
        problem: &'static str,
    },
    /// The engine failed while running.
    #[error("model {path}: {engine} run failed: {reason}")]
    Run {
        /// The file.
        path: PathBuf,
        /// `ort` or `tract`.
        engine: &'static str,
        /// What the engine said.
        reason: String,
    },
    /// ONNX Runtime itself is not available.
    #[error(transparent)]
    Runtime(#[from] OrtEnvError),
}

/// A borrowed `f32` input tensor.
#[derive(Clone, Copy, Debug)]
pub struct TensorView<'a> {
    /// Input name.
    pub name: &'a str,
    /// Concrete shape.
    pub shape: &'a [usize],
    /// Row-major values, `shape.iter().product()` of them.
    pub data: &'a [f32],
}

/// An owned `f32` output tensor.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    /// Output name.
    pub name: String,
    /// Concrete shape.
    pub shape: Vec<usize>,
    /// Row-major values.
    pub data: Vec<f32>,
}

/// A loaded ONNX model that runs on `f32` tensors.
pub trait OnnxEngine: Send {
    /// `ort` or `tract`.
    fn engine_name(&self) -> &'static str;
    /// The model file.
    fn path(&self) -> &Path;
    /// The model's inputs as it declares them.
    fn inputs(&self) -> &[TensorSpec];
    /// The model's outputs as it declares them.
    fn outputs(&self) -> &[TensorSpec];
    /// Runs the model: every input exactly once (any order), outputs in the model's order.
    fn run(&mut self, inputs: &[TensorView<'_>]) -> Result<Vec<Tensor>, EngineError>;
}

/// Checks a model's declared inputs and outputs against `expected`: every expected input and
/// output present with a compatible shape and the same dtype, and no input the contract does
/// not know. Returns the first difference.
pub fn check_contract(
    expected: &ModelContract,
    inputs: &[TensorSpec],
    outputs: &[TensorSpec],
) -> Result<(), ContractMismatch> {
    for (side, want, have) in [
        (Side::Input, &expected.inputs, inputs),
        (Side::Output, &expected.outputs, outputs),
    ] {
        for w in want {
            let Some(h) = have.iter().find(|h| h.name == w.name) else {
                return Err(ContractMismatch::Missing {
                    side,
                    name: w.name.clone(),
                    present: have
                        .iter()
                        .map(|h| h.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                });
            };
            if h.dtype != w.dtype {
                return Err(ContractMismatch::Dtype {
                    side,
                    name: w.name.clone(),
                    expected: w.dtype.clone(),
                    got: h.dtype.clone(),
                });
            }
            if !h.shape.compatible_with(&w.shape) {
                return Err(ContractMismatch::Shape {
                    side,
                    name: w.name.clone(),
                    expected: w.shape.clone(),
                    got: h.shape.clone(),
                });
            }
        }
    }
    if let Some(extra) = inputs
        .iter()
        .find(|h| !expected.inputs.iter().any(|w| w.name == h.name))
    {
        return Err(ContractMismatch::UnexpectedInput {
            name: extra.name.clone(),
        });
    }
    Ok(())
}

/// Orders `given` by the model's `specs` after checking each: present once, shape admitted by
/// the spec, value count equal to the shape's product. Returns indices into `given`.
pub fn order_inputs(
    path: &Path,
    specs: &[TensorSpec],
    given: &[TensorView<'_>],
) -> Result<Vec<usize>, EngineError> {
    if let Some(g) = given
        .iter()
        .find(|g| !specs.iter().any(|s| s.name == g.name))
    {
        return Err(EngineError::InputName {
            path: path.to_path_buf(),
            name: g.name.to_string(),
            problem: "is not an input of the model",
        });
    }
    let mut order = Vec::with_capacity(specs.len());
    for spec in specs {
        let Some((i, g)) = given.iter().enumerate().find(|(_, g)| g.name == spec.name) else {
            return Err(EngineError::InputName {
                path: path.to_path_buf(),
                name: spec.name.clone(),
                problem: "is missing",
            });
        };
        let count = g
            .shape
            .iter()
            .try_fold(1usize, |acc, &d| acc.checked_mul(d));
        if !spec.shape.admits(g.shape) || count != Some(g.data.len()) {
            return Err(EngineError::InputShape {
                path: path.to_path_buf(),
                name: spec.name.clone(),
                expected: spec.shape.clone(),
                got: g.shape.to_vec(),
                len: g.data.len(),
            });
        }
        order.push(i);
    }
    Ok(order)
}

/// `NotFound` when `path` is not a file (checked before handing it to an engine, whose
/// messages for a missing file vary).
pub fn require_file(path: &Path) -> Result<(), EngineError> {
    if path.is_file() {
        Ok(())
    } else {
        Err(EngineError::NotFound {
            path: path.to_path_buf(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Dim::{Dynamic, Fixed};

    fn contract() -> ModelContract {
        ModelContract {
            inputs: vec![
                TensorSpec::f32("x", &[Dynamic, Fixed(64), Fixed(12)]),
                TensorSpec::f32("m", &[Dynamic, Fixed(64)]),
            ],
            outputs: vec![TensorSpec::f32("y", &[Dynamic, Fixed(28), Fixed(576)])],
        }
    }

    #[test]
    fn shape_display_and_compatibility() {
        let a = ShapeSpec(vec![Dynamic, Fixed(64), Fixed(12)]);
        assert_eq!(a.to_string(), "[?, 64, 12]");
        assert!(a.compatible_with(&ShapeSpec::fixed(&[1, 64, 12])));
        assert!(ShapeSpec::fixed(&[1, 64, 12]).compatible_with(&a));
        assert!(!a.compatible_with(&ShapeSpec::fixed(&[1, 64, 13])));
        assert!(!a.compatible_with(&ShapeSpec::fixed(&[64, 12])));
        assert!(a.admits(&[7, 64, 12]));
    }

    #[test]
    fn a_matching_model_passes() {
        let c = contract();
        let ins = vec![
            TensorSpec::f32("m", &[Fixed(1), Fixed(64)]),
            TensorSpec::f32("x", &[Dynamic, Fixed(64), Fixed(12)]),
        ];
        let outs = vec![
            TensorSpec::f32("extra", &[Fixed(3)]),
            TensorSpec::f32("y", &[Dynamic, Dynamic, Fixed(576)]),
        ];
        assert_eq!(check_contract(&c, &ins, &outs), Ok(()));
    }

    #[test]
    fn each_mismatch_is_named_with_both_shapes() {
        let c = contract();
        let outs = c.outputs.clone();
        let wrong = vec![
            TensorSpec::f32("x", &[Dynamic, Fixed(64), Fixed(11)]),
            TensorSpec::f32("m", &[Dynamic, Fixed(64)]),
        ];
        let e = check_contract(&c, &wrong, &outs).unwrap_err();
        assert_eq!(
            e.to_string(),
            "input `x`: expected shape [?, 64, 12], the model declares [?, 64, 11]"
        );

        let missing = vec![TensorSpec::f32("x", &[Dynamic, Fixed(64), Fixed(12)])];
        let e = check_contract(&c, &missing, &outs).unwrap_err();
        assert!(
            matches!(e, ContractMismatch::Missing { side: Side::Input, ref name, .. } if name == "m")
        );

        let mut extra = c.inputs.clone();
        extra.push(TensorSpec::f32("z", &[Fixed(1)]));
        let e = check_contract(&c, &extra, &outs).unwrap_err();
        assert_eq!(e, ContractMismatch::UnexpectedInput { name: "z".into() });

        let mut dtype = c.inputs.clone();
        dtype[1].dtype = ElemType::Bool;
        let e = check_contract(&c, &dtype, &outs).unwrap_err();
        assert_eq!(
            e.to_string(),
            "input `m`: expected dtype f32, the model declares bool"
        );

        let bad_out = vec![TensorSpec::f32("y", &[Dynamic, Fixed(8), Fixed(576)])];
        let e = check_contract(&c, &c.inputs, &bad_out).unwrap_err();
        assert!(e.to_string().contains("[?, 28, 576]") && e.to_string().contains("[?, 8, 576]"));
    }

    #[test]
    fn inputs_are_ordered_and_checked() {
        let specs = contract().inputs;
        let p = Path::new("m.onnx");
        let x = vec![0.0f32; 64 * 12];
        let m = vec![0.0f32; 64];
        let given = [
            TensorView {
                name: "m",
                shape: &[1, 64],
                data: &m,
            },
            TensorView {
                name: "x",
                shape: &[1, 64, 12],
                data: &x,
            },
        ];
        assert_eq!(order_inputs(p, &specs, &given).unwrap(), vec![1, 0]);

        let short = [
            TensorView {
                name: "m",
                shape: &[1, 64],
                data: &m[..63],
            },
            given[1],
        ];
        let e = order_inputs(p, &specs, &short).unwrap_err();
        assert!(
            matches!(e, EngineError::InputShape { ref name, len: 63, .. } if name == "m"),
            "{e}"
        );

        let wrong = [
            given[0],
            TensorView {
                name: "x",
                shape: &[1, 12, 64],
                data: &x,
            },
        ];
        let e = order_inputs(p, &specs, &wrong).unwrap_err();
        assert!(
            e.to_string().contains("[?, 64, 12]") && e.to_string().contains("[1, 12, 64]"),
            "{e}"
        );

        let e = order_inputs(p, &specs, &given[..1]).unwrap_err();
        assert!(
            matches!(e, EngineError::InputName { ref name, problem: "is missing", .. } if name == "x")
        );

        let stranger = [
            given[0],
            given[1],
            TensorView {
                name: "q",
                shape: &[1],
                data: &m[..1],
            },
        ];
        let e = order_inputs(p, &specs, &stranger).unwrap_err();
        assert!(matches!(e, EngineError::InputName { ref name, .. } if name == "q"));
    }
}
