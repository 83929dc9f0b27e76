//! The outage on the two-clocks plot: the rows in which the job's combined watermark stood
//! still bracketed (┃ on both borders) exactly over the read model's stall, with its length;
//! the events the outage held back (independently: partition 1's events logged in its
//! outage) drawn reversed on the heal's row; side by side, the events whose fates differ
//! between A and B counted in the legend as an independent count finds them, and drawn
//! reversed on both plots. At 80×24 and 120×40, in the tour's `partition` and `idleness`
//! steps.

use ratatui::style::Modifier;
use twoclocks::engine::duration::Duration;
use twoclocks::engine::pipeline::PipelineConfig;
use twoclocks::engine::trace::Trace;
use twoclocks::tui::app::{Action, App};
use twoclocks::tui::theme::{glyph, Theme};
use twoclocks::tui::view::plot::{fate_differences, stall_rows, watermark_stalls};

use crate::tour_common::*;
use crate::ui_common::row_text;

const SIZES: [(u16, u16); 2] = [(80, 24), (120, 40)];

/// The built-in tour on the step named `name`.
fn step(name: &str) -> App {
    let mut a = tour();
    for _ in 0..40 {
        if a.tour.as_ref().unwrap().step().name.as_deref() == Some(name) {
            return a;
        }
        act(&mut a, Action::TourNext);
    }
    panic!("no step {name}");
}

/// The events the outage scenario holds back, found from the stream alone: partition 1 of 4
/// (by key) is out from 200 s to 290 s.
fn held_independently(t: &Trace) -> Vec<usize> {
    let s = t.stream();
    s.events
        .iter()
        .enumerate()
        .filter(|(_, e)| {
            PipelineConfig::partition_for(&s.keys[e.key as usize], 4) == 1
                && (200_000.0..290_000.0).contains(&e.proc_time)
        })
        .map(|(i, _)| i)
        .collect()
}

#[test]
fn the_stall_is_bracketed_on_the_rows_the_read_model_says() {
    let mut a = step("partition");
    let stalls = watermark_stalls(a.trace());
    assert_eq!(stalls.len(), 1, "{stalls:?}");
    let s = stalls[0];
    assert!(s.ongoing);
    // It began when partition 1 fell silent (its last records' watermark carried it a little
    // past 200 s at most) and stands at the clock, as long as the stall the panels report.
    assert!((195_000.0..=205_000.0).contains(&s.from), "{s:?}");
    assert_eq!(s.until, a.trace().job().unwrap().now());
    assert_eq!(Some(s.length()), a.trace().watermark_stall());
    for (w, h) in SIZES {
        let buf = frame(&mut a, w, h);
        let area = a.areas((w, h)).unwrap().plot;
        let f = a.plot_frame(area).unwrap();
        let (top, bottom) = stall_rows(&f, s.from, s.until).unwrap();
        assert!(bottom > top, "{w}×{h}: the stall spans rows");
        for r in 0..f.inner.height {
            let y = f.inner.y + r;
            let inside = (top..=bottom).contains(&r);
            for x in [area.x, area.right() - 1] {
                let c = buf[(x, y)].symbol();
                assert_eq!(
                    c == glyph::STALL.to_string(),
                    inside,
                    "{w}×{h}: row {r} ({c}) of the stall's {top}–{bottom}"
                );
            }
        }
        let length = Duration::seconds(s.length());
        assert!(
            (top..=bottom).any(|r| row_text(&buf, area, f.inner.y + r).contains(&length)),
            "{w}×{h}: the stall's length {length} is not on its rows"
        );
    }
}

#[test]
fn the_held_back_events_are_drawn_reversed_where_they_arrived() {
    let mut a = step("idleness");
    // Close the side by side: one run, its own marks.
    act(&mut a, Action::SideBySide);
    let held = a.trace().held_back();
    let offsets: Vec<usize> = held.iter().map(|h| h.offset).collect();
    assert_eq!(offsets, held_independently(a.trace()));
    assert!(held.iter().all(|h| h.heal == 290_000.0));
    for (w, h) in SIZES {
        let buf = frame(&mut a, w, h);
        let area = a.areas((w, h)).unwrap().plot;
        let f = a.plot_frame(area).unwrap();
        let r = f.row(290_000.0).expect("the heal on the plot");
        let mut drawn = 0;
        for hb in &held {
            let e = a.trace().stream().events[hb.offset];
            let Some(c) = f.col(e.event_time) else {
                continue;
            };
            let cell = &buf[(f.inner.x + c, f.inner.y + r)];
            assert!(
                cell.modifier.contains(Modifier::REVERSED),
                "{w}×{h}: held-back event {} at column {c}: {:?}",
                hb.offset,
                cell
            );
            let fate = a.trace().fate(hb.offset).expect("taken at the heal");
            drawn += 1;
            // Its cell shows a fate's glyph, one that some held-back event there met.
            let g = cell.symbol().chars().next().unwrap();
            assert!(
                [glyph::ON_TIME, glyph::LATE, glyph::DROPPED].contains(&g),
                "{w}×{h}: {g} for {fate:?}"
            );
        }
        assert!(drawn > 10, "{w}×{h}: {drawn} held-back events on the plot");
        // Their own rows, in the outage, hold none of them: they were not there yet.
        let s = screen(&mut a, w, h);
        assert!(s.contains("held back"), "{w}×{h}: the legend says so\n{s}");
    }
}

#[test]
fn side_by_side_the_legend_counts_the_events_whose_fates_differ() {
    let mut a = step("idleness");
    let b = &a.side.as_ref().expect("side by side").b.trace();
    // An independent count: every offset both runs have taken, fates compared.
    let n = a.trace().stream().len();
    let differ: Vec<usize> = (0..n)
        .filter(|&i| match (a.trace().fate(i), b.fate(i)) {
            (Some(x), Some(y)) => x != y,
            _ => false,
        })
        .collect();
    assert!(!differ.is_empty());
    let d = fate_differences(a.trace(), b);
    assert_eq!(d.offsets, differ);
    assert_eq!(fate_differences(b, a.trace()).len(), differ.len());
    // Idleness dropped the held-back events B waited for: A drops what B keeps.
    assert!(
        d.dropped_by_a > 0 && d.dropped_by_b < d.dropped_by_a,
        "{d:?}"
    );
    let said = format!("{} differ", differ.len());
    for (w, h) in SIZES {
        let buf = frame(&mut a, w, h);
        let areas = a.areas((w, h)).unwrap();
        let side = areas.side.expect("two plots");
        for (name, area) in [("A", areas.plot), ("B", side.b_plot)] {
            let legend = row_text(&buf, area, area.bottom() - 1);
            assert!(legend.contains(&said), "{w}×{h} {name}: {legend}");
            // Marked on the plot: reversed cells in the policy colour.
            let theme = Theme::dark();
            let marked = (area.y..area.bottom() - 1)
                .flat_map(|y| (area.x + 1..area.right() - 1).map(move |x| (x, y)))
                .filter(|&p| {
                    let c = &buf[p];
                    c.modifier.contains(Modifier::REVERSED) && Some(c.fg) == theme.policy.fg
                })
                .count();
            assert!(marked > 0, "{w}×{h} {name}: no differing event marked");
        }
    }
}
