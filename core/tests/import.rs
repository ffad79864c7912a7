//! Importing real setups: RabbitMQ definitions files and Kafka descriptions become
//! scenarios; what the model cannot hold is named, never dropped silently; bad input is
//! one sentence, never a panic. Fixtures are in `tests/import/`.

#[path = "common/spanish.rs"]
mod spanish;

use brokerlab_core::import::{kafka, rabbitmq, ImportError, Imported, Item, Note};
use brokerlab_core::lang::Lang;
use brokerlab_core::{
    Command, CommitMode, ExchangeKind, Flavour, Overflow, PartitionKey, QueueType, Scenario,
    ScheduledCommand, Simulation,
};
use proptest::prelude::*;
use spanish::{digit_runs, english_words};

const SUPPORTED: &str = include_str!("import/rabbitmq-supported.json");
const UNSUPPORTED: &str = include_str!("import/rabbitmq-unsupported.json");
const KAFKA: &str = include_str!("import/kafka.json");

fn imported(result: Result<Imported, ImportError>) -> Imported {
    result.unwrap_or_else(|e| panic!("{e}"))
}

/// The scenario runs to its end, and again from its own JSON the same way.
fn runs(s: &Scenario) {
    let again = Scenario::from_json(&s.to_json_pretty()).expect("its JSON loads");
    assert_eq!(&again, s);
    let mut sim = Simulation::new(again).unwrap();
    sim.run();
    assert!(sim.counters().created > 0);
    assert_eq!(sim.end_reason(), Some(brokerlab_core::EndReason::Drained));
}

#[test]
fn every_supported_rabbitmq_feature_maps_to_the_expected_scenario() {
    let got = imported(rabbitmq::import(SUPPORTED.as_bytes()));
    let expected =
        Scenario::from_json(include_str!("import/rabbitmq-supported.expected.json")).unwrap();
    assert_eq!(got.scenario, expected);
    let q = |name: &str| got.scenario.queues.iter().find(|q| q.name == name).unwrap();
    // Quorum queue: delivery limit, dead-lettering on (it has a dead-letter exchange).
    let orders = q("orders");
    assert_eq!(orders.queue_type, QueueType::Quorum);
    assert_eq!((orders.delivery_limit, orders.dead_letter), (Some(5), true));
    // A consumer timeout from the queue's argument (ms), or from a policy; else RabbitMQ's
    // default of 30 minutes.
    assert_eq!(orders.consumer_timeout_s, Some(60.0));
    // Argument and policy both bound the length and the TTL: the lower value applies.
    let emails = q("emails");
    assert_eq!((emails.max_length, emails.ttl_s), (Some(500), Some(60.0)));
    assert_eq!(emails.overflow, Some(Overflow::Reject));
    assert!(
        !emails.dead_letter,
        "no dead-letter exchange: RabbitMQ discards"
    );
    // A policy alone; drop-head is RabbitMQ's default overflow; durability kept.
    let audit = q("audit");
    assert_eq!((audit.max_length, audit.ttl_s), (Some(50), Some(30.0)));
    assert_eq!(audit.overflow, Some(Overflow::DropOldest));
    assert_eq!(audit.consumer_timeout_s, Some(300.0));
    assert_eq!(q("emails").consumer_timeout_s, None);
    assert!(!audit.durable);
    assert!(got
        .scenario
        .queues
        .iter()
        .all(|q| q.flavour == Flavour::Rabbitmq));
    let kinds: Vec<ExchangeKind> = got.scenario.exchanges.iter().map(|x| x.kind).collect();
    assert_eq!(
        kinds,
        [
            ExchangeKind::Topic,
            ExchangeKind::Fanout,
            ExchangeKind::Direct
        ]
    );
    // Producers for the exchanges that take publishes, not for the dead-letter exchange;
    // every binding of the topic exchange gets traffic.
    let targets: Vec<&str> = got
        .scenario
        .producers
        .iter()
        .map(|p| p.target.as_str())
        .collect();
    assert_eq!(targets, ["shop", "broadcast"]);
    assert_eq!(
        got.scenario.producers[0].routing_keys,
        ["order.any", "any.email"]
    );
    assert_eq!(got.scenario.consumers.len(), 4);
    let ignored: Vec<&Note> = got.notes.iter().filter(|n| n.is_ignored()).collect();
    assert_eq!(
        ignored,
        [
            &Note::SectionIgnored {
                section: "vhosts".into(),
                count: 1
            },
            &Note::DeadLetterKeptInQueue {
                queue: "orders".into(),
                exchange: "dlx".into(),
                routing_key: Some("orders.dead".into())
            },
        ]
    );
    runs(&got.scenario);
}

#[test]
fn what_the_model_cannot_hold_is_named_item_by_item() {
    let got = imported(rabbitmq::import(UNSUPPORTED.as_bytes()));
    let setting = |item, name: &str, setting: &str| Note::SettingIgnored {
        item,
        name: name.into(),
        setting: setting.into(),
    };
    let expected = [
        Note::SectionIgnored {
            section: "users".into(),
            count: 1,
        },
        Note::PolicyPatternTooComplex {
            policy: "ha-all".into(),
            pattern: "^(jobs|tmp)$".into(),
        },
        Note::PolicyNotForQueues {
            policy: "exchanges-only".into(),
            apply_to: "exchanges".into(),
        },
        Note::PolicyKeyIgnored {
            policy: "lazy".into(),
            key: "queue-mode".into(),
        },
        setting(Item::Queue, "jobs", "x-max-priority"),
        setting(Item::Queue, "jobs", "x-max-length-bytes"),
        setting(Item::Queue, "jobs", "x-single-active-consumer"),
        setting(Item::Queue, "tmp", "x-expires"),
        setting(Item::Queue, "tmp", "auto_delete"),
        setting(Item::Exchange, "work", "alternate-exchange"),
        Note::RejectPublishDlxAsReject {
            queue: "jobs".into(),
        },
        Note::DeliveryLimitOnClassic {
            queue: "jobs".into(),
        },
        Note::StreamQueueIgnored {
            queue: "events".into(),
        },
        Note::OtherVhost {
            item: Item::Queue,
            name: "jobs".into(),
            vhost: "staging".into(),
        },
        Note::ValueIgnored {
            item: Item::Queue,
            name: "tmp".into(),
            setting: "x-message-ttl".into(),
            value: "-5".into(),
        },
        Note::ExchangeTypeIgnored {
            exchange: "by-header".into(),
            kind: "headers".into(),
        },
        Note::ExchangeRenamed {
            exchange: "jobs".into(),
            now: "jobs (exchange)".into(),
        },
        Note::BindingArgumentsIgnored {
            source: "work".into(),
            destination: "jobs".into(),
        },
        Note::ExchangeBindingIgnored {
            source: "work".into(),
            destination: "jobs".into(),
        },
        Note::BindingIgnored {
            source: "work".into(),
            destination: "events".into(),
        },
    ];
    for note in &expected {
        assert!(
            got.notes.contains(note),
            "missing {note:?} in {:#?}",
            got.notes
        );
    }
    // The argument's and the policy's lengths: the lower one; reject-publish-dlx refuses.
    let jobs = &got.scenario.queues[0];
    assert_eq!((jobs.name.as_str(), jobs.max_length), ("jobs", Some(10)));
    assert_eq!(
        (jobs.overflow, jobs.delivery_limit),
        (Some(Overflow::Reject), None)
    );
    let names: Vec<&str> = got
        .scenario
        .queues
        .iter()
        .map(|q| q.name.as_str())
        .collect();
    assert_eq!(names, ["jobs", "tmp"]);
    runs(&got.scenario);
}

#[test]
fn a_kafka_description_becomes_logs_and_groups() {
    let got = imported(kafka::import(KAFKA.as_bytes()));
    let expected = Scenario::from_json(include_str!("import/kafka.expected.json")).unwrap();
    assert_eq!(got.scenario, expected);
    let s = &got.scenario;
    assert_eq!(
        (s.logs[0].partitions, s.logs[0].retention_s),
        (6, Some(600.0))
    );
    assert_eq!(s.logs[1].partition_by, PartitionKey::MessageId);
    assert_eq!(s.groups[0].commit, CommitMode::AfterProcessing);
    assert_eq!(s.groups[1].commit, CommitMode::Auto { every_s: 2.0 });
    assert_eq!(s.groups[2].name, "clicks-readers");
    // A member that dies keeps its partitions for Kafka's session timeout (45 s by
    // default), or the group's own.
    let sessions: Vec<Option<f64>> = s.groups.iter().map(|g| g.session_timeout_s).collect();
    assert_eq!(sessions, [Some(45.0), Some(10.0), Some(45.0)]);
    // A member may take Kafka's max.poll.interval.ms (300 s by default), or the group's
    // own, over a record before it leaves the group.
    let polls: Vec<Option<f64>> = s.groups.iter().map(|g| g.max_poll_interval_s).collect();
    assert_eq!(polls, [Some(300.0), Some(60.0), Some(300.0)]);
    assert_eq!(s.producers[0].payload.hot_key_share, 0.3);
    // acks=all (Kafka's default) with idempotence; acks=1 without, noted: the leader's
    // acknowledgement is a confirm, the replication it leaves out is not modelled. Each
    // sends again once a second until its delivery timeout (120 s by default).
    let publish: Vec<(bool, u32, bool)> = s
        .producers
        .iter()
        .map(|p| {
            (
                p.publish.confirms,
                p.publish.max_attempts,
                p.publish.idempotent,
            )
        })
        .collect();
    assert_eq!(publish, [(true, 120, true), (true, 90, false)]);
    let acks_noted = |topic: &str| {
        got.notes.contains(&Note::LeaderAckOnly {
            topic: topic.into(),
        })
    };
    assert!(acks_noted("clicks") && !acks_noted("orders"));
    // The note is about the producer's setting, not the topic's.
    assert!(!got.notes.iter().any(|n| matches!(n,
        Note::ReplicationIgnored { setting, .. } if setting == "acks")));
    assert!(got.notes.contains(&Note::ReplicationIgnored {
        topic: "orders".into(),
        setting: "replication_factor".into()
    }));
    assert!(got.notes.contains(&Note::GroupAssumed {
        topic: "clicks".into(),
        members: 4
    }));
    runs(s);
}

#[test]
fn a_bare_kafka_topic_gets_a_producer_and_a_group() {
    let got = imported(kafka::import(
        br#"{"topics":[{"name":"t","partitions":3}]}"#,
    ));
    assert_eq!(got.scenario.producers.len(), 1);
    assert_eq!(got.scenario.groups[0].members, 3);
    assert!(got.notes.iter().any(|n| !n.is_ignored()));
    runs(&got.scenario);
}

fn assert_one_sentence(e: &ImportError, input: &str) {
    for lang in Lang::ALL {
        let text = e.describe(lang);
        assert!(
            text.ends_with('.') && !text.contains('\n') && !text.is_empty(),
            "{input}: {text}"
        );
    }
}

#[test]
fn a_name_the_model_cannot_take_leaves_its_item_out() {
    let long = "q".repeat(100);
    let json = format!(
        r#"{{"queues": [{{"name": "{long}"}}, {{"name": "ok"}}],
            "exchanges": [{{"name": "{long}", "type": "fanout"}}],
            "bindings": [{{"source": "{long}", "destination": "ok", "destination_type": "queue"}}]}}"#
    );
    let got = imported(rabbitmq::import(json.as_bytes()));
    let names: Vec<&str> = got
        .scenario
        .queues
        .iter()
        .map(|q| q.name.as_str())
        .collect();
    assert_eq!(names, ["ok"]);
    assert!(got.scenario.exchanges.is_empty());
    for item in [Item::Queue, Item::Exchange] {
        let note = Note::NameTooLong {
            item,
            name: format!("{}…", "q".repeat(80)),
        };
        assert!(got.notes.contains(&note), "{:#?}", got.notes);
    }
    runs(&got.scenario);
}

#[test]
fn malformed_input_is_one_sentence_in_both_languages() {
    let big = " ".repeat(2 << 20);
    let cases = [
        "",
        "not json",
        "[1, 2]",
        r#"{"queues": 5}"#,
        r#"{"queues": [{"durable": true}]}"#,
        r#"{"queues": []}"#,
        r#"{"queues": [{"name": "q"}], "bindings": [{"source": "x"}]}"#,
        r#"{"queues": [{"name": ""}]}"#,
        r#"{"queues": [{"name": "a\nb"}], "exchanges": 3}"#,
        big.as_str(),
    ];
    for input in cases {
        let e = rabbitmq::import(input.as_bytes()).expect_err(input);
        assert_one_sentence(&e, &input[..input.len().min(40)]);
    }
    for input in [
        "{}",
        r#"{"topics": []}"#,
        r#"{"topics": [{"name": "t", "partitions": 0}]}"#,
        r#"{"topics": [{"name": "t", "partitions": 1, "colour": "red"}]}"#,
        r#"{"topics": [{"name": "t", "partitions": 1}], "groups": [{"name": "g", "topic": "nope", "members": 1, "commit": "auto"}]}"#,
        r#"{"topics": [{"name": "t", "partitions": 1}], "producers": [{"topic": "t", "rate_per_s": -1, "count": 5}]}"#,
    ] {
        let e = kafka::import(input.as_bytes()).expect_err(input);
        assert_one_sentence(&e, input);
    }
}

/// A Kafka description serde refuses: the sentence names the place, then serde's words
/// after a colon (it read "the file unknown field `bogus`", "the file invalid type").
#[test]
fn a_kafka_description_of_the_wrong_form_names_where_then_what() {
    let e = kafka::import(br#"{"topics": [], "bogus": 1}"#).expect_err("an unknown field");
    assert_eq!(
        e.describe(Lang::En),
        "The file is not in the expected form: “bogus”: unknown field `bogus`, expected one of `topics`, `groups`, `producers`."
    );
    assert_eq!(
        e.describe(Lang::Es),
        "El archivo no tiene la forma esperada: «bogus»: campo desconocido `bogus`; se esperaba uno de `topics`, `groups`, `producers`."
    );
    let e = kafka::import(br#"{"topics": [{"name": "t", "partitions": "two"}]}"#)
        .expect_err("a partition count as text");
    let en = e.describe(Lang::En);
    assert!(
        en.starts_with("The file is not in the expected form: “topics[0].partitions”: invalid type: string \"two\""),
        "{en}"
    );
    let es = e.describe(Lang::Es);
    assert!(
        es.starts_with(
            "El archivo no tiene la forma esperada: «topics[0].partitions»: tipo no válido"
        ),
        "{es}"
    );
    // A list is no description: said as RabbitMQ's importer says it.
    let e = kafka::import(b"[1, 2, 3]").expect_err("a list");
    assert_eq!(
        e.describe(Lang::En),
        "The file is not in the expected form: the file is not a JSON object."
    );
    assert_eq!(
        e.describe(Lang::Es),
        "El archivo no tiene la forma esperada: el archivo no es un objeto JSON."
    );
}

/// One Kafka group id on two topics is two groups here, told apart by name.
#[test]
fn a_kafka_group_reading_two_topics_becomes_two_named_groups() {
    let input = r#"{"topics": [{"name": "orders", "partitions": 2}, {"name": "clicks", "partitions": 1}],
        "groups": [{"name": "billing", "topic": "orders", "members": 2, "commit": "manual"},
                   {"name": "billing", "topic": "clicks", "members": 1, "commit": "manual"}]}"#;
    let got = imported(kafka::import(input.as_bytes()));
    let names: Vec<&str> = got
        .scenario
        .groups
        .iter()
        .map(|g| g.name.as_str())
        .collect();
    assert_eq!(names, ["billing", "billing (2)"]);
    let note = Note::GroupRenamed {
        group: "billing".into(),
        topic: "clicks".into(),
        name: "billing (2)".into(),
    };
    assert!(got.notes.contains(&note), "{:?}", got.notes);
    let (en, es) = (note.describe(Lang::En), note.describe(Lang::Es));
    assert_eq!(english_words(&es), Vec::<String>::new(), "{es}");
    assert_eq!(digit_runs(&en), digit_runs(&es), "{en} / {es}");
}

#[test]
fn notes_read_as_spanish_in_spanish() {
    let mut notes = imported(rabbitmq::import(UNSUPPORTED.as_bytes())).notes;
    notes.extend(imported(rabbitmq::import(SUPPORTED.as_bytes())).notes);
    notes.extend(imported(kafka::import(KAFKA.as_bytes())).notes);
    for note in &notes {
        let (en, es) = (note.describe(Lang::En), note.describe(Lang::Es));
        assert_eq!(note.to_string(), en);
        assert_ne!(en, es);
        assert_eq!(english_words(&es), Vec::<String>::new(), "{es}");
        assert_eq!(digit_runs(&en), digit_runs(&es), "{en} / {es}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        for result in [rabbitmq::import(&bytes), kafka::import(&bytes)] {
            if let Err(e) = result {
                assert_one_sentence(&e, "bytes");
            }
        }
    }

    #[test]
    fn damaged_fixtures_never_panic(at in 0usize..4_000, byte in any::<u8>(), cut in 0usize..4_000) {
        for fixture in [SUPPORTED, UNSUPPORTED, KAFKA] {
            let mut bytes = fixture.as_bytes().to_vec();
            let i = at % bytes.len();
            bytes[i] = byte;
            bytes.truncate(bytes.len() - cut % 8);
            for result in [rabbitmq::import(&bytes), kafka::import(&bytes)] {
                match result {
                    Ok(got) => prop_assert!(got.scenario.validate().is_ok()),
                    Err(e) => assert_one_sentence(&e, "damaged"),
                }
            }
        }
    }
}

/// A Kafka producer with its defaults (acks=all, idempotent, delivery.timeout.ms 120 s)
/// keeps sending through a broker outage: nothing is lost, and each record is stored
/// once, after the restart.
#[test]
fn an_imported_kafka_producer_keeps_its_records_through_a_broker_outage() {
    let description = r#"{
        "topics": [{ "name": "payments", "partitions": 2 }],
        "groups": [{ "name": "ledger", "topic": "payments", "members": 2, "commit": "manual" }],
        "producers": [{ "topic": "payments", "rate_per_s": 20, "count": 400 }]
    }"#;
    let outage = |acks: &str| {
        let text = description.replace(r#""count": 400 }"#, &format!(r#""count": 400{acks} }}"#));
        let mut s = imported(kafka::import(text.as_bytes())).scenario;
        s.commands = vec![ScheduledCommand {
            at_s: 10.0,
            command: Command::CrashBroker {
                restart_after_s: Some(3.0),
            },
            unannounced: false,
        }];
        let mut sim = Simulation::new(s).unwrap();
        sim.run();
        sim.counters().clone()
    };
    let kept = outage("");
    assert_eq!((kept.created, kept.appended), (400, 400));
    assert_eq!((kept.lost_before_stored, kept.gave_up), (0, 0));
    // acks=0 never hears back, but its buffer keeps what it could not send: stored after
    // the restart, unless the delivery timeout ran out first.
    let fire_and_forget = outage(r#", "acks": 0"#);
    assert_eq!(fire_and_forget.lost_before_stored, 0);
    assert!(
        fire_and_forget.buffered > 40,
        "{}",
        fire_and_forget.buffered
    );
    assert_eq!(fire_and_forget.appended, 400);
    let short = outage(r#", "acks": 0, "delivery_timeout_ms": 2000"#);
    // Kept more than 2 s of the 3 s outage: dropped. The last 2 s: stored.
    let lost = short.lost_before_stored;
    assert!(
        lost > 0 && lost < short.buffered,
        "{lost} of {}",
        short.buffered
    );
    assert_eq!(short.appended, 400 - short.lost_before_stored);
}

/// An `acks` Kafka refuses ("2") is named in a note and taken as Kafka's default, `all`:
/// confirmed and idempotent.
#[test]
fn an_acks_kafka_refuses_is_noted_and_taken_as_all() {
    let got = imported(kafka::import(
        br#"{ "topics": [{ "name": "t", "partitions": 1 }],
              "producers": [{ "topic": "t", "rate_per_s": 5, "count": 10, "acks": "2" }] }"#,
    ));
    assert!(
        got.notes.contains(&Note::AcksRefused {
            topic: "t".into(),
            value: "\"2\"".into(),
        }),
        "{:?}",
        got.notes
    );
    let publish = &got.scenario.producers[0].publish;
    assert!(publish.confirms && publish.idempotent);
    for lang in [Lang::En, Lang::Es] {
        let said: String = got.notes.iter().map(|n| n.describe(lang)).collect();
        assert!(said.contains("acks = \"2\""), "{said}");
    }
}
