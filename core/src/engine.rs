//! The event queue: a binary heap ordered by (time, insertion sequence), so events due at
//! the same instant run in the order they were scheduled — on every platform.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

use crate::step::{Attempt, ConsumerId, CopyId, GroupId, MemberId, MsgId, ProducerId, QueueId};
use crate::time::Micros;

/// Everything that can be scheduled. A closed set: each variant is handled by one rule.
/// `incarnation` fields tell apart a process before and after a crash: timers of a dead
/// incarnation never fire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A producer's next request arrives (or its next scripted message is due).
    Arrival {
        producer: ProducerId,
        /// The producer's arrival schedule this belongs to (a changed schedule bumps it).
        epoch: u32,
    },
    /// A publish reaches the broker.
    PublishArrives {
        producer: ProducerId,
        msg: MsgId,
        attempt: Attempt,
    },
    /// The broker's confirm reaches the producer.
    ConfirmArrives {
        producer: ProducerId,
        msg: MsgId,
        attempt: Attempt,
        incarnation: u32,
    },
    /// The producer stops waiting for a confirm.
    ConfirmTimeout {
        producer: ProducerId,
        msg: MsgId,
        attempt: Attempt,
        incarnation: u32,
    },
    /// The outbox relay looks for unsent rows.
    RelayPoll {
        producer: ProducerId,
        incarnation: u32,
    },
    /// A consumer finishes processing a delivery.
    ServiceDone {
        consumer: ConsumerId,
        incarnation: u32,
        copy: CopyId,
        attempt: Attempt,
        batch: u64,
    },
    /// The lease of delivery `attempt` of `copy` runs out.
    LeaseExpired {
        copy: CopyId,
        attempt: Attempt,
    },
    /// A failed copy's backoff is over.
    RetryDue {
        copy: CopyId,
        attempt: Attempt,
    },
    /// A waiting copy's time to live runs out (`line_seq` identifies its stay in line).
    TtlExpired {
        copy: CopyId,
        line_seq: u64,
    },
    /// Redrive moves the next dead-lettered copy of a queue back.
    RedriveTick {
        queue: QueueId,
    },
    /// Command number `index` of the scenario's schedule strikes.
    ScheduledCommand {
        index: u32,
    },
    RestartConsumer {
        consumer: ConsumerId,
        incarnation: u32,
    },
    RestartProducer {
        producer: ProducerId,
        incarnation: u32,
    },
    RestartBroker {
        incarnation: u32,
    },
    /// A group member finishes processing a record.
    RecordDone {
        group: GroupId,
        member: MemberId,
        incarnation: u32,
        partition: u32,
        offset: u64,
    },
    /// A group's rebalance (round `generation` of the group's rebalances) completes.
    RebalanceDone {
        group: GroupId,
        generation: u32,
    },
    /// A group's periodic auto-commit.
    AutoCommit {
        group: GroupId,
    },
    RestartMember {
        group: GroupId,
        member: MemberId,
        incarnation: u32,
    },
    /// A dependency finishes serving request `request` (sent at `sent_us` for `msg`).
    DependencyServed {
        dependency: u32,
        request: u64,
        msg: MsgId,
        sent_us: Micros,
    },
    /// The caller of request `request` stops waiting for it.
    CallTimeout {
        request: u64,
    },
}

#[derive(Clone, Debug)]
struct Entry {
    at: Micros,
    seq: u64,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    // Reversed: BinaryHeap is a max-heap and the earliest (time, seq) must come out first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}

/// Where the next event sits (the heap or a lane), as found by a peek.
#[derive(Clone, Copy, Debug)]
pub struct Source(Option<usize>);

/// Pending events. Most events go to the heap; timers whose due times never decrease
/// (leases of one fixed length, set in time order) go to a FIFO lane instead, which costs
/// O(1) instead of O(log n). The order of pops is the same as with a single heap: the
/// smallest (time, sequence) first.
#[derive(Clone, Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    lanes: Vec<VecDeque<Entry>>,
    next_seq: u64,
    /// Where the next event is, as the last [`EventQueue::peek_with_source`] found it;
    /// `None` once anything was scheduled or taken since. The simulation looks at the
    /// head after every step (to discard moot timers) and takes it at the start of the
    /// next: remembering it spares the second search, whose comparison of the heap's top
    /// with each lane's front goes one way or the other at random in most runs.
    head: Option<Option<usize>>,
}

impl EventQueue {
    pub fn schedule(&mut self, at: Micros, event: Event) {
        self.head = None;
        let seq = self.take_seq();
        self.heap.push(Entry { at, seq, event });
    }

    /// Schedules into FIFO lane `lane` (or into the heap if `at` is earlier than the
    /// lane's last entry).
    pub fn schedule_in_lane(&mut self, lane: usize, at: Micros, event: Event) {
        self.head = None;
        let seq = self.take_seq();
        if self.lanes.len() <= lane {
            self.lanes.resize_with(lane + 1, VecDeque::new);
        }
        let q = &mut self.lanes[lane];
        if q.back().is_some_and(|last| last.at > at) {
            // The lane's fixed duration was shortened (a setting changed): this timer
            // would jump the queue, so it goes to the heap, where order is still exact.
            self.heap.push(Entry { at, seq, event });
            return;
        }
        q.push_back(Entry { at, seq, event });
    }

    fn take_seq(&mut self) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        seq
    }

    /// Where the next event is: `None` for the heap, `Some(i)` for lane i.
    fn next_source(&self) -> Option<Option<usize>> {
        let mut best: Option<(Micros, u64, Option<usize>)> =
            self.heap.peek().map(|e| (e.at, e.seq, None));
        for (i, lane) in self.lanes.iter().enumerate() {
            if let Some(e) = lane.front() {
                if best.is_none_or(|(at, seq, _)| (e.at, e.seq) < (at, seq)) {
                    best = Some((e.at, e.seq, Some(i)));
                }
            }
        }
        best.map(|(_, _, source)| source)
    }

    pub fn peek_time(&self) -> Option<Micros> {
        match self.next_source()? {
            None => self.heap.peek().map(|e| e.at),
            Some(i) => self.lanes[i].front().map(|e| e.at),
        }
    }

    /// The next event, taken out (the simulation uses `pop_due`).
    #[cfg(test)]
    pub fn pop(&mut self) -> Option<(Micros, Event)> {
        self.pop_from(self.next_source()?)
    }

    /// The next event and where it is, for [`EventQueue::pop_source`]: the simulation looks
    /// at the head before and after every step, and finding it twice (peek, then pop)
    /// was a visible share of a step. Remembered until the queue changes, for
    /// [`EventQueue::pop_due`].
    pub fn peek_with_source(&mut self) -> Option<(Source, Event)> {
        let source = self.next_source()?;
        self.head = Some(source);
        self.front(source).map(|e| (Source(source), e.event))
    }

    /// Takes the next event if it is due at or before `limit_us`.
    pub fn pop_due(&mut self, limit_us: Micros) -> Option<(Micros, Event)> {
        let source = match self.head {
            Some(source) => source,
            None => self.next_source()?,
        };
        if self.front(source)?.at > limit_us {
            return None;
        }
        self.pop_from(source)
    }

    /// Takes the event [`EventQueue::peek_with_source`] found (nothing changed since).
    pub fn pop_source(&mut self, source: Source) -> Option<(Micros, Event)> {
        self.pop_from(source.0)
    }

    fn front(&self, source: Option<usize>) -> Option<&Entry> {
        match source {
            None => self.heap.peek(),
            Some(i) => self.lanes[i].front(),
        }
    }

    fn pop_from(&mut self, source: Option<usize>) -> Option<(Micros, Event)> {
        self.head = None;
        let entry = match source {
            None => self.heap.pop(),
            Some(i) => self.lanes[i].pop_front(),
        };
        entry.map(|e| (e.at, e.event))
    }

    /// The pending events kept in the heap: every event but the FIFO lanes' timers (in
    /// the simulation the lanes hold only copies' leases and times to live, so this is
    /// where an event naming a message is).
    pub fn iter_heap(&self) -> impl Iterator<Item = &Event> + '_ {
        self.heap.iter().map(|e| &e.event)
    }

    pub fn heap_len(&self) -> usize {
        self.heap.len()
    }

    /// Drops the lanes' events that `keep` refuses. Only for events that can never matter
    /// again (they would be discarded on reaching the front), so the order of the rest,
    /// and so the run, is unchanged.
    pub fn retain_in_lanes(&mut self, mut keep: impl FnMut(&Event) -> bool) {
        self.head = None;
        for lane in &mut self.lanes {
            lane.retain(|e| keep(&e.event));
        }
    }

    /// The longest FIFO lane.
    pub fn longest_lane(&self) -> usize {
        self.lanes.iter().map(VecDeque::len).max().unwrap_or(0)
    }

    pub fn len(&self) -> usize {
        self.heap.len() + self.lanes_len()
    }

    /// The pending events in the FIFO lanes.
    pub fn lanes_len(&self) -> usize {
        self.lanes.iter().map(VecDeque::len).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_instant_keeps_insertion_order() {
        let mut q = EventQueue::default();
        q.schedule(5, Event::ScheduledCommand { index: 0 });
        q.schedule(3, Event::ScheduledCommand { index: 1 });
        q.schedule(5, Event::ScheduledCommand { index: 2 });
        q.schedule(3, Event::ScheduledCommand { index: 3 });
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        let idx: Vec<u32> = order
            .iter()
            .map(|(_, e)| match e {
                Event::ScheduledCommand { index } => *index,
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(idx, vec![1, 3, 0, 2]);
        assert_eq!(
            order.iter().map(|(t, _)| *t).collect::<Vec<_>>(),
            vec![3, 3, 5, 5]
        );
    }

    #[test]
    fn a_remembered_head_is_forgotten_when_anything_is_scheduled_or_taken() {
        let mut q = EventQueue::default();
        q.schedule_in_lane(0, 5, Event::ScheduledCommand { index: 0 });
        q.schedule(7, Event::ScheduledCommand { index: 1 });
        assert!(matches!(
            q.peek_with_source(),
            Some((_, Event::ScheduledCommand { index: 0 }))
        ));
        // Earlier than the head found: the heap's, not the lane's, comes out first.
        q.schedule(3, Event::ScheduledCommand { index: 2 });
        q.peek_with_source();
        q.schedule_in_lane(1, 1, Event::ScheduledCommand { index: 3 });
        let idx: Vec<u32> = std::iter::from_fn(|| {
            q.peek_with_source();
            q.pop_due(Micros::MAX)
        })
        .map(|(_, e)| match e {
            Event::ScheduledCommand { index } => index,
            _ => unreachable!(),
        })
        .collect();
        assert_eq!(idx, vec![3, 2, 0, 1]);
        // A pruning may take the head found: the next pop looks again.
        q.schedule_in_lane(0, 9, Event::ScheduledCommand { index: 4 });
        q.schedule(10, Event::ScheduledCommand { index: 5 });
        q.peek_with_source();
        q.retain_in_lanes(|_| false);
        assert!(matches!(
            q.pop_due(Micros::MAX),
            Some((10, Event::ScheduledCommand { index: 5 }))
        ));
        assert_eq!(q.pop_due(Micros::MAX), None);
    }

    #[test]
    fn lanes_merge_with_the_heap_in_time_then_sequence_order() {
        let mut q = EventQueue::default();
        q.schedule_in_lane(0, 4, Event::ScheduledCommand { index: 0 });
        q.schedule(4, Event::ScheduledCommand { index: 1 });
        q.schedule_in_lane(0, 9, Event::ScheduledCommand { index: 2 });
        q.schedule(2, Event::ScheduledCommand { index: 3 });
        q.schedule_in_lane(1, 4, Event::ScheduledCommand { index: 4 });
        let idx: Vec<u32> = std::iter::from_fn(|| q.pop())
            .map(|(_, e)| match e {
                Event::ScheduledCommand { index } => index,
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(idx, vec![3, 0, 1, 4, 2]);
        assert_eq!(q.len(), 0);
    }
}
