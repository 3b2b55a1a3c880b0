//! The on-disk cache of NVRTC's outputs, as Numba's `@cuda.jit(cache=True)`:
//! a compile whose inputs were seen before is read back from disk instead of
//! run again (NVRTC takes tens to hundreds of milliseconds per kernel).
//!
//! * Key: SHA-256 of the cache format, gpujit's version, the NVRTC library
//!   (version, canonical path, size and modification time, so a reinstalled
//!   or swapped library misses), the output kind, the architecture, every
//!   option, the entry name and the source. It names the file:
//!   `<key in hex>.cubin` or `.ptx`.
//! * Entry: `GPUJITNC`, format version, the key, the SHA-256 of the body, the
//!   body's length, then the body (log length, log, output). An entry whose
//!   header, key, length or checksum does not match (truncated, corrupt,
//!   another format) is never trusted: the compile runs and replaces it.
//! * Writes go to a temporary file in the same folder, renamed over the entry
//!   (atomic on one file system), so a concurrent reader sees the old entry,
//!   the new one or none, never half of one; two processes writing the same
//!   key write the same bytes.
//! * Failing to read or write the cache is never an error: the compile runs.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::{compile, compute_name, options, sm_name, sys, Cubin, Output, Ptx};
use crate::Result;

/// The environment variable naming the cache folder (overrides the platform's
/// default, see [`Cache::from_env`]), as Numba's `NUMBA_CACHE_DIR`.
///
/// ```
/// use gpujit::nvrtc::{Cache, ENV_CACHE, ENV_CACHE_DIR};
///
/// // As `GPUJIT_CACHE_DIR=/tmp/kernels cargo run` would:
/// std::env::remove_var(ENV_CACHE);
/// std::env::set_var(ENV_CACHE_DIR, "/tmp/kernels");
/// assert_eq!(Cache::from_env().dir(), Some(std::path::Path::new("/tmp/kernels")));
/// ```
pub const ENV_CACHE_DIR: &str = "GPUJIT_CACHE_DIR";

/// The environment variable that disables the cache when `0` (also `false`,
/// `off`, `no`): every compile then runs NVRTC.
///
/// ```
/// use gpujit::nvrtc::{Cache, ENV_CACHE};
///
/// // As `GPUJIT_CACHE=0 cargo run` would:
/// std::env::set_var(ENV_CACHE, "0");
/// assert_eq!(Cache::from_env(), Cache::disabled());
/// ```
pub const ENV_CACHE: &str = "GPUJIT_CACHE";

const MAGIC: &[u8; 8] = b"GPUJITNC";
const FORMAT: u32 = 1;
/// Magic, format, key, checksum, body length.
const HEADER_LEN: usize = 8 + 4 + 32 + 32 + 8;

/// Where NVRTC's outputs are kept between runs, or nowhere (disabled).
///
/// ```no_run
/// use gpujit::nvrtc::Cache;
///
/// let source = r#"extern "C" __global__ void k(float* v) { v[0] = 1.0f; }"#;
/// let cache = Cache::in_dir(std::env::temp_dir().join("my-gpujit-cache"));
/// let first = cache.compile_cubin(source, "k", (9, 0))?;  // runs NVRTC, stores the result
/// let again = cache.compile_cubin(source, "k", (9, 0))?;  // read back from disk
/// assert!(again.from_cache && again.image == first.image);
/// println!("{} entries removed", cache.clear()?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cache {
    dir: Option<PathBuf>,
}

impl Cache {
    /// The cache every compile uses unless told otherwise:
    /// * disabled when `GPUJIT_CACHE` is `0`, `false`, `off` or `no`;
    /// * else the folder `$GPUJIT_CACHE_DIR` when set and not empty;
    /// * else `gpujit/nvrtc` in the platform's cache folder (the `dirs`
    ///   crate): `$XDG_CACHE_HOME/gpujit/nvrtc` or
    ///   `~/.cache/gpujit/nvrtc` on Linux, `~/Library/Caches/gpujit/nvrtc` on
    ///   macOS, `%LOCALAPPDATA%\gpujit\nvrtc` on Windows;
    /// * disabled when there is no such folder (no home directory).
    ///
    /// The environment is read on every call. The folder is made on the
    /// first write.
    pub fn from_env() -> Cache {
        let disabled = std::env::var(ENV_CACHE)
            .map(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "0" | "false" | "off" | "no"))
            .unwrap_or(false);
        if disabled {
            return Cache::disabled();
        }
        let dir = std::env::var_os(ENV_CACHE_DIR)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| dirs::cache_dir().map(|d| d.join("gpujit").join("nvrtc")));
        Cache { dir }
    }

    /// A cache in `dir` (made on the first write), whatever the environment says.
    pub fn in_dir(dir: impl Into<PathBuf>) -> Cache {
        Cache { dir: Some(dir.into()) }
    }

    /// No cache: every compile runs NVRTC.
    pub fn disabled() -> Cache {
        Cache { dir: None }
    }

    /// The cache's folder, or `None` when it is disabled.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// [`super::compile_cubin`] through this cache.
    ///
    /// # Errors
    /// As [`super::compile_cubin`].
    pub fn compile_cubin(&self, source: &str, entry: &str, arch: (u32, u32)) -> Result<Cubin> {
        let (image, log, from_cache) = self.compile(source, entry, &sm_name(arch), Output::Cubin)?;
        Ok(Cubin {
            image,
            log,
            arch,
            entry: entry.to_string(),
            from_cache,
        })
    }

    /// [`super::compile_ptx`] for the virtual architecture `compute_XY` of
    /// `arch`, through this cache.
    ///
    /// # Errors
    /// As [`super::compile_ptx`].
    pub fn compile_ptx(&self, source: &str, entry: &str, arch: (u32, u32)) -> Result<Ptx> {
        let (text, log, from_cache) = self.compile(source, entry, &compute_name(arch), Output::Ptx)?;
        Ok(Ptx {
            text: String::from_utf8_lossy(&text).into_owned(),
            log,
            from_cache,
        })
    }

    /// Removes every cache entry (and leftover temporary file) in the folder;
    /// returns how many entries were removed. Other files are left alone. A
    /// disabled cache or a missing folder removes nothing.
    ///
    /// # Errors
    /// The folder exists but cannot be read, or an entry cannot be removed.
    pub fn clear(&self) -> std::io::Result<usize> {
        let Some(dir) = &self.dir else { return Ok(0) };
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
            Err(e) => return Err(e),
        };
        let mut removed = 0;
        for entry in entries {
            let path = entry?.path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let is_entry = name.ends_with(".cubin") || name.ends_with(".ptx");
            if is_entry || name.starts_with(TEMP_PREFIX) {
                std::fs::remove_file(&path)?;
                removed += usize::from(is_entry);
            }
        }
        Ok(removed)
    }

    /// The output and log for these inputs: from the cache when a valid
    /// entry exists, else compiled (and stored).
    fn compile(&self, source: &str, entry: &str, arch: &str, output: Output) -> Result<(Vec<u8>, String, bool)> {
        let options = options(arch, output);
        let Some(dir) = &self.dir else {
            let (bytes, log) = compile(source, entry, &options, output)?;
            return Ok((bytes, log, false));
        };
        let key = key(source, entry, &options, output)?;
        let path = dir.join(format!("{}.{}", hex(&key), extension(output)));
        if let Some((log, bytes)) = read_entry(&path).and_then(|file| decode(&file, &key)) {
            return Ok((bytes, log, true));
        }
        let (bytes, log) = compile(source, entry, &options, output)?;
        // Best effort: a read-only or full disk only costs the next compile.
        let _ = store(dir, &path, &encode(&key, &log, &bytes));
        Ok((bytes, log, false))
    }
}

const TEMP_PREFIX: &str = ".tmp-gpujit-";

/// The bytes of a cache entry, where it is a regular file (also through a
/// symlink). Anything else in its place (a FIFO, a device, a folder) is not
/// read: it could block forever or never end.
fn read_entry(path: &Path) -> Option<Vec<u8>> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Opening a FIFO waits for a writer unless the open is non-blocking
        // (which changes nothing for a regular file).
        options.custom_flags(libc::O_NONBLOCK);
    }
    let mut file = options.open(path).ok()?;
    // The type of what was opened, not of what the path names now.
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

fn extension(output: Output) -> &'static str {
    match output {
        Output::Ptx => "ptx",
        Output::Cubin => "cubin",
    }
}

/// The cache key of a compile (see the module docs). Loads NVRTC first.
fn key(source: &str, entry: &str, options: &[String], output: Output) -> Result<[u8; 32]> {
    let api = sys::api()?;
    let mut h = Sha256::new();
    // Every field is length-prefixed, so no two inputs hash the same bytes.
    let mut field = |bytes: &[u8]| {
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    };
    field(MAGIC);
    field(&FORMAT.to_le_bytes());
    field(env!("CARGO_PKG_VERSION").as_bytes());
    field(format!("{:?}", api.version).as_bytes());
    field(library_identity(&api.path).as_bytes());
    field(extension(output).as_bytes());
    for o in options {
        field(o.as_bytes());
    }
    field(entry.as_bytes());
    field(source.as_bytes());
    Ok(h.finalize().into())
}

/// The loaded library's canonical path, size and modification time: a
/// different or reinstalled NVRTC (or the test double in its place) gets
/// other keys even at the same version.
fn library_identity(path: &Path) -> String {
    let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let meta = std::fs::metadata(&real).ok();
    let size = meta.as_ref().map(|m| m.len());
    let modified = meta
        .and_then(|m| m.modified().ok())
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
    format!("{} {size:?} {modified:?}", real.display())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// An entry's bytes (see the module docs).
fn encode(key: &[u8; 32], log: &str, output: &[u8]) -> Vec<u8> {
    let mut body = Vec::with_capacity(8 + log.len() + output.len());
    body.extend((log.len() as u64).to_le_bytes());
    body.extend(log.as_bytes());
    body.extend(output);
    let mut file = Vec::with_capacity(HEADER_LEN + body.len());
    file.extend(MAGIC);
    file.extend(FORMAT.to_le_bytes());
    file.extend(key);
    file.extend(Sha256::digest(&body));
    file.extend((body.len() as u64).to_le_bytes());
    file.extend(body);
    file
}

/// The log and output of an entry, or `None` unless every check passes.
fn decode(file: &[u8], key: &[u8; 32]) -> Option<(String, Vec<u8>)> {
    let (header, body) = file.split_at_checked(HEADER_LEN)?;
    let (magic, rest) = header.split_at(8);
    let (format, rest) = rest.split_at(4);
    let (stored_key, rest) = rest.split_at(32);
    let (checksum, body_len) = rest.split_at(32);
    if magic != MAGIC
        || format != FORMAT.to_le_bytes()
        || stored_key != key
        || u64::from_le_bytes(body_len.try_into().ok()?) != body.len() as u64
        || Sha256::digest(body).as_slice() != checksum
    {
        return None;
    }
    let (log_len, rest) = body.split_at_checked(8)?;
    let log_len = usize::try_from(u64::from_le_bytes(log_len.try_into().ok()?)).ok()?;
    let (log, output) = rest.split_at_checked(log_len)?;
    Some((String::from_utf8(log.to_vec()).ok()?, output.to_vec()))
}

/// Writes `bytes` to a temporary file in `dir` and renames it to `path`.
fn store(dir: &Path, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new().prefix(TEMP_PREFIX).tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_and_every_corruption_is_rejected() {
        let key = [7u8; 32];
        let file = encode(&key, "ptxas info : Used 8 registers", b"\x7fELF\0\x01binary");
        assert_eq!(
            decode(&file, &key),
            Some((
                "ptxas info : Used 8 registers".to_string(),
                b"\x7fELF\0\x01binary".to_vec()
            ))
        );
        assert_eq!(decode(&file, &[8u8; 32]), None, "another key");
        for len in 0..file.len() {
            assert_eq!(decode(&file[..len], &key), None, "truncated to {len} bytes");
        }
        for i in 0..file.len() {
            let mut bad = file.clone();
            bad[i] ^= 0x20;
            assert_eq!(decode(&bad, &key), None, "byte {i} flipped");
        }
        let mut longer = file.clone();
        longer.push(0);
        assert_eq!(decode(&longer, &key), None, "trailing byte");
    }

    #[test]
    fn only_regular_files_are_read_as_entries() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.cubin");
        std::fs::write(&file, b"entry").unwrap();
        assert_eq!(read_entry(&file), Some(b"entry".to_vec()));
        #[cfg(unix)]
        {
            let link = dir.path().join("l.cubin");
            std::os::unix::fs::symlink(&file, &link).unwrap();
            assert_eq!(read_entry(&link), Some(b"entry".to_vec()), "a symlink to an entry");
            let fifo = dir.path().join("f.cubin");
            let status = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
            assert!(status.success());
            // Read as a file, this would wait for a writer forever.
            assert_eq!(read_entry(&fifo), None, "a FIFO");
            let to_fifo = dir.path().join("lf.cubin");
            std::os::unix::fs::symlink(&fifo, &to_fifo).unwrap();
            assert_eq!(read_entry(&to_fifo), None, "a symlink to a FIFO");
        }
        let sub = dir.path().join("d.cubin");
        std::fs::create_dir(&sub).unwrap();
        assert_eq!(read_entry(&sub), None, "a folder");
        assert_eq!(read_entry(&dir.path().join("missing.cubin")), None);
    }

    #[test]
    fn clear_removes_entries_and_temporaries_only() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["a.cubin", "b.ptx", ".tmp-gpujit-x", "notes.txt"] {
            std::fs::write(dir.path().join(name), b"x").unwrap();
        }
        assert_eq!(Cache::in_dir(dir.path()).clear().unwrap(), 2);
        let mut left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(left, ["notes.txt"]);
        assert_eq!(Cache::in_dir(dir.path().join("missing")).clear().unwrap(), 0);
        assert_eq!(Cache::disabled().clear().unwrap(), 0);
    }
}
