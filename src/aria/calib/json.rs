//! A small path-tracking view over `serde_json::Value`, so every parse error names the exact
//! JSON path of the bad field (e.g. `ImuCalibrations[0].Accelerometer.Bias.Offset[2]`).
//! Also parses the shared Aria JSON shapes: 3-vectors, 3×3 matrices and SE(3) poses
//! (`{"Translation":[x,y,z], "UnitQuaternion":[w,[x,y,z]]}`, Hamilton).

use nalgebra::{Isometry3, Matrix3, Quaternion, Translation3, UnitQuaternion, Vector3};
use serde_json::Value;

use super::error::FieldProblem;

/// A JSON value together with its path from the document root.
#[derive(Debug, Clone)]
pub(crate) struct Node<'a> {
    value: &'a Value,
    path: String,
}

/// A field error before the source name is attached.
pub(crate) type FieldResult<T> = Result<T, (String, FieldProblem)>;

impl<'a> Node<'a> {
    /// The document root.
    pub(crate) fn root(value: &'a Value) -> Self {
        Self {
            value,
            path: String::new(),
        }
    }

    /// This node's JSON path (`$` for the root).
    pub(crate) fn path(&self) -> &str {
        if self.path.is_empty() {
            "$"
        } else {
            &self.path
        }
    }

    /// An error about this node.
    pub(crate) fn err<T>(&self, problem: FieldProblem) -> FieldResult<T> {
        Err((self.path().to_string(), problem))
    }

    fn child_path(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    /// A required object member.
    pub(crate) fn field(&self, key: &str) -> FieldResult<Node<'a>> {
        match self.opt_field(key)? {
            Some(n) => Ok(n),
            None => Err((self.child_path(key), FieldProblem::Missing)),
        }
    }

    /// An optional object member (`null` counts as absent).
    pub(crate) fn opt_field(&self, key: &str) -> FieldResult<Option<Node<'a>>> {
        let Some(obj) = self.value.as_object() else {
            return self.err(FieldProblem::WrongType { expected: "object" });
        };
        Ok(obj.get(key).filter(|v| !v.is_null()).map(|v| Node {
            value: v,
            path: self.child_path(key),
        }))
    }

    /// The elements of an array.
    pub(crate) fn items(&self) -> FieldResult<Vec<Node<'a>>> {
        let Some(arr) = self.value.as_array() else {
            return self.err(FieldProblem::WrongType { expected: "array" });
        };
        Ok(arr
            .iter()
            .enumerate()
            .map(|(i, v)| Node {
                value: v,
                path: format!("{}[{i}]", self.path()),
            })
            .collect())
    }

    /// The elements of an array that must have exactly `n` of them.
    pub(crate) fn items_exact(&self, n: usize) -> FieldResult<Vec<Node<'a>>> {
        let items = self.items()?;
        if items.len() != n {
            return self.err(FieldProblem::WrongLength {
                expected: n.to_string(),
                actual: items.len(),
            });
        }
        Ok(items)
    }

    /// The two elements of a 2-element array.
    pub(crate) fn pair(&self) -> FieldResult<[Node<'a>; 2]> {
        let items = self.items()?;
        let actual = items.len();
        <[Node<'a>; 2]>::try_from(items).or_else(|_| {
            self.err(FieldProblem::WrongLength {
                expected: "2".to_string(),
                actual,
            })
        })
    }

    /// A finite number.
    pub(crate) fn f64(&self) -> FieldResult<f64> {
        match self.value.as_f64() {
            Some(x) if x.is_finite() => Ok(x),
            Some(_) => self.err(FieldProblem::OutOfRange {
                reason: "not a finite number".into(),
            }),
            None => self.err(FieldProblem::WrongType { expected: "number" }),
        }
    }

    /// A string.
    pub(crate) fn str(&self) -> FieldResult<&'a str> {
        match self.value.as_str() {
            Some(s) => Ok(s),
            None => self.err(FieldProblem::WrongType { expected: "string" }),
        }
    }

    /// A non-negative integer that fits in `u32`.
    pub(crate) fn u32(&self) -> FieldResult<u32> {
        match self.value.as_u64().map(u32::try_from) {
            Some(Ok(x)) => Ok(x),
            Some(Err(_)) => self.err(FieldProblem::OutOfRange {
                reason: "does not fit in 32 bits".into(),
            }),
            None => self.err(FieldProblem::WrongType {
                expected: "non-negative integer",
            }),
        }
    }

    /// An array of finite numbers.
    pub(crate) fn f64_vec(&self) -> FieldResult<Vec<f64>> {
        self.items()?.iter().map(Node::f64).collect()
    }

    /// An array of exactly three finite numbers.
    pub(crate) fn vector3(&self) -> FieldResult<Vector3<f64>> {
        let v = self.items_exact(3)?;
        let mut out = Vector3::zeros();
        for (o, n) in out.iter_mut().zip(&v) {
            *o = n.f64()?;
        }
        Ok(out)
    }

    /// A row-major 3×3 matrix `[[r0],[r1],[r2]]`.
    pub(crate) fn matrix3(&self) -> FieldResult<Matrix3<f64>> {
        let rows = self.items_exact(3)?;
        let mut m = Matrix3::zeros();
        for (i, row) in rows.iter().enumerate() {
            m.set_row(i, &row.vector3()?.transpose());
        }
        Ok(m)
    }

    /// An SE(3) pose `{"Translation":[x,y,z], "UnitQuaternion":[w,[x,y,z]]}`. The quaternion
    /// is normalised (as Sophus does); a zero quaternion is refused.
    pub(crate) fn pose(&self) -> FieldResult<Isometry3<f64>> {
        let t = self.field("Translation")?.vector3()?;
        let qn = self.field("UnitQuaternion")?;
        let [w_node, xyz_node] = qn.pair()?;
        let w = w_node.f64()?;
        let xyz = xyz_node.vector3()?;
        let quat = Quaternion::new(w, xyz.x, xyz.y, xyz.z);
        let norm = quat.norm();
        if norm <= 1e-9 {
            return qn.err(FieldProblem::OutOfRange {
                reason: "quaternion has zero norm".into(),
            });
        }
        Ok(Isometry3::from_parts(
            Translation3::from(t),
            UnitQuaternion::from_quaternion(quat),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_name_the_bad_field() {
        let v: Value =
            serde_json::from_str(r#"{"A":[{"B":[1,"x",3]}],"T":{"Translation":[0,0,0]}}"#).unwrap();
        let root = Node::root(&v);
        let items = root.field("A").unwrap().items().unwrap();
        let err = items[0].field("B").unwrap().vector3().unwrap_err();
        assert_eq!(err.0, "A[0].B[1]");
        assert_eq!(err.1, FieldProblem::WrongType { expected: "number" });
        let err = root.field("T").unwrap().pose().unwrap_err();
        assert_eq!(err.0, "T.UnitQuaternion");
        assert_eq!(err.1, FieldProblem::Missing);
        assert_eq!(root.field("Z").unwrap_err().0, "Z");
    }

    #[test]
    fn pose_is_hamilton_w_first() {
        // 90 degrees about z: w = cos(45°), z = sin(45°).
        let h = std::f64::consts::FRAC_1_SQRT_2;
        let s = format!(r#"{{"Translation":[1,2,3],"UnitQuaternion":[{h},[0,0,{h}]]}}"#);
        let v: Value = serde_json::from_str(&s).unwrap();
        let pose = Node::root(&v).pose().unwrap();
        let p = pose * nalgebra::Point3::new(1.0, 0.0, 0.0);
        assert!((p - nalgebra::Point3::new(1.0, 3.0, 3.0)).norm() < 1e-12);
    }
}
