//! The presenter's tools: a recording played back gives the same screens; a bad or truncated
//! recording is an error naming its line; the SVG and text of a known screen match their
//! golden files; `z` leaves the plot alone on the screen, clicks on it still inspect and the
//! other keys still act; `s` asks the shell for a save and the state does no I/O.

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use twoclocks::tui::app::{update, Action, App, Msg};
use twoclocks::tui::export::{self, svg, text};
use twoclocks::tui::record::{self, Entry, Input, HEADER};

use crate::ui_common::{act, app, said, screen};

fn draw(a: &App) -> Buffer {
    let area = Rect::new(0, 0, a.size.0, a.size.1);
    let mut buf = Buffer::empty(area);
    twoclocks::tui::view::draw(a, area, &mut buf);
    buf
}

fn key(c: char) -> Input {
    Input::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

fn named(code: KeyCode) -> Input {
    Input::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

/// A demo as a teacher might give it: play, change dials, click the plot, zoom, resize.
fn demo() -> Vec<Input> {
    let mut v = vec![Input::Resize(120, 40), key(' ')];
    let ticks = |n: usize, ms: u64| {
        (0..n).map(move |i| Input::Tick(Duration::from_millis(ms + (i as u64 % 7))))
    };
    v.extend(ticks(40, 30));
    v.extend([
        key('l'),
        key('l'),
        key('G'),
        named(KeyCode::Tab),
        named(KeyCode::Right),
    ]);
    v.extend(ticks(25, 33));
    v.extend([
        key(' '),
        Input::Click(40, 12),
        named(KeyCode::Right),
        key('z'),
    ]);
    v.extend([key(' ')]);
    v.extend(ticks(30, 95));
    v.extend([
        key('w'),
        key('a'),
        Input::Resize(80, 24),
        key('z'),
        key(' '),
    ]);
    v
}

/// The inputs applied one by one, the app's work finished after each (as the event loop does
/// before the next input, for a stream re-run inline).
fn play(inputs: &[Input]) -> App {
    let mut a = app();
    for i in inputs {
        record::apply(&mut a, i);
        a.settle();
    }
    a
}

#[test]
fn a_recording_played_back_gives_the_same_final_screen() {
    let inputs = demo();
    let live = play(&inputs);
    // Written as the recorder writes it, read back as --replay reads it.
    let mut text = format!("{HEADER}\n");
    let mut at = Duration::ZERO;
    for i in &inputs {
        at += Duration::from_micros(33_333);
        let line = record::line(&Entry { at, input: *i }).expect("a recordable input");
        text.push_str(&line);
        text.push('\n');
    }
    text.push_str(&format!("{} end\n", at.as_micros()));
    let entries = record::parse(&text).expect("the recording reads back");
    let read: Vec<Input> = entries.iter().map(|e| e.input).collect();
    assert_eq!(read, inputs, "every input survives the file");
    let replayed = play(&read);
    assert_eq!(replayed.playhead(), live.playhead());
    assert_eq!(replayed.dials(), live.dials());
    assert!(live.playhead().arrived > 0 && live.zoomed == replayed.zoomed);
    assert_eq!(draw(&replayed), draw(&live), "the same final screen");
    // And the screen is not a trivial one: the demo moved the playhead and the dials.
    assert_ne!(draw(&live), draw(&app()));
}

#[test]
fn keys_with_modifiers_and_named_keys_survive_the_file() {
    let inputs = [
        Input::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
        Input::Key(KeyEvent::new(KeyCode::Char('L'), KeyModifiers::SHIFT)),
        Input::Key(KeyEvent::new(KeyCode::Char('x'), KeyModifiers::ALT)),
        named(KeyCode::BackTab),
        named(KeyCode::F(1)),
        named(KeyCode::Esc),
        named(KeyCode::Home),
        key(' '),
        key('<'),
        key('['),
        Input::Drag(3, 4),
        Input::Tick(Duration::from_micros(33_001)),
    ];
    let mut text = format!("{HEADER}\n");
    for (n, i) in inputs.iter().enumerate() {
        let at = Duration::from_millis(n as u64);
        text.push_str(&record::line(&Entry { at, input: *i }).unwrap());
        text.push('\n');
    }
    text.push_str("99000 end\n");
    let back: Vec<Input> = record::parse(&text)
        .unwrap()
        .iter()
        .map(|e| e.input)
        .collect();
    assert_eq!(back, inputs);
    // A recording that ends with q quits when played.
    assert!(key('q').quits() && !key('l').quits());
}

fn error(text: &str) -> (usize, String) {
    let e = record::parse(text).expect_err("a bad recording");
    (e.line, e.why)
}

#[test]
fn a_bad_or_truncated_recording_is_an_error_with_its_line() {
    let h = HEADER;
    let cases: [(String, usize, &str); 10] = [
        (String::new(), 1, "not a twoclocks recording"),
        ("{\"version\": 2}\n".into(), 1, "not a twoclocks recording"),
        ("twoclocks-record 9\n0 end\n".into(), 1, "version"),
        (
            format!("{h}\n0 key l\n100 tick 33000\n"),
            3,
            "without its `end` line",
        ),
        (format!("{h}\n0 key l\n100 tick 330"), 3, "cut short"),
        (
            format!("{h}\n0 key l\n10 key nope\n20 end\n"),
            3,
            "is not a key",
        ),
        (format!("{h}\n50 key l\n10 key l\n60 end\n"), 3, "goes back"),
        (format!("{h}\n0 click 3\n1 end\n"), 2, "two numbers"),
        (format!("{h}\n0 jump 3\n1 end\n"), 2, "is not an input"),
        (format!("{h}\n0 end\n5 key l\n"), 3, "after the `end`"),
    ];
    for (text, line, why) in cases {
        let (l, w) = error(&text);
        assert_eq!(l, line, "{text:?}: {w}");
        assert!(w.contains(why), "{text:?}: {w}");
    }
    // Through the file: the error names it and the line.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cut.rec");
    std::fs::write(&path, format!("{h}\n0 resize 80 24\n40 key")).unwrap();
    let e = format!("{:#}", record::load(&path).unwrap_err());
    assert!(e.contains("cut.rec") && e.contains("line 3"), "{e}");
}

/// A small screen with what the SVG writer must get right: colours (named, indexed, RGB,
/// the terminal's default), a background, bold and reversed cells, a wide glyph, XML's
/// reserved characters.
fn known_screen() -> Buffer {
    let mut buf = Buffer::empty(Rect::new(0, 0, 24, 4));
    buf.set_string(
        0,
        0,
        "┌ Two clocks ─┐",
        Style::default().fg(Color::Indexed(242)),
    );
    buf.set_string(
        2,
        0,
        "Two clocks",
        Style::default()
            .fg(Color::Cyan)
            .add_modifier(Modifier::BOLD),
    );
    buf.set_string(0, 1, "a<b & \"c\"", Style::default());
    buf.set_string(12, 1, "界!", Style::default().fg(Color::Rgb(255, 128, 0)));
    buf.set_string(
        0,
        2,
        " late ",
        Style::default().fg(Color::Yellow).bg(Color::Blue),
    );
    buf.set_string(
        8,
        2,
        "on",
        Style::default().add_modifier(Modifier::REVERSED),
    );
    buf.set_string(
        0,
        3,
        "✕ dropped",
        Style::default().fg(Color::Red).add_modifier(Modifier::DIM),
    );
    buf
}

fn golden(name: &str, got: &str) {
    let path = format!("{}/tests/golden/{name}", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("TWOCLOCKS_WRITE_GOLDEN").is_some() {
        std::fs::write(&path, got).unwrap();
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("{path}: TWOCLOCKS_WRITE_GOLDEN=1 writes it"));
    assert_eq!(got, want, "{name} differs from its golden file");
}

#[test]
fn the_svg_and_text_of_a_known_screen_match_their_golden_files() {
    let buf = known_screen();
    golden("known_screen.svg", &svg::svg(&buf));
    golden("known_screen.txt", &text::text(&buf));
}

#[test]
fn the_svg_of_a_whole_screen_is_well_formed_in_every_theme() {
    use twoclocks::tui::theme::Theme;
    for theme in [Theme::dark(), Theme::light(), Theme::mono()] {
        let mut a = app();
        a.theme = theme;
        act(&mut a, Action::JumpToEnd);
        let buf = draw(&a);
        let s = svg::svg(&buf);
        assert!(s.starts_with("<svg ") && s.ends_with("</svg>\n"));
        assert_eq!(s.matches("<text ").count(), s.matches("</text>").count());
        // Nothing unescaped between the tags.
        for t in s.split("<text ").skip(1) {
            let body = &t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()];
            assert!(!body.contains('<') && !body.contains('>'), "{body}");
        }
        let txt = text::text(&buf);
        assert_eq!(txt.lines().count(), usize::from(a.size.1));
        assert!(txt.contains("Two clocks"));
    }
}

#[test]
fn saving_writes_both_files_and_never_overwrites() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    let buf = known_screen();
    let (svg1, txt1) = export::save(&buf, dir, "2026-12-04-081500").unwrap();
    assert!(svg1.ends_with("twoclocks-2026-12-04-081500.svg"));
    assert!(txt1.ends_with("twoclocks-2026-12-04-081500.txt"));
    let (svg2, _) = export::save(&buf, dir, "2026-12-04-081500").unwrap();
    assert!(svg2.ends_with("twoclocks-2026-12-04-081500-2.svg"));
    assert_eq!(std::fs::read_to_string(&txt1).unwrap(), text::text(&buf));
    // A folder that is not there: an error that says which file, no panic.
    let e = export::save(&buf, &dir.join("missing"), "x").unwrap_err();
    assert!(e.contains("missing"), "{e}");
}

#[cfg(unix)]
#[test]
fn a_save_is_whole_or_not_there_and_passes_over_any_name_taken() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    let buf = known_screen();
    // A dangling link at the text file's name: that name is passed over, the link left as it
    // is, and no picture is left without its text.
    let link = dir.join("twoclocks-2026-12-04-081500.txt");
    std::os::unix::fs::symlink(dir.join("nowhere"), &link).unwrap();
    let (svg, txt) = export::save(&buf, dir, "2026-12-04-081500").unwrap();
    assert!(
        svg.ends_with("twoclocks-2026-12-04-081500-2.svg"),
        "{svg:?}"
    );
    assert_eq!(std::fs::read_to_string(&txt).unwrap(), text::text(&buf));
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "twoclocks-2026-12-04-081500-2.svg",
            "twoclocks-2026-12-04-081500-2.txt",
            "twoclocks-2026-12-04-081500.txt"
        ]
    );
    // A hard link to another file planted at an unfinished copy's name: refused, and the
    // file it names stays as it was.
    let notes = dir.join("notes.txt");
    std::fs::write(&notes, "precious").unwrap();
    std::fs::hard_link(&notes, dir.join(".twoclocks-x.svg.twoclocks-partial")).unwrap();
    let e = export::save(&buf, dir, "x").unwrap_err();
    assert!(e.contains("remove it by hand"), "{e}");
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "precious");
    assert!(!dir.join("twoclocks-x.svg").exists());
    assert!(!dir.join("twoclocks-x.txt").exists());
}

#[test]
fn s_asks_the_shell_to_save_and_the_footer_says_where() {
    let mut a = app();
    act(&mut a, Action::SaveScreen);
    assert!(a.take_save(), "the request waits for the event loop");
    assert!(!a.take_save(), "taken once");
    a.saved(Ok("twoclocks-x.svg and twoclocks-x.txt".into()));
    assert!(said(&a).contains("twoclocks-x.svg"));
    a.saved(Err("Permission denied (./twoclocks-x.svg)".into()));
    assert!(said(&a).starts_with("screen not saved: Permission denied"));
    // Also with the help open: the help itself can be saved.
    act(&mut a, Action::Help);
    act(&mut a, Action::SaveScreen);
    assert!(a.take_save());
}

#[test]
fn z_leaves_the_plot_alone_and_back() {
    for size in [(80, 24), (120, 40), (200, 60)] {
        for job in [false, true] {
            let mut a = app();
            update(&mut a, Msg::Resize(size.0, size.1), Duration::ZERO);
            if job {
                act(&mut a, Action::ToggleJob);
                a.settle();
            }
            let before = a.areas(size).unwrap();
            act(&mut a, Action::Zoom);
            let z = a.areas(size).unwrap();
            let names: Vec<String> = z.panels().iter().map(|(p, _)| p.to_string()).collect();
            assert_eq!(names, ["plot", "footer"], "{size:?} job {job}");
            assert_eq!(z.plot, Rect::new(0, 0, size.0, size.1 - 1));
            assert_eq!(z.footer, before.footer);
            let shown = screen(&a);
            assert!(shown.starts_with("┌ Two clocks"), "{size:?}\n{shown}");
            assert!(!shown.contains("┌ Dials"), "{size:?}\n{shown}");
            act(&mut a, Action::Zoom);
            assert_eq!(a.areas(size).unwrap(), before, "z again: every panel back");
        }
    }
}

#[test]
fn zoomed_the_plot_still_inspects_and_the_other_keys_still_act() {
    let mut a = app();
    act(&mut a, Action::JumpToEnd);
    act(&mut a, Action::Zoom);
    let plot = a.areas(a.size).unwrap().plot;
    assert!(update(
        &mut a,
        Msg::Click(plot.x + plot.width / 2, plot.y + plot.height / 2),
        Duration::ZERO
    ));
    assert!(
        a.selection.inspected.is_some(),
        "a click on the plot inspects"
    );
    let lag = a.dials().lag;
    act(&mut a, Action::LagUp);
    a.settle();
    assert!(a.dials().lag > lag, "the dials' keys act");
    act(&mut a, Action::Close);
    act(&mut a, Action::ToggleJob);
    a.settle();
    assert!(a.steered.parallel() && a.zoomed, "job mode keeps the zoom");
}

proptest::proptest! {
    /// Any text, and any valid recording cut or with a byte changed: an entry list or an error
    /// with a line inside the text, never a panic.
    #[test]
    fn any_recording_text_is_read_or_refused_never_a_panic(
        noise in ".{0,200}",
        cut in 0usize..400,
        at in 0usize..400,
        byte in proptest::prelude::any::<u8>(),
    ) {
        let check = |text: &str| {
            if let Err(e) = record::parse(text) {
                let lines = text.split('\n').count().max(1);
                assert!(e.line >= 1 && e.line <= lines, "{text:?}: line {}", e.line);
            }
        };
        check(&noise);
        check(&format!("{HEADER}\n{noise}"));
        let valid = format!(
            "{HEADER}\n0 resize 120 40\n10 key Space\n43 tick 33000\n50 key c ctrl\n60 click 4 5\n70 drag 6 7\n80 key F1\n90 end\n"
        );
        let mut bytes = valid.clone().into_bytes();
        bytes.truncate(cut.min(bytes.len()));
        check(&String::from_utf8_lossy(&bytes));
        let mut bytes = valid.into_bytes();
        let i = at % bytes.len();
        bytes[i] = byte;
        check(&String::from_utf8_lossy(&bytes));
    }
}

#[test]
fn the_guides_sample_recording_reads() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/presenting.md"))
            .unwrap();
    let start = readme
        .find(&format!("  {HEADER}\n"))
        .expect("docs/presenting.md shows a recording");
    let block: String = readme[start..]
        .lines()
        .take_while(|l| !l.trim_start().starts_with("```"))
        .map(|l| format!("{}\n", l.trim_start()))
        .collect();
    let entries = record::parse(&block).expect("docs/presenting.md's recording reads");
    assert!(entries.len() >= 5, "{block}");
}

#[test]
fn a_recording_keeps_the_flags_that_decide_what_it_goes_through() {
    let args = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        record::demo_flags(args(&[
            "--paused",
            "--record",
            "a.rec",
            "--theme=light",
            "--speed",
            "20",
            "--cast=c",
            "--replay",
            "b.rec",
            "--theme",
            "mono"
        ])),
        args(&["--paused", "--speed", "20"])
    );
    let text = format!("{HEADER}\n0 flags [\"--paused\"]\n0 key l\n5 end\n");
    let r = record::parse_recording(&text).unwrap();
    assert_eq!(r.flags, Some(args(&["--paused"])));
    assert_eq!(r.entries.len(), 1);
    let (line, why) = error(&format!("{HEADER}\n0 key l\n0 flags []\n5 end\n"));
    assert_eq!(line, 3);
    assert!(why.contains("once, before"), "{why}");
    let (line, why) = error(&format!("{HEADER}\n0 flags --paused\n5 end\n"));
    assert_eq!(line, 2);
    assert!(why.contains("JSON list"), "{why}");
}

#[test]
fn a_saved_svg_has_no_seams_between_rows_in_any_theme() {
    use twoclocks::tui::theme::Theme;
    for theme in [Theme::dark(), Theme::light(), Theme::mono()] {
        let mut a = app();
        a.theme = theme;
        act(&mut a, Action::JumpToEnd);
        let s = svg::svg(&draw(&a));
        // The backing is the screen's own background, so no colour of another shows through
        // between two rows' rectangles when the picture is scaled.
        let backing = s.split("<rect ").nth(1).unwrap();
        let fill = |r: &str| r.split("fill=\"").nth(1).unwrap()[..7].to_string();
        let back = fill(backing);
        let rects: Vec<&str> = s.split("<rect ").skip(2).collect();
        assert!(
            rects.iter().all(|r| fill(r) != back),
            "a rectangle repeats the backing"
        );
        // Rectangles are drawn with crisp edges, and a run of one colour over several rows is
        // one rectangle.
        assert!(s.contains("<g shape-rendering=\"crispEdges\">"));
        assert!(
            rects.len() < usize::from(a.size.1),
            "{} rectangles for {} rows",
            rects.len(),
            a.size.1
        );
    }
}
