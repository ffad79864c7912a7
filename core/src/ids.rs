//! The ids facts and views use to name a producer, a queue, a consumer, a group or a
//! message.
//!
//! Each is a newtype over its number, not an alias: a queue id passed where a consumer id
//! is expected does not compile. They stay invisible everywhere else:
//!
//! * serde reads and writes the bare number (`#[serde(transparent)]`), so scenario files
//!   and the runner's JSON are the same as with plain integers;
//! * `Display` prints the bare number (with any width or fill asked for), so narration and
//!   the page read the same, and `FromStr` reads it back;
//! * the derived `Hash` of a one-field struct is the hash of its field, so run
//!   fingerprints are unchanged.
//!
//! Where a number is needed (a `Vec` index, a count), `index` and `from_index` are the one
//! place the conversion happens.

/// Declares one id: a `Copy` newtype over `$raw` with the conversions every id shares.
macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident($raw:ty)) => {
        $(#[$doc])*
        #[derive(
            Clone,
            Copy,
            PartialEq,
            Eq,
            PartialOrd,
            Ord,
            Hash,
            Debug,
            serde::Serialize,
            serde::Deserialize,
        )]
        #[serde(transparent)]
        pub struct $name($raw);

        impl $name {
            /// The id numbered `raw` (ids count from 0).
            pub const fn new(raw: $raw) -> Self {
                Self(raw)
            }

            /// The id at position `index` of its list (queues, consumers…).
            ///
            /// # Panics
            /// If `index` does not fit the id's number (the scenario's limits keep every
            /// list far below that).
            pub fn from_index(index: usize) -> Self {
                match <$raw>::try_from(index) {
                    Ok(raw) => Self(raw),
                    Err(_) => panic!(concat!("index out of range for ", stringify!($name))),
                }
            }

            /// The id's number.
            pub const fn get(self) -> $raw {
                self.0
            }

            /// The id's position in its list: the index of a `Vec` kept in id order.
            ///
            /// An id beyond `usize` (a message id typed into the page, on a 32-bit wasm
            /// build) gives `usize::MAX`, an index no list has: `get` finds nothing there,
            /// as it would on a 64-bit build.
            #[inline]
            pub fn index(self) -> usize {
                usize::try_from(self.0).unwrap_or(usize::MAX)
            }
        }

        impl std::str::FromStr for $name {
            type Err = std::num::ParseIntError;

            /// Reads the bare number, as `Display` writes it.
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                s.parse().map(Self)
            }
        }

        impl std::fmt::Display for $name {
            /// The bare number, as narration and the page have always printed it.
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Display::fmt(&self.0, f)
            }
        }
    };
}

id_type! {
    /// A queue: its position in the scenario's `queues` (0-based).
    QueueId(u32)
}

id_type! {
    /// A consumer: its position among all consumers once replicas are expanded (0-based).
    ConsumerId(u32)
}

id_type! {
    /// A consumer group reading a log: its position in the scenario's `groups` (0-based).
    GroupId(u32)
}

id_type! {
    /// A producer: its position in the scenario's `producers` (0-based).
    ProducerId(u32)
}

id_type! {
    /// A message: what a producer meant to send once (its id survives retries and
    /// redrives). Messages are numbered in the order they were created, from 0.
    MsgId(u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_is_written_and_read_as_its_bare_number() {
        let q = QueueId::new(7);
        assert_eq!(serde_json::to_string(&q).unwrap(), "7");
        assert_eq!(serde_json::from_str::<QueueId>("7").unwrap(), q);
        assert!(serde_json::from_str::<QueueId>("\"7\"").is_err());
    }

    #[test]
    fn an_id_displays_as_its_bare_number_with_the_format_asked_for() {
        let q = QueueId::new(7);
        assert_eq!(q.to_string(), "7");
        assert_eq!(format!("{q:>3}"), "  7");
        assert_eq!(format!("{q:03}"), "007");
    }

    #[test]
    fn an_id_hashes_like_its_number() {
        use crate::hash::StableHasher;
        use std::hash::{Hash, Hasher};
        let hash = |x: &dyn Fn(&mut StableHasher)| {
            let mut h = StableHasher::default();
            x(&mut h);
            h.finish()
        };
        assert_eq!(hash(&|h| QueueId::new(7).hash(h)), hash(&|h| 7u32.hash(h)));
        assert_ne!(hash(&|h| QueueId::new(7).hash(h)), hash(&|h| 8u32.hash(h)));
    }

    #[test]
    fn an_index_round_trips_and_orders_like_the_number() {
        assert_eq!(QueueId::from_index(5).index(), 5);
        assert_eq!(QueueId::from_index(5).get(), 5);
        assert!(QueueId::new(2) < QueueId::new(10));
    }

    #[test]
    fn an_id_too_large_for_an_index_finds_nothing() {
        let list = [10, 20, 30];
        assert_eq!(list.get(MsgId::new(1).index()), Some(&20));
        assert_eq!(list.get(MsgId::new(u64::MAX).index()), None);
    }

    #[test]
    fn a_message_id_reads_back_what_it_displays() {
        let m = MsgId::new(u64::MAX);
        assert_eq!(m.to_string().parse::<MsgId>(), Ok(m));
        assert!("#7".parse::<MsgId>().is_err());
    }

    #[test]
    #[should_panic(expected = "index out of range for QueueId")]
    fn an_index_too_large_for_the_id_is_refused() {
        let _ = QueueId::from_index(u32::MAX as usize + 1);
    }
}
