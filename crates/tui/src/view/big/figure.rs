//! The figures big numbers (`b`) can show, by the names a caller gives them (a tour's step
//! lists them in its `big` field): the names parsed, the default set. Nothing here draws.

/// A counter the big numbers can show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Figure {
    /// Events on time so far.
    OnTime,
    /// Events late within grace so far.
    Late,
    /// Events dropped so far.
    Dropped,
    /// Panes emitted so far.
    Panes,
    /// The watermark now.
    Watermark,
    /// Processing time minus the watermark, now.
    Gap,
    /// Events arrived so far.
    Arrived,
    /// Cells wrong: a job's worst sink so far, a single run's windows at the end.
    Wrong,
    /// Operator state now.
    State,
    /// A job's crashes so far.
    Crashes,
}

impl Figure {
    /// Every figure with the name a caller gives it.
    pub const NAMES: [(&'static str, Figure); 10] = [
        ("on_time", Figure::OnTime),
        ("late", Figure::Late),
        ("dropped", Figure::Dropped),
        ("panes", Figure::Panes),
        ("watermark", Figure::Watermark),
        ("gap", Figure::Gap),
        ("arrived", Figure::Arrived),
        ("wrong", Figure::Wrong),
        ("state", Figure::State),
        ("crashes", Figure::Crashes),
    ];

    /// The figure of a name (`on_time`, `late`, … as in [`Figure::NAMES`]).
    pub fn parse(name: &str) -> Option<Figure> {
        Figure::NAMES
            .iter()
            .find(|(n, _)| *n == name.trim())
            .map(|&(_, f)| f)
    }

    /// The figures of a list of names, or the first name that is none.
    pub fn parse_all(names: &[String]) -> Result<Vec<Figure>, String> {
        names
            .iter()
            .map(|n| Figure::parse(n).ok_or_else(|| n.clone()))
            .collect()
    }

    /// The default set: on time, late, dropped, panes; a job's also wrong cells and crashes.
    pub fn defaults(job: bool) -> Vec<Figure> {
        let mut v = vec![Figure::OnTime, Figure::Late, Figure::Dropped, Figure::Panes];
        if job {
            v.extend([Figure::Wrong, Figure::Crashes]);
        }
        v
    }

    /// The figures to show for `names`: those it names (unknown names left out), or the
    /// default set when it names none.
    pub fn chosen(names: &[String], job: bool) -> Vec<Figure> {
        let v: Vec<Figure> = names.iter().filter_map(|n| Figure::parse(n)).collect();
        if v.is_empty() {
            Figure::defaults(job)
        } else {
            v
        }
    }
}
