//! Messages and copies packed while long-lived (`crate::records::pack`).
//!
//! Each field is written as a variable-length number: counters and small ids take a byte
//! while they are small, instants are distances (from the chunk's first record's instant,
//! or from the copy's own storing), the copy's message id and place in line are distances
//! from its own id, and optional fields that are absent take a bit in a flags byte.

use super::{
    CopyRare, Fate, Holder, Message, MessageCopy, PackedOp, PublishFate, Rare, RoutingKey,
};
use crate::records::pack::{Pack, Packer, Unpacker};
use crate::scenario::Poison;
use crate::step::{MsgId, ProducerId, QueueId};
use crate::time::{Micros, When};

const PUBLISH_FATES: [PublishFate; 6] = [
    PublishFate::Pending,
    PublishFate::Stored,
    PublishFate::Refused,
    PublishFate::Unroutable,
    PublishFate::GaveUp,
    PublishFate::NeverPublished,
];

const POISONS: [Option<Poison>; 4] = [
    None,
    Some(Poison::MalformedPayload),
    Some(Poison::UnknownSchemaVersion),
    Some(Poison::UnauthorizedTenant),
];

fn index_of<T: PartialEq>(all: &[T], x: &T) -> u8 {
    all.iter()
        .position(|a| a == x)
        .expect("every value is listed") as u8
}

impl Pack for Message {
    fn epoch_us(&self) -> Micros {
        self.created_us
    }

    fn pack(&self, _: usize, epoch_us: Micros, out: &mut Packer) {
        out.u32(self.producer.get());
        out.instant(self.created_us, epoch_us);
        out.u64(self.key.map_or(0, |k| u64::from(k) + 1));
        out.u32(self.version);
        out.u8(self.packed_op.kind);
        out.i64(i64::from(i32::from_le_bytes(self.packed_op.amount)));
        // Poison (2 bits) and publish fate (3 bits) share a byte.
        out.u8(index_of(&POISONS, &self.poison) | (index_of(&PUBLISH_FATES, &self.fate) << 2));
        out.u32(self.routing_key.0);
        out.u32(self.publish_attempts);
        out.u32(self.records);
        out.u32(self.nacked_attempt);
        out.u8(self.flags);
        for n in self.copy_tally {
            out.u32(n);
        }
        out.u32(self.held_copies);
    }

    fn unpack(_: usize, epoch_us: Micros, from: &mut Unpacker) -> Self {
        let producer = ProducerId::new(from.u32());
        let created_us = from.instant(epoch_us);
        let key = from
            .u64()
            .checked_sub(1)
            .map(|k| u32::try_from(k).expect("a u32 key"));
        let version = from.u32();
        let kind = from.u8();
        let amount = i32::try_from(from.i64())
            .expect("a 32-bit amount")
            .to_le_bytes();
        let kinds = from.u8();
        Message {
            producer,
            created_us,
            key,
            version,
            packed_op: PackedOp { kind, amount },
            poison: POISONS[usize::from(kinds & 3)],
            fate: PUBLISH_FATES[usize::from(kinds >> 2)],
            routing_key: RoutingKey(from.u32()),
            publish_attempts: from.u32(),
            records: from.u32(),
            nacked_attempt: from.u32(),
            flags: from.u8(),
            copy_tally: [from.u32(), from.u32(), from.u32()],
            held_copies: from.u32(),
        }
    }

    fn finished(&self) -> bool {
        Message::finished(self)
    }
}

// The bits of a copy's flags byte beside its fate (3 bits).
const SETTLED: u8 = 1 << 3;
const PERSISTENT: u8 = 1 << 4;
const RARE: u8 = 1 << 5;
const DELIVERED: u8 = 1 << 6;
const LEASE_OR_DONE: u8 = 1 << 7;

// The bits of a copy's rare fields' byte.
const FORGOTTEN: u8 = 1;
const GAP: u8 = 2;
const DUPLICATE: u8 = 4;
const TWIN: u8 = 8;
const TWIN_RECEIVES: u8 = 16;

fn bit(on: bool, flag: u8) -> u8 {
    if on {
        flag
    } else {
        0
    }
}

impl Pack for MessageCopy {
    fn epoch_us(&self) -> Micros {
        self.stored_us
    }

    fn pack(&self, id: usize, epoch_us: Micros, out: &mut Packer) {
        let id = id as u64;
        let stored = self.stored_us;
        let rare = self.rare.get();
        out.i64(id.wrapping_sub(self.msg.get()) as i64);
        out.u32(self.queue.get());
        out.u8(self.fate as u8
            | bit(self.settled_at_broker, SETTLED)
            | bit(self.persistent, PERSISTENT)
            | bit(rare.is_some(), RARE)
            | bit(self.first_delivered_us.is_some(), DELIVERED)
            | bit(self.lease_or_done_us.is_some(), LEASE_OR_DONE));
        out.u32(self.attempts);
        out.u32(self.failures);
        out.u32(self.event_attempt);
        out.u32(self.holder.0.wrapping_add(1));
        out.instant(stored, epoch_us);
        out.instant(self.enqueued_us, stored);
        out.i64(self.line_seq.wrapping_sub(id) as i64);
        for when in [self.first_delivered_us, self.lease_or_done_us] {
            if let Some(us) = when.get() {
                out.instant(us, stored);
            }
        }
        if let Some(r) = rare {
            out.u8(bit(r.forgotten_in_crash, FORGOTTEN)
                | bit(r.gap_since_us.is_some(), GAP)
                | bit(r.duplicate_of.is_some(), DUPLICATE)
                | bit(r.twin.is_some(), TWIN)
                | bit(r.twin_receives != 0, TWIN_RECEIVES));
            out.u32(r.redrives);
            out.u32(r.deliveries_at_redrive);
            if r.twin_receives != 0 {
                out.u32(r.twin_receives);
            }
            if let Some(us) = r.gap_since_us {
                out.instant(us, stored);
            }
            for copy in [r.duplicate_of, r.twin].into_iter().flatten() {
                out.i64(id.wrapping_sub(copy) as i64);
            }
        }
    }

    fn unpack(id: usize, epoch_us: Micros, from: &mut Unpacker) -> Self {
        let id = id as u64;
        let msg = MsgId::new(id.wrapping_sub(from.i64() as u64));
        let queue = QueueId::new(from.u32());
        let flags = from.u8();
        let attempts = from.u32();
        let failures = from.u32();
        let event_attempt = from.u32();
        let holder = Holder(from.u32().wrapping_sub(1));
        let stored_us = from.instant(epoch_us);
        let enqueued_us = from.instant(stored_us);
        let line_seq = id.wrapping_add(from.i64() as u64);
        let mut when = |flag: u8| {
            if flags & flag != 0 {
                When::at(from.instant(stored_us))
            } else {
                When::NEVER
            }
        };
        let first_delivered_us = when(DELIVERED);
        let lease_or_done_us = when(LEASE_OR_DONE);
        let rare = if flags & RARE != 0 {
            let bits = from.u8();
            let redrives = from.u32();
            let deliveries_at_redrive = from.u32();
            let twin_receives = if bits & TWIN_RECEIVES != 0 {
                from.u32()
            } else {
                0
            };
            let gap_since_us = (bits & GAP != 0).then(|| from.instant(stored_us));
            let duplicate_of = (bits & DUPLICATE != 0).then(|| id.wrapping_sub(from.i64() as u64));
            let twin = (bits & TWIN != 0).then(|| id.wrapping_sub(from.i64() as u64));
            Rare(Some(Box::new(CopyRare {
                forgotten_in_crash: bits & FORGOTTEN != 0,
                redrives,
                deliveries_at_redrive,
                gap_since_us,
                duplicate_of,
                twin,
                twin_receives,
            })))
        } else {
            Rare(None)
        };
        MessageCopy {
            msg,
            queue,
            fate: Fate::ALL[usize::from(flags & 7)],
            attempts,
            failures,
            holder,
            settled_at_broker: flags & SETTLED != 0,
            event_attempt,
            persistent: flags & PERSISTENT != 0,
            stored_us,
            enqueued_us,
            line_seq,
            first_delivered_us,
            lease_or_done_us,
            rare,
        }
    }

    fn finished(&self) -> bool {
        MessageCopy::finished(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn when() -> impl Strategy<Value = When> {
        prop_oneof![Just(When::NEVER), any::<u64>().prop_map(When::at)]
    }

    fn message() -> impl Strategy<Value = Message> {
        (
            (
                any::<u32>(),
                any::<u64>(),
                any::<Option<u32>>(),
                any::<u32>(),
            ),
            (0..4u8, any::<i32>(), 0..4usize, 0..6usize, any::<u32>()),
            (any::<u32>(), any::<u32>(), any::<u32>(), 0..8u8),
            (any::<[u32; 3]>(), any::<u32>()),
        )
            .prop_map(|(a, b, c, d)| Message {
                producer: ProducerId::new(a.0),
                created_us: a.1,
                key: a.2,
                version: a.3,
                packed_op: PackedOp {
                    kind: b.0,
                    amount: b.1.to_le_bytes(),
                },
                poison: POISONS[b.2],
                fate: PUBLISH_FATES[b.3],
                routing_key: RoutingKey(b.4),
                publish_attempts: c.0,
                records: c.1,
                nacked_attempt: c.2,
                flags: c.3,
                copy_tally: d.0,
                held_copies: d.1,
            })
    }

    fn rare() -> impl Strategy<Value = Rare<CopyRare>> {
        prop_oneof![
            Just(Rare(None)),
            (
                any::<bool>(),
                (any::<u32>(), any::<u32>()),
                any::<Option<u64>>(),
                any::<Option<u64>>(),
                (any::<Option<u64>>(), any::<u32>())
            )
                .prop_map(
                    |(
                        forgotten_in_crash,
                        (redrives, deliveries_at_redrive),
                        gap_since_us,
                        duplicate_of,
                        (twin, twin_receives),
                    )| {
                        Rare(Some(Box::new(CopyRare {
                            forgotten_in_crash,
                            redrives,
                            deliveries_at_redrive,
                            gap_since_us,
                            duplicate_of,
                            twin,
                            twin_receives,
                        })))
                    }
                ),
        ]
    }

    fn copy() -> impl Strategy<Value = MessageCopy> {
        (
            (
                any::<u64>(),
                any::<u32>(),
                0..8usize,
                any::<u32>(),
                any::<u32>(),
                any::<u32>(),
            ),
            (
                any::<bool>(),
                any::<u32>(),
                any::<bool>(),
                any::<u64>(),
                any::<u64>(),
                any::<u64>(),
            ),
            (when(), when(), rare()),
        )
            .prop_map(|(a, b, c)| MessageCopy {
                msg: MsgId::new(a.0),
                queue: QueueId::new(a.1),
                fate: Fate::ALL[a.2],
                attempts: a.3,
                failures: a.4,
                holder: Holder(a.5),
                settled_at_broker: b.0,
                event_attempt: b.1,
                persistent: b.2,
                stored_us: b.3,
                enqueued_us: b.4,
                line_seq: b.5,
                first_delivered_us: c.0,
                lease_or_done_us: c.1,
                rare: c.2,
            })
    }

    /// Packs `record` as record `id` of a chunk from `epoch`, and reads it back.
    fn round_trip<T: Pack>(record: &T, id: usize, epoch: Micros) -> (T, usize) {
        let mut bytes = Vec::new();
        record.pack(id, epoch, &mut Packer(&mut bytes));
        let mut from = Unpacker(&bytes);
        let back = T::unpack(id, epoch, &mut from);
        assert!(from.0.is_empty(), "unpacked all it packed");
        (back, bytes.len())
    }

    proptest! {
        // Records have no `PartialEq` (nothing else compares them): their debug forms,
        // which show every field, are compared.
        #[test]
        fn a_message_reads_back_whole(m in message(), id in any::<usize>(), epoch in any::<u64>()) {
            let (back, _) = round_trip(&m, id, epoch);
            prop_assert_eq!(format!("{back:?}"), format!("{m:?}"));
        }

        #[test]
        fn a_copy_reads_back_whole(c in copy(), id in any::<usize>(), epoch in any::<u64>()) {
            let (back, _) = round_trip(&c, id, epoch);
            prop_assert_eq!(format!("{back:?}"), format!("{c:?}"));
        }
    }
}
