//! The language reference (`gpujit::reference`, gpujit/src/reference.md)
//! stays true to the macro: every numeric method, atomic, vote and intrinsic
//! the macro knows has a row, every method row names one the macro knows, and
//! each float method's row names the CUDA C function the emitter calls.
//! The macro's tables are read from its source (a proc-macro crate exports
//! nothing else), so a method added there without a row fails here.

use crate::common;

const PAGE: &str = include_str!("../../gpujit/src/reference.md");
const MODEL: &str = include_str!("../../gpujit-macros/src/model/ops.rs");
const CUDA_MATH: &str = include_str!("../../gpujit-macros/src/cuda_math.rs");
const KERNEL: &str = include_str!("../../gpujit/src/kernel.rs");

/// The page's lines outside code blocks (where `# ` hides a line of code).
fn prose() -> Vec<&'static str> {
    let mut in_code = false;
    PAGE.lines()
        .filter(|l| {
            if l.starts_with("```") {
                in_code = !in_code;
                return false;
            }
            !in_code
        })
        .collect()
}

/// The prose of the page's `# title` section, up to the next `# ` heading.
fn section(title: &str) -> String {
    let head = format!("# {title}");
    let lines = prose();
    let start = lines
        .iter()
        .position(|l| *l == head)
        .unwrap_or_else(|| panic!("reference.md has no `{head}` section"));
    lines[start + 1..]
        .iter()
        .take_while(|l| !l.starts_with("# "))
        .fold(String::new(), |acc, l| acc + l + "\n")
}

/// The cells of each table row of `text` (`\|` inside a cell is kept).
fn rows(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .filter(|l| l.starts_with('|') && !l.starts_with("|---"))
        .map(|l| {
            l.replace("\\|", "\u{0}")
                .trim_matches('|')
                .split('|')
                .map(|c| c.replace('\u{0}', "|").trim().to_string())
                .collect()
        })
        .collect()
}

/// The text between `start` and the next `end` after it in `src`.
fn between<'a>(src: &'a str, start: &str, end: &str) -> &'a str {
    let s = src.find(start).unwrap_or_else(|| panic!("`{start}` not found")) + start.len();
    let e = src[s..]
        .find(end)
        .unwrap_or_else(|| panic!("`{end}` not found after `{start}`"));
    &src[s..s + e]
}

/// Every `"name"` string literal that opens a tuple (`("sqrt", Sqrt, ..)`)
/// in `src`, with the identifiers that follow it.
fn tuples(src: &str) -> Vec<Vec<String>> {
    src.split("(\"")
        .skip(1)
        .map(|t| {
            let (name, rest) = t.split_once('"').expect("a closing quote");
            let rest = rest.split(')').next().unwrap_or("");
            std::iter::once(name.to_string())
                .chain(rest.split(',').map(|p| p.trim().to_string()).filter(|p| !p.is_empty()))
                .collect()
        })
        .collect()
}

/// `(name, variant, domain)` of each numeric method the macro accepts.
fn macro_methods() -> Vec<(String, String, String)> {
    let fns = between(MODEL, "const MATH_FNS", "\n};");
    let ops = between(MODEL, "pub const OPERATOR_METHODS", "\n];");
    let mut all: Vec<_> = tuples(fns)
        .into_iter()
        .map(|t| (t[0].clone(), t[1].clone(), t[2].clone()))
        .collect();
    all.extend(
        tuples(ops)
            .into_iter()
            .map(|t| (t[0].clone(), String::new(), t[1].replace("MathDomain::", ""))),
    );
    assert!(
        all.len() >= 60,
        "only {} methods read from model/ops.rs: has its layout changed?",
        all.len()
    );
    all
}

/// The method names (`.sqrt(`) in the first cell of the Math section's rows.
fn page_methods() -> Vec<(String, Vec<String>)> {
    rows(&section("Math"))
        .into_iter()
        .flat_map(|r| {
            let names: Vec<String> = r[0]
                .split('.')
                .skip(1)
                .filter_map(|t| t.split_once('(').map(|(n, _)| n))
                .filter(|n| {
                    !n.is_empty()
                        && n.chars()
                            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
                })
                .map(str::to_string)
                .collect();
            names.into_iter().map(move |n| (n, r.clone()))
        })
        .collect()
}

fn every_numeric_method_of_the_macro_has_a_row() {
    let documented: Vec<String> = page_methods().into_iter().map(|(n, _)| n).collect();
    let missing: Vec<String> = macro_methods()
        .into_iter()
        .map(|m| m.0)
        .filter(|n| !documented.contains(n))
        .collect();
    assert!(
        missing.is_empty(),
        "methods the macro accepts but reference.md's Math tables lack: {missing:?}"
    );
}

fn every_method_row_names_a_method_the_macro_knows() {
    let known: Vec<String> = macro_methods().into_iter().map(|m| m.0).collect();
    let unknown: Vec<String> = page_methods()
        .into_iter()
        .map(|(n, _)| n)
        .filter(|n| !known.contains(n))
        .collect();
    assert!(
        unknown.is_empty(),
        "reference.md documents methods the macro refuses: {unknown:?}"
    );
}

/// Whether `cell` holds `word` as a whole C identifier.
fn has_word(cell: &str, word: &str) -> bool {
    cell.match_indices(word).any(|(i, _)| {
        let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
        !cell[..i].ends_with(ident) && !cell[i + word.len()..].starts_with(ident)
    })
}

fn float_rows_name_the_cuda_functions_the_emitter_calls() {
    // `Sqrt => "sqrt",` in `c_float_name`: the `double` name; `float` appends `f`.
    let table = between(CUDA_MATH, "pub fn c_float_name", "_ => return None");
    let c_names: Vec<(String, String)> = table
        .lines()
        .filter_map(|l| l.trim().trim_end_matches(',').split_once(" => "))
        .map(|(v, c)| (v.trim().to_string(), c.trim_matches('"').to_string()))
        .collect();
    assert!(
        c_names.len() >= 30,
        "only {} C names read from cuda_math.rs",
        c_names.len()
    );
    // `MathFn::Signum => Some("gj_signum"),` in `call`: a helper wins over the C name.
    let helpers: Vec<(String, String)> =
        between(CUDA_MATH, "let helper: Option<&'static str> = match f {", "_ => None")
            .lines()
            .filter_map(|l| l.trim().strip_prefix("MathFn::")?.split_once(" => Some(\""))
            .map(|(v, h)| (v.to_string(), h.trim_end_matches(['"', ')', ',']).to_string()))
            .collect();
    assert!(
        helpers.len() >= 20,
        "only {} helpers read from cuda_math.rs",
        helpers.len()
    );
    let page = page_methods();
    let mut checked = 0;
    for (name, variant, domain) in macro_methods() {
        if matches!(domain.as_str(), "Int" | "Unsigned" | "Signed") {
            continue;
        }
        // The float table's row: four cells, the CUDA C for f32 and f64 in 2 and 3.
        let row = page
            .iter()
            .find(|(n, r)| *n == name && r.len() == 4)
            .map(|(_, r)| r)
            .unwrap_or_else(|| panic!("no row of the float table for `{name}`"));
        if let Some((_, h)) = helpers.iter().find(|(v, _)| *v == variant) {
            assert!(
                has_word(&row[1], h),
                "`{name}` emits the helper `{h}`, but its row says `{}`",
                row[1]
            );
            checked += 1;
            continue;
        }
        let Some((_, c)) = c_names.iter().find(|(v, _)| *v == variant) else {
            continue;
        };
        assert!(
            has_word(&row[1], &format!("{c}f")),
            "`{name}` on f32 emits `{c}f`, but its row says `{}`",
            row[1]
        );
        assert!(
            has_word(&row[2], c) || row[2] == "the same",
            "`{name}` on f64 emits `{c}`, but its row says `{}`",
            row[2]
        );
        checked += 1;
    }
    assert!(checked >= 30, "only {checked} float methods checked");
}

fn every_atomic_and_vote_has_a_row() {
    let suffixes = between(MODEL, "pub fn suffix(self)", "\n    }\n");
    let atomics: Vec<String> = suffixes
        .lines()
        .filter_map(|l| l.split_once("=> \""))
        .map(|(_, s)| format!("atomic_{}", s.trim_end_matches(['"', ','])))
        .collect();
    assert_eq!(atomics.len(), 13, "atomics read from model/ops.rs: {atomics:?}");
    let table = rows(&section("Atomics"));
    for a in &atomics {
        let row = table
            .iter()
            .find(|r| r[0].contains(&format!("[`{a}(")))
            .unwrap_or_else(|| panic!("reference.md's atomics table has no row for `{a}`"));
        // `atomic_nanmin` is CUDA's `atomicMin` (for floats, a CAS loop).
        let cuda = format!("atomic{}", a["atomic_".len()..].trim_start_matches("nan"));
        assert!(
            row[4].to_lowercase().contains(&cuda),
            "`{a}`'s row should name CUDA's `{cuda}`: {row:?}"
        );
    }
    let votes = between(
        MODEL,
        "pub fn from_name(name: &str) -> Option<Vote>",
        "_ => return None",
    );
    let indexing = rows(&section("Thread indexing, barriers, votes and fences"));
    for v in votes
        .lines()
        .filter_map(|l| l.trim().strip_prefix('"')?.split('"').next())
    {
        assert!(
            indexing.iter().any(|r| r[0].contains(&format!("`{v}("))),
            "reference.md has no row for the vote `{v}`"
        );
    }
}

fn every_intrinsic_gpujit_kernel_exports_is_on_the_page() {
    let mut names = Vec::new();
    for list in KERNEL.split("pub use typecheck::{").skip(1) {
        let list = list.split('}').next().unwrap_or("");
        names.extend(list.split(',').map(|n| n.trim().to_string()).filter(|n| !n.is_empty()));
    }
    assert!(
        names.len() >= 25,
        "only {} intrinsics read from kernel.rs: {names:?}",
        names.len()
    );
    let missing: Vec<&String> = names
        .iter()
        .filter(|n| !PAGE.contains(&format!("`{n}(")) && !PAGE.contains(&format!("`{n}::<")))
        .collect();
    assert!(missing.is_empty(), "intrinsics missing from reference.md: {missing:?}");
}

/// rustdoc's anchor for a heading: lower case, spaces as `-`, other
/// punctuation dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

fn links_within_the_page_reach_a_heading() {
    let anchors: Vec<String> = prose()
        .into_iter()
        .filter_map(|l| l.strip_prefix('#'))
        .map(|h| slug(h.trim_start_matches('#')))
        .collect();
    let links: Vec<&str> = PAGE.split("](#").skip(1).filter_map(|l| l.split(')').next()).collect();
    assert!(links.len() >= 3, "only {} links within the page found", links.len());
    let broken: Vec<&&str> = links.iter().filter(|l| !anchors.iter().any(|a| a == *l)).collect();
    assert!(
        broken.is_empty(),
        "links to no heading of reference.md: {broken:?} (headings: {anchors:?})"
    );
}

/// The tests of this file, for the crate's harness.
pub fn cases() -> Vec<common::Case> {
    cases![
        None => every_numeric_method_of_the_macro_has_a_row,
        None => every_method_row_names_a_method_the_macro_knows,
        None => float_rows_name_the_cuda_functions_the_emitter_calls,
        None => every_atomic_and_vote_has_a_row,
        None => every_intrinsic_gpujit_kernel_exports_is_on_the_page,
        None => links_within_the_page_reach_a_heading,
    ]
}
