//! The core's layering rule, proved on its source: every module of `crates/flashlab/src` sits in
//! one layer of the table in ARCHITECTURE.md ("Layers"), imports only modules of its own layer or
//! below, and the import graph has no circle.
//!
//! A node of the graph is a directory module (its `mod.rs` with the files beside it: the parent
//! declares the layer's trait and registry, its children implement them, as Rust modules do) or
//! a file directly under `src/`; a nested directory the layer table does not list is part of its
//! parent's node (`ftl::page`: one module split into files). An import is any path the library
//! code names: `use` trees (braces expanded), and `crate::…` / `super::…` paths written inline.
//! Comments (doc links included), string literals and unit tests (`#[cfg(test)] mod tests`, the
//! end of a file) are not the library and may name anything.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One library file: its module path (`["ftl", "gc", "greedy"]`; `[]` for `lib.rs`), whether it
/// is a directory module (`mod.rs`), and its text.
struct Source {
    module: Vec<String>,
    is_dir: bool,
    file: String,
    text: String,
}

/// An import found in the source: from node, to node, the path named and where.
#[derive(Debug)]
struct Import {
    from: String,
    to: String,
    path: String,
    file: String,
}

fn read_sources(root: &Path) -> Vec<Source> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path: PathBuf = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().and_then(|e| e.to_str()) != Some("rs") {
                continue;
            }
            let rel = path.strip_prefix(root).unwrap();
            let mut module: Vec<String> = rel.iter().map(|s| s.to_str().unwrap().to_string()).collect();
            let last = module.pop().unwrap();
            let stem = last.trim_end_matches(".rs");
            let is_dir = stem == "mod";
            if stem != "mod" && stem != "lib" {
                module.push(stem.to_string());
            }
            // A file module with a directory of children (`x.rs` beside `x/`) would hide its
            // children's imports of it from this walk: the core uses `x/mod.rs` instead.
            assert!(
                is_dir || !path.with_extension("").is_dir(),
                "{}: use `{}/mod.rs` for a module with children (the layering test reads that layout)",
                rel.display(),
                stem
            );
            let text = std::fs::read_to_string(&path).unwrap();
            out.push(Source { module, is_dir, file: format!("src/{}", rel.display()), text });
        }
    }
    out.sort_by(|a, b| a.file.cmp(&b.file));
    out
}

/// The library part of a file: comments and the text of string literals blanked, the unit-test
/// module cut.
fn library_text(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod ") {
        Some(i) => &text[..i],
        None => text,
    };
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_str = false;
    while let Some(c) = chars.next() {
        if in_str {
            // A string's text is not a path: blanked, its quotes kept.
            if c == '\\' {
                chars.next();
            } else if c == '"' {
                in_str = false;
                out.push(c);
            }
            continue;
        }
        match c {
            '"' => {
                in_str = true;
                out.push(c);
            }
            '\'' => {
                // A char literal ('"', '\'', 'x') or a lifetime ('a): copy a literal whole so
                // its quote does not open a string.
                let rest: String = chars.clone().take(12).collect();
                let len = if rest.starts_with('\\') {
                    rest[2..].find('\'').map(|i| i + 3)
                } else if rest.chars().nth(1) == Some('\'') {
                    Some(2)
                } else {
                    None
                };
                out.push(c);
                for _ in 0..len.unwrap_or(0) {
                    out.push(chars.next().unwrap());
                }
            }
            '/' if chars.peek() == Some(&'/') => {
                for n in chars.by_ref() {
                    if n == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                let mut prev = ' ';
                for n in chars.by_ref() {
                    if prev == '*' && n == '/' {
                        break;
                    }
                    prev = n;
                }
            }
            _ => out.push(c),
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Expand a `use` tree (`crate::{a, b::{c, d}}`) into its paths.
fn expand(tree: &str) -> Vec<String> {
    let tree: String = tree.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(open) = tree.find('{') else {
        return vec![tree.split(" as ").next().unwrap().trim_end_matches("::").to_string()];
    };
    let prefix = &tree[..open];
    let body = &tree[open + 1..tree.rfind('}').expect("a closed use tree")];
    let (mut parts, mut depth, mut cur) = (Vec::new(), 0, String::new());
    for c in body.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
        if c == ',' && depth == 0 {
            parts.push(std::mem::take(&mut cur));
        } else {
            cur.push(c);
        }
    }
    parts.push(cur);
    let mut out = Vec::new();
    for p in parts.into_iter().filter(|p| !p.is_empty()) {
        if p == "self" {
            out.push(prefix.trim_end_matches("::").to_string());
        } else {
            out.extend(expand(&format!("{prefix}{p}")));
        }
    }
    out
}

/// Every `crate::`/`super::` path the library text of a file names: its `use` trees expanded,
/// then the paths written inline.
fn named_paths(text: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut rest = String::with_capacity(text.len());
    let mut i = 0;
    let bytes = text.as_bytes();
    while i < text.len() {
        let at_word = i == 0 || !is_ident(bytes[i - 1] as char);
        if at_word && text[i..].starts_with("use ") {
            let end = text[i..].find(';').map_or(text.len(), |e| i + e);
            let tree = text[i + 4..end].trim();
            if tree.starts_with("crate::") || tree.starts_with("super::") {
                paths.extend(expand(tree));
            }
            i = end + 1;
            continue;
        }
        let c = text[i..].chars().next().unwrap();
        rest.push(c);
        i += c.len_utf8();
    }
    for start in ["crate::", "super::"] {
        let mut from = 0;
        while let Some(k) = rest[from..].find(start) {
            let at = from + k;
            from = at + start.len();
            if at > 0 && (is_ident(rest.as_bytes()[at - 1] as char) || rest.as_bytes()[at - 1] == b':') {
                continue; // `$crate::`, or the middle of `super::super::`
            }
            let len = rest[at..].find(|c: char| !(is_ident(c) || c == ':')).unwrap_or(rest.len() - at);
            paths.push(rest[at..at + len].trim_end_matches(':').to_string());
        }
    }
    paths
}

/// The node a module belongs to: a module directly under `src/` is its own node; deeper, the
/// nearest enclosing directory module that is its own node — one directly under `src/`, or a
/// nested one the layer table lists (`ftl::gc`). A nested directory the table does not list
/// (`ftl::page`, one module split into files) is part of its parent's node.
fn node_of(module: &[String], dirs: &BTreeSet<Vec<String>>, listed: &BTreeMap<String, u32>) -> String {
    if module.len() <= 1 {
        return module.join("::");
    }
    (1..=module.len())
        .rev()
        .map(|k| &module[..k])
        .find(|m| dirs.contains(*m) && (m.len() == 1 || listed.contains_key(&m.join("::"))))
        .unwrap_or(&module[..1])
        .join("::")
}

/// Every import between two different nodes (`layers`: the table, which says which nested
/// directories are nodes).
fn imports(sources: &[Source], layers: &BTreeMap<String, u32>) -> Vec<Import> {
    let modules: BTreeSet<Vec<String>> = sources.iter().map(|s| s.module.clone()).collect();
    let dirs: BTreeSet<Vec<String>> = sources.iter().filter(|s| s.is_dir).map(|s| s.module.clone()).collect();
    let mut out = Vec::new();
    for s in sources.iter().filter(|s| !s.module.is_empty()) {
        let from = node_of(&s.module, &dirs, layers);
        for path in named_paths(&library_text(&s.text)) {
            let mut segs: Vec<&str> = path.split("::").collect();
            let mut base: Vec<String> = Vec::new();
            if segs[0] == "crate" {
                segs.remove(0);
            } else {
                base = s.module.clone();
                while segs.first() == Some(&"super") {
                    segs.remove(0);
                    base.pop();
                }
            }
            let full: Vec<String> = base.into_iter().chain(segs.iter().map(|x| x.to_string())).collect();
            let Some(target) = (1..=full.len()).rev().map(|k| full[..k].to_vec()).find(|m| modules.contains(m)) else {
                continue; // an item of lib.rs (`crate::VERSION`)
            };
            let to = node_of(&target, &dirs, layers);
            if to != from {
                out.push(Import { from: from.clone(), to, path: path.clone(), file: s.file.clone() });
            }
        }
    }
    out
}

/// The layer table of ARCHITECTURE.md: the rows after the `<!-- layers -->` marker, each
/// `| N name | `module` `module` … | … |`, bottom layer first. Node → layer number.
fn layer_table(doc: &str) -> BTreeMap<String, u32> {
    let start = doc.find("<!-- layers").expect("ARCHITECTURE.md has a `<!-- layers -->` table");
    let mut table = BTreeMap::new();
    for line in doc[start..].lines().skip(1).take_while(|l| l.starts_with('|')) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let Some(n) = cells.get(1).and_then(|c| c.split_whitespace().next()).and_then(|n| n.parse::<u32>().ok()) else {
            continue; // the header and its rule
        };
        for module in cells[2].split('`').skip(1).step_by(2) {
            assert!(table.insert(module.to_string(), n).is_none(), "`{module}` is in two layers of ARCHITECTURE.md");
        }
    }
    assert!(!table.is_empty(), "ARCHITECTURE.md's layer table has no rows");
    table
}

/// What breaks the rule: a node in no layer, an import upward, a circle.
fn violations(nodes: &BTreeSet<String>, imports: &[Import], layers: &BTreeMap<String, u32>) -> Vec<String> {
    let mut out = Vec::new();
    for n in nodes {
        if !layers.contains_key(n) {
            out.push(format!("module `{n}` is in no layer of ARCHITECTURE.md's table: place it"));
        }
    }
    for n in layers.keys() {
        if !nodes.contains(n) {
            out.push(format!("ARCHITECTURE.md's layer table names `{n}`, which is not a module"));
        }
    }
    for i in imports {
        if let (Some(a), Some(b)) = (layers.get(&i.from), layers.get(&i.to)) {
            if b > a {
                out.push(format!(
                    "{}: `{}` (layer {a}) imports `{}` (layer {b}, above it) through `{}`",
                    i.file, i.from, i.to, i.path
                ));
            }
        }
    }
    let mut graph: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for i in imports {
        graph.entry(&i.from).or_default().insert(&i.to);
    }
    if let Some(circle) = find_circle(&graph) {
        out.push(format!("the imports close a circle: {}", circle.join(" → ")));
    }
    out
}

/// A circle of the graph, if it has one (depth-first search, first back edge found).
fn find_circle<'a>(graph: &BTreeMap<&'a str, BTreeSet<&'a str>>) -> Option<Vec<&'a str>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    fn visit<'a>(
        n: &'a str,
        graph: &BTreeMap<&'a str, BTreeSet<&'a str>>,
        marks: &mut BTreeMap<&'a str, Mark>,
        path: &mut Vec<&'a str>,
    ) -> Option<Vec<&'a str>> {
        marks.insert(n, Mark::Open);
        path.push(n);
        for &m in graph.get(n).into_iter().flatten() {
            match marks.get(m) {
                Some(Mark::Open) => {
                    let at = path.iter().position(|&p| p == m).unwrap();
                    let mut circle = path[at..].to_vec();
                    circle.push(m);
                    return Some(circle);
                }
                Some(Mark::Done) => {}
                None => {
                    if let Some(c) = visit(m, graph, marks, path) {
                        return Some(c);
                    }
                }
            }
        }
        path.pop();
        marks.insert(n, Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    for &n in graph.keys() {
        if !marks.contains_key(n) {
            if let Some(c) = visit(n, graph, &mut marks, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

fn nodes(sources: &[Source], layers: &BTreeMap<String, u32>) -> BTreeSet<String> {
    let dirs: BTreeSet<Vec<String>> = sources.iter().filter(|s| s.is_dir).map(|s| s.module.clone()).collect();
    sources.iter().filter(|s| !s.module.is_empty()).map(|s| node_of(&s.module, &dirs, layers)).collect()
}

#[test]
fn the_core_imports_downward_only_and_has_no_circle() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let sources = read_sources(&crate_dir.join("src"));
    let doc = std::fs::read_to_string(crate_dir.join("../../ARCHITECTURE.md")).unwrap();
    let layers = layer_table(&doc);
    let found = imports(&sources, &layers);
    assert!(found.len() > 100, "the walk found only {} imports between modules: the parser is broken", found.len());
    let bad = violations(&nodes(&sources, &layers), &found, &layers);
    assert!(bad.is_empty(), "the layering rule (ARCHITECTURE.md, Layers) is broken:\n{}", bad.join("\n"));
}

/// The checker itself: it sees `use` trees, inline paths and `super::`, ignores comments, strings
/// and unit tests, and reports an upward import, a circle and an unplaced module.
#[test]
fn the_checker_finds_upward_imports_circles_and_unplaced_modules() {
    let src = |file: &str, module: &[&str], is_dir: bool, text: &str| Source {
        module: module.iter().map(|s| s.to_string()).collect(),
        is_dir,
        file: file.into(),
        text: text.into(),
    };
    let sources = vec![
        src("src/lib.rs", &[], false, "pub mod low; pub mod mid; pub mod top;"),
        src("src/low.rs", &["low"], false, "// crate::top::X in a comment\nconst S: &str = \"crate::top\";\nfn f() {}\n#[cfg(test)]\nmod tests { use crate::top::T; }\n"),
        src("src/mid/mod.rs", &["mid"], true, "use crate::{low, top::{self, Y}};\npub mod leaf;"),
        src("src/mid/leaf.rs", &["mid", "leaf"], false, "fn g() { super::super::low::f(); }"),
        // A nested directory the table does not list is part of its parent's node.
        src("src/mid/part/mod.rs", &["mid", "part"], true, "use super::leaf::g;\nmod bits;"),
        src("src/mid/part/bits.rs", &["mid", "part", "bits"], false, "use crate::mid::part::X;"),
        src("src/top.rs", &["top"], false, "fn h() -> crate::mid::leaf::Z { todo!() }"),
    ];
    let layers: BTreeMap<String, u32> =
        [("low", 0), ("mid", 1), ("top", 2)].iter().map(|(n, l)| (n.to_string(), *l)).collect();
    let found = imports(&sources, &layers);
    let pairs: BTreeSet<(String, String)> = found.iter().map(|i| (i.from.clone(), i.to.clone())).collect();
    let want: BTreeSet<(String, String)> =
        [("mid", "low"), ("mid", "top"), ("top", "mid")].iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    assert_eq!(pairs, want, "imports found: {found:?}");
    // Listed, the nested directory is a node of its own, with its imports.
    let listed: BTreeMap<String, u32> =
        layers.iter().map(|(n, l)| (n.clone(), *l)).chain([("mid::part".into(), 1)]).collect();
    assert!(imports(&sources, &listed).iter().any(|i| i.from == "mid::part" && i.to == "mid"), "mid::part listed");
    let bad = violations(&nodes(&sources, &layers), &found, &layers);
    assert!(bad.iter().any(|v| v.contains("`mid` (layer 1) imports `top` (layer 2, above it)")), "{bad:?}");
    assert!(
        bad.iter().any(|v| v.contains("circle: mid → top → mid") || v.contains("circle: top → mid → top")),
        "{bad:?}"
    );
    let fewer: BTreeMap<String, u32> = [("low", 0), ("top", 2)].iter().map(|(n, l)| (n.to_string(), *l)).collect();
    assert!(violations(&nodes(&sources, &fewer), &found, &fewer).iter().any(|v| v.contains("`mid` is in no layer")));
    let table = layer_table(
        "x\n<!-- layers -->\n| layer | modules |\n|---|---|\n| 0 base | `a` `b` |\n| 1 up | `c` |\n\nafter",
    );
    assert_eq!(table.get("b"), Some(&0));
    assert_eq!(table.get("c"), Some(&1));
    assert_eq!(table.len(), 3);
}
