//! [`OnnxEngine`] on tract (pure Rust, cargo feature `tract`): every input shape is fixed at
//! load (`with_input_fact`; a dynamic dimension such as `batch` takes the given batch size),
//! then the graph is optimised for exactly those shapes.

use std::path::{Path, PathBuf};

use tract_onnx::prelude::{
    tvec, DatumType, Framework, InferenceFact, InferenceModelExt, IntoTValue, TValue, TVec,
    Tensor as TractTensor, TypedModel, TypedRunnableModel,
};

use tract_onnx::tract_hir::infer::Factoid;

use crate::infer::engine::{
    check_contract, order_inputs, require_file, Dim, ElemType, EngineError, ModelContract,
    OnnxEngine, ShapeSpec, Tensor, TensorSpec, TensorView,
};

const ENGINE: &str = "tract";

/// A model loaded in tract, for one fixed batch size.
pub struct TractEngine {
    path: PathBuf,
    plan: TypedRunnableModel<TypedModel>,
    inputs: Vec<TensorSpec>,
    outputs: Vec<TensorSpec>,
}

fn elem_type(dt: Option<DatumType>) -> ElemType {
    match dt {
        Some(DatumType::F32) => ElemType::F32,
        Some(DatumType::F16) => ElemType::F16,
        Some(DatumType::F64) => ElemType::F64,
        Some(DatumType::I64) => ElemType::I64,
        Some(DatumType::I32) => ElemType::I32,
        Some(DatumType::I8) => ElemType::I8,
        Some(DatumType::U8) => ElemType::U8,
        Some(DatumType::Bool) => ElemType::Bool,
        Some(other) => ElemType::Other(format!("{other:?}")),
        None => ElemType::Other("unknown".into()),
    }
}

impl TractEngine {
    /// Loads `path`, checks its declared inputs against `expected`, fixes every dynamic
    /// input dimension to `batch`, optimises, and checks the resulting outputs.
    pub fn load(path: &Path, expected: &ModelContract, batch: usize) -> Result<Self, EngineError> {
        require_file(path)?;
        let load_err = |reason: String| EngineError::Load {
            path: path.to_path_buf(),
            engine: ENGINE,
            reason,
        };
        let contract_err = |mismatch| EngineError::Contract {
            path: path.to_path_buf(),
            mismatch,
        };
        let mut model = tract_onnx::onnx()
            .model_for_path(path)
            .map_err(|e| load_err(format!("{e:#}")))?;

        let outlets = model
            .input_outlets()
            .map_err(|e| load_err(format!("{e:#}")))?
            .to_vec();
        let mut declared = Vec::with_capacity(outlets.len());
        for o in &outlets {
            let fact = model
                .outlet_fact(*o)
                .map_err(|e| load_err(format!("{e:#}")))?;
            let name = model.node(o.node).name.clone();
            let dims = fact
                .shape
                .dims()
                .map(|d| {
                    d.concretize()
                        .and_then(|t| t.to_i64().ok())
                        .and_then(|v| usize::try_from(v).ok())
                        .map_or(Dim::Dynamic, Dim::Fixed)
                })
                .collect();
            declared.push(TensorSpec {
                name,
                shape: ShapeSpec(dims),
                dtype: elem_type(fact.datum_type.concretize()),
            });
        }
        // Inputs first: outputs are only known once shapes are fixed and propagated.
        let inputs_only = ModelContract {
            inputs: expected.inputs.clone(),
            outputs: Vec::new(),
        };
        check_contract(&inputs_only, &declared, &[]).map_err(contract_err)?;

        let mut fixed = Vec::with_capacity(declared.len());
        for (i, spec) in declared.iter().enumerate() {
            let dims: Vec<usize> = spec
                .shape
                .0
                .iter()
                .map(|d| match d {
                    Dim::Fixed(n) => *n,
                    Dim::Dynamic => batch,
                })
                .collect();
            model = model
                .with_input_fact(i, InferenceFact::dt_shape(DatumType::F32, dims.clone()))
                .map_err(|e| load_err(format!("{e:#}")))?;
            fixed.push(TensorSpec {
                name: spec.name.clone(),
                shape: ShapeSpec::fixed(&dims),
                dtype: spec.dtype.clone(),
            });
        }
        let typed = model
            .into_optimized()
            .map_err(|e| load_err(format!("{e:#}")))?;
        let mut outputs = Vec::new();
        for o in typed
            .output_outlets()
            .map_err(|e| load_err(format!("{e:#}")))?
        {
            let fact = typed
                .outlet_fact(*o)
                .map_err(|e| load_err(format!("{e:#}")))?;
            let name = typed
                .outlet_label(*o)
                .map(str::to_string)
                .unwrap_or_else(|| typed.node(o.node).name.clone());
            let shape = match fact.shape.as_concrete() {
                Some(d) => ShapeSpec::fixed(d),
                None => ShapeSpec(vec![Dim::Dynamic; fact.shape.rank()]),
            };
            outputs.push(TensorSpec {
                name,
                shape,
                dtype: elem_type(Some(fact.datum_type)),
            });
        }
        check_contract(expected, &fixed, &outputs).map_err(contract_err)?;
        let plan = typed
            .into_runnable()
            .map_err(|e| load_err(format!("{e:#}")))?;
        Ok(Self {
            path: path.to_path_buf(),
            plan,
            inputs: fixed,
            outputs,
        })
    }
}

impl OnnxEngine for TractEngine {
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
        let mut values: TVec<TValue> = tvec![];
        for &i in &order {
            let Some(t) = inputs.get(i) else { continue };
            let tensor = TractTensor::from_shape(t.shape, t.data)
                .map_err(|e| run_err(format!("input `{}`: {e:#}", t.name)))?;
            values.push(tensor.into_tvalue());
        }
        let outs = self
            .plan
            .run(values)
            .map_err(|e| run_err(format!("{e:#}")))?;
        let mut result = Vec::with_capacity(self.outputs.len());
        for (spec, v) in self.outputs.iter().zip(outs.iter()) {
            let data = v
                .as_slice::<f32>()
                .map_err(|e| run_err(format!("output `{}`: {e:#}", spec.name)))?;
            result.push(Tensor {
                name: spec.name.clone(),
                shape: v.shape().to_vec(),
                data: data.to_vec(),
            });
        }
        Ok(result)
    }
}
