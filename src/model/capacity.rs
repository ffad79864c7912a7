//! The capacity μ that the ρ line and the fluid prediction divide by, and what limits it.
//!
//! A queue's consumers finish at most their handler slots over their service time. But a
//! consumer whose handler calls a dependency (a database, an API) for every message also
//! waits for its answer, and the dependency serves only so many requests at once: what
//! they finish together is the bottleneck, the smaller of the two. Counting the slots
//! alone said "μ = 50,000/s" for a hundred slots at 2 ms in front of a database that
//! serves 100 requests a second, and "ρ < 1: stable" while the run collapsed.
//!
//! The capacity is read from the settings in force (a planned slowdown or outage of the
//! dependency included, so the prediction dips with it); what a run's own dynamics do
//! to a dependency (retries piling up, answers arriving after their callers gave up, a
//! breaker failing calls) is no setting, and is read from its last sample: [`Strain`].

use brokerlab_core::{us_to_secs, DependencySpec, Simulation};

/// What limits the capacity μ.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Limit {
    /// The consumers' handler slots (no dependency, or one with room to spare).
    #[default]
    Consumers,
    /// The dependency named: its callers' slots could finish more than it serves.
    Dependency(String),
    /// The dependency named answers, at the load its callers put on it, later than they
    /// wait for an answer: what it serves is wasted, and its callers finish nothing.
    TooLate(String),
}

impl Limit {
    /// A dependency's limit goes before the slots', and answers too late before both.
    fn rank(&self) -> u8 {
        match self {
            Limit::Consumers => 0,
            Limit::Dependency(_) => 1,
            Limit::TooLate(_) => 2,
        }
    }

    fn worse(self, other: Limit) -> Limit {
        if other.rank() > self.rank() {
            other
        } else {
            self
        }
    }
}

/// Messages per second the consumers can finish, and what limits it.
#[derive(Clone, Debug, PartialEq)]
pub struct Capacity {
    pub per_s: f64,
    pub limit: Limit,
}

/// A consumer as the capacity counts it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Slots {
    /// Batches it handles at once (its concurrency).
    pub slots: u32,
    /// Its own mean service time per message, seconds.
    pub own_s: f64,
    /// Messages per batch (a batch makes one call).
    pub batch: u32,
    /// The dependency it calls, by index.
    pub calls: Option<usize>,
}

/// A dependency at one instant, as the capacity counts it.
#[derive(Clone, Debug, PartialEq)]
pub struct Server {
    pub name: String,
    /// Requests it serves at once.
    pub concurrency: u32,
    /// Mean time of one request served alone, its slowdown at that instant included.
    pub mean_s: f64,
    /// Each other request in service makes a request this share slower.
    pub contention: f64,
    /// How long its callers wait for an answer.
    pub timeout_s: f64,
    /// It refuses every call (an outage window).
    pub out: bool,
}

/// Capacity of consumers given as (messages at a time, mean service seconds): the sum of
/// concurrency / service time. Infinite when one takes no time per message.
pub fn capacity_of(consumers: impl IntoIterator<Item = (u32, f64)>) -> f64 {
    consumers
        .into_iter()
        .map(|(slots, mean_s)| {
            if slots == 0 {
                0.0
            } else if mean_s > 0.0 {
                f64::from(slots) / mean_s
            } else {
                f64::INFINITY
            }
        })
        // Not `sum()`: an empty f64 sum is -0.0, which the page would print as "-0".
        .fold(0.0, |a, b| a + b)
}

impl Server {
    /// A dependency as its scenario describes it at the start of the run (a slowdown or
    /// an outage from 0 s on included).
    pub fn at_start(spec: &DependencySpec) -> Self {
        let slow: f64 = spec
            .slowdowns
            .iter()
            .filter(|w| w.from_s <= 0.0 && 0.0 < w.until_s)
            .map(|w| w.factor)
            .product();
        Server {
            name: spec.name.clone(),
            concurrency: spec.concurrency,
            mean_s: spec.service.mean_s() * slow,
            contention: spec.contention,
            timeout_s: spec.timeout_s,
            out: spec
                .outages
                .iter()
                .any(|o| o.from_s <= 0.0 && 0.0 < o.until_s),
        }
    }
}

/// The bottleneck of `consumers` calling `servers`: per dependency, the smaller of its
/// callers' capacity and its own; plus the consumers that call nothing.
///
/// What one message costs a dependency: one call (a batch shares one), so the
/// dependency finishes at most its calls per second times the batch. Its callers can
/// keep at most their slots' worth of requests in service, so contention is counted at
/// that many (or its concurrency, if fewer); each request then takes
/// `mean × (1 + contention × (n − 1))`, and a slot is held for its own work plus that
/// wait. Retries only add calls, never capacity, so they are left to [`Strain`].
///
/// The callers' timeout changes what a call is worth: an answer that comes after its
/// caller gave up is wasted work, and the caller's slot is freed only to retry. When one
/// request at that load takes longer on average than the callers wait, the answers come
/// too late (every one of them with a fixed service time; more than a third with an
/// exponential one), and each late one returns as a retry that lengthens the line for
/// the next: such a dependency is counted as finishing nothing, rather than pretending
/// a share of answers outlives the retries it causes.
///
/// Left to [`Strain`], being the run's state rather than its settings: abandoned
/// requests still in service (they raise the contention past what the callers' slots
/// explain), and a circuit breaker, which changes nothing while closed (its normal
/// state) and, open, fails calls at once.
pub fn bottleneck(consumers: &[Slots], servers: &[Server]) -> Capacity {
    let own = consumers
        .iter()
        .filter(|c| c.calls.is_none_or(|d| d >= servers.len()))
        .map(|c| (c.slots, c.own_s));
    let mut per_s = capacity_of(own);
    let mut limit = Limit::Consumers;
    for (d, server) in servers.iter().enumerate() {
        let callers: Vec<&Slots> = consumers.iter().filter(|c| c.calls == Some(d)).collect();
        let slots = callers.iter().fold(0u32, |n, c| n.saturating_add(c.slots));
        if slots == 0 {
            continue;
        }
        // Requests its callers can keep in service at once while they wait for them.
        let batches = slots.min(server.concurrency);
        let each_s = server.mean_s * (1.0 + server.contention * (f64::from(batches) - 1.0));
        let callers_per_s = callers
            .iter()
            .map(|c| {
                let batch = f64::from(c.batch.max(1));
                let held_s = batch * c.own_s + each_s;
                if c.slots == 0 {
                    0.0
                } else if held_s > 0.0 {
                    f64::from(c.slots) * batch / held_s
                } else {
                    f64::INFINITY
                }
            })
            .fold(0.0, |a, b| a + b);
        let per_call = callers.iter().map(|c| c.batch.max(1)).min().unwrap_or(1);
        let (served_per_s, server_limit) = if server.out {
            (0.0, Limit::Dependency(server.name.clone()))
        } else if each_s > server.timeout_s {
            (0.0, Limit::TooLate(server.name.clone()))
        } else if each_s > 0.0 {
            let calls_per_s = f64::from(batches) / each_s;
            let per_s = calls_per_s * f64::from(per_call);
            (per_s, Limit::Dependency(server.name.clone()))
        } else {
            (f64::INFINITY, Limit::Consumers)
        };
        if served_per_s < callers_per_s {
            per_s += served_per_s;
            limit = limit.worse(server_limit);
        } else {
            per_s += callers_per_s;
        }
    }
    Capacity { per_s, limit }
}

/// The queue consumers that take deliveries now: a crashed one that will restart counts;
/// one scaled in, or down for good, does not. A slowed one takes its slowdown's longer
/// time (its card says "slowed ×4"; the ρ line said "stable" while the backlog grew).
pub fn counted_consumers(sim: &Simulation) -> Vec<Slots> {
    sim.consumer_ids()
        .filter_map(|c| sim.consumer(c))
        .filter(|c| !c.retiring && !c.stopped && (c.up || c.restart_at_us.is_some()))
        .map(|c| Slots {
            slots: c.concurrency,
            own_s: c.service_mean_s * c.slow_factor,
            batch: c.batch_size,
            calls: c.dependency.map(|d| d as usize),
        })
        .collect()
}

/// The dependencies at instant `at_us`, their slowdown and outage read from `phases`
/// (each one's `Simulation::dependency_phases`).
fn servers_at(sim: &Simulation, phases: &[Vec<(u64, f64, bool)>], at_us: u64) -> Vec<Server> {
    let specs = &sim.scenario().dependencies;
    (0..sim.dependency_count())
        .filter_map(|d| {
            let view = sim.dependency(d)?;
            let (slow, out) = phases
                .get(d as usize)
                .and_then(|p| p.iter().rev().find(|&&(from, _, _)| from <= at_us))
                .map_or((view.slow_factor, false), |&(_, slow, out)| (slow, out));
            Some(Server {
                name: view.name,
                concurrency: view.concurrency,
                mean_s: view.service_mean_s * slow,
                contention: specs.get(d as usize).map_or(0.0, |s| s.contention),
                timeout_s: view.timeout_s,
                out,
            })
        })
        .collect()
}

/// The queue consumers' capacity from now on, as the settings in force have it: a corner
/// now and wherever a dependency's planned slowdown or outage starts or ends. Each
/// `(from_s, capacity)` holds until the next.
pub fn schedule(sim: &Simulation) -> Vec<(f64, Capacity)> {
    let consumers = counted_consumers(sim);
    let phases: Vec<Vec<(u64, f64, bool)>> = (0..sim.dependency_count())
        .map(|d| sim.dependency_phases(d))
        .collect();
    let mut corners: Vec<u64> = phases.iter().flatten().map(|&(t, _, _)| t).collect();
    corners.push(sim.now_us());
    corners.sort_unstable();
    corners.dedup();
    let mut out: Vec<(f64, Capacity)> = Vec::with_capacity(corners.len());
    for at in corners {
        let capacity = bottleneck(&consumers, &servers_at(sim, &phases, at));
        // A corner that changes nothing (a slowdown that does not limit) is left out.
        if out.last().is_none_or(|(_, last)| *last != capacity) {
            out.push((us_to_secs(at), capacity));
        }
    }
    out
}

/// The queue consumers' capacity now.
pub fn now(sim: &Simulation) -> Capacity {
    let phases: Vec<Vec<(u64, f64, bool)>> = (0..sim.dependency_count())
        .map(|d| sim.dependency_phases(d))
        .collect();
    bottleneck(
        &counted_consumers(sim),
        &servers_at(sim, &phases, sim.now_us()),
    )
}

/// At least this share of failed calls is no passing blip: a healthy dependency in the
/// built-in examples fails a few percent (its slowest answers timing out), while one in
/// a retry storm, behind an open breaker or shedding load fails most of them.
pub const ERROR_RATE_HIGH: f64 = 0.25;

/// A dependency its consumers call that is in trouble now, over the last sample
/// interval: offered more calls (retries included) than it can serve, or failing a
/// large share of them. ρ counts each message once; a dependency's retries can load it
/// well past its capacity while ρ stays below 1, and its callers then finish nothing
/// useful: the ρ line must not call that stable.
#[derive(Clone, Debug, PartialEq)]
pub struct Strain {
    pub name: String,
    /// Calls per second it was offered, retries included.
    pub offered_per_s: f64,
    /// What it completes per second with every slot busy, at its slowdown now.
    pub capacity_per_s: f64,
    /// Failed calls over calls tried (0–1).
    pub error_rate: f64,
    /// Offered more than its capacity.
    pub overloaded: bool,
}

impl Strain {
    fn severity(&self) -> (bool, f64) {
        (self.overloaded, self.error_rate)
    }
}

/// The dependency in the worst trouble now among those a counted consumer calls (an
/// overloaded one first, then the highest error rate), if any is in trouble.
pub fn strain(sim: &Simulation) -> Option<Strain> {
    // Read on every frame: a run without dependencies pays nothing more.
    if sim.dependency_count() == 0 {
        return None;
    }
    let called: Vec<usize> = counted_consumers(sim)
        .iter()
        .filter_map(|c| c.calls)
        .collect();
    (0..sim.dependency_count())
        .filter(|&d| called.contains(&(d as usize)))
        .filter_map(|d| {
            let load = sim.dependency_load(d)?;
            let error_rate = sim.dependency_series(d).last()?.error_rate;
            let troubled = load.overloaded || error_rate >= ERROR_RATE_HIGH;
            troubled.then_some(())?;
            Some(Strain {
                name: sim.dependency(d)?.name,
                offered_per_s: load.offered_per_s,
                capacity_per_s: load.capacity_per_s,
                error_rate,
                overloaded: load.overloaded,
            })
        })
        .max_by(|a, b| {
            let (a, b) = (a.severity(), b.severity());
            a.0.cmp(&b.0).then(a.1.total_cmp(&b.1))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db(concurrency: u32, mean_s: f64, timeout_s: f64) -> Server {
        Server {
            name: "db".into(),
            concurrency,
            mean_s,
            contention: 0.0,
            timeout_s,
            out: false,
        }
    }

    fn calling(slots: u32, own_s: f64) -> Slots {
        Slots {
            slots,
            own_s,
            batch: 1,
            calls: Some(0),
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn without_a_dependency_the_slots_are_the_capacity() {
        let free = Slots {
            calls: None,
            ..calling(4, 0.5)
        };
        let c = bottleneck(&[free, free], &[]);
        assert_eq!(
            c,
            Capacity {
                per_s: 16.0,
                limit: Limit::Consumers
            }
        );
        assert_eq!(bottleneck(&[], &[]).per_s, 0.0);
    }

    #[test]
    fn a_slow_dependency_is_the_bottleneck() {
        // A hundred slots at 2 ms in front of 10 connections at 0.1 s: 100/s.
        let c = bottleneck(&[calling(100, 0.002)], &[db(10, 0.1, 0.5)]);
        assert!(close(c.per_s, 100.0), "{c:?}");
        assert_eq!(c.limit, Limit::Dependency("db".into()));
        // Two slots cannot keep ten connections busy: each waits 0.1 s for its answer.
        let c = bottleneck(&[calling(2, 0.002)], &[db(10, 0.1, 0.5)]);
        assert!(close(c.per_s, 2.0 / 0.102), "{c:?}");
        assert_eq!(c.limit, Limit::Consumers);
        // A batch of 5 makes one call: the dependency's calls carry five messages each.
        let batched = Slots {
            batch: 5,
            ..calling(100, 0.002)
        };
        let c = bottleneck(&[batched], &[db(10, 0.1, 0.5)]);
        assert!(close(c.per_s, 500.0), "{c:?}");
    }

    #[test]
    fn answers_later_than_the_timeout_are_worth_nothing() {
        // dep-scale-out after 20 s: 50 requests in service at 0.01 s × (1 + 0.2 × 49).
        let server = Server {
            contention: 0.2,
            ..db(100, 0.01, 0.1)
        };
        let c = bottleneck(&[calling(50, 0.001)], std::slice::from_ref(&server));
        assert_eq!(
            c,
            Capacity {
                per_s: 0.0,
                limit: Limit::TooLate("db".into())
            }
        );
        // Before, 10 in service take 0.028 s each: the slots, waiting for it, limit.
        let c = bottleneck(&[calling(10, 0.001)], &[server]);
        assert!(close(c.per_s, 10.0 / 0.029), "{c:?}");
        assert_eq!(c.limit, Limit::Consumers);
    }

    #[test]
    fn examples_without_a_dependency_keep_the_consumers_capacity() {
        // The queueing examples (mm1, burst, the backlog lessons' …) divide by the same μ
        // as before: their slots over their service time, nothing else, and no strain.
        let mut checked = 0;
        for name in brokerlab_core::examples::names() {
            let scenario = brokerlab_core::examples::load(name).expect("built in");
            if !scenario.dependencies.is_empty() {
                continue;
            }
            // An aggregated example has no per-message run to read.
            let Ok(mut sim) = Simulation::new(scenario) else {
                continue;
            };
            for _ in 0..200 {
                sim.step();
            }
            let slots = counted_consumers(&sim)
                .iter()
                .map(|c| (c.slots, c.own_s))
                .collect::<Vec<_>>();
            let expected = Capacity {
                per_s: capacity_of(slots),
                limit: Limit::Consumers,
            };
            assert_eq!(now(&sim), expected, "{name}");
            let at = us_to_secs(sim.now_us());
            assert_eq!(schedule(&sim), vec![(at, expected)], "{name}");
            assert_eq!(strain(&sim), None, "{name}");
            checked += 1;
        }
        assert!(checked > 30, "{checked}");
    }

    #[test]
    fn a_database_s_planned_slowdown_is_a_corner_of_the_capacity() {
        let scenario = brokerlab_core::examples::load("dep-metastable").expect("built in");
        let sim = Simulation::new(scenario).expect("valid");
        let corners: Vec<(f64, f64)> = schedule(&sim).iter().map(|(t, c)| (*t, c.per_s)).collect();
        // 10 connections at 0.1 s, five times slower from 10 s to 13 s.
        assert_eq!(corners, [(0.0, 100.0), (10.0, 20.0), (13.0, 100.0)]);
        assert_eq!(now(&sim).limit, Limit::Dependency("db".into()));
    }

    #[test]
    fn an_outage_serves_nothing_and_other_consumers_still_count() {
        let free = Slots {
            calls: None,
            ..calling(1, 0.5)
        };
        let out = Server {
            out: true,
            ..db(10, 0.1, 0.5)
        };
        let c = bottleneck(&[calling(100, 0.002), free], &[out]);
        assert_eq!(
            c,
            Capacity {
                per_s: 2.0,
                limit: Limit::Dependency("db".into())
            }
        );
    }
}
