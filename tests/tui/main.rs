//! The terminal UI's tests, one test binary for all of them: updates by action against the
//! engine, the screens drawn at every size (insta snapshots in `tests/snapshots`), layout,
//! overlays, themes and glyphs, the presenter's tools, side by side, sessions and TTLs on
//! screen, the plot's marks, and the tour with its predict steps. `cargo test --test tui`
//! runs them, and `cargo test --test tui tui_render::` one file's.

// Used in part: the tour's tests run the binary for its errors.
#[allow(dead_code)]
#[path = "../cli_common/mod.rs"]
mod cli_common;
#[path = "../kept_snapshots/mod.rs"]
mod kept_snapshots;
#[path = "../tour_common/mod.rs"]
mod tour_common;
#[path = "../ui_common/mod.rs"]
mod ui_common;

mod glyphs;
mod plot_density;
mod plot_outage;
mod presenter;
mod readme_keys;
mod theme_contrast;
mod tour;
mod tour_dials;
mod tour_files;
mod tour_predict;
mod tour_replay;
mod tour_screens;
mod tour_vote;
mod transcript_player;
mod tui_advised;
mod tui_layout;
mod tui_overlays;
mod tui_render;
mod tui_render_lanes;
mod tui_render_presenter;
mod tui_sessions;
mod tui_side;
mod tui_update;
mod tui_update_job;
mod tui_update_partition;
mod tui_wall_clock;
