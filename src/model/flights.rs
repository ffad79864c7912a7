//! Message tokens, the pure part: which facts move a message from one component to another
//! ("flights"), a bounded per-frame buffer of them, and the sky of tokens being drawn with
//! its per-edge count badges once there are more than can be drawn. No browser code here,
//! so all of it is tested natively; `tokens.rs` draws it.

use std::fmt;

use brokerlab_core::lessons::Lang;
use brokerlab_core::{ConsumerId, Fact, GroupId, MsgId, ProducerId, QueueId, Simulation};

use super::participants::{self, Move, Party};
use crate::i18n::{locale, td_string};

/// A component of the diagram a token can leave or reach. Its text form is the card's
/// `data-node` attribute ("producer-0", "queue-1", "consumer-3", "broker", "dlq-1",
/// "db", "log-0", "group-0").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    Producer(ProducerId),
    Broker,
    Queue(QueueId),
    /// A queue's dead-letter queue.
    Dlq(QueueId),
    Consumer(ConsumerId),
    Database,
    Log(u32),
    Group(GroupId),
}

impl Node {
    /// Parses a `data-node` attribute; `None` for anything else.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "broker" => return Some(Node::Broker),
            "db" => return Some(Node::Database),
            "consumers" => return Some(Node::Consumer(Node::ALL_CONSUMERS)),
            _ => {}
        }
        // A group's tokens go to its member cards ("member-G-M") on the diagram.
        if let Some(rest) = s.strip_prefix("member-") {
            let group = rest.split('-').next()?.parse().ok()?;
            return Some(Node::Group(GroupId::new(group)));
        }
        let (kind, index) = s.rsplit_once('-')?;
        let index: u32 = index.parse().ok()?;
        Some(match kind {
            "producer" => Node::Producer(ProducerId::new(index)),
            "queue" => Node::Queue(QueueId::new(index)),
            "dlq" => Node::Dlq(QueueId::new(index)),
            "consumer" => Node::Consumer(ConsumerId::new(index)),
            "log" => Node::Log(index),
            "group" => Node::Group(GroupId::new(index)),
            _ => return None,
        })
    }

    /// The producer standing for every producer.
    pub const ALL_PRODUCERS: ProducerId = ProducerId::new(u32::MAX);
    /// The consumer standing for every consumer.
    pub const ALL_CONSUMERS: ConsumerId = ConsumerId::new(u32::MAX);
    /// The group standing for every group.
    pub const ALL_GROUPS: GroupId = GroupId::new(u32::MAX);

    /// The same node with producers, consumers and groups merged into one per kind: counts
    /// are kept per queue, not per consumer (20 consumers would make 20 unreadable badges).
    pub fn merged(self) -> Self {
        match self {
            Node::Producer(_) => Node::Producer(Node::ALL_PRODUCERS),
            Node::Consumer(_) => Node::Consumer(Node::ALL_CONSUMERS),
            Node::Group(_) => Node::Group(Node::ALL_GROUPS),
            n => n,
        }
    }

    /// Whether `other` is this node, or one of those it stands for when merged.
    pub fn covers(self, other: Node) -> bool {
        match self {
            Node::Producer(Node::ALL_PRODUCERS)
            | Node::Consumer(Node::ALL_CONSUMERS)
            | Node::Group(Node::ALL_GROUPS) => other.merged() == self,
            _ => self == other,
        }
    }

    /// Where to draw a token for this node when the diagram has no card of its own for it
    /// (a dead-letter queue drawn inside its queue's card, a log inside the broker, a
    /// consumer folded into the summary card of a crowded lane).
    pub fn fallback(self) -> Option<Self> {
        match self {
            Node::Dlq(q) => Some(Node::Queue(q)),
            Node::Queue(_) | Node::Log(_) => Some(Node::Broker),
            // A crowded consumers lane folds its cards into one summary card.
            Node::Consumer(c) if c != Node::ALL_CONSUMERS => {
                Some(Node::Consumer(Node::ALL_CONSUMERS))
            }
            Node::Group(_) => Some(Node::Consumer(Node::ALL_CONSUMERS)),
            _ => None,
        }
    }
}

impl fmt::Display for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Node::Producer(i) => write!(f, "producer-{i}"),
            Node::Broker => f.write_str("broker"),
            Node::Queue(i) => write!(f, "queue-{i}"),
            Node::Dlq(i) => write!(f, "dlq-{i}"),
            Node::Consumer(i) => write!(f, "consumer-{i}"),
            Node::Database => f.write_str("db"),
            Node::Log(i) => write!(f, "log-{i}"),
            Node::Group(i) => write!(f, "group-{i}"),
        }
    }
}

/// What a token stands for. Each kind has its own colour and its own shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Publish,
    Confirm,
    Deliver,
    Redeliver,
    Ack,
    /// A handler failure sent back to the broker (to be retried or dead-lettered).
    Nack,
    DeadLetter,
    Redrive,
    Lost,
    /// An effect applied a second time.
    Duplicate,
}

impl Kind {
    pub const ALL: [Kind; 10] = [
        Kind::Publish,
        Kind::Confirm,
        Kind::Deliver,
        Kind::Redeliver,
        Kind::Ack,
        Kind::Nack,
        Kind::DeadLetter,
        Kind::Redrive,
        Kind::Lost,
        Kind::Duplicate,
    ];

    /// A short name: in test attributes, and after a count ("+312 delivered").
    pub fn name(self) -> &'static str {
        match self {
            Kind::Publish => "publish",
            Kind::Confirm => "confirm",
            Kind::Deliver => "deliver",
            Kind::Redeliver => "redeliver",
            Kind::Ack => "ack",
            Kind::Nack => "nack",
            Kind::DeadLetter => "dead-letter",
            Kind::Redrive => "redrive",
            Kind::Lost => "lost",
            Kind::Duplicate => "duplicate",
        }
    }

    /// Words after a badge's count.
    pub fn past(self, lang: Lang) -> &'static str {
        let l = locale(lang);
        match self {
            Kind::Publish => td_string!(l, stage.tokens.past_publish),
            Kind::Confirm => td_string!(l, stage.tokens.past_confirm),
            Kind::Deliver => td_string!(l, stage.tokens.past_deliver),
            Kind::Redeliver => td_string!(l, stage.tokens.past_redeliver),
            Kind::Ack => td_string!(l, stage.tokens.past_ack),
            Kind::Nack => td_string!(l, stage.tokens.past_nack),
            Kind::DeadLetter => td_string!(l, stage.tokens.past_dead_letter),
            Kind::Redrive => td_string!(l, stage.tokens.past_redrive),
            Kind::Lost => td_string!(l, stage.tokens.past_lost),
            Kind::Duplicate => td_string!(l, stage.tokens.past_duplicate),
        }
    }

    /// The legend's words.
    pub fn legend(self, lang: Lang) -> &'static str {
        let l = locale(lang);
        match self {
            Kind::Publish => td_string!(l, stage.tokens.legend_publish),
            Kind::Confirm => td_string!(l, stage.tokens.legend_confirm),
            Kind::Deliver => td_string!(l, stage.tokens.legend_deliver),
            Kind::Redeliver => td_string!(l, stage.tokens.legend_redeliver),
            Kind::Ack => td_string!(l, stage.tokens.legend_ack),
            Kind::Nack => td_string!(l, stage.tokens.legend_nack),
            Kind::DeadLetter => td_string!(l, stage.tokens.legend_dead_letter),
            Kind::Redrive => td_string!(l, stage.tokens.legend_redrive),
            Kind::Lost => td_string!(l, stage.tokens.legend_lost),
            Kind::Duplicate => td_string!(l, stage.tokens.legend_duplicate),
        }
    }

    /// Okabe–Ito colours (told apart with any colour vision), darkened where they would be
    /// too pale on white; the shape tells them apart as well.
    pub fn color(self) -> &'static str {
        match self {
            Kind::Publish => "#0072b2",
            Kind::Confirm => "#3d8fc4",
            Kind::Deliver => "#009e73",
            Kind::Redeliver => "#e69f00",
            Kind::Ack => "#334155",
            Kind::Nack => "#cc79a7",
            Kind::DeadLetter => "#7c4a1e",
            Kind::Redrive => "#8e44ad",
            Kind::Lost => "#d55e00",
            Kind::Duplicate => "#f0e442",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// How a part of a mark is painted: filled or stroked in the kind's colour, or stroked
/// in ink (outlines and signs on a light fill).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Paint {
    Fill,
    Stroke,
    Ink,
}

/// A part of a mark, in units of the token's radius around its centre (y grows down).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape {
    Circle(f64),
    /// Points, and whether the last joins the first.
    Poly(&'static [(f64, f64)], bool),
}

/// Stroke width, in units of the token's radius.
pub const LINE: f64 = 0.45;

const SQUARE: &[(f64, f64)] = &[(-0.85, -0.85), (0.85, -0.85), (0.85, 0.85), (-0.85, 0.85)];
const TRIANGLE: &[(f64, f64)] = &[(0.0, -1.25), (1.2, 0.9), (-1.2, 0.9)];

/// Each kind's mark: the canvas and the legend's SVG both draw these.
pub fn mark(kind: Kind) -> &'static [(Paint, Shape)] {
    use Paint::*;
    use Shape::*;
    match kind {
        Kind::Publish => &[(
            Stroke,
            Poly(&[(-0.55, -0.9), (0.45, 0.0), (-0.55, 0.9)], false),
        )],
        Kind::Confirm => &[(
            Fill,
            Poly(
                &[
                    (0.0, -1.2),
                    (0.3, -0.3),
                    (1.2, 0.0),
                    (0.3, 0.3),
                    (0.0, 1.2),
                    (-0.3, 0.3),
                    (-1.2, 0.0),
                    (-0.3, -0.3),
                ],
                true,
            ),
        )],
        Kind::Deliver => &[(Fill, Circle(1.0))],
        Kind::Redeliver => &[(
            Fill,
            Poly(&[(0.0, -1.2), (1.2, 0.0), (0.0, 1.2), (-1.2, 0.0)], true),
        )],
        Kind::Ack => &[(
            Stroke,
            Poly(&[(-0.85, 0.0), (-0.25, 0.65), (0.9, -0.7)], false),
        )],
        Kind::Nack => &[
            (Stroke, Circle(0.8)),
            (Stroke, Poly(&[(-0.55, 0.55), (0.55, -0.55)], false)),
        ],
        Kind::DeadLetter => &[(Fill, Poly(SQUARE, true))],
        Kind::Redrive => &[(Stroke, Poly(SQUARE, true))],
        Kind::Lost => &[
            (Stroke, Poly(&[(-0.8, -0.8), (0.8, 0.8)], false)),
            (Stroke, Poly(&[(-0.8, 0.8), (0.8, -0.8)], false)),
        ],
        Kind::Duplicate => &[
            (Fill, Poly(TRIANGLE, true)),
            (Ink, Poly(TRIANGLE, true)),
            (Ink, Poly(&[(0.0, -0.55), (0.0, 0.2)], false)),
            (Ink, Poly(&[(0.0, 0.45), (0.0, 0.55)], false)),
        ],
    }
}

/// One token's trip: a message going from one component to another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flight {
    pub kind: Kind,
    pub from: Node,
    pub to: Node,
    pub msg: MsgId,
    /// The delivery attempt (0 when the fact does not say).
    pub attempt: u32,
}

impl Flight {
    /// The edge its count goes to when it is not drawn (producers, consumers and groups
    /// merged).
    pub fn edge(&self) -> Edge {
        Edge {
            kind: self.kind,
            from: self.from.merged(),
            to: self.to.merged(),
        }
    }
}

/// Writes a token's label: "#77", or "#77·2" for a second attempt and later.
pub fn write_label(out: &mut String, msg: MsgId, attempt: u32) {
    use std::fmt::Write;
    let _ = if attempt > 1 {
        write!(out, "#{msg}·{attempt}")
    } else {
        write!(out, "#{msg}")
    };
}

impl Kind {
    /// The token a move makes, if it makes one; `attempt` tells a redelivery.
    fn of(moves: Move, attempt: u32) -> Option<Kind> {
        Some(match moves {
            Move::Publish => Kind::Publish,
            Move::Confirm => Kind::Confirm,
            Move::Deliver if attempt > 1 => Kind::Redeliver,
            Move::Deliver => Kind::Deliver,
            Move::Ack => Kind::Ack,
            Move::Nack => Kind::Nack,
            Move::DeadLetter => Kind::DeadLetter,
            Move::Redrive => Kind::Redrive,
            Move::Loss => Kind::Lost,
            Move::Duplicate => Kind::Duplicate,
            Move::Plain | Move::Answer | Move::Failure | Move::Resent => return None,
        })
    }
}

/// The card standing for a party on the diagram, if it has one: the relay is drawn with
/// its producer, a member stands for its group. The exchange has none (which queue a
/// publish reached is told when it is stored), nor has the holder of a copy (its facts
/// do not name it).
pub fn node_of(sim: &Simulation, party: Party) -> Option<Node> {
    Some(match party {
        Party::Producer(p) | Party::Publisher(p) => Node::Producer(p),
        Party::Exchange | Party::Holder => return None,
        Party::Broker => Node::Broker,
        Party::Queue(q) => Node::Queue(q),
        Party::DeadLetters(q) => Node::Dlq(q),
        Party::Log(l) => Node::Log(l),
        Party::ReadLog(g) => Node::Log(log_read_by(sim, g)?),
        Party::Consumer(c) => Node::Consumer(c),
        Party::Group(g) | Party::Member(g, _) => Node::Group(g),
        Party::Database => Node::Database,
    })
}

/// The log group `group` reads, from the scenario.
fn log_read_by(sim: &Simulation, group: GroupId) -> Option<u32> {
    let scenario = sim.scenario();
    let log = &scenario.groups.get(group.index())?.log;
    scenario
        .logs
        .iter()
        .position(|l| &l.name == log)
        .map(|i| i as u32)
}

/// The attempt a token's label shows ("#77·2"): the delivery or publish attempt the fact
/// names, the attempts a dead letter or a lost copy had; 0 when there is none.
fn attempt_of(sim: &Simulation, fact: &Fact) -> u32 {
    match *fact {
        Fact::Confirmed { attempt, .. }
        | Fact::Delivered { attempt, .. }
        | Fact::Acked { attempt, .. }
        | Fact::AckedOnDelivery { attempt, .. }
        | Fact::HandlerFailed { attempt, .. }
        | Fact::EffectCommitted { attempt, .. } => attempt,
        Fact::DeadLettered { attempts, .. } => attempts,
        Fact::MessageLost { copy, .. } => sim.copy(copy).map_or(0, |c| c.attempts),
        _ => 0,
    }
}

/// The flight a fact makes, if it moves a message between components (its move makes a
/// token, see [`participants`]). `sim` is the simulation just after the fact.
pub fn flight_of(sim: &Simulation, fact: &Fact) -> Option<Flight> {
    let part = participants::of(sim, fact)?;
    let attempt = attempt_of(sim, fact);
    Some(Flight {
        kind: Kind::of(part.moves, attempt)?,
        from: token_end(sim, part.from)?,
        to: token_end(sim, part.to)?,
        msg: fact.msg()?,
        attempt,
    })
}

/// Where a token leaves or arrives: its party's card; the broker lane for the exchange (a
/// confirm comes back from the broker).
fn token_end(sim: &Simulation, party: Party) -> Option<Node> {
    match party {
        Party::Exchange => Some(Node::Broker),
        _ => node_of(sim, party),
    }
}

/// The components a fact involves, for outlining the narrated step's cards: the cards of
/// its parties (see [`participants`]), each once; for a fact that makes a token, the
/// cards it flies between (a confirm leaves the broker lane).
pub fn touched(sim: &Simulation, fact: &Fact, out: &mut Vec<Node>) {
    let Some(part) = participants::of(sim, fact) else {
        return;
    };
    let card = |p| {
        if part.moves.flies() {
            token_end(sim, p)
        } else {
            node_of(sim, p)
        }
    };
    for node in part.parties().filter_map(card) {
        if !out.contains(&node) {
            out.push(node);
        }
    }
}

/// A direction of travel of one kind of token: what a count badge counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Edge {
    pub kind: Kind,
    pub from: Node,
    pub to: Node,
}

/// Edges with a count each; a handful at a time, so a short vector searched from the most
/// recently counted end is enough.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EdgeCounts(Vec<(Edge, u64)>);

impl EdgeCounts {
    pub fn add(&mut self, edge: Edge, n: u64) {
        // Runs of the same edge are common (a burst of publishes): try the last first.
        if let Some(last) = self.0.last_mut().filter(|(e, _)| *e == edge) {
            last.1 += n;
        } else if let Some(entry) = self.0.iter_mut().find(|(e, _)| *e == edge) {
            entry.1 += n;
        } else {
            self.0.push((edge, n));
        }
    }
    pub fn total(&self) -> u64 {
        self.0.iter().map(|(_, n)| n).sum()
    }
    pub fn get(&self, edge: &Edge) -> u64 {
        self.0
            .iter()
            .find(|(e, _)| e == edge)
            .map_or(0, |(_, n)| *n)
    }
    pub fn iter(&self) -> impl Iterator<Item = &(Edge, u64)> {
        self.0.iter()
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn clear(&mut self) {
        self.0.clear();
    }
}

/// Most tokens drawn at once (and most flights one frame keeps one by one).
pub const TOKENS_MAX: usize = 150;

/// The flights of the steps taken since the view last looked: the first [`TOKENS_MAX`]
/// one by one, the rest only counted per edge (a fast frame takes tens of thousands of
/// steps; none of that is worth keeping one by one).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlightBuffer {
    pub flights: Vec<Flight>,
    pub overflow: EdgeCounts,
}

impl FlightBuffer {
    pub fn push(&mut self, flight: Flight) {
        if self.flights.len() < TOKENS_MAX {
            self.flights.push(flight);
        } else {
            self.overflow.add(flight.edge(), 1);
        }
    }
    pub fn len(&self) -> u64 {
        self.flights.len() as u64 + self.overflow.total()
    }
    pub fn is_empty(&self) -> bool {
        self.flights.is_empty() && self.overflow.is_empty()
    }
    pub fn clear(&mut self) {
        self.flights.clear();
        self.overflow.clear();
    }
}

/// Wall-clock time a token takes to travel its edge.
pub const FLIGHT_MS: f64 = 900.0;
/// Count badges add up over windows of this long, then show that window's count.
pub const WINDOW_MS: f64 = 1_000.0;
/// Below this many tokens in flight, each shows its label.
pub const LABELS_MAX: usize = 24;
/// Labels of the latest tokens kept for tests and assistive tools.
pub const RECENT_MAX: usize = 12;

/// A token being drawn.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    pub flight: Flight,
    pub born_ms: f64,
    /// "#77·2", made once when the token is admitted.
    pub label: String,
    /// Stays on show at its destination after arriving (a step taken while paused),
    /// until released.
    pub hold: bool,
}

impl Token {
    /// How far along its edge, 0 to 1.
    pub fn progress(&self, now_ms: f64) -> f64 {
        ((now_ms - self.born_ms) / FLIGHT_MS).clamp(0.0, 1.0)
    }
}

/// Everything drawn over the diagram: tokens in flight, and per-edge counts of the flights
/// that did not fit.
#[derive(Clone, Debug, Default)]
pub struct Sky {
    pub tokens: Vec<Token>,
    /// Counts of the window in progress.
    counting: EdgeCounts,
    /// Counts of the last finished window: what the badges show.
    shown: EdgeCounts,
    window_start_ms: Option<f64>,
    /// "kind #id·attempt" of the latest admitted tokens, oldest first.
    pub recent: std::collections::VecDeque<String>,
    /// Flights seen in all, and how many of them went into counts.
    pub seen: u64,
    pub aggregated: u64,
}

impl Sky {
    /// Takes in a frame's flights at `now_ms`: tokens while fewer than [`TOKENS_MAX`] fly,
    /// counts for the rest.
    pub fn admit(&mut self, batch: &FlightBuffer, now_ms: f64, hold: bool) {
        self.seen += batch.len();
        for f in &batch.flights {
            if self.tokens.len() < TOKENS_MAX {
                let mut label = String::new();
                write_label(&mut label, f.msg, f.attempt);
                if self.recent.len() == RECENT_MAX {
                    self.recent.pop_front();
                }
                self.recent.push_back(format!("{} {label}", f.kind.name()));
                self.tokens.push(Token {
                    flight: *f,
                    born_ms: now_ms,
                    label,
                    hold,
                });
            } else {
                self.count(f.edge(), 1, now_ms);
            }
        }
        for &(edge, n) in batch.overflow.iter() {
            self.count(edge, n, now_ms);
        }
    }

    fn count(&mut self, edge: Edge, n: u64, now_ms: f64) {
        self.window_start_ms.get_or_insert(now_ms);
        self.aggregated += n;
        self.counting.add(edge, n);
    }

    /// Drops the tokens that arrived, and closes the count window when its time is up.
    pub fn tick(&mut self, now_ms: f64) {
        self.tokens
            .retain(|t| t.hold || now_ms - t.born_ms < FLIGHT_MS);
        if let Some(start) = self.window_start_ms {
            if now_ms - start >= WINDOW_MS {
                std::mem::swap(&mut self.shown, &mut self.counting);
                self.counting.clear();
                // Keep the window running while counts come, so a lull clears the badges.
                self.window_start_ms = (!self.shown.is_empty()).then_some(now_ms);
            }
        }
    }

    /// What the badges show: the last finished window's counts, or, during the first
    /// window, the counts so far.
    pub fn badges(&self) -> &EdgeCounts {
        if self.shown.is_empty() {
            &self.counting
        } else {
            &self.shown
        }
    }

    /// Held tokens may go once they arrive.
    pub fn release(&mut self) {
        for t in &mut self.tokens {
            t.hold = false;
        }
    }

    /// Nothing moves any more: every token is held at its destination and no badge shows.
    pub fn settled(&self, now_ms: f64) -> bool {
        self.counting.is_empty()
            && self.shown.is_empty()
            && self
                .tokens
                .iter()
                .all(|t| t.hold && t.progress(now_ms) >= 1.0)
    }

    /// Nothing to draw, nothing pending.
    pub fn is_idle(&self) -> bool {
        self.tokens.is_empty() && self.counting.is_empty() && self.shown.is_empty()
    }

    /// Forgets everything drawn (a new run).
    pub fn clear(&mut self) {
        self.tokens.clear();
        self.counting.clear();
        self.shown.clear();
        self.window_start_ms = None;
        self.recent.clear();
        self.seen = 0;
        self.aggregated = 0;
    }

    /// Tokens in flight per kind, in [`Kind::ALL`] order.
    pub fn per_kind(&self) -> [usize; 10] {
        let mut n = [0; 10];
        for t in &self.tokens {
            n[t.flight.kind.index()] += 1;
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brokerlab_core::{examples, Command, CrashPoint};
    use brokerlab_core::{ConsumerId, GroupId};

    fn sim(name: &str) -> Simulation {
        Simulation::new(examples::load(name).expect("built in")).expect("valid")
    }

    /// Every flight of a whole run.
    fn all_flights(sim: &mut Simulation) -> Vec<Flight> {
        let mut out = Vec::new();
        while let Some(step) = sim.step() {
            let facts = step.facts.to_vec();
            out.extend(facts.iter().filter_map(|f| flight_of(sim, f)));
        }
        out
    }

    #[test]
    fn node_names_round_trip_and_bad_ones_are_refused() {
        for n in [
            Node::Producer(ProducerId::new(0)),
            Node::Broker,
            Node::Queue(QueueId::new(12)),
            Node::Dlq(QueueId::new(1)),
            Node::Consumer(ConsumerId::new(19)),
            Node::Database,
            Node::Log(2),
            Node::Group(GroupId::new(3)),
        ] {
            assert_eq!(Node::parse(&n.to_string()), Some(n));
            assert!(n.merged().covers(n));
        }
        assert!(Node::Consumer(Node::ALL_CONSUMERS).covers(Node::Consumer(ConsumerId::new(4))));
        assert!(!Node::Consumer(Node::ALL_CONSUMERS).covers(Node::Producer(ProducerId::new(4))));
        assert!(!Node::Consumer(ConsumerId::new(3)).covers(Node::Consumer(ConsumerId::new(4))));
        assert_eq!(
            Node::Queue(QueueId::new(2)).merged(),
            Node::Queue(QueueId::new(2))
        );
        // The diagram's cards: a group member stands for its group; the database lane.
        assert_eq!(
            Node::parse("member-1-3"),
            Some(Node::Group(GroupId::new(1)))
        );
        assert_eq!(Node::parse("db"), Some(Node::Database));
        // A crowded lane's summary card stands for every consumer, and ends the fallbacks.
        assert_eq!(
            Node::parse("consumers"),
            Some(Node::Consumer(Node::ALL_CONSUMERS))
        );
        assert_eq!(
            Node::Consumer(ConsumerId::new(3)).fallback(),
            Some(Node::Consumer(Node::ALL_CONSUMERS))
        );
        assert_eq!(
            Node::Group(GroupId::new(1)).fallback(),
            Some(Node::Consumer(Node::ALL_CONSUMERS))
        );
        assert_eq!(Node::Consumer(Node::ALL_CONSUMERS).fallback(), None);
        for bad in [
            "member-x-1",
            "db-1",
            "",
            "queue",
            "queue-",
            "queue-x",
            "cake-1",
            "consumer--1",
            "-1",
        ] {
            assert_eq!(Node::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_plain_run_publishes_confirms_delivers_and_acks_along_its_edges() {
        let mut s = sim("mm1");
        let flights = all_flights(&mut s);
        let first = |k: Kind| flights.iter().find(|f| f.kind == k).copied();
        let publish = first(Kind::Publish).expect("a publish");
        assert_eq!(
            (publish.from, publish.to),
            (
                Node::Producer(ProducerId::new(0)),
                Node::Queue(QueueId::new(0))
            )
        );
        let deliver = first(Kind::Deliver).expect("a delivery");
        assert_eq!(
            (deliver.from, deliver.to, deliver.attempt),
            (
                Node::Queue(QueueId::new(0)),
                Node::Consumer(ConsumerId::new(0)),
                1
            )
        );
        let ack = first(Kind::Ack).expect("an ack");
        assert_eq!(
            (ack.from, ack.to),
            (
                Node::Consumer(ConsumerId::new(0)),
                Node::Queue(QueueId::new(0))
            )
        );
        let c = s.counters();
        let count = |k: Kind| flights.iter().filter(|f| f.kind == k).count() as u64;
        assert_eq!(count(Kind::Publish), c.published);
        assert_eq!(count(Kind::Deliver), c.delivered - c.redelivered);
        assert_eq!(count(Kind::Ack), c.acked);
        for k in [
            Kind::Redeliver,
            Kind::Lost,
            Kind::Duplicate,
            Kind::DeadLetter,
        ] {
            assert_eq!(count(k), 0, "{k:?}");
        }
    }

    #[test]
    fn a_crash_after_commit_makes_a_redelivery_and_a_duplicate_effect() {
        let mut s = sim("crash-after-commit");
        let flights = all_flights(&mut s);
        let redeliver = flights
            .iter()
            .find(|f| f.kind == Kind::Redeliver)
            .expect("a redelivery");
        assert_eq!(
            (
                redeliver.from,
                redeliver.to,
                redeliver.msg,
                redeliver.attempt
            ),
            (
                Node::Queue(QueueId::new(0)),
                Node::Consumer(ConsumerId::new(0)),
                MsgId::new(0),
                2
            )
        );
        let dup = flights
            .iter()
            .find(|f| f.kind == Kind::Duplicate)
            .expect("a duplicate effect");
        assert_eq!(
            (dup.from, dup.to, dup.msg, dup.attempt),
            (
                Node::Consumer(ConsumerId::new(0)),
                Node::Database,
                MsgId::new(0),
                2
            )
        );
        let mut label = String::new();
        write_label(&mut label, redeliver.msg, redeliver.attempt);
        assert_eq!(label, "#0·2");
        // The first (applied once) commit is no token: only duplicates are.
        assert_eq!(
            flights.iter().filter(|f| f.kind == Kind::Duplicate).count(),
            1
        );
    }

    #[test]
    fn the_confirm_travels_back_from_the_broker_to_its_producer() {
        let mut s = sim("lost-confirm");
        let confirm = all_flights(&mut s)
            .into_iter()
            .find(|f| f.kind == Kind::Confirm);
        let c = confirm.expect("found");
        assert_eq!(
            (c.from, c.to),
            (Node::Broker, Node::Producer(ProducerId::new(0)))
        );
    }

    #[test]
    fn failures_go_back_as_nacks_then_to_the_dead_letter_queue_and_back_by_redrive() {
        let name = "retries-dlq-redrive";
        let mut s = sim(name);
        let flights = all_flights(&mut s);
        let dl = flights
            .iter()
            .find(|f| f.kind == Kind::DeadLetter)
            .expect("a dead letter");
        let Node::Queue(q) = dl.from else {
            panic!("from a queue: {dl:?}");
        };
        assert_eq!(dl.to, Node::Dlq(q));
        let nack = flights
            .iter()
            .find(|f| f.kind == Kind::Nack)
            .expect("a failure before it");
        assert!(matches!(
            (nack.from, nack.to),
            (Node::Consumer(_), Node::Queue(_))
        ));
        if s.counters().redriven > 0 {
            let r = flights
                .iter()
                .find(|f| f.kind == Kind::Redrive)
                .expect("a redrive");
            assert!(matches!((r.from, r.to), (Node::Dlq(a), Node::Queue(b)) if a == b));
        }
    }

    #[test]
    fn a_copy_lost_by_an_early_ack_vanishes_at_its_consumer() {
        let mut s = sim("ack-before-effect");
        let flights = all_flights(&mut s);
        let lost: Vec<_> = flights.iter().filter(|f| f.kind == Kind::Lost).collect();
        assert_eq!(lost.len() as u64, s.counters().lost);
        for f in lost {
            assert_eq!(f.from, f.to, "a loss stays where it happened");
        }
    }

    #[test]
    fn the_crash_step_touches_the_crashed_consumer() {
        let mut s = sim("mm1");
        let step = s
            .command(Command::CrashConsumer {
                consumer: ConsumerId::new(0),
                point: CrashPoint::Now,
                restart_after_s: None,
            })
            .expect("valid");
        let facts = step.facts.to_vec();
        let mut nodes = Vec::new();
        for f in &facts {
            touched(&s, f, &mut nodes);
        }
        assert_eq!(nodes, [Node::Consumer(ConsumerId::new(0))]);
    }

    fn flight(kind: Kind, msg: MsgId) -> Flight {
        Flight {
            kind,
            from: Node::Queue(QueueId::new(0)),
            to: Node::Consumer(ConsumerId::new((msg.get() % 3) as u32)),
            msg,
            attempt: 1,
        }
    }

    #[test]
    fn the_buffer_keeps_the_first_flights_and_counts_the_rest_per_edge() {
        let mut b = FlightBuffer::default();
        for m in 0..1_000 {
            b.push(flight(Kind::Deliver, MsgId::new(m)));
        }
        assert_eq!(b.flights.len(), TOKENS_MAX);
        assert_eq!(b.len(), 1_000);
        assert_eq!(b.overflow.total(), 1_000 - TOKENS_MAX as u64);
        let edge = flight(Kind::Deliver, MsgId::new(0)).edge();
        assert_eq!(
            (edge.from, edge.to),
            (
                Node::Queue(QueueId::new(0)),
                Node::Consumer(Node::ALL_CONSUMERS)
            ),
            "counted per queue, whichever consumer"
        );
        assert_eq!(b.overflow.iter().count(), 1);
        assert_eq!(b.overflow.get(&edge), 1_000 - TOKENS_MAX as u64);
        b.clear();
        assert!(b.is_empty());
    }

    #[test]
    fn beyond_the_cap_flights_become_badges_that_show_one_window() {
        let mut sky = Sky::default();
        let mut b = FlightBuffer::default();
        for m in 0..100 {
            b.push(flight(Kind::Deliver, MsgId::new(m)));
        }
        sky.admit(&b, 0.0, false);
        assert_eq!(sky.tokens.len(), 100);
        assert_eq!(sky.aggregated, 0);
        assert!(sky.badges().is_empty());
        assert_eq!(sky.tokens[1].label, "#1");
        assert_eq!(sky.recent.len(), RECENT_MAX);
        assert_eq!(sky.recent.back().map(String::as_str), Some("deliver #99"));

        // 100 more while the first fly: 50 fit, 50 are counted.
        b.clear();
        for m in 100..200 {
            b.push(flight(Kind::Ack, MsgId::new(m)));
        }
        sky.admit(&b, 10.0, false);
        assert_eq!(sky.tokens.len(), TOKENS_MAX);
        assert_eq!(sky.aggregated, 50);
        assert_eq!(sky.badges().total(), 50);
        assert!(sky.badges().iter().all(|(e, _)| e.kind == Kind::Ack));

        // A huge frame: all of it is counted.
        b.clear();
        for m in 0..5_000 {
            b.push(flight(Kind::Deliver, MsgId::new(m)));
        }
        sky.admit(&b, 20.0, false);
        assert_eq!(sky.tokens.len(), TOKENS_MAX);
        assert_eq!(sky.aggregated, 5_050);
        assert_eq!(sky.seen, 5_200);
        let per_kind = sky.per_kind();
        assert_eq!(per_kind[Kind::Deliver.index()], 100);
        assert_eq!(per_kind[Kind::Ack.index()], 50);

        // The window (opened by the first count, at 10 ms) closes: the badges show its
        // counts until the next one closes.
        sky.tick(WINDOW_MS + 10.0);
        assert_eq!(sky.badges().total(), 5_050);
        assert!(sky.tokens.is_empty(), "every token arrived");
        sky.tick(WINDOW_MS + 500.0);
        assert_eq!(sky.badges().total(), 5_050, "still the last window");
        sky.tick(2.0 * WINDOW_MS + 10.0);
        assert!(sky.badges().is_empty(), "a quiet window clears them");
        assert!(sky.is_idle());
    }

    #[test]
    fn every_kind_has_its_own_mark_and_colour() {
        for (i, a) in Kind::ALL.iter().enumerate() {
            assert_eq!(a.index(), i);
            for b in &Kind::ALL[i + 1..] {
                assert_ne!(mark(*a), mark(*b), "{a:?} and {b:?} look alike");
                assert_ne!(a.color(), b.color(), "{a:?} and {b:?}");
            }
        }
    }

    #[test]
    fn a_held_token_stays_until_released() {
        let mut sky = Sky::default();
        let mut b = FlightBuffer::default();
        b.push(flight(Kind::Redeliver, MsgId::new(7)));
        sky.admit(&b, 0.0, true);
        assert!(!sky.settled(1.0), "still travelling");
        sky.tick(10.0 * FLIGHT_MS);
        assert_eq!(sky.tokens.len(), 1);
        assert!(sky.settled(10.0 * FLIGHT_MS));
        sky.release();
        sky.tick(10.0 * FLIGHT_MS);
        assert!(sky.is_idle());
        assert_eq!(sky.recent.back().map(String::as_str), Some("redeliver #7"));
    }

    #[test]
    fn tokens_travel_for_their_flight_time() {
        let t = Token {
            flight: flight(Kind::Deliver, MsgId::new(1)),
            born_ms: 100.0,
            label: String::new(),
            hold: false,
        };
        assert_eq!(t.progress(50.0), 0.0);
        assert_eq!(t.progress(100.0 + FLIGHT_MS / 2.0), 0.5);
        assert_eq!(t.progress(100.0 + 2.0 * FLIGHT_MS), 1.0);
    }

    #[test]
    fn kinds_are_named_in_both_languages() {
        assert_eq!(Kind::Deliver.past(Lang::En), "delivered");
        assert_eq!(Kind::Deliver.past(Lang::Es), "entregados");
        assert_eq!(Kind::Redrive.legend(Lang::Es), "reenviado desde la DLQ");
        for kind in Kind::ALL {
            assert_ne!(kind.legend(Lang::Es), "", "{kind:?}");
        }
    }
}
