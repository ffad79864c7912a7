//! How numbers and times are written on the page: counts, seconds, speeds, latencies, each
//! with the separators of the page's language (60,123 and 42.3 s in English; 60.123 and
//! 42,3 s in Spanish), so a figure reads the same in the counters, the chart and the lessons.

use brokerlab_core::lang::{grouped, number};
use brokerlab_core::lessons::Lang;

/// A count with thousands separators: `60,123` (`60.123` in Spanish).
pub fn count(n: u64, lang: Lang) -> String {
    number(n as f64, 0, lang)
}

/// Seconds with one decimal: `42.3 s` (`42,3 s`), `86,400.0 s` (`86.400,0 s`) for a day;
/// the decimal is kept even when zero so a running clock does not change width.
pub fn seconds(s: f64, lang: Lang) -> String {
    format!("{} s", fixed(s.max(0.0), 1, lang))
}

/// A speed factor as the speed menu shows it: `0.1×`, `2×`, `20×` (`0,1×` in Spanish).
pub fn speed(factor: f64, lang: Lang) -> String {
    let text = if factor.fract() == 0.0 {
        format!("{factor:.0}×")
    } else {
        format!("{factor}×")
    };
    decimal_comma(text, lang)
}

/// A count too wide for a counter's tile written short: `127.7 M` (`127,7 M`) from ten
/// million, `3.16 × 10¹⁰` from a thousand million; `None` below ten million, which fits
/// written in full. The tile gives the exact count on hover.
pub fn compact_count(n: u64, lang: Lang) -> Option<String> {
    let x = n as f64;
    if n < 10_000_000 {
        None
    } else if x < 999_950_000.0 {
        Some(decimal_comma(format!("{:.1} M", x / 1e6), lang))
    } else {
        // Rust writes `3.16e10`: the mantissa already rounded, the power of ten after it.
        let text = format!("{x:.2e}");
        let (mantissa, power) = text.split_once('e')?;
        let superscript: String = power.chars().map(superscript_digit).collect();
        Some(decimal_comma(format!("{mantissa} × 10{superscript}"), lang))
    }
}

/// A digit as a superscript (`¹⁰`), for a power of ten.
fn superscript_digit(d: char) -> char {
    match d {
        '1' => '¹',
        '2' => '²',
        '3' => '³',
        '0'..='9' => char::from_u32(0x2070 + d.to_digit(10).unwrap_or(0)).unwrap_or(d),
        other => other,
    }
}

/// Axis labels for message counts: `0`, `500`, `20k`, `1.5M` (`1,5M`), and thousands of
/// millions grouped as every count is: `5,000M` (`5.000M`).
pub fn short_count(n: f64, lang: Lang) -> String {
    let a = n.abs();
    if a >= 1_000_000_000.0 {
        return fixed(n / 1_000_000.0, 0, lang) + "M";
    }
    let text = if a >= 1_000_000.0 {
        trim_zero(format!("{:.1}", n / 1_000_000.0)) + "M"
    } else if a >= 1_000.0 {
        trim_zero(format!("{:.1}", n / 1_000.0)) + "k"
    } else {
        format!("{n:.0}")
    };
    decimal_comma(text, lang)
}

/// A rate or amount as typed in a form, to two decimals at most, with the language's
/// separators: `3,000`, `2.5`, `0.25` (`3.000`, `2,5`, `0,25`).
pub fn amount(v: f64, lang: Lang) -> String {
    // + 0.0 turns -0.0 into 0.0: never "-0".
    let text = number(v + 0.0, 2, lang);
    if text.contains(lang.decimal()) {
        text.trim_end_matches('0').to_string()
    } else {
        text
    }
}

/// `v` with exactly `decimals` decimals and the language's separators: `1.50` (`1,50`),
/// `86,400.0` (`86.400,0`), for figures whose width should not change as they move (ρ,
/// the clock, axis labels).
pub fn fixed(v: f64, decimals: usize, lang: Lang) -> String {
    let text = format!("{:.*}", decimals, v + 0.0);
    let (sign, digits) = match text.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", text.as_str()),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    let whole = grouped(whole, lang.thousands());
    if fraction.is_empty() {
        format!("{sign}{whole}")
    } else {
        format!("{sign}{whole}{}{fraction}", lang.decimal())
    }
}

/// An instant of a message's history (or a delay in it), to the millisecond and no
/// further than it needs, as the narration writes it: `1.5`, `11`, `61.012`, `86,400.1`
/// (`1,5`, `11`, `61,012`, `86.400,1` in Spanish), without the unit. Trailing zeros are
/// left out so that a Spanish `11,000` is never read as eleven thousand.
pub fn instant(s: f64, lang: Lang) -> String {
    let text = fixed(s.max(0.0), 3, lang);
    match text.split_once(lang.decimal()) {
        Some((whole, fraction)) => match fraction.trim_end_matches('0') {
            "" => whole.to_string(),
            fraction => format!("{whole}{}{fraction}", lang.decimal()),
        },
        None => text,
    }
}

/// A label of the chart's axes in seconds (the time axis, the oldest message's age):
/// grouped as the clock is (`80,000`, `80.000` in Spanish for a day), with one decimal on
/// an axis under ten seconds, whose ticks fall between whole seconds (`0.5`, `0,5`).
pub fn axis_seconds(v: f64, axis_max: f64, lang: Lang) -> String {
    fixed(v, usize::from(axis_max < 10.0), lang)
}

/// A number as a form field holds it: no thousands separators (so it can be edited and
/// sent back as it is), the language's decimal separator (`2.5`, `2,5` in Spanish).
/// Negative zero is written as 0: a field never shows `-0`.
pub fn field(v: f64, lang: Lang) -> String {
    decimal_comma((v + 0.0).to_string(), lang)
}

/// The value a range slider (`<input type=range>`) is given for a field's text: the
/// browser reads only a dot as the decimal separator and puts any other text (a Spanish
/// `0,9`) at the middle of the range, so the language's comma becomes a dot. A field has
/// no thousands separators (see [`field`]), so a comma there is always the decimal one.
pub fn slider_value(field_text: &str) -> String {
    field_text.replace(',', ".")
}

/// A number typed by hand, the way the page's language writes it: "60,000" and
/// "1,500.25" in English, "60.000" and "1.500,25" in Spanish — thousands separators only
/// in groups of three (and before the decimal separator), one decimal separator at most.
/// A lone separator that cannot group thousands there (not followed by exactly three
/// digits, or after a leading 0) is taken as the decimal one, so "2.5" is 2.5 in Spanish
/// too and "2,5" is 2.5 in English, never 25. A form mixing the two languages' ways is
/// no number: "1.000,5" in English and "1,000.5" in Spanish (a grouping separator after
/// the decimal one), "1,0,0.5" (groups not of three), "1.2.3" (two decimal separators).
/// Spaces and underscores are ignored; infinities and NaN are not numbers. A power of
/// ten may follow (`1e-9`, `2,5E3` in Spanish): it is a number, so a field calls it out
/// of range rather than no number at all; one too large for a float (`1e309`) is none.
pub fn parse_number(text: &str, lang: Lang) -> Option<f64> {
    let plain: String = text
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '_')
        // A typographic minus (as text copied from the page or a document has) is a minus.
        .map(|c| if c == '−' { '-' } else { c })
        .collect();
    let Some((mantissa, exponent)) = plain.split_once(['e', 'E']) else {
        return parse_plain(&plain, lang);
    };
    let digits = exponent.strip_prefix(['-', '+']).unwrap_or(exponent);
    if digits.is_empty() || digits.len() > 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // The mantissa's shortest exact form and the exponent, read back as one: exact, as
    // `1e-9` typed in code is (a multiplication by a power of ten would round twice).
    let m = parse_plain(mantissa, lang)?;
    format!("{m}e{exponent}")
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .map(|x| x + 0.0)
}

/// [`parse_number`] without a power of ten.
fn parse_plain(plain: &str, lang: Lang) -> Option<f64> {
    let (sign, body) = match plain.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", plain.strip_prefix('+').unwrap_or(plain)),
    };
    let (thousands, decimal) = (lang.thousands(), lang.decimal());
    let (whole, fraction) = if let Some((whole, fraction)) = body.split_once(decimal) {
        // The language's decimal separator: digits after it, nothing else (no second
        // decimal separator, no grouping one), and the whole part grouped rightly.
        (ungrouped(whole, thousands)?, fraction)
    } else if grouped_in_threes(body, thousands) {
        (body.replace(thousands, ""), "")
    } else {
        // The other language's decimal separator, alone.
        let (whole, fraction) = body.split_once(thousands).unwrap_or((body, ""));
        (whole.to_string(), fraction)
    };
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if !digits(&whole) || !digits(fraction) || (whole.is_empty() && fraction.is_empty()) {
        return None;
    }
    format!("{sign}0{whole}.{fraction}0")
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        // "-0" is zero: no negative zero reaches a command, a link or a field.
        .map(|x| x + 0.0)
}

/// The whole part before a decimal separator, its thousands separators taken out: none,
/// or groups of three after a first group of one to three digits.
fn ungrouped(whole: &str, sep: char) -> Option<String> {
    if !whole.contains(sep) {
        return Some(whole.to_string());
    }
    grouped_in_threes(whole, sep).then(|| whole.replace(sep, ""))
}

/// True for digits grouped in threes by `sep` ("60.000", "1,234,567"), the first group
/// of one to three digits and not a lone 0 ("0.250" is not 250 in Spanish).
pub(crate) fn grouped_in_threes(digits: &str, sep: char) -> bool {
    let mut groups = digits.split(sep);
    let first = groups.next().unwrap_or_default();
    let mut rest = groups.peekable();
    rest.peek().is_some()
        && (1..=3).contains(&first.len())
        && !first.starts_with('0')
        && first.bytes().all(|b| b.is_ascii_digit())
        && rest.all(|g| g.len() == 3 && g.bytes().all(|b| b.is_ascii_digit()))
}

fn trim_zero(s: String) -> String {
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}

/// A latency for the panel: milliseconds under a second, else seconds.
pub fn latency(s: f64, lang: Lang) -> String {
    let text = if !s.is_finite() || s <= 0.0 {
        "0 ms".to_string()
    } else if s < 1.0 {
        format!("{:.0} ms", s * 1_000.0)
    } else {
        format!("{s:.2} s")
    };
    decimal_comma(text, lang)
}

/// `text` (one number written with a decimal point, no thousands separators) with the
/// language's decimal separator.
fn decimal_comma(text: String, lang: Lang) -> String {
    match lang {
        Lang::En => text,
        Lang::Es => text.replace('.', ","),
    }
}

/// Units a number keeps on its line: "6 s" never breaks into "6" and "s".
const UNITS: &[&str] = &["s", "ms", "%", "×", "msg/s", "mensajes/s"];

/// `text` in runs, each `(run, whole)`: a `whole` run is a number with the unit after it
/// ("6 s", "6,5 s", "100 %"), which the page keeps on one line; the others may break
/// anywhere. The runs, joined, are `text`.
pub fn unit_runs(text: &str) -> Vec<(&str, bool)> {
    let mut runs = Vec::new();
    let mut plain_from = 0;
    let mut search_from = 0;
    while let Some(found) = text[search_from..].find(' ') {
        let space = search_from + found;
        search_from = space + 1;
        let number_from = text[..space]
            .rfind(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
            .map_or(0, |i| {
                i + text[i..].chars().next().map_or(1, char::len_utf8)
            });
        let number = &text[number_from..space];
        // A number stands alone: "#7 s" is a message and a word.
        let alone = text[..number_from]
            .chars()
            .next_back()
            .is_none_or(|c| c.is_whitespace() || matches!(c, '(' | '−' | '-' | '~' | '≈'));
        if number_from < plain_from || !alone || !number.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        let rest = &text[space + 1..];
        let word_end = rest
            .find(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | ':' | ')' | '.'))
            .unwrap_or(rest.len());
        if !UNITS.contains(&&rest[..word_end]) {
            continue;
        }
        let unit_end = space + 1 + word_end;
        if plain_from < number_from {
            runs.push((&text[plain_from..number_from], false));
        }
        runs.push((&text[number_from..unit_end], true));
        plain_from = unit_end;
        search_from = unit_end;
    }
    if plain_from < text.len() {
        runs.push((&text[plain_from..], false));
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_number_keeps_its_unit_on_its_line() {
        let runs = unit_runs("a los 6 s, y 6,5 s más; 100 % de 3 consumidores (2 ms).");
        assert_eq!(
            runs,
            [
                ("a los ", false),
                ("6 s", true),
                (", y ", false),
                ("6,5 s", true),
                (" más; ", false),
                ("100 %", true),
                (" de 3 consumidores (", false),
                ("2 ms", true),
                (").", false),
            ]
        );
        let text = "C1 at 12.5 s (λ = 0.9 msg/s) ends at s.";
        let joined: String = unit_runs(text).iter().map(|r| r.0).collect();
        assert_eq!(joined, text);
        assert_eq!(unit_runs("no numbers here"), [("no numbers here", false)]);
        assert_eq!(
            unit_runs("9 seconds"),
            [("9 seconds", false)],
            "a word, not a unit"
        );
        assert_eq!(unit_runs("#7 s"), [("#7 s", false)], "an id is no number");
        assert_eq!(unit_runs(""), []);
    }
    use Lang::{En, Es};

    #[test]
    fn history_instants_go_to_the_millisecond_without_trailing_zeros() {
        assert_eq!(instant(1.5, En), "1.5");
        assert_eq!(instant(1.5, Es), "1,5");
        assert_eq!(
            instant(11.0, Es),
            "11",
            "never '11,000': eleven thousand in Spanish"
        );
        assert_eq!(instant(61.012, Es), "61,012");
        assert_eq!(instant(0.2504, En), "0.25");
        assert_eq!(instant(86_400.1, En), "86,400.1");
        assert_eq!(instant(86_400.0, Es), "86.400");
        assert_eq!(instant(0.0001, En), "0");
        assert_eq!(instant(-0.0, Es), "0");
    }

    #[test]
    fn amounts_keep_two_decimals_at_most_with_the_languages_separators() {
        assert_eq!(amount(3_000.0, En), "3,000");
        assert_eq!(amount(3_000.0, Es), "3.000");
        assert_eq!(amount(2.5, En), "2.5");
        assert_eq!(amount(2.5, Es), "2,5");
        assert_eq!(amount(0.25, Es), "0,25");
        assert_eq!(amount(1_234.5, Es), "1.234,5");
        assert_eq!(amount(0.004, En), "0");
        assert_eq!(amount(-0.0, En), "0");
        assert_eq!(amount(-1.5, Es), "-1,5");
    }

    #[test]
    fn fixed_decimals_keep_their_zeros_and_take_the_languages_comma() {
        assert_eq!(fixed(1.5, 2, En), "1.50");
        assert_eq!(fixed(1.5, 2, Es), "1,50");
        assert_eq!(fixed(0.2, 1, Es), "0,2");
        assert_eq!(fixed(-0.0, 1, En), "0.0");
        assert_eq!(fixed(86_400.0, 1, En), "86,400.0");
        assert_eq!(fixed(86_400.0, 1, Es), "86.400,0");
        assert_eq!(fixed(-1_234.56, 2, Es), "-1.234,56");
        assert_eq!(seconds(86_400.0, Es), "86.400,0 s");
        assert_eq!(seconds(42.25, En), "42.2 s");
    }

    #[test]
    fn numbers_are_read_the_way_the_language_writes_them() {
        assert_eq!(parse_number("60,000", En), Some(60_000.0));
        assert_eq!(parse_number("60.000", Es), Some(60_000.0));
        assert_eq!(parse_number("1.234.567", Es), Some(1_234_567.0));
        assert_eq!(parse_number("2.5", En), Some(2.5));
        assert_eq!(parse_number("2,5", Es), Some(2.5));
        assert_eq!(parse_number("1.500,25", Es), Some(1_500.25));
        assert_eq!(parse_number("1,500.25", En), Some(1_500.25));
        assert_eq!(parse_number(" 60 000 ", En), Some(60_000.0));
        assert_eq!(parse_number("-1,5", Es), Some(-1.5));
        assert_eq!(parse_number("−5", Es), Some(-5.0), "a typographic minus");
        assert_eq!(parse_number("1e−3", En), Some(0.001));
        assert_eq!(parse_number("sixty", En), None);
        assert_eq!(parse_number("inf", En), None);
        assert_eq!(parse_number("", Es), None);
    }

    #[test]
    fn counts_too_wide_for_a_tile_are_written_short() {
        assert_eq!(compact_count(9_999_999, En), None, "fits in full");
        assert_eq!(compact_count(127_711_634, En).as_deref(), Some("127.7 M"));
        assert_eq!(compact_count(127_711_634, Es).as_deref(), Some("127,7 M"));
        assert_eq!(compact_count(999_949_999, En).as_deref(), Some("999.9 M"));
        assert_eq!(
            compact_count(999_950_000, En).as_deref(),
            Some("1.00 × 10⁹")
        );
        assert_eq!(
            compact_count(31_620_000_000, Es).as_deref(),
            Some("3,16 × 10¹⁰")
        );
        assert_eq!(compact_count(u64::MAX, En).as_deref(), Some("1.84 × 10¹⁹"));
        // Narrower than the exact count, which a tile cut at eleven characters.
        for n in [10_000_000, 123_456_789, 4_000_000_000, u64::MAX] {
            let short = compact_count(n, En).expect("short");
            assert!(short.chars().count() <= 11, "{short}");
        }
    }

    #[test]
    fn a_power_of_ten_is_a_number_and_too_large_a_one_is_none() {
        assert_eq!(parse_number("1e-9", En), Some(1e-9));
        assert_eq!(parse_number("1E-9", Es), Some(1e-9));
        assert_eq!(parse_number("2,5e3", Es), Some(2_500.0));
        assert_eq!(parse_number("1,000e3", En), Some(1e6));
        assert_eq!(parse_number("-1.5e+2", En), Some(-150.0));
        assert_eq!(parse_number("1e309", En), None, "infinite as a float");
        assert_eq!(parse_number("Infinity", En), None);
    }

    #[test]
    fn a_separator_that_cannot_group_thousands_is_the_decimal_one() {
        // A Spanish decimal comma is never read as a thousands separator (0,9 is not 9).
        assert_eq!(parse_number("0,9", Es), Some(0.9));
        assert_eq!(parse_number("0.9", Es), Some(0.9));
        assert_eq!(parse_number("2,5", En), Some(2.5));
        assert_eq!(parse_number("0.25", Es), Some(0.25));
        // Two decimal separators, or groups of the wrong size, are no number.
        assert_eq!(parse_number("1.2.3", Es), None);
        assert_eq!(parse_number("1,2,3", En), None);
    }

    #[test]
    fn each_language_s_own_forms_are_read() {
        let read = |text, lang| parse_number(text, lang);
        // English: thousands by commas in threes, a decimal point.
        assert_eq!(read("1,000.5", En), Some(1_000.5));
        assert_eq!(read("2,000", En), Some(2_000.0));
        assert_eq!(read("1,234,567.25", En), Some(1_234_567.25));
        assert_eq!(read("-1,000.5", En), Some(-1_000.5));
        assert_eq!(read("+7", En), Some(7.0));
        assert_eq!(read(".5", En), Some(0.5));
        assert_eq!(read("1000.5", En), Some(1_000.5));
        // Spanish: thousands by points in threes, a decimal comma.
        assert_eq!(read("1.000,5", Es), Some(1_000.5));
        assert_eq!(read("2.000", Es), Some(2_000.0));
        assert_eq!(read("1.234.567,25", Es), Some(1_234_567.25));
        assert_eq!(read("-1.000,5", Es), Some(-1_000.5));
        assert_eq!(read("1000,5", Es), Some(1_000.5));
        // A leading 0 groups nothing: the separator is a decimal one (it read 250).
        assert_eq!(read("0.250", Es), Some(0.25));
        assert_eq!(read("0,250", En), Some(0.25));
    }

    #[test]
    fn mixed_or_misgrouped_forms_are_no_number_in_either_language() {
        for (text, lang) in [
            // A grouping separator after the decimal one: the other language's form.
            ("1,000.5", Es), // read 1,0005
            ("1.000,5", En), // read 1.0005
            ("1,000,000.5", Es),
            ("1.000.000,5", En),
            ("2,5.0", Es),
            // Groups not of three.
            ("1,0,0.5", En),
            ("1.0.0,5", Es),
            ("12,34,567", En),
            ("1.0000,5", Es),
            ("1234,567.5", En),
            ("0.000,5", Es),
            // More than one decimal separator.
            ("1.2.3", En),
            ("1,2,3", Es),
            ("1,5,", Es),
            // No digits, or not only digits.
            (".", En),
            (",", Es),
            ("-", En),
            ("--5", En),
            ("1e", En),
            ("1e+", En),
            ("e3", En),
            ("1e3.5", En),
            ("1e99999", En),
            ("1e3e3", En),
            ("0x10", En),
            ("½", Es),
        ] {
            assert_eq!(parse_number(text, lang), None, "{text:?} in {lang:?}");
        }
    }

    #[test]
    fn a_field_is_read_back_as_it_was_written_in_either_language() {
        for v in [0.9, 2.5, 0.25, 3_000.0, 1_234.5, 0.001, 120.0] {
            for lang in [En, Es] {
                assert_eq!(
                    parse_number(&field(v, lang), lang),
                    Some(v),
                    "{v} in {lang:?}"
                );
            }
        }
        assert_eq!(field(0.9, Es), "0,9");
        assert_eq!(field(3_000.0, Es), "3000");
    }

    #[test]
    fn negative_zero_is_read_and_written_as_zero() {
        for lang in [En, Es] {
            let read = parse_number("-0", lang).unwrap();
            assert!(read == 0.0 && read.is_sign_positive(), "{lang:?}");
            assert_eq!(field(-0.0, lang), "0");
            assert_eq!(field(read, lang), "0");
        }
        assert_eq!(field(-0.0, Es), "0");
    }

    #[test]
    fn a_slider_gets_a_number_with_a_dot_in_either_language() {
        // The browser puts a range input given "0,9" at its middle, not at 0.9.
        for v in [0.9, 2.5, 0.25, 3_000.0, 1_234.5, 0.001, 120.0] {
            for lang in [En, Es] {
                let text = slider_value(&field(v, lang));
                assert_eq!(text.parse::<f64>().ok(), Some(v), "{v} in {lang:?}");
                // And the slider's own value is read back by the field's parser.
                assert_eq!(parse_number(&text, lang), Some(v), "{v} in {lang:?}");
            }
        }
        assert_eq!(slider_value("0,9"), "0.9");
    }

    #[test]
    fn counts_have_thousands_separators() {
        assert_eq!(count(0, En), "0");
        assert_eq!(count(999, En), "999");
        assert_eq!(count(1_000, En), "1,000");
        assert_eq!(count(60_123, En), "60,123");
        assert_eq!(count(1_234_567, En), "1,234,567");
        assert_eq!(count(1_234_567, Es), "1.234.567");
    }

    #[test]
    fn seconds_have_one_decimal_and_never_go_negative() {
        assert_eq!(seconds(0.0, En), "0.0 s");
        assert_eq!(seconds(42.26, En), "42.3 s");
        assert_eq!(seconds(-1.0, En), "0.0 s");
        assert_eq!(seconds(42.26, Es), "42,3 s");
    }

    #[test]
    fn speeds_read_naturally() {
        assert_eq!(speed(0.1, En), "0.1×");
        assert_eq!(speed(0.25, En), "0.25×");
        assert_eq!(speed(2.0, En), "2×");
        assert_eq!(speed(20.0, En), "20×");
        assert_eq!(speed(0.25, Es), "0,25×");
    }

    #[test]
    fn time_axis_labels_are_grouped_and_keep_a_decimal_on_a_short_axis() {
        assert_eq!(axis_seconds(80_000.0, 86_400.0, En), "80,000");
        assert_eq!(axis_seconds(80_000.0, 86_400.0, Es), "80.000");
        assert_eq!(axis_seconds(120.0, 181.0, En), "120");
        assert_eq!(axis_seconds(0.5, 6.5, En), "0.5");
        assert_eq!(axis_seconds(0.5, 6.5, Es), "0,5");
        assert_eq!(axis_seconds(2.0, 6.5, En), "2.0");
    }

    #[test]
    fn short_counts_fit_an_axis() {
        assert_eq!(short_count(0.0, En), "0");
        assert_eq!(short_count(500.0, En), "500");
        assert_eq!(short_count(20_000.0, En), "20k");
        assert_eq!(short_count(12_500.0, En), "12.5k");
        assert_eq!(short_count(1_500_000.0, En), "1.5M");
        assert_eq!(short_count(1_500_000.0, Es), "1,5M");
        // A day at a million a second: grouped as every other count on the page.
        assert_eq!(short_count(5_000_000_000.0, En), "5,000M");
        assert_eq!(short_count(12_500_000_000.0, Es), "12.500M");
    }

    #[test]
    fn latencies_read_in_milliseconds_or_seconds() {
        assert_eq!(latency(0.0, En), "0 ms");
        assert_eq!(latency(0.0123, En), "12 ms");
        assert_eq!(latency(1.5, En), "1.50 s");
        assert_eq!(latency(f64::NAN, En), "0 ms");
        assert_eq!(latency(1.5, Es), "1,50 s");
    }
}
