//! Partitioned logs and the consumer groups that read them.

use serde::{Deserialize, Serialize};

use super::{is_false, Failures, Idempotency, InboxKey, Ordering, RetryPolicy, ServiceTime};

/// A partitioned log: records are appended to a partition chosen by key, kept for the
/// retention period, and read by consumer groups at their own offsets.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogSpec {
    pub name: String,
    /// Producers allowed to publish here, by name; empty: any producer. The broker
    /// refuses a publish from any other and tells its producer (least privilege).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub publishers: Vec<String>,
    pub partitions: u32,
    /// Records older than this expire, read or not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retention_s: Option<f64>,
    /// Most records kept per partition; older ones expire first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retention_records: Option<u64>,
    /// What the partitioner hashes: the record's key (its aggregate, e.g. an account),
    /// or the message id (spreads load, but one key's records land in several partitions).
    #[serde(default, skip_serializing_if = "PartitionKey::is_key")]
    pub partition_by: PartitionKey,
}

/// What a log's partitioner hashes to choose a record's partition.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PartitionKey {
    /// The record's key: one key, one partition, one order.
    #[default]
    Key,
    /// The message id: records of one key spread over partitions and lose their order.
    MessageId,
}

impl PartitionKey {
    fn is_key(&self) -> bool {
        *self == PartitionKey::Key
    }
}

/// How a group hands partitions over when its membership changes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rebalance {
    /// Incremental (Kafka's cooperative sticky assignor, KIP-429): only partitions that
    /// move are revoked, their owner finishes and commits first, the others keep flowing.
    #[default]
    Cooperative,
    /// Stop the world: every partition is revoked at once and work in progress can no
    /// longer commit, so it is done again by the partition's next owner.
    Eager,
}

impl Rebalance {
    fn is_cooperative(&self) -> bool {
        *self == Rebalance::Cooperative
    }
}

/// A consumer group: its members share the log's partitions, one owner per partition.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroupSpec {
    pub name: String,
    pub log: String,
    pub members: u32,
    pub service: ServiceTime,
    pub commit: CommitMode,
    #[serde(default)]
    pub assignment: Assignment,
    /// How long partitions pause while the group rebalances.
    #[serde(default = "default_rebalance_s")]
    pub rebalance_s: f64,
    /// Kafka's `session.timeout.ms`: how long a member that crashes (without leaving the
    /// group) keeps its partitions, unread, before the coordinator gives up on it and the
    /// group rebalances. Back in time, it takes them up again from their committed offsets
    /// without a rebalance, as a static member (`group.instance.id`) does. None: a
    /// crashed member leaves at once, as one that closes cleanly does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_timeout_s: Option<f64>,
    /// Kafka's `max.poll.interval.ms`: how long a member may work on the record it fetched
    /// without polling again. Past it the member leaves the group, which rebalances: the
    /// record's partition goes to another member, which reads it again from the last
    /// commit. The slow member still finishes it (its effect happens), its commit fails
    /// (`CommitFailedException`), and it rejoins at its next poll, with a rebalance of its
    /// own. None: a member keeps its partitions however long a record takes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_poll_interval_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Idempotency::is_none")]
    pub idempotency: Idempotency,
    /// What an `inbox` row is keyed by, as for a queue's consumer (with other idempotency,
    /// nothing): keyed by the entity, a record whose key already has a row from another
    /// message is taken for its duplicate and skipped.
    #[serde(default, skip_serializing_if = "InboxKey::is_message")]
    pub inbox_key: InboxKey,
    /// Read-process-write: each processed record is written to this log (empty: none).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub output: String,
    /// Output records and input offsets commit in one transaction (exactly-once inside
    /// the log); a crash before the commit aborts the output.
    #[serde(default, skip_serializing_if = "is_false")]
    pub transactional: bool,
    /// Kafka's `transaction.timeout.ms`, for a transactional group: a member that crashes
    /// with its transaction open leaves it open (its output records neither visible nor
    /// aborted, so `read_committed` readers stop before them) until the coordinator aborts
    /// it this long after it began, or the member is back with the same
    /// `transactional.id` and fences it. None: the transaction aborts at the crash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transaction_timeout_s: Option<f64>,
    /// The handler also sends an email, outside any transaction.
    #[serde(default, skip_serializing_if = "is_false")]
    pub sends_email: bool,
    /// Whether this group sees output of transactions that are still open or aborted.
    #[serde(default, skip_serializing_if = "Isolation::is_uncommitted")]
    pub isolation: Isolation,
    /// How partitions move when membership changes.
    #[serde(default, skip_serializing_if = "Rebalance::is_cooperative")]
    pub rebalance: Rebalance,
    /// How the handler treats per-key versions (`none` or `ignore_stale` on a log).
    #[serde(default, skip_serializing_if = "Ordering::is_none")]
    pub ordering: Ordering,
    /// How the handler fails, apart from poison records (which always fail).
    #[serde(default, skip_serializing_if = "Failures::is_default")]
    pub failures: Failures,
    /// Attempts in place (the partition waits) before a record is dead-lettered.
    #[serde(default, skip_serializing_if = "RetryPolicy::is_default")]
    pub retry: RetryPolicy,
    /// The log a failed record is sent to (a retry or dead-letter topic another group may
    /// read); empty: the group's own built-in dead-letter topic.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub dead_letter: String,
    /// Where a member goes on when retention removed the record at its position.
    #[serde(default, skip_serializing_if = "OffsetReset::is_earliest")]
    pub auto_offset_reset: OffsetReset,
    /// A replay window, as for a queue consumer: a record created longer ago than this is
    /// refused at its first attempt and dead-lettered. A replay from an earlier offset (a
    /// seek, a new group reading from the start) is refused as well.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_message_age_s: Option<f64>,
    /// The members act on whatever the log holds ("only our services can write to that
    /// topic"), without checking that a record's source may ask for its effect: a record
    /// from an unauthorised tenant has its effect applied instead of being dead-lettered.
    #[serde(default, skip_serializing_if = "is_false")]
    pub trusts_the_broker: bool,
}

/// Kafka's `auto.offset.reset`: where a consumer whose position no longer exists (removed
/// by retention) goes on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OffsetReset {
    /// The oldest record still retained.
    #[default]
    Earliest,
    /// The log end: the records still retained are skipped too (Kafka's default).
    Latest,
}

impl OffsetReset {
    fn is_earliest(&self) -> bool {
        *self == OffsetReset::Earliest
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Isolation {
    /// Reads every record, including output of open and aborted transactions.
    #[default]
    ReadUncommitted,
    /// Waits at an open transaction's records and skips aborted ones.
    ReadCommitted,
}

impl Isolation {
    fn is_uncommitted(&self) -> bool {
        *self == Isolation::ReadUncommitted
    }
}

fn default_rebalance_s() -> f64 {
    1.0
}

/// When a group member commits its offset.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum CommitMode {
    /// Commit, then process: a crash in between skips the record (at-most-once).
    BeforeProcessing,
    /// Process, then commit: a crash in between re-reads it (at-least-once).
    AfterProcessing,
    /// Commit the current position every `every_s` seconds.
    Auto { every_s: f64 },
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Assignment {
    /// Contiguous blocks of partitions per member.
    #[default]
    Range,
    /// Partition p goes to member p mod n.
    RoundRobin,
}

/// Where a group member crashes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemberCrashPoint {
    Now,
    /// After its next record is processed, before the offset is committed.
    AfterProcessBeforeCommit,
}
