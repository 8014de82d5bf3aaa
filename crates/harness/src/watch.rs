//! The children a report starts and the scratch it writes, shared with whoever may stop it (a
//! signal): stopping kills and reaps the running children, removes the scratch, and keeps the
//! measurements written so far in a named folder.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::Mutex;
use std::time::Duration;

/// The suffix of a child invocation's measurement file.
pub const MEASUREMENT: &str = ".measurement.json";

/// What a stopped schedule did with what it had measured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// The measurements written so far, kept in this folder.
    Kept {
        folder: PathBuf,
        measurements: usize,
    },
    /// Nothing was measured yet: the scratch folder was removed (or there was none).
    Removed,
}

impl Stopped {
    /// The one line a stopped report says.
    pub fn message(&self) -> String {
        match self {
            Stopped::Kept {
                folder,
                measurements,
            } => format!(
                "kiki report: interrupted; the {measurements} measurement{} written so far \
                 are kept in {}",
                if *measurements == 1 { "" } else { "s" },
                folder.display()
            ),
            Stopped::Removed => {
                "kiki report: interrupted; nothing was measured yet, the scratch folder is removed"
                    .to_string()
            }
        }
    }
}

/// The running children and the scratch folder of a schedule, shared with whoever may stop it.
#[derive(Default)]
pub struct Watch {
    state: Mutex<WatchState>,
}

#[derive(Default)]
struct WatchState {
    /// The running children, each with the number `run` gave it (E8 runs several at once).
    children: Vec<(u64, Child)>,
    /// The number the next child gets.
    next_child: u64,
    scratch: Option<PathBuf>,
    /// Folders an experiment measures into (E8's callgrind files): removed when stopped.
    also_remove: Vec<PathBuf>,
    stopped: bool,
}

/// Removes `folder`, retrying for up to a second: the thread that owns it may still write into
/// it (or remove it itself) for a moment after its child was killed, and an entry created or
/// removed meanwhile makes one `remove_dir_all` fail with the folder left behind.
fn remove_settled(folder: &Path) {
    for _ in 0..100 {
        match std::fs::remove_dir_all(folder) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                std::thread::sleep(Duration::from_millis(10));
            }
            _ => return,
        }
    }
}

impl Watch {
    pub fn new() -> Watch {
        Watch::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, WatchState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether [`Watch::stop`] was called (a run that failed with "interrupted" was stopped).
    pub fn is_stopped(&self) -> bool {
        self.lock().stopped
    }

    pub(crate) fn set_scratch(&self, scratch: Option<PathBuf>) {
        self.lock().scratch = scratch;
    }

    /// Marks `folder` for removal should the watch be stopped (a scratch folder an experiment
    /// made in the report's own process); `forget` unmarks it once the experiment removed it.
    pub fn also_remove(&self, folder: &Path) {
        self.lock().also_remove.push(folder.to_path_buf());
    }

    pub fn forget(&self, folder: &Path) {
        self.lock().also_remove.retain(|f| f != folder);
    }

    /// Runs `command` as [`Watch::run`] does, and returns what it wrote: its stdout and stderr
    /// go to unnamed temporary files (not pipes, which a child writing much would block on
    /// while this waits), read back once it ends. Where E8 and E9 start valgrind, cargo and
    /// other kiki builds, so that a stopped report stops them too.
    pub fn output(&self, mut command: Command) -> Result<Output, String> {
        let stdout = tempfile::tempfile().map_err(|e| format!("cannot capture stdout: {e}"))?;
        let stderr = tempfile::tempfile().map_err(|e| format!("cannot capture stderr: {e}"))?;
        let read_back = |file: &std::fs::File| -> Result<Vec<u8>, String> {
            use std::io::{Read, Seek};
            let mut file = file;
            let mut bytes = Vec::new();
            file.rewind()
                .and_then(|_| file.read_to_end(&mut bytes))
                .map_err(|e| format!("cannot read a child's output back: {e}"))?;
            Ok(bytes)
        };
        command
            .stdout(Stdio::from(stdout.try_clone().map_err(|e| e.to_string())?))
            .stderr(Stdio::from(stderr.try_clone().map_err(|e| e.to_string())?));
        let status = self.run(command)?;
        Ok(Output {
            status,
            stdout: read_back(&stdout)?,
            stderr: read_back(&stderr)?,
        })
    }

    /// Starts `command` and waits for it, unless the watch is stopped (then `Err`).
    pub(crate) fn run(&self, mut command: Command) -> Result<std::process::ExitStatus, String> {
        let id = {
            let mut state = self.lock();
            if state.stopped {
                return Err("interrupted".into());
            }
            let child = command
                .spawn()
                .map_err(|e| format!("cannot start {:?}: {e}", command.get_program()))?;
            let id = state.next_child;
            state.next_child += 1;
            state.children.push((id, child));
            id
        };
        loop {
            {
                let mut state = self.lock();
                if state.stopped {
                    return Err("interrupted".into());
                }
                let Some(at) = state.children.iter().position(|(c, _)| *c == id) else {
                    return Err("the child was taken".into());
                };
                if let Some(status) = state.children[at].1.try_wait().map_err(|e| e.to_string())? {
                    state.children.swap_remove(at);
                    return Ok(status);
                }
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Stops the schedule: no further child starts, the running ones are killed and reaped, and
    /// the measurements written so far move into `keep_in/interrupted-<pid>/` (or, when there
    /// are none, the scratch folder is removed).
    pub fn stop(&self, keep_in: &Path) -> Stopped {
        let mut state = self.lock();
        state.stopped = true;
        for (_, mut child) in state.children.drain(..) {
            let _ = child.kill();
            let _ = child.wait();
        }
        for folder in state.also_remove.drain(..) {
            remove_settled(&folder);
        }
        let Some(scratch) = state.scratch.take() else {
            return Stopped::Removed;
        };
        let measured: Vec<PathBuf> = std::fs::read_dir(&scratch)
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.to_string_lossy().ends_with(MEASUREMENT))
                    .collect()
            })
            .unwrap_or_default();
        let mut stopped = Stopped::Removed;
        if !measured.is_empty() {
            let folder = keep_in.join(format!("interrupted-{}", std::process::id()));
            if std::fs::create_dir_all(&folder).is_ok() {
                let kept = measured
                    .iter()
                    .filter(|path| {
                        let to = folder.join(path.file_name().unwrap_or_default());
                        std::fs::rename(path, &to).is_ok() || std::fs::copy(path, &to).is_ok()
                    })
                    .count();
                stopped = Stopped::Kept {
                    folder,
                    measurements: kept,
                };
            }
        }
        let _ = std::fs::remove_dir_all(&scratch);
        stopped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Children run at once (E8's simulations) are each waited for, and stopping kills them all.
    #[test]
    fn children_run_at_once_and_stopping_kills_them_all() {
        let watch = Watch::new();
        std::thread::scope(|scope| {
            let quick: Vec<_> = (0..3)
                .map(|code| {
                    let watch = &watch;
                    scope.spawn(move || {
                        let mut command = Command::new("sh");
                        command.args(["-c", &format!("exit {code}")]);
                        watch.run(command).unwrap().code()
                    })
                })
                .collect();
            let codes: Vec<_> = quick.into_iter().map(|h| h.join().unwrap()).collect();
            assert_eq!(
                codes,
                [Some(0), Some(1), Some(2)],
                "each run gets its own status"
            );

            let started = std::time::Instant::now();
            let slow: Vec<_> = (0..2)
                .map(|_| {
                    let watch = &watch;
                    scope.spawn(move || {
                        let mut command = Command::new("sleep");
                        command.arg("30");
                        watch.run(command)
                    })
                })
                .collect();
            while watch.lock().children.len() < 2 {
                std::thread::sleep(Duration::from_millis(5));
            }
            let keep_in = tempfile::tempdir().unwrap();
            assert_eq!(watch.stop(keep_in.path()), Stopped::Removed);
            for handle in slow {
                assert_eq!(handle.join().unwrap(), Err("interrupted".to_string()));
            }
            assert!(watch.lock().children.is_empty(), "every child reaped");
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "killed, not waited for"
            );
        });
    }

    #[test]
    fn output_captures_what_the_child_wrote_and_a_stopped_watch_starts_nothing() {
        let watch = Watch::new();
        let mut command = Command::new("sh");
        command.args(["-c", "echo out; echo err >&2; exit 3"]);
        let output = watch.output(command).unwrap();
        assert_eq!(output.status.code(), Some(3));
        assert_eq!(output.stdout, b"out\n");
        assert_eq!(output.stderr, b"err\n");

        let folder = tempfile::tempdir().unwrap().keep();
        watch.also_remove(&folder);
        let keep_in = tempfile::tempdir().unwrap();
        assert_eq!(watch.stop(keep_in.path()), Stopped::Removed);
        assert!(!folder.exists(), "a marked folder is removed on stop");
        assert!(
            watch.output(Command::new("true")).is_err(),
            "stopped for good"
        );
    }
}
