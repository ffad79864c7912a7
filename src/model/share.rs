//! What a share link holds, taken from the player and put back into one: the scenario (by
//! name when it is a built-in one), the user's commands, the step on show, and the view.
//! The link format itself, its limits and its versions are the core's
//! ([`brokerlab_core::link`]).

use brokerlab_core::examples;
use brokerlab_core::lessons::Lang;
use brokerlab_core::link::{Shared, View};
use brokerlab_core::refusal::{field_problem_in, link_problem_in};
use brokerlab_core::Scenario;

use crate::format::count;
use crate::i18n::{locale, td_string};
use crate::model::player::Player;

/// The link for what the player shows now, with the page's `view`.
pub fn shared_of(player: &Player, view: View) -> Shared {
    let base = player.base();
    Shared {
        scenario: base.clone(),
        example: example_name_of(base),
        commands: player.sim().scenario().interventions.clone(),
        step: player.sim().steps(),
        at_us: player.sim().now_us(),
        view,
    }
}

/// The built-in example `base` is (whatever its seed), if it is one: the link then names
/// it instead of carrying the whole scenario.
pub fn example_name_of(base: &Scenario) -> Option<String> {
    let mut example = examples::load(&base.name)?;
    example.seed = base.seed;
    (&example == base).then(|| base.name.clone())
}

/// What was wrong with a link in the address. It is found before the page knows its
/// language, so it is said later, in one sentence, with [`LinkProblem::message`].
#[derive(Clone, Debug, PartialEq)]
pub enum LinkProblem {
    /// The link's text could not be read (the core's reason).
    Unreadable(String),
    /// The link's scenario could not start (the core's reason).
    CannotStart(String),
    /// The address has something after `#` that is not a link of the page's.
    NotALink,
    /// The same, pasted into the address of an open page, whose run stays on show.
    NotALinkKept,
    /// The link's step is past the end of its run, which opened at its last step.
    PastTheEnd { step: u64, last: u64 },
    /// A lesson's own link (`#lesson=NAME`) names no lesson there is (`name` as typed,
    /// decoded; empty when it names none). `kept`: pasted into the address of an open
    /// page, whose run stays on show; else the page opened the example.
    NoLesson { name: String, kept: bool },
}

impl LinkProblem {
    /// The problem in one sentence, in `lang`.
    pub fn message(&self, lang: Lang) -> String {
        let l = locale(lang);
        match self {
            LinkProblem::Unreadable(problem) => {
                let problem = link_problem_in(problem, lang);
                td_string!(l, panels.share.unreadable, problem).to_string()
            }
            LinkProblem::CannotStart(problem) => {
                let problem = field_problem_in(problem, lang);
                td_string!(l, panels.share.cannot_start, problem).to_string()
            }
            LinkProblem::NotALink => td_string!(l, panels.share.not_a_link).to_string(),
            LinkProblem::NotALinkKept => td_string!(l, panels.share.not_a_link_kept).to_string(),
            LinkProblem::PastTheEnd { step, last } => {
                let (step, last) = (count(*step, lang), count(*last, lang));
                td_string!(l, panels.share.past_the_end, step, last).to_string()
            }
            LinkProblem::NoLesson { name, kept } => match (name.trim().is_empty(), kept) {
                (true, false) => td_string!(l, panels.share.lesson_unnamed).to_string(),
                (true, true) => td_string!(l, panels.share.lesson_unnamed_kept).to_string(),
                (false, false) => td_string!(l, panels.share.no_lesson, name).to_string(),
                (false, true) => td_string!(l, panels.share.no_lesson_kept, name).to_string(),
            },
        }
    }
}

/// What the part of an address after `#` asks the page for.
#[derive(Clone, Debug, PartialEq)]
pub enum Fragment {
    /// Nothing: no `#`, or `#` alone.
    Nothing,
    /// A share link: the text after `#s=`.
    Link(String),
    /// A lesson's own link, `#lesson=NAME`: the name, percent-decoded as typed (see
    /// [`percent_decoded`]).
    Lesson(String),
    /// Something else, which the page cannot read.
    Other,
}

/// What `hash` (the address's fragment, `#` included, as `location.hash` gives it) asks
/// for.
pub fn fragment_of(hash: &str) -> Fragment {
    if let Some(text) = hash.strip_prefix("#s=") {
        Fragment::Link(text.to_string())
    } else if let Some(name) = hash.strip_prefix("#lesson=") {
        Fragment::Lesson(percent_decoded(name))
    } else if hash.len() <= 1 {
        Fragment::Nothing
    } else {
        Fragment::Other
    }
}

/// Why a lesson's own link for `name` cannot open (`kept`: the page's run stays), or
/// `None` when there is such a lesson.
pub fn lesson_problem(name: &str, kept: bool) -> Option<LinkProblem> {
    brokerlab_core::lessons::find(name)
        .is_none()
        .then(|| LinkProblem::NoLesson {
            name: name.to_string(),
            kept,
        })
}

/// `text` with its percent-encoding undone (`%3C` → `<`), as the browser gives back a
/// name typed in an address. A `%` not followed by two hex digits stays as written, and so
/// does the whole text if the bytes it decodes to are not UTF-8; control characters are
/// shown escaped. The result is text to quote, never markup.
pub fn percent_decoded(text: &str) -> String {
    let raw = text.as_bytes();
    let mut bytes = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        match escaped_byte(&raw[i..]) {
            Some(byte) => {
                bytes.push(byte);
                i += 3;
            }
            None => {
                bytes.push(raw[i]);
                i += 1;
            }
        }
    }
    let decoded = String::from_utf8(bytes).unwrap_or_else(|_| text.to_string());
    brokerlab_core::text::one_line(&decoded)
}

/// The byte `%XX` at the start of `rest` stands for, if it starts with one.
fn escaped_byte(rest: &[u8]) -> Option<u8> {
    let [b'%', high, low, ..] = *rest else {
        return None;
    };
    let digit = |b: u8| char::from(b).to_digit(16);
    Some((digit(high)? * 16 + digit(low)?) as u8)
}

/// A player put where the link says: its scenario, its commands replayed, paused at its
/// step.
pub fn player_of(shared: &Shared) -> Result<Player, LinkProblem> {
    let refused = |e: brokerlab_core::ScenarioError| LinkProblem::CannotStart(e.to_string());
    let mut player = Player::new(shared.scenario.clone()).map_err(refused)?;
    player
        .replay(shared.commands.clone(), shared.step, shared.at_us)
        .map_err(refused)?;
    Ok(player)
}

/// What to say when the link's step lies past the end of the run `player` holds (a
/// hand-edited or foreign link): the page opens at the run's last step and says so.
pub fn past_the_end(shared: &Shared, player: &Player) -> Option<LinkProblem> {
    let last = player.sim().steps();
    (shared.step > last).then_some(LinkProblem::PastTheEnd {
        step: shared.step,
        last,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use brokerlab_core::link::{decode, encode};
    use brokerlab_core::{Command, ConsumerId, CrashPoint};

    #[test]
    fn a_lesson_name_in_an_address_is_percent_decoded_as_text() {
        assert_eq!(
            percent_decoded("%3Cimg%20src=x%20onerror=alert(1)%3E"),
            "<img src=x onerror=alert(1)>"
        );
        assert_eq!(percent_decoded("backlog-growth"), "backlog-growth");
        assert_eq!(percent_decoded("caf%C3%A9"), "café");
        // Broken escapes stay as written: a lone %, a bad digit, a sign, a cut-off end.
        assert_eq!(percent_decoded("100%"), "100%");
        assert_eq!(percent_decoded("%zz%+1%4"), "%zz%+1%4");
        // Bytes that are not UTF-8: the text as written.
        assert_eq!(percent_decoded("a%FFb"), "a%FFb");
        // A new line cannot break the sentence that quotes the name.
        assert_eq!(percent_decoded("a%0Ab"), "a\\nb");
    }

    #[test]
    fn the_fragment_says_what_the_address_asks_for() {
        assert_eq!(fragment_of(""), Fragment::Nothing);
        assert_eq!(fragment_of("#"), Fragment::Nothing);
        assert_eq!(fragment_of("#s=v1.abc"), Fragment::Link("v1.abc".into()));
        assert_eq!(
            fragment_of("#lesson=backlog-arithmetic"),
            Fragment::Lesson("backlog-arithmetic".into())
        );
        assert_eq!(fragment_of("#lesson="), Fragment::Lesson(String::new()));
        assert_eq!(fragment_of("#lesson=a%20b"), Fragment::Lesson("a b".into()));
        assert_eq!(fragment_of("#foo=bar"), Fragment::Other);
        assert_eq!(fragment_of("#lessons"), Fragment::Other);
    }

    #[test]
    fn a_lesson_link_to_no_lesson_is_said_in_one_sentence_in_the_pages_language() {
        assert_eq!(lesson_problem("backlog-arithmetic", true), None);
        let kept = lesson_problem("nope", true).expect("no such lesson");
        assert_eq!(
            kept.message(Lang::En),
            "There is no lesson called “nope”: the run on show stays."
        );
        assert_eq!(
            kept.message(Lang::Es),
            "No hay ninguna lección llamada «nope»: sigue la ejecución que se muestra."
        );
        let opened = lesson_problem("nope", false).expect("no such lesson");
        assert_eq!(
            opened.message(Lang::En),
            "There is no lesson called “nope”: the example opened instead."
        );
        // A step after the name is not part of a lesson link: the whole is no name.
        let stepped = lesson_problem("backlog-arithmetic&step=99", true).expect("no such");
        assert!(stepped
            .message(Lang::En)
            .starts_with("There is no lesson called “backlog-arithmetic&step=99”"));
        // No name at all: said so, not "called “”".
        for kept in [true, false] {
            let unnamed = lesson_problem("", kept).expect("no name");
            for lang in Lang::ALL {
                let said = unnamed.message(lang);
                assert!(!said.contains("“”") && !said.contains("«»"), "{said}");
            }
        }
        assert_eq!(
            lesson_problem("", true).expect("no name").message(Lang::En),
            "This lesson link names no lesson: the run on show stays."
        );
    }

    #[test]
    fn a_link_puts_the_run_back_where_it_was() {
        let mut player =
            Player::new(examples::load("crash-after-commit").expect("built in")).expect("valid");
        for _ in 0..3 {
            player.step_once();
        }
        player
            .command(Command::CrashConsumer {
                consumer: ConsumerId::new(0),
                point: CrashPoint::AfterCommitBeforeAck,
                restart_after_s: Some(5.0),
            })
            .expect("valid");
        for _ in 0..5 {
            player.step_once();
        }
        let shared = shared_of(&player, View::default());
        assert_eq!(shared.example.as_deref(), Some("crash-after-commit"));
        assert_eq!(shared.commands.len(), 1);
        let reopened = player_of(&decode(&encode(&shared)).expect("opens")).expect("starts");
        assert_eq!(reopened.sim().steps(), player.sim().steps());
        assert_eq!(reopened.readout(), player.readout());
        assert_eq!(reopened.sim().now_us(), player.sim().now_us());
        // The user's command is still the user's: a reset forgets it.
        assert_eq!(reopened.base().interventions.len(), 0);
    }

    #[test]
    fn a_link_past_the_end_of_its_run_opens_at_its_last_step_and_says_so() {
        let mut scenario = examples::load("crash-after-commit").expect("built in");
        scenario.end_s = Some(3.0);
        let mut shared = Shared {
            scenario,
            example: None,
            commands: Vec::new(),
            step: 40,
            at_us: 0,
            view: View::default(),
        };
        let player = player_of(&shared).expect("starts");
        let last = player.sim().steps();
        assert!(last > 0 && last < 40, "{last}");
        let problem = past_the_end(&shared, &player).expect("said");
        assert_eq!(problem, LinkProblem::PastTheEnd { step: 40, last });
        assert_eq!(
            problem.message(Lang::En),
            format!("This link's moment (step 40) is past the end of its run, which ends at step {last}: it opened there.")
        );
        assert!(problem
            .message(Lang::Es)
            .starts_with("El momento de este enlace (paso 40)"));
        // A step the run reaches says nothing.
        shared.step = last;
        let player = player_of(&shared).expect("starts");
        assert_eq!(past_the_end(&shared, &player), None);
    }

    #[test]
    fn a_link_problem_is_said_in_the_pages_language() {
        let mut scenario = examples::load("mm1").expect("built in");
        scenario.queues[0].visibility_timeout_s = -1.0;
        let shared = Shared {
            scenario,
            example: None,
            commands: Vec::new(),
            step: 0,
            at_us: 0,
            view: View::default(),
        };
        let problem = player_of(&shared).err().expect("refused");
        let en = problem.message(Lang::En);
        assert!(
            en.starts_with("The link's scenario could not start: queues[0]."),
            "{en}"
        );
        let es = problem.message(Lang::Es);
        assert!(
            es.starts_with("El escenario del enlace no pudo arrancar: queues[0]."),
            "{es}"
        );
        let bad = LinkProblem::Unreadable("it is cut short.".into());
        assert_eq!(
            bad.message(Lang::Es),
            "No se pudo abrir este enlace: it is cut short."
        );
    }

    #[test]
    fn a_run_paused_while_playing_reopens_at_the_same_instant() {
        let mut player = Player::new(examples::load("mm1").expect("built in")).expect("valid");
        player.advance(700.0, 10.0);
        let shared = shared_of(&player, View::default());
        assert!(shared.at_us > 0);
        let reopened = player_of(&decode(&encode(&shared)).expect("opens")).expect("starts");
        assert_eq!(reopened.sim().steps(), player.sim().steps());
        assert_eq!(reopened.sim().now_us(), player.sim().now_us());
        assert_eq!(reopened.readout(), player.readout());
    }

    #[test]
    fn the_runner_stops_a_link_where_the_page_was() {
        let mut player = Player::new(examples::load("mm1").expect("built in")).expect("valid");
        for _ in 0..4 {
            player.advance(900.0, 10.0);
        }
        let shared = shared_of(&player, View::default());
        let sim = shared.simulation_at_moment().expect("valid");
        assert_eq!(sim.steps(), player.sim().steps());
        assert_eq!(sim.now_us(), player.sim().now_us());
        assert_eq!(
            sim.series(),
            player.sim().series(),
            "the same samples so far"
        );
    }

    #[test]
    fn a_changed_scenario_travels_inline() {
        let mut scenario = examples::load("mm1").expect("built in");
        scenario.description = "my own".into();
        let player = Player::new(scenario).expect("valid");
        assert_eq!(shared_of(&player, View::default()).example, None);
        let mut reseeded = examples::load("mm1").expect("built in");
        reseeded.seed = 99;
        let player = Player::new(reseeded).expect("valid");
        assert_eq!(
            shared_of(&player, View::default()).example.as_deref(),
            Some("mm1"),
            "another seed is still the built-in"
        );
    }
}
