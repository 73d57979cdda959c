//! Newton-iteration settings shared by the iterative unprojections, identical to
//! projectaria_tools' `CameraNewtonsMethod` (`camera_projections/Common.h`): at most 50
//! iterations, converged when a step is below `1e-7` (a C++ `float` constant, so it is
//! compared at `f32` precision exactly as there).

/// Maximum number of Newton iterations.
pub(crate) const MAX_ITERATIONS: usize = 50;

/// Convergence tolerance on a scalar step (the `f32` value `1e-7f` widened to f64).
pub(crate) const TOLERANCE: f64 = 1e-7_f32 as f64;

/// Convergence tolerance on a squared 2-vector step (`1e-7f * 1e-7f` computed in `f32`).
pub(crate) const TOLERANCE_SQ: f64 = (1e-7_f32 * 1e-7_f32) as f64;

/// `f64::EPSILON`, the threshold projectaria_tools (Sophus) uses near the optical axis.
pub(crate) const EPS: f64 = f64::EPSILON;
