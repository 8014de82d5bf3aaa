//! Process invocations: an experiment measured in K fresh processes, and analysed once over all
//! of them.
//!
//! Layout and environment move results between processes (Mytkowicz et al.), so one process's
//! rounds cannot say how much a figure would move on a rerun. `kiki report` therefore runs each
//! timing experiment in K child processes (interleaved across experiments, each with its own
//! environment size and round order, each taking its share of the rounds). Each child is told
//! which [`Invocation`] it is, measures, and writes its typed measurement; the parent reads the
//! K measurements back and analyses them once. An experiment that pools rounds merges its K
//! measurements explicitly, one block per invocation (the helpers here).

use serde::{Deserialize, Serialize};

/// Which of the K process invocations of an experiment this is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Invocation {
    /// From 0.
    pub index: usize,
    /// K, at least 1.
    pub count: usize,
}

impl Invocation {
    /// A plain run: the one invocation.
    pub const ONLY: Invocation = Invocation { index: 0, count: 1 };

    /// Invocation `index` of `count` (at least 1).
    pub fn new(index: usize, count: usize) -> Invocation {
        Invocation {
            index,
            count: count.max(1),
        }
    }

    /// The rounds this invocation takes of an experiment's `total`: its share, rounded up (so
    /// every invocation takes as many); all of them in a plain run.
    pub fn rounds(self, total: usize) -> usize {
        total.div_ceil(self.count.max(1)).max(1)
    }
}

/// Merges the rows of K invocations, one after another in invocation order: every part must
/// hold the same rows (the same `key`s, in the same order); `extend(into, from)` appends one
/// invocation's row to the merged one. `Err` says how they differ.
pub fn merge_rows<R: Clone, K: PartialEq + std::fmt::Debug>(
    parts: &[Vec<R>],
    key: impl Fn(&R) -> K,
    mut extend: impl FnMut(&mut R, &R),
) -> Result<Vec<R>, String> {
    let Some((first, rest)) = parts.split_first() else {
        return Ok(Vec::new());
    };
    let mut merged = first.clone();
    for part in rest {
        if part.len() != merged.len() {
            return Err(format!(
                "invocations measured different numbers of cases ({} and {})",
                merged.len(),
                part.len()
            ));
        }
        for (into, from) in merged.iter_mut().zip(part) {
            let (a, b) = (key(into), key(from));
            if a != b {
                return Err(format!("invocations measured {a:?} and {b:?}"));
            }
            extend(into, from);
        }
    }
    Ok(merged)
}

/// One field of every invocation's measurement, for [`merge_rows`].
pub fn gather<M, R: Clone>(parts: &[M], field: impl Fn(&M) -> &[R]) -> Vec<Vec<R>> {
    parts.iter().map(|p| field(p).to_vec()).collect()
}

/// The notes of every invocation, each once, in order of first appearance.
pub fn union<T: Clone + PartialEq>(parts: impl IntoIterator<Item = Vec<T>>) -> Vec<T> {
    let mut all: Vec<T> = Vec::new();
    for part in parts {
        for item in part {
            if !all.contains(&item) {
                all.push(item);
            }
        }
    }
    all
}

/// `&'static str`, for fields read with [`static_str`] (serde would otherwise borrow a field
/// spelled `&str` from the input).
pub type StaticStr = &'static str;

/// Serde for `&'static str` fields (names the experiments keep as static strings): written as
/// strings; read back interned, so that each distinct name is allocated once per process.
pub mod static_str {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::collections::HashSet;
    use std::sync::Mutex;

    /// The one `&'static str` for `text`.
    pub fn intern(text: &str) -> &'static str {
        static NAMES: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
        let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
        let names = names.get_or_insert_with(HashSet::new);
        if let Some(name) = names.get(text) {
            return name;
        }
        let name: &'static str = Box::leak(text.to_string().into_boxed_str());
        names.insert(name);
        name
    }

    pub fn serialize<S: Serializer>(text: &&'static str, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(text)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
        Ok(intern(&String::deserialize(d)?))
    }

    /// `Vec<&'static str>`.
    pub mod vec {
        use serde::{Deserialize, Deserializer, Serialize, Serializer};

        pub fn serialize<S: Serializer>(list: &[&'static str], s: S) -> Result<S::Ok, S::Error> {
            list.serialize(s)
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<&'static str>, D::Error> {
            Ok(Vec::<String>::deserialize(d)?
                .iter()
                .map(|s| super::intern(s))
                .collect())
        }
    }

    /// `Option<&'static str>`.
    pub mod option {
        use serde::{Deserialize, Deserializer, Serialize, Serializer};

        pub fn serialize<S: Serializer>(
            text: &Option<&'static str>,
            s: S,
        ) -> Result<S::Ok, S::Error> {
            text.serialize(s)
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(
            d: D,
        ) -> Result<Option<&'static str>, D::Error> {
            Ok(Option::<String>::deserialize(d)?.map(|s| super::intern(&s)))
        }
    }
}

/// Serde for `f64` fields that may be NaN (JSON has no NaN): NaN is written as `null` and read
/// back as NaN.
pub mod nan {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
        x.is_finite().then_some(*x).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
    }

    /// Arrays and lists of such values.
    pub mod seq {
        use serde::{Deserialize, Deserializer, Serialize, Serializer};

        pub fn serialize<S: Serializer, const N: usize>(
            xs: &[f64; N],
            s: S,
        ) -> Result<S::Ok, S::Error> {
            xs.iter()
                .map(|x| x.is_finite().then_some(*x))
                .collect::<Vec<_>>()
                .serialize(s)
        }

        pub fn deserialize<'de, D: Deserializer<'de>, const N: usize>(
            d: D,
        ) -> Result<[f64; N], D::Error> {
            let values = Vec::<Option<f64>>::deserialize(d)?;
            let mut out = [f64::NAN; N];
            if values.len() != N {
                return Err(serde::de::Error::invalid_length(
                    values.len(),
                    &"as many values as the array holds",
                ));
            }
            for (o, v) in out.iter_mut().zip(values) {
                *o = v.unwrap_or(f64::NAN);
            }
            Ok(out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_invocation_takes_its_share_of_the_rounds() {
        assert_eq!(Invocation::ONLY.rounds(21), 21);
        assert_eq!(Invocation::new(0, 2).rounds(21), 11);
        assert_eq!(Invocation::new(1, 0), Invocation::new(1, 1));
        assert_eq!(Invocation::new(4, 5).rounds(3), 1);
        let json = serde_json::to_string(&Invocation::new(1, 3)).unwrap();
        assert_eq!(json, r#"{"index":1,"count":3}"#);
    }

    #[test]
    fn rows_merge_one_invocation_after_another() {
        type Row = (String, Vec<f64>);
        let part = |x: f64| -> Vec<Row> { vec![("a".into(), vec![x]), ("b".into(), vec![-x])] };
        let merged = merge_rows(
            &[part(1.0), part(2.0)],
            |r| r.0.clone(),
            |into, from| into.1.extend(&from.1),
        )
        .unwrap();
        assert_eq!(
            merged,
            vec![("a".into(), vec![1.0, 2.0]), ("b".into(), vec![-1.0, -2.0])]
        );
        let other = vec![("a".to_string(), vec![3.0]), ("c".to_string(), vec![3.0])];
        let error = merge_rows(&[part(1.0), other], |r| r.0.clone(), |_, _| {}).unwrap_err();
        assert!(error.contains("\"b\" and \"c\""), "{error}");
        assert_eq!(union([vec![1, 2], vec![2, 3]]), vec![1, 2, 3]);
    }

    #[test]
    fn static_names_and_nan_survive_json() {
        #[derive(Serialize, Deserialize)]
        struct Named {
            #[serde(with = "static_str")]
            name: StaticStr,
            #[serde(with = "static_str::vec")]
            names: Vec<&'static str>,
            #[serde(with = "nan")]
            x: f64,
            #[serde(with = "nan::seq")]
            xs: [f64; 2],
        }
        let json = serde_json::to_string(&Named {
            name: "rook",
            names: vec!["a", "b"],
            x: f64::NAN,
            xs: [1.0, f64::NAN],
        })
        .unwrap();
        let back: Named = serde_json::from_str(&json).unwrap();
        assert_eq!((back.name, back.names), ("rook", vec!["a", "b"]));
        assert!(back.x.is_nan() && back.xs[0] == 1.0 && back.xs[1].is_nan());
        assert!(std::ptr::eq(
            static_str::intern("zz"),
            static_str::intern("zz")
        ));
    }
}
