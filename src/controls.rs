//! The playback toolbar: play/pause, speed, crash a consumer, reset.

use leptos::prelude::*;

use crate::lab::Lab;
use crate::player::{RESTART_AFTER_S, SPEEDS};
use crate::readout::speed;

#[component]
pub fn Controls(lab: Lab) -> impl IntoView {
    let play_label = move || {
        if lab.playing.get() {
            "Pause"
        } else if lab.readout.with(|r| r.finished) {
            "Replay"
        } else {
            "Play"
        }
    };
    let crash_label = move || match lab.crash_target.get() {
        Some(name) => format!("Crash {name}"),
        None => "All consumers are down".to_string(),
    };
    let on_speed = move |ev: leptos::ev::Event| {
        if let Ok(s) = event_target_value(&ev).parse::<f64>() {
            lab.set_speed(s);
        }
    };
    let options = SPEEDS
        .iter()
        .map(|&s| {
            view! {
                <option value=s.to_string() selected=move || lab.speed.get() == s>
                    {speed(s)}
                </option>
            }
        })
        .collect_view();
    view! {
        <div class="controls" role="toolbar" aria-label="Playback">
            <button type="button" class="primary" data-testid="play" on:click=move |_| lab.toggle_play()>
                {play_label}
            </button>
            <label class="speed">
                <span>"Speed"</span>
                <select data-testid="speed" on:change=on_speed prop:value=move || lab.speed.get().to_string()>
                    {options}
                </select>
                <span class="hint">"simulated seconds per second"</span>
            </label>
            <button type="button" class="danger" data-testid="crash" on:click=move |_| lab.crash()
                disabled=move || lab.crash_target.with(Option::is_none)
                title=format!("Crashes the first running consumer now; it restarts {RESTART_AFTER_S} s later")>
                {crash_label}
            </button>
            <button type="button" data-testid="reset" on:click=move |_| lab.reset()>
                "Reset"
            </button>
        </div>
    }
}
