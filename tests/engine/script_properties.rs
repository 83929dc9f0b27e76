//! Any scripted stream ends, without a panic, under every convention: random windowing
//! strategies (fixed, sliding, session and global windows; triggers drawn from the algebra;
//! both accumulation modes; every output-time combiner) over random steps, times anywhere in
//! Beam's range of time. And in discarding mode, on windows that do not overlap, the panes
//! never carry an element more often than it was fed, and the elements no pane carried by the
//! end of time include every one dropped (the others went to windows whose trigger had
//! finished, which take nothing more).

use proptest::prelude::*;
use twoclocks::engine::script::{Action, Driver, Script, ScriptWindows, Step};
use twoclocks::engine::trigger::{Accumulation, TimestampCombiner, Trigger};
use twoclocks::engine::Conventions;

fn trigger() -> impl Strategy<Value = Trigger> {
    let leaf = prop_oneof![
        Just(Trigger::Default),
        (1u64..5).prop_map(Trigger::AfterCount),
        (0i64..50).prop_map(Trigger::AfterProcessingTime),
        Just(Trigger::Always),
        Just(Trigger::Never),
        Just(Trigger::after_watermark(None, None)),
    ];
    leaf.prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            inner.clone().prop_map(|t| Trigger::Repeatedly(Box::new(t))),
            prop::collection::vec(inner.clone(), 1..3).prop_map(Trigger::AfterAny),
            prop::collection::vec(inner.clone(), 1..3).prop_map(Trigger::AfterAll),
            prop::collection::vec(inner.clone(), 1..3).prop_map(Trigger::AfterEach),
            (inner.clone(), inner.clone())
                .prop_map(|(a, b)| Trigger::OrFinally(Box::new(a), Box::new(b))),
            (prop::option::of(inner.clone()), prop::option::of(inner))
                .prop_map(|(e, l)| Trigger::after_watermark(e, l)),
        ]
    })
}

fn windows() -> impl Strategy<Value = ScriptWindows> {
    prop_oneof![
        (1i64..30).prop_map(|n| format!("FixedWindows({n})")),
        (2i64..30, 1i64..3).prop_map(|(n, d)| format!("SlidingWindows({n}, {})", (n / d).max(1))),
        (1i64..30).prop_map(|n| format!("Sessions({n})")),
        Just("GlobalWindows".to_string()),
        Just(format!("FixedWindows({})", Script::END_OF_TIME)),
        Just(format!("Sessions({})", Script::END_OF_TIME)),
    ]
    .prop_map(|s| ScriptWindows::parse(&s).unwrap())
}

fn time() -> impl Strategy<Value = i64> {
    prop_oneof![
        8 => -20i64..120,
        1 => Just(Script::END_OF_TIME),
        1 => Just(-Script::END_OF_TIME),
    ]
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        4 => prop::collection::vec(time(), 0..4).prop_map(Action::Input),
        2 => time().prop_map(Action::Watermark),
        1 => time().prop_map(Action::Clock),
    ]
}

const RULES: [Conventions; 4] = [
    Conventions::Beam,
    Conventions::BeamPython,
    Conventions::Flink,
    Conventions::KafkaStreams,
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn any_script_ends_and_adds_up(
        windows in windows(),
        trigger in trigger(),
        discarding in any::<bool>(),
        combiner in 0usize..4,
        lateness in prop_oneof![0i64..40, Just(Script::END_OF_TIME)],
        actions in prop::collection::vec(action(), 0..12),
    ) {
        let accumulation = if discarding { Accumulation::Discarding } else { Accumulation::Accumulating };
        let combiner = [
            TimestampCombiner::EndOfWindow,
            TimestampCombiner::Earliest,
            TimestampCombiner::Latest,
            TimestampCombiner::EarliestTransformed,
        ][combiner];
        let mut script = Script::new("random");
        script.windows = windows;
        script.trigger = trigger.clone();
        script.accumulation = accumulation;
        script.combiner = combiner;
        script.allowed_lateness = lateness;
        script.steps = actions
            .iter()
            .enumerate()
            .map(|(line, action)| Step { line, action: action.clone() })
            .collect();
        for rules in RULES {
            // Shown unchecked (no expect step): it runs to its end.
            let run = script.run(rules);
            prop_assert_eq!(run.steps.len(), script.steps.len());
        }
        // Discarding under Beam Java's rules, on windows that do not overlap: every element
        // is in at most one pane; those in none include every one dropped.
        if discarding && !matches!(windows.window, twoclocks::engine::WindowFn::Sliding { .. }) {
            let mut d = Driver::new(windows, &trigger, accumulation, combiner, lateness, Conventions::Beam);
            let (mut emitted, mut fed, mut dropped) = (Vec::new(), Vec::new(), 0usize);
            for a in &actions {
                match a {
                    Action::Input(ts) => {
                        let (panes, drops) = d.input(ts);
                        fed.extend(ts.iter().copied());
                        dropped += drops.len();
                        emitted.extend(panes.into_iter().flat_map(|p| p.values));
                    }
                    Action::Watermark(t) => emitted.extend(d.advance_watermark(*t).into_iter().flat_map(|p| p.values)),
                    Action::Clock(t) => emitted.extend(d.advance_clock(*t).into_iter().flat_map(|p| p.values)),
                    _ => {}
                }
            }
            let panes = d.advance_watermark(Script::END_OF_TIME);
            emitted.extend(panes.into_iter().flat_map(|p| p.values));
            let mut left = fed.clone();
            for e in &emitted {
                let i = left.iter().position(|x| x == e);
                prop_assert!(i.is_some(), "{e} emitted more often than fed: {fed:?} → {emitted:?}");
                left.remove(i.unwrap());
            }
            // A window whose trigger finished drops what comes after it silently (closed).
            prop_assert!(left.len() >= dropped, "{left:?} left, {dropped} dropped");
        }
    }
}
