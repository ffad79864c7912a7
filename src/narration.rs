//! The narration: the latest step in words, and a short log of notable events.

use leptos::prelude::*;

use crate::player::Narration;
use crate::readout::seconds;

fn latest_text(n: &Narration) -> String {
    if n.sentences.is_empty() {
        return "Press Play to start the run.".to_string();
    }
    let more = match n.more {
        0 => String::new(),
        1 => " (and 1 more thing)".to_string(),
        k => format!(" (and {k} more things)"),
    };
    format!("At {}: {}{more}", seconds(n.time_s), n.sentences.join(" "))
}

#[component]
pub fn NarrationPanel(narration: Memo<Narration>) -> impl IntoView {
    let events = move || {
        let events = narration.with(|n| n.events.clone());
        if events.is_empty() {
            return view! { <li class="none">"None yet. Try crashing a consumer."</li> }.into_any();
        }
        events
            .into_iter()
            .map(|e| {
                view! {
                    <li>
                        <span class="at">{seconds(e.time_s)}</span>
                        <span>{e.text}</span>
                    </li>
                }
            })
            .collect_view()
            .into_any()
    };
    view! {
        <section class="panel narration" aria-labelledby="narration-title">
            <h2 id="narration-title">"What just happened"</h2>
            <p class="latest" data-testid="narration" aria-live="polite">
                {move || narration.with(latest_text)}
            </p>
            <h3>"Notable events"</h3>
            <ol class="events" data-testid="events" role="log" aria-label="Notable events, newest first">
                {events}
            </ol>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::Event;

    #[test]
    fn the_line_invites_to_play_before_anything_happened() {
        assert_eq!(
            latest_text(&Narration::default()),
            "Press Play to start the run."
        );
    }

    #[test]
    fn the_line_gives_time_sentences_and_what_was_left_out() {
        let n = Narration {
            time_s: 12.345,
            sentences: vec!["A happened.".into(), "B happened.".into()],
            more: 2,
            events: vec![Event {
                time_s: 1.0,
                text: "x".into(),
            }],
        };
        assert_eq!(
            latest_text(&n),
            "At 12.3 s: A happened. B happened. (and 2 more things)"
        );
        let one = Narration {
            more: 1,
            ..n.clone()
        };
        assert!(latest_text(&one).ends_with("(and 1 more thing)"));
        let none = Narration { more: 0, ..n };
        assert!(latest_text(&none).ends_with("B happened."));
    }
}
