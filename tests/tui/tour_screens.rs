//! What each step of the built-in tour shows, at 80×24 and 120×40: the panels a step is about
//! (the ones it names, the one it highlights) have a place on screen, the title is whole, a
//! step that selects a window has the window and its panes on the plot, and the crash step
//! shows the crash and the replay on the plot, after Esc too.

use twoclocks::engine::window::CellId;
use twoclocks::tui::app::{Action, App};
use twoclocks::tui::tour::Tour;
use twoclocks::tui::view;

use twoclocks::tui::theme::glyph;

use crate::kept_snapshots::assert_snapshot;
use crate::tour_common::{act, frame, screen, tour, tour_from};

const SIZES: [(u16, u16); 2] = [(80, 24), (120, 40)];

/// Every step, the app on it.
fn each_step(mut f: impl FnMut(&mut App, usize)) {
    let mut a = tour();
    let n = a.tour.as_ref().unwrap().steps.len();
    for k in 0..n {
        f(&mut a, k);
        act(&mut a, Action::TourNext);
    }
}

#[test]
fn every_step_has_room_for_the_panels_it_is_about_and_a_whole_title() {
    each_step(|a, k| {
        for (w, h) in SIZES {
            let s = screen(a, w, h);
            let areas = a.areas((w, h)).unwrap();
            let shown: Vec<_> = areas.panels().iter().map(|(p, _)| *p).collect();
            for needed in a.tour_needs() {
                assert!(
                    shown.contains(&needed),
                    "step {} at {w}×{h}: no room for {needed}\n{s}",
                    k + 1
                );
            }
            let title = a.tour.as_ref().unwrap().step().title.clone();
            let top = s.lines().next().unwrap();
            assert!(
                top.contains(&title),
                "step {} at {w}×{h}: the title is cut: {top}",
                k + 1
            );
        }
    });
}

#[test]
fn a_step_that_selects_a_window_shows_it_and_its_panes_on_the_plot() {
    let mut checked = 0;
    each_step(|a, k| {
        if a.tour.as_ref().unwrap().step().window.is_none() {
            return;
        }
        let Some(window) = a.selected_window() else {
            return;
        };
        let key = a.selection.key.expect("a key selected");
        let cell = CellId { window, key };
        let wf = a.dials().window;
        for (w, h) in SIZES {
            let s = screen(a, w, h);
            let areas = a.areas((w, h)).unwrap();
            let f = a.plot_frame(areas.plot).unwrap();
            assert!(
                f.x.0 <= wf.start(window) && wf.end(window) <= f.x.1,
                "step {} at {w}×{h}: window {}–{} ms not in the plot's {:?}\n{s}",
                k + 1,
                wf.start(window),
                wf.end(window),
                f.x
            );
            let panes: Vec<f64> = a.trace().panes_of(cell).map(|p| p.proc_time).collect();
            assert!(!panes.is_empty(), "step {}: no pane to show", k + 1);
            for t in panes {
                assert!(
                    f.y.0 <= t && t <= f.y.1,
                    "step {} at {w}×{h}: a pane at {t} ms is off the plot's {:?}\n{s}",
                    k + 1,
                    f.y
                );
            }
        }
        checked += 1;
    });
    assert!(checked >= 2, "only {checked} steps select a window");
}

#[test]
fn the_crash_step_shows_the_crash_and_the_replay_after_esc_too() {
    let mut seen = false;
    each_step(|a, k| {
        if a.tour.as_ref().unwrap().step().crash_at.is_empty() {
            return;
        }
        seen = true;
        for (w, h) in SIZES {
            let s = screen(a, w, h);
            let areas = a.areas((w, h)).unwrap();
            let plot = areas.plot;
            let rows: Vec<&str> = s.lines().collect();
            let plot_text: String = rows[usize::from(plot.y)..usize::from(plot.bottom())]
                .iter()
                .map(|r| {
                    r.chars()
                        .skip(usize::from(plot.x))
                        .take(usize::from(plot.width))
                })
                .map(|c| c.collect::<String>() + "\n")
                .collect();
            assert!(
                plot_text.contains('↯'),
                "step {} at {w}×{h}: no crash mark\n{s}",
                k + 1
            );
            assert!(
                plot_text.contains('↺'),
                "step {} at {w}×{h}: no replayed event\n{s}",
                k + 1
            );
        }
        // The report closed, the plot still says a crash happened.
        act(a, Action::Close);
        for (w, h) in SIZES {
            let s = screen(a, w, h);
            assert!(!s.contains("Esc closes"), "{s}");
            assert!(s.contains('↯'), "step {} at {w}×{h} after Esc:\n{s}", k + 1);
        }
        act(a, Action::TourReset);
    });
    assert!(seen, "the tour has a crash step");
}

#[test]
fn the_gap_history_ends_at_the_gap_the_panel_states() {
    // The watermark step with the lag turned down to nothing: the gap now is the clock run on
    // since the last arrival, and the history's scale and last bar include it.
    let mut a = tour();
    act(&mut a, Action::TourNext);
    act(&mut a, Action::TourNext);
    for _ in 0..20 {
        act(&mut a, Action::LagDown);
    }
    let gap = (a.playhead().now - a.trace().watermark()) / 1000.0;
    assert!(
        gap >= 0.5,
        "the step's playhead is past its last arrival: {gap}"
    );
    let history = view::watermark::gap_history(&a, 30);
    assert_eq!(*history.last().unwrap(), gap.round() as u64);
    let s = screen(&mut a, 120, 40);
    let top = view::watermark::gap_scale(history.iter().copied().max().unwrap());
    assert!(top as f64 >= gap, "{s}");
    assert!(s.contains(&format!("0–{top}s")), "{s}");
}

#[test]
fn the_first_steps_keep_back_what_is_not_taught_yet() {
    let mut a = tour();
    // The screen above the footer (whose key hints name every key).
    let above = |a: &mut App, w: u16, h: u16| {
        let s = screen(a, w, h);
        s.lines()
            .take(usize::from(h) - 1)
            .collect::<Vec<_>>()
            .join("\n")
    };
    // Step 1: events on two clocks, nothing else: no watermark, no fates, no windows.
    for (w, h) in SIZES {
        let s = above(&mut a, w, h);
        assert!(s.contains("event: "), "{s}");
        // (A panel kept back says what it is and that it comes later.)
        for hidden in ["━ w", "late", "dropped", "%", "oracle"] {
            assert!(
                !s.contains(hidden),
                "step 1 at {w}×{h} shows {hidden:?}\n{s}"
            );
        }
    }
    // Step 2: windows and their counts, still no watermark nor oracle.
    act(&mut a, Action::TourNext);
    for (w, h) in SIZES {
        let s = above(&mut a, w, h);
        assert!(s.contains("count"), "{s}");
        for hidden in ["━ w", "%", "oracle", "Δ", "final", "fired"] {
            assert!(
                !s.contains(hidden),
                "step 2 at {w}×{h} shows {hidden:?}\n{s}"
            );
        }
    }
    // Step 3 teaches the watermark; step 4 the fates, and the oracle with them.
    act(&mut a, Action::TourNext);
    let s = above(&mut a, 120, 40);
    assert!(s.contains("━ w") && !s.contains('%'), "{s}");
    act(&mut a, Action::TourNext);
    let s = above(&mut a, 120, 40);
    assert!(
        s.contains("late") && s.contains('%') && s.contains("oracle"),
        "{s}"
    );
}

#[test]
fn a_step_can_only_hide_what_the_tour_knows() {
    let text = "[[step]]\ntitle = \"t\"\ncaption = \"c\"\nhide = [\"watermark\", \"clock\"]\n";
    let e = Tour::parse("t.toml", text).unwrap_err().to_string();
    assert!(
        e.contains("t.toml") && e.contains("line 4") && e.contains("hide") && e.contains("clock"),
        "{e}"
    );
}

/// Every step of the built-in tour pinned at both sizes, by its name (a step added between
/// two leaves the others' snapshots as they are): a change to what a step shows is a reviewed
/// change (`cargo insta review`, or `INSTA_UPDATE=always` and the diff).
#[test]
fn snapshot_every_step_at_both_sizes() {
    each_step(|a, k| {
        let name = a.tour.as_ref().unwrap().step().name.clone();
        let name = name.unwrap_or_else(|| format!("step{:02}", k + 1));
        for (w, h) in SIZES {
            let s = screen(a, w, h);
            assert_snapshot!(format!("{name}_{w}x{h}"), s);
        }
    });
}

#[test]
fn one_m_shows_the_whole_stream_from_every_steps_plot_and_one_more_brings_the_step_back() {
    let mut magnified = 0;
    each_step(|a, k| {
        let frame = |a: &App| a.plot_frame(a.areas((120, 40)).unwrap().plot).unwrap();
        let step = frame(a);
        let whole = a.scenario().oracle.proc_time;
        act(a, Action::Magnify);
        if a.magnify.is_some() {
            // The step showed the whole stream: `m` magnifies it.
            act(a, Action::Magnify);
            assert_eq!(frame(a), step, "step {}: m m is the step again", k + 1);
            return;
        }
        magnified += 1;
        assert_eq!(
            frame(a).y,
            whole,
            "step {}: m shows the whole stream",
            k + 1
        );
        act(a, Action::Magnify);
        assert_eq!(frame(a), step, "step {}: m m is the step again", k + 1);
    });
    assert!(magnified >= 5, "only {magnified} steps magnify");
}

/// The plot's frame at `w` × `h`.
fn plot_at(a: &App, w: u16, h: u16) -> twoclocks::tui::geometry::plot::PlotFrame {
    a.plot_frame(a.areas((w, h)).unwrap().plot).unwrap()
}

#[test]
fn the_first_step_draws_every_event_its_caption_counts() {
    let mut a = tour();
    let caption = a.tour.as_ref().unwrap().step().caption.clone();
    assert!(caption.contains("{arrived}"), "{caption}");
    let arrived = a.figures().arrived;
    assert!(arrived > 30, "{arrived}");
    for (w, h) in SIZES {
        let f = plot_at(&a, w, h);
        let buf = frame(&mut a, w, h);
        let s = screen(&mut a, w, h);
        let events = &a.scenario().stream.events[..a.playhead().arrived];
        assert_eq!(events.len(), arrived);
        let mut drawn = 0;
        for e in events {
            let (Some(c), Some(r)) = (f.col(e.event_time), f.row(e.proc_time)) else {
                continue;
            };
            let g = buf[(f.inner.x + c, f.inner.y + r)]
                .symbol()
                .chars()
                .next()
                .unwrap();
            drawn += usize::from(glyph::ink(g).is_some());
        }
        assert_eq!(
            drawn, arrived,
            "at {w}×{h}: {drawn} of the {arrived} events the caption counts are drawn\n{s}"
        );
    }
}

#[test]
fn the_selected_window_moves_on_the_plot_at_the_steps_scale_and_the_view_follows_it() {
    let mut a = tour_from("windowing");
    for (w, h) in SIZES {
        let area = a.areas((w, h)).unwrap().plot;
        let scale = a.run().plot_scale_in(area);
        assert!(scale.is_some(), "the step magnifies");
        for press in [
            Action::WindowNext,
            Action::WindowNext,
            Action::WindowNext,
            Action::WindowPrev,
        ] {
            act(&mut a, press);
            let s = screen(&mut a, w, h);
            let window = a.selected_window().unwrap();
            let f = plot_at(&a, w, h);
            let wf = a.dials().window;
            assert_eq!(
                a.run().plot_scale_in(area),
                scale,
                "at {w}×{h} after {press:?}\n{s}"
            );
            assert!(
                f.x.0 <= wf.start(window) && wf.end(window) <= f.x.1,
                "at {w}×{h}: the selected window {}–{} ms is off the plot's {:?}\n{s}",
                wf.start(window),
                wf.end(window),
                f.x
            );
        }
        act(&mut a, Action::TourReset);
    }
}

#[test]
fn each_magnified_steps_plot_puts_its_subject_across_it() {
    let mut checked = 0;
    each_step(|a, k| {
        // The steps whose subject is a window, a crash, or the events the caption counts.
        let step = a.tour.as_ref().unwrap().step();
        let crashes = !step.crash_at.is_empty();
        let subject = step.window.is_some() || crashes || step.caption.contains("{arrived}");
        if !subject || a.magnify.is_none() {
            return;
        }
        let window = step.window.and_then(|_| a.selected_window());
        let check = |a: &mut App, when: &str| {
            for (w, h) in SIZES {
                let s = screen(a, w, h);
                let f = plot_at(a, w, h);
                let now = a.playhead().now;
                // Now near the top: the rows are not spent on the time to come.
                let above = (f.y.1 - now) / (f.y.1 - f.y.0);
                assert!(
                    above <= 0.2,
                    "step {}{when} at {w}×{h}: {:.0} % of the rows are after now\n{s}",
                    k + 1,
                    100.0 * above
                );
                let wide = |from: f64, to: f64| (to - from) / (f.x.1 - f.x.0);
                match window {
                    Some(win) => {
                        let wf = a.dials().window;
                        let (from, to) = (wf.start(win), wf.end(win));
                        assert!(
                            f.x.0 <= from && to <= f.x.1 && wide(from, to) >= 0.25,
                            "step {}{when} at {w}×{h}: window {from}–{to} ms across {:?}\n{s}",
                            k + 1,
                            f.x
                        );
                        assert!(
                            f.y.0 <= from + 0.05 * (now - from),
                            "step {} at {w}×{h}: {:?}\n{s}",
                            k + 1,
                            f.y
                        );
                    }
                    None => {
                        // The whole run so far: every event arrived, the crash and its
                        // replay.
                        let events = &a.scenario().stream.events[..a.playhead().arrived];
                        for e in events {
                            assert!(
                                f.col(e.event_time).is_some() && f.row(e.proc_time).is_some(),
                                "step {}{when} at {w}×{h}: an event at {} ms arriving at {} ms is off {f:?}\n{s}",
                                k + 1,
                                e.event_time,
                                e.proc_time
                            );
                        }
                        let last = events.iter().map(|e| e.event_time).fold(0.0, f64::max);
                        assert!(
                            wide(f.x.0, last) >= 0.5,
                            "step {}{when} at {w}×{h}: {f:?}\n{s}",
                            k + 1
                        );
                        if crashes {
                            assert!(
                                s.contains('↯') && s.contains('↺'),
                                "step {}{when}\n{s}",
                                k + 1
                            );
                        }
                    }
                }
            }
        };
        check(a, "");
        if crashes {
            act(a, Action::Close);
            check(a, " after Esc");
            act(a, Action::TourReset);
        }
        checked += 1;
    });
    assert!(checked >= 5, "only {checked} steps checked");
}

/// A lone on-time event never gets more ink than it has alone, the legend's `•`, at any step
/// and size; on the lesson's sparse stream it is that dot at every step (a dense stream may
/// draw it lighter, `·`, its ink in proportion to the crowded cells').
#[test]
fn a_lone_on_time_event_is_at_most_a_dot_and_on_the_lesson_always_one() {
    let dot = glyph::ON_TIME_RAMP[1];
    assert_eq!(dot.0, glyph::ON_TIME);
    let mut seen = 0;
    each_step(|a, k| {
        if a.trace().pipeline_config().is_some() {
            return;
        }
        let lesson = a.scenario().name == "lesson";
        for (w, h) in SIZES {
            let f = plot_at(a, w, h);
            let buf = frame(a, w, h);
            let s = screen(a, w, h);
            let events = &a.scenario().stream.events[..a.playhead().arrived];
            let mut cells = std::collections::HashMap::<(u16, u16), usize>::new();
            for e in events {
                if let (Some(c), Some(r)) = (f.col(e.event_time), f.row(e.proc_time)) {
                    *cells.entry((c, r)).or_default() += 1;
                }
            }
            for ((c, r), n) in cells {
                let g = buf[(f.inner.x + c, f.inner.y + r)]
                    .symbol()
                    .chars()
                    .next()
                    .unwrap();
                let Some(&(_, ink)) = glyph::ON_TIME_RAMP.iter().find(|&&(x, _)| x == g) else {
                    continue;
                };
                if n != 1 {
                    continue;
                }
                seen += 1;
                assert!(
                    if lesson { g == dot.0 } else { ink <= dot.1 },
                    "step {} at {w}×{h}: a lone event at column {c}, row {r} drawn {g}\n{s}",
                    k + 1
                );
            }
        }
    });
    assert!(seen > 100, "only {seen} lone events seen");
}

#[test]
fn the_late_data_step_draws_every_late_event_its_caption_counts() {
    let mut a = tour_from("late-data");
    let caption = a.tour.as_ref().unwrap().step().caption.clone();
    assert!(caption.contains("{late}"), "{caption}");
    let late = a.figures().late;
    assert!(late > 0);
    for (w, h) in SIZES {
        let f = plot_at(&a, w, h);
        let buf = frame(&mut a, w, h);
        let s = screen(&mut a, w, h);
        let mut cells = std::collections::HashSet::new();
        for x in crate::ui_common::timeline(&a).exceptions() {
            if x.fate != twoclocks::engine::Fate::Late {
                continue;
            }
            let (c, r) = (
                f.col(x.event.event_time).unwrap(),
                f.row(x.event.proc_time).unwrap(),
            );
            let g = buf[(f.inner.x + c, f.inner.y + r)]
                .symbol()
                .chars()
                .next()
                .unwrap();
            assert!(
                glyph::LATE_RAMP.iter().any(|&(l, _)| l == g),
                "at {w}×{h}: a late event at {} ms arriving at {} ms is drawn {g:?}\n{s}",
                x.event.event_time,
                x.event.proc_time
            );
            cells.insert((c, r));
        }
        let marks = (f.inner.top()..f.inner.bottom())
            .flat_map(|y| (f.inner.left()..f.inner.right()).map(move |x| (x, y)))
            .filter(|&p| {
                let g = buf[p].symbol().chars().next().unwrap();
                glyph::LATE_RAMP.iter().any(|&(l, _)| l == g)
            })
            .count();
        assert_eq!(marks, cells.len(), "at {w}×{h}\n{s}");
        println!("late-data at {w}×{h}: {late} late, in {marks} marks");
    }
}

/// The processing-time axis's marks (checkpoints ╾, crashes ↯, TTL expirations ⊘) stay
/// visible: its labels yield to them.
#[test]
fn axis_labels_never_cover_the_axis_marks() {
    use twoclocks::tui::geometry::plot::Y_LABELS;
    let mut marks = 0;
    each_step(|a, k| {
        // The crash report, drawn over the plot, closed.
        let crashes = !a.tour.as_ref().unwrap().step().crash_at.is_empty();
        if crashes {
            act(a, Action::Close);
        }
        for (w, h) in SIZES {
            let f = plot_at(a, w, h);
            let buf = frame(a, w, h);
            let s = screen(a, w, h);
            let lx = f.inner.x - Y_LABELS;
            let at = |x: u16, r: u16| buf[(x, f.inner.y + r)].symbol().chars().next().unwrap();
            let now_row = f.row(a.playhead().now);
            let mut check = |x: u16, t: f64, want: &[char]| {
                if let Some(r) = f.row(t) {
                    marks += 1;
                    let g = at(x, r);
                    assert!(
                        want.contains(&g) || (now_row == Some(r) && g == '▶'),
                        "step {} at {w}×{h}: the axis mark at {t} ms (row {r}) is covered: {g:?}\n{s}",
                        k + 1
                    );
                }
            };
            for ck in a.trace().checkpoints() {
                check(lx + 5, ck.time, &[glyph::CHECKPOINT]);
            }
            for c in a.trace().crashes() {
                check(lx + 4, c.time, &[glyph::CRASH]);
            }
            for x in a.trace().expirations() {
                check(lx + 4, x.proc_time, &['⊘', glyph::CRASH]);
            }
        }
        if crashes {
            act(a, Action::TourReset);
        }
    });
    assert!(marks > 50, "only {marks} axis marks seen");
}
