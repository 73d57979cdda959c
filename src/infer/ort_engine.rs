//! [`OnnxEngine`] on ONNX Runtime (`ort`, load-dynamic: the library comes from
//! [`crate::infer::init_ort`]).

use std::path::{Path, PathBuf};

use ort::session::{builder::GraphOptimizationLevel, Session, SessionInputValue};
use ort::value::{TensorElementType, TensorRef, ValueType};

use crate::infer::engine::{
    check_contract, order_inputs, require_file, Dim, ElemType, EngineError, ModelContract,
    OnnxEngine, ShapeSpec, Tensor, TensorSpec, TensorView,
};
use crate::infer::ort_env::init_ort;

const ENGINE: &str = "ort";

/// Options for an ONNX Runtime session.
#[derive(Clone, Copy, Debug)]
pub struct OrtOptions {
    /// Threads inside one operator (1: run on the caller's core only).
    pub intra_threads: usize,
}

impl Default for OrtOptions {
    fn default() -> Self {
        Self { intra_threads: 1 }
    }
}

/// A model loaded in ONNX Runtime.
pub struct OrtEngine {
    path: PathBuf,
    session: Session,
    inputs: Vec<TensorSpec>,
    outputs: Vec<TensorSpec>,
}

fn elem_type(t: TensorElementType) -> ElemType {
    match t {
        TensorElementType::Float32 => ElemType::F32,
        TensorElementType::Float16 => ElemType::F16,
        TensorElementType::Float64 => ElemType::F64,
        TensorElementType::Int64 => ElemType::I64,
        TensorElementType::Int32 => ElemType::I32,
        TensorElementType::Int8 => ElemType::I8,
        TensorElementType::Uint8 => ElemType::U8,
        TensorElementType::Bool => ElemType::Bool,
        other => ElemType::Other(format!("{other:?}")),
    }
}

pub(crate) fn spec(name: &str, ty: &ValueType) -> TensorSpec {
    match ty {
        ValueType::Tensor { ty, shape, .. } => TensorSpec {
            name: name.to_string(),
            shape: ShapeSpec(
                shape
                    .iter()
                    .map(|&d| usize::try_from(d).map_or(Dim::Dynamic, Dim::Fixed))
                    .collect(),
            ),
            dtype: elem_type(*ty),
        },
        other => TensorSpec {
            name: name.to_string(),
            shape: ShapeSpec(Vec::new()),
            dtype: ElemType::Other(format!("{other:?}")),
        },
    }
}

impl OrtEngine {
    /// Loads `path` and checks it against `expected`.
    pub fn load(
        path: &Path,
        expected: &ModelContract,
        options: OrtOptions,
    ) -> Result<Self, EngineError> {
        let engine = Self::open(path, options)?;
        check_contract(expected, &engine.inputs, &engine.outputs).map_err(|mismatch| {
            EngineError::Contract {
                path: path.to_path_buf(),
                mismatch,
            }
        })?;
        Ok(engine)
    }

    /// Loads `path` without a contract, for a caller that checks what the model declares
    /// itself (a model family whose tensor names vary between exports).
    pub fn open(path: &Path, options: OrtOptions) -> Result<Self, EngineError> {
        let session = build_session(path, options)?;
        let inputs: Vec<TensorSpec> = session
            .inputs()
            .iter()
            .map(|o| spec(o.name(), o.dtype()))
            .collect();
        let outputs: Vec<TensorSpec> = session
            .outputs()
            .iter()
            .map(|o| spec(o.name(), o.dtype()))
            .collect();
        Ok(Self {
            path: path.to_path_buf(),
            session,
            inputs,
            outputs,
        })
    }

    /// A custom metadata entry of the model (e.g. a recogniser's character list).
    pub fn metadata(&self, key: &str) -> Option<String> {
        self.session.metadata().ok()?.custom(key)
    }
}

/// A bare ONNX Runtime session for `path` on the process's environment (full graph
/// optimisation, `options.intra_threads` threads), for a caller that feeds it tensors of
/// other types than `f32` (the Piper voice's phoneme ids). ONNX Runtime is loaded first
/// ([`init_ort`]).
pub(crate) fn build_session(path: &Path, options: OrtOptions) -> Result<Session, EngineError> {
    require_file(path)?;
    init_ort()?;
    let load_err = |reason: String| EngineError::Load {
        path: path.to_path_buf(),
        engine: ENGINE,
        reason,
    };
    let env = crate::infer::ort_environment().map_err(|e| load_err(e.to_string()))?;
    Session::builder(env)
        .map_err(|e| load_err(e.to_string()))?
        .with_optimization_level(GraphOptimizationLevel::Level3)
        .map_err(|e| load_err(e.to_string()))?
        .with_intra_threads(options.intra_threads.max(1))
        .map_err(|e| load_err(e.to_string()))?
        .commit_from_file(path)
        .map_err(|e| load_err(e.to_string()))
}

impl OnnxEngine for OrtEngine {
    fn engine_name(&self) -> &'static str {
        ENGINE
    }

    fn path(&self) -> &Path {
        &self.path
    }

    fn inputs(&self) -> &[TensorSpec] {
        &self.inputs
    }

    fn outputs(&self) -> &[TensorSpec] {
        &self.outputs
    }

    fn run(&mut self, inputs: &[TensorView<'_>]) -> Result<Vec<Tensor>, EngineError> {
        let order = order_inputs(&self.path, &self.inputs, inputs)?;
        let run_err = |reason: String| EngineError::Run {
            path: self.path.clone(),
            engine: ENGINE,
            reason,
        };
        let mut values: Vec<(String, SessionInputValue<'_>)> = Vec::with_capacity(order.len());
        for (spec, &i) in self.inputs.iter().zip(&order) {
            let Some(t) = inputs.get(i) else { continue };
            let view = TensorRef::from_array_view((t.shape.to_vec(), t.data))
                .map_err(|e| run_err(e.to_string()))?;
            values.push((spec.name.clone(), view.into()));
        }
        let outs = self
            .session
            .run(values)
            .map_err(|e| run_err(e.to_string()))?;
        let mut result = Vec::with_capacity(self.outputs.len());
        for spec in &self.outputs {
            let Some(v) = outs.get(spec.name.as_str()) else {
                return Err(run_err(format!("output `{}` not produced", spec.name)));
            };
            let (shape, data) = v
                .try_extract_tensor::<f32>()
                .map_err(|e| run_err(format!("output `{}`: {e}", spec.name)))?;
            result.push(Tensor {
                name: spec.name.clone(),
                shape: shape.iter().map(|&d| d.max(0) as usize).collect(),
                data: data.to_vec(),
            });
        }
        Ok(result)
    }
}
