//! A tour's predict step on the UI's state: the question posed (the engine's
//! [`predict::ask`]; a fate question with the playhead held just before its event arrives),
//! the keys that
//! would move the run refused while the room votes, and the vote (1, 2 or 3) revealing the
//! answer: the playhead on to it, the event inspected (its inequality on the plot) or the
//! window that fired selected. Until the vote, a pane question's window shows `?` for its
//! value and oracle.

use crate::lesson::predict::{self, Ask, Prediction, Question};
use twoclocks_engine::CellId;

use super::{Action, App};
use crate::action::Waits;

/// What the footer says when a dial is turned while the room votes (the dials panel's title
/// says it too): the dials are held, not dead.
pub const DIALS_HELD: &str = "the dials wait for the vote";

impl App {
    /// Poses `ask` at the playhead. Says so when the rest of the stream holds no such event
    /// or pane.
    pub(super) fn pose(&mut self, ask: Ask) {
        let key = matches!(ask, Ask::NextPane)
            .then_some(self.selection.key)
            .flatten();
        let Some(question) = predict::ask(
            self.dials().config(),
            &self.scenario().stream,
            &self.scenario().oracle.truth,
            self.playhead().arrived,
            ask,
            key,
        ) else {
            self.say("nothing of the kind is left to ask about: n goes on");
            return;
        };
        // A fate question is asked just before its event arrives (every event before it in,
        // none at its instant), showing the event's key and the window it falls in; a pane
        // question where the step put the playhead.
        if let Question::Fate { event, .. } = &question {
            let at = event.proc_time;
            let before = at - at.abs().max(1.0) * 1e-9;
            if before > self.playhead().now {
                self.play_to(before);
            }
            let key = event.key;
            let t = event.event_time;
            self.selection.key = Some(key);
            if let Some(w) =
                self.scenario().windows_of(Some(key)).iter().position(|w| {
                    self.dials().window.start(*w) <= t && t < self.dials().window.end(*w)
                })
            {
                self.selection.window = w;
            }
        }
        // A pane question about one window selects it (its choices name it): the windows
        // table and the pane history show it, still without the pane.
        if let Question::Pane { choices, .. } = &question {
            if let Some(c) = choices
                .first()
                .filter(|c| choices.iter().all(|o| o.cell == c.cell))
            {
                self.select_cell(c.cell.key, c.cell.window);
            }
        }
        self.prediction = Some(Prediction {
            question,
            vote: None,
        });
    }

    /// Selects `key` and, among its windows, `window`.
    fn select_cell(&mut self, key: twoclocks_engine::KeyId, window: twoclocks_engine::WindowId) {
        self.selection.key = Some(key);
        if let Some(w) = self
            .scenario()
            .windows_of(Some(key))
            .iter()
            .position(|w| *w == window)
        {
            self.selection.window = w;
        }
    }

    /// The question the room is voting on, if one is open (not yet answered).
    pub fn voting(&self) -> Option<&Question> {
        self.prediction
            .as_ref()
            .filter(|p| p.vote.is_none())
            .map(|p| &p.question)
    }

    /// Whether `a` would move the run on or change what the question is asked of: refused
    /// while the room votes (and not offered in the footer). The dials are held too: a dial
    /// turned mid-vote could change the answer under the room's hands; they are live again
    /// once it has voted. With the inspector open, ← → step through the events arrived,
    /// which moves nothing.
    pub fn waits_for_vote(&self, a: Action) -> bool {
        self.vote_refusal(a).is_some()
    }

    /// What the footer says when `a` waits for the vote, short enough to stand whole beside
    /// the vote's keys at 80 columns; None when `a` acts now.
    pub(super) fn vote_refusal(&self, a: Action) -> Option<&'static str> {
        self.voting()?;
        if matches!(a, Action::DialDown | Action::DialUp) && self.selection.inspected.is_some() {
            return None;
        }
        Some(match a.route().1? {
            Waits::Run => "the run waits for the vote",
            Waits::Job => "the job waits for the vote",
            Waits::Dials => DIALS_HELD,
        })
    }

    /// Whether the room is voting on what `cell`'s next pane carries: until it has voted, the
    /// windows table and the pane history show `?` for the cell's value, its oracle and their
    /// difference, which would otherwise give away the answer or the distractors (what the
    /// window holds now, what it holds once every event of it is in).
    pub fn voting_on(&self, cell: CellId) -> bool {
        matches!(self.voting(), Some(Question::Pane { choices, .. })
            if choices.iter().any(|c| c.cell == cell))
    }

    /// The keys that answer the open question, as the footer offers them.
    pub fn vote_keys(&self) -> Option<String> {
        let q = self.voting()?;
        Some(match q {
            Question::Fate { .. } => predict::FATES
                .iter()
                .enumerate()
                .map(|(i, f)| format!("{} {}", i + 1, predict::fate_word(*f)))
                .collect::<Vec<_>>()
                .join(" · "),
            Question::Pane { choices, .. } => (1..=choices.len())
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(" "),
        })
    }

    /// The room's vote, `i` from 0: the answer revealed. With no question open, None (the key
    /// keeps its other meaning).
    pub(super) fn vote(&mut self, i: usize) -> Option<bool> {
        let p = self.prediction.as_mut()?;
        if p.vote.is_some() {
            return Some(self.say("the room has voted: r asks again, n goes on"));
        }
        let n = p.question.choices();
        if i >= n {
            return Some(self.say(format!("this question has {n} answers: 1 to {n}")));
        }
        p.vote = Some(i);
        let question = p.question.clone();
        self.play_to(question.answered_at());
        match question {
            Question::Fate { offset, .. } => self.selection.inspected = Some(offset),
            Question::Pane { pane, arrived, .. } => {
                if arrived >= self.scenario().len() {
                    self.jump_to_end();
                }
                self.select_cell(pane.cell.key, pane.cell.window);
            }
        }
        Some(true)
    }

    /// The sentence that reveals the answer, once the room has voted: as the run now shown
    /// answers it (the same event inspected, the same window's pane), at every key press, so
    /// dials turned after the vote turn the reveal with them.
    pub fn revealed(&self) -> Option<String> {
        let p = self.prediction.as_ref()?;
        let vote = p.vote?;
        let trace = self.trace();
        let inspected = match p.question {
            Question::Fate { offset, .. } => trace.inspect(offset),
            Question::Pane { .. } => None,
        };
        let now = p.question.now(inspected, trace.panes());
        Some(p.question.reveal(vote, &self.scenario().stream, &now))
    }
}
