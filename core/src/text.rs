//! Text from untrusted input shown back to the user: names and serde's messages (which
//! echo unknown field names) may hold newlines or terminal escape sequences, so every
//! control character is shown escaped and an error always stays on one line.

/// `s` with every control character (and the invisible characters that reorder or split
/// lines: bidirectional overrides, line and paragraph separators) written as `\u{…}`,
/// and backslashes doubled so the escapes cannot be forged.
pub fn escape_controls(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if needs_escape(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// `s` on one line: control and invisible characters escaped as in [`escape_controls`],
/// backslashes left alone (for text whose names were already quoted with `{:?}`).
pub fn one_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if needs_escape(c) {
            out.push_str(&escape_controls(c.encode_utf8(&mut [0; 4])));
        } else {
            out.push(c);
        }
    }
    out
}

fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{200e}' | '\u{200f}')
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_escaped_and_text_stays_one_line() {
        let shown = escape_controls("a\nb\u{1b}[2Jc\\n\u{202e}d é");
        assert_eq!(shown, "a\\nb\\u{1b}[2Jc\\\\n\\u{202e}d é");
        assert!(!shown.chars().any(char::is_control));
    }
}
