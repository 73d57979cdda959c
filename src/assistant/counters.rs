//! The assistant's counters: alerts, answers, guard interventions, unanswerable and
//! dropped requests, cancellations and generator failures, shared across threads.

use std::sync::atomic::{AtomicU64, Ordering};

/// Live counters, updated from the perception and answer threads.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub(crate) alerts: AtomicU64,
    pub(crate) alerts_suppressed: AtomicU64,
    pub(crate) answers: AtomicU64,
    pub(crate) ambient: AtomicU64,
    pub(crate) guard_interventions: AtomicU64,
    pub(crate) unanswerable: AtomicU64,
    pub(crate) dropped_requests: AtomicU64,
    pub(crate) cancelled: AtomicU64,
    pub(crate) generator_failures: AtomicU64,
    pub(crate) degenerate: AtomicU64,
    pub(crate) by_likeness: AtomicU64,
}

/// What the assistant did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AssistantCounters {
    /// Alerts spoken.
    pub alerts: u64,
    /// Hazard events not alerted (duplicates, rate limit).
    pub alerts_suppressed: u64,
    /// Answers given.
    pub answers: u64,
    /// Periodic scene updates given.
    pub ambient: u64,
    /// Sentences the guard blocked.
    pub guard_interventions: u64,
    /// Requests the evidence did not answer.
    pub unanswerable: u64,
    /// Requests dropped (queues full).
    pub dropped_requests: u64,
    /// Answers cancelled mid-generation.
    pub cancelled: u64,
    /// Generator failures (after the first, templates answer).
    pub generator_failures: u64,
    /// Model text not spoken as degenerate: a phrase looping, or a sentence left unfinished
    /// when the model ran out of tokens.
    pub degenerate: u64,
    /// Requests no rule typed, typed by likeness to labelled examples.
    pub by_likeness: u64,
}

impl Counters {
    /// A snapshot.
    pub(crate) fn snapshot(&self) -> AssistantCounters {
        let g = |a: &AtomicU64| a.load(Ordering::Relaxed);
        AssistantCounters {
            alerts: g(&self.alerts),
            alerts_suppressed: g(&self.alerts_suppressed),
            answers: g(&self.answers),
            ambient: g(&self.ambient),
            guard_interventions: g(&self.guard_interventions),
            unanswerable: g(&self.unanswerable),
            dropped_requests: g(&self.dropped_requests),
            cancelled: g(&self.cancelled),
            generator_failures: g(&self.generator_failures),
            degenerate: g(&self.degenerate),
            by_likeness: g(&self.by_likeness),
        }
    }
}

/// Adds one.
pub(crate) fn bump(a: &AtomicU64) {
    a.fetch_add(1, Ordering::Relaxed);
}
