//! The two languages of the product: lessons, narration and the examples' catalogue are
//! written in both, and numbers are written the way each language writes them (60,000 and
//! 2.5 in English; 60.000 and 2,5 in Spanish).

/// The language a text is shown in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Lang {
    #[default]
    En,
    Es,
}

impl Lang {
    pub const ALL: [Lang; 2] = [Lang::En, Lang::Es];

    /// The language's code, as in `<html lang>` and the runner's `--lang`.
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Es => "es",
        }
    }

    /// The language whose code is `code` (`en`, `es`), if it is one of ours.
    pub fn from_code(code: &str) -> Option<Lang> {
        Lang::ALL.into_iter().find(|l| l.code() == code)
    }

    /// The separator between groups of three digits.
    pub fn thousands(self) -> char {
        match self {
            Lang::En => ',',
            Lang::Es => '.',
        }
    }

    /// The separator before the decimals.
    pub fn decimal(self) -> char {
        match self {
            Lang::En => '.',
            Lang::Es => ',',
        }
    }
}

/// One text in English and in Spanish.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Text {
    pub en: &'static str,
    pub es: &'static str,
}

impl Text {
    pub const fn new(en: &'static str, es: &'static str) -> Self {
        Self { en, es }
    }

    pub fn get(&self, lang: Lang) -> &'static str {
        match lang {
            Lang::En => self.en,
            Lang::Es => self.es,
        }
    }
}

/// `value` rounded to `decimals` places, with the language's separators: `number(60000.0,
/// 0, Es)` is "60.000", `number(2.5, 1, Es)` is "2,5". Decimals are left out when they
/// round to zero ("30", not "30.0").
pub fn number(value: f64, decimals: usize, lang: Lang) -> String {
    let text = format!("{:.*}", decimals, value.abs());
    let (whole, fraction) = match text.split_once('.') {
        Some((w, f)) if f.bytes().any(|b| b != b'0') => (w, Some(f)),
        Some((w, _)) => (w, None),
        None => (text.as_str(), None),
    };
    let negative = value < 0.0 && (whole != "0" || fraction.is_some());
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    out.push_str(&grouped(whole, lang.thousands()));
    if let Some(f) = fraction {
        out.push(lang.decimal());
        out.push_str(f);
    }
    out
}

/// Digits with `sep` between groups of three, counted from the right ("86400" with ','
/// is "86,400").
pub fn grouped(digits: &str, sep: char) -> String {
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(sep);
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_follow_each_language() {
        assert_eq!(number(60_000.0, 0, Lang::En), "60,000");
        assert_eq!(number(60_000.0, 0, Lang::Es), "60.000");
        assert_eq!(number(2.5, 1, Lang::En), "2.5");
        assert_eq!(number(2.5, 1, Lang::Es), "2,5");
        assert_eq!(number(1_234_567.25, 2, Lang::Es), "1.234.567,25");
        assert_eq!(number(30.0, 1, Lang::En), "30");
        assert_eq!(number(-50.0, 0, Lang::En), "-50");
        assert_eq!(number(-0.01, 1, Lang::En), "0");
        assert_eq!(number(999.0, 0, Lang::En), "999");
    }

    #[test]
    fn codes_round_trip() {
        for lang in Lang::ALL {
            assert_eq!(Lang::from_code(lang.code()), Some(lang));
        }
        assert_eq!(Lang::from_code("fr"), None);
    }
}
