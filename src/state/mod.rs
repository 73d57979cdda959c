//! The environment state: a compact, time-stamped set of facts in the user's own frame
//! (clock directions, metres and steps, ages, confidences), the hazard events perception
//! raises, and the decision records the assistant writes. This is the boundary between
//! perception (which fills it) and the assistant (which speaks from it): both sides use only
//! these types.
//!
//! The user frame is horizontal and head-centred: 12 o'clock is where the head points
//! (projected on the floor plane), 3 o'clock is to the right, distances are horizontal metres
//! from the head.

pub mod clock;
pub mod decision;
pub mod environment;
pub mod hazard;
pub mod object_class;
pub mod ports;
pub mod read_requests;
pub mod turns;

pub use clock::{
    bearing_to_clock, clock_to_bearing_deg, metres_to_steps, ClockHour, STEP_LENGTH_M,
};
pub use decision::{
    Decision, DecisionHazard, DecisionKind, GuardAction, LmTiming, ReadOutcome, TextReadWait,
    VoiceTiming,
};
pub use environment::{
    EnvironmentState, Evidence, GazeFact, HeightBand, MotionFact, MotionState, ObjectFact,
    OpeningShape, SeenObject, Side, TextFact, Thing, ThingDetail, ThingKind, Walkable,
    FLOOR_SEEN_GAP_M, FLOOR_SEEN_START_M, MAX_STEP_RISE_M,
};
pub use hazard::HazardEvent;
pub use object_class::ObjectClass;
pub use ports::{
    Continue, GenerationPrompt, GenerationStats, Generator, GeneratorError, ObjectSeer,
    PerceptionSink, StateTap, TextReader,
};
pub use read_requests::ReadRequests;
pub use turns::{TurnDirection, TurnFact, TurnTracker};
