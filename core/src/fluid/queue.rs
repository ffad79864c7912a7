//! One queue as a fluid: amounts and rates instead of messages. Between two changes of
//! the scenario every rate is constant, so the waiting amount moves in a straight line
//! and the moments it empties or fills up can be computed exactly: the model jumps from
//! one such moment to the next, whatever the rates are.
//!
//! Waiting copies are `admitted − removed` (first in, first out) plus `requeued`, copies
//! handed back by crashed consumers, which wait at the head of the line. The oldest
//! waiting copy is the one with arrival number `removed`: its arrival time is read off
//! the admitted-arrivals curve, kept as corners from the oldest waiting one on.

use std::collections::VecDeque;

use crate::scenario::Overflow;

/// What a queue receives and can give during one piece of time.
#[derive(Clone, Copy, Debug, Default)]
pub struct Flow {
    /// Copies stored per second (publishes that reached the broker, times the fanout).
    pub arrive: f64,
    /// Copies the consumers that are up can finish per second.
    pub capacity: f64,
    /// Processing slots of those consumers (concurrency summed), for the in-flight amount.
    pub slots: f64,
}

/// Rates in force for one piece of time, once the queue's state is taken into account.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Rates {
    pub admit: f64,
    pub serve: f64,
    pub drop: f64,
    pub refuse: f64,
    pub throttle: f64,
}

/// Running totals, as amounts (rounded only when sampled).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct Totals {
    /// Copies stored (drop-oldest stores the new copy, then drops the oldest).
    pub published: f64,
    /// Deliveries whose work completed or is under way: copies handed to a consumer, less
    /// those whose work a crash abandoned (they count in `abandoned` instead). What is
    /// acked is this less what is in service ([`FluidQueue::in_service`]).
    pub served: f64,
    /// Deliveries of requeued copies (the redeliveries).
    pub redelivered: f64,
    /// Deliveries whose work a consumer crash abandoned.
    pub abandoned: f64,
    pub lost: f64,
    pub dropped: f64,
    pub refused: f64,
    pub throttled: f64,
}

impl Totals {
    pub fn plus(&self, o: &Totals) -> Totals {
        Totals {
            published: self.published + o.published,
            served: self.served + o.served,
            redelivered: self.redelivered + o.redelivered,
            abandoned: self.abandoned + o.abandoned,
            lost: self.lost + o.lost,
            dropped: self.dropped + o.dropped,
            refused: self.refused + o.refused,
            throttled: self.throttled + o.throttled,
        }
    }
}

#[derive(Clone, Debug)]
pub struct FluidQueue {
    pub max_length: Option<f64>,
    pub overflow: Overflow,
    admitted: f64,
    removed: f64,
    requeued: f64,
    /// When the oldest requeued copy was first delivered (a lower bound of its arrival).
    requeued_since: f64,
    /// Corners `(t, admitted)` of the admitted-arrivals curve, oldest first.
    curve: VecDeque<(f64, f64)>,
    pub totals: Totals,
}

impl FluidQueue {
    pub fn new(max_length: Option<u64>, overflow: Overflow) -> Self {
        Self {
            max_length: max_length.map(|n| n as f64),
            overflow,
            admitted: 0.0,
            removed: 0.0,
            requeued: 0.0,
            requeued_since: 0.0,
            curve: VecDeque::from([(0.0, 0.0)]),
            totals: Totals::default(),
        }
    }

    /// Rounding tolerance: amounts closer than this are equal.
    fn eps(&self) -> f64 {
        1e-9 * self.admitted.max(1.0)
    }

    pub fn waiting(&self) -> f64 {
        (self.requeued + self.admitted - self.removed).max(0.0)
    }

    fn is_full(&self) -> bool {
        self.max_length
            .is_some_and(|l| self.waiting() >= l - self.eps())
    }

    /// The rates in force given what flows in and out: an empty queue passes arrivals
    /// straight to idle consumers; a full one turns the excess into its overflow.
    pub fn rates(&self, f: Flow) -> Rates {
        let empty = self.waiting() <= self.eps();
        if empty && f.arrive <= f.capacity {
            return Rates {
                admit: f.arrive,
                serve: f.arrive,
                ..Rates::default()
            };
        }
        let mut r = Rates {
            admit: f.arrive,
            serve: f.capacity,
            ..Rates::default()
        };
        if self.is_full() && f.arrive >= f.capacity {
            let excess = f.arrive - f.capacity;
            match self.overflow {
                Overflow::Reject => (r.admit, r.refuse) = (f.capacity, excess),
                Overflow::Throttle => (r.admit, r.throttle) = (f.capacity, excess),
                Overflow::DropOldest => r.drop = excess,
            }
        }
        r
    }

    /// Seconds until these rates stop applying: the line empties, fills up, or the
    /// requeued copies at its head are all taken.
    pub fn horizon(&self, r: &Rates) -> f64 {
        let w = self.waiting();
        let slope = r.admit - r.serve - r.drop;
        let mut h = f64::INFINITY;
        if slope < 0.0 && w > self.eps() {
            h = w / -slope;
        }
        if let Some(l) = self.max_length.filter(|_| slope > 0.0 && !self.is_full()) {
            h = h.min((l - w).max(0.0) / slope);
        }
        let head = r.serve + r.drop;
        if self.requeued > self.eps() && head > 0.0 {
            h = h.min(self.requeued / head);
        }
        h
    }

    /// Moves `dt` seconds on from `t` at rates `r`; returns the copies delivered.
    pub fn advance(&mut self, t: f64, dt: f64, r: &Rates) -> f64 {
        if dt <= 0.0 {
            return 0.0;
        }
        let head = (r.serve + r.drop) * dt;
        let again = head.min(self.requeued);
        self.requeued -= again;
        self.admitted += r.admit * dt;
        self.removed = (self.removed + head - again).min(self.admitted);
        if self.waiting() <= self.eps() {
            // Snap: an exact zero keeps the next piece in the "empty" regime.
            self.requeued = 0.0;
            self.removed = self.admitted;
        }
        let served = r.serve * dt;
        let t_ = &mut self.totals;
        t_.published += r.admit * dt;
        t_.served += served;
        t_.redelivered += again * (r.serve / (r.serve + r.drop).max(f64::MIN_POSITIVE));
        t_.dropped += r.drop * dt;
        t_.refused += r.refuse * dt;
        t_.throttled += r.throttle * dt;
        self.push_corner(t + dt);
        served
    }

    /// Records the arrival curve's corner at `t`; collinear corners are merged.
    fn push_corner(&mut self, t: f64) {
        let a = self.admitted;
        if let [.., (t0, a0), (t1, a1)] = self.curve.make_contiguous() {
            let flat_same = (*a1 - *a0) * (t - *t1) == (a - *a1) * (*t1 - *t0);
            if flat_same {
                *t1 = t;
                *a1 = a;
                return;
            }
        }
        self.curve.push_back((t, a));
    }

    /// Age at `t` of the oldest waiting copy (0 when none waits).
    pub fn oldest_age(&mut self, t: f64) -> f64 {
        if self.waiting() <= self.eps() {
            return 0.0;
        }
        let mut age: f64 = 0.0;
        if self.requeued > self.eps() {
            age = t - self.requeued_since;
        }
        let r = self.removed;
        if self.admitted - r <= self.eps() {
            return age.max(0.0);
        }
        while self.curve.len() >= 2 && self.curve[1].1 <= r {
            self.curve.pop_front();
        }
        let born = match (self.curve.front(), self.curve.get(1)) {
            (Some(&(t0, a0)), Some(&(t1, a1))) => t0 + (r - a0) / (a1 - a0) * (t1 - t0),
            (Some(&(t0, _)), None) => t0,
            _ => t,
        };
        age.max(t - born).max(0.0)
    }

    /// Copies in flight by the flow alone: every slot busy while copies wait, else the
    /// share the arrivals keep busy (Little's law: arrivals × mean service time). A steady
    /// state: see [`Self::in_service`] for what the queue can actually have in service.
    pub fn in_flight(&self, f: Flow) -> f64 {
        if f.capacity <= 0.0 {
            return 0.0;
        }
        if self.waiting() > self.eps() || f.arrive >= f.capacity {
            f.slots
        } else {
            f.slots * f.arrive / f.capacity
        }
    }

    /// Copies in service: the flow's estimate ([`Self::in_flight`]), never more than the
    /// queue has served (a copy leaves the fluid line when it is delivered, so what is in
    /// service is part of what was served, and only the rest is acked). With nothing
    /// published yet, nothing is in service, whatever the flow's steady state says.
    pub fn in_service(&self, f: Flow) -> f64 {
        self.in_flight(f).min(self.totals.served).max(0.0)
    }

    /// Copies whose delivery a crash abandoned come back to the head of the line.
    pub fn requeue(&mut self, amount: f64, delivered_at: f64) {
        if amount <= 0.0 {
            return;
        }
        if self.requeued <= self.eps() {
            self.requeued_since = delivered_at;
        }
        self.requeued += amount;
    }

    /// `amount` copies stored at once at `t` (publishes held back during a broker outage).
    pub fn admit_now(&mut self, amount: f64, t: f64) {
        if amount <= 0.0 {
            return;
        }
        self.push_corner(t);
        self.admitted += amount;
        self.totals.published += amount;
        self.curve.push_back((t, self.admitted));
    }

    /// Copies lost for good while in service (acked on delivery, then a crash); never
    /// more than was served.
    pub fn lose_in_service(&mut self, amount: f64) {
        let amount = self.abandon(amount);
        self.totals.lost += amount;
    }

    /// `amount` copies taken from the head of the line and lost with the consumer that
    /// held them in its prefetch buffer (it acked them on delivery, so the broker forgot
    /// them). The line counts buffered copies as waiting, since it hands a copy out only
    /// as it is served, so they leave it here; never more than waits.
    pub fn lose_from_head(&mut self, amount: f64) {
        let amount = amount.min(self.waiting()).max(0.0);
        let again = amount.min(self.requeued);
        self.requeued -= again;
        self.removed = (self.removed + amount - again).min(self.admitted);
        self.totals.redelivered += again;
        self.totals.abandoned += amount;
        self.totals.lost += amount;
    }

    /// A crash abandoned `amount` copies in service: their work will not complete, so they
    /// are no longer served (each delivery counts once, served or abandoned). Never more
    /// than was served; returns the amount abandoned, for the caller to hand back or lose.
    pub fn abandon(&mut self, amount: f64) -> f64 {
        let amount = amount.clamp(0.0, self.totals.served.max(0.0));
        self.totals.served -= amount;
        self.totals.abandoned += amount;
        amount
    }

    /// A broker restart without persistence: every waiting copy is lost.
    pub fn forget_waiting(&mut self) {
        self.totals.lost += self.waiting();
        self.requeued = 0.0;
        self.removed = self.admitted;
    }
}
