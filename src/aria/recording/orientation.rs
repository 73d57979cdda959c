//! How a camera's recorded frames must be turned to stand upright: Aria Gen1's RGB camera is
//! mounted a quarter turn, so its frames are read (text) and looked at (objects) after a
//! clockwise turn, as projectaria_tools' viewers show them; and points between the two.

/// How recorded frames must be turned to stand upright.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Orientation {
    /// Already upright.
    AsRecorded,
    /// Turn a quarter clockwise (Aria Gen1 RGB, as projectaria_tools' viewers do).
    RotateCw90,
}

impl Orientation {
    /// A point of the recorded `raw_w × raw_h` frame in the upright image.
    pub fn to_upright(self, p: [f32; 2], raw_h: u32) -> [f32; 2] {
        match self {
            Orientation::AsRecorded => p,
            Orientation::RotateCw90 => [raw_h as f32 - 1.0 - p[1], p[0]],
        }
    }

    /// A point of the upright image in the recorded `raw_w × raw_h` frame.
    pub fn to_recorded(self, p: [f32; 2], raw_h: u32) -> [f32; 2] {
        match self {
            Orientation::AsRecorded => p,
            Orientation::RotateCw90 => [p[1], raw_h as f32 - 1.0 - p[0]],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quarter_turn_and_back() {
        let o = Orientation::RotateCw90;
        // The recorded frame's top-left corner is the upright image's top-right.
        assert_eq!(o.to_upright([0.0, 0.0], 100), [99.0, 0.0]);
        let p = [12.0, 34.0];
        assert_eq!(o.to_recorded(o.to_upright(p, 100), 100), p);
        assert_eq!(Orientation::AsRecorded.to_upright(p, 100), p);
    }
}
