//! What a sample shows of the fluid: whole copies that balance. The model's amounts are
//! real numbers, and rounding each on its own can break the identity a reader checks
//! (`published = acked + in flight + waiting + lost + dropped`: 1 published, 1 acked and
//! 1 in flight when half a copy was each). So each queue's running totals and gauges are
//! rounded, and `acked` is what remains of `published`, which makes the identity exact
//! for every queue, hence for their sums.

use super::queue::{Flow, FluidQueue};

/// One queue's amounts at a sample, in whole copies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Counts {
    pub published: u64,
    pub acked: u64,
    /// In service, plus copies a crash abandoned that wait for their lease.
    pub in_flight: u64,
    pub waiting: u64,
    pub lost: u64,
    /// Dropped by a full queue that drops its oldest (stored, then dropped).
    pub dropped: u64,
    /// Every delivery, served or abandoned.
    pub delivered: u64,
    pub redelivered: u64,
}

impl Counts {
    /// Queue `q` as the flow `f` serves it, with `returning` copies waiting for their lease.
    pub fn of(q: &FluidQueue, f: Flow, returning: f64) -> Self {
        let t = &q.totals;
        let mut c = Counts {
            published: round(t.published),
            acked: 0,
            in_flight: round(q.in_service(f) + returning),
            waiting: round(q.waiting()),
            lost: round(t.lost),
            dropped: round(t.dropped),
            delivered: round(t.served + t.abandoned),
            redelivered: round(t.redelivered),
        };
        // The amounts balance with acked ≥ 0, so their roundings overshoot `published` by
        // two copies at most: the gauges give way first, then (only if every amount sat
        // on a half) the running totals of losses.
        let mut over = (c.in_flight + c.waiting + c.lost + c.dropped).saturating_sub(c.published);
        for part in [
            &mut c.in_flight,
            &mut c.waiting,
            &mut c.dropped,
            &mut c.lost,
        ] {
            let less = over.min(*part);
            *part -= less;
            over -= less;
        }
        c.acked = c.published - c.in_flight - c.waiting - c.lost - c.dropped;
        // Every copy acked or in flight was delivered.
        c.delivered = c.delivered.max(c.acked + c.in_flight);
        c
    }

    pub fn plus(self, o: Counts) -> Counts {
        Counts {
            published: self.published + o.published,
            acked: self.acked + o.acked,
            in_flight: self.in_flight + o.in_flight,
            waiting: self.waiting + o.waiting,
            lost: self.lost + o.lost,
            dropped: self.dropped + o.dropped,
            delivered: self.delivered + o.delivered,
            redelivered: self.redelivered + o.redelivered,
        }
    }
}

/// An amount as whole copies (never negative).
pub(super) fn round(x: f64) -> u64 {
    x.max(0.0).round() as u64
}
