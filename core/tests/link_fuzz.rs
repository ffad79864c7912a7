//! Share links are untrusted input: whatever the text, decoding returns (never panics), and
//! a refusal is one sentence. Arbitrary text, arbitrary bytes behind a valid version, and
//! valid links with bytes flipped, cut or added.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use brokerlab_core::link::{decode, encode, Shared, View};
use brokerlab_core::{examples, Command, ConsumerId, CrashPoint, Intervention};
use proptest::prelude::*;

fn valid() -> String {
    let mut scenario = examples::load("crash-after-commit").expect("built in");
    scenario.seed = 11;
    encode(&Shared {
        scenario,
        example: Some("crash-after-commit".into()),
        commands: vec![Intervention {
            after_step: 3,
            at_us: 2_000,
            command: Command::CrashConsumer {
                consumer: ConsumerId::new(0),
                point: CrashPoint::AfterCommitBeforeAck,
                restart_after_s: Some(5.0),
            },
        }],
        step: 12,
        at_us: 0,
        view: View {
            speed: Some(1.0),
            panel: Some("history".into()),
            msg: Some(0),
            ..View::default()
        },
    })
}

fn one_sentence(result: Result<Shared, brokerlab_core::link::LinkError>) {
    if let Err(e) = result {
        assert!(!e.0.is_empty() && !e.0.contains('\n'), "{e:?}");
    }
}

#[test]
fn the_valid_link_opens_with_its_command() {
    let shared = decode(&valid()).expect("opens");
    assert_eq!(shared.commands.len(), 1);
    assert_eq!(shared.view.msg, Some(0));
    assert_eq!(shared.recorded().interventions.len(), 1);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn any_text_is_answered(text in ".{0,300}") {
        one_sentence(decode(&text));
    }

    #[test]
    fn any_bytes_behind_the_version_are_answered(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        one_sentence(decode(&format!("v1.{}", URL_SAFE_NO_PAD.encode(&bytes))));
    }

    #[test]
    fn a_mutated_valid_link_is_answered(
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        cut in any::<prop::sample::Index>(),
        tail in "[A-Za-z0-9_-]{0,20}",
    ) {
        let text = valid();
        let mut bytes = URL_SAFE_NO_PAD.decode(&text[3..]).expect("valid");
        for (at, value) in flips {
            let i = at.index(bytes.len());
            bytes[i] ^= value;
        }
        let mutated = format!("v1.{}", URL_SAFE_NO_PAD.encode(&bytes));
        one_sentence(decode(&mutated));
        let cut_at = 3 + cut.index(text.len() - 3);
        one_sentence(decode(&format!("{}{tail}", &text[..cut_at])));
    }
}
