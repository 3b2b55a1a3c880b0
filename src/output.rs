//! Writing an example's output file without ever destroying data.
//!
//! The rules, the same for every example that writes a file:
//! - an output that is one of the inputs (the same path, another spelling of
//!   it, a symbolic or hard link to it) is refused before anything is written;
//! - an output that exists but is not a regular file (a directory, a device
//!   such as `/dev/full`, a FIFO, also behind a symbolic link) is refused;
//! - the data go to a temporary file in the target's folder, which is flushed
//!   to disk and then renamed over the target in one step, so an interrupted
//!   run (an error, a full disk, a kill) leaves the old file as it was;
//! - every failure is an `Err` naming the path, never a success message.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};

/// Checks that `output` may be written by a program that read `inputs`, and
/// returns the path of the file that will actually be replaced (symbolic
/// links followed), or `None` when it does not exist yet.
///
/// `extension` is the output's expected extension (`"png"`), compared
/// without regard to case.
///
/// # Errors
/// A message saying what is wrong with `output` and what to do.
pub fn check_output(output: &Path, inputs: &[&Path], extension: &str) -> Result<PathBuf, String> {
    let shown = output.display();
    let ext_ok = output
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case(extension));
    if !ext_ok {
        return Err(format!(
            "output {shown} does not end in .{extension}; this program writes {} files",
            extension.to_uppercase()
        ));
    }
    let target = match fs::symlink_metadata(output) {
        Ok(_) => {
            // Exists (maybe as a link): the file that would really change.
            let target = fs::canonicalize(output)
                .map_err(|e| format!("output {shown} cannot be resolved ({e}); choose another output path"))?;
            let meta = fs::metadata(&target).map_err(|e| format!("cannot inspect output {shown}: {e}"))?;
            if !meta.is_file() {
                return Err(format!(
                    "output {shown} is not a regular file ({}); choose a file path",
                    target.display()
                ));
            }
            target
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let name = output
                .file_name()
                .ok_or_else(|| format!("output {shown} names no file; choose a file path"))?;
            let parent = match output.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => Path::new("."),
            };
            let folder = fs::canonicalize(parent)
                .map_err(|e| format!("the folder of output {shown} cannot be used ({e}); create it first"))?;
            folder.join(name)
        }
        Err(e) => return Err(format!("cannot inspect output {shown}: {e}")),
    };
    for input in inputs {
        // `is_same_file` compares device and inode, so it sees through links
        // and spellings alike; an error means the output does not exist yet.
        if same_file::is_same_file(input, &target).unwrap_or(false) {
            return Err(format!(
                "output {shown} is the input {}; refusing to overwrite it, choose another output path",
                input.display()
            ));
        }
    }
    Ok(target)
}

/// Replaces the regular file `target` (as returned by [`check_output`]) with
/// what `write` writes, atomically: `write` fills a temporary file in the
/// same folder, which is synced and renamed over `target` only if `write`
/// succeeded. An existing file keeps its permissions; a new one gets `0644`
/// (on Unix).
///
/// # Errors
/// A message naming `target` when the temporary file cannot be created,
/// `write` fails, or the data cannot be synced or renamed; `target` is then
/// unchanged and the temporary file is removed.
pub fn replace_file(target: &Path, write: impl FnOnce(&mut File) -> io::Result<()>) -> Result<(), String> {
    let shown = target.display();
    let folder = target.parent().unwrap_or(Path::new("."));
    let name = target.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .tempfile_in(folder)
        .map_err(|e| format!("cannot create a temporary file next to {shown}: {e}"))?;
    let result = write(tmp.as_file_mut())
        .and_then(|()| copy_permissions(tmp.as_file(), target))
        .and_then(|()| tmp.as_file().sync_all());
    result.map_err(|e| format!("cannot write {shown}: {e}; the old file, if any, is unchanged"))?;
    tmp.persist(target).map_err(|e| {
        format!(
            "cannot replace {shown}: {}; the old file, if any, is unchanged",
            e.error
        )
    })?;
    Ok(())
}

/// Gives `file` the permissions of `target`, or `0644` (on Unix) when
/// `target` does not exist (a temporary file starts as `0600`).
fn copy_permissions(file: &File, target: &Path) -> io::Result<()> {
    match fs::metadata(target) {
        Ok(m) => file.set_permissions(m.permissions()),
        #[cfg(unix)]
        Err(_) => {
            use std::os::unix::fs::PermissionsExt;
            file.set_permissions(fs::Permissions::from_mode(0o644))
        }
        #[cfg(not(unix))]
        Err(_) => Ok(()),
    }
}
