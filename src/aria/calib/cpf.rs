//! CAD extrinsics and the central pupil frame (CPF), with the values of projectaria_tools
//! `DeviceCadExtrinsics.cpp` / `ConfigData.cpp`: every Gen1 sensor; for Gen2 the origin
//! camera `slam-front-left` of each build, which is what `T_Device_CPF` needs. Each CAD row is
//! `label, tx, ty, tz, Y axis (3), Z axis (3)`: the pose of the sensor in the CPF, with
//! `X = Y × Z` and the rotation projected to the nearest orthonormal matrix (SVD, as Sophus'
//! `makeRotationMatrix`). `T_Device_CPF` is the inverse of the origin sensor's CAD pose.

use nalgebra::{Isometry3, Matrix3, Rotation3, Translation3, UnitQuaternion, Vector3};

/// Hardware variant, from `DeviceClassInfo.BuildVersion`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CadVariant {
    /// Gen1 `DVT-S` (small frame).
    DvtSmall,
    /// Gen1 `DVT-L` (large frame).
    DvtLarge,
    /// A Gen2 build (`EVT_SS` … `DVT_LL`): the index of its table in [`GEN2_CAMERAS`].
    Gen2(usize),
}

impl CadVariant {
    /// From a `BuildVersion` string (Gen1 `DVT-S` or `DVT-L`; Gen2 `EVT_SS`, `EVT_SL`,
    /// `EVT_LL`, `EVT_LS`, `DVT_SS`, `DVT_SL`, `DVT_LL`, `DVT_LS`).
    pub fn from_build_version(s: &str) -> Option<Self> {
        match s {
            "DVT-S" => Some(Self::DvtSmall),
            "DVT-L" => Some(Self::DvtLarge),
            _ => GEN2_CAMERAS
                .iter()
                .position(|(build, _)| *build == s)
                .map(Self::Gen2),
        }
    }
}

/// The CAD poses of Gen2's seven cameras in the CPF, per build (projectaria_tools
/// `ConfigData.cpp`, `kDeviceCadExtrinsicsGen2*`).
#[rustfmt::skip]
pub const GEN2_CAMERAS: [(&str, [CadRow; 7]); 8] = [
    ("EVT_SS", [
        ("slam-front-left", [0.067294194, 0.006033819, 0.011768852, -0.1381270, -0.9128730, -0.3841660, 0.3088660, -0.4082440, 0.8590340]),
        ("slam-side-left", [0.07275923, 0.006085643, 0.002034262, -0.2577330, -0.9659260, -0.0236820, 0.9618740, -0.2588190, 0.0883840]),
        ("slam-front-right", [-0.067294179, 0.006033839, 0.011768809, 0.1381270, -0.9128730, -0.3841660, -0.3088660, -0.4082440, 0.8590340]),
        ("slam-side-right", [-0.072759183, 0.006085656, 0.002034257, 0.2577330, -0.9659260, -0.0236830, -0.9618740, -0.2588190, 0.0883840]),
        ("camera-et-left", [0.01700651, -0.019550481, 0.011487484, 0.5419290, 0.1725980, 0.8225100, 0.5867210, 0.6230160, -0.5173100]),
        ("camera-et-right", [-0.01700651, -0.019550481, 0.011487484, 0.5419290, -0.1725980, -0.8225100, -0.5867210, 0.6230160, -0.5173100]),
        ("camera-rgb", [0.0561, 0.006127977, 0.015325591, 0.0000000, -0.9914450, -0.1305260, 0.0000000, -0.1305260, 0.9914450]),
    ]),
    ("EVT_SL", [
        ("slam-front-left", [0.067294194, 0.006033819, 0.011768852, -0.138127, -0.912873, -0.384166, 0.308866, -0.408244, 0.859034]),
        ("slam-side-left", [0.07275923, 0.006085643, 0.002034262, -0.257733, -0.965926, -0.023682, 0.961874, -0.258819, 0.088384]),
        ("slam-front-right", [-0.067294179, 0.006033839, 0.011768809, 0.138127, -0.912873, -0.384166, -0.308866, -0.408244, 0.859034]),
        ("slam-side-right", [-0.072759183, 0.006085656, 0.002034257, 0.257733, -0.965926, -0.023683, -0.961874, -0.258819, 0.088384]),
        ("camera-et-left", [0.01700651, -0.019550481, 0.011487484, 0.541929, 0.172598, 0.82251, 0.586721, 0.623016, -0.51731]),
        ("camera-et-right", [-0.01700651, -0.019550481, 0.011487484, 0.541929, -0.172598, -0.82251, -0.586721, 0.623016, -0.51731]),
        ("camera-rgb", [0.0561, 0.006127977, 0.015325591, 0.0, -0.991445, -0.130526, 0.0, -0.130526, 0.991445]),
    ]),
    ("EVT_LL", [
        ("slam-front-left", [0.071078827, 0.005719893, 0.01155452, -0.138127, -0.912873, -0.384166, 0.308866, -0.408244, 0.859034]),
        ("slam-side-left", [0.076543864, 0.005771718, 0.00181993, -0.257733, -0.965926, -0.023682, 0.9618740, -0.2588190, 0.0883840]),
        ("slam-front-right", [-0.071078812, 0.005719913, 0.011554478, 0.138127, -0.912873, -0.384166, -0.308866, -0.408244, 0.859034]),
        ("slam-side-right", [-0.076543816, 0.00577173, 0.001819926, 0.257733, -0.965926, -0.023683, -0.9618740, -0.2588190, 0.0883840]),
        ("camera-et-left", [0.016945463, -0.01968218, 0.011287018, 0.553542, 0.139166, 0.821111, 0.6386040, 0.5619380, -0.5257470]),
        ("camera-et-right", [-0.01673457, -0.019867572, 0.011460379, 0.554148, -0.138241, -0.820859, -0.6386040, 0.5619380, -0.5257470]),
        ("camera-rgb", [0.06, 0.006174967, 0.014968671, 0.0, -0.991445, -0.130526, 0.0000000, -0.1305260, 0.9914450]),
    ]),
    ("EVT_LS", [
        ("slam-front-left", [0.071078827, 0.005719893, 0.01155452, -0.138127, -0.912873, -0.384166, 0.308866, -0.408244, 0.859034]),
        ("slam-side-left", [0.076543864, 0.005771718, 0.00181993, -0.257733, -0.965926, -0.023682, 0.9618740, -0.2588190, 0.0883840]),
        ("slam-front-right", [-0.071078812, 0.005719913, 0.011554478, 0.138127, -0.912873, -0.384166, -0.308866, -0.408244, 0.859034]),
        ("slam-side-right", [-0.076543816, 0.00577173, 0.001819926, 0.257733, -0.965926, -0.023683, -0.9618740, -0.2588190, 0.0883840]),
        ("camera-et-left", [0.016945463, -0.01968218, 0.011287018, 0.553542, 0.139166, 0.821111, 0.6386040, 0.5619380, -0.5257470]),
        ("camera-et-right", [-0.01673457, -0.019867572, 0.011460379, 0.554148, -0.138241, -0.820859, -0.6386040, 0.5619380, -0.5257470]),
        ("camera-rgb", [0.06, 0.006174967, 0.014968671, 0.0, -0.991445, -0.130526, 0.0000000, -0.1305260, 0.9914450]),
    ]),
    ("DVT_SS", [
        ("slam-front-left", [0.067294194, 0.006033819, 0.011768852, -0.138127, -0.912873, -0.384166, 0.308866, -0.408244, 0.859034]),
        ("slam-side-left", [0.07275923, 0.006085643, 0.002034262, -0.257733, -0.965926, -0.023682, 0.9618740, -0.2588190, 0.0883840]),
        ("slam-front-right", [-0.067294179, 0.006033839, 0.011768809, 0.138127, -0.912873, -0.384166, -0.308866, -0.408244, 0.859034]),
        ("slam-side-right", [-0.072759183, 0.006085656, 0.002034257, 0.257733, -0.965926, -0.023683, -0.9618740, -0.2588190, 0.0883840]),
        ("camera-et-left", [0.01700651, -0.019550481, 0.011487484, 0.6016230, -0.7629290, -0.2363630, 0.586721, 0.623016, -0.517310]),
        ("camera-et-right", [-0.01700651, -0.019550481, 0.011487484, -0.6016230, -0.7629290, -0.2363630, -0.586721, 0.623016, -0.517310]),
        ("camera-rgb", [0.0561, 0.006127977, 0.015325591, 0.0, -0.991445, -0.130526, 0.0, -0.130526, 0.991445]),
    ]),
    ("DVT_SL", [
        ("slam-front-left", [0.067294194, 0.006033819, 0.011768852, -0.138127, -0.912873, -0.384166, 0.308866, -0.408244, 0.859034]),
        ("slam-side-left", [0.07275923, 0.006085643, 0.002034262, -0.257733, -0.965926, -0.023682, 0.9618740, -0.2588190, 0.0883840]),
        ("slam-front-right", [-0.067294179, 0.006033839, 0.011768809, 0.138127, -0.912873, -0.384166, -0.308866, -0.408244, 0.859034]),
        ("slam-side-right", [-0.072759183, 0.006085656, 0.002034257, 0.257733, -0.965926, -0.023683, -0.9618740, -0.2588190, 0.0883840]),
        ("camera-et-left", [0.01700651, -0.019550481, 0.011487484, 0.6016230, -0.7629290, -0.2363630, 0.586721, 0.623016, -0.517310]),
        ("camera-et-right", [-0.01700651, -0.019550481, 0.011487484, -0.6016230, -0.7629290, -0.2363630, -0.586721, 0.623016, -0.517310]),
        ("camera-rgb", [0.0561, 0.006127977, 0.015325591, 0.0, -0.991445, -0.130526, 0.0, -0.130526, 0.991445]),
    ]),
    ("DVT_LL", [
        ("slam-front-left", [0.07107883, 0.005719893, 0.01155452, -0.138127, -0.912873, -0.384166, 0.308866, -0.40824, 0.859034]),
        ("slam-side-left", [0.07649577, 0.005784659, 0.001815511, -0.257733, -0.965926, -0.023683, 0.9618740, -0.2588200, 0.0883840]),
        ("slam-front-right", [-0.0710788, 0.005719913, 0.01155448, 0.13813, -0.912873, -0.384166, -0.30887, -0.40824, 0.859034]),
        ("slam-side-right", [-0.0764953, 0.005784787, 0.001815467, 0.25773, -0.965926, -0.023683, -0.9618700, -0.2588200, 0.0883840]),
        ("camera-et-left", [0.01694544, -0.0196822, 0.011287, 0.53458, -0.815388, -0.222185, 0.6386040, 0.5619380, -0.5257500]),
        ("camera-et-right", [-0.01673457, -0.019867572, 0.011460379, -0.533952, -0.815546, -0.223115, -0.6386040, 0.5619380, -0.5257470]),
        ("camera-rgb", [0.06, 0.006174967, 0.014968671, 0.0, -0.991445, -0.130526, 0.0000000, -0.1305260, 0.9914450]),
    ]),
    ("DVT_LS", [
        ("slam-front-left", [0.07107883, 0.005719893, 0.01155452, -0.138127, -0.912873, -0.384166, 0.308866, -0.40824, 0.859034]),
        ("slam-side-left", [0.07649577, 0.005784659, 0.001815511, -0.257733, -0.965926, -0.023683, 0.9618740, -0.2588200, 0.0883840]),
        ("slam-front-right", [-0.0710788, 0.005719913, 0.01155448, 0.13813, -0.912873, -0.384166, -0.30887, -0.40824, 0.859034]),
        ("slam-side-right", [-0.0764953, 0.005784787, 0.001815467, 0.25773, -0.965926, -0.023683, -0.9618700, -0.2588200, 0.0883840]),
        ("camera-et-left", [0.01694544, -0.0196822, 0.011287, 0.53458, -0.815388, -0.222185, 0.6386040, 0.5619380, -0.5257500]),
        ("camera-et-right", [-0.01673457, -0.019867572, 0.011460379, -0.533952, -0.815546, -0.223115, -0.6386040, 0.5619380, -0.5257470]),
        ("camera-rgb", [0.06, 0.006174967, 0.014968671, 0.0, -0.991445, -0.130526, 0.0000000, -0.1305260, 0.9914450]),
    ]),
];

/// The rigid transform `T_B_A` that best maps the points `a` onto `b` (least squares,
/// Kabsch: the SVD of the cross-covariance, a reflection turned into a rotation), as
/// projectaria_tools' `alignPointCloudsToRigidTransform`; `None` for fewer than three pairs
/// or points that do not span a plane.
pub fn align_points(a: &[Vector3<f64>], b: &[Vector3<f64>]) -> Option<Isometry3<f64>> {
    if a.len() != b.len() || a.len() < 3 {
        return None;
    }
    let n = a.len() as f64;
    let mean_a = a.iter().sum::<Vector3<f64>>() / n;
    let mean_b = b.iter().sum::<Vector3<f64>>() / n;
    let h: Matrix3<f64> = a
        .iter()
        .zip(b)
        .map(|(p, q)| (p - mean_a) * (q - mean_b).transpose())
        .sum();
    let svd = h.svd(true, true);
    let s = svd.singular_values;
    if s[0] < 1e-7 || s[1] * 1e9 < s[0] {
        return None;
    }
    let (u, v) = (svd.u?, svd.v_t?.transpose());
    let mut r = v * u.transpose();
    if r.determinant() < 0.0 {
        let mut v = v;
        v.set_column(2, &(-v.column(2)));
        r = v * u.transpose();
    }
    if !r.determinant().is_finite() {
        return None;
    }
    let r = nearest_rotation(&r);
    let t = mean_b - r * mean_a;
    Some(Isometry3::from_parts(
        Translation3::from(t),
        UnitQuaternion::from_rotation_matrix(&r),
    ))
}

type CadRow = (&'static str, [f64; 9]);

#[rustfmt::skip]
const DVT_S: [CadRow; 16] = [
    ("camera-slam-left", [0.069051, 0.002372, 0.009254, 0.793353, 0.000000, -0.608761, 0.607927, -0.052336, 0.792266]),
    ("camera-slam-right", [-0.069051, 0.002372, 0.009254, 0.793353, 0.000000, 0.608761, -0.607927, -0.052336, 0.792266]),
    ("camera-rgb", [0.056000, 0.007121, 0.012883, 1.000000, 0.000000, 0.000000, 0.000000, -0.130526, 0.991445]),
    ("camera-et-left", [0.054298, -0.018500, 0.006210, 0.034478, -0.508118, -0.860597, -0.674245, 0.623794, -0.395316]),
    ("camera-et-right", [-0.054298, -0.018500, 0.006210, -0.034478, -0.508118, -0.860597, 0.674245, 0.623794, -0.395316]),
    ("imu-left", [0.064079, 0.001432, 0.003612, -0.083456, -0.990691, -0.107544, -0.607365, 0.136127, -0.782673]),
    ("imu-right", [-0.065182, 0.001893, 0.002645, -0.793353, 0.000000, -0.608761, 0.595593, 0.206874, -0.776191]),
    ("mag0", [0.064372, -0.005868, 0.000699, 0.587481, -0.015929, -0.809081, -0.808020, 0.043280, -0.587563]),
    ("baro0", [-0.009258, 0.010842, 0.017200, 0.000000, 0.000000, -1.000000, 0.173648, 0.984808, 0.000000]),
    ("mic0", [-0.045906, -0.027938, 0.006667, 0.97508224, -0.160939007, 0.152686805, -0.14019156, -0.980440, -0.138144]),
    ("mic1", [0.009161, 0.010231, 0.017250, -0.984808, -0.173648, 0.000000, -0.173648, 0.984808, 0.000000]),
    ("mic2", [0.045905, -0.027931, 0.006668, -0.975082, -0.160938, 0.152687, 0.140190, -0.980440, -0.138146]),
    ("mic3", [0.063471, 0.012034, 0.005566, -0.017386, 0.001521, 0.999848, 0.087156, 0.996195, 0.000000]),
    ("mic4", [-0.052398, 0.013200, 0.012160, 0.965337, 0.033710, 0.258819, -0.034899, 0.999391, 0.000000]),
    ("mic5", [0.069856, 0.008270, -0.093105, 0.002466, -0.996176, 0.087334, 0.990147, -0.009795, -0.139689]),
    ("mic6", [-0.069822, 0.008268, -0.093138, -0.002487, -0.996176, 0.087333, -0.990081, -0.009815, -0.140151]),
];

#[rustfmt::skip]
const DVT_L: [CadRow; 16] = [
    ("camera-slam-left", [0.071351, 0.002372, 0.008454, 0.793353, 0.000000, -0.608761, 0.607927, -0.052336, 0.792266]),
    ("camera-slam-right", [-0.071351, 0.002372, 0.008454, 0.793353, 0.000000, 0.608761, -0.607927, -0.052336, 0.792266]),
    ("camera-rgb", [0.058250, 0.007186, 0.012096, 1.000000, 0.000000, 0.000000, 0.000000, -0.130526, 0.991445]),
    ("camera-et-left", [0.055753, -0.019589, 0.004786, 0.034096, -0.508436, -0.860424, -0.674299, 0.623745, -0.395300]),
    ("camera-et-right", [-0.055753, -0.019589, 0.004786, -0.034096, -0.508436, -0.860424, 0.674299, 0.623745, -0.395300]),
    ("imu-left", [0.063225, 0.001595, 0.002873, -0.083456, -0.990691, -0.107544, -0.607365, 0.136127, -0.782673]),
    ("imu-right", [-0.067482, 0.001893, 0.001845, -0.793353, 0.000000, -0.608761, 0.595593, 0.206874, -0.776191]),
    ("mag0", [0.066201, -0.005760, -0.001777, 0.588330, 0.006520, -0.808595, -0.808020, 0.043280, -0.587563]),
    ("baro0", [-0.009258, 0.010842, 0.017200, 0.000000, 0.000000, -1.000000, 0.173648, 0.984808, 0.000000]),
    ("mic0", [-0.04613750996, -0.02929690419, 0.006233332458, 0.981006, -0.109790, 0.159915, -0.087780, -0.986430, -0.138744]),
    ("mic1", [0.009200472201, 0.01030418902, 0.01725, -0.984807753, -0.173648178, 0.0, -0.173648178, 0.984807753, 0.0]),
    ("mic2", [0.046138, -0.029297, 0.006233, -0.981006, -0.109790, 0.159915, 0.087780, -0.986430, -0.138744]),
    ("mic3", [0.065925, 0.011961, 0.004305, -0.017386, 0.001521, 0.999848, 0.087156, 0.996195, 0.000000]),
    ("mic4", [-0.054800, 0.013142, 0.010960, 0.965337, 0.033710, 0.258819, -0.034899, 0.999391, 0.000000]),
    ("mic5", [0.072318, 0.008272, -0.094955, 0.002477, -0.996176, 0.087334, 0.990114, -0.009805, -0.139920]),
    ("mic6", [-0.072319, 0.008271, -0.094955, -0.002477, -0.996176, 0.087334, -0.990114, -0.009805, -0.139920]),
];

/// The nearest rotation to `m` (`U·diag(1, 1, det(U·Vᵀ))·Vᵀ`).
fn nearest_rotation(m: &Matrix3<f64>) -> Rotation3<f64> {
    let svd = m.svd(true, true);
    match (svd.u, svd.v_t) {
        (Some(u), Some(v_t)) => {
            let d = (u * v_t).determinant();
            let r = u * Matrix3::from_diagonal(&Vector3::new(1.0, 1.0, d)) * v_t;
            Rotation3::from_matrix_unchecked(r)
        }
        _ => Rotation3::from_matrix(m),
    }
}

fn pose_from_row(row: &[f64; 9]) -> Isometry3<f64> {
    let t = Vector3::new(row[0], row[1], row[2]);
    let y = Vector3::new(row[3], row[4], row[5]).normalize();
    let z = Vector3::new(row[6], row[7], row[8]).normalize();
    let x = y.cross(&z);
    let r = nearest_rotation(&Matrix3::from_columns(&[x, y, z]));
    Isometry3::from_parts(
        Translation3::from(t),
        UnitQuaternion::from_rotation_matrix(&r),
    )
}

/// CAD pose of a sensor in the CPF (`T_CPF_Sensor`); `None` for an unknown label.
pub fn cad_t_cpf_sensor(variant: CadVariant, label: &str) -> Option<Isometry3<f64>> {
    let table: &[CadRow] = match variant {
        CadVariant::DvtSmall => &DVT_S,
        CadVariant::DvtLarge => &DVT_L,
        CadVariant::Gen2(i) => &GEN2_CAMERAS.get(i)?.1,
    };
    table
        .iter()
        .find(|(l, _)| *l == label)
        .map(|(_, row)| pose_from_row(row))
}

/// `T_Device_CPF` for a device whose frame is the sensor `origin_label`
/// (normally `camera-slam-left`); `None` for an unknown label.
pub fn t_device_cpf(variant: CadVariant, origin_label: &str) -> Option<Isometry3<f64>> {
    cad_t_cpf_sensor(variant, origin_label).map(|t| t.inverse())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cad_rotations_are_orthonormal_and_follow_the_axes() {
        for (variant, table) in [
            (CadVariant::DvtSmall, &DVT_S),
            (CadVariant::DvtLarge, &DVT_L),
        ] {
            for (label, row) in table.iter() {
                let t = cad_t_cpf_sensor(variant, label).unwrap();
                let r = t.rotation.to_rotation_matrix().into_inner();
                assert!((r.transpose() * r - Matrix3::identity()).abs().max() < 1e-12);
                assert!((r.determinant() - 1.0).abs() < 1e-12);
                // The Y and Z columns stay close to the CAD axes (the SVD only removes the
                // small non-orthogonality of the rounded CAD values).
                let y = Vector3::new(row[3], row[4], row[5]).normalize();
                let z = Vector3::new(row[6], row[7], row[8]).normalize();
                assert!((r.column(1) - y).norm() < 2e-3, "{label}");
                assert!((r.column(2) - z).norm() < 2e-3, "{label}");
                assert_eq!(t.translation.vector, Vector3::new(row[0], row[1], row[2]));
            }
        }
        assert!(cad_t_cpf_sensor(CadVariant::DvtSmall, "camera-thermal").is_none());
        let s = t_device_cpf(CadVariant::DvtSmall, "camera-slam-left").unwrap();
        let l = t_device_cpf(CadVariant::DvtLarge, "camera-slam-left").unwrap();
        assert!((s.translation.vector - l.translation.vector).norm() > 1e-4);
        assert_eq!(
            CadVariant::from_build_version("DVT-L"),
            Some(CadVariant::DvtLarge)
        );
        assert_eq!(CadVariant::from_build_version("EVT"), None);
    }
}
