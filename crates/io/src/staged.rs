//! Every file the program writes (`run --output`, `--record`, `--cast`, `--plot`, the screens
//! saved with `s`) goes through this one door, and is written whole or not at all: a
//! [`StagedFile`] is written to an unfinished copy beside its target,
//! `.NAME.twoclocks-partial`, and put in place only when the work it holds is finished. So a
//! file at an output's path is always a finished run, and an existing file is never touched
//! until the new one replaces it (`--force`), nor at all when the run fails or is stopped.
//!
//! The unfinished copy is always a new file, created exclusively (`O_CREAT|O_EXCL`, and
//! `O_NOFOLLOW` on Unix): whatever is already at its name is never opened for writing, so a
//! link planted there cannot lead the run to write through it. It is locked while it is
//! written (an advisory lock: `flock` on Unix), so a second run writing the same target is
//! refused at once with a message that says another run holds it. When something is already
//! at the copy's name:
//! - a regular file with no other name, not locked and not one of the run's inputs, is a
//!   copy left by a killed run (SIGKILL, a power cut): its name is removed (the file is never
//!   emptied nor written) and a new copy is created;
//! - a locked one is another run's copy: refused, "another run is writing";
//! - anything else (a symbolic link, a hard link, i.e. a file with another name too, a named
//!   pipe, a directory, a device) was not made by the program: refused with a message saying
//!   what is there and that it must be removed by hand; it is left exactly as it is.
//!
//! The rules for what a path may be:
//! - the folder must exist and the path must not be a directory, nor an unfinished copy's
//!   name;
//! - an existing file is replaced only with `--force` and only if it is not read-only;
//! - a symbolic link stays: its target is written (and a dangling link is refused);
//! - a device, a pipe or a socket is written to directly, never removed or replaced (when
//!   the writer allows it: a database must be a regular file); a named pipe that no program
//!   reads is refused rather than waited on;
//! - a path that is one of the run's inputs (the same file, by device and inode, whatever the
//!   spelling or link) is refused, with or without `--force`;
//! - a path that is the same file as another output this process is writing (the same
//!   folder and name, or the same device and inode) is refused, naming both.
//!
//! Without `--force` the copy is put in place by a hard link, which never replaces a file
//! that appeared meanwhile; with it, by a rename over the old file.
//!
//! The files being written are listed in one place ([`abandon_unfinished`]), so that a run
//! stopped by a signal removes their unfinished copies before it exits.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use anyhow::{bail, Context, Result};

use crate::quote::quoted;

/// A file this process is writing, staged or direct, until it is put in place or dropped.
#[derive(Debug)]
struct Taken {
    /// The staged file's number, to find its entry again.
    serial: u64,
    /// The unfinished copy (none for a device or a pipe written directly).
    partial: Option<PathBuf>,
    /// Where it is: its folder resolved, and its name.
    place: Option<(PathBuf, std::ffi::OsString)>,
    /// The device and inode of the file there, when one exists.
    id: Option<(u64, u64)>,
    /// The flag and path it was given as, for messages.
    said: String,
}

/// The files being written by this process, not yet put in place.
static TAKEN: Mutex<Vec<Taken>> = Mutex::new(Vec::new());

/// The number the next staged file takes.
static SERIAL: AtomicU64 = AtomicU64::new(0);

fn taken() -> std::sync::MutexGuard<'static, Vec<Taken>> {
    TAKEN.lock().unwrap_or_else(|p| p.into_inner())
}

/// Forgets the staged file numbered `serial` (put in place or dropped).
fn untake(serial: u64) {
    taken().retain(|t| t.serial != serial);
}

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
    /// To the unfinished copy at `partial`, put at `target` when finished; `replace` when a
    /// file is there that `--force` replaces.
    Staged {
        partial: PathBuf,
        target: PathBuf,
        replace: bool,
    },
    /// Directly: the target is a device, a pipe or a socket.
    Direct,
}

/// A file being written: to an unfinished copy, put in place by [`StagedFile::commit`], or
/// removed if it is dropped first.
#[derive(Debug)]
pub struct StagedFile {
    /// The open file: the unfinished copy (locked), or the device or pipe itself.
    file: Option<File>,
    place: Place,
    /// Its entry among the files this process is writing.
    serial: u64,
    /// The path as given, for messages.
    shown: String,
}

/// A file's device and inode (Unix), to tell whether two names are the same file.
fn identity(m: &std::fs::Metadata) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        None
    }
}

/// Whether two paths are the same file (both exist): by device and inode on Unix.
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    identity(a).is_some() && identity(a) == identity(b)
}

/// How many names a file has (1 where the system does not say).
fn links(m: &std::fs::Metadata) -> u64 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        m.nlink()
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        1
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
    if m.file_type().is_symlink() {
        "a symbolic link"
    } else if m.is_dir() {
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
    if let Some(input) = input_among(&out, inputs) {
        bail!(
            "{flag}: {} is the input {}: the output would destroy it (refused, with or \
             without --force)",
            quoted(&path.display().to_string()),
            quoted(&input.display().to_string())
        );
    }
    Ok(())
}

/// The input among `inputs` that is the file `m` describes, if any.
fn input_among<'a>(m: &std::fs::Metadata, inputs: &[&'a Path]) -> Option<&'a Path> {
    inputs.iter().copied().find(|input| {
        input.as_os_str() != "-" && std::fs::metadata(input).is_ok_and(|i| same_file(m, &i))
    })
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

/// Where a path is, whatever its spelling: its folder resolved, and its name.
fn resolved_place(path: &Path) -> Option<(PathBuf, std::ffi::OsString)> {
    let folder = std::fs::canonicalize(folder_of(path)).ok()?;
    Some((folder, path.file_name()?.to_owned()))
}

impl StagedFile {
    /// Checks `path` as the module's rules say and takes its unfinished copy (created new
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
        if target
            .file_name()
            .is_some_and(|n| n.to_string_lossy().ends_with(PARTIAL_SUFFIX))
        {
            bail!(
                "{flag}: {shown} is named as the program names its unfinished copies \
                 (*{PARTIAL_SUFFIX}); choose another name"
            );
        }
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
        let existing = std::fs::metadata(&target).ok();
        let said = format!("{flag} {shown}");
        let entry = Taken {
            serial: SERIAL.fetch_add(1, Ordering::Relaxed),
            partial: None,
            place: resolved_place(&target),
            id: existing.as_ref().and_then(identity),
            said: said.clone(),
        };
        let mut all = taken();
        if let Some(other) = all.iter().find(|t| {
            (t.place.is_some() && t.place == entry.place) || (t.id.is_some() && t.id == entry.id)
        }) {
            bail!(
                "{said} and {} are the same file; give each output a file of its own",
                other.said
            );
        }
        let serial = entry.serial;
        let replace = match &existing {
            None => false,
            Some(m) if m.is_dir() => bail!("{flag}: {shown} is a directory; give a file name"),
            Some(m) if !m.is_file() => {
                if accepts == Accepts::RegularFiles {
                    bail!(
                        "{flag}: {shown} is {}, not a file; a database is written to a \
                         regular file",
                        kind_of(m)
                    );
                }
                // A device or a pipe is written to as it is: never removed or replaced.
                let file =
                    open_direct(&target, m).map_err(|e| anyhow::anyhow!("{flag}: {shown}: {e}"))?;
                all.push(entry);
                return Ok(StagedFile {
                    file: Some(file),
                    place: Place::Direct,
                    serial,
                    shown,
                });
            }
            Some(_) if !force => bail!(
                "{flag}: {shown} exists; --force replaces it (nothing is appended to an old \
                 output)"
            ),
            Some(m) if m.permissions().readonly() => bail!("{flag}: {shown} is read-only"),
            Some(_) => true,
        };
        let partial = partial_path(&target);
        let file = take_partial(&partial, inputs, flag, &shown)?;
        all.push(Taken {
            partial: Some(partial.clone()),
            ..entry
        });
        Ok(StagedFile {
            file: Some(file),
            place: Place::Staged {
                partial,
                target,
                replace,
            },
            serial,
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

    /// The work is finished: the copy is synced and put in place (replacing the file there
    /// only if `--force` allowed it when the run began; one that appeared since is an error,
    /// and the finished copy is removed). A device or pipe is flushed only.
    pub fn commit(mut self) -> Result<()> {
        if let (Some(f), Place::Staged { .. }) = (&self.file, &self.place) {
            // On an error the staged file is dropped: its copy removed.
            f.sync_all()
                .with_context(|| format!("cannot write {}", self.shown))?;
        }
        let file = self.file.take();
        let Place::Staged {
            partial,
            target,
            replace,
        } = std::mem::replace(&mut self.place, Place::Direct)
        else {
            untake(self.serial);
            return Ok(());
        };
        let mut all = taken();
        let placed = if replace {
            std::fs::rename(&partial, &target)
        } else {
            // Never over a file that appeared while the run was writing.
            std::fs::hard_link(&partial, &target).and_then(|()| std::fs::remove_file(&partial))
        };
        all.retain(|t| t.serial != self.serial);
        drop(all);
        if let Err(e) = placed {
            let _ = std::fs::remove_file(&partial);
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                bail!(
                    "{} appeared while the run was writing it and was left as it is; \
                     --force replaces it",
                    self.shown
                );
            }
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
        let mut all = taken();
        if let Place::Staged { partial, .. } = &self.place {
            let _ = std::fs::remove_file(partial);
        }
        all.retain(|t| t.serial != self.serial);
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

/// Creates the unfinished copy at `partial`, a new file, and takes its lock: refused when
/// another run holds the copy there, or when what is there is not a copy a killed run left
/// (see the module's rules); a killed run's copy is removed first. Nothing at that name is
/// ever opened for writing.
fn take_partial(partial: &Path, inputs: &[&Path], flag: &str, shown: &str) -> Result<File> {
    let at = quoted(&partial.display().to_string());
    let cannot = || format!("{flag}: cannot create {at}");
    let another = || {
        anyhow::anyhow!(
            "{flag}: another run is writing {shown} (it holds {at}); wait for it to finish or \
             choose another file"
        )
    };
    // A few tries: another run may take over or finish with the copy between two looks.
    for _ in 0..8 {
        match create_exclusive(partial) {
            Ok(file) => match file.try_lock() {
                Ok(()) if still_at(&file, partial) => return Ok(file),
                // Another run took the new copy for a killed run's between its creation and
                // the lock: the name is that run's now.
                Ok(()) | Err(std::fs::TryLockError::WouldBlock) => continue,
                Err(std::fs::TryLockError::Error(e)) => {
                    let _ = std::fs::remove_file(partial);
                    return Err(e).with_context(cannot);
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e).with_context(cannot),
        }
        // Something is at the name: look at it without following it or opening it to write.
        let Ok(there) = std::fs::symlink_metadata(partial) else {
            continue;
        };
        let by_hand = |what: &str| {
            anyhow::anyhow!(
                "{flag}: {at}, where {shown} is staged, is {what}; the program did not make it \
                 and leaves it as it is: remove it by hand"
            )
        };
        if !there.is_file() {
            return Err(by_hand(kind_of(&there)));
        }
        if links(&there) > 1 {
            return Err(by_hand(&format!(
                "a file with {} names (a hard link)",
                links(&there)
            )));
        }
        if let Some(input) = input_among(&there, inputs) {
            return Err(by_hand(&format!(
                "the input {}",
                quoted(&input.display().to_string())
            )));
        }
        let held = match open_to_look(partial) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                let e = e.to_string();
                let e = e.split(" (os error").next().unwrap_or_default();
                return Err(by_hand(&format!("a file it cannot open ({e})")));
            }
        };
        match held.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => return Err(another()),
            Err(std::fs::TryLockError::Error(e)) => return Err(e).with_context(cannot),
        }
        // A killed run's copy, locked by this run now: its name goes (never its contents),
        // if it is still the file looked at.
        let same = held.metadata().is_ok_and(|h| {
            same_file(&h, &there) && h.is_file() && links(&h) == 1 && still_at(&held, partial)
        });
        if same {
            std::fs::remove_file(partial).with_context(cannot)?;
        }
    }
    bail!("{flag}: other runs keep replacing {at}; try again")
}

/// Creates a new file at `path`, failing if anything at all is there (a link is not
/// followed).
fn create_exclusive(path: &Path) -> std::io::Result<File> {
    let mut o = OpenOptions::new();
    o.read(true).write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NOFOLLOW);
    }
    o.open(path)
}

/// Opens what is at `path` to read it only (for its lock), not following a link and not
/// waiting on a pipe.
fn open_to_look(path: &Path) -> std::io::Result<File> {
    let mut o = OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    o.open(path)
}

/// Whether the open `file` is still the one at `path`.
fn still_at(file: &File, path: &Path) -> bool {
    match (file.metadata(), std::fs::symlink_metadata(path)) {
        (Ok(held), Ok(now)) => same_file(&held, &now) || cfg!(not(unix)),
        _ => false,
    }
}

/// Removes every unfinished copy (a signal stopped the run) and returns the targets they were
/// for, so that the message can say what was not written.
pub fn abandon_unfinished() -> Vec<PathBuf> {
    let mut all = taken();
    let mut targets = Vec::new();
    for p in all.drain(..).filter_map(|t| t.partial) {
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
        // Another run's copy: there and locked.
        let theirs = File::create(d.path().join(".out.txt.twoclocks-partial")).unwrap();
        theirs.try_lock().unwrap();
        let e = StagedFile::create(&t, false, Accepts::Streams, &[], "--x").unwrap_err();
        assert!(format!("{e:#}").contains("another run is writing"), "{e:#}");
        drop(theirs);
        // Its run was killed: the copy is not locked any more and is taken over.
        let a = StagedFile::create(&t, false, Accepts::Streams, &[], "--x").unwrap();
        a.commit().unwrap();
        // Once the first has finished, the file exists: refused without --force.
        let e = StagedFile::create(&t, false, Accepts::Streams, &[], "--x").unwrap_err();
        assert!(format!("{e:#}").contains("exists"), "{e:#}");
    }

    #[test]
    fn two_outputs_of_one_run_at_the_same_file_are_refused() {
        let d = dir();
        let t = d.path().join("a.rec");
        let a = StagedFile::create(&t, false, Accepts::Streams, &[], "--record").unwrap();
        let dotted = d.path().join(".").join("a.rec");
        let e = StagedFile::create(&dotted, false, Accepts::Streams, &[], "--cast").unwrap_err();
        let msg = format!("{e:#}");
        assert!(msg.contains("are the same file"), "{msg}");
        assert!(msg.contains("--record") && msg.contains("--cast"), "{msg}");
        drop(a);
        // An existing file under two names (a hard link), with --force.
        let old = d.path().join("old.txt");
        std::fs::write(&old, "old").unwrap();
        let other = d.path().join("other.txt");
        std::fs::hard_link(&old, &other).unwrap();
        let a = StagedFile::create(&old, true, Accepts::Streams, &[], "--record").unwrap();
        let e = StagedFile::create(&other, true, Accepts::Streams, &[], "--cast").unwrap_err();
        assert!(format!("{e:#}").contains("are the same file"), "{e:#}");
        drop(a);
        // Once the first is dropped, the second may write there.
        let b = StagedFile::create(&other, true, Accepts::Streams, &[], "--cast").unwrap();
        drop(b);
        assert_eq!(std::fs::read_to_string(&old).unwrap(), "old");
    }

    /// What a run makes of `planted` at the copy's name of `out.txt` beside `input`: refused,
    /// and the input and the planted name left as they were.
    #[cfg(unix)]
    fn refused_with(d: &Path, input: &Path, plant: impl Fn(&Path), says: &str) {
        let t = d.join("out.txt");
        let partial = d.join(".out.txt.twoclocks-partial");
        plant(&partial);
        let before = std::fs::symlink_metadata(&partial).unwrap();
        for force in [false, true] {
            let e = StagedFile::create(&t, force, Accepts::Streams, &[input], "--x").unwrap_err();
            let msg = format!("{e:#}");
            assert!(msg.contains(says), "{msg}");
            assert!(msg.contains("remove it by hand"), "{msg}");
        }
        let after = std::fs::symlink_metadata(&partial).unwrap();
        assert!(same_file(&before, &after));
        assert_eq!(before.len(), after.len());
        assert_eq!(std::fs::read_to_string(input).unwrap(), "the only copy");
        assert!(!t.exists());
        if before.is_dir() {
            std::fs::remove_dir(&partial).unwrap();
        } else {
            std::fs::remove_file(&partial).unwrap();
        }
    }

    #[cfg(unix)]
    #[test]
    fn what_is_planted_at_the_copys_name_is_never_written_through() {
        let d = dir();
        let input = d.path().join("in.csv");
        std::fs::write(&input, "the only copy").unwrap();
        let notes = d.path().join("notes.txt");
        std::fs::write(&notes, "the only copy").unwrap();
        refused_with(
            d.path(),
            &input,
            |p| std::fs::hard_link(&input, p).unwrap(),
            "a hard link",
        );
        refused_with(
            d.path(),
            &notes,
            |p| std::fs::hard_link(&notes, p).unwrap(),
            "a hard link",
        );
        refused_with(
            d.path(),
            &input,
            |p| std::os::unix::fs::symlink(&input, p).unwrap(),
            "a symbolic link",
        );
        refused_with(
            d.path(),
            &input,
            |p| std::os::unix::fs::symlink(d.path().join("nowhere"), p).unwrap(),
            "a symbolic link",
        );
        refused_with(
            d.path(),
            &input,
            |p| {
                let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
                // SAFETY: mkfifo with a valid C string.
                assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
            },
            "a named pipe",
        );
        refused_with(
            d.path(),
            &input,
            |p| std::fs::create_dir(p).unwrap(),
            "a directory",
        );
        // The input itself under the copy's name (its only name).
        let t = d.path().join("out.txt");
        let partial = d.path().join(".out.txt.twoclocks-partial");
        std::fs::rename(&input, &partial).unwrap();
        let e = StagedFile::create(&t, true, Accepts::Streams, &[&partial], "--x").unwrap_err();
        assert!(format!("{e:#}").contains("the input"), "{e:#}");
        assert_eq!(std::fs::read_to_string(&partial).unwrap(), "the only copy");
        assert_eq!(std::fs::read_to_string(&notes).unwrap(), "the only copy");
    }

    #[test]
    fn a_name_like_an_unfinished_copy_is_refused() {
        let d = dir();
        let t = d.path().join(".a.txt.twoclocks-partial");
        let e = StagedFile::create(&t, true, Accepts::Streams, &[], "--x").unwrap_err();
        assert!(format!("{e:#}").contains("choose another name"), "{e:#}");
        assert!(!t.exists());
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
