//! The app's layers, checked from its source: dependencies point one way
//! (ui → state → model → format → i18n), the model knows nothing of Leptos or the browser, and no
//! module of `src/` imports, directly or through others, a module that imports it back.
//! The core (`core/src/`) is held to the last rule too. See docs/architecture.md.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A module's path from the crate root (`["model", "player"]`) and its source.
type Sources = BTreeMap<Vec<String>, String>;

/// The layer a module belongs to, lowest first; `None` for the crate root (it mounts the
/// page, so it may use every layer).
fn layer(module: &[String]) -> Option<usize> {
    const LAYERS: [&str; 5] = ["i18n", "format", "model", "state", "ui"];
    let top = module.first()?;
    LAYERS.iter().position(|l| l == top)
}

/// Crates a layer below the state must not use: the model is plain data, tested natively.
const BROWSER_CRATES: [&str; 5] = ["leptos", "leptos_use", "web_sys", "wasm_bindgen", "js_sys"];

fn read_sources(dir: &Path, prefix: &[String], out: &mut Sources) {
    for entry in std::fs::read_dir(dir).expect("readable src") {
        let path = entry.expect("entry").path();
        let name = path
            .file_stem()
            .expect("name")
            .to_string_lossy()
            .to_string();
        if path.is_dir() {
            let mut inner = prefix.to_vec();
            inner.push(name);
            read_sources(&path, &inner, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let mut module = prefix.to_vec();
            if name != "mod" && !(prefix.is_empty() && (name == "lib" || name == "main")) {
                module.push(name);
            }
            let text = std::fs::read_to_string(&path).expect("readable file");
            out.entry(module).or_default().push_str(&text);
        }
    }
}

/// The code of a file without its comments (a doc comment may name any module).
fn code_of(text: &str) -> String {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Modules `text` names as `crate::a::b…`, each resolved to the longest known module.
fn references(text: &str, known: &Sources) -> BTreeSet<Vec<String>> {
    let code = code_of(text);
    let mut found = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        let path: Vec<String> = rest
            .split("::")
            .map_while(|seg| {
                let seg: String = seg
                    .chars()
                    .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
                    .collect();
                (!seg.is_empty()).then_some(seg)
            })
            .collect();
        let longest = (1..=path.len())
            .rev()
            .map(|n| path[..n].to_vec())
            .find(|p| known.contains_key(p));
        if let Some(module) = longest {
            found.insert(module);
        }
    }
    found
}

/// One is inside the other (a parent declares its children; a child may use its parent).
fn nested(a: &[String], b: &[String]) -> bool {
    a.starts_with(b) || b.starts_with(a)
}

/// Every broken rule, in words.
fn problems(sources: &Sources) -> Vec<String> {
    let mut found = Vec::new();
    let mut graph: BTreeMap<&Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for (module, text) in sources {
        let name = module.join("::");
        let refs = references(text, sources);
        for to in &refs {
            if let (Some(from_layer), Some(to_layer)) = (layer(module), layer(to)) {
                if to_layer > from_layer {
                    found.push(format!("{name} imports {} (upward)", to.join("::")));
                }
            }
        }
        if layer(module).is_some_and(|l| l <= 2) {
            let code = code_of(text);
            for krate in BROWSER_CRATES {
                if code.contains(&format!("{krate}::")) {
                    found.push(format!("{name} uses {krate}"));
                }
            }
        }
        let edges = refs.into_iter().filter(|to| !nested(module, to)).collect();
        graph.insert(module, edges);
    }
    found.extend(cycles(&graph));
    found
}

/// A cycle through each module that is on one (depth-first search).
fn cycles(graph: &BTreeMap<&Vec<String>, BTreeSet<Vec<String>>>) -> Vec<String> {
    fn visit<'a>(
        node: &'a Vec<String>,
        graph: &'a BTreeMap<&Vec<String>, BTreeSet<Vec<String>>>,
        path: &mut Vec<&'a Vec<String>>,
        done: &mut BTreeSet<&'a Vec<String>>,
        found: &mut Vec<String>,
    ) {
        if let Some(at) = path.iter().position(|n| *n == node) {
            let ring: Vec<String> = path[at..].iter().map(|m| m.join("::")).collect();
            found.push(format!("cycle: {} → {}", ring.join(" → "), node.join("::")));
            return;
        }
        if !done.insert(node) {
            return;
        }
        path.push(node);
        for next in graph.get(node).into_iter().flatten() {
            visit(next, graph, path, done, found);
        }
        path.pop();
    }
    let mut found = Vec::new();
    let mut done = BTreeSet::new();
    for node in graph.keys() {
        visit(node, graph, &mut Vec::new(), &mut done, &mut found);
    }
    found
}

/// The sources of the crate whose root folder is `dir` (from the workspace's root), after
/// checking that each of `modules` is among them (a moved folder must not pass unread).
fn sources_of(dir: &str, modules: &[&str]) -> Sources {
    let mut sources = Sources::new();
    read_sources(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join(dir),
        &[],
        &mut sources,
    );
    for module in modules {
        assert!(
            sources.contains_key(&vec![module.to_string()]),
            "no {module}"
        );
    }
    sources
}

#[test]
fn src_has_one_way_layers_and_no_import_cycles() {
    let sources = sources_of("src", &["format", "model", "state", "ui"]);
    assert_eq!(problems(&sources), Vec::<String>::new());
}

/// The core reads as layers too (ids and time → the scenario → the runtime parts → the
/// simulation → reports and modes); a cycle would make that order a lie.
#[test]
fn the_core_has_no_import_cycles() {
    let sources = sources_of(
        "core/src",
        &["scenario", "sim", "aggregate", "fluid", "budget"],
    );
    assert_eq!(problems(&sources), Vec::<String>::new());
}

#[test]
fn the_checker_finds_an_upward_import_a_browser_crate_in_the_model_and_a_cycle() {
    let module = |p: &str| p.split("::").map(str::to_string).collect::<Vec<_>>();
    let mut sources = Sources::new();
    sources.insert(module("format"), "// crate::ui is only named here\n".into());
    sources.insert(module("model"), String::new());
    sources.insert(module("model::a"), "use crate::model::b::X;\n".into());
    sources.insert(
        module("model::b"),
        "use crate::model::a::Y;\nuse crate::state::Lab;\nuse leptos::prelude::*;\n".into(),
    );
    sources.insert(module("state"), String::new());
    let found = problems(&sources);
    assert!(
        found.contains(&"model::b imports state (upward)".to_string()),
        "{found:?}"
    );
    assert!(
        found.contains(&"model::b uses leptos".to_string()),
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .any(|p| p.starts_with("cycle: model::a → model::b → model::a")),
        "{found:?}"
    );
    assert_eq!(found.len(), 3, "nothing else: {found:?}");
}
