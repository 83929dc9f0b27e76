//! The README and the guide under `docs/`. The README stays a five-minute read (at most 25 KB,
//! no line over 100 characters) that links every page of the guide; its table of the tour's
//! steps is the built-in tour's; the commands it shows are ones the command line takes. Every
//! relative link in the README, the guide and ARCHITECTURE.md reaches a file (and, after `#`,
//! a heading of it); every path ARCHITECTURE.md names exists, and it names every command.
//!
//! `TWOCLOCKS_WRITE_README=1 cargo test --test cli guide` writes the tour's table again.

use std::path::{Path, PathBuf};

use clap::{CommandFactory, Parser};
use twoclocks::cli::Cli;
use twoclocks::tui::tour::Tour;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The text of a file, from the crate's root.
fn read(rel: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The guide's pages, `docs/*.md`, from the crate's root.
fn pages() -> Vec<String> {
    let mut pages: Vec<String> = std::fs::read_dir(Path::new(ROOT).join("docs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    pages.sort();
    pages
}

/// The lines of a Markdown text outside its fenced code blocks.
fn prose(text: &str) -> Vec<&str> {
    let mut fenced = false;
    text.lines()
        .filter(|l| {
            if l.trim_start().starts_with("```") {
                fenced = !fenced;
                return false;
            }
            !fenced
        })
        .collect()
}

/// The lines of a Markdown text inside its ```` ```sh ```` blocks.
fn shell(text: &str) -> Vec<String> {
    let mut inside = false;
    let mut lines: Vec<String> = Vec::new();
    let mut continued = false;
    for l in text.lines() {
        let t = l.trim_start();
        if t.starts_with("```") {
            inside = !inside && t == "```sh";
            continued = false;
            continue;
        }
        if !inside {
            continue;
        }
        // A line ending in `\` goes on on the next one, as the shell reads it.
        let (body, goes_on) = match l.trim_end().strip_suffix('\\') {
            Some(body) => (body, true),
            None => (l, false),
        };
        match lines.last_mut() {
            Some(last) if continued => {
                last.push(' ');
                last.push_str(body.trim());
            }
            _ => lines.push(body.to_string()),
        }
        continued = goes_on;
    }
    lines
}

/// A heading's anchor as GitHub makes it: lower case, punctuation left out, spaces to `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown text's headings (a repeated one numbered, as GitHub does).
fn anchors(text: &str) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    let mut bases: Vec<String> = Vec::new();
    for line in prose(text) {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if hashes == 0 || !line[hashes..].starts_with(' ') {
            continue;
        }
        let base = slug(&line[hashes..]);
        let n = bases.iter().filter(|b| **b == base).count();
        seen.push(if n == 0 {
            base.clone()
        } else {
            format!("{base}-{n}")
        });
        bases.push(base);
    }
    seen
}

/// The tour's steps as the README lists them.
fn tour_table() -> String {
    let tour = Tour::built_in().unwrap();
    let mut table = String::from("| step | `--from` | what it shows |\n|---|---|---|\n");
    for (i, step) in tour.steps.iter().enumerate() {
        let name = step
            .name
            .as_deref()
            .expect("every built-in step has a name");
        table.push_str(&format!("| {} | `{name}` | {} |\n", i + 1, step.title));
    }
    table
}

const TOUR_BEGIN: &str = "<!-- tour: written from assets/tour.toml";
const TOUR_END: &str = "<!-- tour: end -->";

#[test]
fn the_readme_is_a_five_minute_read() {
    let readme = read("README.md");
    assert!(
        readme.len() <= 25_000,
        "the README is {} bytes: move what is not needed in five minutes to docs/",
        readme.len()
    );
    for (n, line) in readme.lines().enumerate() {
        assert!(
            line.chars().count() <= 100,
            "README.md line {} is {} characters long",
            n + 1,
            line.chars().count()
        );
    }
    assert!(
        readme.contains("cargo run --release ") && readme.contains("cargo test "),
        "the README gives the two commands"
    );
    assert!(
        prose(&readme).iter().any(|l| l.starts_with("![")),
        "the README shows one picture"
    );
}

#[test]
fn the_readme_links_every_page_of_the_guide() {
    let readme = read("README.md");
    for page in pages() {
        assert!(
            readme.contains(&format!("]({page})")),
            "the README does not link {page}"
        );
    }
    let index = read("docs/README.md");
    for page in pages() {
        let name = page.trim_start_matches("docs/");
        assert!(
            name == "README.md" || index.contains(&format!("]({name})")),
            "the guide's index does not link {name}"
        );
    }
}

#[test]
fn the_readmes_tour_table_is_the_built_in_tours() {
    let path = Path::new(ROOT).join("README.md");
    let readme = read("README.md");
    let begin = readme
        .find(TOUR_BEGIN)
        .expect("the README marks its tour table");
    let body = begin + readme[begin..].find('\n').unwrap() + 1;
    let end = body
        + readme[body..]
            .find(TOUR_END)
            .expect("the tour table's end mark");
    let want = tour_table();
    if readme[body..end] == want {
        return;
    }
    if std::env::var_os("TWOCLOCKS_WRITE_README").is_some() {
        std::fs::write(
            &path,
            format!("{}{want}{}", &readme[..body], &readme[end..]),
        )
        .unwrap();
        return;
    }
    panic!(
        "the README's tour table is not the built-in tour's: run \
         TWOCLOCKS_WRITE_README=1 cargo test --test cli guide\n--- README\n{}--- tour\n{want}",
        &readme[body..end]
    );
}

#[test]
fn the_readmes_commands_are_the_command_lines() {
    let readme = read("README.md");
    let mut taken = 0;
    for line in shell(&readme) {
        let line = line.split(" #").next().unwrap().trim();
        let Some(args) = line.strip_prefix("twoclocks") else {
            continue;
        };
        let argv = std::iter::once("twoclocks").chain(args.split_whitespace());
        if let Err(e) = Cli::try_parse_from(argv) {
            panic!("the README's `{line}` is refused:\n{e}");
        }
        taken += 1;
    }
    assert!(taken >= 8, "the README shows eight commands, found {taken}");
}

#[test]
fn every_link_reaches_its_target() {
    let mut files = vec!["README.md".to_string(), "ARCHITECTURE.md".to_string()];
    files.extend(pages());
    for file in &files {
        let text = read(file);
        let dir = Path::new(file).parent().unwrap_or(Path::new(""));
        for line in prose(&text) {
            let mut rest = line;
            while let Some(at) = rest.find("](") {
                let after = &rest[at + 2..];
                let close = after.find(')').expect("a link closes on its line");
                let target = &after[..close];
                rest = &after[close..];
                if target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                let (path, anchor) = match target.split_once('#') {
                    Some((p, a)) => (p, Some(a)),
                    None => (target, None),
                };
                let resolved: PathBuf = if path.is_empty() {
                    PathBuf::from(file)
                } else {
                    normalise(&dir.join(path))
                };
                let full = Path::new(ROOT).join(&resolved);
                assert!(
                    full.exists(),
                    "{file}: the link to {target} reaches nothing"
                );
                if let Some(anchor) = anchor {
                    let there = std::fs::read_to_string(&full).unwrap();
                    assert!(
                        anchors(&there).iter().any(|a| a == anchor),
                        "{file}: {} has no heading #{anchor}",
                        resolved.display()
                    );
                }
            }
        }
    }
}

/// `a/b/../c` as `a/c`.
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Every file and folder of the crate (not `target/`, not hidden ones), from its root.
fn tree(dir: &Path, rel: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') && name != ".ci"
            || (rel.as_os_str().is_empty() && name == "target")
        {
            continue;
        }
        let path = rel.join(&*name);
        if entry.file_type().unwrap().is_dir() {
            tree(&entry.path(), &path, out);
        }
        out.push(path);
    }
}

#[test]
fn every_path_the_architecture_names_exists() {
    let text = read("ARCHITECTURE.md");
    let mut all = Vec::new();
    tree(Path::new(ROOT), Path::new(""), &mut all);
    let mut checked = 0;
    for (i, piece) in text.split('`').enumerate() {
        let looks_like_a_path = piece.contains('/')
            || [".rs", ".toml", ".md", ".py"]
                .iter()
                .any(|e| piece.ends_with(e));
        let a_name =
            piece.chars().any(char::is_alphanumeric) && !piece.contains(['<', '*', ' ', ':']);
        if i % 2 == 0 || !looks_like_a_path || !a_name {
            continue;
        }
        let want = Path::new(piece.trim_end_matches('/'));
        assert!(
            all.iter().any(|p| p.ends_with(want)),
            "ARCHITECTURE.md names `{piece}`, which is not in the crate"
        );
        checked += 1;
    }
    assert!(checked > 40, "ARCHITECTURE.md names {checked} paths");
    for command in Cli::command().get_subcommands() {
        let name = command.get_name();
        assert!(
            text.contains(&format!("`{name}`")),
            "ARCHITECTURE.md does not name the command `{name}`"
        );
    }
}
