//! The address carries the state. On load, a `#s=…` fragment puts the run back where the
//! link says (or the page opens the example and says in one sentence what was wrong with
//! the link). While the user works, the address follows, written with `replaceState` once
//! things have been still for a moment (so playing, typing and dragging don't flood the
//! browser's history). **Copy link** copies it at once.

use std::cell::RefCell;
use std::rc::Rc;

use brokerlab_core::compare::Variant;
use brokerlab_core::lessons::Lang;
use brokerlab_core::link::{self, Opened, Shared, View};
use brokerlab_core::Scenario;
use gloo_timers::callback::Timeout;
use leptos::prelude::*;

use crate::model::aggregated;
use crate::model::compare::{players_of, shared_comparison_of};
use crate::model::interview::Interview;
use crate::model::panels::Panel;
use crate::model::player::Player;
use crate::model::share::{
    fragment_of, lesson_problem, past_the_end, player_of, shared_of, Fragment, LinkProblem,
};
use crate::model::words::Words;
use crate::state::Lab;

/// How long the page must be still before the address is rewritten.
const SETTLE_MS: u32 = 400;
/// How long the "Link copied" notice stays.
const NOTICE_MS: u32 = 2_500;

/// What the address's fragment asks for (`#s=…`, `#lesson=NAME`, nothing or something
/// else).
fn fragment() -> Fragment {
    fragment_of(&window().location().hash().unwrap_or_default())
}

/// A lesson's own short link: `#lesson=NAME` opens it at its first step. The browser
/// keeps the name percent-encoded; it is decoded so that an unknown one is quoted as typed.
pub fn lesson_in_address() -> Option<String> {
    match fragment() {
        Fragment::Lesson(name) => Some(name),
        _ => None,
    }
}

/// Opens the lesson a lesson link names (`kept`: pasted into an open page, whose run stays
/// if there is no such lesson), or says in one sentence that there is none.
pub fn open_lesson_link(lab: Lab, name: &str, kept: bool) {
    match lesson_problem(name, kept) {
        None => lab.open_lesson(name),
        Some(problem) => lab
            .error
            .set(Some(Words::new(move |lang| problem.message(lang)))),
    }
}

/// Side B of a compare link, to put beside the page's run.
pub struct CompareOpening {
    pub b: Player,
    pub variant: Variant,
    /// Side A's scenario as the link names it.
    pub original: Scenario,
}

/// What a link opens: the run (side A of a comparison), the view to put back, and side B
/// if it is a compare link.
pub struct Opening {
    pub player: Player,
    pub view: View,
    pub compare: Option<CompareOpening>,
    /// The scenario to compute as flows, when the link's scenario runs aggregated (the
    /// player then holds its components at rest; see `Lab::show_aggregated_on_shell`).
    pub aggregated: Option<Scenario>,
    /// What to say although it opened (its step is past the end of its run).
    pub problem: Option<LinkProblem>,
}

/// The link in the address, decoded (its runs are built by [`opening_of`], in a task of
/// their own). `Err` is what was wrong with the link (said once the page's language is
/// known); `Ok(None)` means there was no link.
pub fn read_address() -> Result<Option<Opened>, LinkProblem> {
    match fragment() {
        Fragment::Link(text) => link::open(&text)
            .map(Some)
            .map_err(|e| LinkProblem::Unreadable(e.to_string())),
        // A lesson link is opened once the page is up (`open_lesson_link`).
        Fragment::Nothing | Fragment::Lesson(_) => Ok(None),
        // Anything after `#` is meant for the page: what it cannot read is said.
        Fragment::Other => Err(LinkProblem::NotALink),
    }
}

/// A decoded link, opened: its player (the shell of an aggregated scenario, whose flows
/// the page then computes with `Lab::show_aggregated_on_shell`), view and compare side.
pub fn opening_of(opened: Opened) -> Result<Opening, LinkProblem> {
    Ok(match opened {
        Opened::Single(shared) if aggregated::runs_aggregated(&shared.scenario) => Opening {
            player: Player::new(aggregated::shell(&shared.scenario))
                .map_err(|e| LinkProblem::CannotStart(e.to_string()))?,
            view: shared.view,
            compare: None,
            aggregated: Some(shared.scenario),
            problem: None,
        },
        Opened::Single(shared) => {
            let player = player_of(&shared)?;
            Opening {
                problem: past_the_end(&shared, &player),
                player,
                view: shared.view,
                compare: None,
                aggregated: None,
            }
        }
        Opened::Compare(shared) => {
            let (a, b) = players_of(&shared)?;
            Opening {
                player: a,
                view: shared.view,
                compare: Some(CompareOpening {
                    b,
                    variant: shared.variant,
                    original: shared.scenario,
                }),
                aggregated: None,
                problem: None,
            }
        }
    })
}

/// Puts the page's side of a link back: the speed, the panel, the open history.
pub fn restore_view(lab: Lab, view: &View) {
    if let Some(speed) = view.speed.filter(|s| s.is_finite() && *s > 0.0) {
        lab.set_speed(speed);
    }
    if let Some(panel) = view
        .panel
        .as_deref()
        .and_then(|key| Panel::ALL.into_iter().find(|p| p.key() == key))
    {
        lab.panel.set(panel);
    }
    if let Some(msg) = view.msg {
        lab.open_lineage(brokerlab_core::MsgId::new(msg));
    }
    if let Some(lang) = view.lang.as_deref().and_then(Lang::from_code) {
        lab.lang.set(lang);
    }
    if let Some(lesson) = &view.lesson {
        lab.restore_lesson(lesson);
    }
    if let Some(interview) = &view.interview {
        let kept = Interview::from_view(interview, &lab.scenario_on_show());
        lab.interview.set(kept);
    }
}

/// What the page shows now, as a link.
pub fn current(lab: Lab) -> Shared {
    let view = current_view(lab);
    let mut shared = lab.with_player(|p| shared_of(p, view));
    if let Some(scenario) = lab.with_aggregated(|a| a.scenario().clone()) {
        // An aggregated run's own scenario, at its start (its player only holds the
        // components at rest).
        shared.example = brokerlab_core::examples::load(&scenario.name)
            .filter(|e| e == &scenario)
            .map(|_| scenario.name.clone());
        shared.scenario = scenario;
        shared.commands.clear();
        (shared.step, shared.at_us) = (0, 0);
    }
    shared
}

/// The link text for what the page shows now: a compare link while comparing.
pub fn link_text(lab: Lab) -> String {
    let compared = lab.compare.with_untracked(|c| {
        c.as_ref()
            .map(|c| (c.b, c.variant.clone(), c.original.clone()))
    });
    match compared {
        Some((b, variant, original)) => {
            let view = current_view(lab);
            let shared = lab.with_player(|a| {
                b.with_player(|b| shared_comparison_of(&original, &variant, a, b, view))
            });
            link::encode_comparison(&shared)
        }
        None => link::encode(&current(lab)),
    }
}

/// The page's side of a link: speed, panel, open history, lesson, language, interview.
fn current_view(lab: Lab) -> View {
    View {
        speed: Some(lab.speed.get_untracked()),
        panel: Some(lab.panel.get_untracked().key().to_string()),
        msg: lab.lineage.with_untracked(|l| {
            l.as_ref()
                .and_then(|l| l.as_ref().ok())
                .map(|l| l.msg.get())
        }),
        lesson: lab.lesson_view(),
        lang: Some(lab.lang.get_untracked().code().to_string()),
        interview: lab.interview.with_untracked(Interview::view),
    }
}

/// The page's address for what it shows now.
pub fn address(lab: Lab) -> String {
    let location = window().location();
    let base = location.href().unwrap_or_default();
    let base = base.split('#').next().unwrap_or_default().to_string();
    format!("{base}#s={}", link_text(lab))
}

/// Rewrites the address (no new history entry).
fn write_address(lab: Lab) {
    let url = address(lab);
    if let Ok(history) = window().history() {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
    }
}

/// Keeps the address in step with the page, once it has been still for [`SETTLE_MS`]; a
/// fragment changed from outside (a pasted link, back or forward) is opened by reloading,
/// if it can be opened. A lesson's own link opens its lesson in place: reloading would
/// forget the page's language, which only a share link carries. One that cannot be opened
/// (garbage pasted, a link cut short, a lesson there is not) is said in one sentence, in
/// the page's language, and the run on show stays, its own link back in the address:
/// reloading would have replaced it with the opening example.
pub fn follow_in_address(lab: Lab) {
    let _ = leptos_use::use_event_listener(
        leptos_use::use_window(),
        leptos::ev::hashchange,
        move |_| {
            if let Fragment::Lesson(name) = fragment() {
                open_lesson_link(lab, &name, true);
                write_address(lab);
                return;
            }
            match read_address().and_then(|opened| opened.map(opening_of).transpose()) {
                Ok(_) => {
                    let _ = window().location().reload();
                }
                Err(problem) => {
                    let problem = match problem {
                        LinkProblem::NotALink => LinkProblem::NotALinkKept,
                        other => other,
                    };
                    lab.error
                        .set(Some(Words::new(move |lang| problem.message(lang))));
                    write_address(lab);
                }
            }
        },
    );
    let pending: Rc<RefCell<Option<Timeout>>> = Rc::default();
    Effect::new(move |_| {
        // Whatever changes what a link would say.
        lab.readout.track();
        lab.speed.track();
        lab.panel.track();
        lab.lineage.track();
        lab.guide.track();
        lab.lang.track();
        lab.interview.track();
        lab.compare.track();
        let playing = lab.playing.get();
        // Dropping the previous timeout cancels it: only the last change writes.
        let next = (!playing).then(|| Timeout::new(SETTLE_MS, move || write_address(lab)));
        pending.replace(next);
    });
}

/// Copies the address to the clipboard (writing it first), and shows a notice (`notice`
/// true) that goes away by itself.
pub fn copy_link(lab: Lab, notice: RwSignal<bool>) {
    write_address(lab);
    let url = address(lab);
    let copied = window().navigator().clipboard().write_text(&url);
    // The promise settles later; the address bar holds the link either way.
    drop(copied);
    show_notice(notice);
}

/// Shows a notice, and hides it after [`NOTICE_MS`].
fn show_notice(notice: RwSignal<bool>) {
    notice.set(true);
    Timeout::new(NOTICE_MS, move || {
        let _ = notice.try_set(false);
    })
    .forget();
}

/// The query flag that shows only the stage (topology, chart, controls), for an `<iframe>`.
const EMBED_FLAG: &str = "embed";

/// The page was opened to be embedded: `?embed` in its address.
pub fn embedded() -> bool {
    let search = window().location().search().unwrap_or_default();
    is_embed_query(&search)
}

/// `?embed`, `?embed=1`, `?x=y&embed`… (any value but `0` or `false`).
fn is_embed_query(search: &str) -> bool {
    search.trim_start_matches('?').split('&').any(|pair| {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        key == EMBED_FLAG && !matches!(value, "0" | "false")
    })
}

/// This moment's address with the embed flag set (whatever the page's own flag is).
pub fn embed_address(lab: Lab) -> String {
    let location = window().location();
    let page = location.href().unwrap_or_default();
    let page = page.split(['#', '?']).next().unwrap_or_default();
    format!("{page}?{EMBED_FLAG}#s={}", link_text(lab))
}

/// This moment's address without the embed flag: where "open in Broker Lab" goes.
pub fn full_address(lab: Lab) -> String {
    let location = window().location();
    let page = location.href().unwrap_or_default();
    let page = page.split(['#', '?']).next().unwrap_or_default();
    format!("{page}#s={}", link_text(lab))
}

/// The `<iframe>` markup that embeds this moment, sized to the width of its container.
pub fn embed_code(lab: Lab) -> String {
    let title = lab.scenario.with_untracked(|(name, _)| name.clone());
    // The address is made of URL-safe characters; the title comes from a scenario file and
    // is escaped, so the snippet cannot carry markup of its own.
    format!(
        "<iframe src=\"{}\" title=\"Broker Lab: {}\" style=\"width:100%;aspect-ratio:16/10;border:0\" loading=\"lazy\"></iframe>",
        embed_address(lab),
        escape_attribute(&title)
    )
}

fn escape_attribute(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Copies [`embed_code`] to the clipboard, with a notice (`notice` true) that goes away by
/// itself.
pub fn copy_embed_code(lab: Lab, notice: RwSignal<bool>) {
    let copied = window()
        .navigator()
        .clipboard()
        .write_text(&embed_code(lab));
    drop(copied);
    show_notice(notice);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embed_flag_is_read_from_the_query() {
        for yes in ["?embed", "?embed=1", "?a=b&embed", "embed=yes"] {
            assert!(is_embed_query(yes), "{yes}");
        }
        for no in ["", "?", "?embed=0", "?embed=false", "?embedded", "?x=embed"] {
            assert!(!is_embed_query(no), "{no}");
        }
    }

    /// An aggregated link starts the Lab with the scenario's shell player; the flows are
    /// computed on it, and the page's link is the same scenario again.
    #[test]
    fn an_aggregated_link_opens_its_flows_on_the_shell_it_started_with() {
        let day = brokerlab_core::examples::load("day-at-a-million").expect("built in");
        let text = link::encode(&Shared {
            scenario: day.clone(),
            example: Some(day.name.clone()),
            commands: Vec::new(),
            step: 0,
            at_us: 0,
            view: View::default(),
        });
        let opening = opening_of(link::open(&text).expect("decodes")).expect("opens");
        assert_eq!(opening.aggregated.as_ref(), Some(&day));
        let owner = leptos::prelude::Owner::new();
        owner.set();
        let lab = Lab::new(opening.player);
        let run = lab.with_player(Player::run);
        lab.show_aggregated_on_shell(day.clone()).expect("computed");
        assert!(lab.aggregated_on.get_untracked());
        assert_eq!(
            lab.with_player(Player::run),
            run,
            "the same player, not a new one"
        );
        assert_eq!(
            lab.with_aggregated(|a| a.scenario().clone()),
            Some(day.clone())
        );
        assert_eq!(current(lab).scenario, day);
    }

    #[test]
    fn attributes_are_escaped() {
        assert_eq!(
            escape_attribute("\"><script>&"),
            "&quot;&gt;&lt;script&gt;&amp;"
        );
    }
}
