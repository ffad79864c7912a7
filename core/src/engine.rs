//! The event queue: a binary heap ordered by (time, insertion sequence), so events due at
//! the same instant run in the order they were scheduled — on every platform.

use std::collections::VecDeque;

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
    /// The oldest records of a producer's buffer reach their delivery timeout at `at`
    /// (live while the buffer still expects its next expiry then: `buffer_due_us`).
    BufferExpiry {
        producer: ProducerId,
        at: Micros,
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
    /// The oldest record of log `log` runs out of its retention time at `at` (live while
    /// the log still expects its next expiry then: `Log::retention_due_us`).
    RetentionDue {
        log: u32,
        at: Micros,
    },
    RestartMember {
        group: GroupId,
        member: MemberId,
        incarnation: u32,
    },
    /// A crashed member's session times out at `at`: the coordinator removes it from the
    /// group (live while the member's session still ends then: a coordinator restart
    /// starts the clock again).
    SessionTimeout {
        group: GroupId,
        member: MemberId,
        incarnation: u32,
        at: Micros,
    },
    /// A crashed member's open transaction, begun at `started`, reaches the group's
    /// transaction timeout (live while that transaction is still open).
    TransactionTimeout {
        group: GroupId,
        member: MemberId,
        started: Micros,
    },
    /// A member's poll timer: the deadline, as it stood when the timer was set, by which
    /// the member had to poll again (live while it is the member's pending timer:
    /// `Member::poll_timer_at`).
    PollIntervalExceeded {
        group: GroupId,
        member: MemberId,
        at: Micros,
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

/// An entry of a FIFO lane.
#[derive(Clone, Debug)]
struct Entry {
    at: Micros,
    seq: u64,
    event: Event,
}

/// Where a heap event is due, its place in the order of scheduling, and its slot in
/// [`Heap::events`]. Keys are all distinct (`seq` is), so the order of pops is fixed.
#[derive(Clone, Copy, Debug)]
struct Key {
    at: Micros,
    seq: u64,
    slot: u32,
}

impl Key {
    #[inline]
    fn before(&self, other: &Key) -> bool {
        (self.at, self.seq) < (other.at, other.seq)
    }
}

/// A binary min-heap of keys by (time, sequence) whose events wait in a slab, so that
/// sifting moves 24-byte keys, never the events. `std`'s `BinaryHeap` of whole entries
/// (56 bytes) moved each popped entry through the stack in pieces and read it back
/// whole: a stalled load in every pop, and again in the step loop reading the event
/// it returned (5 % of mm1's time in perf, 2026-12-04).
#[derive(Clone, Debug, Default)]
struct Heap {
    keys: Vec<Key>,
    /// Events by slot; a slot in `free` holds a stale one, to be overwritten.
    events: Vec<Event>,
    free: Vec<u32>,
}

impl Heap {
    fn len(&self) -> usize {
        self.keys.len()
    }

    fn push(&mut self, at: Micros, seq: u64, event: Event) {
        let slot = match self.free.pop() {
            Some(slot) => {
                self.events[slot as usize] = event;
                slot
            }
            None => {
                self.events.push(event);
                u32::try_from(self.events.len() - 1).expect("fewer than 2^32 pending events")
            }
        };
        let key = Key { at, seq, slot };
        // Sift up: parents later than the key move down a level.
        let mut pos = self.keys.len();
        self.keys.push(key);
        while pos > 0 {
            let parent = (pos - 1) / 2;
            if !key.before(&self.keys[parent]) {
                break;
            }
            self.keys[pos] = self.keys[parent];
            pos = parent;
        }
        self.keys[pos] = key;
    }

    fn peek(&self) -> Option<&Key> {
        self.keys.first()
    }

    fn event(&self, key: &Key) -> Event {
        self.events[key.slot as usize]
    }

    fn pop(&mut self) -> Option<(Micros, Event)> {
        let last = self.keys.pop()?;
        let top = match self.keys.first() {
            Some(&top) => {
                self.sift_down_from_root(last);
                top
            }
            None => last,
        };
        self.free.push(top.slot);
        Some((top.at, self.event(&top)))
    }

    /// Puts `key` at the root's place and sifts it down: earlier children move up.
    fn sift_down_from_root(&mut self, key: Key) {
        let n = self.keys.len();
        let mut pos = 0;
        loop {
            let mut child = 2 * pos + 1;
            if child >= n {
                break;
            }
            if child + 1 < n && self.keys[child + 1].before(&self.keys[child]) {
                child += 1;
            }
            if !self.keys[child].before(&key) {
                break;
            }
            self.keys[pos] = self.keys[child];
            pos = child;
        }
        self.keys[pos] = key;
    }

    /// The pending events, in no particular order.
    fn iter(&self) -> impl Iterator<Item = &Event> + '_ {
        self.keys.iter().map(|k| &self.events[k.slot as usize])
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
    heap: Heap,
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
        self.heap.push(at, seq, event);
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
            self.heap.push(at, seq, event);
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
        let event = match source {
            None => self.heap.peek().map(|k| self.heap.event(k)),
            Some(i) => self.lanes[i].front().map(|e| e.event),
        };
        event.map(|e| (Source(source), e))
    }

    /// Takes the next event if it is due at or before `limit_us`.
    pub fn pop_due(&mut self, limit_us: Micros) -> Option<(Micros, Event)> {
        let source = match self.head {
            Some(source) => source,
            None => self.next_source()?,
        };
        if self.front_at(source)? > limit_us {
            return None;
        }
        self.pop_from(source)
    }

    /// Takes the event [`EventQueue::peek_with_source`] found (nothing changed since).
    pub fn pop_source(&mut self, source: Source) -> Option<(Micros, Event)> {
        self.pop_from(source.0)
    }

    fn front_at(&self, source: Option<usize>) -> Option<Micros> {
        match source {
            None => self.heap.peek().map(|k| k.at),
            Some(i) => self.lanes[i].front().map(|e| e.at),
        }
    }

    fn pop_from(&mut self, source: Option<usize>) -> Option<(Micros, Event)> {
        self.head = None;
        match source {
            None => self.heap.pop(),
            Some(i) => self.lanes[i].pop_front().map(|e| (e.at, e.event)),
        }
    }

    /// The pending events kept in the heap: every event but the FIFO lanes' timers (in
    /// the simulation the lanes hold only copies' leases and times to live, so this is
    /// where an event naming a message is).
    pub fn iter_heap(&self) -> impl Iterator<Item = &Event> + '_ {
        self.heap.iter()
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
    use Event::ScheduledCommand;

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
    fn the_heap_pops_in_time_then_sequence_order_while_slots_are_reused() {
        // Pushes and pops interleaved (so freed slots take new events), against a
        // sorted list of what is pending.
        let mut q = EventQueue::default();
        let mut pending: Vec<(Micros, u32)> = Vec::new();
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut index = 0;
        for round in 0..2_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let at = x % 50; // many equal times: the sequence breaks ties
            if round % 3 == 2 {
                let (t, e) = q.pop().expect("something pending");
                let ScheduledCommand { index: got } = e else {
                    unreachable!()
                };
                assert_eq!((t, got), pending.remove(0));
            } else {
                q.schedule(at, ScheduledCommand { index });
                let pos = pending.partition_point(|&(t, _)| t <= at);
                pending.insert(pos, (at, index));
                index += 1;
            }
        }
        assert_eq!(q.heap_len(), pending.len());
        let rest: Vec<(Micros, u32)> = std::iter::from_fn(|| q.pop())
            .map(|(t, e)| match e {
                ScheduledCommand { index } => (t, index),
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(rest, pending);
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
