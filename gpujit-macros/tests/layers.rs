//! The import direction of both crates (issue #18): each crate's docs hold a
//! `## Layers` table; a module may import (`crate::`, `super::`) only
//! modules of lower layers or its own, no two files import each other
//! (directly or round a circle) except the pairs the docs name
//! (`inherent pair: \`a\` <-> \`b\``), and the CPU strategies of the macro
//! never import one another.
//!
//! The reading is textual: comments, strings and `#[cfg(test)]` modules are
//! left out; `use` trees, `crate::`/`super::` paths and `pub use`
//! re-exports of a module's children are resolved to the file that holds
//! the item. A child's use of its own ancestors' re-exports (`use super::*`
//! in `model/tree.rs`) is not counted: a parent declares its children.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One crate's source: module path (`["cpu", "split"]`) to cleaned text.
struct Crate {
    files: BTreeMap<Vec<String>, String>,
    lib: String,
    /// Per module: the names it re-exports from its children.
    reexports: BTreeMap<Vec<String>, BTreeMap<String, Vec<String>>>,
}

fn read_crate(src: &Path) -> Crate {
    let mut files = BTreeMap::new();
    // Modules declared `#[cfg(test)] mod name;`: their files are tests.
    let mut test_only: Vec<Vec<String>> = Vec::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("source folder reads") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(src).expect("inside src");
                let mut module: Vec<String> = rel.iter().map(|c| c.to_string_lossy().into_owned()).collect();
                let last = module.pop().expect("a file name");
                match last.as_str() {
                    "lib.rs" | "mod.rs" => {}
                    name => module.push(name.trim_end_matches(".rs").to_string()),
                }
                let text = std::fs::read_to_string(&path).expect("source reads");
                let (text, test_mods) = clean(&text);
                for t in test_mods {
                    let mut m = module.clone();
                    m.push(t);
                    test_only.push(m);
                }
                files.insert(module, text);
            }
        }
    }
    files.retain(|m: &Vec<String>, _| !test_only.iter().any(|t| within(m, t)));
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("lib.rs reads");
    let mut krate = Crate {
        files,
        lib,
        reexports: BTreeMap::new(),
    };
    let modules: Vec<Vec<String>> = krate.files.keys().cloned().collect();
    for m in modules {
        let r = reexports(&krate, &m);
        krate.reexports.insert(m, r);
    }
    krate
}

/// `text` without comments, string and char literals, and `#[cfg(test)]`
/// items; and the modules those items declare in files of their own.
fn clean(text: &str) -> (String, Vec<String>) {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            i += 2;
            while i < b.len() && !b[i..].starts_with(b"*/") {
                i += 1;
            }
            i += 2;
        } else if b[i] == b'"' || (b[i] == b'r' && i + 1 < b.len() && (b[i + 1] == b'"' || b[i + 1] == b'#')) {
            // A string, raw or not.
            let mut hashes = 0;
            if b[i] == b'r' {
                i += 1;
                while i < b.len() && b[i] == b'#' {
                    hashes += 1;
                    i += 1;
                }
                if i >= b.len() || b[i] != b'"' {
                    out.push('r');
                    continue;
                }
            }
            i += 1;
            let raw = hashes > 0 || (i >= 2 && b[i - 2] == b'r');
            while i < b.len() {
                if !raw && b[i] == b'\\' {
                    i += 2;
                    continue;
                }
                if b[i] == b'"' && b[i + 1..].iter().take(hashes).all(|&c| c == b'#') {
                    i += 1 + hashes;
                    break;
                }
                i += 1;
            }
            out.push_str("\"\"");
        } else if b[i] == b'\'' && i + 2 < b.len() && (b[i + 2] == b'\'' || b[i + 1] == b'\\') {
            // A char literal (not a lifetime).
            i += 1;
            while i < b.len() && b[i] != b'\'' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("' '");
        } else {
            let c = text[i..].chars().next().expect("a char");
            out.push(c);
            i += c.len_utf8();
        }
    }
    drop_cfg_test(&out)
}

/// `text` without the item after each `#[cfg(test)]`, and the names of
/// the `mod name;` items among them.
fn drop_cfg_test(text: &str) -> (String, Vec<String>) {
    let mut out = String::new();
    let mut mods = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at..];
        // The item ends at its `;` or at the brace closing its first `{`.
        let mut depth = 0usize;
        let mut end = after.len();
        for (k, c) in after.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = k + 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end = k + 1;
                    break;
                }
                _ => {}
            }
        }
        let item: Vec<&str> = after["#[cfg(test)]".len()..end].split_whitespace().collect();
        if let ["mod", name] | ["pub", "mod", name] | ["pub(crate)", "mod", name] = item.as_slice() {
            mods.push(name.trim_end_matches(';').to_string());
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    (out, mods)
}

/// Every path a file names that starts with `crate::` or `super::`, use
/// trees expanded: each as its segments after the anchor, with the anchor.
fn paths(text: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let toks = tokens(text);
    let mut i = 0;
    while i < toks.len() {
        let t = toks[i].as_str();
        let start_ok = i == 0 || toks[i - 1] != "::";
        if start_ok && (t == "crate" || t == "super") && toks.get(i + 1).map(String::as_str) == Some("::") {
            let (mut found, next) = tree(&toks, i);
            out.append(&mut found);
            i = next;
        } else {
            i += 1;
        }
    }
    out
}

/// Identifiers and the punctuation the paths need (`::`, `{`, `}`, `,`).
fn tokens(text: &str) -> Vec<String> {
    let mut toks = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            toks.push(chars[start..i].iter().collect());
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            toks.push("::".into());
            i += 2;
        } else {
            if "{},*;".contains(c) {
                toks.push(c.to_string());
            } else if !c.is_whitespace() {
                toks.push("·".into());
            }
            i += 1;
        }
    }
    toks
}

/// The paths of the use tree (or plain path) starting at `toks[i]`, and
/// the index after it.
fn tree(toks: &[String], i: usize) -> (Vec<(String, Vec<String>)>, usize) {
    let anchor = toks[i].clone();
    let mut prefix = Vec::new();
    let mut j = i + 1;
    // `super::super::x`: count the anchors.
    let mut ups = 1;
    while toks.get(j).map(String::as_str) == Some("::") {
        match toks.get(j + 1).map(String::as_str) {
            Some("super") if anchor == "super" && prefix.is_empty() => {
                ups += 1;
                j += 2;
            }
            Some("{") => {
                let (found, next) = group(toks, j + 2);
                let out = found
                    .into_iter()
                    .map(|p| (anchor_of(&anchor, ups), [prefix.clone(), p].concat()))
                    .collect();
                return (out, next);
            }
            Some("*") => return (vec![(anchor_of(&anchor, ups), prefix)], j + 2),
            Some(seg) if seg != "·" && seg != "," && seg != "}" && seg != ";" => {
                prefix.push(seg.to_string());
                j += 2;
            }
            _ => break,
        }
    }
    (vec![(anchor_of(&anchor, ups), prefix)], j)
}

fn anchor_of(anchor: &str, ups: usize) -> String {
    if anchor == "crate" {
        "crate".into()
    } else {
        format!("super{ups}")
    }
}

/// The paths inside `{ .. }` starting after the `{` at `toks[i - 1]`.
fn group(toks: &[String], mut i: usize) -> (Vec<Vec<String>>, usize) {
    let mut out = Vec::new();
    let mut current: Vec<String> = Vec::new();
    while i < toks.len() {
        match toks[i].as_str() {
            "}" => {
                if !current.is_empty() {
                    out.push(current);
                }
                return (out, i + 1);
            }
            "," => {
                if !current.is_empty() {
                    out.push(std::mem::take(&mut current));
                }
                i += 1;
            }
            "::" => i += 1,
            "{" => {
                let (inner, next) = group(toks, i + 1);
                for p in inner {
                    out.push([current.clone(), p].concat());
                }
                current.clear();
                i = next;
            }
            "*" | "·" | ";" => i += 1,
            seg => {
                // `a as b`: only the path counts.
                if seg == "as" {
                    i += 2;
                    continue;
                }
                current.push(seg.to_string());
                i += 1;
            }
        }
    }
    (out, i)
}

/// The `pub use child::..::name` re-exports of module `m`: name to child.
fn reexports(krate: &Crate, m: &[String]) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    let Some(text) = krate.files.get(m) else {
        return out;
    };
    let toks = tokens(text);
    for (k, t) in toks.iter().enumerate() {
        if t != "use" || k == 0 {
            continue;
        }
        let public = toks[..k].iter().rev().take(4).any(|t| t == "pub");
        if !public {
            continue;
        }
        let Some(first) = toks.get(k + 1) else { continue };
        if first == "crate" || first == "super" || first == "self" {
            continue;
        }
        // `pub use child::a::{b, c}`: rooted at a child of `m`.
        let mut fake = vec!["crate".to_string(), "::".to_string()];
        fake.extend(toks[k + 1..].iter().cloned());
        let (found, _) = tree(&fake, 0);
        for (_, p) in found {
            if let (Some(child), Some(name)) = (p.first(), p.last()) {
                let mut target = m.to_vec();
                target.push(child.clone());
                if krate.files.contains_key(&target) {
                    out.insert(name.clone(), target);
                }
            }
        }
    }
    out
}

/// The module (file) that path `p` from module `from` names.
fn resolve(krate: &Crate, from: &[String], is_mod_rs: bool, anchor: &str, p: &[String]) -> Option<Vec<String>> {
    let mut base: Vec<String> = if anchor == "crate" {
        Vec::new()
    } else {
        let ups: usize = anchor.trim_start_matches("super").parse().ok()?;
        // In `a/mod.rs` (module `a`) `super` is `a`'s parent; in `a/b.rs`
        // too: the file's own module is `from` either way.
        let _ = is_mod_rs;
        let keep = from.len().checked_sub(ups)?;
        from[..keep].to_vec()
    };
    let mut found = base.clone();
    for seg in p {
        base.push(seg.clone());
        if krate.files.contains_key(&base) {
            found = base.clone();
        } else {
            // A name re-exported from a child of the module so far.
            if let Some(target) = krate.reexports.get(&found).and_then(|r| r.get(seg)) {
                found = target.clone();
            }
            break;
        }
    }
    Some(found)
}

/// Module `a` is `b` or inside it.
fn within(a: &[String], b: &[String]) -> bool {
    a.len() >= b.len() && a[..b.len()] == *b
}

/// Every file-to-file import: (from, to), `to` not an ancestor of `from`.
fn edges(krate: &Crate) -> BTreeSet<(Vec<String>, Vec<String>)> {
    let mut out = BTreeSet::new();
    for (m, text) in &krate.files {
        for (anchor, p) in paths(text) {
            let Some(to) = resolve(krate, m, false, &anchor, &p) else {
                continue;
            };
            if to == *m || within(m, &to) {
                continue;
            }
            out.insert((m.clone(), to));
        }
    }
    out
}

/// The layer table of a crate's docs: top-level module to layer.
fn layers(lib: &str) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    let mut in_section = false;
    for line in lib.lines() {
        let line = line.trim_start_matches("//!").trim();
        if line.starts_with("## ") {
            in_section = line == "## Layers";
            continue;
        }
        if !in_section || !line.starts_with('|') {
            continue;
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let (Some(layer), Some(mods)) = (cells.get(1), cells.get(2)) else {
            continue;
        };
        let Ok(layer) = layer.parse::<usize>() else { continue };
        for name in mods.split('`').skip(1).step_by(2) {
            out.insert(name.to_string(), layer);
        }
    }
    out
}

/// The `inherent pair` lines of a crate's docs.
fn pairs(lib: &str) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for line in lib.lines() {
        let line = line.trim_start_matches("//!").trim();
        if let Some(rest) = line.strip_prefix("inherent pair:") {
            let names: Vec<&str> = rest.split('`').skip(1).step_by(2).collect();
            if let [a, b] = names.as_slice() {
                out.insert((a.to_string(), b.to_string()));
                out.insert((b.to_string(), a.to_string()));
            }
        }
    }
    out
}

fn name(m: &[String]) -> String {
    if m.is_empty() {
        "crate".into()
    } else {
        m.join("::")
    }
}

/// Every breach of the crate's layers, as a sentence each.
fn violations(src: &Path) -> Vec<String> {
    let krate = read_crate(src);
    let table = layers(&krate.lib);
    let allowed = pairs(&krate.lib);
    let mut out = Vec::new();
    if table.is_empty() {
        out.push(format!("{}: no `## Layers` table in lib.rs", src.display()));
        return out;
    }
    for m in krate.files.keys().filter(|m| m.len() == 1) {
        if !table.contains_key(&m[0]) {
            out.push(format!("module `{}` is in no layer of the table", m[0]));
        }
    }
    let edges = edges(&krate);
    for (from, to) in &edges {
        let (Some(f), Some(t)) = (from.first(), to.first()) else {
            continue;
        };
        if f == t {
            continue;
        }
        if let (Some(lf), Some(lt)) = (table.get(f), table.get(t)) {
            if lt >= lf {
                out.push(format!(
                    "`{}` (layer {lf}) imports `{}` (layer {lt}): only lower layers may be imported",
                    name(from),
                    name(to)
                ));
            }
        }
    }
    // Circles between files, but the named pairs.
    let graph: BTreeMap<&Vec<String>, Vec<&Vec<String>>> = edges
        .iter()
        .filter(|(a, b)| !allowed.contains(&(name(a), name(b))))
        .fold(BTreeMap::new(), |mut g, (a, b)| {
            g.entry(a).or_default().push(b);
            g
        });
    for start in krate.files.keys() {
        // A path back to `start`.
        let mut seen = BTreeSet::new();
        let mut stack: Vec<(&Vec<String>, Vec<&Vec<String>>)> = vec![(start, vec![start])];
        while let Some((node, trail)) = stack.pop() {
            for &next in graph.get(node).map(Vec::as_slice).unwrap_or(&[]) {
                if next == start {
                    let circle: Vec<String> = trail.iter().map(|m| name(m)).collect();
                    // Report each circle once, from its smallest file.
                    if trail.iter().all(|m| *m >= start) {
                        out.push(format!("import circle: {} -> {}", circle.join(" -> "), name(start)));
                    }
                } else if seen.insert(next) {
                    let mut t = trail.clone();
                    t.push(next);
                    stack.push((next, t));
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

fn src_of(krate: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(krate).join("src")
}

#[test]
fn the_macro_crate_imports_in_one_direction() {
    let v = violations(&src_of("gpujit-macros"));
    assert!(v.is_empty(), "gpujit-macros:\n{}", v.join("\n"));
}

#[test]
fn the_runtime_imports_in_one_direction() {
    let v = violations(&src_of("gpujit"));
    assert!(v.is_empty(), "gpujit:\n{}", v.join("\n"));
}

#[test]
fn the_cpu_strategies_never_import_one_another() {
    let krate = read_crate(&src_of("gpujit-macros"));
    let strategies = ["split", "lockstep", "merge"];
    let mut bad = Vec::new();
    for (from, to) in edges(&krate) {
        let strategy =
            |m: &[String]| (m.len() >= 2 && m[0] == "cpu" && strategies.contains(&m[1].as_str())).then(|| m[1].clone());
        if let (Some(a), Some(b)) = (strategy(&from), strategy(&to)) {
            if a != b {
                bad.push(format!("{} imports {}", name(&from), name(&to)));
            }
        }
        // Only `cpu` itself chooses: nothing outside it names a strategy.
        if from.first().map(String::as_str) != Some("cpu")
            && to.first().map(String::as_str) == Some("cpu")
            && to.len() > 1
        {
            bad.push(format!("{} names the strategy module {}", name(&from), name(&to)));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The checker itself finds what it must: a crate with a layer breach, a
/// circle, a module in no layer, a re-exported name and a use tree.
#[test]
fn the_checker_finds_breaches_and_circles() {
    let dir = std::env::temp_dir().join(format!("gpujit-layers-{}", std::process::id()));
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("low")).unwrap();
    std::fs::write(
        src.join("lib.rs"),
        "//! ## Layers\n//!\n//! | layer | modules |\n//! |---|---|\n//! | 0 | `low` |\n//! | 1 | `high` |\n\
         mod low; mod high; mod stray;\n",
    )
    .unwrap();
    // `low` reaches up through a use tree and a re-export.
    std::fs::write(src.join("low/mod.rs"), "mod a; mod b; pub use a::Thing;\n").unwrap();
    std::fs::write(
        src.join("low/a.rs"),
        "use super::b::f; pub struct Thing; // crate::high::ignored\n",
    )
    .unwrap();
    std::fs::write(
        src.join("low/b.rs"),
        "use crate::{high::{Up}, low::Thing}; pub fn f() { let _ = \"crate::high\"; }\n#[cfg(test)] mod t { use crate::stray::X; }\n",
    )
    .unwrap();
    std::fs::write(src.join("high.rs"), "use crate::low::Thing; pub struct Up;\n").unwrap();
    std::fs::write(src.join("stray.rs"), "pub struct X;\n").unwrap();
    let v = violations(&src);
    std::fs::remove_dir_all(&dir).ok();
    let has = |s: &str| v.iter().any(|x| x.contains(s));
    assert!(has("`low::b` (layer 0) imports `high` (layer 1)"), "{v:#?}");
    assert!(has("import circle: low::a -> low::b -> low::a"), "{v:#?}");
    assert!(has("module `stray` is in no layer"), "{v:#?}");
    // Comments, strings and test modules are not imports.
    assert!(!has("low::a` (layer 0) imports `high"), "{v:#?}");
    assert!(!has("stray` (layer"), "{v:#?}");
}
