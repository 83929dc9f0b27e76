//! The frontier panel marks the point the advisor gives for the loaded data: the app computes
//! it with the sweep, and the view only draws it (a snapshot at 120×40 and 80×24, and the
//! glyph placed where the chart puts that point).

use twoclocks::engine::advice::{Choice, Request};
use twoclocks::engine::EngineConfig;
use twoclocks::tui::app::App;
use twoclocks::tui::geometry::frontier::ChartFrame;
use twoclocks::tui::scenario::Scenario;
use twoclocks::tui::theme::{glyph, Theme};
use twoclocks::tui::{app_for, Options};

use crate::kept_snapshots::assert_snapshot;
use crate::ui_common::terminal;

fn app() -> App {
    let mut a = app_for(Options {
        scenario: Scenario::classroom(),
        config: EngineConfig::fixed(20_000.0, 0.0),
        speed: 10.0,
        theme: Theme::dark(),
        play: false,
    });
    a.settle();
    a
}

#[test]
fn the_advised_point_is_the_advisors_choice_on_the_sweep() {
    let a = app();
    let f = a.frontier().flatten().expect("the fixed lag is swept");
    let cfg = EngineConfig::fixed(20_000.0, 0.0);
    let c = Choice::on_frontier(
        &a.scenario().stream,
        cfg,
        &f.points,
        Request::DEFAULT_TARGET,
    )
    .unwrap();
    assert_eq!(a.advised(), Some(&f.points[c.index()]));
}

#[test]
fn the_frontier_panel_draws_the_advised_point() {
    let mut a = app();
    let t = terminal(&mut a, 120, 40);
    let areas = a
        .areas((120, 40))
        .and_then(|x| x.frontier)
        .expect("the frontier panel shows at 120×40");
    let f = a.frontier().flatten().unwrap();
    let frame = ChartFrame::of(areas, f).unwrap();
    let advised = a.advised().copied().unwrap();
    let at = frame
        .place(&advised)
        .expect("the advised point is on the chart");
    let cell = t.backend().buffer()[at].symbol().to_string();
    // The current setting is drawn over it when they coincide.
    assert!(
        cell == glyph::ADVISED.to_string()
            || a.score().as_ref().and_then(|p| frame.place(p)) == Some(at),
        "{cell:?}"
    );
    assert_snapshot!("frontier_advised_120x40", t.backend());
    assert_snapshot!("frontier_advised_80x24", terminal(&mut a, 80, 24).backend());
}

#[test]
fn the_global_window_has_no_frontier_to_draw_and_the_panel_says_why() {
    let mut a = app_for(Options {
        scenario: Scenario::classroom(),
        config: EngineConfig {
            window: twoclocks::engine::WindowFn::global(None).unwrap(),
            ..EngineConfig::fixed(20_000.0, 0.0)
        },
        speed: 10.0,
        theme: Theme::dark(),
        play: false,
    });
    a.settle();
    let t = terminal(&mut a, 120, 40);
    let text: String = t
        .backend()
        .buffer()
        .content()
        .iter()
        .map(|c| c.symbol())
        .collect();
    assert!(text.contains("global window: it never ends"), "{text}");
    assert!(!text.contains("D dash A alert B billing"), "{text}");
    // Every point of its sweep loses nothing: the words are the whole frontier.
    let f = a.frontier().flatten().expect("the fixed lag is swept");
    assert!(f.points.iter().all(|p| p.score.events_lost == 0));
}
