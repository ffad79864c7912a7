//! Compare mode's model: the two players of a comparison (side A as designed, side B with
//! a [`Variant`]), the lockstep that keeps B at A's simulated time, the settings a user may
//! change, the counters side by side, and the compare link. Both sides draw their
//! producers' randomness from streams of their own (`random_streams: per_producer`), so
//! they see the same arrivals and the same scheduled faults at the same instants.

use brokerlab_core::compare::{counter_pairs, Change, Comparison, Variant};
use brokerlab_core::lessons::Lang;
use brokerlab_core::link::{SharedComparison, View};
use brokerlab_core::{Command, Idempotency, Poison, RandomStreams, Scenario, ScenarioError};
use serde_json::Value;

use crate::i18n::{locale, td_string};
use crate::model::player::Player;
use crate::model::share::{example_name_of, LinkProblem};
use crate::model::words::{shortened, Words};

/// A side's scenario as compare mode runs it: producers on streams of their own.
pub fn for_comparison(mut scenario: Scenario) -> Scenario {
    scenario.random_streams = RandomStreams::PerProducer;
    scenario
}

/// The players of both sides for `original` (the scenario as loaded, without commands)
/// and `variant`. A variant that changes A's inputs (seed, arrivals, scheduled commands)
/// or makes an invalid scenario is refused.
pub fn players(original: &Scenario, variant: &Variant) -> Result<(Player, Player), ScenarioError> {
    let mut original = original.clone();
    original.interventions.clear();
    // The core checks that B keeps A's inputs.
    Comparison::new(original.clone(), variant.clone())?;
    let b = variant.apply(&original)?;
    let mut a = Player::new(for_comparison(original))?;
    let mut b = Player::new(for_comparison(b))?;
    hold_to_later_end(&mut a, &mut b);
    Ok((a, b))
}

/// The shared timeline runs until the later of the two runs ends: the side whose story
/// is over first is held open to then, its clock going on in quiet time. Side A drives
/// the clock, so without the hold a variant that takes longer (a lease to run out, a
/// redelivery) would stop at A's end, its last steps never shown. Taken again whenever
/// a command may have moved either end. Runs too long for a preview have no found end
/// and no hold: their timeline is the fluid model's horizon.
pub fn hold_to_later_end(a: &mut Player, b: &mut Player) {
    let until = match (a.found_end_us(), b.found_end_us()) {
        (Some(x), Some(y)) => x.max(y),
        _ => 0,
    };
    a.hold_open_until(until);
    b.hold_open_until(until);
}

/// Lockstep: brings side B to side A's seed and simulated time (forward by stepping, so
/// its tokens travel; back by re-simulating its own recorded run).
pub fn follow(b: &mut Player, a: &Player) -> Result<(), ScenarioError> {
    if b.seed() != a.seed() {
        b.set_seed(a.seed())?;
    }
    let t = a.sim().now_us();
    let due = b.sim().next_step_time().is_some_and(|at| at <= t);
    if b.sim().now_us() != t || due {
        b.follow_to(t)?;
        if a.jumped() {
            // A jumped there (a seek): B's catching up is no movement to show either.
            b.drop_flights();
        }
    }
    Ok(())
}

/// The variant's changes as one line: `path = value, …`.
pub fn variant_text(variant: &Variant) -> String {
    variant
        .changes
        .iter()
        .map(|c| format!("{} = {}", c.path, value_text(&c.value)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A setting's value as the form shows it: strings bare, anything else as JSON.
fn value_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// One setting the compare form offers.
#[derive(Clone, Debug, PartialEq)]
pub struct Setting {
    /// Where in the scenario (`consumers.0.ack`).
    pub path: String,
    /// What the form lists: the component and the setting, in the page's language.
    pub label: String,
    /// The values to pick from; empty for a number typed in.
    pub choices: Vec<String>,
    /// Each choice in the page's language, with the value the file writes
    /// ("Al entregar (como mucho una vez) — on_delivery").
    pub choice_labels: Vec<String>,
    /// The value side A has.
    pub current: String,
}

const ACK: [&str; 2] = ["on_delivery", "after_commit"];
const IDEMPOTENCY: [&str; 3] = ["none", "check_then_insert", "inbox"];
const INBOX_KEY: [&str; 2] = ["message", "entity"];
const TRUST: [&str; 2] = ["false", "true"];
const JITTER: [&str; 3] = ["none", "full", "equal"];
const FLAVOUR: [&str; 3] = ["generic", "rabbitmq", "sqs"];
const QUEUE_TYPE: [&str; 2] = ["classic", "quorum"];

/// The value at `path` (`consumers.0.ack`) as the form shows it: written in the file
/// (`doc`), or, when the file leaves it out (or the object holding it, as a consumer's
/// `retry`), the default the scenario took (from `typed`, every field written): the core
/// sets a field of an object left out from its defaults. `None`: no such setting.
fn current_value(doc: &Value, typed: &Value, path: &str) -> Option<String> {
    let pointer = format!("/{}", path.replace('.', "/"));
    doc.pointer(&pointer)
        .or_else(|| typed.pointer(&pointer))
        .map(value_text)
}

/// The settings the form offers, each at the value the scenario took, defaults included
/// (the scenario's JSON leaves defaults out).
fn every_field(scenario: &Scenario) -> Value {
    use serde_json::json;
    let consumers: Vec<Value> = scenario
        .consumers
        .iter()
        .map(|c| {
            json!({ "ack": c.ack, "idempotency": c.idempotency, "inbox_key": c.inbox_key,
                "trusts_the_broker": c.trusts_the_broker, "replicas": c.replicas,
                "concurrency": c.concurrency, "prefetch": c.prefetch,
                "retry": { "max_attempts": c.retry.max_attempts, "jitter": c.retry.jitter } })
        })
        .collect();
    let queues: Vec<Value> = scenario
        .queues
        .iter()
        .map(|q| json!({ "flavour": q.flavour, "queue_type": q.queue_type }))
        .collect();
    let logs: Vec<Value> = scenario
        .logs
        .iter()
        .map(|l| json!({ "partitions": l.partitions }))
        .collect();
    let groups: Vec<Value> = scenario
        .groups
        .iter()
        .map(|g| {
            json!({ "members": g.members, "idempotency": g.idempotency,
                "inbox_key": g.inbox_key, "trusts_the_broker": g.trusts_the_broker })
        })
        .collect();
    json!({ "consumers": consumers, "queues": queues, "logs": logs, "groups": groups })
}

/// Whether a message from an unauthorised tenant can reach a consumer or a group (a producer's
/// script or a scheduled command makes one): only then does checking the source's
/// authority change anything worth offering.
fn can_be_unauthorized(scenario: &Scenario) -> bool {
    let unauthorized = Some(Poison::UnauthorizedTenant);
    let scripted = scenario
        .producers
        .iter()
        .flat_map(|p| &p.script)
        .any(|m| m.poison == unauthorized);
    let injected = scenario.commands.iter().any(|c| {
        matches!(
            c.command,
            Command::InjectPoison {
                poison: Poison::UnauthorizedTenant,
                ..
            }
        )
    });
    scripted || injected
}

/// The common settings of `scenario`, component by component.
pub fn offered_settings(scenario: &Scenario, lang: Lang) -> Vec<Setting> {
    let doc = serde_json::to_value(scenario).unwrap_or(Value::Null);
    let typed = every_field(scenario);
    let l = locale(lang);
    let mut out = Vec::new();
    let ack_labels = [
        td_string!(l, panels.params.options.ack_on_delivery),
        td_string!(l, panels.params.options.ack_after_commit),
    ];
    let idempotency_labels = [
        td_string!(l, panels.params.options.idempotency_none),
        td_string!(l, panels.params.options.check_then_insert),
        td_string!(l, panels.params.options.inbox),
    ];
    let inbox_key_labels = [
        td_string!(l, panels.compare.choice_inbox_key_message),
        td_string!(l, panels.compare.choice_inbox_key_entity),
    ];
    let trust_labels = [
        td_string!(l, panels.compare.choice_checks_authority),
        td_string!(l, panels.compare.choice_trusts_the_broker),
    ];
    let unauthorized = can_be_unauthorized(scenario);
    let jitter_labels = [
        td_string!(l, panels.compare.choice_jitter_none),
        td_string!(l, panels.compare.choice_jitter_full),
        td_string!(l, panels.compare.choice_jitter_equal),
    ];
    let flavour_labels = [
        td_string!(l, panels.params.options.generic),
        td_string!(l, panels.params.options.rabbitmq),
        td_string!(l, panels.params.options.sqs),
    ];
    let queue_type_labels = [
        td_string!(l, panels.compare.choice_classic),
        td_string!(l, panels.compare.choice_quorum),
    ];
    let mut add = |path: String, name: &str, what: &str, choices: &[&str], labels: &[&str]| {
        // A setting the file leaves out (a default it does not write) is offered at its
        // default, inside an object left out too (a consumer's `retry`): the variant adds
        // what is missing.
        let current = match current_value(&doc, &typed, &path) {
            Some(current) => current,
            None => return,
        };
        out.push(Setting {
            label: format!("{name}: {what}"),
            path,
            choices: choices.iter().map(|c| c.to_string()).collect(),
            choice_labels: choices
                .iter()
                .zip(labels)
                .map(|(c, label)| format!("{label} — {c}"))
                .collect(),
            current,
        });
    };
    for (i, c) in scenario.consumers.iter().enumerate() {
        let p = |field: &str| format!("consumers.{i}.{field}");
        let n = c.name.as_str();
        add(
            p("ack"),
            n,
            td_string!(l, panels.compare.setting_ack),
            &ACK,
            &ack_labels,
        );
        let idem = td_string!(l, panels.compare.setting_idempotency);
        add(p("idempotency"), n, idem, &IDEMPOTENCY, &idempotency_labels);
        if c.idempotency == Idempotency::Inbox {
            let key = td_string!(l, panels.compare.setting_inbox_key);
            add(p("inbox_key"), n, key, &INBOX_KEY, &inbox_key_labels);
        }
        if unauthorized || c.trusts_the_broker {
            let trust = td_string!(l, panels.compare.setting_trusts_the_broker);
            add(p("trusts_the_broker"), n, trust, &TRUST, &trust_labels);
        }
        add(
            p("replicas"),
            n,
            td_string!(l, panels.compare.setting_replicas),
            &[],
            &[],
        );
        let conc = td_string!(l, panels.compare.setting_concurrency);
        add(p("concurrency"), n, conc, &[], &[]);
        add(
            p("prefetch"),
            n,
            td_string!(l, panels.compare.setting_prefetch),
            &[],
            &[],
        );
        let attempts = td_string!(l, panels.compare.setting_max_attempts);
        add(p("retry.max_attempts"), n, attempts, &[], &[]);
        add(
            p("retry.jitter"),
            n,
            td_string!(l, panels.compare.setting_jitter),
            &JITTER,
            &jitter_labels,
        );
    }
    for (i, q) in scenario.queues.iter().enumerate() {
        let n = q.name.as_str();
        let flavour = td_string!(l, panels.compare.setting_flavour);
        add(
            format!("queues.{i}.flavour"),
            n,
            flavour,
            &FLAVOUR,
            &flavour_labels,
        );
        let kind = td_string!(l, panels.compare.setting_queue_type);
        add(
            format!("queues.{i}.queue_type"),
            n,
            kind,
            &QUEUE_TYPE,
            &queue_type_labels,
        );
    }
    for (i, log) in scenario.logs.iter().enumerate() {
        let parts = td_string!(l, panels.compare.setting_partitions);
        add(format!("logs.{i}.partitions"), &log.name, parts, &[], &[]);
    }
    for (i, g) in scenario.groups.iter().enumerate() {
        let members = td_string!(l, panels.compare.setting_members);
        add(format!("groups.{i}.members"), &g.name, members, &[], &[]);
        let idem = td_string!(l, panels.compare.setting_idempotency);
        add(
            format!("groups.{i}.idempotency"),
            &g.name,
            idem,
            &IDEMPOTENCY,
            &idempotency_labels,
        );
        if g.idempotency == Idempotency::Inbox {
            let key = td_string!(l, panels.compare.setting_inbox_key);
            let path = format!("groups.{i}.inbox_key");
            add(path, &g.name, key, &INBOX_KEY, &inbox_key_labels);
        }
        if unauthorized || g.trusts_the_broker {
            let trust = td_string!(l, panels.compare.setting_trusts_the_broker);
            let path = format!("groups.{i}.trusts_the_broker");
            add(path, &g.name, trust, &TRUST, &trust_labels);
        }
    }
    out
}

/// A refused comparison in one sentence, in either language: the core's reason, which may
/// echo what was typed, cut short.
pub fn refused(e: ScenarioError) -> Words {
    Words::new(move |lang| {
        td_string!(
            locale(lang),
            panels.compare.refused,
            why = shortened(&e.text_in(lang))
        )
        .to_string()
    })
}

/// The variant the form asks for: the free `path = value` text when there is one, else the
/// picked setting and value. A text that is not `KEY=VALUE` is refused (the core's words).
pub fn variant_of(free: &str, path: &str, value: &str) -> Result<Variant, ScenarioError> {
    let text = if free.trim().is_empty() {
        format!("{path}={}", value.trim())
    } else {
        free.trim().to_string()
    };
    let change = Change::parse(&text)?;
    Ok(Variant {
        changes: vec![change],
    })
}

/// One counter on both sides, as the table shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct CounterRow {
    /// The counter's name in the core (`duplicate_effects`).
    pub name: String,
    pub label: String,
    pub a: u64,
    pub b: u64,
}

impl CounterRow {
    pub fn differs(&self) -> bool {
        self.a != self.b
    }

    /// B minus A, signed (`+1`, `−2`, `0`).
    pub fn delta_text(&self) -> String {
        let d = i128::from(self.b) - i128::from(self.a);
        match d {
            0 => "0".into(),
            d if d > 0 => format!("+{d}"),
            d => format!("−{}", d.unsigned_abs()),
        }
    }
}

/// Every counter that is not zero on both sides, in the core's order.
pub fn counter_rows(a: &Player, b: &Player, lang: Lang) -> Vec<CounterRow> {
    counter_pairs(a.sim().counters(), b.sim().counters())
        .into_iter()
        .filter(|p| p.a != 0 || p.b != 0)
        .map(|p| CounterRow {
            label: counter_label(&p.name, lang),
            name: p.name,
            a: p.a,
            b: p.b,
        })
        .collect()
}

/// A counter's name on the page: the counters panel's word where it has one, else its
/// own (every counter of the core has one: see the test
/// `every_counter_has_a_name_in_both_languages`; a new one shows the core's name).
fn counter_label(name: &str, lang: Lang) -> String {
    counter_word(name, lang).unwrap_or_else(|| name.replace('_', " "))
}

fn counter_word(name: &str, lang: Lang) -> Option<String> {
    let l = locale(lang);
    let word = match name {
        "published" => td_string!(l, stage.counters.published),
        "delivered" => td_string!(l, stage.counters.delivered),
        "acked" => td_string!(l, stage.counters.acked),
        "redelivered" => td_string!(l, stage.counters.redelivered),
        "crashes" => td_string!(l, stage.counters.crashes),
        "lost" => td_string!(l, stage.counters.lost),
        "duplicate_effects" => td_string!(l, stage.counters.duplicate_effects),
        "dead_lettered" => td_string!(l, stage.counters.dead_lettered),
        "retries_scheduled" => td_string!(l, stage.counters.retries),
        "redriven" => td_string!(l, stage.counters.redriven),
        "duplicates_skipped" => td_string!(l, stage.counters.duplicates_skipped),
        "refused" => td_string!(l, stage.counters.refused),
        "dropped" => td_string!(l, stage.counters.dropped),
        "expired" => td_string!(l, stage.counters.expired),
        "leases_expired" => td_string!(l, stage.counters.leases_expired),
        "broker_crashes" => td_string!(l, stage.counters.broker_crashes),
        "created" => td_string!(l, panels.compare.counter_names.created),
        "acks_ignored" => td_string!(l, panels.compare.counter_names.acks_ignored),
        "acks_lost" => td_string!(l, panels.compare.counter_names.acks_lost),
        "lost_acked_before_effect" => {
            td_string!(l, panels.compare.counter_names.lost_acked_before_effect)
        }
        "lost_broker_restart" => td_string!(l, panels.compare.counter_names.lost_broker_restart),
        "lost_before_stored" => td_string!(l, panels.compare.counter_names.lost_before_stored),
        "lost_without_dead_letter_queue" => td_string!(
            l,
            panels.compare.counter_names.lost_without_dead_letter_queue
        ),
        "dead_letters_lost" => td_string!(l, panels.compare.counter_names.dead_letters_lost),
        "effects_applied" => td_string!(l, panels.compare.counter_names.effects_applied),
        "stale_ignored" => td_string!(l, panels.compare.counter_names.stale_ignored),
        "gap_waits" => td_string!(l, panels.compare.counter_names.gap_waits),
        "gaps_reconciled" => td_string!(l, panels.compare.counter_names.gaps_reconciled),
        "effects_refused" => td_string!(l, panels.compare.counter_names.effects_refused),
        "handler_failures" => td_string!(l, panels.compare.counter_names.handler_failures),
        "dead_lettered_again" => td_string!(l, panels.compare.counter_names.dead_lettered_again),
        "unroutable" => td_string!(l, panels.compare.counter_names.unroutable),
        "returned" => td_string!(l, panels.compare.counter_names.returned),
        "deduplicated" => td_string!(l, panels.compare.counter_names.deduplicated),
        "publish_attempts" => td_string!(l, panels.compare.counter_names.publish_attempts),
        "confirms" => td_string!(l, panels.compare.counter_names.confirms),
        "confirms_lost" => td_string!(l, panels.compare.counter_names.confirms_lost),
        "confirm_timeouts" => td_string!(l, panels.compare.counter_names.confirm_timeouts),
        "publish_failed" => td_string!(l, panels.compare.counter_names.publish_failed),
        "gave_up" => td_string!(l, panels.compare.counter_names.gave_up),
        "never_published" => td_string!(l, panels.compare.counter_names.never_published),
        "requests_refused" => td_string!(l, panels.compare.counter_names.requests_refused),
        "throttled" => td_string!(l, panels.compare.counter_names.throttled),
        "buffered" => td_string!(l, panels.compare.counter_names.buffered),
        "restarts" => td_string!(l, panels.compare.counter_names.restarts),
        "producer_crashes" => td_string!(l, panels.compare.counter_names.producer_crashes),
        "appended" => td_string!(l, panels.compare.counter_names.appended),
        "control_records" => td_string!(l, panels.compare.counter_names.control_records),
        "records_expired" => td_string!(l, panels.compare.counter_names.records_expired),
        "records_processed" => td_string!(l, panels.compare.counter_names.records_processed),
        "offsets_committed" => td_string!(l, panels.compare.counter_names.offsets_committed),
        "records_skipped" => td_string!(l, panels.compare.counter_names.records_skipped),
        "taken_for_duplicates" => {
            td_string!(l, panels.compare.counter_names.taken_for_duplicates)
        }
        "unauthorized_effects" => {
            td_string!(l, panels.compare.counter_names.unauthorized_effects)
        }
        "publishes_denied" => td_string!(l, panels.compare.counter_names.publishes_denied),
        "rebalances" => td_string!(l, panels.compare.counter_names.rebalances),
        "member_crashes" => td_string!(l, panels.compare.counter_names.member_crashes),
        "emails_sent" => td_string!(l, panels.compare.counter_names.emails_sent),
        "done" => td_string!(l, panels.compare.counter_names.done),
        "done_without_ack" => td_string!(l, panels.compare.counter_names.done_without_ack),
        "record_retries" => td_string!(l, panels.compare.counter_names.record_retries),
        "records_dead_lettered" => {
            td_string!(l, panels.compare.counter_names.records_dead_lettered)
        }
        "records_out_of_order" => td_string!(l, panels.compare.counter_names.records_out_of_order),
        _ => return None,
    };
    Some(word.to_string())
}

/// What a compare link holds for the two players: A's scenario as loaded before compare
/// mode (`original`, by name when it is a built-in example), each side's commands, the
/// shared clock.
pub fn shared_comparison_of(
    original: &Scenario,
    variant: &Variant,
    a: &Player,
    b: &Player,
    view: View,
) -> SharedComparison {
    SharedComparison {
        scenario: original.clone(),
        example: example_name_of(original),
        variant: variant.clone(),
        commands_a: a.sim().scenario().interventions.clone(),
        commands_b: b.sim().scenario().interventions.clone(),
        at_us: a.sim().now_us(),
        view,
    }
}

/// Both players where a compare link says: each side's commands replayed, at its instant.
pub fn players_of(shared: &SharedComparison) -> Result<(Player, Player), LinkProblem> {
    let refused = |e: ScenarioError| LinkProblem::CannotStart(e.to_string());
    let (mut a, mut b) = players(&shared.scenario, &shared.variant).map_err(refused)?;
    a.replay(shared.commands_a.clone(), 0, 0).map_err(refused)?;
    b.replay(shared.commands_b.clone(), 0, 0).map_err(refused)?;
    // The commands replayed may have moved either side's end.
    hold_to_later_end(&mut a, &mut b);
    a.seek_to(shared.at_us).map_err(refused)?;
    follow(&mut b, &a).map_err(refused)?;
    Ok((a, b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use brokerlab_core::link::{decode_comparison, encode_comparison, open, Opened};
    use brokerlab_core::{examples, secs_to_us, Command, ConsumerId, CrashPoint};

    fn inbox() -> Variant {
        variant_of("consumers.*.idempotency=inbox", "", "").expect("parses")
    }

    /// A's player, B's player for crash-after-commit with and without an inbox.
    fn pair() -> (Player, Player) {
        players(
            &examples::load("crash-after-commit").expect("built in"),
            &inbox(),
        )
        .expect("ok")
    }

    fn in_step(a: &Player, b: &Player) {
        assert_eq!(a.sim().now_us(), b.sim().now_us(), "same time");
        let (ca, cb) = (a.sim().counters(), b.sim().counters());
        assert_eq!(ca.published, cb.published, "same arrivals");
        assert_eq!(ca.crashes, cb.crashes, "same crashes");
    }

    #[test]
    fn both_sides_stay_at_the_same_time_after_any_operation() {
        let (mut a, mut b) = players(&examples::load("burst").expect("built in"), &inbox())
            .expect("a valid variant");
        let ops: [&dyn Fn(&mut Player); 7] = [
            &|p| {
                p.advance(300.0, 10.0);
            },
            &|p| {
                p.step_once();
            },
            &|p| {
                p.step_back().expect("back");
            },
            &|p| p.seek_to(secs_to_us(20.0)).expect("seek"),
            &|p| p.seek_to(secs_to_us(4.5)).expect("seek back"),
            &|p| p.reset().expect("reset"),
            &|p| p.set_seed(p.seed() + 1).expect("seed"),
        ];
        for round in 0..3 {
            for (i, op) in ops.iter().enumerate() {
                op(&mut a);
                if i == 5 {
                    b.reset().expect("reset");
                }
                follow(&mut b, &a).expect("follows");
                in_step(&a, &b);
                assert_eq!(a.seed(), b.seed(), "round {round} op {i}");
            }
            a.advance(900.0, 20.0);
            follow(&mut b, &a).expect("follows");
            in_step(&a, &b);
        }
        assert!(a.sim().counters().published > 0);
    }

    #[test]
    fn side_b_shows_tokens_when_a_plays_and_none_when_a_seeks() {
        use crate::model::flights::FlightBuffer;
        let (mut a, mut b) = players(&examples::load("burst").expect("built in"), &inbox())
            .expect("a valid variant");
        let mut drained = FlightBuffer::default();
        a.advance(300.0, 10.0);
        follow(&mut b, &a).expect("follows");
        b.drain_flights(&mut drained);
        assert!(
            !drained.is_empty(),
            "B moved with A's play: its tokens travel"
        );
        // A seek 90 s on: B catches up step by step, but nothing is to travel on screen
        // (it used to write "+86,690 published" under B's lanes).
        a.seek_to(secs_to_us(90.0)).expect("seek");
        follow(&mut b, &a).expect("follows");
        in_step(&a, &b);
        b.drain_flights(&mut drained);
        assert!(drained.is_empty(), "{} tokens after a seek", drained.len());
        // A step taken after the seek travels again on both sides.
        for _ in 0..20 {
            a.step_once();
            follow(&mut b, &a).expect("follows");
            b.drain_flights(&mut drained);
            if !drained.is_empty() {
                break;
            }
        }
        assert!(
            !drained.is_empty(),
            "a step after the seek shows B's tokens"
        );
    }

    #[test]
    fn the_shared_timeline_runs_to_the_end_of_the_side_that_ends_last() {
        // A acks on delivery: its consumer's crash loses the message, and A's story is
        // over at 2.2 s. B acks after the commit: the message waits for its lease to run
        // out, is delivered again and acked at 6.5 s. Side A drives the clock; it used to
        // stop at its own end, B's redelivery never shown.
        let story = examples::load("ack-before-effect").expect("built in");
        let variant = variant_of("consumers.*.ack=after_commit", "", "").expect("parses");
        let (mut a, mut b) = players(&story, &variant).expect("a valid variant");
        let (end_a, end_b) = (a.found_end_us(), b.found_end_us());
        assert!(end_a < end_b, "{end_a:?} {end_b:?}");
        let b_end_s = brokerlab_core::us_to_secs(end_b.expect("a short story"));
        assert_eq!(a.timeline_end_s(), b.timeline_end_s());
        assert_eq!(a.timeline_end_s(), (b_end_s * 10.0).ceil() / 10.0);
        let mut frames = 0;
        while !a.is_finished() {
            a.advance(100.0, 2.0);
            follow(&mut b, &a).expect("follows");
            in_step(&a, &b);
            frames += 1;
            assert!(frames < 1_000, "playing ends");
        }
        assert!(b.is_finished());
        assert_eq!(a.sim().now_us(), end_b.expect("found"));
        let (ca, cb) = (a.sim().counters(), b.sim().counters());
        assert_eq!((ca.acked, ca.redelivered), (0, 0), "A lost it");
        assert_eq!(
            (cb.acked, cb.redelivered),
            (1, 1),
            "B's redelivery is shown"
        );
        // Seeking there (the End key) reaches the same end; seeking back lifts nothing.
        let mut seeker = players(&story, &variant).expect("valid").0;
        seeker
            .seek_to(secs_to_us(seeker.timeline_end_s()))
            .expect("seek");
        assert!(seeker.is_finished());
        assert_eq!(seeker.sim().now_us(), end_b.expect("found"));
        seeker.seek_to(secs_to_us(1.0)).expect("seek back");
        assert!(!seeker.is_finished());
    }

    #[test]
    fn the_same_crash_strikes_both_and_only_the_design_differs() {
        let (mut a, mut b) = pair();
        a.seek_to(secs_to_us(60.0)).expect("seek");
        follow(&mut b, &a).expect("follows");
        in_step(&a, &b);
        let rows = counter_rows(&a, &b, Lang::En);
        let row = |name: &str| rows.iter().find(|r| r.name == name).cloned();
        let dup = row("duplicate_effects").expect("a duplicate on A");
        assert_eq!((dup.a, dup.b, dup.differs()), (1, 0, true));
        assert_eq!(dup.label, "Duplicate effects");
        assert_eq!(dup.delta_text(), "−1");
        let published = row("published").expect("published");
        assert!(!published.differs());
        assert_eq!(published.delta_text(), "0");
        let es = counter_rows(&a, &b, Lang::Es);
        assert!(es.iter().any(|r| r.label == "Efectos duplicados"));
    }

    #[test]
    fn a_crash_given_to_both_strikes_both_at_the_same_instant() {
        let (mut a, mut b) =
            players(&examples::load("mm1").expect("built in"), &inbox()).expect("valid");
        a.seek_to(secs_to_us(5.0)).expect("seek");
        follow(&mut b, &a).expect("follows");
        let crash = Command::CrashConsumer {
            consumer: ConsumerId::new(0),
            point: CrashPoint::Now,
            restart_after_s: Some(1.0),
        };
        a.command(crash.clone()).expect("A takes it");
        b.command(crash).expect("B takes it");
        a.seek_to(secs_to_us(20.0)).expect("seek");
        follow(&mut b, &a).expect("follows");
        in_step(&a, &b);
        assert_eq!(a.sim().counters().crashes, 1);
        // Back before the crash and forward again: both replay their own commands.
        a.seek_to(secs_to_us(2.0)).expect("seek");
        follow(&mut b, &a).expect("follows");
        a.seek_to(secs_to_us(20.0)).expect("seek");
        follow(&mut b, &a).expect("follows");
        assert_eq!(b.sim().counters().crashes, 1);
    }

    #[test]
    fn bad_variants_are_refused_in_the_cores_words() {
        let burst = examples::load("burst").expect("built in");
        assert!(variant_of("no equals sign", "", "").is_err());
        for bad in ["seed=3", "consumers.0.ack=sometimes", "nothing.here=1"] {
            let v = variant_of(bad, "", "").expect("parses");
            assert!(players(&burst, &v).is_err(), "{bad}");
        }
        let picked = variant_of("", "consumers.0.ack", "on_delivery").expect("parses");
        assert_eq!(variant_text(&picked), "consumers.0.ack = on_delivery");
        assert!(players(&burst, &picked).is_ok());
    }

    #[test]
    fn the_form_offers_each_consumers_settings_with_their_values() {
        let s = examples::load("crash-after-commit").expect("built in");
        let offered = offered_settings(&s, Lang::En);
        let ack = offered
            .iter()
            .find(|o| o.path == "consumers.0.ack")
            .expect("offered");
        assert_eq!(ack.current, "after_commit");
        assert_eq!(ack.choices, ["on_delivery", "after_commit"]);
        assert!(ack.label.ends_with(": ack mode"), "{}", ack.label);
        // Settings the file leaves at their defaults are offered at them: idempotency is
        // what this scenario teaches, and the form used to leave it out.
        let current = |path: &str| {
            offered
                .iter()
                .find(|o| o.path == path)
                .map(|o| o.current.clone())
        };
        assert_eq!(current("consumers.0.idempotency").as_deref(), Some("none"));
        assert_eq!(current("queues.0.flavour").as_deref(), Some("generic"));
        assert_eq!(current("queues.0.queue_type").as_deref(), Some("classic"));
        // Inside `retry`, which the file leaves out, at the defaults the run took.
        assert_eq!(
            current("consumers.0.retry.max_attempts").as_deref(),
            Some("5")
        );
        assert_eq!(current("consumers.0.retry.jitter").as_deref(), Some("full"));
        // Without an inbox, what keys it is no setting.
        assert_eq!(current("consumers.0.inbox_key"), None);
        let es = offered_settings(&s, Lang::Es);
        assert!(
            es[0].label.ends_with(": modo de confirmación (ack)"),
            "{}",
            es[0].label
        );
        // The values read in the page's language too, each with what the file writes
        // (the form listed only "on_delivery" and "after_commit", in Spanish as well).
        assert_eq!(
            es[0].choice_labels,
            [
                "Al entregar (como mucho una vez) — on_delivery",
                "Tras el commit (al menos una vez) — after_commit"
            ]
        );
        for o in offered.iter().chain(&es) {
            assert_eq!(o.choice_labels.len(), o.choices.len(), "{}", o.path);
        }
        // Every other choice makes a comparison; the value A has already is refused, since
        // both sides would run alike (the form starts B at A's value).
        for o in &offered {
            if let Some(other) = o.choices.iter().find(|c| **c != o.current) {
                let v = variant_of("", &o.path, other).expect("parses");
                assert!(players(&s, &v).is_ok(), "{} = {other}", o.path);
            }
            let same = variant_of("", &o.path, &o.current).expect("parses");
            let e = players(&s, &same).err().expect("the same value is refused");
            assert_eq!(
                e.text_in(Lang::Es),
                format!(
                    "{}: no cambia nada: el lado B se ejecutaría exactamente como el lado A",
                    o.path
                )
            );
        }
    }

    /// Checking the source's authority is offered where an unauthorised message can
    /// arrive, for every consumer, and turning it on for 'unchecked' makes a comparison
    /// whose side B applies no unauthorised effect.
    #[test]
    fn the_source_s_authority_is_offered_where_a_message_can_lack_it() {
        let s = examples::load("untrusted-source").expect("built in");
        let offered = offered_settings(&s, Lang::En);
        let trust = |i: usize| {
            offered
                .iter()
                .find(|o| o.path == format!("consumers.{i}.trusts_the_broker"))
                .expect("offered")
        };
        assert_eq!(
            (trust(0).current.as_str(), trust(1).current.as_str()),
            ("false", "true")
        );
        assert_eq!(
            trust(1).choice_labels,
            [
                "Checked before each effect — false",
                "Not checked: it trusts the broker — true"
            ]
        );
        assert!(trust(1).label.ends_with(": source's authority"));
        let v = variant_of("", "consumers.1.trusts_the_broker", "false").expect("parses");
        let (mut a, mut b) = players(&s, &v).expect("valid");
        a.seek_to(secs_to_us(10.0)).expect("seek");
        follow(&mut b, &a).expect("follows");
        assert_eq!(a.sim().counters().unauthorized_effects, 2);
        assert_eq!(b.sim().counters().unauthorized_effects, 0);
        assert_eq!(b.sim().counters().dead_lettered, 4);
        assert_eq!(
            counter_word("unauthorized_effects", Lang::En).as_deref(),
            Some("Unauthorised effects (handler trusts the broker)")
        );
        // Nothing unauthorised can arrive: the setting would change nothing, and is not offered.
        let other = examples::load("crash-after-commit").expect("built in");
        assert!(!offered_settings(&other, Lang::En)
            .iter()
            .any(|o| o.path.ends_with("trusts_the_broker")));
    }

    /// The untrusted-source story on a log read by two groups, the second trusting it.
    fn untrusted_log() -> Scenario {
        let mut s = examples::load("untrusted-source").expect("built in");
        let spec = serde_json::json!({
            "logs": [{ "name": "payments", "partitions": 1 }],
            "groups": [
                { "name": "checked", "log": "payments", "members": 1,
                  "service": { "fixed": { "seconds": 0.5 } }, "commit": "after_processing" },
                { "name": "unchecked", "log": "payments", "members": 1,
                  "service": { "fixed": { "seconds": 0.5 } }, "commit": "after_processing",
                  "trusts_the_broker": true }
            ]
        });
        s.exchanges.clear();
        s.queues.clear();
        s.consumers.clear();
        s.logs = serde_json::from_value(spec["logs"].clone()).expect("logs");
        s.groups = serde_json::from_value(spec["groups"].clone()).expect("groups");
        s
    }

    #[test]
    fn a_groups_trust_in_the_broker_is_offered_and_compared() {
        let s = untrusted_log();
        let offered = offered_settings(&s, Lang::En);
        let trust = |i: usize| {
            offered
                .iter()
                .find(|o| o.path == format!("groups.{i}.trusts_the_broker"))
                .map(|o| o.current.clone())
        };
        assert_eq!(
            (trust(0), trust(1)),
            (Some("false".into()), Some("true".into()))
        );
        let v = variant_of("", "groups.1.trusts_the_broker", "false").expect("parses");
        let (mut a, mut b) = players(&s, &v).expect("valid");
        a.seek_to(secs_to_us(10.0)).expect("seek");
        follow(&mut b, &a).expect("follows");
        assert_eq!(a.sim().counters().unauthorized_effects, 2);
        assert_eq!(b.sim().counters().unauthorized_effects, 0);
        let cards = crate::model::database::database_cards(a.sim());
        let summary = crate::model::database::database_summary(&cards[1], Lang::En);
        assert!(summary.contains("unauthorised effects 2"), "{summary}");
        let checked = crate::model::database::database_summary(&cards[0], Lang::En);
        assert!(!checked.contains("authori"), "{checked}");
        let broke = a.invariants();
        let authorised = broke
            .iter()
            .find(|st| st.property == crate::model::invariants::Property::OnlyAuthorizedEffects)
            .expect("the invariant");
        assert!(!authorised.holds, "{authorised:?}");
        assert!(
            authorised.breach.is_some(),
            "where it first broke: {authorised:?}"
        );
        assert_eq!(authorised.msg.map(|m| m.get()), Some(2));
    }

    /// The inbox-key story on a log read by two groups with an inbox, the second keyed by
    /// the entity (the account).
    fn inbox_key_log() -> Scenario {
        let mut s = examples::load("inbox-key-scope").expect("built in");
        let spec = serde_json::json!({
            "logs": [{ "name": "payments", "partitions": 1 }],
            "groups": [
                { "name": "by-message", "log": "payments", "members": 1,
                  "service": { "fixed": { "seconds": 0.5 } }, "commit": "after_processing",
                  "idempotency": "inbox" },
                { "name": "by-account", "log": "payments", "members": 1,
                  "service": { "fixed": { "seconds": 0.5 } }, "commit": "after_processing",
                  "idempotency": "inbox", "inbox_key": "entity" },
                { "name": "audit", "log": "payments", "members": 1,
                  "service": { "fixed": { "seconds": 0.5 } }, "commit": "after_processing" }
            ]
        });
        s.exchanges.clear();
        s.queues.clear();
        s.consumers.clear();
        s.commands.clear();
        s.logs = serde_json::from_value(spec["logs"].clone()).expect("logs");
        s.groups = serde_json::from_value(spec["groups"].clone()).expect("groups");
        s
    }

    #[test]
    fn a_groups_inbox_key_is_offered_and_compared() {
        let s = inbox_key_log();
        for lang in [Lang::En, Lang::Es] {
            let offered = offered_settings(&s, lang);
            let key = |i: usize| {
                offered
                    .iter()
                    .find(|o| o.path == format!("groups.{i}.inbox_key"))
                    .cloned()
            };
            let (g0, g1) = (key(0).expect("offered"), key(1).expect("offered"));
            assert_eq!(
                (g0.current.as_str(), g1.current.as_str()),
                ("message", "entity")
            );
            assert_eq!(g1.choices, ["message", "entity"]);
            // Without an inbox, what keys it is no setting.
            assert!(key(2).is_none(), "audit has no inbox");
            let (label, choice) = match lang {
                Lang::En => (
                    "by-account: inbox key",
                    "The entity (its account or order), as a correlation id — entity",
                ),
                Lang::Es => (
                    "by-account: clave del inbox",
                    "La entidad (su cuenta o pedido), como un id de correlación — entity",
                ),
            };
            assert_eq!(g1.label, label);
            assert_eq!(g1.choice_labels[1], choice);
        }
        let v = variant_of("", "groups.1.inbox_key", "message").expect("parses");
        let (mut a, mut b) = players(&s, &v).expect("valid");
        a.seek_to(secs_to_us(10.0)).expect("seek");
        follow(&mut b, &a).expect("follows");
        assert_eq!(a.sim().counters().taken_for_duplicates, 2);
        assert_eq!(b.sim().counters().taken_for_duplicates, 0);
        assert_eq!(a.readout().lost_for_good(), 2);
        let group = brokerlab_core::GroupId::new(1);
        let balance = |p: &Player| p.sim().group_tables(group).expect("tables").aggregate(42);
        assert_eq!((balance(&a).balance, balance(&b).balance), (100, 50));
        let cards = crate::model::database::database_cards(a.sim());
        let summary = crate::model::database::database_summary(&cards[1], Lang::En);
        assert!(
            summary.ends_with("inbox rows 2, keyed by the entity"),
            "{summary}"
        );
        let plain = crate::model::database::database_summary(&cards[0], Lang::En);
        assert!(plain.ends_with("inbox rows 4"), "{plain}");
        let lost = a
            .invariants()
            .into_iter()
            .find(|st| st.property == crate::model::invariants::Property::NoMessageLost)
            .expect("the invariant");
        assert!(!lost.holds, "{lost:?}");
        assert_eq!(lost.msg.map(|m| m.get()), Some(1), "the first withdrawal");
        assert!(b.invariants().iter().all(|st| st.property
            != crate::model::invariants::Property::NoMessageLost
            || st.holds));
    }

    #[test]
    fn a_compare_link_round_trips_through_the_page() {
        let original = examples::load("crash-after-commit").expect("built in");
        let (mut a, mut b) = players(&original, &inbox()).expect("valid");
        a.seek_to(secs_to_us(1.0)).expect("seek");
        follow(&mut b, &a).expect("follows");
        b.command(Command::CrashConsumer {
            consumer: ConsumerId::new(0),
            point: CrashPoint::Now,
            restart_after_s: Some(0.5),
        })
        .expect("B takes it");
        a.seek_to(secs_to_us(2.0)).expect("seek");
        follow(&mut b, &a).expect("follows");
        let shared = shared_comparison_of(&original, &inbox(), &a, &b, View::default());
        assert_eq!(shared.example.as_deref(), Some("crash-after-commit"));
        let text = encode_comparison(&shared);
        assert!(matches!(open(&text), Ok(Opened::Compare(_))));
        let (a2, b2) = players_of(&decode_comparison(&text).expect("opens")).expect("starts");
        assert_eq!(a2.sim().now_us(), a.sim().now_us());
        assert_eq!(a2.readout(), a.readout());
        assert_eq!(b2.readout(), b.readout());
        assert_eq!(b2.sim().scenario().interventions.len(), 1);
        assert_eq!(
            counter_rows(&a2, &b2, Lang::En),
            counter_rows(&a, &b, Lang::En)
        );
    }

    #[test]
    fn every_counter_has_a_name_in_both_languages() {
        let counters = brokerlab_core::Counters::default();
        let pairs = brokerlab_core::compare::counter_pairs(&counters, &counters);
        assert!(pairs.len() > 40, "the core's counters: {}", pairs.len());
        for p in pairs {
            let en = counter_word(&p.name, Lang::En);
            let es = counter_word(&p.name, Lang::Es);
            assert!(
                en.is_some() && es.is_some(),
                "{} has no name on the page",
                p.name
            );
            assert_ne!(en, es, "{} is the same in both languages", p.name);
        }
    }
}
