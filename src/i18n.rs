//! The page's words in English and Spanish. The `i18n` module is generated at build time
//! from `locales/` (see `build.rs`); views read it with `t!`, plain code with `td_string!`.
//! The language itself is `Lab::lang` (a core `Lang`, which the share link and the lessons
//! also use): the page's locale follows it.

// The generated code is not ours to lint.
#[allow(clippy::all, missing_docs, unused)]
mod generated {
    include!(concat!(env!("OUT_DIR"), "/i18n/mod.rs"));
}

pub use generated::i18n::*;

use brokerlab_core::lessons::Lang;

/// The page's translation context, as views hold it (`use_i18n()`).
pub type I18n = leptos_i18n::I18nContext<Locale>;

/// The language the page speaks now (tracked: a view or memo reading it follows a switch).
pub fn lang_of(i18n: I18n) -> Lang {
    lang(i18n.get_locale())
}

/// The locale the page shows for a language.
pub fn locale(lang: Lang) -> Locale {
    match lang {
        Lang::En => Locale::en,
        Lang::Es => Locale::es,
    }
}

/// The language of a locale.
pub fn lang(locale: Locale) -> Lang {
    match locale {
        Locale::en => Lang::En,
        Locale::es => Lang::Es,
    }
}
