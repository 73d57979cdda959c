//! The words the product speaks and checks, in one place (pure data and functions): the
//! assistant names things with them, the safety guard checks generated text with them, and
//! the scorer reads answers with the same number words. A change to a list here changes
//! what the guard blocks and what the scorer reads: it goes in its own commit, with every
//! scenario's score before and after.
//!
//! * [`numbers`]: number words.
//! * [`words`]: the guard's tokenizer and plural-to-singular.
//! * [`nouns`]: the object nouns the guard checks and the words that name each kind.
//! * [`names`]: what a thing is called, from its typed facts.
//! * [`classes`]: the words that name each object class (synonyms included).

pub mod classes;
pub mod names;
pub mod nouns;
pub mod numbers;
pub mod words;

pub use names::thing_label;
