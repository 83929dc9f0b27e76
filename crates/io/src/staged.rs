//! Files the program writes (`run --output`, `--record`, `--cast`) are written whole or not at
//! all: a [`StagedFile`] is written to an unfinished copy beside its target,
//! `.NAME.twoclocks-partial`, and renamed into place only when the work it holds is finished.
//! So a file at an output's path is always a finished run, and an existing file is never
//! touched until the new one replaces it (`--force`), nor at all when the run fails.
//!
//! The unfinished copy is locked while it is written (an advisory lock: `flock` on Unix), so a
//! second run writing the same target is refused at once with a message that says another run
//! holds it. A copy left by a killed run (SIGKILL, a power cut) is not locked any more and
//! the next run to write that target takes it over.
//!
//! The rules for what a path may be:
//! - the folder must exist and the path must not be a directory;
//! - an existing file is replaced only with `--force` and only if it is not read-only;
//! - a symbolic link stays: its target is written (and a dangling link is refused);
//! - a device, a pipe or a socket is written to directly, never removed or replaced (when
//!   the writer allows it: a database must be a regular file);
//! - a path that is one of the run's inputs (the same file, by device and inode) is refused,
//!   with or without `--force`.
//!
//! The copies not yet finished are listed in one place ([`abandon_unfinished`]), so that a
//! run stopped by a signal removes them before it exits.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{bail, Context, Result};

use crate::quote::quoted;

/// The unfinished copies being written, by this process, not yet renamed into place.
static UNFINISHED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The suffix of an unfinished copy's name: `.out.jsonl.twoclocks-partial` for `out.jsonl`.
pub const PARTIAL_SUFFIX: &str = ".twoclocks-partial";

/// What a writer accepts as its target besides a regular file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Accepts {
    /// Regular files only (a database).
    RegularFiles,
    /// Also a device, a pipe or a socket, written to directly (`/dev/null`, a FIFO).
    Streams,
}

/// How a target is written.
#[derive(Debug)]
enum Place {
    /// To the unfinished copy at `partial`, renamed to `target` when finished; `replace`
    /// when a file is there that `--force` replaces.
    Staged {
        partial: PathBuf,
        target: PathBuf,
        replace: bool,
    },
    /// Directly: the target is a device, a pipe or a socket.
    Direct,
}

/// A file being written: to an unfinished copy, renamed into place by
/// [`StagedFile::commit`], or removed if it is dropped first.
#[derive(Debug)]
pub struct StagedFile {
    /// The open file: the unfinished copy (locked), or the device or pipe itself.
    file: Option<File>,
    place: Place,
    /// The path as given, for messages.
    shown: String,
}

/// Whether two paths are the same file (both exist): by device and inode on Unix.
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        a.dev() == b.dev() && a.ino() == b.ino()
    }
    #[cfg(not(unix))]
    {
        let _ = (a, b);
        false
    }
}

/// What a non-regular file is, for messages.
fn kind_of(m: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = m.file_type();
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_fifo() {
            return "a named pipe";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if m.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// Refuses `path` if it is one of `inputs` (the same file, whatever the spelling or link).
pub fn refuse_input(path: &Path, inputs: &[&Path], flag: &str) -> Result<()> {
    let Ok(out) = std::fs::metadata(path) else {
        return Ok(());
    };
    for input in inputs {
        if input.as_os_str() == "-" {
            continue;
        }
        if let Ok(m) = std::fs::metadata(input) {
            if same_file(&out, &m) {
                bail!(
                    "{flag}: {} is the input {}: the output would destroy it (refused, with or \
                     without --force)",
                    quoted(&path.display().to_string()),
                    quoted(&input.display().to_string())
                );
            }
        }
    }
    Ok(())
}

/// The unfinished copy's path beside `target`.
fn partial_path(target: &Path) -> PathBuf {
    let mut name = std::ffi::OsString::from(".");
    name.push(target.file_name().unwrap_or_default());
    name.push(PARTIAL_SUFFIX);
    target.with_file_name(name)
}

/// The folder a path is in (`.` for a bare name).
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(f) if !f.as_os_str().is_empty() => f,
        _ => Path::new("."),
    }
}

impl StagedFile {
    /// Checks `path` as the module's rules say and takes its unfinished copy (created empty
    /// and locked), before any work starts. `flag` names the output in messages
    /// (`--output 'jsonl:out.jsonl'`, `--record`); `inputs` are the run's input files.
    pub fn create(
        path: &Path,
        force: bool,
        accepts: Accepts,
        inputs: &[&Path],
        flag: &str,
    ) -> Result<StagedFile> {
        let shown = quoted(&path.display().to_string());
        if path.as_os_str().is_empty() {
            bail!("{flag}: the path is empty; give a file name");
        }
        refuse_input(path, inputs, flag)?;
        // A symbolic link stays: what it points at is written.
        let target = match std::fs::symlink_metadata(path) {
            Ok(m) if m.file_type().is_symlink() => match std::fs::canonicalize(path) {
                Ok(real) => real,
                Err(_) => bail!(
                    "{flag}: {shown} is a symbolic link to a file that does not exist; give \
                     the file itself"
                ),
            },
            _ => path.to_path_buf(),
        };
        let folder = folder_of(&target);
        match std::fs::metadata(folder) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => bail!(
                "{flag}: {} is not a folder",
                quoted(&folder.display().to_string())
            ),
            Err(_) => bail!(
                "{flag}: folder {} does not exist; create it first",
                quoted(&folder.display().to_string())
            ),
        }
        let replace = match std::fs::metadata(&target) {
            Err(_) => false,
            Ok(m) if m.is_dir() => bail!("{flag}: {shown} is a directory; give a file name"),
            Ok(m) if !m.is_file() => {
                if accepts == Accepts::RegularFiles {
                    bail!(
                        "{flag}: {shown} is {}, not a file; a database is written to a \
                         regular file",
                        kind_of(&m)
                    );
                }
                // A device or a pipe is written to as it is: never removed or replaced.
                let file = open_direct(&target, &m)
                    .map_err(|e| anyhow::anyhow!("{flag}: {shown}: {e}"))?;
                return Ok(StagedFile {
                    file: Some(file),
                    place: Place::Direct,
                    shown,
                });
            }
            Ok(_) if !force => bail!(
                "{flag}: {shown} exists; --force replaces it (nothing is appended to an old \
                 output)"
            ),
            Ok(m) if m.permissions().readonly() => bail!("{flag}: {shown} is read-only"),
            Ok(_) => true,
        };
        let partial = partial_path(&target);
        let file = take_partial(&partial, flag, &shown)?;
        UNFINISHED
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(partial.clone());
        Ok(StagedFile {
            file: Some(file),
            place: Place::Staged {
                partial,
                target,
                replace,
            },
            shown,
        })
    }

    /// The open file to write to: the unfinished copy, or the device or pipe. (It is closed
    /// only by [`StagedFile::commit`], which takes the staged file.)
    fn open_file(&self) -> std::io::Result<&File> {
        self.file
            .as_ref()
            .ok_or_else(|| std::io::Error::other("the file was already put in place"))
    }

    /// A handle of its own on the open file, for a writer to own (a buffered writer): the
    /// lock stays with the staged file.
    pub fn writer(&self) -> std::io::Result<File> {
        self.open_file()?.try_clone()
    }

    /// The path the writer opens itself (a database): the unfinished copy, or the device.
    pub fn write_path(&self) -> &Path {
        match &self.place {
            Place::Staged { partial, .. } => partial,
            Place::Direct => Path::new(""),
        }
    }

    /// Whether the target is a device or a pipe, written directly.
    pub fn is_direct(&self) -> bool {
        matches!(self.place, Place::Direct)
    }

    /// The work is finished: the copy is synced and renamed into place (replacing the file
    /// there only if `--force` allowed it when the run began; one that appeared since is an
    /// error, and the finished copy is kept beside it). A device or pipe is flushed only.
    pub fn commit(mut self) -> Result<()> {
        let file = self.file.take();
        let Place::Staged {
            partial,
            target,
            replace,
        } = std::mem::replace(&mut self.place, Place::Direct)
        else {
            return Ok(());
        };
        if let Some(f) = &file {
            f.sync_all()
                .with_context(|| format!("cannot write {}", self.shown))?;
        }
        let mut unfinished = UNFINISHED.lock().unwrap_or_else(|p| p.into_inner());
        let placed = if replace {
            std::fs::rename(&partial, &target)
        } else {
            // Never over a file that appeared while the run was writing.
            std::fs::hard_link(&partial, &target).and_then(|()| std::fs::remove_file(&partial))
        };
        unfinished.retain(|p| p != &partial);
        drop(unfinished);
        if let Err(e) = placed {
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                let _ = std::fs::remove_file(&partial);
                bail!(
                    "{} appeared while the run was writing it and was left as it is; \
                     --force replaces it",
                    self.shown
                );
            }
            let _ = std::fs::remove_file(&partial);
            return Err(e).with_context(|| format!("cannot put {} in place", self.shown));
        }
        // The rename itself made durable (best effort: not every filesystem syncs folders).
        if let Ok(d) = File::open(folder_of(&target)) {
            let _ = d.sync_all();
        }
        // The lock is released with the file, after the rename.
        drop(file);
        Ok(())
    }
}

impl Drop for StagedFile {
    /// Not committed: the unfinished copy is removed; the target was never touched.
    fn drop(&mut self) {
        if let Place::Staged { partial, .. } = &self.place {
            let mut unfinished = UNFINISHED.lock().unwrap_or_else(|p| p.into_inner());
            let _ = std::fs::remove_file(partial);
            unfinished.retain(|p| p != partial);
        }
    }
}

impl Write for &StagedFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.open_file()?.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.open_file()?.flush()
    }
}

/// Opens a device or a pipe to write to. A named pipe that no program reads is an error, not
/// a wait without end (it is opened without blocking, then written to as usual).
fn open_direct(target: &Path, m: &std::fs::Metadata) -> std::result::Result<File, String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
        if m.file_type().is_fifo() {
            let file = OpenOptions::new()
                .write(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(target)
                .map_err(|e| match e.raw_os_error() {
                    Some(libc::ENXIO) => {
                        "a named pipe that no program is reading; start its reader first"
                            .to_string()
                    }
                    _ => format!("cannot open it: {e}"),
                })?;
            use std::os::fd::AsRawFd;
            // SAFETY: fcntl on a descriptor this function owns, with flags read from it.
            let blocking = unsafe {
                let fd = file.as_raw_fd();
                let flags = libc::fcntl(fd, libc::F_GETFL);
                flags >= 0 && libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) == 0
            };
            if !blocking {
                return Err(format!(
                    "cannot write to the pipe: {}",
                    std::io::Error::last_os_error()
                ));
            }
            return Ok(file);
        }
    }
    let _ = m;
    OpenOptions::new()
        .write(true)
        .open(target)
        .map_err(|e| format!("cannot open it: {e}"))
}

/// Opens the unfinished copy at `partial` and takes its lock, then empties it: refused when
/// another run holds it. A copy left by a run that was killed is taken over.
fn take_partial(partial: &Path, flag: &str, shown: &str) -> Result<File> {
    let cannot = || {
        format!(
            "{flag}: cannot create {}",
            quoted(&partial.display().to_string())
        )
    };
    // A few tries: another run may finish (and rename its copy away) between the open and
    // the lock, leaving this one holding a file that is no longer the copy.
    for _ in 0..8 {
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(partial)
            .with_context(cannot)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => bail!(
                "{flag}: another run is writing {shown} (it holds {}); wait for it to finish \
                 or choose another file",
                quoted(&partial.display().to_string())
            ),
            Err(std::fs::TryLockError::Error(e)) => return Err(e).with_context(cannot),
        }
        let still_there = match (file.metadata(), std::fs::symlink_metadata(partial)) {
            (Ok(held), Ok(now)) => same_file(&held, &now) || cfg!(not(unix)),
            _ => false,
        };
        if still_there {
            file.set_len(0).with_context(cannot)?;
            return Ok(file);
        }
    }
    bail!(
        "{flag}: other runs keep replacing {}; try again",
        quoted(&partial.display().to_string())
    )
}

/// Removes every unfinished copy (a signal stopped the run) and returns the targets they were
/// for, so that the message can say what was not written.
pub fn abandon_unfinished() -> Vec<PathBuf> {
    let mut unfinished = UNFINISHED.lock().unwrap_or_else(|p| p.into_inner());
    let mut targets = Vec::new();
    for p in unfinished.drain(..) {
        let _ = std::fs::remove_file(&p);
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let name = name
            .strip_prefix('.')
            .and_then(|n| n.strip_suffix(PARTIAL_SUFFIX))
            .unwrap_or(&name)
            .to_string();
        targets.push(p.with_file_name(name));
    }
    targets
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    #[test]
    fn nothing_is_at_the_target_until_the_commit() {
        let d = dir();
        let t = d.path().join("out.txt");
        let s = StagedFile::create(&t, false, Accepts::Streams, &[], "--x").unwrap();
        (&s).write_all(b"hello").unwrap();
        assert!(!t.exists());
        assert!(d.path().join(".out.txt.twoclocks-partial").exists());
        s.commit().unwrap();
        assert_eq!(std::fs::read(&t).unwrap(), b"hello");
        assert!(!d.path().join(".out.txt.twoclocks-partial").exists());
    }

    #[test]
    fn a_dropped_file_leaves_the_old_one_untouched() {
        let d = dir();
        let t = d.path().join("notes.txt");
        std::fs::write(&t, "precious").unwrap();
        let e = StagedFile::create(&t, false, Accepts::Streams, &[], "--x").unwrap_err();
        assert!(format!("{e:#}").contains("exists; --force"), "{e:#}");
        let s = StagedFile::create(&t, true, Accepts::Streams, &[], "--x").unwrap();
        (&s).write_all(b"new").unwrap();
        drop(s);
        assert_eq!(std::fs::read_to_string(&t).unwrap(), "precious");
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_second_writer_is_refused() {
        let d = dir();
        let t = d.path().join("out.txt");
        let a = StagedFile::create(&t, false, Accepts::Streams, &[], "--x").unwrap();
        let e = StagedFile::create(&t, false, Accepts::Streams, &[], "--x").unwrap_err();
        assert!(format!("{e:#}").contains("another run is writing"), "{e:#}");
        a.commit().unwrap();
        // Once the first has finished, the file exists: refused without --force.
        let e = StagedFile::create(&t, false, Accepts::Streams, &[], "--x").unwrap_err();
        assert!(format!("{e:#}").contains("exists"), "{e:#}");
    }

    #[test]
    fn a_killed_runs_copy_is_taken_over() {
        let d = dir();
        let t = d.path().join("out.txt");
        std::fs::write(d.path().join(".out.txt.twoclocks-partial"), "half a run").unwrap();
        let s = StagedFile::create(&t, false, Accepts::Streams, &[], "--x").unwrap();
        (&s).write_all(b"whole").unwrap();
        s.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&t).unwrap(), "whole");
    }

    #[cfg(unix)]
    #[test]
    fn a_link_stays_and_its_target_is_replaced() {
        let d = dir();
        let real = d.path().join("real.txt");
        let link = d.path().join("link.txt");
        std::fs::write(&real, "old").unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let s = StagedFile::create(&link, true, Accepts::Streams, &[], "--x").unwrap();
        (&s).write_all(b"new").unwrap();
        s.commit().unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
    }

    #[cfg(unix)]
    #[test]
    fn a_device_is_written_directly_or_refused() {
        let s = StagedFile::create(Path::new("/dev/null"), false, Accepts::Streams, &[], "--x")
            .unwrap();
        assert!(s.is_direct());
        (&s).write_all(b"gone").unwrap();
        s.commit().unwrap();
        let e = StagedFile::create(
            Path::new("/dev/null"),
            true,
            Accepts::RegularFiles,
            &[],
            "--x",
        )
        .unwrap_err();
        assert!(format!("{e:#}").contains("a character device"), "{e:#}");
        assert!(Path::new("/dev/null").exists());
    }

    #[test]
    fn the_input_is_refused_even_with_force() {
        let d = dir();
        let input = d.path().join("in.csv");
        std::fs::write(&input, "log").unwrap();
        let spelled = d.path().join(".").join("in.csv");
        let e = StagedFile::create(&spelled, true, Accepts::Streams, &[&input], "--x").unwrap_err();
        assert!(format!("{e:#}").contains("is the input"), "{e:#}");
        assert_eq!(std::fs::read_to_string(&input).unwrap(), "log");
    }
}
