//! Producers: when each publishes its next message.

use crate::rng::SimRng;
use crate::scenario::{ArrivalProcess, ProducerSpec};
use crate::time::{secs_to_us, Micros, US_PER_S};

#[derive(Clone, Debug)]
struct Segment {
    from_us: Micros,
    rate_per_s: f64,
}

#[derive(Clone, Debug)]
pub struct Producer {
    process: ArrivalProcess,
    segments: Vec<Segment>,
    count: Option<u64>,
    pub published: u64,
    /// Index of the segment of the previous arrival.
    segment: usize,
    /// Arrivals so far in that segment (constant spacing is computed from the segment
    /// start, so rounding to microseconds never accumulates).
    k_in_segment: u64,
    /// Time of the previous arrival (or segment start).
    cursor_us: Micros,
}

impl Producer {
    pub fn new(spec: &ProducerSpec) -> Self {
        let segments = spec
            .arrivals
            .schedule
            .iter()
            .map(|s| Segment {
                from_us: secs_to_us(s.from_s),
                rate_per_s: s.rate_per_s,
            })
            .collect();
        Self {
            process: spec.arrivals.process,
            segments,
            count: spec.count,
            published: 0,
            segment: 0,
            k_in_segment: 0,
            cursor_us: 0,
        }
    }

    /// When the next message is published, or `None` if this producer is finished.
    pub fn next_arrival(&mut self, rng: &mut SimRng) -> Option<Micros> {
        if self.count.is_some_and(|n| self.published >= n) {
            return None;
        }
        loop {
            let seg = &self.segments[self.segment];
            let end = self.segments.get(self.segment + 1).map(|s| s.from_us);
            if seg.rate_per_s > 0.0 {
                let candidate = match self.process {
                    ArrivalProcess::Constant => {
                        let gap_us = US_PER_S / seg.rate_per_s;
                        seg.from_us + ((self.k_in_segment + 1) as f64 * gap_us).round() as Micros
                    }
                    // Memoryless: restarting the draw at a segment boundary is exact.
                    ArrivalProcess::Poisson => {
                        self.cursor_us
                            + rng.exponential(US_PER_S / seg.rate_per_s).round() as Micros
                    }
                };
                if end.is_none_or(|e| candidate < e) {
                    self.k_in_segment += 1;
                    self.cursor_us = candidate;
                    return Some(candidate);
                }
            }
            // Nothing more in this segment: move to the next one, or stop for good.
            let next = end?;
            self.segment += 1;
            self.k_in_segment = 0;
            self.cursor_us = next;
        }
    }
}
