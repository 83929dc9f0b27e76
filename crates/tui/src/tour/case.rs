//! A step's case: the conditions over the figures and dials on screen that its caption's
//! claim needs (`overcount > 0`: the crash step's replay put the additive sink over; `idle !=
//! off`: the idleness step's A idles). Checked when the tour is read (an unknown name, an
//! operator or a bound that is not one is an error), evaluated whenever the caption is drawn:
//! once the room has turned the dials out of the case, the step says so instead of a claim
//! the screen no longer bears out.

use super::placeholders::{self, Quoted};

/// How a condition compares a figure with its bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `<`
    Less,
    /// `<=`
    AtMost,
    /// `>`
    More,
    /// `>=`
    AtLeast,
    /// `=`
    Equal,
    /// `!=`
    Unequal,
}

/// The operators as a case writes them, longest first (so `<=` is not read as `<`).
const OPS: [(&str, Op); 6] = [
    ("<=", Op::AtMost),
    (">=", Op::AtLeast),
    ("!=", Op::Unequal),
    ("<", Op::Less),
    (">", Op::More),
    ("=", Op::Equal),
];

/// One condition of a step's case: `NAME OP BOUND`, NAME a figure a caption may quote (a
/// placeholder's name), BOUND a number (seconds for a time, as captions write them) or `off`
/// (a dial turned off, or a figure not known: what a caption writes as `off` or `—`).
#[derive(Debug, Clone, PartialEq)]
pub struct Condition {
    /// The figure's name.
    pub name: &'static str,
    /// The comparison.
    pub op: Op,
    /// The bound; None: `off`.
    pub bound: Option<f64>,
    /// As written.
    pub written: String,
}

impl Condition {
    /// Reads `NAME OP BOUND`; an unknown name, a missing operator or a bound that is neither a
    /// number nor `off` is an error saying so.
    pub fn parse(s: &str) -> Result<Condition, String> {
        let Some((at, (op_text, op))) = OPS
            .iter()
            .filter_map(|o| s.find(o.0).map(|i| (i, *o)))
            .min_by_key(|(i, o)| (*i, std::cmp::Reverse(o.0.len())))
        else {
            return Err(format!(
                "{s:?} is not a condition: NAME OP BOUND, OP one of < <= > >= = !=, e.g. \"overcount > 0\""
            ));
        };
        let name = s[..at].trim();
        let bound = s[at + op_text.len()..].trim();
        let Some(name) = placeholders::numbers().find(|n| *n == name) else {
            let known: Vec<&str> = placeholders::numbers().collect();
            return Err(format!(
                "{name:?} is not a figure a case can weigh: one of {}",
                known.join(", ")
            ));
        };
        let bound = match bound {
            "off" => None,
            b => Some(
                b.parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite())
                    .ok_or_else(|| {
                        format!(
                            "{b:?} in {s:?} is not a bound: a number (seconds for a time) or off"
                        )
                    })?,
            ),
        };
        if bound.is_none() && !matches!(op, Op::Equal | Op::Unequal) {
            return Err(format!("{s:?}: off is only = or != to a figure"));
        }
        Ok(Condition {
            name,
            op,
            bound,
            written: s.trim().to_string(),
        })
    }

    /// Whether the condition holds of what the screen quotes. A figure that is off or not
    /// known is only `= off`; it is neither more nor less than a number.
    pub fn holds(&self, q: &Quoted) -> bool {
        let value = placeholders::number(self.name, q);
        match (value, self.bound) {
            (None, None) => self.op == Op::Equal,
            (Some(_), None) | (None, Some(_)) => self.op == Op::Unequal,
            (Some(v), Some(b)) => match self.op {
                Op::Less => v < b,
                Op::AtMost => v <= b,
                Op::More => v > b,
                Op::AtLeast => v >= b,
                Op::Equal => v == b,
                Op::Unequal => v != b,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_read_as_a_tour_writes_them_and_faults_are_named() {
        let c = Condition::parse("overcount > 0").unwrap();
        assert_eq!((c.name, c.op, c.bound), ("overcount", Op::More, Some(0.0)));
        let c = Condition::parse("idle != off").unwrap();
        assert_eq!((c.name, c.op, c.bound), ("idle", Op::Unequal, None));
        let c = Condition::parse("grace<=20").unwrap();
        assert_eq!((c.name, c.op, c.bound), ("grace", Op::AtMost, Some(20.0)));
        assert!(Condition::parse("overcounts > 0")
            .unwrap_err()
            .contains("\"overcounts\""));
        assert!(Condition::parse("overcount 0").is_err());
        assert!(Condition::parse("overcount > lots").is_err());
        assert!(Condition::parse("idle > off").is_err());
        assert!(Condition::parse("event = 1").is_err(), "not a figure");
    }
}
