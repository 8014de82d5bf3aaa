//! Hardware-counter bookkeeping shared by the experiments: open the configured events (or keep
//! the reason they are unavailable), record counts per operation under labels, and turn them
//! into series and report tables.

use super::series;
use crate::measure::{CaseResult, Counters, Event};
use crate::results::{Series, Table};
use crate::stats::format_sig;
use serde::{Deserialize, Serialize};

/// The counters of one experiment and what they counted (in a measurement: what they counted,
/// and the events' names or why there were none; the open counters stay in the process).
#[derive(Serialize, Deserialize)]
pub(crate) struct CounterLog {
    #[serde(skip)]
    counters: Option<Counters>,
    /// The events' names, or why they are unavailable.
    events: Result<Vec<String>, String>,
    /// What one operation is, for units (`lookup`, `node`, `iteration`).
    #[serde(with = "crate::invocations::static_str")]
    per: crate::invocations::StaticStr,
    records: Vec<Record>,
}

impl Clone for CounterLog {
    /// What was counted, without the open counters.
    fn clone(&self) -> CounterLog {
        CounterLog {
            counters: None,
            events: self.events.clone(),
            per: self.per,
            records: self.records.clone(),
        }
    }
}

#[derive(Clone, Serialize, Deserialize)]
struct Record {
    labels: Vec<(String, String)>,
    /// (event name, count per operation).
    values: Vec<(String, f64)>,
}

impl CounterLog {
    /// Opens `events` for the calling thread; counts are per `per` (e.g. "lookup").
    pub(crate) fn open(events: &[Event], per: &'static str) -> CounterLog {
        let counters = if events.is_empty() {
            Err("counters not read (--counters none)".to_string())
        } else {
            Counters::open(events)
        };
        CounterLog {
            events: counters
                .as_ref()
                .map(|c| c.names().iter().map(|s| s.to_string()).collect())
                .map_err(Clone::clone),
            counters: counters.ok(),
            per,
            records: Vec::new(),
        }
    }

    /// For `interleaved`: the open counters, or `None` where they are unavailable.
    pub(crate) fn counters(&mut self) -> Option<&mut Counters> {
        self.counters.as_mut()
    }

    /// One sentence for the method paragraph: what was counted, or why nothing was.
    pub(crate) fn note(&self) -> String {
        match &self.events {
            Ok(names) => format!(
                "Counters (perf_event_open, user space, this thread): {} per {}, totals over \
                 all samples",
                names.join(", "),
                self.per
            ),
            Err(reason) => reason.clone(),
        }
    }

    /// The logs of K invocations as one: the first's records, each count averaged over the
    /// invocations (as their samples are pooled). `Err` when they counted different cells.
    pub(crate) fn merge(parts: &[&CounterLog]) -> Result<CounterLog, String> {
        let Some((first, _)) = parts.split_first() else {
            return Err("no counter log".into());
        };
        let records: Vec<Vec<Record>> = parts.iter().map(|p| p.records.clone()).collect();
        let count = parts.len() as f64;
        let mut merged = crate::invocations::merge_rows(
            &records,
            |r| r.labels.clone(),
            |into, from| {
                for ((name, total), (other, value)) in into.values.iter_mut().zip(&from.values) {
                    if name == other {
                        *total += value;
                    }
                }
            },
        )?;
        for record in &mut merged {
            for (_, total) in &mut record.values {
                *total /= count;
            }
        }
        Ok(CounterLog {
            records: merged,
            ..(*first).clone()
        })
    }

    /// Keeps `result`'s counts under `labels` (its case name is added as `backend`).
    pub(crate) fn record(&mut self, labels: &[(&str, &str)], result: &CaseResult) {
        if result.counters_per_op.is_empty() {
            return;
        }
        let mut all: Vec<(String, String)> = vec![("backend".into(), result.name.clone())];
        all.extend(labels.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        self.records.push(Record {
            labels: all,
            values: result.counters_per_op.clone(),
        });
    }

    /// Every recorded count as a one-sample series, unit `<event>/<per>`.
    pub(crate) fn series(&self) -> Vec<Series> {
        let mut out = Vec::new();
        for record in &self.records {
            let labels: Vec<(&str, &str)> = record
                .labels
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            for (event, value) in &record.values {
                out.push(series(
                    &labels,
                    &format!("{event}/{}", self.per),
                    vec![*value],
                ));
            }
        }
        out
    }

    /// A table with one row per distinct value of the `group_by` labels among the records
    /// `keep` accepts, one column per event: the mean count per operation over the group.
    /// `None` when nothing was counted.
    pub(crate) fn table(
        &self,
        group_by: &[&str],
        keep: impl Fn(&dyn Fn(&str) -> Option<String>) -> bool,
    ) -> Option<Table> {
        let kept: Vec<&Record> = self
            .records
            .iter()
            .filter(|r| keep(&|key: &str| r.label(key)))
            .collect();
        let events: Vec<String> = kept
            .first()?
            .values
            .iter()
            .map(|(e, _)| e.clone())
            .collect();
        let mut groups: Vec<(Vec<String>, Vec<&Record>)> = Vec::new();
        for record in kept {
            let key: Vec<String> = group_by
                .iter()
                .map(|k| record.label(k).unwrap_or_default())
                .collect();
            match groups.iter_mut().find(|(g, _)| *g == key) {
                Some((_, members)) => members.push(record),
                None => groups.push((key, vec![record])),
            }
        }
        let mut headers: Vec<String> = group_by.iter().map(|k| k.to_string()).collect();
        headers.extend(events.iter().map(|e| format!("{e}/{}", self.per)));
        let rows = groups
            .into_iter()
            .map(|(key, members)| {
                let mut row = key;
                for event in &events {
                    let values: Vec<f64> = members
                        .iter()
                        .filter_map(|r| r.values.iter().find(|(e, _)| e == event))
                        .map(|(_, v)| *v)
                        .collect();
                    let mean = values.iter().sum::<f64>() / values.len().max(1) as f64;
                    row.push(format_sig(mean));
                }
                row
            })
            .collect();
        Some(Table { headers, rows })
    }
}

impl Record {
    fn label(&self, key: &str) -> Option<String> {
        self.labels
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::{interleaved, Case, SampleConfig};
    use std::time::Duration;

    #[test]
    fn software_counters_flow_into_series_and_tables() {
        let mut log = CounterLog::open(&[Event::TaskClock], "op");
        let Some(counters) = log.counters() else {
            // A kernel that forbids even software events: the reason is the note.
            assert!(
                log.note().starts_with("counters unavailable"),
                "{}",
                log.note()
            );
            return;
        };
        let mut cases = vec![Case::new("spin", 1000, |reps| {
            (0..reps * 1000).fold(0u64, |a, x| std::hint::black_box(a ^ x))
        })];
        let config = SampleConfig {
            warmup: Duration::ZERO,
            samples: 3,
            min_sample: Duration::from_micros(200),
        };
        let results = interleaved(
            &mut cases,
            &config,
            crate::invocations::Invocation::ONLY,
            Some(counters),
            &mut |_| {},
        );
        for result in &results {
            log.record(&[("task", "spin")], result);
        }
        let series = log.series();
        assert_eq!(series.len(), 1);
        assert_eq!(series[0].unit, "task-clock-ns/op");
        assert!(series[0].samples[0] > 0.0, "{:?}", series[0]);
        let table = log.table(&["backend", "task"], |_| true).unwrap();
        assert_eq!(table.headers, ["backend", "task", "task-clock-ns/op"]);
        assert_eq!(table.rows.len(), 1);
        assert_eq!(&table.rows[0][..2], ["spin", "spin"]);
        assert!(log
            .table(&["backend"], |l| l("task").as_deref() == Some("x"))
            .is_none());
        assert!(
            log.note().contains("task-clock-ns per op"),
            "{}",
            log.note()
        );
    }

    #[test]
    fn unavailable_counters_record_nothing() {
        let mut log = CounterLog {
            counters: None,
            events: Err("counters unavailable: test".into()),
            per: "op",
            records: Vec::new(),
        };
        assert!(log.counters().is_none());
        let result = CaseResult {
            name: "a".into(),
            ns_per_op: vec![1.0],
            counters_per_op: Vec::new(),
        };
        log.record(&[], &result);
        assert!(log.series().is_empty());
        assert!(log.table(&["backend"], |_| true).is_none());
        assert_eq!(log.note(), "counters unavailable: test");
    }
}
