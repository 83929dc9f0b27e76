//! The keys table of the guide's screen page (`docs/screen.md`) is the one the keymap writes
//! (`keymap::keys_table`), so the two cannot drift apart. To write it again after changing the
//! keymap: `TWOCLOCKS_WRITE_README=1 cargo test --test tui readme_keys`.

use twoclocks::tui::keymap::keys_table;

const BEGIN: &str = "<!-- keys: written from crates/tui/src/keymap.rs";
const END: &str = "<!-- keys: end -->";

#[test]
fn the_guides_keys_table_is_the_keymaps() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/screen.md");
    let readme = std::fs::read_to_string(path).unwrap();
    let begin = readme
        .find(BEGIN)
        .expect("docs/screen.md marks its keys table");
    let body = begin + readme[begin..].find('\n').unwrap() + 1;
    let end = body + readme[body..].find(END).expect("the keys table's end mark");
    let want = keys_table();
    if readme[body..end] == want {
        return;
    }
    if std::env::var_os("TWOCLOCKS_WRITE_README").is_some() {
        let written = format!("{}{want}{}", &readme[..body], &readme[end..]);
        std::fs::write(path, written).unwrap();
        return;
    }
    panic!(
        "docs/screen.md's keys table is not the keymap's: run \
         TWOCLOCKS_WRITE_README=1 cargo test --test tui readme_keys\n--- docs/screen.md\n{}--- keymap\n{want}",
        &readme[body..end]
    );
}
