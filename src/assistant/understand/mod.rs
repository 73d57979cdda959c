//! Understanding a request however it is phrased: text (typed, or heard) to a typed
//! [`Ask`].
//!
//! * [`ask`]: the typed request (kind, the thing named, a predicate about people, a
//!   setting) and its written form.
//! * [`keywords`]: the keyword dispatch, as an [`Ask`].

pub mod ask;
pub mod keywords;

pub use ask::{Ask, PeopleAsk, Target};

/// What `text` asks for.
pub fn understand(text: &str) -> Ask {
    keywords::keyword_ask(text)
}
