//! Process invocations: an experiment measured in K fresh processes, and analysed once over all
//! of them.
//!
//! Layout and environment move results between processes (Mytkowicz et al.), so one process's
//! rounds cannot say how much a figure would move on a rerun. `kiki report` therefore runs each
//! timing experiment in K child processes (interleaved across experiments, each with its own
//! environment size and round order, each taking its share of the rounds). A child *records*
//! what every timing primitive measured, in call order; the parent then runs the same
//! experiment with every primitive *replaying* the K recordings merged (samples concatenated,
//! one block per invocation), so the experiment's own analysis sees all rounds and nothing is
//! timed twice. A replayed call checks that it times the same cases as the recorded one.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::cell::RefCell;

/// What the timing primitives of this process do.
enum Session {
    /// Measure (a plain run, K = 1).
    Live,
    /// Measure as invocation `index` of `count`, and keep every call's result.
    Record {
        index: usize,
        count: usize,
        calls: Vec<Value>,
    },
    /// Do not measure: hand out call `next` of every invocation, merged.
    Replay {
        invocations: Vec<Vec<Value>>,
        next: usize,
    },
}

// Per thread: an experiment runs, records and replays on the thread that started it (its own
// helper threads time nothing), and tests running side by side do not see each other's session.
thread_local! {
    static SESSION: RefCell<Session> = const { RefCell::new(Session::Live) };
    /// The first replay error of the session, reported by `finish_replay`.
    static REPLAY_ERROR: RefCell<Option<String>> = const { RefCell::new(None) };
}

fn with_session<R>(f: impl FnOnce(&mut Session) -> R) -> R {
    SESSION.with(|session| f(&mut session.borrow_mut()))
}

/// Notes a replayed call that failed (the primitive carries on with empty results).
pub fn replay_failed(error: String) {
    REPLAY_ERROR.with(|first| {
        first.borrow_mut().get_or_insert(error);
    });
}

/// Starts recording as invocation `index` of `count`.
pub fn start_recording(index: usize, count: usize) {
    with_session(|session| {
        *session = Session::Record {
            index,
            count: count.max(1),
            calls: Vec::new(),
        }
    });
}

/// Stops recording and returns what was recorded (empty when not recording).
pub fn finish_recording() -> Vec<Value> {
    match with_session(|session| std::mem::replace(session, Session::Live)) {
        Session::Record { calls, .. } => calls,
        _ => Vec::new(),
    }
}

/// Starts replaying the recordings of every invocation.
pub fn start_replay(invocations: Vec<Vec<Value>>) {
    REPLAY_ERROR.with(|first| *first.borrow_mut() = None);
    with_session(|session| {
        *session = Session::Replay {
            invocations,
            next: 0,
        }
    });
}

/// Stops replaying; `Err` when a replayed call failed or the experiment made fewer calls than
/// were recorded.
pub fn finish_replay() -> Result<(), String> {
    let session = with_session(|session| std::mem::replace(session, Session::Live));
    let error = REPLAY_ERROR.with(|first| first.borrow_mut().take());
    match (session, error) {
        (Session::Replay { .. }, Some(error)) => Err(error),
        (Session::Replay { invocations, next }, None) => {
            let recorded = invocations.first().map_or(0, Vec::len);
            if next < recorded {
                Err(format!(
                    "the replay used {next} of {recorded} recorded measurements"
                ))
            } else {
                Ok(())
            }
        }
        _ => Ok(()),
    }
}

/// This process's invocation and the number of invocations: `(0, 1)` for a plain run.
pub fn invocation() -> (usize, usize) {
    with_session(|session| match session {
        Session::Record { index, count, .. } => (*index, *count),
        _ => (0, 1),
    })
}

/// The rounds this process takes of an experiment's `rounds`: its share when recording
/// (rounded up, so every invocation takes as many), all of them otherwise.
pub fn rounds(rounds: usize) -> usize {
    let (_, count) = invocation();
    rounds.div_ceil(count).max(1)
}

/// Something one timing call returns that invocations can be merged into.
pub trait Mergeable: Serialize + DeserializeOwned {
    /// One invocation's result after another, in invocation order; `Err` when they do not
    /// describe the same cases.
    fn merge(parts: Vec<Self>) -> Result<Self, String>;
}

/// Runs one timing call: live (and recorded when recording), or replayed from the recordings.
/// A replay that cannot be read or merged is an error the caller reports (it means the
/// experiment did not make the same calls as in the children).
pub fn timed<T: Mergeable>(live: impl FnOnce() -> T) -> Result<T, String> {
    let replayed = with_session(|session| match session {
        Session::Replay { invocations, next } => {
            let call = *next;
            *next += 1;
            let parts = invocations
                .iter()
                .map(|calls| {
                    let value = calls.get(call).cloned().ok_or_else(|| {
                        format!("measurement {call} was not recorded in every invocation")
                    })?;
                    serde_json::from_value::<T>(value)
                        .map_err(|e| format!("measurement {call} reads back wrong: {e}"))
                })
                .collect::<Result<Vec<T>, String>>();
            Some(parts.and_then(T::merge))
        }
        _ => None,
    });
    if let Some(result) = replayed {
        return result;
    }
    let result = live();
    if with_session(|session| matches!(session, Session::Record { .. })) {
        let value = serde_json::to_value(&result).map_err(|e| e.to_string())?;
        with_session(|session| {
            if let Session::Record { calls, .. } = session {
                calls.push(value);
            }
        });
    }
    Ok(result)
}

/// The number of invocations being replayed (1 when not replaying).
pub fn replayed_invocations() -> usize {
    with_session(|session| match session {
        Session::Replay { invocations, .. } => invocations.len().max(1),
        _ => 1,
    })
}

/// Whether this process replays (it then measures nothing).
pub fn replaying() -> bool {
    with_session(|session| matches!(session, Session::Replay { .. }))
}

/// A child's recording, as written to its file.
#[derive(Serialize, Deserialize)]
pub struct Recording {
    pub experiment: String,
    pub invocation: usize,
    pub calls: Vec<Value>,
}

/// Lists of `(case name, per-round values…)` merge by concatenating each case's values.
impl Mergeable for Vec<(String, Vec<f64>, Vec<f64>)> {
    fn merge(parts: Vec<Self>) -> Result<Self, String> {
        let mut parts = parts.into_iter();
        let mut merged = parts.next().unwrap_or_default();
        for part in parts {
            if part.len() != merged.len() {
                return Err("invocations timed different numbers of cases".into());
            }
            for (into, from) in merged.iter_mut().zip(part) {
                if into.0 != from.0 {
                    return Err(format!("invocations timed {} and {}", into.0, from.0));
                }
                into.1.extend(from.1);
                into.2.extend(from.2);
            }
        }
        Ok(merged)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Cases = Vec<(String, Vec<f64>, Vec<f64>)>;

    fn case(name: &str, x: f64) -> Cases {
        vec![(name.to_string(), vec![x], vec![x * 10.0])]
    }

    /// Recording, then replaying two invocations: the replay merges them in order, measures
    /// nothing, and notices a call it has no recording for. (One test: the session is global.)
    #[test]
    fn record_then_replay() {
        assert_eq!(rounds(21), 21);
        start_recording(0, 2);
        assert_eq!(invocation(), (0, 2));
        assert_eq!(rounds(21), 11);
        let first = timed(|| case("a", 1.0)).unwrap();
        assert_eq!(first, case("a", 1.0));
        let zero = finish_recording();
        start_recording(1, 2);
        timed(|| case("a", 2.0)).unwrap();
        let one = finish_recording();
        assert_eq!(invocation(), (0, 1));

        start_replay(vec![zero.clone(), one.clone()]);
        assert!(replaying());
        let merged: Cases = timed(|| panic!("a replay measures nothing")).unwrap();
        assert_eq!(
            merged,
            vec![("a".to_string(), vec![1.0, 2.0], vec![10.0, 20.0])]
        );
        let extra: Result<Cases, String> = timed(|| panic!("a replay measures nothing"));
        assert!(extra.unwrap_err().contains("not recorded"));
        assert!(finish_replay().is_ok());

        start_replay(vec![zero, one]);
        assert!(finish_replay().unwrap_err().contains("used 0 of 1"));
        let other = vec![case("a", 1.0), case("b", 1.0)];
        assert!(Cases::merge(other).unwrap_err().contains("timed a and b"));
    }
}
