//! Compare mode on the page: side B is a second [`Lab`] over the variant's player, under a
//! reactive owner of its own, kept at side A's simulated time whenever A's clock moves
//! (the lab's one hook, `changed`). Commands of the main stage go to A, B or both.

use brokerlab_core::compare::{Side, Variant};
use brokerlab_core::Scenario;
use leptos::prelude::*;

use crate::model::compare::{self, CounterRow};
use crate::model::player::Player;
use crate::state::lab::Compared;
use crate::state::Lab;

impl Lab {
    /// Side B's lab, while comparing.
    pub fn variant_lab(&self) -> Option<Lab> {
        self.compare.with_untracked(|c| c.as_ref().map(|c| c.b))
    }

    /// Whether the main stage's commands go to A, and the lab of B if they go to B too.
    pub(crate) fn command_targets(&self) -> (bool, Option<Lab>) {
        self.compare.with_untracked(|c| match c {
            None => (true, None),
            Some(c) => match c.target.get_untracked() {
                Side::A => (true, None),
                Side::B => (false, Some(c.b)),
                Side::Both => (true, Some(c.b)),
            },
        })
    }

    /// Starts comparing the scenario on show (as it was before any comparison) with
    /// `variant`: both runs start over on producers' streams of their own, and A goes back
    /// to the time it was at. A variant the core refuses is said in one sentence and
    /// nothing changes. True when comparing started.
    pub fn start_compare(&self, variant: Variant) -> bool {
        let original = self
            .compare
            .with_untracked(|c| c.as_ref().map(|c| c.original.clone()))
            .unwrap_or_else(|| self.with_player(|p| p.base().clone()));
        match compare::players(&original, &variant) {
            Ok((a, b)) => {
                let t_s = self.readout.with_untracked(|r| r.time_s);
                self.open_player(a);
                self.attach_compare(b, variant, original);
                if t_s > 0.0 {
                    self.seek(t_s);
                }
                true
            }
            Err(e) => {
                self.error.set(Some(compare::refused(e)));
                false
            }
        }
    }

    /// Puts side B beside the run on show (a compare link opens this way too).
    pub fn attach_compare(&self, b: Player, variant: Variant, original: Scenario) {
        self.stop_compare();
        let owner = lasting_owner();
        let a = *self;
        // Everything compare mode keeps (B, where commands go) lives under that owner.
        let (b, target) = owner.with(|| {
            let b = Lab::new(b);
            b.lang.set(a.lang.get_untracked());
            // B speaks A's language; a refusal on B is said on the page. (Effects run in
            // the browser; native tests have no executor for them.)
            #[cfg(target_arch = "wasm32")]
            {
                Effect::new(move |_| b.lang.set(a.lang.get()));
                Effect::new(move |_| {
                    if let Some(words) = b.error.get() {
                        a.error.set(Some(words));
                    }
                });
            }
            (b, RwSignal::new(Side::Both))
        });
        self.compare.set(Some(Compared {
            b,
            variant,
            original,
            target,
            owner,
        }));
        self.follow_compare();
    }

    /// Stops comparing: side A's run goes on alone.
    pub fn stop_compare(&self) {
        let Some(c) = self.compare.try_update(Option::take).flatten() else {
            return;
        };
        dispose_later(c.owner);
    }

    /// Lockstep: side B to A's seed and time (called wherever A's clock moves).
    pub(crate) fn follow_compare(&self) {
        let Some(b) = self.variant_lab() else {
            return;
        };
        // First the hold (a command may have moved either side's end), then B to A's time.
        self.adjust_player(|pa| b.adjust_player(|pb| compare::hold_to_later_end(pa, pb)));
        let refused = self.with_player(|a| b.update_player(|pb| compare::follow(pb, a)));
        if let Some(Err(e)) = refused {
            b.error.set(Some(compare::refused(e)));
        }
    }

    /// Both sides' counters now, in the page's language.
    pub fn compare_rows(&self) -> Vec<CounterRow> {
        // Tracked: the rows appear when comparing starts.
        let Some(b) = self.compare.with(|c| c.as_ref().map(|c| c.b)) else {
            return Vec::new();
        };
        let lang = self.lang.get();
        self.readout.track();
        b.readout.track();
        self.with_player(|pa| b.with_player(|pb| compare::counter_rows(pa, pb, lang)))
    }

    /// The variant's changes as one line, while comparing.
    pub fn variant_text(&self) -> Option<String> {
        self.compare
            .with(|c| c.as_ref().map(|c| compare::variant_text(&c.variant)))
    }
}

/// Side B's owner: a child of the page's root owner. Not a child of the current one: a
/// click handler runs under its view's owner, and the Compare… form that starts comparing
/// closes at once, which would dispose of B's signals with it.
fn lasting_owner() -> Owner {
    let mut root = Owner::current().unwrap_or_default();
    while let Some(parent) = root.parent() {
        root = parent;
    }
    root.child()
}

/// Cleans up side B's memos once the views that read them are gone (the next frame in a
/// browser; at once elsewhere).
fn dispose_later(owner: Owner) {
    #[cfg(target_arch = "wasm32")]
    request_animation_frame(move || owner.cleanup());
    #[cfg(not(target_arch = "wasm32"))]
    owner.cleanup();
}

#[cfg(test)]
mod tests {
    use super::*;
    use brokerlab_core::compare::Change;

    fn lab() -> (Owner, Lab) {
        crate::state::lab::test_lab("crash-after-commit")
    }

    fn variant(text: &str) -> Variant {
        Variant {
            changes: vec![Change::parse(text).expect("parses")],
        }
    }

    #[test]
    fn side_b_keeps_step_with_a_and_commands_go_where_asked() {
        let (_owner, lab) = lab();
        lab.start_compare(variant("consumers.*.idempotency=inbox"));
        let b = lab.variant_lab().expect("comparing");
        let time = |l: Lab| l.readout.get_untracked().time_s;
        for _ in 0..3 {
            lab.step();
        }
        assert_eq!(time(lab), time(b));
        lab.seek(10.0);
        assert_eq!(time(lab), time(b));
        let rows = lab.compare_rows();
        let dup = rows
            .iter()
            .find(|r| r.name == "duplicate_effects")
            .expect("row");
        assert!(dup.differs(), "{rows:?}");
        // After the scheduled crash (at 0.5 s on both sides) and the restart.
        lab.seek(3.0);
        assert_eq!(time(lab), time(b));
        let crashes = |l: Lab| l.readout.get_untracked().crashes;
        assert_eq!((crashes(lab), crashes(b)), (1, 1));
        let target = |side| {
            lab.compare
                .with_untracked(|c| c.as_ref().unwrap().target.set(side))
        };
        target(Side::B);
        lab.crash();
        assert_eq!((crashes(lab), crashes(b)), (1, 2), "to B only");
        target(Side::Both);
        lab.crash();
        // B's only consumer is still down: only A has one to crash.
        assert_eq!((crashes(lab), crashes(b)), (2, 2), "to both");
        lab.reset();
        assert_eq!((crashes(lab), crashes(b)), (0, 0), "reset both");
        lab.stop_compare();
        assert!(lab.variant_lab().is_none());
    }

    #[test]
    fn a_refused_change_is_one_sentence_and_changes_nothing() {
        let (_owner, lab) = lab();
        assert!(!lab.start_compare(variant("seed=4")));
        assert!(lab.variant_lab().is_none());
        let error = lab.error.get_untracked().expect("said");
        assert!(
            error
                .text(brokerlab_core::lessons::Lang::En)
                .starts_with("This change cannot be compared: "),
            "{error:?}"
        );
        let es = error.text(brokerlab_core::lessons::Lang::Es);
        assert!(es.starts_with("Este cambio no se puede comparar: "), "{es}");
    }

    #[test]
    fn a_refusal_that_echoes_a_long_input_stays_short_in_both_languages() {
        let (_owner, lab) = lab();
        let nines = format!("seed={}", "9".repeat(3_000));
        assert!(!lab.start_compare(variant(&nines)));
        let typed = "x".repeat(20_000);
        let not_key_value = compare::variant_of(&typed, "", "").expect_err("no '='");
        for error in [
            lab.error.get_untracked().expect("said"),
            compare::refused(not_key_value),
        ] {
            for lang in [
                brokerlab_core::lessons::Lang::En,
                brokerlab_core::lessons::Lang::Es,
            ] {
                let text = error.text(lang);
                assert!(text.chars().count() < 200, "{text}");
                assert!(text.contains('…'), "{text}");
            }
        }
    }

    #[test]
    fn loading_another_scenario_stops_comparing() {
        let (_owner, lab) = lab();
        lab.start_compare(variant("consumers.0.ack=on_delivery"));
        assert!(lab.variant_lab().is_some());
        lab.load("burst");
        assert!(lab.variant_lab().is_none());
    }
}
