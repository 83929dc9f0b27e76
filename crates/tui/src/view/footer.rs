//! The footer: the scenario, a recording playing back (`▶ replay demo.rec 0:41 / 2:10`, for
//! the whole replay, and then only `q` offered: the recording has the other keys), where a
//! live input stands (`live`, `live · paused`, `input ended`, or why it stopped), a predict
//! step's vote (`vote 1 on time · 2 late · 3 dropped`), a mark while the engine re-runs for
//! new dials (the panels show the last result until then), for a moment why the last key did
//! nothing, and the key hints from the one keymap table: only keys that act now (none that
//! waits for the room's vote).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use crate::action::Action;
use crate::app::App;
use crate::keymap::footer_hints;

/// Draws the footer into `area`: the scenario, a re-running mark, the status message, then the
/// key hints that fit (only Esc while the help is open).
pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let t = &app.theme;
    let mut spans = vec![Span::styled(format!(" {} ", app.scenario().name), t.dim)];
    if let Some(live) = &app.live {
        let (text, style) = match (&live.error, app.input_open()) {
            (Some(why), _) => {
                let room = usize::from(area.width).saturating_sub(40);
                (format!("input stopped: {} ", fit(why, room)), t.dropped)
            }
            (None, false) => ("input ended ".to_string(), t.title),
            (None, true) if app.playing => ("● live ".to_string(), t.on_time),
            (None, true) => ("live · paused: Space catches up ".to_string(), t.warn),
        };
        spans.push(Span::styled(text, style));
    }
    if let Some(r) = &app.replay {
        // The file's name gives way to a message (`the replay has the keys; q quits`), which
        // stands whole at 80 columns: down to its last 8 characters.
        let used: usize = spans.iter().map(|s| s.width()).sum();
        let said = app
            .status
            .as_ref()
            .map_or(0, |s| s.text.chars().count() + 4);
        let fixed = used + "▶ replay ".len() + r.clock().chars().count() + 1 + said;
        let file = tail(
            &r.file,
            usize::from(area.width).saturating_sub(fixed).clamp(8, 24),
        );
        spans.push(Span::styled(
            format!("▶ replay {file} {} ", r.clock()),
            t.title,
        ));
    }
    if app.steered.rerunning() {
        spans.push(Span::styled("re-running… ", t.warn));
    }
    // A replay casts the votes itself: its keys are not offered.
    if let Some(keys) = app.vote_keys().filter(|_| app.replay.is_none()) {
        spans.push(Span::styled("vote ", t.title));
        spans.push(Span::styled(format!("{keys} "), t.key));
        spans.push(Span::styled("│ ", t.dim));
    }
    if let Some(s) = &app.status {
        let used: usize = spans.iter().map(|s| s.width()).sum();
        let room = usize::from(area.width).saturating_sub(used + 3);
        spans.push(Span::styled(format!("▸ {} ", fit(&s.text, room)), t.warn));
        spans.push(Span::raw(" "));
    }
    if app.overlay.is_some() {
        spans.push(Span::styled("Esc", t.key));
        spans.push(Span::styled(" close ", t.text));
    } else {
        let mut hints: Vec<(&str, &str)> = footer_hints(
            app.trace().pipeline_config().is_some(),
            app.selection.inspected.is_some(),
            app.tour.is_some(),
            app.voting().is_some(),
        )
        .filter(|(a, _, _)| offered(app, *a))
        .map(|(_, k, h)| (k, h))
        .collect();
        let width = |h: &[(&str, &str)]| -> usize {
            h.iter()
                .map(|(k, d)| {
                    k.chars().count() + usize::from(!k.is_empty()) + d.chars().count() + 2
                })
                .sum::<usize>()
                // No gap after the last.
                .saturating_sub(2)
        };
        let used: usize = spans.iter().map(|s| s.width()).sum();
        let room = usize::from(area.width).saturating_sub(used);
        // Drop hints from the end, keeping help and quit, until the rest fits.
        while width(&hints) > room && hints.len() > 2 {
            hints.remove(hints.len() - 3);
        }
        // Beside a message, only hints that fit.
        while app.status.is_some() && width(&hints) > room && !hints.is_empty() {
            hints.remove(0);
        }
        for (keys, hint) in hints {
            if !keys.is_empty() {
                spans.push(Span::styled(keys, t.key));
                spans.push(Span::raw(" "));
            }
            spans.push(Span::styled(hint, t.text));
            spans.push(Span::raw("  "));
        }
    }
    Paragraph::new(Line::from(spans)).render(area, buf);
}

/// Whether the footer offers `a`'s key: while a recording plays, quitting alone (the
/// recording has the other keys); while the room votes, none that waits for the vote.
fn offered(app: &App, a: Action) -> bool {
    if app.replay.is_some() {
        return a == Action::Quit;
    }
    !app.waits_for_vote(a)
}

/// `text` in at most `room` columns, its end kept (a file's name is at its end).
fn tail(text: &str, room: usize) -> String {
    let n = text.chars().count();
    if n <= room {
        return text.to_string();
    }
    let kept: String = text.chars().skip(n + 1 - room.max(1)).collect();
    format!("…{kept}")
}

/// `text` in at most `room` columns, cut after a whole word with "…" if it must be.
fn fit(text: &str, room: usize) -> String {
    if text.chars().count() <= room {
        return text.to_string();
    }
    let mut out = String::new();
    for word in text.split(' ') {
        let sep = usize::from(!out.is_empty());
        if out.chars().count() + sep + word.chars().count() + 1 > room {
            break;
        }
        if sep == 1 {
            out.push(' ');
        }
        out.push_str(word);
    }
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::fit;

    #[test]
    fn a_long_message_is_cut_after_a_whole_word() {
        assert_eq!(fit("nothing to close", 40), "nothing to close");
        assert_eq!(fit("nothing to close", 12), "nothing to…");
        assert_eq!(fit("nothing", 3), "…");
        assert_eq!(fit("", 0), "");
    }
}
