//! Property: over random topologies, policies and fault schedules, after every step each
//! message and each copy is in exactly one fate and every structure agrees (see
//! `invariants::check`). A failure prints the whole scenario as JSON, seed included, so
//! `brokerlab trace` replays it step by step.

use brokerlab_core::*;

use proptest::prelude::*;

fn service() -> impl Strategy<Value = ServiceTime> {
    prop_oneof![
        (0.0f64..2.0).prop_map(|seconds| ServiceTime::Fixed { seconds }),
        (0.01f64..2.0).prop_map(|mean_s| ServiceTime::Exponential { mean_s }),
    ]
}

fn consumer() -> impl Strategy<Value = ConsumerSpec> {
    (
        (1u32..4, service(), 1u32..4, 1u32..6),
        prop_oneof![
            Just(Idempotency::None),
            Just(Idempotency::CheckThenInsert),
            Just(Idempotency::Inbox)
        ],
        prop_oneof![
            Just(Ordering::None),
            Just(Ordering::IgnoreStale),
            Just(Ordering::WaitForGap),
            Just(Ordering::Reconcile)
        ],
        (0.0f64..0.5, prop::option::of((0.0f64..30.0, 0.0f64..20.0))),
        (
            1u32..5,
            0.0f64..1.0,
            prop_oneof![Just(Jitter::None), Just(Jitter::Full), Just(Jitter::Equal)],
        ),
        (1u32..4, any::<bool>()),
        (
            any::<bool>(),
            prop::option::of(0.2f64..10.0),
            prop_oneof![Just(GapTimeout::Park), Just(GapTimeout::Skip)],
        ),
    )
        .prop_map(
            |(
                (replicas, service, concurrency, prefetch),
                idempotency,
                ordering,
                fail,
                retry,
                batch,
                (extend_visibility, gap_timeout_s, on_gap_timeout),
            )| {
                ConsumerSpec {
                    name: String::new(),
                    queue: String::new(),
                    replicas,
                    service,
                    concurrency,
                    prefetch,
                    ack: AckMode::AfterCommit,
                    batch_size: batch.0.min(prefetch),
                    batch_atomic: batch.1,
                    idempotency,
                    // Both keys, without another draw (which would change every case the
                    // strategy has made so far): an inbox keyed by the entity skips
                    // messages as duplicates, and the books must still balance.
                    inbox_key: if prefetch % 2 == 0 {
                        InboxKey::Entity
                    } else {
                        InboxKey::Message
                    },
                    // Again without another draw: a handler that trusts the broker applies
                    // an unauthorised message instead of dead-lettering it.
                    trusts_the_broker: prefetch % 3 == 0,
                    // A replay window now and then, short enough to refuse what waits.
                    max_message_age_s: (prefetch % 4 == 1).then_some(2.0),
                    ordering,
                    failures: Failures {
                        transient_p: fail.0,
                        outages: fail
                            .1
                            .map(|(from, len)| {
                                vec![Outage {
                                    from_s: from,
                                    until_s: from + len,
                                }]
                            })
                            .unwrap_or_default(),
                    },
                    retry: RetryPolicy {
                        max_attempts: retry.0,
                        backoff_base_s: retry.1,
                        backoff_cap_s: 4.0,
                        jitter: retry.2,
                    },
                    extend_visibility,
                    gap_timeout_s,
                    on_gap_timeout,
                    sends_email: false,
                    calls: String::new(),
                }
            },
        )
}

/// An arrival rate below `max`: 0 (stopped) or at least the smallest positive rate a
/// scenario accepts, so that shrinking a failure towards 0 never ends on a rate the
/// validator refuses (which would hide the failure behind an invalid scenario).
fn rate(max: f64) -> impl Strategy<Value = f64> {
    (0.0f64..max).prop_map(|r| if r < 0.01 { 0.0 } else { r })
}

fn producer() -> impl Strategy<Value = ProducerSpec> {
    (
        prop_oneof![
            Just(ArrivalProcess::Constant),
            Just(ArrivalProcess::Poisson)
        ],
        prop::collection::vec((0.0f64..20.0, rate(20.0)), 1..4),
        // Bounded, so that checking everything after every step stays affordable.
        (1u64..100).prop_map(Some),
        (0u32..4, 0.0f64..0.5, 0.0f64..0.1),
        (
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            1u32..4,
            0.05f64..2.0,
            // A log producer's buffer through an outage: often shorter than the outage.
            0.2f64..10.0,
        ),
        prop_oneof![
            Just(Handoff::Direct),
            Just(Handoff::CommitThenPublish),
            (0.05f64..2.0, any::<bool>()).prop_map(|(relay_poll_s, stable_ids)| {
                Handoff::Outbox {
                    relay_poll_s,
                    stable_ids,
                }
            })
        ],
        prop::collection::vec(
            prop_oneof![Just("a.x"), Just("a.y"), Just("b.x"), Just("c")],
            0..3,
        ),
    )
        .prop_map(
            |(process, segs, count, (keys, hot, poison), pb, handoff, routing)| {
                let mut from = 0.0;
                let schedule = segs
                    .into_iter()
                    .enumerate()
                    .map(|(i, (gap, rate_per_s))| {
                        if i > 0 {
                            from += gap + 0.1;
                        }
                        RateSegment {
                            from_s: from,
                            rate_per_s,
                        }
                    })
                    .collect();
                ProducerSpec {
                    name: String::new(),
                    arrivals: Arrivals { process, schedule },
                    count,
                    target: String::new(),
                    routing_keys: routing.into_iter().map(String::from).collect(),
                    payload: PayloadSpec {
                        keys,
                        hot_key_share: hot,
                        poison_share: poison,
                        op: if keys > 0 {
                            Op::Deposit(5)
                        } else {
                            Op::Increment
                        },
                    },
                    script: vec![],
                    publish: PublishSpec {
                        confirms: pb.0,
                        idempotent: pb.1,
                        persistent: pb.2,
                        max_attempts: pb.3,
                        confirm_timeout_s: pb.4,
                        mandatory: false,
                        delivery_timeout_s: pb.5,
                    },
                    handoff,
                }
            },
        )
}

fn queue() -> impl Strategy<Value = QueueSpec> {
    (
        0.05f64..5.0,
        prop::option::of(1u64..40),
        // Absent: the flavour's default (drop-head on RabbitMQ).
        prop::option::of(prop_oneof![
            Just(Overflow::Reject),
            Just(Overflow::DropOldest),
            Just(Overflow::Throttle)
        ]),
        prop::option::of(0.5f64..20.0),
        prop::option::of(0.5f64..10.0),
        any::<bool>(),
        any::<bool>(),
        flavour_settings(),
        // RabbitMQ's consumer timeout, short enough now and then to take work back.
        prop::option::of(0.5f64..20.0),
    )
        .prop_map(
            |(lease, max_length, overflow, ttl, age, durable, dead_letter, f, timeout)| QueueSpec {
                name: String::new(),
                publishers: Vec::new(),
                visibility_timeout_s: lease,
                max_length,
                overflow,
                ttl_s: ttl,
                max_oldest_age_s: age,
                durable,
                dead_letter,
                flavour: f.0,
                queue_type: f.1,
                delivery_limit: f.2,
                max_receive_count: f.3,
                dedup_window_s: f.4,
                duplicate_p: f.5,
                consumer_timeout_s: timeout,
            },
        )
}

fn flavour() -> impl Strategy<Value = Flavour> {
    prop_oneof![
        Just(Flavour::Generic),
        Just(Flavour::Rabbitmq),
        Just(Flavour::Sqs),
        Just(Flavour::SqsFifo)
    ]
}

/// A broker flavour and its settings (each left at its default now and then).
#[allow(clippy::type_complexity)]
fn flavour_settings() -> impl Strategy<
    Value = (
        Flavour,
        QueueType,
        Option<u32>,
        Option<u32>,
        Option<f64>,
        Option<f64>,
    ),
> {
    (
        flavour(),
        prop_oneof![Just(QueueType::Classic), Just(QueueType::Quorum)],
        prop::option::of(1u32..6),
        prop::option::of(1u32..6),
        prop::option::of(0.0f64..10.0),
        prop::option::of(0.0f64..0.2),
    )
}

fn fault(
    consumers: u32,
    producers: u32,
    queues: u32,
    groups: u32,
) -> impl Strategy<Value = Command> {
    let point = prop_oneof![
        Just(CrashPoint::Now),
        Just(CrashPoint::AfterReceive),
        Just(CrashPoint::AfterCommitBeforeAck)
    ];
    let ppoint = prop_oneof![
        Just(ProducerCrashPoint::Now),
        Just(ProducerCrashPoint::AfterCommitBeforePublish),
        Just(ProducerCrashPoint::AfterPublishBeforeMark)
    ];
    let restart = prop::option::of(0.0f64..5.0);
    let consumer = (0..consumers).prop_map(ConsumerId::new);
    // With no group, a group command is replaced by a broker restart below.
    let group = (0..groups.max(1)).prop_map(GroupId::new);
    prop_oneof![
        4 => (consumer.clone(), point, restart.clone())
            .prop_map(|(consumer, point, restart_after_s)| Command::CrashConsumer { consumer, point, restart_after_s }),
        1 => consumer.clone().prop_map(|consumer| Command::RestartConsumer { consumer }),
        1 => consumer.clone().prop_map(|consumer| Command::DropNextAck { consumer }),
        1 => (consumer, 0.1f64..5.0).prop_map(|(consumer, factor)| Command::SlowConsumer { consumer, factor }),
        2 => (0..producers, ppoint, restart.clone())
            .prop_map(|(producer, point, restart_after_s)| Command::CrashProducer { producer: ProducerId::new(producer), point, restart_after_s }),
        1 => (0..producers).prop_map(|producer| Command::RestartProducer { producer: ProducerId::new(producer) }),
        1 => (0..producers).prop_map(|producer| Command::DropNextConfirm { producer: ProducerId::new(producer) }),
        1 => (0..producers).prop_map(|producer| Command::InjectPoison { producer: ProducerId::new(producer), poison: if producer % 2 == 0 { Poison::UnknownSchemaVersion } else { Poison::UnauthorizedTenant } }),
        1 => restart.prop_map(|restart_after_s| Command::CrashBroker { restart_after_s }),
        1 => Just(Command::RestartBroker),
        1 => (0..queues, 0.5f64..20.0).prop_map(|(q, rate_per_s)| Command::Redrive { queue: format!("q{q}"), rate_per_s }),
        1 => (0..queues, 0.0f64..10.0).prop_map(|(q, for_s)| Command::DependencyOutage { queue: format!("q{q}"), for_s }),
        1 => (0..queues).prop_map(|q| Command::DeployFix { queue: format!("q{q}"), poison: Poison::UnknownSchemaVersion }),
        2 => (group.clone(), 0u32..4, prop_oneof![Just(MemberCrashPoint::Now), Just(MemberCrashPoint::AfterProcessBeforeCommit)], prop::option::of(0.0f64..5.0))
            .prop_map(move |(group, member, point, restart_after_s)| if groups == 0 { Command::RestartBroker } else { Command::CrashMember { group, member, point, restart_after_s } }),
        1 => group.clone().prop_map(move |group| if groups == 0 { Command::RestartBroker } else { Command::AddMember { group } }),
        1 => group.clone().prop_map(move |group| if groups == 0 { Command::RestartBroker } else { Command::SeekToEarliest { group } }),
        1 => (group, 0u64..40).prop_map(move |(group, offset)| if groups == 0 { Command::RestartBroker } else { Command::SeekTo { group, offset } }),
    ]
}

/// Settings changed while running, like the page's parameters panel.
fn setting(producers: u32, queues: u32) -> impl Strategy<Value = Command> {
    let queue = move || (0..queues).prop_map(|q| format!("q{q}"));
    prop_oneof![
        (
            0..producers,
            prop_oneof![
                Just(ArrivalProcess::Constant),
                Just(ArrivalProcess::Poisson)
            ],
            rate(30.0),
            prop::option::of((0.5f64..10.0, rate(5.0)))
        )
            .prop_map(|(producer, process, rate_per_s, then)| {
                let mut schedule = vec![RateSegment {
                    from_s: 0.0,
                    rate_per_s,
                }];
                if let Some((from_s, rate_per_s)) = then {
                    schedule.push(RateSegment { from_s, rate_per_s });
                }
                Command::SetArrivals {
                    producer: ProducerId::new(producer),
                    process,
                    schedule,
                }
            }),
        (queue(), service())
            .prop_map(|(queue, service)| Command::SetServiceTime { queue, service }),
        (queue(), 0u32..5).prop_map(|(queue, count)| Command::SetConsumerCount { queue, count }),
        (queue(), 1u32..5).prop_map(|(queue, prefetch)| Command::SetPrefetch { queue, prefetch }),
        (
            queue(),
            prop_oneof![Just(AckMode::OnDelivery), Just(AckMode::AfterCommit)]
        )
            .prop_map(|(queue, ack)| Command::SetAckMode { queue, ack }),
        (
            queue(),
            prop_oneof![
                Just(Idempotency::None),
                Just(Idempotency::CheckThenInsert),
                Just(Idempotency::Inbox)
            ]
        )
            .prop_map(|(queue, idempotency)| Command::SetIdempotency { queue, idempotency }),
        (queue(), 1u32..5, 0.0f64..2.0).prop_map(|(queue, max_attempts, backoff_base_s)| {
            Command::SetRetry {
                queue,
                retry: RetryPolicy {
                    max_attempts,
                    backoff_base_s,
                    backoff_cap_s: backoff_base_s * 4.0,
                    jitter: Jitter::Equal,
                },
            }
        }),
        (queue(), 0.01f64..5.0)
            .prop_map(|(queue, seconds)| Command::SetVisibilityTimeout { queue, seconds }),
        (
            queue(),
            prop::option::of(1u64..20),
            prop_oneof![
                Just(Overflow::Reject),
                Just(Overflow::DropOldest),
                Just(Overflow::Throttle)
            ]
        )
            .prop_map(|(queue, max_length, overflow)| Command::SetQueueBound {
                queue,
                max_length,
                overflow
            }),
        (queue(), flavour()).prop_map(|(queue, flavour)| Command::SetFlavour { queue, flavour }),
        (1u32..9).prop_map(|partitions| Command::SetPartitions {
            log: "log".into(),
            partitions
        }),
    ]
}

/// A command the scenario cannot take (a scripted producer's arrivals, the consumers of a
/// queue that has none, a fault on something the scenario lacks: a relay crash without an
/// outbox, a lost confirm without confirms, a redrive without a dead-letter queue) becomes
/// a harmless command instead.
fn fit_setting(s: &Scenario, fault: Command) -> Command {
    let scripted = |p: ProducerId| !s.producers[p.index()].script.is_empty();
    let unconsumed = |q: &str| {
        let q = s.queue_index(q).expect("generated names exist");
        !s.consumers.iter().any(|c| s.queue_of(c) == q)
    };
    let handoff = |p: ProducerId| &s.producers[p.index()].handoff;
    let outbox = |p: ProducerId| matches!(handoff(p), Handoff::Outbox { .. });
    match &fault {
        Command::CrashProducer {
            producer,
            point,
            restart_after_s,
        } if match point {
            ProducerCrashPoint::Now => false,
            ProducerCrashPoint::AfterCommitBeforePublish => {
                *handoff(*producer) != Handoff::CommitThenPublish
            }
            ProducerCrashPoint::AfterPublishBeforeMark => !outbox(*producer),
        } =>
        {
            Command::CrashProducer {
                producer: *producer,
                point: ProducerCrashPoint::Now,
                restart_after_s: *restart_after_s,
            }
        }
        Command::DropNextConfirm { producer }
            if !s.producers[producer.index()].publish.confirms && !outbox(*producer) =>
        {
            Command::RestartBroker
        }
        Command::Redrive { queue, .. }
            if !s.queues[s.queue_index(queue).expect("generated names exist")].dead_letter =>
        {
            Command::RestartBroker
        }
        Command::DependencyOutage { queue, .. } | Command::DeployFix { queue, .. }
            if unconsumed(queue) =>
        {
            Command::RestartBroker
        }
        Command::SetArrivals { producer, .. } if scripted(*producer) => Command::RestartBroker,
        Command::SetPartitions { .. } if s.logs.is_empty() => Command::RestartBroker,
        // A member the group has from the start (joins only add to them).
        Command::CrashMember {
            group,
            member,
            point,
            restart_after_s,
        } => Command::CrashMember {
            group: *group,
            member: member % s.groups[group.index()].members,
            point: *point,
            restart_after_s: *restart_after_s,
        },
        Command::SetServiceTime { queue, .. }
        | Command::SetConsumerCount { queue, .. }
        | Command::SetPrefetch { queue, .. }
        | Command::SetAckMode { queue, .. }
        | Command::SetIdempotency { queue, .. }
        | Command::SetRetry { queue, .. }
            if unconsumed(queue) =>
        {
            Command::RestartBroker
        }
        _ => fault,
    }
}

fn group() -> impl Strategy<Value = GroupSpec> {
    (
        (1u32..4, service()),
        prop_oneof![
            Just(CommitMode::BeforeProcessing),
            Just(CommitMode::AfterProcessing),
            (0.1f64..3.0).prop_map(|every_s| CommitMode::Auto { every_s })
        ],
        prop_oneof![Just(Assignment::Range), Just(Assignment::RoundRobin)],
        (
            0.0f64..2.0,
            prop::option::of(0.1f64..5.0),
            prop::option::of(0.05f64..3.0),
            prop::option::of(0.1f64..10.0),
        ),
        prop_oneof![
            Just(Idempotency::None),
            Just(Idempotency::CheckThenInsert),
            Just(Idempotency::Inbox)
        ],
        // Reads the input log (optionally writing to "out", transactionally or not) or "out".
        (
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
        ),
        log_failures(),
    )
        .prop_map(
            |(
                (members, service),
                commit,
                assignment,
                (rebalance_s, session_timeout_s, max_poll_interval_s, transaction_timeout_s),
                idempotency,
                (reads_out, writes, txn, email, rc, latest),
                (rebalance, ordering, failures, retry, dead_letter),
            )| {
                let writes = writes && !reads_out;
                // A group reading "out" dead-letters to its built-in topic.
                let dead_letter = if dead_letter && !reads_out {
                    "out".into()
                } else {
                    String::new()
                };
                GroupSpec {
                    name: "g".into(),
                    log: if reads_out {
                        "out".into()
                    } else {
                        "log".into()
                    },
                    members,
                    service,
                    commit,
                    assignment,
                    rebalance_s,
                    session_timeout_s,
                    max_poll_interval_s,
                    transaction_timeout_s,
                    idempotency,
                    // Both keys, without another draw: a group's inbox keyed by the entity
                    // skips records as duplicates, and the books must still balance.
                    inbox_key: if rc == latest {
                        InboxKey::Entity
                    } else {
                        InboxKey::Message
                    },
                    output: if writes { "out".into() } else { String::new() },
                    transactional: writes && txn && commit == CommitMode::AfterProcessing,
                    sends_email: email,
                    isolation: if rc {
                        Isolation::ReadCommitted
                    } else {
                        Isolation::ReadUncommitted
                    },
                    rebalance,
                    ordering,
                    failures,
                    retry,
                    dead_letter,
                    auto_offset_reset: if latest {
                        OffsetReset::Latest
                    } else {
                        OffsetReset::Earliest
                    },
                    // Without another draw: a replay window on some groups, short enough
                    // to refuse records a rebalance or a retry kept waiting.
                    max_message_age_s: (members % 3 == 0).then_some(3.0),
                    trusts_the_broker: members % 2 == 1,
                }
            },
        )
}

/// A group's protocol and failure model: eager or cooperative, stale versions ignored or
/// not, transient failures and an outage, retries in place, a dead-letter log or not.
fn log_failures() -> impl Strategy<Value = (Rebalance, Ordering, Failures, RetryPolicy, bool)> {
    (
        prop_oneof![Just(Rebalance::Cooperative), Just(Rebalance::Eager)],
        prop_oneof![Just(Ordering::None), Just(Ordering::IgnoreStale)],
        prop_oneof![Just(0.0f64), 0.0f64..0.5],
        prop::option::of((0.0f64..30.0, 0.0f64..10.0)),
        (
            1u32..5,
            0.0f64..2.0,
            prop_oneof![Just(Jitter::None), Just(Jitter::Full), Just(Jitter::Equal)],
        ),
        any::<bool>(),
    )
        .prop_map(
            |(rebalance, ordering, transient_p, outage, (max_attempts, base, jitter), dlt)| {
                let failures = Failures {
                    transient_p,
                    outages: outage
                        .map(|(from_s, len)| Outage {
                            from_s,
                            until_s: from_s + len,
                        })
                        .into_iter()
                        .collect(),
                };
                let retry = RetryPolicy {
                    max_attempts,
                    backoff_base_s: base,
                    backoff_cap_s: base * 4.0,
                    jitter,
                };
                (rebalance, ordering, failures, retry, dlt)
            },
        )
}

fn scenario() -> impl Strategy<Value = Scenario> {
    (
        any::<u64>(),
        prop::collection::vec(producer(), 1..3),
        prop::collection::vec(queue(), 1..4),
        prop::collection::vec(consumer(), 1..4),
        prop::option::of(prop_oneof![
            Just(ExchangeKind::Direct),
            Just(ExchangeKind::Fanout),
            Just(ExchangeKind::Topic)
        ]),
        (
            prop_oneof![Just(AckMode::OnDelivery), Just(AckMode::AfterCommit)],
            0.0f64..0.3,
        ),
        prop::collection::vec(
            (
                0usize..8,
                prop_oneof![Just("a.*"), Just("#"), Just("b.x"), Just("c"), Just("a.#")],
            ),
            0..5,
        ),
        prop::option::of((
            (1u32..5, any::<bool>()),
            prop::option::of(1.0f64..20.0),
            prop::option::of(1u64..30),
            prop::collection::vec(group(), 1..3),
        )),
        // Open-ended (no end_s) when there is no log: the run must end by itself.
        any::<bool>(),
    )
        .prop_flat_map(
            |(
                seed,
                mut producers,
                mut queues,
                mut consumers,
                exchange,
                (ack, latency),
                bindings,
                log,
                open_ended,
            )| {
                for (i, q) in queues.iter_mut().enumerate() {
                    q.name = format!("q{i}");
                }
                let nq = queues.len();
                for (i, c) in consumers.iter_mut().enumerate() {
                    c.queue = format!("q{}", i % nq);
                    c.ack = ack;
                }
                let exchanges: Vec<ExchangeSpec> = exchange
                    .map(|kind| ExchangeSpec {
                        name: "x".into(),
                        // Without another draw: now and then only the first producer
                        // may publish to the exchange, and the third's publishes are
                        // refused at the broker (a job failed, nothing stored).
                        publishers: if bindings.len() % 3 == 0 {
                            vec!["P1".into()]
                        } else {
                            Vec::new()
                        },
                        kind,
                        bindings: bindings
                            .iter()
                            .map(|(q, key)| Binding {
                                queue: format!("q{}", q % nq),
                                key: key.to_string(),
                            })
                            .collect(),
                    })
                    .into_iter()
                    .collect();
                for (i, p) in producers.iter_mut().enumerate() {
                    if !exchanges.is_empty() && i % 2 == 0 {
                        p.target = "x".into();
                    } else {
                        p.target = format!("q{}", i % nq);
                    }
                }
                let (logs, groups) = match log {
                    Some(((partitions, by_id), retention_s, retention_records, groups)) => {
                        // The last producer writes to the log.
                        producers.last_mut().expect("at least one producer").target = "log".into();
                        let log = LogSpec {
                            name: "log".into(),
                            // The same for the log: refused unless its producer is P1.
                            publishers: if partitions % 2 == 0 {
                                vec!["P1".into()]
                            } else {
                                Vec::new()
                            },
                            partitions,
                            retention_s,
                            retention_records,
                            partition_by: if by_id {
                                PartitionKey::MessageId
                            } else {
                                PartitionKey::Key
                            },
                        };
                        let out = LogSpec {
                            name: "out".into(),
                            publishers: Vec::new(),
                            partitions: 2,
                            retention_s: None,
                            retention_records: None,
                            partition_by: PartitionKey::Key,
                        };
                        (vec![log, out], groups)
                    }
                    None => (vec![], vec![]),
                };
                // Groups are told apart by name.
                let mut groups = groups;
                for (i, g) in groups.iter_mut().enumerate() {
                    g.name = format!("g{i}");
                }
                let n_groups = groups.len() as u32;
                let n_consumers: u32 = consumers.iter().map(|c| c.replicas).sum();
                let n_producers = producers.len() as u32;
                // A RabbitMQ classic queue takes back, and delivers again, a message whose
                // work outlasts its consumer timeout, for ever, as RabbitMQ does (no
                // delivery limit stops it): a run with a short consumer timeout may not end
                // by itself, so it ends at `end_s` (the runaway check below found one).
                let timeout_set = queues.iter().any(|q| q.consumer_timeout_s.is_some());
                let base = Scenario {
                    version: SCENARIO_VERSION,
                    name: "random".into(),
                    description: String::new(),
                    seed,
                    producers,
                    queues,
                    exchanges,
                    consumers,
                    logs,
                    groups,
                    broker: BrokerSpec {
                        network_latency_s: latency,
                    },
                    dependencies: vec![],
                    commands: vec![],
                    interventions: vec![],
                    sample_every_s: 1.0,
                    end_s: (!open_ended || n_groups > 0 || timeout_set).then_some(60.0),
                    // Both ways of drawing: the accounting holds whoever draws what.
                    random_streams: if seed % 2 == 0 {
                        RandomStreams::Shared
                    } else {
                        RandomStreams::PerProducer
                    },
                    mode: Default::default(),
                };
                prop::collection::vec(
                    (
                        0.0f64..40.0,
                        prop_oneof![
                            3 => fault(n_consumers, n_producers, nq as u32, n_groups),
                            1 => setting(n_producers, nq as u32),
                        ],
                    ),
                    0..8,
                )
                .prop_map(move |faults| {
                    let mut s = base.clone();
                    s.commands = faults
                        .into_iter()
                        .map(|(at_s, fault)| ScheduledCommand {
                            at_s,
                            command: fit_setting(&base, fault),
                            unannounced: false,
                        })
                        .collect();
                    s
                })
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3_000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn every_message_is_accounted_for_after_every_step(
        s in scenario(),
        commands in prop::collection::vec((1u64..400, 0u32..64), 0..4),
    ) {
        s.validate().map_err(|e| TestCaseError::fail(format!("generator made an invalid scenario: {e}")))?;
        let no_loss_expected = s.consumers.iter().all(|c| c.ack == AckMode::AfterCommit)
            && s.queues.iter().all(|q| q.dead_letter && q.durable)
            && s.producers.iter().all(|p| p.publish.persistent)
            && !s.commands.iter().any(|f| matches!(
                f.command,
                Command::CrashBroker { .. } | Command::SetAckMode { ack: AckMode::OnDelivery, .. }
            ));
        let n = s.consumer_count();
        let mut sim = Simulation::new(s).unwrap();
        let mut commands = commands;
        commands.sort_by_key(|c| c.0);
        let mut next = 0;
        while let Some(step) = sim.step() {
            let index = step.index;
            // Every run ends: bounded by end_s, or (open-ended) by the delivery limits and
            // gap timeouts of every flavour. A few thousand messages at most: a runaway is
            // a bug.
            if index > 300_000 {
                panic!("runaway: over 300,000 steps by {} s\nscenario: {}", sim.now_us() as f64 / 1e6, sim.scenario().to_json_pretty());
            }
            if let Err(e) = invariants::check(&sim) {
                panic!("after step {index}: {e}\nscenario: {}", sim.scenario().to_json_pretty());
            }
            // Crashes by command too, at random steps, like a user pressing the button.
            while next < commands.len() && commands[next].0 <= index {
                let consumer = ConsumerId::new(commands[next].1 % n);
                next += 1;
                sim.command(Command::CrashConsumer { consumer, point: CrashPoint::Now, restart_after_s: Some(1.0) }).unwrap();
                if let Err(e) = invariants::check(&sim) {
                    panic!("after a command at step {index}: {e}\nscenario: {}", sim.scenario().to_json_pretty());
                }
            }
        }
        let c = sim.counters();
        // Loss happens only where acking on delivery, missing DLQs or a broker restart allow it.
        if no_loss_expected {
            prop_assert_eq!(c.lost, 0, "{}", sim.scenario().to_json_pretty());
        }
        // A replay of the recorded run is the same run.
        let mut replay = Simulation::new(sim.scenario().clone()).unwrap();
        replay.run();
        prop_assert_eq!(replay.counters(), sim.counters());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, failure_persistence: None, ..ProptestConfig::default() })]

    /// SQS FIFO only: every queue (until a setting switches it) keeps its message
    /// groups' busy copies and places in line so that a dispatch reads the next copy to
    /// deliver without walking its line. After every step and command, under crashes,
    /// broker restarts, lease expiries, retries, dead-lettering and redrives, what it
    /// keeps equals a recount, and its next copy is the one a walk of the line finds
    /// (`invariants::check`): the bookkeeping cannot drift.
    #[test]
    fn sqs_fifo_groups_agree_with_a_walk_of_the_line_after_every_step(
        s in scenario(),
        hot in 0.0f64..0.95,
        commands in prop::collection::vec((1u64..400, 0u32..64, any::<bool>()), 0..6),
    ) {
        let mut s = s;
        for q in &mut s.queues {
            q.flavour = Flavour::SqsFifo;
            q.dead_letter = true;
        }
        for (i, p) in s.producers.iter_mut().enumerate() {
            // A few groups, one of them hot now and then: a line behind busy groups.
            p.payload.keys = 1 + i as u32 % 3;
            p.payload.hot_key_share = hot;
        }
        s.validate().map_err(|e| TestCaseError::fail(format!("invalid scenario: {e}")))?;
        let n = s.consumer_count();
        let queues = s.queues.len() as u32;
        let mut sim = Simulation::new(s).unwrap();
        let mut commands = commands;
        commands.sort_by_key(|c| c.0);
        let mut next = 0;
        while let Some(step) = sim.step() {
            let index = step.index;
            if index > 300_000 {
                panic!("runaway\nscenario: {}", sim.scenario().to_json_pretty());
            }
            if let Err(e) = invariants::check(&sim) {
                panic!("after step {index}: {e}\nscenario: {}", sim.scenario().to_json_pretty());
            }
            while next < commands.len() && commands[next].0 <= index {
                let (_, who, redrive) = commands[next];
                next += 1;
                let command = if redrive {
                    Command::Redrive { queue: format!("q{}", who % queues), rate_per_s: 5.0 }
                } else {
                    Command::CrashConsumer { consumer: ConsumerId::new(who % n), point: CrashPoint::Now, restart_after_s: Some(1.0) }
                };
                // A redrive of an empty dead-letter queue may be refused: nothing to check.
                if sim.command(command).is_ok() {
                    if let Err(e) = invariants::check(&sim) {
                        panic!("after a command at step {index}: {e}\nscenario: {}", sim.scenario().to_json_pretty());
                    }
                }
            }
        }
    }
}
