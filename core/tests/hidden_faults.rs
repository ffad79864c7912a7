//! An interview's hidden faults are scheduled `unannounced`: they strike as written, but
//! nothing shows them before they do. A component's view (what its card on the page reads)
//! leaves them out, where a fault given by the user or announced in the schedule shows as
//! armed. Consumers scaled in are covered in `scale_in_faults.rs`.

use brokerlab_core::*;

/// The outbox relay's example without its own faults, its relay armed at 0.1 s (by the
/// schedule) to crash right after its next confirmed publish: hidden or not.
fn relay_armed(unannounced: bool) -> Simulation {
    let mut scenario = examples::load("outbox-relay-crash").expect("built in");
    scenario.commands.clear();
    scenario.commands.push(ScheduledCommand {
        at_s: 0.1,
        command: Command::CrashProducer {
            producer: ProducerId::new(0),
            point: ProducerCrashPoint::AfterPublishBeforeMark,
            restart_after_s: Some(1.0),
        },
        unannounced,
    });
    let mut sim = Simulation::new(scenario).expect("valid");
    while sim.next_step_time().is_some_and(|t| t <= 100_000) {
        sim.step();
    }
    sim
}

#[test]
fn a_hidden_producer_crash_stays_off_the_producers_view_until_it_strikes() {
    let told = relay_armed(false);
    let view = told.producer_view(ProducerId::new(0)).expect("exists");
    assert_eq!(view.armed, Some(ProducerCrashPoint::AfterPublishBeforeMark));
    let mut hidden = relay_armed(true);
    let view = hidden.producer_view(ProducerId::new(0)).expect("exists");
    assert_eq!(
        view.armed, None,
        "the card would give the hidden fault away"
    );
    // It is armed all the same: it strikes at the relay's next confirmed publish.
    let mut crashed = false;
    while let Some(step) = hidden.step() {
        crashed |= step.facts.iter().any(|f| {
            matches!(
                f,
                Fact::ProducerCrashed {
                    trigger: Trigger::Unannounced,
                    ..
                }
            )
        });
    }
    assert!(crashed, "the hidden crash struck");
}
