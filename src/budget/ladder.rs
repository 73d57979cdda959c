//! The fixed order in which optional work gives way to the CPU budget ([`LADDER`]), the
//! stages that do it ([`OptionalStage`]) and their dials ([`Dials`]). Level 0 runs every
//! stage at its own rate; level *n* applies the first *n* rungs. Alerts and the stages that
//! feed them (ingest, perception, stereo depth, vehicles from motion, speech) are on no
//! rung: a run that sheds its optional work alerts as one that does not.

use serde::Serialize;

use super::dial::{RateDial, FULL_RATE_PCT, PAUSED};

/// A stage whose rate the budget may lower.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum OptionalStage {
    /// The language model's prefill ahead of requests (a request routed to the model then
    /// prefills its own state: about half a second more before its first word).
    Prefill,
    /// Text read around the gaze every second (reads a wearer asks for are never held).
    TextReads,
    /// The object detector at 2 Hz (what things are; their geometry is perception's).
    Objects,
}

impl OptionalStage {
    /// Every optional stage, in [`OptionalStage::index`] order.
    pub const ALL: [OptionalStage; 3] = [
        OptionalStage::Prefill,
        OptionalStage::TextReads,
        OptionalStage::Objects,
    ];

    /// Its place in [`OptionalStage::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// Its name in reports.
    pub fn name(self) -> &'static str {
        match self {
            OptionalStage::Prefill => "prefill",
            OptionalStage::TextReads => "text-reads",
            OptionalStage::Objects => "objects",
        }
    }
}

/// One step down the ladder: a stage's interval stretch from then on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rung {
    /// The stage.
    pub stage: OptionalStage,
    /// Its interval stretch, percent ([`PAUSED`]: paused).
    pub stretch_pct: u32,
}

impl Rung {
    /// `"text-reads ×2"`, `"prefill paused"`.
    pub fn describe(&self) -> String {
        match self.stretch_pct {
            PAUSED => format!("{} paused", self.stage.name()),
            pct if pct % 100 == 0 => format!("{} ×{}", self.stage.name(), pct / 100),
            pct => format!("{} ×{:.1}", self.stage.name(), f64::from(pct) / 100.0),
        }
    }
}

const fn rung(stage: OptionalStage, stretch_pct: u32) -> Rung {
    Rung { stage, stretch_pct }
}

/// The order in which optional work gives way, first to last: speculative model work, then
/// the periodic reads of what things say and what they are, to half and then a quarter of
/// their rates (a text read every 4 s, a detection every 2 s at the floor).
pub const LADDER: [Rung; 5] = [
    rung(OptionalStage::Prefill, PAUSED),
    rung(OptionalStage::TextReads, 200),
    rung(OptionalStage::Objects, 200),
    rung(OptionalStage::TextReads, 400),
    rung(OptionalStage::Objects, 400),
];

/// The lowest level: every rung applied.
pub const FLOOR_LEVEL: usize = LADDER.len();

/// The stretch of `stage` at `level` (the last rung of that stage among the first `level`).
pub fn stretch_at(level: usize, stage: OptionalStage) -> u32 {
    LADDER[..level.min(FLOOR_LEVEL)]
        .iter()
        .rev()
        .find(|r| r.stage == stage)
        .map_or(FULL_RATE_PCT, |r| r.stretch_pct)
}

/// What each level adds, in order (`"prefill paused"`, `"text-reads ×2"`, …).
pub fn described() -> Vec<String> {
    LADDER.iter().map(Rung::describe).collect()
}

/// The share of its own rate `stage` runs at, at `level` (0 when paused).
pub fn rate_share_at(level: usize, stage: OptionalStage) -> f64 {
    match stretch_at(level, stage) {
        PAUSED => 0.0,
        pct => f64::from(FULL_RATE_PCT) / f64::from(pct),
    }
}

/// One dial per optional stage, shared by the stages and the governor.
#[derive(Clone, Debug, Default)]
pub struct Dials {
    /// The language model's prefill ahead of requests.
    pub prefill: RateDial,
    /// Text reads around the gaze.
    pub text_reads: RateDial,
    /// The object detector.
    pub objects: RateDial,
}

impl Dials {
    /// Every stage at its own rate.
    pub fn new() -> Self {
        Self::default()
    }

    /// The dial of `stage`.
    pub fn dial(&self, stage: OptionalStage) -> &RateDial {
        match stage {
            OptionalStage::Prefill => &self.prefill,
            OptionalStage::TextReads => &self.text_reads,
            OptionalStage::Objects => &self.objects,
        }
    }

    /// Sets every dial to `level`.
    pub fn apply(&self, level: usize) {
        for stage in OptionalStage::ALL {
            self.dial(stage).set_stretch_pct(stretch_at(level, stage));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_apply_rungs_in_order() {
        assert_eq!(stretch_at(0, OptionalStage::Prefill), FULL_RATE_PCT);
        assert_eq!(stretch_at(1, OptionalStage::Prefill), PAUSED);
        assert_eq!(stretch_at(1, OptionalStage::TextReads), FULL_RATE_PCT);
        assert_eq!(stretch_at(3, OptionalStage::TextReads), 200);
        assert_eq!(stretch_at(4, OptionalStage::TextReads), 400);
        assert_eq!(stretch_at(FLOOR_LEVEL, OptionalStage::Objects), 400);
        assert_eq!(stretch_at(FLOOR_LEVEL + 5, OptionalStage::Objects), 400);
        assert_eq!(rate_share_at(4, OptionalStage::TextReads), 0.25);
        assert_eq!(rate_share_at(4, OptionalStage::Prefill), 0.0);
        let d = Dials::new();
        d.apply(3);
        assert!(d.prefill.is_paused());
        assert_eq!(d.objects.stretch_pct(), 200);
        assert_eq!(d.text_reads.stretch_pct(), 200);
        d.apply(0);
        assert!(!d.prefill.is_paused());
        assert_eq!(d.objects.stretch_pct(), FULL_RATE_PCT);
        assert_eq!(LADDER[0].describe(), "prefill paused");
        assert_eq!(LADDER[1].describe(), "text-reads ×2");
    }
}
