//! The crate's module graph flows one way: no cycle between the top-level modules of `src/`,
//! and ARCHITECTURE.md's module map lists, for every module, exactly the modules its code
//! uses (so the map cannot drift from the code).
//!
//! The graph is read from the source text, not from the compiler: every file the library
//! (`src/lib.rs`) and the binary (`src/main.rs`, counted as `cli`) compile, found by following
//! `mod` declarations (with `#[path]`), minus `#[cfg(test)]` items and the files they declare.
//! An edge `a -> b` is any path `crate::b::…` (or a `use crate::{b::…, …}` group entry, or
//! `super::…` reaching the crate root) in a file of `a`; the binary's `vista::b::…` paths are
//! edges of `cli`. Comments and string literals are skipped, so a doc comment that names a
//! module above is not a dependency. Limits: `#[cfg(test)]` is recognised written exactly
//! so, and a file-backed `mod x;` inside an inline `mod { }` block is refused (none exists).

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

/// from → to → files (relative to the crate root) that make the edge.
type Graph = BTreeMap<String, BTreeMap<String, BTreeSet<String>>>;

/// The binary's node: `src/main.rs` and `src/cli/`.
const BINARY: &str = "cli";

// ---------------------------------------------------------------------------------------
// Tokens
// ---------------------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Str(String),
    /// `::`
    PathSep,
    Punct(char),
    /// Numbers, character literals, lifetimes: never part of a module path.
    Other,
}

fn is_ident_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

fn is_ident_char(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// Reads a string literal's body starting just after its opening quote at `i`; returns the
/// value and the index after the closing quote. `hashes` is the raw string's `#` count, or
/// `None` for an escaped string.
fn string_body(s: &[char], mut i: usize, hashes: Option<usize>) -> (String, usize) {
    let mut value = String::new();
    while i < s.len() {
        match (s[i], hashes) {
            ('\\', None) => {
                if let Some(&c) = s.get(i + 1) {
                    value.push(c);
                }
                i += 2;
            }
            ('"', None) => return (value, i + 1),
            ('"', Some(n)) if (1..=n).all(|k| s.get(i + k) == Some(&'#')) => {
                return (value, i + 1 + n)
            }
            (c, _) => {
                value.push(c);
                i += 1;
            }
        }
    }
    (value, i)
}

/// Rust source as tokens, without comments. Enough of the lexical grammar for paths:
/// identifiers (raw ones too), string literals (escaped, raw, byte, C), character literals
/// and lifetimes, numbers, `::`, and single punctuation.
fn tokens(src: &str) -> Vec<Tok> {
    let s: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        let next = s.get(i + 1).copied();
        if c.is_whitespace() {
            i += 1;
        } else if c == '/' && next == Some('/') {
            while i < s.len() && s[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0usize;
            while i < s.len() {
                if s[i] == '/' && s.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if s[i] == '*' && s.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == '"' {
            let (v, j) = string_body(&s, i + 1, None);
            out.push(Tok::Str(v));
            i = j;
        } else if c == '\'' {
            // A character literal ('a', '\n', '\u{1F600}', '"') or a lifetime ('a, 'static).
            if next == Some('\\') {
                i += 2;
                while i < s.len() && s[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if s.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
                while i < s.len() && is_ident_char(s[i]) {
                    i += 1;
                }
            }
            out.push(Tok::Other);
        } else if c.is_ascii_digit() {
            while i < s.len() && is_ident_char(s[i]) {
                i += 1;
            }
            out.push(Tok::Other);
        } else if is_ident_start(c) {
            let start = i;
            while i < s.len() && is_ident_char(s[i]) {
                i += 1;
            }
            let word: String = s[start..i].iter().collect();
            let here = s.get(i).copied();
            let raw_prefix = matches!(word.as_str(), "r" | "br" | "cr");
            let prefix = matches!(word.as_str(), "b" | "c");
            if raw_prefix && (here == Some('"') || here == Some('#')) {
                let mut n = 0;
                while s.get(i + n) == Some(&'#') {
                    n += 1;
                }
                if s.get(i + n) == Some(&'"') {
                    let (v, j) = string_body(&s, i + n + 1, Some(n));
                    out.push(Tok::Str(v));
                    i = j;
                } else if word == "r" && n == 1 {
                    // A raw identifier: r#type.
                    let start = i + 1;
                    i = start;
                    while i < s.len() && is_ident_char(s[i]) {
                        i += 1;
                    }
                    out.push(Tok::Ident(s[start..i].iter().collect()));
                } else {
                    out.push(Tok::Ident(word));
                }
            } else if prefix && here == Some('"') {
                let (v, j) = string_body(&s, i + 1, None);
                out.push(Tok::Str(v));
                i = j;
            } else if word == "b" && here == Some('\'') {
                // A byte literal: b'a', b'\n'.
                i += 1;
                if s.get(i) == Some(&'\\') {
                    i += 1;
                }
                i += 1;
                while i < s.len() && s[i] != '\'' {
                    i += 1;
                }
                i += 1;
                out.push(Tok::Other);
            } else {
                out.push(Tok::Ident(word));
            }
        } else if c == ':' && next == Some(':') {
            out.push(Tok::PathSep);
            i += 2;
        } else {
            out.push(Tok::Punct(c));
            i += 1;
        }
    }
    out
}

fn ident(t: Option<&Tok>) -> Option<&str> {
    match t {
        Some(Tok::Ident(w)) => Some(w),
        _ => None,
    }
}

fn is_punct(t: Option<&Tok>, c: char) -> bool {
    t == Some(&Tok::Punct(c))
}

/// The index just past the bracketed group that opens at `open` (`(`, `[` or `{`).
fn past_group(t: &[Tok], open: usize) -> usize {
    let mut depth = 0i32;
    let mut i = open;
    while i < t.len() {
        match t[i] {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    t.len()
}

/// True when an attribute `#[ ... ]` starts at `i` and is exactly `#[cfg(test)]`.
fn is_cfg_test(t: &[Tok], i: usize) -> bool {
    let want = [
        Tok::Punct('#'),
        Tok::Punct('['),
        Tok::Ident("cfg".into()),
        Tok::Punct('('),
        Tok::Ident("test".into()),
        Tok::Punct(')'),
        Tok::Punct(']'),
    ];
    t.len() >= i + want.len() && t[i..i + want.len()] == want
}

/// The item that starts at `i` (after its attributes) ends before the returned index: at
/// its `;`, or at the `}` of its body, or before a `}` that closes the block around it.
fn item_end(t: &[Tok], i: usize) -> usize {
    // Items without a body end only at `;` (a `}` inside them closes a group).
    let mut k = i;
    while matches!(
        ident(t.get(k)),
        Some("pub" | "unsafe" | "async" | "extern" | "default")
    ) {
        k += 1;
        if is_punct(t.get(k), '(') {
            k = past_group(t, k);
        }
        if matches!(t.get(k), Some(Tok::Str(_))) {
            k += 1;
        }
    }
    let semicolon_only = match ident(t.get(k)) {
        Some("let" | "use" | "type" | "static") => true,
        Some("const") => !matches!(ident(t.get(k + 1)), Some("fn" | "unsafe" | "async")),
        _ => false,
    };
    let mut depth = 0i32;
    let mut j = i;
    while j < t.len() {
        match t[j] {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']') => depth -= 1,
            Tok::Punct('}') => {
                if depth == 0 {
                    return j;
                }
                depth -= 1;
                if depth == 0 && !semicolon_only {
                    return if is_punct(t.get(j + 1), ';') {
                        j + 2
                    } else {
                        j + 1
                    };
                }
            }
            Tok::Punct(';') if depth == 0 => return j + 1,
            _ => {}
        }
        j += 1;
    }
    t.len()
}

/// The index past the attributes `#[...]` that start at `i` (none: `i`).
fn past_attributes(t: &[Tok], mut i: usize) -> usize {
    while is_punct(t.get(i), '#') && is_punct(t.get(i + 1), '[') {
        i = past_group(t, i + 1);
    }
    i
}

/// A `mod name;` declaration (no body): its name and `#[path]`, if any.
#[derive(Clone, Debug, PartialEq)]
struct ModDecl {
    name: String,
    path: Option<String>,
}

/// The `mod name;` item starting at `i` (attributes included), if it is one.
fn mod_decl(t: &[Tok], i: usize) -> Option<ModDecl> {
    let mut path = None;
    let mut k = i;
    while is_punct(t.get(k), '#') && is_punct(t.get(k + 1), '[') {
        let end = past_group(t, k + 1);
        if let (Some("path"), Some(Tok::Punct('=')), Some(Tok::Str(p))) =
            (ident(t.get(k + 2)), t.get(k + 3), t.get(k + 4))
        {
            path = Some(p.clone());
        }
        k = end;
    }
    if ident(t.get(k)) == Some("pub") {
        k += 1;
        if is_punct(t.get(k), '(') {
            k = past_group(t, k);
        }
    }
    match (ident(t.get(k)), ident(t.get(k + 1)), t.get(k + 2)) {
        (Some("mod"), Some(name), Some(Tok::Punct(';'))) => Some(ModDecl {
            name: name.to_string(),
            path,
        }),
        _ => None,
    }
}

/// A file's tokens without its `#[cfg(test)]` items, and the `mod name;` declarations
/// among those items (their files are test-only).
fn without_tests(t: Vec<Tok>) -> (Vec<Tok>, Vec<ModDecl>) {
    let mut kept = Vec::with_capacity(t.len());
    let mut test_mods = Vec::new();
    let mut i = 0;
    while i < t.len() {
        if is_cfg_test(&t, i) {
            let item = past_attributes(&t, i);
            let end = item_end(&t, item);
            if let Some(m) = mod_decl(&t, i) {
                test_mods.push(m);
            }
            i = end.max(item);
        } else {
            kept.push(t[i].clone());
            i += 1;
        }
    }
    (kept, test_mods)
}

/// Top-level module names a file's tokens refer to. `module` is the file's module path
/// (`["perception", "stereo"]` for `src/perception/stereo/mod.rs`); `roots` are the path
/// starts that name the library's root (`crate` in the library, `vista` in the binary).
fn references(t: &[Tok], module: &[String], roots: &[&str]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut i = 0;
    while i < t.len() {
        // A path starts here unless `::` joins it to a name before (`::vista::x` starts).
        let at_path_start = i < 2
            || t[i - 1] != Tok::PathSep
            || !matches!(t[i - 2], Tok::Ident(_) | Tok::Punct('>' | ')'));
        let root_end = match ident(t.get(i)) {
            Some(w) if at_path_start && roots.contains(&w) => Some(i + 1),
            Some("super") if at_path_start && roots.contains(&"crate") => {
                let mut n = 0;
                let mut k = i;
                while ident(t.get(k)) == Some("super") && t.get(k + 1) == Some(&Tok::PathSep) {
                    n += 1;
                    k += 2;
                }
                (n >= module.len() && n > 0).then(|| k - 1)
            }
            _ => None,
        };
        let Some(after_root) = root_end else {
            i += 1;
            continue;
        };
        if t.get(after_root) != Some(&Tok::PathSep) {
            i += 1;
            continue;
        }
        match t.get(after_root + 1) {
            Some(Tok::Ident(name)) => {
                out.insert(name.clone());
            }
            Some(Tok::Punct('{')) => {
                // A group: the first name of every entry at its top level.
                let end = past_group(t, after_root + 1);
                let mut depth = 0;
                let mut entry_start = true;
                for tok in &t[after_root + 1..end] {
                    match tok {
                        Tok::Punct('{') => {
                            depth += 1;
                            entry_start = depth == 1;
                            continue;
                        }
                        Tok::Punct('}') => depth -= 1,
                        Tok::Punct(',') if depth == 1 => {
                            entry_start = true;
                            continue;
                        }
                        Tok::Ident(name) if entry_start && depth == 1 && name != "self" => {
                            out.insert(name.clone());
                        }
                        _ => {}
                    }
                    entry_start = false;
                }
            }
            _ => {}
        }
        i = after_root + 1;
    }
    out
}

// ---------------------------------------------------------------------------------------
// Reading the crate
// ---------------------------------------------------------------------------------------

/// One compiled (non-test) file: its path relative to the crate root, its module path and
/// its tokens without tests.
struct SourceFile {
    rel: String,
    module: Vec<String>,
    tokens: Vec<Tok>,
}

fn crate_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rel(root: &Path, p: &Path) -> String {
    p.strip_prefix(root)
        .unwrap_or(p)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Follows `mod` declarations from a crate root file; returns the compiled files and the
/// test-only files they declare.
fn walk(root: &Path, entry: &Path) -> (Vec<SourceFile>, BTreeSet<PathBuf>) {
    let mut files = Vec::new();
    let mut test_only = BTreeSet::new();
    let mut queue = VecDeque::from([(entry.to_path_buf(), Vec::<String>::new())]);
    while let Some((path, module)) = queue.pop_front() {
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let (toks, test_mods) = without_tests(tokens(&text));
        let dir = path.parent().expect("a file has a folder").to_path_buf();
        let stem = path
            .file_stem()
            .expect("a file has a name")
            .to_string_lossy();
        // Children without #[path] live in the file's folder (lib.rs, main.rs, mod.rs) or in
        // a folder named after the file (name.rs → name/child.rs).
        let child_dir = if module.is_empty() || stem == "mod" {
            dir.clone()
        } else {
            dir.join(&*stem)
        };
        let resolve = |m: &ModDecl| -> PathBuf {
            match &m.path {
                Some(p) => dir.join(p),
                None => {
                    let flat = child_dir.join(format!("{}.rs", m.name));
                    if flat.exists() {
                        flat
                    } else {
                        child_dir.join(&m.name).join("mod.rs")
                    }
                }
            }
        };
        for m in &test_mods {
            test_only.insert(resolve(m));
        }
        // Items start after `;`, `{`, `}` or an inner attribute; an item's outer attributes
        // are read with it.
        let (mut i, mut depth, mut boundary) = (0, 0i32, true);
        while i < toks.len() {
            let outer = is_punct(toks.get(i), '#') && is_punct(toks.get(i + 1), '[');
            let inner = is_punct(toks.get(i), '#')
                && is_punct(toks.get(i + 1), '!')
                && is_punct(toks.get(i + 2), '[');
            if boundary {
                if let Some(m) = mod_decl(&toks, i) {
                    assert!(
                        depth == 0,
                        "{}: `mod {};` inside an inline module is not followed by this test",
                        rel(root, &path),
                        m.name
                    );
                    let mut child = module.clone();
                    child.push(m.name.clone());
                    queue.push_back((resolve(&m), child));
                }
            }
            if inner {
                i = past_group(&toks, i + 2);
                boundary = true;
                continue;
            }
            if outer {
                i = past_attributes(&toks, i);
                boundary = false;
                continue;
            }
            match toks[i] {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => depth -= 1,
                _ => {}
            }
            boundary = matches!(toks[i], Tok::Punct(';' | '{' | '}'));
            i += 1;
        }
        files.push(SourceFile {
            rel: rel(root, &path),
            module,
            tokens: toks,
        });
    }
    (files, test_only)
}

/// The library's top-level modules and the graph between them (and from the binary).
fn crate_graph() -> (BTreeSet<String>, Graph) {
    let root = crate_root();
    let (lib, _) = walk(&root, &root.join("src/lib.rs"));
    let (bin, _) = walk(&root, &root.join("src/main.rs"));
    let modules: BTreeSet<String> = lib
        .iter()
        .filter(|f| f.module.len() == 1)
        .map(|f| f.module[0].clone())
        .collect();
    let mut graph = Graph::new();
    let files = lib
        .iter()
        .map(|f| (f, ["crate"].as_slice()))
        .chain(bin.iter().map(|f| (f, ["vista"].as_slice())));
    for (f, roots) in files {
        let from = if roots[0] == "crate" {
            match f.module.first() {
                Some(m) => m.clone(),
                None => continue, // lib.rs only declares the modules
            }
        } else {
            BINARY.to_string()
        };
        graph.entry(from.clone()).or_default();
        for to in references(&f.tokens, &f.module, roots) {
            if to != from && modules.contains(&to) {
                graph
                    .entry(from.clone())
                    .or_default()
                    .entry(to)
                    .or_default()
                    .insert(f.rel.clone());
            }
        }
    }
    (modules, graph)
}

// ---------------------------------------------------------------------------------------
// Cycles
// ---------------------------------------------------------------------------------------

/// Strongly connected components of more than one module, each sorted, in sorted order.
fn cycles(g: &Graph) -> Vec<Vec<String>> {
    struct Tarjan<'a> {
        g: &'a Graph,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, v: &'a str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            let g = self.g;
            for w in g.get(v).into_iter().flat_map(|e| e.keys()) {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let lw = self.low[w];
                    let lv = self.low[v];
                    self.low.insert(v, lv.min(lw));
                } else if self.on_stack.contains(w) {
                    let iw = self.index[w];
                    let lv = self.low[v];
                    self.low.insert(v, lv.min(iw));
                }
            }
            if self.low[v] == self.index[v] {
                let mut scc = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    scc.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if scc.len() > 1 {
                    scc.sort();
                    self.out.push(scc);
                }
            }
        }
    }
    let mut t = Tarjan {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.keys() {
        if !t.index.contains_key(v.as_str()) {
            t.visit(v);
        }
    }
    t.out.sort();
    t.out
}

/// A shortest cycle inside `scc` (the first module, in order, among the shortest), as
/// module names with the first repeated at the end.
fn shortest_cycle(g: &Graph, scc: &[String]) -> Vec<String> {
    scc.iter()
        .map(|start| cycle_through(g, scc, start))
        .min_by_key(Vec::len)
        .unwrap_or_default()
}

/// A shortest cycle through `start` inside `scc`.
fn cycle_through(g: &Graph, scc: &[String], start: &str) -> Vec<String> {
    let inside: BTreeSet<&str> = scc.iter().map(String::as_str).collect();
    let mut parent: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for w in g.get(v).into_iter().flat_map(|e| e.keys()) {
            let w = w.as_str();
            if w == start {
                let mut path = vec![start.to_string()];
                let mut at = v;
                while at != start {
                    path.push(at.to_string());
                    at = parent[at];
                }
                path.push(start.to_string());
                path.reverse();
                return path;
            }
            if inside.contains(w) && !parent.contains_key(w) {
                parent.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    scc.to_vec()
}

/// A report of every cycle: its modules, a shortest cycle among them with the files that
/// make each of its edges, then the other edges between them. Empty when there is none.
fn cycle_report(g: &Graph) -> String {
    let mut out = String::new();
    for scc in cycles(g) {
        let cycle = shortest_cycle(g, &scc);
        out.push_str(&format!(
            "modules in a cycle: {}\n  shortest: {}\n",
            scc.join(", "),
            cycle.join(" -> ")
        ));
        let on_cycle: BTreeSet<(&str, &str)> = cycle
            .windows(2)
            .map(|w| (w[0].as_str(), w[1].as_str()))
            .collect();
        for (a, b) in &on_cycle {
            let files = g.get(*a).and_then(|e| e.get(*b)).into_iter().flatten();
            let files: Vec<&str> = files.map(String::as_str).collect();
            out.push_str(&format!("  {a} -> {b}: {}\n", files.join(", ")));
        }
        let mut others = Vec::new();
        for a in &scc {
            for b in g.get(a).into_iter().flat_map(|e| e.keys()) {
                if scc.contains(b) && !on_cycle.contains(&(a.as_str(), b.as_str())) {
                    others.push(format!("{a} -> {b}"));
                }
            }
        }
        if !others.is_empty() {
            out.push_str(&format!("  also between them: {}\n", others.join(", ")));
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// ARCHITECTURE.md
// ---------------------------------------------------------------------------------------

/// The module map's rows: module → the modules its "depends on" cell names.
fn architecture_map(text: &str) -> Result<BTreeMap<String, BTreeSet<String>>, String> {
    let backticked = |cell: &str| -> Vec<String> {
        cell.split('`')
            .skip(1)
            .step_by(2)
            .map(|w| w.trim().to_string())
            .collect()
    };
    let mut lines = text.lines().skip_while(|l| !l.starts_with("## Module map"));
    let header = lines
        .find(|l| l.starts_with('|'))
        .ok_or("ARCHITECTURE.md has no table under `## Module map`")?;
    let columns: Vec<&str> = header.split('|').map(str::trim).collect();
    let module_col = columns.iter().position(|c| *c == "module");
    let deps_col = columns.iter().position(|c| *c == "depends on");
    let (Some(module_col), Some(deps_col)) = (module_col, deps_col) else {
        return Err(format!(
            "the module map's header needs `module` and `depends on` columns: {header}"
        ));
    };
    let mut map = BTreeMap::new();
    for row in lines.skip(1).take_while(|l| l.starts_with('|')) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let name = cells
            .get(module_col)
            .and_then(|c| backticked(c).into_iter().next())
            .ok_or_else(|| format!("a module map row names no module: {row}"))?;
        let deps = cells
            .get(deps_col)
            .ok_or_else(|| format!("the row of `{name}` has no `depends on` cell"))?;
        if map
            .insert(name.clone(), backticked(deps).into_iter().collect())
            .is_some()
        {
            return Err(format!("`{name}` has two rows in the module map"));
        }
    }
    Ok(map)
}

/// Every difference between the code's dependencies and the map's. Empty when they agree.
fn map_drift(g: &Graph, map: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let mut out = Vec::new();
    for (module, edges) in g {
        let Some(listed) = map.get(module) else {
            out.push(format!("`{module}` has no row in the module map"));
            continue;
        };
        for (to, files) in edges {
            if !listed.contains(to) {
                let files: Vec<&str> = files.iter().map(String::as_str).collect();
                out.push(format!(
                    "`{module}` uses `{to}` ({}) but its row does not list it",
                    files.join(", ")
                ));
            }
        }
        for to in listed.difference(&edges.keys().cloned().collect()) {
            out.push(format!(
                "`{module}`'s row lists `{to}`, which its code does not use"
            ));
        }
    }
    for module in map.keys().filter(|m| !g.contains_key(*m)) {
        out.push(format!(
            "the module map has a row for `{module}`, which is no module"
        ));
    }
    out
}

// ---------------------------------------------------------------------------------------
// The checks
// ---------------------------------------------------------------------------------------

#[test]
fn top_level_modules_form_no_cycle() {
    let (_, graph) = crate_graph();
    let report = cycle_report(&graph);
    assert!(
        report.is_empty(),
        "the top-level modules must depend on each other one way only (see the module map in \
         ARCHITECTURE.md):\n{report}"
    );
}

#[test]
fn architecture_map_lists_what_each_module_uses() {
    let (_, graph) = crate_graph();
    let text = std::fs::read_to_string(crate_root().join("ARCHITECTURE.md"))
        .expect("ARCHITECTURE.md is readable");
    let map = architecture_map(&text).unwrap_or_else(|e| panic!("{e}"));
    let drift = map_drift(&graph, &map);
    assert!(
        drift.is_empty(),
        "ARCHITECTURE.md's module map (`depends on`) disagrees with the code:\n  {}",
        drift.join("\n  ")
    );
}

/// The walk reaches every `.rs` file under `src/`, as a compiled file or a test-only one:
/// a `mod` declaration this reader missed would hide a file's dependencies.
#[test]
fn every_source_file_is_read_or_test_only() {
    let root = crate_root();
    let (lib, lib_tests) = walk(&root, &root.join("src/lib.rs"));
    let (bin, bin_tests) = walk(&root, &root.join("src/main.rs"));
    let seen: BTreeSet<String> = lib
        .iter()
        .chain(&bin)
        .map(|f| f.rel.clone())
        .chain(lib_tests.iter().chain(&bin_tests).map(|p| rel(&root, p)))
        .collect();
    let mut missing = Vec::new();
    let mut dirs = vec![root.join("src")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).expect("src is readable").flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") && !seen.contains(&rel(&root, &p)) {
                missing.push(rel(&root, &p));
            }
        }
    }
    assert!(missing.is_empty(), "files no `mod` declares: {missing:?}");
    // The graph has the modules it should: the library's and the binary.
    let (modules, graph) = crate_graph();
    assert!(
        modules.contains("time") && modules.contains("runtime"),
        "{modules:?}"
    );
    assert!(graph.contains_key(BINARY));
}

// The checker itself, on made-up input.

fn graph_of(edges: &[(&str, &str, &str)]) -> Graph {
    let mut g = Graph::new();
    for (a, b, file) in edges {
        g.entry(b.to_string()).or_default();
        g.entry(a.to_string())
            .or_default()
            .entry(b.to_string())
            .or_default()
            .insert(file.to_string());
    }
    g
}

#[test]
fn a_made_up_cycle_is_reported_with_its_files() {
    let g = graph_of(&[
        ("alpha", "beta", "src/alpha/x.rs"),
        ("beta", "gamma", "src/beta/y.rs"),
        ("gamma", "alpha", "src/gamma/z.rs"),
        ("gamma", "delta", "src/gamma/z.rs"),
        ("delta", "time", "src/delta.rs"),
    ]);
    assert_eq!(cycles(&g), vec![vec!["alpha", "beta", "gamma"]]);
    let report = cycle_report(&g);
    assert!(
        report.contains("alpha -> beta -> gamma -> alpha"),
        "{report}"
    );
    assert!(
        report.contains("modules in a cycle: alpha, beta, gamma"),
        "{report}"
    );
    for edge in [
        "alpha -> beta: src/alpha/x.rs",
        "beta -> gamma: src/beta/y.rs",
        "gamma -> alpha: src/gamma/z.rs",
    ] {
        assert!(report.contains(edge), "{edge} missing from:\n{report}");
    }
    assert!(!report.contains("delta"), "{report}");
    // A shorter cycle inside the same modules is the one shown with its files.
    let g = graph_of(&[
        ("alpha", "beta", "src/alpha/x.rs"),
        ("beta", "gamma", "src/beta/y.rs"),
        ("gamma", "alpha", "src/gamma/z.rs"),
        ("gamma", "beta", "src/gamma/w.rs"),
    ]);
    let report = cycle_report(&g);
    assert!(
        report.contains("shortest: beta -> gamma -> beta\n"),
        "{report}"
    );
    assert!(report.contains("gamma -> beta: src/gamma/w.rs"), "{report}");
    assert!(
        report.contains("also between them: alpha -> beta, gamma -> alpha"),
        "{report}"
    );
    // Without the back edge there is no cycle.
    let g = graph_of(&[
        ("alpha", "beta", "src/alpha/x.rs"),
        ("beta", "gamma", "src/beta/y.rs"),
    ]);
    assert!(cycle_report(&g).is_empty());
}

#[test]
fn references_come_from_code_not_from_tests_comments_or_strings() {
    let src = r##"
        //! Names [`crate::doc_only::X`] in a comment.
        use crate::{alpha::A, beta::{B, C}, self};
        use super::super::gamma::G;
        #[path = "x_tests.rs"]
        mod helper;
        fn f() -> crate::delta::D {
            let s = "crate::in_string::S"; /* crate::in_block::Z */
            let r = r#"crate::in_raw::R"#;
            let c = '"'; let q = '\''; let l: &'static str = "";
            crate::epsilon::run(crate::zeta::Z);
        }
        #[cfg(test)]
        mod tests {
            use crate::test_only::T;
        }
        #[cfg(test)]
        #[path = "other_tests.rs"]
        mod more_tests;
        #[cfg(test)]
        pub fn fixture() -> crate::fixture_only::F { todo!() }
        pub fn g() -> crate::after::H { todo!() }
    "##;
    let (toks, test_mods) = without_tests(tokens(src));
    let module = vec!["top".to_string(), "inner".to_string()];
    let refs = references(&toks, &module, &["crate"]);
    let want: BTreeSet<String> = [
        "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "after",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(refs, want);
    // Only `mod name;` names a file (the inline `mod tests { }` does not).
    assert_eq!(
        test_mods,
        vec![ModDecl {
            name: "more_tests".into(),
            path: Some("other_tests.rs".into())
        }]
    );
    // `super::super` from three levels down stays inside the top module.
    let deep = vec!["a".to_string(), "b".to_string(), "c".to_string()];
    assert!(!references(&toks, &deep, &["crate"]).contains("gamma"));
    // The binary names the library `vista`; its own `crate::` paths are not the library's.
    let bin =
        tokens("use vista::{alpha::A, beta}; fn f() { ::vista::gamma::g(); crate::cli::x(); }");
    let refs = references(&bin, &[], &["vista"]);
    assert_eq!(
        refs,
        ["alpha", "beta", "gamma"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    );
}

#[test]
fn map_drift_names_missing_and_extra_dependencies() {
    let md = "# x\n\n## Module map\n\n| module | depends on | owns |\n|---|---|---|\n\
              | `time` | — | clocks |\n| `alpha` | `time`, `beta` | a |\n| `ghost` | `time` | g |\n\n";
    let map = architecture_map(md).expect("the table parses");
    assert_eq!(map["alpha"].len(), 2);
    let g = graph_of(&[
        ("alpha", "time", "src/alpha/a.rs"),
        ("alpha", "gamma", "src/alpha/b.rs"),
    ]);
    let drift = map_drift(&g, &map).join("\n");
    assert!(
        drift.contains("`alpha` uses `gamma` (src/alpha/b.rs)"),
        "{drift}"
    );
    assert!(drift.contains("`alpha`'s row lists `beta`"), "{drift}");
    assert!(drift.contains("`gamma` has no row"), "{drift}");
    assert!(drift.contains("row for `ghost`"), "{drift}");
    assert!(!drift.contains("`time`"), "{drift}");
    assert!(architecture_map("## Module map\n\n| module | owns |\n").is_err());
}
