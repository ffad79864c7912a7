//! What a consumer's crash leaves for later, noted when it happens: when the leases on the
//! messages it held run out (the broker gives them to someone else only then). A crash's
//! card in the notable events says when, and says so plainly when that falls after the
//! run's last instant, so the consequence will never be seen in this run (a consumer
//! holding a message under a 3,600 s lease in a 90-second scenario). When the crashed
//! component restarts, the crash's own sentence says (the core's narration: at its time,
//! or after the run ends).

use brokerlab_core::{us_to_secs, ConsumerId, Fact, Micros, Simulation};

use brokerlab_core::lang::Lang;

use crate::format::seconds;
use crate::i18n::{locale, td_string};

/// What one consumer's crash sets up for later.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Aftermath {
    /// Messages the crashed consumer held under a lease the broker still counts.
    pub held: u32,
    /// When the last of those leases runs out.
    pub leases_until_us: Option<Micros>,
}

impl Aftermath {
    /// The aftermath of `fact` if it is a consumer's crash, read from `sim` right after
    /// that step (the copies it held are still in flight, under their leases, then).
    pub fn of(sim: &Simulation, fact: &Fact) -> Option<Self> {
        let Fact::ConsumerCrashed { consumer, .. } = *fact else {
            return None;
        };
        let (held, leases_until_us) = leases_held_by(sim, consumer);
        Some(Self {
            held,
            leases_until_us,
        })
    }

    /// What the crash's card adds, in `lang`: when the leases of what it held run out,
    /// and, when that falls after `end_us`, the run's last instant (its end time, or the
    /// ten-year limit of a run without one), that it will not happen in this run. `None`
    /// when there is nothing to add.
    pub fn text(&self, end_us: Micros, lang: Lang) -> Option<String> {
        let until = self.leases_until_us?;
        let locale = locale(lang);
        let secs = |s: f64| seconds(s, lang);
        let what = match self.held {
            1 => td_string!(locale, story.aftermath.held_one).to_string(),
            n => td_string!(locale, story.aftermath.held_many, n = n).to_string(),
        };
        let at = secs(us_to_secs(until));
        Some(if until > end_us {
            td_string!(
                locale,
                story.aftermath.lease_after_end,
                what = what,
                at = at,
                end = secs(us_to_secs(end_us))
            )
            .to_string()
        } else {
            td_string!(locale, story.aftermath.lease_runs_out, what = what, at = at).to_string()
        })
    }
}

/// Copies consumer `c` was last given that the broker still leases to it: how many, and
/// when the last lease runs out. (Scans every copy: done once per crash, not per frame.)
fn leases_held_by(sim: &Simulation, c: ConsumerId) -> (u32, Option<Micros>) {
    sim.copies()
        .iter_with_ids()
        .filter(|(_, copy)| copy.holder() == Some(c))
        .filter_map(|(id, _)| sim.lease_until_us(id as u64))
        .fold((0, None), |(n, last), until| {
            (n + 1, Some(last.map_or(until, |l: Micros| l.max(until))))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use brokerlab_core::ConsumerId;
    use brokerlab_core::{examples, secs_to_us, Command, CrashPoint};

    /// mm1 (a 3,600 s lease) cut at 90 s, its consumer crashed at 20 s while it works.
    fn mm1_crashed(end_s: Option<f64>, restart_after_s: Option<f64>) -> (Simulation, Aftermath) {
        let mut scenario = examples::load("mm1").expect("built in");
        scenario.end_s = end_s;
        let mut sim = Simulation::new(scenario).expect("valid");
        sim.run_until(secs_to_us(20.0));
        while sim
            .consumer(ConsumerId::new(0))
            .is_some_and(|c| c.busy == 0)
        {
            sim.step();
        }
        let step = sim
            .command(Command::CrashConsumer {
                consumer: ConsumerId::new(0),
                point: CrashPoint::Now,
                restart_after_s,
            })
            .expect("valid");
        let crash = step.facts[0];
        let aftermath = Aftermath::of(&sim, &crash).expect("a crash");
        (sim, aftermath)
    }

    #[test]
    fn a_lease_running_out_after_the_end_is_told_on_the_crash_card() {
        let (sim, a) = mm1_crashed(Some(90.0), Some(100.0));
        assert_eq!(a.held, 1);
        let until = a.leases_until_us.expect("a leased message");
        assert!(
            until > sim.now_us() && until <= sim.now_us() + secs_to_us(3_600.0),
            "a 3,600 s lease given before the crash: {until}"
        );
        let text = a
            .text(sim.horizon_us(), Lang::En)
            .expect("something to tell");
        assert!(
            text.starts_with(&format!(
                "The lease on the message it held would run out at t = {}, after the run ends at 90.0 s",
                seconds(us_to_secs(until), Lang::En)
            )),
            "{text}"
        );
        // The crash's own sentence says when it restarts (here: after the run ends).
        assert!(!text.contains("restart"), "{text}");
    }

    #[test]
    fn within_the_run_the_card_says_when_the_lease_runs_out_and_nothing_about_the_end() {
        let (sim, a) = mm1_crashed(None, Some(5.0));
        let text = a.text(sim.horizon_us(), Lang::En).expect("the lease");
        assert!(text.contains("runs out at t = "), "{text}");
        assert!(!text.contains("after the run ends"), "{text}");
        // A crash that leaves nothing for later adds nothing.
        assert_eq!(Aftermath::default().text(sim.horizon_us(), Lang::En), None);
    }

    #[test]
    fn without_an_end_time_a_lease_past_the_ten_year_limit_is_after_the_end() {
        // A run without an end time stops at ten years: a lease running out later would
        // never be seen (the card said "only then can the broker deliver it again").
        let (sim, _) = mm1_crashed(None, None);
        let ten_years = sim.horizon_us();
        let a = Aftermath {
            held: 1,
            leases_until_us: Some(ten_years + secs_to_us(60.0)),
        };
        let text = a.text(ten_years, Lang::En).expect("the lease");
        assert!(text.contains("after the run ends at 315,360,000"), "{text}");
        assert!(!text.contains("only then"), "{text}");
    }

    #[test]
    fn the_card_is_told_in_spanish_with_a_decimal_comma() {
        let (_, a) = mm1_crashed(Some(90.0), Some(100.0));
        let text = a
            .text(secs_to_us(90.0), Lang::Es)
            .expect("something to tell");
        assert!(
            text.starts_with("La reserva (lease) del mensaje que tenía"),
            "{text}"
        );
        assert!(text.contains("90,0 s"), "{text}");
        assert!(!text.contains("lease on"), "{text}");
    }
}
