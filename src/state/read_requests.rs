//! [`ReadRequests`]: whole-frame text reads on request, between the assistant and
//! perception. Text is read around the gaze point first (cheap, throttled); when a request
//! needs text the state does not hold ("What does the sign say?", a goal whose sign was not
//! read yet), the assistant [`ReadRequests::ask`]s for the whole newest frame to be read and
//! holds the request. Perception starts one whole-frame read of the newest RGB frame at a
//! time; when its text has been folded into the state, it marks every ask made before that
//! read started as [`ReadRequests::served`] — just before it hands that state to the
//! assistant, so a state handed over after `served() >= ticket` holds the read's text.
//! Nothing is asked before perception has a frame to read ([`ReadRequests::ready`]): a
//! session whose RGB camera sends nothing never waits.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Asks (tickets, counted from 1) and the newest ticket served. Shared by the assistant
/// (asks, reads `served`) and perception (reads `asked`, marks `served`).
#[derive(Debug, Default)]
pub struct ReadRequests {
    asked: AtomicU64,
    served: AtomicU64,
    ready: AtomicBool,
}

impl ReadRequests {
    /// Nothing asked yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Perception has a frame to read (set with the first RGB frame).
    pub fn set_ready(&self) {
        self.ready.store(true, Ordering::Release);
    }

    /// Whether a whole-frame read can be made (a frame has come).
    pub fn ready(&self) -> bool {
        self.ready.load(Ordering::Acquire)
    }

    /// Asks for a whole-frame read of the newest frame; returns the ask's ticket.
    pub fn ask(&self) -> u64 {
        self.asked.fetch_add(1, Ordering::AcqRel) + 1
    }

    /// The newest ticket asked (0: none).
    pub fn asked(&self) -> u64 {
        self.asked.load(Ordering::Acquire)
    }

    /// Every ticket up to this one has had its whole-frame read folded into the state.
    pub fn served(&self) -> u64 {
        self.served.load(Ordering::Acquire)
    }

    /// Marks tickets up to `ticket` served (perception, once the read's text is folded in).
    pub fn serve(&self, ticket: u64) {
        self.served.fetch_max(ticket, Ordering::AcqRel);
    }

    /// Whether an ask is waiting for a read that has not been served.
    pub fn wanted(&self) -> bool {
        self.asked() > self.served()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tickets_count_up_and_serving_covers_older_asks() {
        let r = ReadRequests::new();
        assert!(!r.wanted() && !r.ready());
        r.set_ready();
        assert!(r.ready());
        assert_eq!(r.ask(), 1);
        assert_eq!(r.ask(), 2);
        assert!(r.wanted());
        r.serve(2);
        assert!(!r.wanted());
        // Serving never goes back.
        r.serve(1);
        assert_eq!(r.served(), 2);
        assert_eq!(r.ask(), 3);
        assert!(r.wanted());
    }
}
