//! An idempotent producer's order within a partition, as Kafka keeps it: each message an
//! idempotent producer sends to a log takes the next sequence number of its partition
//! (in the order first sent), and the broker appends a message only when every earlier
//! one of that producer and partition is in the log. A message that arrives ahead of its
//! turn (a retry after a broker outage overtaken by a newer message, say) is refused as
//! out of sequence, and the producer sends it again once it is first in line. Keyless
//! records, spread round robin at the broker, keep no order and take no sequence.

use super::Simulation;
use crate::producer::Target;
use crate::step::{Attempt, Fact, MsgId, ProducerId};

impl Simulation {
    /// The log an idempotent producer numbers its records on (one that waits for
    /// confirms: without them nothing is sent again, so nothing can overtake).
    fn sequenced_log(&self, producer: ProducerId) -> Option<usize> {
        let p = &self.producers[producer.index()];
        match p.target {
            Target::Log(l) if p.publish.idempotent && self.waits_for_confirm(producer) => Some(l),
            _ => None,
        }
    }

    /// `msg` is put on the wire: it takes the next sequence of its partition, unless it
    /// holds one already or is stored.
    pub(super) fn take_sequence(&mut self, producer: ProducerId, msg: MsgId) {
        let Some(l) = self.sequenced_log(producer) else {
            return;
        };
        let m = &self.messages[msg.index()];
        if m.broker_remembers()
            || self.producers[producer.index()]
                .sequenced
                .contains_key(&msg)
        {
            return;
        }
        let Some(partition) = self.logs[l].partition_for(m.key, msg) else {
            return;
        };
        let p = &mut self.producers[producer.index()];
        p.sequenced.insert(msg, partition);
        p.sequences.entry(partition).or_default().push_back(msg);
    }

    /// At the broker: the message of the same producer and partition that must be
    /// appended before `msg` (none: `msg` is next).
    pub(super) fn sequence_ahead(&self, producer: ProducerId, msg: MsgId) -> Option<MsgId> {
        let p = &self.producers[producer.index()];
        let partition = p.sequenced.get(&msg)?;
        let first = *p.sequences.get(partition)?.front()?;
        (first != msg).then_some(first)
    }

    /// `msg` is stored, or its producer gave up on it: it leaves its partition's sequence.
    /// Returns the partition it was numbered for, if it was.
    pub(super) fn leave_sequence(&mut self, producer: ProducerId, msg: MsgId) -> Option<u32> {
        let p = &mut self.producers[producer.index()];
        let partition = p.sequenced.remove(&msg)?;
        p.out_of_sequence.remove(&msg);
        if let Some(line) = p.sequences.get_mut(&partition) {
            if let Some(i) = line.iter().position(|&m| m == msg) {
                line.remove(i);
            }
            if line.is_empty() {
                p.sequences.remove(&partition);
            }
        }
        Some(partition)
    }

    /// The broker refuses `msg` as out of sequence: `ahead` is not stored yet. The
    /// producer will send it again once it is first in line (its confirm timeout for
    /// this attempt no longer matters: the broker answered).
    pub(super) fn refuse_out_of_sequence(
        &mut self,
        producer: ProducerId,
        msg: MsgId,
        attempt: Attempt,
        ahead: MsgId,
    ) {
        let p = &mut self.producers[producer.index()];
        p.out_of_sequence.insert(msg);
        let partition = p.sequenced.get(&msg).copied().unwrap_or(0);
        let log = match p.target {
            Target::Log(l) => l as u32,
            _ => 0,
        };
        self.messages[msg.index()].nacked_attempt = attempt;
        self.facts.push(Fact::OutOfSequence {
            producer,
            msg,
            attempt,
            log,
            partition,
            ahead,
        });
    }

    /// The producer learnt that a message was stored or gave up on one: every message
    /// refused as out of sequence that is now first in its partition's line goes again.
    pub(super) fn resend_in_sequence(&mut self, producer: ProducerId) {
        let p = &self.producers[producer.index()];
        if p.out_of_sequence.is_empty() || !p.up {
            return;
        }
        let due: Vec<MsgId> = p
            .sequences
            .values()
            .filter_map(|line| line.front().copied())
            .filter(|m| p.out_of_sequence.contains(m))
            .collect();
        for msg in due {
            self.producers[producer.index()]
                .out_of_sequence
                .remove(&msg);
            self.send(producer, msg);
        }
    }

    /// A crashed producer forgets its sequences: restarted, it is a new producer to the
    /// broker (a new producer id), whose numbering starts again.
    pub(super) fn forget_sequences(&mut self, producer: ProducerId) {
        let p = &mut self.producers[producer.index()];
        p.sequences.clear();
        p.sequenced.clear();
        p.out_of_sequence.clear();
    }
}
