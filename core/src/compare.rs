//! Compare mode: one scenario and seed played under two configurations on one clock.
//!
//! Side A is the scenario; side B is A with a [`Variant`] applied — a list of settings
//! changes, each a path into the scenario's own JSON and a new value
//! (`consumers.*.idempotency = "inbox"`), or a second whole scenario that keeps A's
//! producers, seed and scheduled commands. Both sides draw their producers' randomness
//! from streams of their own ([`RandomStreams::PerProducer`]), so what consumers, retries
//! or leases draw on one side cannot shift the other side's arrivals: the same messages
//! arrive at the same instants, the same scheduled faults strike at the same instants,
//! and every difference in the counters comes from the configuration.
//!
//! [`Comparison::advance_to`] moves both sides to the same simulated instant;
//! [`Comparison::command`] gives a command to one side or both at the current instant
//! (each side records it against its own step count, so each replays exactly).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::metrics::{Counters, Summary};
use crate::scenario::{Command, Intervention, RandomStreams, Scenario, ScenarioError};
use crate::sim::Simulation;
use crate::time::Micros;

/// Most changes one variant may hold.
pub const CHANGES_MAX: usize = 64;
/// Longest path of one change.
pub const PATH_LEN_MAX: usize = 200;

/// One settings change: where in the scenario (dot-separated field names; a number picks
/// one element of a list, `*` every element) and the new value, as the scenario file
/// writes it. `null` removes an optional setting.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Change {
    pub path: String,
    pub value: Value,
}

impl Change {
    /// `KEY=VALUE` as the runner's `--set` takes it: VALUE is JSON when it parses as JSON
    /// (`10`, `true`, `{"fixed":{"seconds":0.1}}`), else a plain string (`inbox`).
    pub fn parse(text: &str) -> Result<Change, ScenarioError> {
        let (path, value) = text.split_once('=').ok_or_else(|| ScenarioError {
            field: "variant".into(),
            problem: format!("{:?} is not KEY=VALUE", crate::text::one_line(text)),
        })?;
        let value = serde_json::from_str(value).unwrap_or_else(|_| Value::String(value.into()));
        Ok(Change {
            path: path.trim().to_string(),
            value,
        })
    }
}

/// What side B changes from side A.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Variant {
    pub changes: Vec<Change>,
}

/// Which side a command goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    A,
    B,
    Both,
}

/// One counter on both sides.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CounterPair {
    /// The counter's name, as in [`Counters`] and the runner's JSON.
    pub name: String,
    pub a: u64,
    pub b: u64,
}

impl CounterPair {
    /// B minus A.
    pub fn delta(&self) -> i128 {
        i128::from(self.b) - i128::from(self.a)
    }
}

/// Two runs in lockstep.
#[derive(Clone)]
pub struct Comparison {
    a: Simulation,
    b: Simulation,
    variant: Variant,
}

/// Why a variant that changes nothing is refused (`Comparison::new`).
const UNCHANGED: &str = "changes nothing: side B would run exactly as side A";

impl Comparison {
    /// Side A is `base`, side B is `base` with `variant` applied. Commands `base` has
    /// recorded (its interventions, pinned to A's steps) stay with side A; B starts with
    /// none.
    ///
    /// A variant that leaves `base` as it is, when `base` has no commands recorded either,
    /// is refused: both sides would run step for step alike, which is never what someone
    /// starting a comparison means (a value typed over the one A already has).
    pub fn new(base: Scenario, variant: Variant) -> Result<Comparison, ScenarioError> {
        if base.interventions.is_empty() && variant.apply(&base)? == base {
            let field = match variant.changes.as_slice() {
                [one] => crate::text::one_line(&one.path),
                _ => "variant".into(),
            };
            return Err(ScenarioError {
                field,
                problem: UNCHANGED.into(),
            });
        }
        let (a, b) = (base.interventions.clone(), Vec::new());
        Self::with_commands(base, variant, a, b)
    }

    /// Two whole scenarios; they must share seed, producers and scheduled commands.
    pub fn of_scenarios(a: Scenario, b: Scenario) -> Result<Comparison, ScenarioError> {
        check_same_inputs(&a, &b)?;
        Ok(Comparison {
            a: Simulation::new(for_comparison(a))?,
            b: Simulation::new(for_comparison(b))?,
            variant: Variant::default(),
        })
    }

    /// Side A is `base` with `commands_a` recorded, side B is `base` with `variant`
    /// applied and `commands_b` recorded (what a compare link replays).
    pub fn with_commands(
        base: Scenario,
        variant: Variant,
        commands_a: Vec<Intervention>,
        commands_b: Vec<Intervention>,
    ) -> Result<Comparison, ScenarioError> {
        let mut b = variant.apply(&base)?;
        check_same_inputs(&base, &b)?;
        let mut a = base;
        a.interventions = commands_a;
        b.interventions = commands_b;
        Ok(Comparison {
            a: Simulation::new(for_comparison(a))?,
            b: Simulation::new(for_comparison(b))?,
            variant,
        })
    }

    /// The commands each side has been given, as a link records them.
    pub fn commands(&self) -> (Vec<Intervention>, Vec<Intervention>) {
        (
            self.a.scenario().interventions.clone(),
            self.b.scenario().interventions.clone(),
        )
    }

    pub fn variant(&self) -> &Variant {
        &self.variant
    }

    /// Side A or B (for `Both`, A).
    pub fn side(&self, side: Side) -> &Simulation {
        match side {
            Side::B => &self.b,
            Side::A | Side::Both => &self.a,
        }
    }

    /// The shared clock: where both sides stand. A side that has nothing left to do
    /// waits for the other, so when only one side is over, the other's clock is the
    /// shared one (run to their ends, the comparison stands at the later end, not at the
    /// end of the side that finished first); while both go on, the earlier.
    pub fn now_us(&self) -> Micros {
        let (a, b) = (self.a.now_us(), self.b.now_us());
        match (self.a.is_finished(), self.b.is_finished()) {
            (true, true) => a.max(b),
            (true, false) => b,
            (false, true) => a,
            (false, false) => a.min(b),
        }
    }

    /// Runs both sides to `t_us` (each stops earlier at its own end).
    pub fn advance_to(&mut self, t_us: Micros) {
        self.a.run_until(t_us);
        self.b.run_until(t_us);
    }

    /// Runs both sides to their end.
    pub fn run(&mut self) {
        self.a.run();
        self.b.run();
    }

    /// Whether both sides have nothing left to do.
    pub fn is_finished(&self) -> bool {
        self.a.is_finished() && self.b.is_finished()
    }

    /// Gives `command` to one side or both, now. With `Both`, it is checked against both
    /// sides first, so it is applied to both or to neither.
    pub fn command(&mut self, side: Side, command: Command) -> Result<(), ScenarioError> {
        let targets: &mut [&mut Simulation] = match side {
            Side::A => &mut [&mut self.a],
            Side::B => &mut [&mut self.b],
            Side::Both => &mut [&mut self.a, &mut self.b],
        };
        for sim in targets.iter() {
            sim.check_command(&command)?;
        }
        for sim in targets.iter_mut() {
            sim.command(command.clone())?;
        }
        Ok(())
    }

    /// Both sides' headline numbers.
    pub fn summaries(&self) -> (Summary, Summary) {
        (self.a.summary(), self.b.summary())
    }

    /// Every counter on both sides, in [`Counters`]' order.
    pub fn counters(&self) -> Vec<CounterPair> {
        counter_pairs(self.a.counters(), self.b.counters())
    }

    /// Only the counters that differ.
    pub fn differences(&self) -> Vec<CounterPair> {
        self.counters().into_iter().filter(|p| p.a != p.b).collect()
    }
}

/// A side's scenario as compare mode runs it: producers on streams of their own.
fn for_comparison(mut s: Scenario) -> Scenario {
    s.random_streams = RandomStreams::PerProducer;
    s
}

/// Pairs two sets of counters field by field (through their serialized form, so a new
/// counter is compared without a change here).
pub fn counter_pairs(a: &Counters, b: &Counters) -> Vec<CounterPair> {
    let fields = |c: &Counters| match serde_json::to_value(c) {
        Ok(Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    };
    let (fa, fb) = (fields(a), fields(b));
    fa.iter()
        .map(|(name, va)| CounterPair {
            name: name.clone(),
            a: va.as_u64().unwrap_or(0),
            b: fb.get(name).and_then(Value::as_u64).unwrap_or(0),
        })
        .collect()
}

/// Both sides must see the same arrivals and the same scheduled faults: same seed, same
/// producers' arrivals, keys and payloads, same scheduled commands. (Commands given while
/// playing may differ: each side has its own.)
pub(crate) fn check_same_inputs(a: &Scenario, b: &Scenario) -> Result<(), ScenarioError> {
    let differ = |field: &str, what: &str| {
        Err(ScenarioError {
            field: field.into(),
            problem: format!("side B must keep side A's {what}"),
        })
    };
    if a.seed != b.seed {
        return differ("seed", "seed");
    }
    if a.producers.len() != b.producers.len() {
        return differ("producers", "producers");
    }
    for (i, (pa, pb)) in a.producers.iter().zip(&b.producers).enumerate() {
        let same = pa.arrivals == pb.arrivals
            && pa.count == pb.count
            && pa.payload == pb.payload
            && pa.script == pb.script;
        if !same {
            return differ(
                &format!("producers[{i}]"),
                "arrivals, count, payload and script",
            );
        }
    }
    if a.commands != b.commands {
        return differ("commands", "scheduled commands");
    }
    Ok(())
}

impl Variant {
    /// The scenario `base` with every change applied in order, validated.
    pub fn apply(&self, base: &Scenario) -> Result<Scenario, ScenarioError> {
        if self.changes.len() > CHANGES_MAX {
            return Err(variant_error(format!("at most {CHANGES_MAX} changes")));
        }
        let mut doc = serde_json::to_value(base).expect("a scenario always serializes");
        for change in &self.changes {
            set_path(&mut doc, &change.path, &change.value)?;
        }
        // A refusal names the field at fault ("consumers[0].prefetch"), not the variant.
        let b: Scenario = crate::decode::decode(doc.clone()).map_err(|e| {
            let path = crate::decode::failing_path::<Scenario>(&doc, &e);
            ScenarioError {
                field: if path.is_empty() {
                    "variant".into()
                } else {
                    path
                },
                problem: format!("does not make a valid scenario: {e}"),
            }
        })?;
        b.validate()?;
        Ok(b)
    }
}

fn variant_error(problem: String) -> ScenarioError {
    ScenarioError {
        field: "variant".into(),
        problem,
    }
}

/// Sets `value` at `path` in `doc`: a missing last field is added (an optional setting
/// the file left out); a missing field on the way, or a bad index, is an error.
fn set_path(doc: &mut Value, path: &str, value: &Value) -> Result<(), ScenarioError> {
    if path.is_empty() || path.len() > PATH_LEN_MAX {
        return Err(variant_error(format!(
            "a path has 1 to {PATH_LEN_MAX} characters"
        )));
    }
    let parts: Vec<&str> = path.split('.').collect();
    let mut hits = 0;
    set_parts(doc, &parts, value, &mut hits).map_err(|problem| ScenarioError {
        field: format!("variant.{}", crate::text::one_line(path)),
        problem,
    })?;
    if hits == 0 {
        return Err(variant_error(format!(
            "{:?} names no setting (an empty list?)",
            crate::text::one_line(path)
        )));
    }
    Ok(())
}

fn set_parts(
    node: &mut Value,
    parts: &[&str],
    value: &Value,
    hits: &mut usize,
) -> Result<(), String> {
    let Some((head, rest)) = parts.split_first() else {
        *node = value.clone();
        *hits += 1;
        return Ok(());
    };
    match node {
        Value::Array(items) if *head == "*" => items
            .iter_mut()
            .try_for_each(|item| set_parts(item, rest, value, hits)),
        Value::Array(items) => {
            let i: usize = head
                .parse()
                .map_err(|_| format!("{head:?}: a list wants an index or *"))?;
            let len = items.len();
            let item = items.get_mut(i).ok_or_else(|| match len {
                1 => format!("index {i} is past the end (1 entry)"),
                _ => format!("index {i} is past the end ({len} entries)"),
            })?;
            set_parts(item, rest, value, hits)
        }
        Value::Object(map) if rest.is_empty() => {
            if value.is_null() {
                map.remove(*head);
            } else {
                map.insert(head.to_string(), value.clone());
            }
            *hits += 1;
            Ok(())
        }
        // A part left out of the file stands at its defaults (`retry` of a consumer
        // that never retries): it starts empty here, and the scenario's own check then
        // fills in the rest, or refuses a part that does not exist.
        Value::Object(map) => {
            let child = map
                .entry(head.to_string())
                .or_insert_with(|| Value::Object(Default::default()));
            set_parts(child, rest, value, hits)
        }
        _ => Err(format!("{head:?}: this setting has no parts")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_parses_json_or_a_plain_string() {
        let c = Change::parse("consumers.*.prefetch=10").unwrap();
        assert_eq!(c.path, "consumers.*.prefetch");
        assert_eq!(c.value, Value::from(10));
        let c = Change::parse("queues.0.flavour=rabbitmq").unwrap();
        assert_eq!(c.value, Value::from("rabbitmq"));
        assert!(Change::parse("no equals sign").is_err());
    }

    #[test]
    fn a_variant_changes_what_it_names_and_nothing_else() {
        let base = crate::examples::load("inbox-vs-check").unwrap();
        let v = Variant {
            changes: vec![Change::parse("consumers.*.idempotency=none").unwrap()],
        };
        let b = v.apply(&base).unwrap();
        assert!(b
            .consumers
            .iter()
            .all(|c| c.idempotency == crate::Idempotency::None));
        let mut back = b.clone();
        back.consumers = base.consumers.clone();
        assert_eq!(back, base);
    }

    #[test]
    fn bad_changes_are_refused() {
        let base = crate::examples::load("burst").unwrap();
        for bad in [
            "consumers.*.ack=sometimes",
            "consumers.99.ack=on_delivery",
            "nothing.here=1",
            "queues.0.no_such_setting=1",
            "seed=3",
            "producers.0.count=5",
        ] {
            let v = Variant {
                changes: vec![Change::parse(bad).unwrap()],
            };
            let result = v
                .apply(&base)
                .and_then(|b| Comparison::of_scenarios(base.clone(), b));
            assert!(result.is_err(), "{bad}");
        }
    }

    /// `retry` is left out of a file whose consumers keep its defaults: one of its
    /// fields can still be changed alone, and the others keep their defaults. A part
    /// that does not exist is still refused.
    #[test]
    fn a_part_left_out_of_the_file_is_changed_from_its_defaults() {
        let base = crate::examples::load("mm1").unwrap();
        assert!(!crate::examples::find("mm1").unwrap().json.contains("retry"));
        let apply = |change: &str| {
            Variant {
                changes: vec![Change::parse(change).unwrap()],
            }
            .apply(&base)
        };
        let b = apply("consumers.0.retry.max_attempts=2").unwrap();
        let retry = &b.consumers[0].retry;
        assert_eq!(retry.max_attempts, 2);
        assert_eq!(
            (retry.backoff_base_s, retry.backoff_cap_s, retry.jitter),
            (1.0, 60.0, crate::Jitter::Full)
        );
        for bad in [
            "consumers.0.retyr.max_attempts=2",
            "consumers.0.retry.tries=2",
        ] {
            assert!(apply(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn an_index_past_the_end_counts_the_entries_in_the_singular_for_one() {
        let base = crate::examples::load("crash-after-commit").unwrap();
        assert_eq!(base.consumers.len(), 1);
        let refusal = |change: &str| {
            let v = Variant {
                changes: vec![Change::parse(change).unwrap()],
            };
            let e = v.apply(&base).unwrap_err();
            (e.to_string(), e.text_in(crate::lang::Lang::Es))
        };
        let (en, es) = refusal("consumers.99.prefetch=2");
        assert!(en.contains("index 99 is past the end (1 entry)"), "{en}");
        assert!(
            es.contains("el índice 99 está fuera de la lista (1 elemento)"),
            "{es}"
        );
    }
}
