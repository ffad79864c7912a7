//! Handlers calling their dependency: a call joins the dependency's line (or is refused
//! at once), is served when a slot frees, and answers its caller — unless the caller has
//! given up by then, in which case the work was wasted. The caller's timeout fails the
//! handler; the request stays where it is.

use super::Simulation;
use crate::dependency::Request;
use crate::engine::Event;
use crate::scenario::ServiceTime;
use crate::step::{Attempt, CallRefusal, ConsumerId, CopyId, Fact, Failure, MsgId};
use crate::time::{secs_to_us, Micros};

/// A caller waiting for its request.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Call {
    pub dependency: u32,
    pub consumer: ConsumerId,
    pub incarnation: u32,
    pub batch: u64,
    pub copy: CopyId,
    pub msg: MsgId,
    /// The breaker's half-open probe: its outcome closes or reopens the breaker.
    pub probe: bool,
}

impl Simulation {
    /// A consumer finished its own work on a batch: call its dependency, or settle.
    pub(super) fn service_done(&mut self, consumer: ConsumerId, batch: u64) {
        match self.consumers[consumer.index()].dependency {
            Some(d) => self.call_dependency(consumer, batch, d),
            None => self.finish_work(consumer, batch, None),
        }
    }

    /// The handler calls dependency `d` for its batch (one call per batch).
    fn call_dependency(&mut self, consumer: ConsumerId, batch: u64, d: u32) {
        let c = &self.consumers[consumer.index()];
        let Some(&first) = c.working[c.batch(batch)].first() else {
            return;
        };
        let incarnation = c.incarnation;
        let msg = self.copies[first.copy as usize].msg;
        let Some(probe) = self.breaker_admits(d) else {
            self.deps[d as usize].counters.short_circuited += 1;
            let why = CallRefusal::CircuitOpen;
            return self.refuse_call(consumer, batch, first.copy, d, why, false);
        };
        if let Some(why) = self.refusal(d) {
            self.deps[d as usize].counters.rejected += 1;
            return self.refuse_call(consumer, batch, first.copy, d, why, probe);
        }
        let call = Call {
            dependency: d,
            consumer,
            incarnation,
            batch,
            copy: first.copy,
            msg,
            probe,
        };
        self.admit_call(call, first.attempt);
    }

    /// Why dependency `d` refuses a call right now, if it does.
    fn refusal(&self, d: u32) -> Option<CallRefusal> {
        let dep = &self.deps[d as usize];
        if dep.is_out(self.now_us) {
            Some(CallRefusal::Outage)
        } else if dep.line.len() as u32 >= dep.queue_max && dep.in_service >= dep.concurrency {
            Some(CallRefusal::LineFull)
        } else if dep
            .max_age_us()
            .is_some_and(|max| dep.oldest_age_us(self.now_us) > max)
        {
            Some(CallRefusal::OldestTooOld)
        } else {
            None
        }
    }

    /// A refused call fails the handler at once.
    fn refuse_call(
        &mut self,
        consumer: ConsumerId,
        batch: u64,
        copy: CopyId,
        d: u32,
        why: CallRefusal,
        probe: bool,
    ) {
        let msg = self.copies[copy as usize].msg;
        self.facts.push(Fact::CallRejected {
            msg,
            copy,
            consumer,
            dependency: d,
            why,
        });
        if why != CallRefusal::CircuitOpen {
            self.call_outcome(d, false, probe);
        }
        self.finish_work(consumer, batch, Some(Failure::CallRefused(why)));
    }

    /// The call joins the dependency's line; the caller's timeout starts.
    fn admit_call(&mut self, call: Call, attempt: Attempt) {
        let id = self.next_request;
        self.next_request += 1;
        let dep = &mut self.deps[call.dependency as usize];
        dep.counters.calls += 1;
        if attempt == 1 {
            dep.counters.first_calls += 1;
        }
        let ahead = dep.line.len() as u32;
        dep.line.push_back(Request {
            id,
            msg: call.msg,
            consumer: call.consumer,
            sent_us: self.now_us,
        });
        let deadline = self.now_us.saturating_add(dep.timeout_us);
        self.calls.insert(id, call);
        self.events
            .schedule(deadline, Event::CallTimeout { request: id });
        self.facts.push(Fact::DependencyCalled {
            msg: call.msg,
            copy: call.copy,
            consumer: call.consumer,
            dependency: call.dependency,
            request: id,
            ahead,
        });
        self.start_requests(call.dependency);
    }

    /// Fills the dependency's free slots from its line, shedding what waited too long.
    pub(super) fn start_requests(&mut self, d: u32) {
        loop {
            let dep = &mut self.deps[d as usize];
            if dep.in_service >= dep.concurrency {
                return;
            }
            let Some(req) = dep.line.pop_front() else {
                return;
            };
            let waited = self.now_us.saturating_sub(req.sent_us);
            if dep.max_age_us().is_some_and(|max| waited > max) {
                self.shed_request(d, req, waited);
                continue;
            }
            self.serve(d, req);
        }
    }

    /// Starts serving a request: its time grows with the slowdown and the contention.
    fn serve(&mut self, d: u32, req: Request) {
        let dep = &mut self.deps[d as usize];
        dep.in_service += 1;
        let factor =
            dep.slow_factor(self.now_us) * (1.0 + dep.contention * f64::from(dep.in_service - 1));
        let alone_s = match dep.service {
            ServiceTime::Fixed { seconds } => seconds,
            ServiceTime::Exponential { mean_s } => self.rng.exponential(mean_s),
        };
        let done_at = self.now_us.saturating_add(secs_to_us(alone_s * factor));
        self.events.schedule(
            done_at,
            Event::DependencyServed {
                dependency: d,
                request: req.id,
                msg: req.msg,
                sent_us: req.sent_us,
            },
        );
    }

    /// Admission control drops a request that waited too long; a caller still waiting
    /// hears at once that it was refused.
    pub(super) fn shed_request(&mut self, d: u32, req: Request, waited_us: Micros) {
        self.deps[d as usize].counters.shed += 1;
        self.facts.push(Fact::RequestShed {
            msg: req.msg,
            dependency: d,
            request: req.id,
            waited_us,
        });
        let Some(call) = self.calls.remove(&req.id) else {
            return;
        };
        self.call_outcome(d, false, call.probe);
        if self.caller_waits(&call) {
            let failure = Failure::CallRefused(CallRefusal::OldestTooOld);
            self.finish_work(call.consumer, call.batch, Some(failure));
        }
    }

    /// Whether the process that made `call` is still the one waiting for it.
    fn caller_waits(&self, call: &Call) -> bool {
        self.consumers[call.consumer.index()].incarnation == call.incarnation
    }

    /// A request is served: its caller goes on, or (gone) the work was wasted.
    pub(super) fn request_served(&mut self, d: u32, request: u64, msg: MsgId, sent_us: Micros) {
        self.deps[d as usize].in_service -= 1;
        let call = self.calls.remove(&request);
        match call.filter(|c| self.caller_waits(c)) {
            Some(call) => {
                self.deps[d as usize].counters.answered += 1;
                self.facts.push(Fact::DependencyAnswered {
                    msg,
                    consumer: call.consumer,
                    dependency: d,
                    request,
                    took_us: self.now_us - sent_us,
                });
                self.call_outcome(d, true, call.probe);
                self.finish_work(call.consumer, call.batch, None);
            }
            None => {
                if let Some(call) = call {
                    self.call_outcome(d, false, call.probe); // its caller crashed
                }
                let dep = &mut self.deps[d as usize];
                dep.counters.wasted += 1;
                let deadline = sent_us.saturating_add(dep.timeout_us);
                self.facts.push(Fact::WorkWasted {
                    msg,
                    dependency: d,
                    request,
                    late_by_us: self.now_us.saturating_sub(deadline),
                });
            }
        }
        self.start_requests(d);
    }

    /// The caller of `request` stops waiting: its handler fails.
    pub(super) fn call_timed_out(&mut self, request: u64) {
        let Some(call) = self.calls.remove(&request) else {
            return;
        };
        if !self.caller_waits(&call) {
            // Its caller crashed: the request's answer will find nobody (wasted work).
            self.calls.insert(request, call);
            return;
        }
        let d = call.dependency;
        self.deps[d as usize].counters.timeouts += 1;
        self.facts.push(Fact::CallTimedOut {
            msg: call.msg,
            copy: call.copy,
            consumer: call.consumer,
            dependency: d,
            request,
        });
        self.call_outcome(d, false, call.probe);
        self.finish_work(call.consumer, call.batch, Some(Failure::DependencyTimeout));
    }

    /// Whether a call's timeout still means something: its caller still waits for it.
    pub(super) fn call_timeout_is_live(&self, request: u64) -> bool {
        self.calls
            .get(&request)
            .is_some_and(|c| self.caller_waits(c))
    }
}
