//! Saving what the screen shows (`s`): the last frame drawn, as SVG with its colours
//! ([`svg`]) and as plain text ([`text`]), in a folder, named by the local date and time
//! (`twoclocks-2026-12-04-081530.svg` and `.txt`). The two writers are pure functions of the
//! frame; [`save`] is the shell that writes them, through the door every file the program
//! writes goes through (`twoclocks_io::staged`), and [`local_stamp`] reads the clock.

pub mod svg;
pub mod text;

use std::io::Write;
use std::path::{Path, PathBuf};

use ratatui::buffer::Buffer;
use twoclocks_io::staged::{Accepts, StagedFile};

/// Writes the screen in `buf` to `dir` as `twoclocks-<stamp>.svg` and `.txt` (with `-2`, `-3`,
/// … added when a save in the same second took the name) and returns the two paths. Each
/// goes through the door every output goes through ([`StagedFile`]): written whole to an
/// unfinished copy, then put in place by a link that never replaces a file; a name where
/// anything is (a file, a link, even a dangling one) is passed over. An error says which file
/// could not be written and why, and leaves neither file.
pub fn save(buf: &Buffer, dir: &Path, stamp: &str) -> Result<(PathBuf, PathBuf), String> {
    let svg = svg::svg(buf);
    let txt = text::text(buf);
    let taken = |p: &Path| std::fs::symlink_metadata(p).is_ok();
    for n in 1..=99u32 {
        let base = match n {
            1 => format!("twoclocks-{stamp}"),
            n => format!("twoclocks-{stamp}-{n}"),
        };
        let svg_path = dir.join(format!("{base}.svg"));
        let txt_path = dir.join(format!("{base}.txt"));
        if taken(&svg_path) || taken(&txt_path) {
            continue;
        }
        let svg_file = staged(&svg_path, svg.as_bytes())?;
        let txt_file = staged(&txt_path, txt.as_bytes())?;
        put_in_place(svg_file, &svg_path)?;
        if let Err(e) = put_in_place(txt_file, &txt_path) {
            // Both or neither: the picture just put in place goes too.
            let _ = std::fs::remove_file(&svg_path);
            return Err(e);
        }
        return Ok((svg_path, txt_path));
    }
    Err(format!(
        "{} already holds 99 screens saved at {stamp}",
        dir.display()
    ))
}

/// `bytes` written whole to the unfinished copy of a new file at `path`.
fn staged(path: &Path, bytes: &[u8]) -> Result<StagedFile, String> {
    let file = StagedFile::create(path, false, Accepts::RegularFiles, &[], "s")
        .map_err(|e| format!("{e:#}"))?;
    (&file)
        .write_all(bytes)
        .map_err(|e| cannot(&e.to_string(), path))?;
    Ok(file)
}

/// Puts a whole copy at `path`, never over a file that appeared there meanwhile.
fn put_in_place(file: StagedFile, path: &Path) -> Result<(), String> {
    file.commit().map_err(|e| cannot(&format!("{e:#}"), path))
}

/// Why a file could not be written, the reason first: at 80 columns the footer may have room
/// for little else.
fn cannot(why: &str, path: &Path) -> String {
    let why = why.split(" (os error").next().unwrap_or_default();
    format!("{why} ({})", path.display())
}

/// The screen saved in the current folder, said as the footer shows it: the SVG's file name
/// and the text file's extension (`twoclocks-2026-12-04-081548.svg + .txt`).
pub fn save_here(buf: &Buffer) -> Result<String, String> {
    let (svg, txt) = save(buf, Path::new("."), &local_stamp())?;
    let name = |p: &Path| {
        p.file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    };
    // The text file is the SVG's name with another extension: said once, it fits at 80×24.
    let txt_ext = txt
        .extension()
        .map_or_else(String::new, |e| e.to_string_lossy().into_owned());
    Ok(format!("{} + .{txt_ext}", name(&svg)))
}

/// The local date and time now, as `YYYY-MM-DD-HHMMSS` (UTC where the local zone is unknown).
pub fn local_stamp() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (y, mo, d, h, mi, s) = local(secs as i64).unwrap_or_else(|| utc(secs as i64));
    format!("{y:04}-{mo:02}-{d:02}-{h:02}{mi:02}{s:02}")
}

type Civil = (i64, u32, u32, u32, u32, u32);

#[cfg(unix)]
#[allow(clippy::useless_conversion)] // time_t is narrower on some platforms
fn local(secs: i64) -> Option<Civil> {
    let t: libc::time_t = secs.try_into().ok()?;
    // SAFETY: localtime_r only writes the tm it is given; both pointers are valid here.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    let ok = unsafe { !libc::localtime_r(&t, &mut tm).is_null() };
    ok.then(|| {
        (
            i64::from(tm.tm_year) + 1900,
            (tm.tm_mon + 1) as u32,
            tm.tm_mday as u32,
            tm.tm_hour as u32,
            tm.tm_min as u32,
            tm.tm_sec as u32,
        )
    })
}

#[cfg(not(unix))]
fn local(_secs: i64) -> Option<Civil> {
    None
}

/// The UTC civil time of a Unix time (Howard Hinnant's days-to-civil).
fn utc(secs: i64) -> Civil {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400) as u32;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d, rem / 3_600, rem / 60 % 60, rem % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_civil_time() {
        assert_eq!(utc(0), (1970, 1, 1, 0, 0, 0));
        assert_eq!(utc(1_796_373_000), (2026, 12, 4, 8, 30, 0));
        assert_eq!(utc(951_782_400), (2000, 2, 29, 0, 0, 0));
    }

    #[test]
    fn a_stamp_is_date_dash_time() {
        let s = local_stamp();
        assert_eq!(s.len(), 17, "{s}");
        assert_eq!(&s[4..5], "-");
        assert_eq!(&s[10..11], "-");
    }
}
