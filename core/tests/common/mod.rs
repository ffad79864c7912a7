//! Helpers shared by the story tests. Each test file uses what it needs of them.
#![allow(dead_code)]

use brokerlab_core::{
    examples, invariants, Command, Fact, GroupId, MemberCrashPoint, Scenario, ScheduledCommand,
    Simulation,
};

pub fn example(name: &str) -> Scenario {
    examples::load(name).unwrap_or_else(|| panic!("example {name}"))
}

/// Runs to the end, checking the accounting invariant after every step; returns every fact.
pub fn run(s: Scenario) -> (Simulation, Vec<Fact>) {
    let mut sim = Simulation::new(s).unwrap();
    let mut facts = Vec::new();
    while let Some(step) = sim.step() {
        facts.extend_from_slice(step.facts);
        invariants::check(&sim).unwrap_or_else(|e| panic!("step {}: {e}", sim.steps()));
    }
    (sim, facts)
}

/// `command` at `at_s`, announced.
pub fn at(at_s: f64, command: Command) -> ScheduledCommand {
    ScheduledCommand {
        at_s,
        command,
        unannounced: false,
    }
}

/// The broker crashes, and restarts after `restart_after_s`.
pub fn crash_broker(restart_after_s: f64) -> Command {
    Command::CrashBroker {
        restart_after_s: Some(restart_after_s),
    }
}

/// Member `member` of group `group` crashes at once, and restarts after
/// `restart_after_s` (never when none).
pub fn crash_member_now(group: u32, member: u32, restart_after_s: Option<f64>) -> Command {
    Command::CrashMember {
        group: GroupId::new(group),
        member,
        point: MemberCrashPoint::Now,
        restart_after_s,
    }
}
