//! The lessons themselves, one file per topic; each lesson is a function and each of its
//! steps another, so a lesson reads top to bottom.

use super::Lesson;

/// Every lesson, in the order the issue lists them.
pub fn all() -> Vec<Lesson> {
    vec![]
}
