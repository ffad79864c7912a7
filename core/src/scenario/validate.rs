//! [`Scenario::validate`]: every value and size checked, and every name resolved, before a
//! simulation is built from a scenario.

use super::{
    check_count, check_len, check_prose, check_range, check_text, dependency, err, limits,
    unsupported_version, Command, CommitMode, ConsumerSpec, GroupSpec, Handoff, Op, Ordering,
    ProducerSpec, QueueSpec, RateSegment, RetryPolicy, Scenario, ScenarioError, ScriptedMessage,
    ServiceTime, SCENARIO_VERSION,
};

impl Scenario {
    /// Checks every value and bound; the first problem found is returned.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        use limits::*;
        if self.version != SCENARIO_VERSION {
            return Err(unsupported_version(u64::from(self.version)));
        }
        check_text("name", &self.name, NAME_LEN_MAX)?;
        check_prose("description", &self.description, TEXT_LEN_MAX)?;
        check_range("sample_every_s", self.sample_every_s, 0.001, TIME_S_MAX)?;
        if let Some(end) = self.end_s {
            check_range("end_s", end, 0.0, TIME_S_MAX)?;
        }
        check_range(
            "broker.network_latency_s",
            self.broker.network_latency_s,
            0.0,
            3600.0,
        )?;
        self.validate_queues()?;
        if self.producers.is_empty() {
            return Err(err("producers", "needs at least one producer"));
        }
        check_len("producers", &self.producers, PRODUCERS_MAX)?;
        // Commands first: the message estimate below follows their arrival changes.
        check_len("commands", &self.commands, FAULTS_MAX)?;
        for (i, f) in self.commands.iter().enumerate() {
            check_range(&format!("commands[{i}].at_s"), f.at_s, 0.0, TIME_S_MAX)?;
            self.validate_command(&format!("commands[{i}].command"), &f.command)?;
        }
        check_len("interventions", &self.interventions, INTERVENTIONS_MAX)?;
        let mut last = (0, 0);
        for (i, iv) in self.interventions.iter().enumerate() {
            if iv.after_step < last.0 || iv.at_us < last.1 {
                return Err(err(
                    format!("interventions[{i}]"),
                    "after_step and at_us must not decrease",
                ));
            }
            last = (iv.after_step, iv.at_us);
            self.validate_recorded_command(&format!("interventions[{i}].command"), &iv.command)?;
        }
        self.validate_member_growth()?;
        for (i, p) in self.producers.iter().enumerate() {
            self.validate_producer(i, p)?;
        }
        self.validate_producer_names()?;
        self.validate_dependencies()?;
        self.validate_consumers()?;
        self.validate_logs()?;
        self.validate_publishers()?;
        // After the groups' own counts, which it starts from.
        self.validate_member_commands()?;
        // Last: the estimate reads names and counts the checks above have bounded.
        self.run_mode().map(|_| ())
    }

    /// Each destination's `publishers` name producers of the scenario: a typo would
    /// refuse a producer's every publish without a word of why.
    fn validate_publishers(&self) -> Result<(), ScenarioError> {
        for (kind, i, publishers) in self.publisher_lists() {
            check_len(
                &format!("{kind}[{i}].publishers"),
                publishers,
                limits::PRODUCERS_MAX,
            )?;
            for (k, name) in publishers.iter().enumerate() {
                // Bounded and visible first: the refusal below echoes it.
                check_text(
                    &format!("{kind}[{i}].publishers[{k}]"),
                    name,
                    limits::NAME_LEN_MAX,
                )?;
                let known = (0..self.producers.len())
                    .any(|p| crate::names::producer(&self.producers[p].name, p) == *name);
                if !known {
                    return Err(err(
                        format!("{kind}[{i}].publishers[{k}]"),
                        format!("there is no producer {name:?}"),
                    ));
                }
            }
        }
        Ok(())
    }

    fn validate_dependencies(&self) -> Result<(), ScenarioError> {
        check_len(
            "dependencies",
            &self.dependencies,
            dependency::DEPENDENCIES_MAX,
        )?;
        for (i, d) in self.dependencies.iter().enumerate() {
            let field = format!("dependencies[{i}]");
            dependency::validate(&field, d)?;
            if self.dependencies[..i].iter().any(|o| o.name == d.name) {
                return Err(err(
                    format!("{field}.name"),
                    "another dependency has this name",
                ));
            }
        }
        Ok(())
    }

    /// Members a group may gain by commands: each join rebalances over every member, so
    /// a group never grows past `MEMBERS_MAX`.
    fn validate_member_growth(&self) -> Result<(), ScenarioError> {
        for (g, spec) in self.groups.iter().enumerate() {
            let joins = self
                .commands
                .iter()
                .map(|f| &f.command)
                .chain(self.interventions.iter().map(|iv| &iv.command))
                .filter(|f| matches!(f, Command::AddMember { group } if (*group).index() == g))
                .count() as u64;
            if u64::from(spec.members) + joins > u64::from(limits::MEMBERS_MAX) {
                return Err(err(
                    format!("groups[{g}].members"),
                    format!(
                        "{} members and {joins} joins: at most {} in a group",
                        spec.members,
                        limits::MEMBERS_MAX
                    ),
                ));
            }
        }
        Ok(())
    }

    fn validate_queues(&self) -> Result<(), ScenarioError> {
        use limits::*;
        if self.queues.is_empty() && self.logs.is_empty() {
            return Err(err("queues", "needs at least one queue or log"));
        }
        check_len("queues", &self.queues, QUEUES_MAX)?;
        for (i, q) in self.queues.iter().enumerate() {
            self.validate_queue(i, q)?;
        }
        self.validate_exchanges()
    }

    /// Queue `i`: a unique name, and its timeouts and limits in range.
    fn validate_queue(&self, i: usize, q: &QueueSpec) -> Result<(), ScenarioError> {
        use limits::*;
        let f = |name: &str| format!("queues[{i}].{name}");
        if q.name.is_empty() {
            return Err(err(f("name"), "must not be empty"));
        }
        check_text(&f("name"), &q.name, NAME_LEN_MAX)?;
        if self.queues[..i].iter().any(|o| o.name == q.name) {
            return Err(err(f("name"), format!("{:?} is used twice", q.name)));
        }
        check_range(
            &f("visibility_timeout_s"),
            q.visibility_timeout_s,
            0.000_001,
            TIME_S_MAX,
        )?;
        if let Some(n) = q.max_length {
            check_count(&f("max_length"), n, 1, LENGTH_MAX)?;
        }
        if let Some(t) = q.ttl_s {
            check_range(&f("ttl_s"), t, 0.000_001, TIME_S_MAX)?;
        }
        if let Some(t) = q.max_oldest_age_s {
            check_range(&f("max_oldest_age_s"), t, 0.000_001, TIME_S_MAX)?;
        }
        if let Some(n) = q.delivery_limit {
            check_count(
                &f("delivery_limit"),
                u64::from(n),
                1,
                u64::from(ATTEMPTS_MAX),
            )?;
        }
        if let Some(n) = q.max_receive_count {
            check_count(
                &f("max_receive_count"),
                u64::from(n),
                1,
                u64::from(ATTEMPTS_MAX),
            )?;
        }
        if let Some(t) = q.dedup_window_s {
            check_range(&f("dedup_window_s"), t, 0.0, TIME_S_MAX)?;
        }
        if let Some(p) = q.duplicate_p {
            check_range(&f("duplicate_p"), p, 0.0, 0.5)?;
        }
        if let Some(t) = q.consumer_timeout_s {
            check_range(&f("consumer_timeout_s"), t, 0.000_001, TIME_S_MAX)?;
        }
        Ok(())
    }

    /// Exchanges: unique names (not a queue's either), bindings to queues that exist.
    fn validate_exchanges(&self) -> Result<(), ScenarioError> {
        use limits::*;
        check_len("exchanges", &self.exchanges, EXCHANGES_MAX)?;
        for (i, x) in self.exchanges.iter().enumerate() {
            let f = |name: &str| format!("exchanges[{i}].{name}");
            if x.name.is_empty() {
                return Err(err(f("name"), "must not be empty"));
            }
            check_text(&f("name"), &x.name, NAME_LEN_MAX)?;
            if self.queue_index(&x.name).is_some()
                || self.exchanges[..i].iter().any(|o| o.name == x.name)
            {
                return Err(err(
                    f("name"),
                    format!("{:?} is already the name of a queue or exchange", x.name),
                ));
            }
            check_len(&f("bindings"), &x.bindings, BINDINGS_MAX)?;
            for (k, b) in x.bindings.iter().enumerate() {
                check_text(&f(&format!("bindings[{k}].key")), &b.key, NAME_LEN_MAX * 4)?;
                if self.queue_index(&b.queue).is_none() {
                    return Err(err(
                        f(&format!("bindings[{k}].queue")),
                        format!("there is no queue {:?}", b.queue),
                    ));
                }
            }
        }
        Ok(())
    }

    fn validate_logs(&self) -> Result<(), ScenarioError> {
        use limits::*;
        check_len("logs", &self.logs, LOGS_MAX)?;
        for (i, l) in self.logs.iter().enumerate() {
            let f = |name: &str| format!("logs[{i}].{name}");
            if l.name.is_empty() {
                return Err(err(f("name"), "must not be empty"));
            }
            check_text(&f("name"), &l.name, NAME_LEN_MAX)?;
            if self.queue_index(&l.name).is_some()
                || self.exchanges.iter().any(|x| x.name == l.name)
                || self.logs[..i].iter().any(|o| o.name == l.name)
            {
                return Err(err(
                    f("name"),
                    format!(
                        "{:?} is already the name of a queue, exchange or log",
                        l.name
                    ),
                ));
            }
            check_count(
                &f("partitions"),
                u64::from(l.partitions),
                1,
                u64::from(PARTITIONS_MAX),
            )?;
            if let Some(t) = l.retention_s {
                check_range(&f("retention_s"), t, 0.000_001, TIME_S_MAX)?;
            }
            if let Some(n) = l.retention_records {
                check_count(&f("retention_records"), n, 1, LENGTH_MAX)?;
            }
        }
        check_len("groups", &self.groups, GROUPS_MAX)?;
        for (i, g) in self.groups.iter().enumerate() {
            let f = |name: &str| format!("groups[{i}].{name}");
            check_text(&f("name"), &g.name, NAME_LEN_MAX)?;
            // A group's cards, its members (named after it: "billing-1") and the
            // narration tell groups apart by name (older files: see `migrate.rs`).
            if self.groups[..i].iter().any(|o| o.name == g.name) {
                return Err(err(f("name"), format!("{:?} is used twice", g.name)));
            }
            if self.log_index(&g.log).is_none() {
                return Err(err(f("log"), format!("there is no log {:?}", g.log)));
            }
            check_count(
                &f("members"),
                u64::from(g.members),
                1,
                u64::from(MEMBERS_MAX),
            )?;
            match g.service {
                ServiceTime::Fixed { seconds } => {
                    check_range(&f("service.fixed.seconds"), seconds, 0.0, TIME_S_MAX)?
                }
                ServiceTime::Exponential { mean_s } => check_range(
                    &f("service.exponential.mean_s"),
                    mean_s,
                    0.000_001,
                    TIME_S_MAX,
                )?,
            }
            if let CommitMode::Auto { every_s } = g.commit {
                check_range(&f("commit.auto.every_s"), every_s, 0.001, TIME_S_MAX)?;
            }
            check_range(&f("rebalance_s"), g.rebalance_s, 0.0, TIME_S_MAX)?;
            if let Some(t) = g.max_message_age_s {
                check_range(&f("max_message_age_s"), t, 0.000_001, TIME_S_MAX)?;
            }
            if let Some(s) = g.session_timeout_s {
                check_range(&f("session_timeout_s"), s, 0.001, TIME_S_MAX)?;
            }
            if let Some(s) = g.transaction_timeout_s {
                check_range(&f("transaction_timeout_s"), s, 0.001, TIME_S_MAX)?;
            }
            if let Some(s) = g.max_poll_interval_s {
                check_range(&f("max_poll_interval_s"), s, 0.001, TIME_S_MAX)?;
            }
            if !g.output.is_empty() && self.log_index(&g.output).is_none() {
                return Err(err(f("output"), format!("there is no log {:?}", g.output)));
            }
            if g.output == g.log && !g.output.is_empty() {
                return Err(err(f("output"), "a group cannot write to the log it reads"));
            }
            if g.transactional && (g.output.is_empty() || g.commit != CommitMode::AfterProcessing) {
                return Err(err(
                    f("transactional"),
                    "needs an output log and commit after_processing",
                ));
            }
            self.validate_group_failures(i, g)?;
        }
        self.validate_log_rings()
    }

    /// A group's failure model: ordering, failures, retries, dead-letter log.
    fn validate_group_failures(&self, i: usize, g: &GroupSpec) -> Result<(), ScenarioError> {
        use limits::*;
        let f = |name: &str| format!("groups[{i}].{name}");
        if !matches!(g.ordering, Ordering::None | Ordering::IgnoreStale) {
            // A partition already delivers one key in order; a gap means another partition
            // or a lost record, which a blocked partition would wait for without end.
            return Err(err(f("ordering"), "a group supports none or ignore_stale"));
        }
        check_range(&f("failures.transient_p"), g.failures.transient_p, 0.0, 1.0)?;
        check_len(&f("failures.outages"), &g.failures.outages, OUTAGES_MAX)?;
        for (k, o) in g.failures.outages.iter().enumerate() {
            let at = |name: &str| f(&format!("failures.outages[{k}].{name}"));
            check_range(&at("from_s"), o.from_s, 0.0, TIME_S_MAX)?;
            check_range(&at("until_s"), o.until_s, o.from_s, TIME_S_MAX)?;
        }
        validate_retry(&f("retry"), &g.retry)?;
        if !g.dead_letter.is_empty() {
            if self.log_index(&g.dead_letter).is_none() {
                let msg = format!("there is no log {:?}", g.dead_letter);
                return Err(err(f("dead_letter"), msg));
            }
            if g.dead_letter == g.log {
                return Err(err(
                    f("dead_letter"),
                    "a group cannot dead-letter to its own log",
                ));
            }
        }
        Ok(())
    }

    fn validate_consumers(&self) -> Result<(), ScenarioError> {
        use limits::*;
        if self.consumers.is_empty() && self.groups.is_empty() {
            return Err(err(
                "consumers",
                "needs at least one consumer or consumer group",
            ));
        }
        if !self.consumers.is_empty() && self.queues.is_empty() {
            return Err(err("consumers", "consumers read queues, and there is none"));
        }
        for (i, c) in self.consumers.iter().enumerate() {
            self.validate_consumer(i, c)?;
        }
        let total: u64 = self.consumers.iter().map(|c| u64::from(c.replicas)).sum();
        if total > CONSUMERS_MAX as u64 {
            return Err(err(
                "consumers",
                format!("at most {CONSUMERS_MAX} consumers in all (replicas included)"),
            ));
        }
        self.validate_consumer_names()?;
        self.validate_ack_modes()
    }

    /// Every consumer has a name of its own: the page's cards and crash buttons, the
    /// schedule and the narration tell consumers apart by name. Names are compared as
    /// they are shown, replicas and unnamed consumers numbered (`crate::names`), so "C"
    /// with 2 replicas clashes with a "C2" as surely as two "C1" do. Files written before
    /// version 4 could hold such clashes: `migrate.rs` renames them on load, so only a
    /// current file (or an edit on the page) meets this refusal.
    fn validate_consumer_names(&self) -> Result<(), ScenarioError> {
        let names =
            crate::names::consumers(self.consumers.iter().map(|c| (c.name.as_str(), c.replicas)));
        let Some((i, name)) = crate::names::first_clash(&names) else {
            return Ok(());
        };
        // Both written as they are shown (named, one replica each): the plain sentence.
        let written = |c: &ConsumerSpec| c.replicas == 1 && c.name == name;
        let field = format!("consumers[{i}].name");
        if written(&self.consumers[i]) && self.consumers[..i].iter().any(written) {
            Err(err(field, format!("{name:?} is used twice")))
        } else {
            Err(err(
                field,
                format!("{name:?} is used twice (replicas and unnamed consumers are numbered)"),
            ))
        }
    }

    /// Every producer has a name of its own (see [`Self::validate_consumer_names`]; an
    /// unnamed producer is P1, P2… by its place).
    fn validate_producer_names(&self) -> Result<(), ScenarioError> {
        let names: Vec<Vec<String>> = (self.producers.iter().enumerate())
            .map(|(i, p)| vec![crate::names::producer(&p.name, i)])
            .collect();
        let Some((i, name)) = crate::names::first_clash(&names) else {
            return Ok(());
        };
        let written = |p: &ProducerSpec| p.name == name;
        let field = format!("producers[{i}].name");
        if written(&self.producers[i]) && self.producers[..i].iter().any(written) {
            Err(err(field, format!("{name:?} is used twice")))
        } else {
            Err(err(
                field,
                format!("{name:?} is used twice (unnamed producers are numbered P1, P2…)"),
            ))
        }
    }

    /// Consumer `i`: its queue exists; replicas, concurrency, prefetch, batches, service,
    /// failures and retries in range.
    fn validate_consumer(&self, i: usize, c: &ConsumerSpec) -> Result<(), ScenarioError> {
        use limits::*;
        let f = |name: &str| format!("consumers[{i}].{name}");
        check_text(&f("name"), &c.name, NAME_LEN_MAX)?;
        if !c.queue.is_empty() && self.queue_index(&c.queue).is_none() {
            return Err(err(f("queue"), format!("there is no queue {:?}", c.queue)));
        }
        check_count(
            &f("replicas"),
            u64::from(c.replicas),
            1,
            CONSUMERS_MAX as u64,
        )?;
        if let Some(t) = c.max_message_age_s {
            check_range(&f("max_message_age_s"), t, 0.000_001, TIME_S_MAX)?;
        }
        if let Some(t) = c.gap_timeout_s {
            check_range(&f("gap_timeout_s"), t, 0.000_001, TIME_S_MAX)?;
        }
        check_count(
            &f("concurrency"),
            u64::from(c.concurrency),
            1,
            u64::from(CONCURRENCY_MAX),
        )?;
        check_count(
            &f("prefetch"),
            u64::from(c.prefetch),
            1,
            u64::from(PREFETCH_MAX),
        )?;
        check_count(
            &f("batch_size"),
            u64::from(c.batch_size),
            1,
            u64::from(c.prefetch),
        )?;
        validate_service(&f("service"), &c.service)?;
        check_range(&f("failures.transient_p"), c.failures.transient_p, 0.0, 1.0)?;
        check_len(&f("failures.outages"), &c.failures.outages, OUTAGES_MAX)?;
        for (k, o) in c.failures.outages.iter().enumerate() {
            check_range(
                &f(&format!("failures.outages[{k}].from_s")),
                o.from_s,
                0.0,
                TIME_S_MAX,
            )?;
            check_range(
                &f(&format!("failures.outages[{k}].until_s")),
                o.until_s,
                o.from_s,
                TIME_S_MAX,
            )?;
        }
        validate_retry(&f("retry"), &c.retry)?;
        if !c.calls.is_empty() && self.dependency_index(&c.calls).is_none() {
            return Err(err(
                f("calls"),
                format!("there is no dependency {:?}", c.calls),
            ));
        }
        Ok(())
    }

    /// One ack contract per queue: mixing them would let a leased delivery outlive the
    /// loss of an auto-acked one, a fate no broker reports.
    fn validate_ack_modes(&self) -> Result<(), ScenarioError> {
        for (i, c) in self.consumers.iter().enumerate() {
            let q = self.queue_of(c);
            if self.consumers[..i]
                .iter()
                .any(|o| self.queue_of(o) == q && o.ack != c.ack)
            {
                return Err(err(
                    format!("consumers[{i}].ack"),
                    "all consumers of a queue must use the same ack mode",
                ));
            }
        }
        Ok(())
    }

    /// Validates one producer and returns an upper estimate of the messages it publishes.
    fn validate_producer(&self, i: usize, p: &ProducerSpec) -> Result<u64, ScenarioError> {
        use limits::*;
        let f = |name: &str| format!("producers[{i}].{name}");
        check_text(&f("name"), &p.name, NAME_LEN_MAX)?;
        if !p.target.is_empty()
            && self.queue_index(&p.target).is_none()
            && self.log_index(&p.target).is_none()
            && !self.exchanges.iter().any(|x| x.name == p.target)
        {
            return Err(err(
                f("target"),
                format!("there is no queue, exchange or log {:?}", p.target),
            ));
        }
        check_len(&f("routing_keys"), &p.routing_keys, ROUTING_KEYS_MAX)?;
        for (k, key) in p.routing_keys.iter().enumerate() {
            check_text(&f(&format!("routing_keys[{k}]")), key, NAME_LEN_MAX * 4)?;
        }
        check_count(
            &f("payload.keys"),
            u64::from(p.payload.keys),
            0,
            u64::from(KEYS_MAX),
        )?;
        check_range(
            &f("payload.hot_key_share"),
            p.payload.hot_key_share,
            0.0,
            1.0,
        )?;
        check_range(&f("payload.poison_share"), p.payload.poison_share, 0.0, 1.0)?;
        check_op(&f("payload.op"), p.payload.op)?;
        let pb = &p.publish;
        check_range(
            &f("publish.confirm_timeout_s"),
            pb.confirm_timeout_s,
            0.000_001,
            TIME_S_MAX,
        )?;
        check_range(
            &f("publish.delivery_timeout_s"),
            pb.delivery_timeout_s,
            0.000_001,
            TIME_S_MAX,
        )?;
        check_count(
            &f("publish.max_attempts"),
            u64::from(pb.max_attempts),
            1,
            u64::from(ATTEMPTS_MAX),
        )?;
        if let Handoff::Outbox { relay_poll_s, .. } = p.handoff {
            check_range(
                &f("handoff.outbox.relay_poll_s"),
                relay_poll_s,
                0.000_001,
                TIME_S_MAX,
            )?;
        }
        validate_script(&f("script"), &p.script)?;
        if !p.script.is_empty() {
            return Ok(p.script.len() as u64);
        }
        validate_schedule(&f("arrivals.schedule"), &p.arrivals.schedule)?;
        let estimate = self.message_bound(i);
        if !estimate.is_finite() {
            return Err(err(
                f("count"),
                "the producer never stops: give it a count, end its schedule with rate 0, or set end_s",
            ));
        }
        Ok(estimate.min(u64::MAX as f64) as u64)
    }
}

/// A rate schedule: 1 to SEGMENTS_MAX segments, the first at 0, starts increasing.
pub(super) fn validate_schedule(
    field: &str,
    schedule: &[RateSegment],
) -> Result<(), ScenarioError> {
    use limits::*;
    if schedule.is_empty() || schedule.len() > SEGMENTS_MAX {
        return Err(err(field, format!("needs 1 to {SEGMENTS_MAX} segments")));
    }
    let mut prev = None;
    for (k, seg) in schedule.iter().enumerate() {
        let g = format!("{field}[{k}]");
        check_range(&format!("{g}.from_s"), seg.from_s, 0.0, TIME_S_MAX)?;
        check_range(
            &format!("{g}.rate_per_s"),
            seg.rate_per_s,
            0.0,
            RATE_PER_S_MAX,
        )?;
        if seg.rate_per_s > 0.0 && seg.rate_per_s < RATE_PER_S_MIN {
            return Err(err(
                format!("{g}.rate_per_s"),
                format!("a positive rate must be at least {RATE_PER_S_MIN} (use 0 to stop)"),
            ));
        }
        match prev {
            None if seg.from_s != 0.0 => {
                return Err(err(
                    format!("{g}.from_s"),
                    "the first segment must start at 0",
                ))
            }
            Some(p) if seg.from_s <= p => {
                return Err(err(
                    format!("{g}.from_s"),
                    "segments must start in increasing order",
                ))
            }
            _ => {}
        }
        prev = Some(seg.from_s);
    }
    Ok(())
}

pub(crate) fn validate_service(field: &str, service: &ServiceTime) -> Result<(), ScenarioError> {
    match *service {
        ServiceTime::Fixed { seconds } => check_range(
            &format!("{field}.fixed.seconds"),
            seconds,
            0.0,
            limits::TIME_S_MAX,
        ),
        ServiceTime::Exponential { mean_s } => check_range(
            &format!("{field}.exponential.mean_s"),
            mean_s,
            0.000_001,
            limits::TIME_S_MAX,
        ),
    }
}

pub(super) fn validate_retry(field: &str, r: &RetryPolicy) -> Result<(), ScenarioError> {
    check_count(
        &format!("{field}.max_attempts"),
        u64::from(r.max_attempts),
        1,
        u64::from(limits::ATTEMPTS_MAX),
    )?;
    check_range(
        &format!("{field}.backoff_base_s"),
        r.backoff_base_s,
        0.0,
        limits::TIME_S_MAX,
    )?;
    check_range(
        &format!("{field}.backoff_cap_s"),
        r.backoff_cap_s,
        r.backoff_base_s,
        limits::TIME_S_MAX,
    )
}

/// A producer's script: at most `SCRIPT_MAX` messages, in time order.
fn validate_script(field: &str, script: &[ScriptedMessage]) -> Result<(), ScenarioError> {
    use limits::*;
    check_len(field, script, SCRIPT_MAX)?;
    for (k, m) in script.iter().enumerate() {
        check_range(&format!("{field}[{k}].at_s"), m.at_s, 0.0, TIME_S_MAX)?;
        check_op(&format!("{field}[{k}].op"), m.op)?;
        check_text(
            &format!("{field}[{k}].routing_key"),
            &m.routing_key,
            NAME_LEN_MAX * 4,
        )?;
        if k > 0 && m.at_s < script[k - 1].at_s {
            return Err(err(
                format!("{field}[{k}].at_s"),
                "script times must not decrease",
            ));
        }
    }
    Ok(())
}

fn check_op(field: &str, op: Op) -> Result<(), ScenarioError> {
    match op {
        Op::Deposit(n) | Op::Withdraw(n) if !(0..=limits::AMOUNT_MAX).contains(&n) => Err(err(
            field,
            format!("amounts must be between 0 and {}", limits::AMOUNT_MAX),
        )),
        _ => Ok(()),
    }
}
