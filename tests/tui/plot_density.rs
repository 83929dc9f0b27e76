//! The plot shows how many events lie where, not only where: its ink per fate follows the
//! fates' shares of the events, the legend states those shares, `f` draws only the late and
//! dropped events, classroom and stormy streams look different, and an inspected late or
//! dropped event has its inequality drawn on its row.

use std::time::Duration;

use ratatui::buffer::Buffer;
use twoclocks::engine::{EngineConfig, Fate, WindowFn};
use twoclocks::tui::app::{update, Action, App, Msg};
use twoclocks::tui::geometry::{plot::PlotFrame, Areas};
use twoclocks::tui::scenario::{Scenario, ScenarioName};
use twoclocks::tui::theme::{glyph, Theme};
use twoclocks::tui::{app_for, Options};

use crate::ui_common::{buffer, lines, text, timeline};

fn at_end(scenario: Scenario, cfg: EngineConfig) -> App {
    let mut a = app_for(Options {
        scenario,
        config: cfg,
        speed: 10.0,
        theme: Theme::dark(),
        play: false,
    });
    a.settle();
    update(&mut a, Msg::Action(Action::JumpToEnd), Duration::ZERO);
    a
}

fn classroom() -> App {
    // The classroom stream under fixed:20s and no grace: 724 of 20000 events dropped (3.6 %).
    at_end(Scenario::classroom(), EngineConfig::fixed(20_000.0, 0.0))
}

fn stormy() -> App {
    let s = Scenario::built_in(
        ScenarioName::Stormy,
        &WindowFn::Tumbling {
            size: 60_000,
            offset: 0,
        },
    )
    .unwrap();
    at_end(s, EngineConfig::fixed(20_000.0, 0.0))
}

fn frame(a: &App, w: u16, h: u16) -> PlotFrame {
    PlotFrame::of(a, Areas::compute((w, h)).unwrap().plot).unwrap()
}

/// The plot's ink per fate (on time, late, dropped), from the glyphs on screen.
fn ink(a: &App, buf: &Buffer) -> [f64; 3] {
    let f = frame(a, buf.area.width, buf.area.height);
    let mut ink = [0.0; 3];
    for y in f.inner.top()..f.inner.bottom() {
        for x in f.inner.left()..f.inner.right() {
            let c = buf[(x, y)].symbol().chars().next().unwrap_or(' ');
            if let Some((fate, n)) = glyph::ink(c) {
                ink[fate as usize] += n;
            }
        }
    }
    ink
}

fn dropped_ink_share(a: &App, buf: &Buffer) -> f64 {
    let [o, l, d] = ink(a, buf);
    d / (o + l + d)
}

fn dropped_share(a: &App) -> f64 {
    let x = timeline(a).exceptions();
    let d = x.iter().filter(|e| e.fate == Fate::Dropped).count();
    d as f64 / timeline(a).arrived() as f64
}

#[test]
fn dropped_ink_follows_the_dropped_share() {
    for (w, h) in [(120, 40), (80, 24), (200, 60)] {
        let mut a = classroom();
        let buf = buffer(&mut a, w, h);
        let share = dropped_share(&a);
        let ink = dropped_ink_share(&a, &buf);
        println!(
            "classroom {w}×{h}: {:.1} % dropped, {:.1} % of the plot's ink is dropped",
            100.0 * share,
            100.0 * ink
        );
        assert!((0.0355..0.0365).contains(&share), "{share}");
        assert!(
            ink > share / 1.5 && ink < share * 1.5,
            "{w}×{h}: dropped ink {ink:.3} against a dropped share of {share:.3}"
        );
    }
}

#[test]
fn classroom_and_stormy_look_different() {
    let mut c = classroom();
    let mut s = stormy();
    let (bc, bs) = (buffer(&mut c, 120, 40), buffer(&mut s, 120, 40));
    let (ic, is) = (dropped_ink_share(&c, &bc), dropped_ink_share(&s, &bs));
    println!(
        "dropped: classroom {:.1} % of events, {:.1} % of ink; stormy {:.1} % of events, {:.1} % of ink",
        100.0 * dropped_share(&c),
        100.0 * ic,
        100.0 * dropped_share(&s),
        100.0 * is
    );
    assert!(is > 3.0 * ic, "stormy {is:.3} against classroom {ic:.3}");
}

#[test]
fn the_legend_states_the_shares_of_the_events_so_far() {
    let mut a = classroom();
    for (w, h) in [(120, 40), (80, 24)] {
        let buf = buffer(&mut a, w, h);
        let f = frame(&a, w, h);
        // The legend is on the plot's bottom border.
        let legend = &lines(&buf)[usize::from(f.inner.bottom() + 1)];
        for want in ["96.4%", "0.0%", "3.6%", "so far"] {
            assert!(legend.contains(want), "{w}×{h}: {legend}");
        }
        assert!(!legend.contains("ideal"), "{w}×{h}: {legend}");
    }
}

#[test]
fn f_shows_only_late_and_dropped_events() {
    let mut a = at_end(
        Scenario::classroom(),
        EngineConfig::fixed(10_000.0, 30_000.0),
    );
    let buf = buffer(&mut a, 120, 40);
    let before = ink(&a, &buf);
    assert!(before.iter().all(|&n| n > 0.0), "{before:?}");
    update(&mut a, Msg::Action(Action::PlotFilter), Duration::ZERO);
    let buf = buffer(&mut a, 120, 40);
    let after = ink(&a, &buf);
    assert_eq!(after[0], 0.0, "no on-time event is drawn: {after:?}");
    assert!(after[1] > 0.0 && after[2] > 0.0, "{after:?}");
    assert!(lines(&buf)[0].contains("only late & dropped (f)"));
    // The ideal watermark, no longer covered by on-time events, is drawn and named.
    let f = frame(&a, 120, 40);
    let legend = &lines(&buf)[usize::from(f.inner.bottom() + 1)];
    assert!(legend.contains("ideal"), "{legend}");
    assert!(lines(&buf).iter().any(|l| l.contains(glyph::IDEAL)));
    update(&mut a, Msg::Action(Action::PlotFilter), Duration::ZERO);
    let buf = buffer(&mut a, 120, 40);
    assert_eq!(ink(&a, &buf), before);
}

/// The plot's rows above, at and below the inspected event's, as text.
fn inspected_rows(a: &mut App, i: usize) -> [String; 3] {
    a.selection.inspected = Some(i);
    let buf = buffer(a, 120, 40);
    let f = frame(a, 120, 40);
    let e = a.scenario().stream.events[i];
    let r = f.inner.y + f.row(e.proc_time).unwrap();
    let c = f.inner.x + f.col(e.event_time).unwrap();
    assert_eq!(buf[(c, r)].symbol(), glyph::INSPECTED.to_string());
    let rows = lines(&buf);
    let plot_row = |y: u16| -> String {
        rows[usize::from(y)]
            .chars()
            .skip(usize::from(f.inner.x))
            .take(usize::from(f.inner.width))
            .collect()
    };
    [plot_row(r - 1), plot_row(r), plot_row(r + 1)]
}

#[test]
fn an_inspected_dropped_event_shows_its_inequality() {
    let mut a = classroom();
    // A dropped event in the middle of the run (the inspector covers the plot's bottom).
    let i = timeline(&a)
        .exceptions()
        .iter()
        .find(|x| x.fate == Fate::Dropped && x.event.proc_time > 400_000.0)
        .unwrap()
        .offset;
    let why = timeline(&a).inspect(&a.scenario().stream, i).unwrap();
    let [above, row, below] = inspected_rows(&mut a, i);
    // Its window up to the window's end, past grace up to the watermark at arrival.
    for g in [glyph::INEQUALITY_EDGE, glyph::PAST_GRACE] {
        assert!(row.contains(g), "{g} missing: {row}");
    }
    let wm = format!(
        "wm {}, grace 0.0s",
        twoclocks::engine::duration::Duration::seconds(why.watermark)
    );
    let rows = format!("{above}\n{row}\n{below}");
    assert!(rows.contains(&wm), "{rows}");
    assert!(rows.contains("end "), "{rows}");
}

#[test]
fn an_inspected_late_event_shows_its_grace_band() {
    let mut a = at_end(
        Scenario::classroom(),
        EngineConfig::fixed(10_000.0, 30_000.0),
    );
    let i = timeline(&a)
        .exceptions()
        .iter()
        .find(|x| x.fate == Fate::Late && x.event.proc_time > 400_000.0)
        .unwrap()
        .offset;
    let [above, row, below] = inspected_rows(&mut a, i);
    assert!(row.contains(glyph::GRACE_BAND), "{row}");
    assert!(row.contains(glyph::INEQUALITY_EDGE), "{row}");
    assert!(!row.contains(glyph::PAST_GRACE), "{row}");
    let rows = format!("{above}\n{row}\n{below}");
    assert!(rows.contains("grace 30.0s"), "{rows}");
    assert!(rows.contains("end "), "{rows}");
}

#[test]
fn an_inspected_on_time_event_draws_no_inequality() {
    let mut a = classroom();
    let i = timeline(&a)
        .fates()
        .iter()
        .position(|f| *f == Fate::OnTime)
        .unwrap();
    a.selection.inspected = Some(i);
    let buf = buffer(&mut a, 120, 40);
    let all = text(&buf);
    assert!(!all.contains(glyph::GRACE_BAND) && !all.contains(" wm "));
}

#[test]
fn no_size_panics_with_the_filter_and_an_inequality() {
    let mut a = classroom();
    let i = timeline(&a).exceptions()[0].offset;
    a.selection.inspected = Some(i);
    update(&mut a, Msg::Action(Action::PlotFilter), Duration::ZERO);
    for w in [0, 1, 10, 79, 80, 81, 100, 119, 120, 200, 300] {
        for h in [0, 1, 5, 23, 24, 25, 30, 40, 60, 90] {
            buffer(&mut a, w, h);
        }
    }
}

#[test]
fn the_filter_is_named_whole_at_80x24() {
    let mut a = classroom();
    update(&mut a, Msg::Action(Action::PlotFilter), Duration::ZERO);
    let top = &lines(&buffer(&mut a, 80, 24))[0];
    assert!(
        top.contains("Two clocks only late & dropped (f) ─"),
        "{top}"
    );
    assert!(!top.contains("event time"), "{top}");
    update(&mut a, Msg::Action(Action::PlotFilter), Duration::ZERO);
    let top = &lines(&buffer(&mut a, 80, 24))[0];
    assert!(top.contains("event time → · processing time ↑"), "{top}");
}
