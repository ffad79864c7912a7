//! The seed control: the scenario's seed as an editable number, and a button that picks a
//! fresh one. The page may draw a random seed; the simulation itself never uses chance
//! beyond its seeded generator, so a seed always replays the same run.

use brokerlab_core::lessons::Lang;
use leptos::prelude::*;

use crate::i18n::{locale, t, t_string, td_string, use_i18n};
use crate::model::words::Words;
use crate::state::Lab;

/// Reads a seed as typed: a whole number from 0 to 2⁶⁴ − 1, spaces and underscores
/// between digits allowed, and the language's thousands separator in groups of three
/// ("1,000,000", "1.000.000" in Spanish). Any other separator is refused, not dropped:
/// "1,5" (one and a half in Spanish) is no seed, never 15. A refusal is said in `lang`.
pub fn parse_seed(text: &str, lang: Lang) -> Result<u64, String> {
    let l = locale(lang);
    let plain: String = text
        .trim()
        .chars()
        .filter(|c| !matches!(c, '_' | ' '))
        .collect();
    let sep = lang.thousands();
    let digits = if crate::format::grouped_in_threes(&plain, sep) {
        plain.replace(sep, "")
    } else {
        plain
    };
    if digits.is_empty() {
        return Err(td_string!(l, panels.seed.empty, max = u64::MAX).to_string());
    }
    if !digits.chars().all(|c| c.is_ascii_digit()) {
        let text = text.trim();
        return Err(td_string!(l, panels.seed.not_a_seed, text, max = u64::MAX).to_string());
    }
    digits
        .parse::<u64>()
        .map_err(|_| td_string!(l, panels.seed.too_large, max = u64::MAX).to_string())
}

/// A random seed from the browser's cryptographic generator (`crypto.getRandomValues`,
/// an entropy source, unlike `Math.random`); `None` if the browser offers none.
#[cfg(target_arch = "wasm32")]
fn random_seed() -> Option<u64> {
    let mut bytes = [0_u8; 8];
    let crypto = window().crypto().ok()?;
    crypto.get_random_values_with_u8_array(&mut bytes).ok()?;
    Some(u64::from_le_bytes(bytes))
}

#[cfg(not(target_arch = "wasm32"))]
fn random_seed() -> Option<u64> {
    // Native builds only run tests, which never press the button.
    Some(0x9e37_79b9_7f4a_7c15)
}

/// The seed field and the "New seed" button.
#[component]
pub fn SeedControl(lab: Lab) -> impl IntoView {
    let i18n = use_i18n();
    let problem = RwSignal::new(None::<String>);
    let input = NodeRef::<leptos::html::Input>::new();
    let apply = move || {
        let Some(el) = input.get_untracked() else {
            return;
        };
        match parse_seed(&el.value(), lab.lang.get_untracked()) {
            Ok(seed) => {
                problem.set(None);
                lab.set_seed(seed);
                el.set_value(&seed.to_string());
            }
            Err(message) => problem.set(Some(message)),
        }
    };
    // Escape gives the field back the seed in use, and drops what was said about the text.
    let revert = move |ev: leptos::ev::KeyboardEvent| {
        if ev.key() != "Escape" {
            return;
        }
        if let Some(el) = input.get_untracked() {
            el.set_value(&lab.seed.get_untracked().to_string());
        }
        problem.set(None);
    };
    let fresh = move |_| {
        problem.set(None);
        match random_seed() {
            Some(seed) => lab.set_seed(seed),
            None => lab.error.set(Some(Words::new(|lang| {
                td_string!(locale(lang), panels.seed.no_random).to_string()
            }))),
        }
        if let Some(el) = input.get_untracked() {
            el.set_value(&lab.seed.get_untracked().to_string());
        }
    };
    view! {
        <form class="seed" data-testid="seed-form"
            on:submit=move |ev: leptos::ev::SubmitEvent| {
                ev.prevent_default();
                apply();
            }>
            <label for="seed-input"><strong>{t!(i18n, panels.seed.label)}</strong></label>
            // Text, not type=number: a seed can exceed what a JavaScript number holds exactly.
            <input id="seed-input" type="text" inputmode="numeric" autocomplete="off" spellcheck="false"
                data-testid="seed" node_ref=input size="20"
                prop:value=move || lab.seed.get().to_string()
                aria-describedby="seed-hint seed-problem"
                aria-invalid=move || if problem.with(Option::is_some) { "true" } else { "false" }
                on:change=move |_| apply() on:keydown=revert />
            // Spanish shows a shorter word ("Nueva") beside the field's label; the button's
            // name stays whole for screen readers.
            <button type="button" data-testid="new-seed" on:click=fresh
                aria-label=move || t_string!(i18n, panels.seed.new_name)
                title=move || t_string!(i18n, panels.seed.new_title)>
                {t!(i18n, panels.seed.new)}
            </button>
            <span id="seed-hint" class="hint">{t!(i18n, panels.seed.hint)}</span>
            <span id="seed-problem" class="seed-problem" role="alert" data-testid="seed-problem">
                {move || problem.get()}
            </span>
        </form>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_are_whole_numbers_within_u64() {
        let en = Lang::En;
        assert_eq!(parse_seed("0", en), Ok(0));
        assert_eq!(parse_seed(" 42 ", en), Ok(42));
        assert_eq!(parse_seed("1,000,000", en), Ok(1_000_000));
        assert_eq!(parse_seed("18446744073709551615", en), Ok(u64::MAX));
        assert!(parse_seed("18446744073709551616", en)
            .unwrap_err()
            .contains("too large"));
        for bad in ["", "  ", "-1", "1.5", "1e3", "abc", "0x10", "٣"] {
            assert!(parse_seed(bad, en).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_seed_takes_only_its_languages_thousands_separator_in_groups_of_three() {
        let (en, es) = (Lang::En, Lang::Es);
        assert_eq!(parse_seed("1.000.000", es), Ok(1_000_000));
        assert_eq!(parse_seed("1 000 000", es), Ok(1_000_000));
        // A decimal or a misplaced separator is refused, never dropped: "1,5" is not 15.
        for (bad, lang) in [
            ("1,5", en),
            ("1,5", es),
            ("1.5", es),
            ("1,000", es),
            ("10,00", en),
            ("0,123", en),
            (",5", en),
            ("5,", en),
        ] {
            assert!(
                parse_seed(bad, lang).unwrap_err().contains(bad),
                "{bad:?} in {lang:?}"
            );
        }
        assert_eq!(
            parse_seed("", en),
            Err("Type a seed: a whole number from 0 to 18446744073709551615.".into())
        );
        assert_eq!(
            parse_seed("abc", Lang::Es),
            Err("“abc” no es una semilla: usa solo dígitos, de 0 a 18446744073709551615.".into())
        );
    }
}
