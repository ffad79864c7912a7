//! Pins the size of the records every live message holds (issue 14: at most 100 bytes
//! per live message is the target). A waiting message holds its record, its one copy's
//! record and a `CopyId` in its queue's line; `examples/memory.rs` prints the first two.
//! A field added to `Message` or `MessageCopy` (or an `Option<Micros>` where a `When`
//! was) grows every live message of every run: this test fails so that the growth is a
//! decision, written in docs/performance.md ("Bytes per live message"), not an accident.
//!
//! The bounds are upper bounds: shrinking further only needs the numbers lowered here.
use brokerlab_core::{CopyId, Message, MessageCopy, When};
use std::mem::size_of;

/// 2026-12-02: 104 -> 72 (routing key as a number, operation packed in 5 bytes); 72 -> 64
/// (the copy count read off the tally, three flags in one byte).
const MESSAGE_RECORD_MAX: usize = 64;
/// 2026-12-02: 152 -> 88 (optional instants as `When`, rare fields boxed, lease end and
/// done instant in one slot); 88 -> 80 (the wire id as the attempt that minted it, the
/// holder in 4 bytes).
const COPY_RECORD_MAX: usize = 80;

#[test]
fn a_message_record_stays_within_its_pinned_size_because_every_live_message_holds_one() {
    let size = size_of::<Option<Message>>();
    assert!(
        size <= MESSAGE_RECORD_MAX,
        "Option<Message> is {size} bytes, over {MESSAGE_RECORD_MAX}"
    );
}

#[test]
fn a_copy_record_stays_within_its_pinned_size_because_every_live_copy_holds_one() {
    let size = size_of::<Option<MessageCopy>>();
    assert!(
        size <= COPY_RECORD_MAX,
        "Option<MessageCopy> is {size} bytes, over {COPY_RECORD_MAX}"
    );
}

#[test]
fn a_waiting_message_costs_at_most_152_bytes_of_records() {
    // Its record, its copy's record and its place in the queue's line.
    let total =
        size_of::<Option<Message>>() + size_of::<Option<MessageCopy>>() + size_of::<CopyId>();
    assert!(total <= 152, "{total} bytes per waiting message");
}

#[test]
fn an_optional_instant_takes_8_bytes_where_an_option_takes_16() {
    assert_eq!(size_of::<When>(), 8);
}
