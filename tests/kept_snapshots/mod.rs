//! Snapshots stay where and as their tests first wrote them: `tests/snapshots/FILE__NAME.snap`,
//! FILE the name of the test file that asserts them. In a test binary's folder insta would
//! name a module's snapshot after its whole module path (`tui__tui_render__NAME`) and keep it
//! in that folder's own `snapshots/`.

/// `insta::assert_snapshot!(NAME, VALUE)`, the snapshot kept in `tests/snapshots` as
/// `FILE__NAME.snap`, FILE the name of the test file this is written in.
macro_rules! assert_snapshot {
    ($name:expr, $($value:tt)+) => {{
        let file = module_path!().rsplit("::").next().unwrap_or_default();
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path("../snapshots");
        settings.set_prepend_module_to_snapshot(false);
        settings.bind(|| insta::assert_snapshot!(format!("{file}__{}", $name), $($value)+));
    }};
}

pub(crate) use assert_snapshot;
