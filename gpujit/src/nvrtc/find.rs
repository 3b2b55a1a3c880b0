//! Finding the NVRTC shared library: the folders searched, in order, and
//! the file names accepted in each.

use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// The environment variable naming the NVRTC library to use: a file
/// (`.../libnvrtc.so.13`) or a folder holding one. When set (and not empty) it
/// is the only place searched. Read by [`find_nvrtc`], so it must be set
/// before NVRTC is first used in the process.
///
/// ```
/// use gpujit::nvrtc::{find_nvrtc, ENV_NVRTC_PATH};
///
/// // As `GPUJIT_NVRTC_PATH=/no/such/libnvrtc.so.13 cargo run` would:
/// std::env::set_var(ENV_NVRTC_PATH, "/no/such/libnvrtc.so.13");
/// let err = find_nvrtc().unwrap_err(); // nothing else was searched
/// assert!(err.to_string().contains("GPUJIT_NVRTC_PATH"));
/// ```
pub const ENV_NVRTC_PATH: &str = "GPUJIT_NVRTC_PATH";

/// The environment variable naming a folder NVRTC was installed into, e.g. by
/// `scripts/install-nvrtc.sh` (`pip install --target`): the folder itself and
/// its `lib`, `lib64` and `nvidia/*/lib` subfolders are searched, before the
/// CUDA toolkit and system folders (see [`find_nvrtc`]).
///
/// ```
/// use gpujit::nvrtc::{find_nvrtc, ENV_NVRTC_DIR, ENV_NVRTC_PATH};
///
/// // As `GPUJIT_NVRTC_DIR=$HOME/nvrtc cargo run` would (a set
/// // GPUJIT_NVRTC_PATH wins over it, so this example clears that first):
/// std::env::remove_var(ENV_NVRTC_PATH);
/// let dir = std::env::temp_dir().join("gpujit-doc-no-nvrtc-here");
/// std::env::set_var(ENV_NVRTC_DIR, &dir);
/// match find_nvrtc() {
///     Ok(path) => println!("found elsewhere: {}", path.display()),
///     Err(gpujit::Error::NvrtcUnavailable { searched, .. }) => assert!(searched.iter().any(|p| p.starts_with(&dir))),
///     Err(e) => panic!("{e}"),
/// }
/// ```
pub const ENV_NVRTC_DIR: &str = "GPUJIT_NVRTC_DIR";

/// Finds the NVRTC shared library and returns its absolute path. Loads
/// nothing; every call searches again.
///
/// Accepted file names, best first in each folder: `libnvrtc.so.13`,
/// `libnvrtc.so.13.*`, `libnvrtc.so.12`, `libnvrtc.so.12.*`, `libnvrtc.so`.
/// Folders, in this order (the first folder holding one of those wins;
/// `*` matches every entry, highest version first):
///
/// 1. `$GPUJIT_NVRTC_PATH`, a file or folder. If set, nothing else is searched.
/// 2. `$GPUJIT_NVRTC_DIR` (`.`, `lib`, `lib64`, `nvidia/*/lib`).
/// 3. `$CUDA_HOME`, `$CUDA_PATH` (`lib64`, `lib`), `/usr/local/cuda/lib64`,
///    `/usr/local/cuda-*/lib64`, `/usr/lib/<arch>-linux-gnu` (`x86_64`, `aarch64`), `/usr/lib64`,
///    and each folder of `$LD_LIBRARY_PATH`.
/// 4. Python packages `nvidia/cu13/lib`, `nvidia/cuda_nvrtc/lib` and
///    `nvidia/*/lib` (the `nvidia-cuda-nvrtc` wheels) in the site-packages of
///    `$VIRTUAL_ENV`, `$CONDA_PREFIX`, `$PYTHONPATH`, `~/.local`, pyenv
///    (`~/.pyenv/versions/*`), `/usr/local`, `/usr`, `/opt/conda`;
///    also `$CONDA_PREFIX/lib`. Python is not run.
/// 5. The folders `scripts/install-nvrtc.sh` installs into:
///    `~/.cache/gpujit/nvrtc-*` and `.nvrtc` in the gpujit source checkout.
///
/// # Errors
/// [`Error::NvrtcUnavailable`] when no folder holds the library; `searched`
/// lists every folder (or, for a pattern that matched nothing, the pattern)
/// that was looked at.
///
/// Public so that you can tell which NVRTC gpujit would use (and why none)
/// without loading it; [`library_path`](super::library_path) says which one
/// was loaded.
///
/// ```
/// match gpujit::nvrtc::find_nvrtc() {
///     Ok(path) => println!("gpujit would load {}", path.display()),
///     Err(gpujit::Error::NvrtcUnavailable { searched, .. }) => println!("searched {} folders", searched.len()),
///     Err(e) => panic!("{e}"),
/// }
/// ```
pub fn find_nvrtc() -> Result<PathBuf> {
    let mut searched = Vec::new();

    if let Some(p) = env_path(ENV_NVRTC_PATH) {
        if p.is_file() {
            return Ok(absolute(&p));
        }
        searched.push(p.clone());
        if let Some(found) = find_in_dir(&p) {
            return Ok(found);
        }
        return Err(Error::NvrtcUnavailable {
            reason: format!(
                "{ENV_NVRTC_PATH}={} is neither a libnvrtc file nor a folder holding one",
                p.display()
            ),
            searched,
        });
    }

    for dir in candidate_dirs() {
        match dir {
            Candidate::Dir(d) => {
                if let Some(found) = find_in_dir(&d) {
                    return Ok(found);
                }
                searched.push(d);
            }
            Candidate::NoMatch(pattern) => searched.push(pattern),
        }
    }
    Err(Error::NvrtcUnavailable {
        reason: "no libnvrtc.so.13, libnvrtc.so.12 or libnvrtc.so found".into(),
        searched,
    })
}

enum Candidate {
    /// A folder to look in (may not exist).
    Dir(PathBuf),
    /// A wildcard pattern that matched no folder (reported as searched).
    NoMatch(PathBuf),
}

fn env_path(name: &str) -> Option<PathBuf> {
    std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from)
}

fn home() -> Option<PathBuf> {
    env_path("HOME")
}

/// Every folder [`find_nvrtc`] looks in after `$GPUJIT_NVRTC_PATH`, in order.
fn candidate_dirs() -> Vec<Candidate> {
    let mut out: Vec<Candidate> = Vec::new();

    // 2. Explicit install folder.
    if let Some(d) = env_path(ENV_NVRTC_DIR) {
        add_install_dir(&d, &mut out);
    }

    // 3. CUDA toolkits and system folders.
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(d) = env_path(var) {
            out.push(Candidate::Dir(d.join("lib64")));
            out.push(Candidate::Dir(d.join("lib")));
        }
    }
    out.push(Candidate::Dir("/usr/local/cuda/lib64".into()));
    push_glob("/usr/local/cuda-*/lib64".into(), &mut out);
    out.push(Candidate::Dir(
        format!("/usr/lib/{}-linux-gnu", std::env::consts::ARCH).into(),
    ));
    out.push(Candidate::Dir("/usr/lib64".into()));
    if let Some(paths) = std::env::var_os("LD_LIBRARY_PATH") {
        for d in std::env::split_paths(&paths).filter(|d| !d.as_os_str().is_empty()) {
            out.push(Candidate::Dir(d));
        }
    }

    // 4. Python site-packages holding the nvidia-cuda-nvrtc wheels.
    let mut site: Vec<PathBuf> = Vec::new();
    for var in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
        if let Some(d) = env_path(var) {
            site.push(d.join("lib/python3*/site-packages"));
        }
    }
    if let Some(paths) = std::env::var_os("PYTHONPATH") {
        site.extend(std::env::split_paths(&paths).filter(|d| !d.as_os_str().is_empty()));
    }
    if let Some(h) = home() {
        site.push(h.join(".local/lib/python3*/site-packages"));
        site.push(h.join(".pyenv/versions/*/lib/python3*/site-packages"));
    }
    for prefix in ["/usr/local/lib", "/usr/lib", "/opt/conda/lib"] {
        site.push(Path::new(prefix).join("python3*/site-packages"));
        site.push(Path::new(prefix).join("python3*/dist-packages"));
    }
    site.push("/usr/lib/python3/dist-packages".into());
    for s in site {
        for sub in ["nvidia/cu13/lib", "nvidia/cuda_nvrtc/lib", "nvidia/*/lib"] {
            push_glob(s.join(sub), &mut out);
        }
    }
    if let Some(d) = env_path("CONDA_PREFIX") {
        out.push(Candidate::Dir(d.join("lib")));
    }

    // 5. Where scripts/install-nvrtc.sh installs by default.
    if let Some(h) = home() {
        push_glob(h.join(".cache/gpujit/nvrtc-*/nvidia/*/lib"), &mut out);
    }
    if let Some(checkout) = Path::new(env!("CARGO_MANIFEST_DIR")).parent() {
        push_glob(checkout.join(".nvrtc/nvidia/*/lib"), &mut out);
    }

    // Drop repeated folders, keeping the first.
    let mut seen = std::collections::HashSet::new();
    out.retain(|c| match c {
        Candidate::Dir(d) | Candidate::NoMatch(d) => seen.insert(d.clone()),
    });
    out
}

/// Adds the folders matching `pattern`, or the pattern itself when nothing matches.
fn push_glob(pattern: PathBuf, out: &mut Vec<Candidate>) {
    let hits = expand(&pattern);
    if !hits.is_empty() {
        out.extend(hits.into_iter().map(Candidate::Dir));
    } else if pattern.to_string_lossy().contains('*') {
        out.push(Candidate::NoMatch(pattern));
    } else {
        out.push(Candidate::Dir(pattern));
    }
}

/// Adds a prefix that may hold the library itself or a `pip install --target` tree.
fn add_install_dir(d: &Path, out: &mut Vec<Candidate>) {
    out.push(Candidate::Dir(d.to_path_buf()));
    out.push(Candidate::Dir(d.join("lib")));
    out.push(Candidate::Dir(d.join("lib64")));
    push_glob(d.join("nvidia/cu13/lib"), out);
    push_glob(d.join("nvidia/cuda_nvrtc/lib"), out);
    push_glob(d.join("nvidia/*/lib"), out);
}

/// The best NVRTC library in `dir`, if any (see [`find_nvrtc`] for the order).
fn find_in_dir(dir: &Path) -> Option<PathBuf> {
    let names: Vec<String> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    let rank = |name: &str| -> Option<u8> {
        match name {
            "libnvrtc.so.13" => Some(0),
            n if n.starts_with("libnvrtc.so.13.") => Some(1),
            "libnvrtc.so.12" => Some(2),
            n if n.starts_with("libnvrtc.so.12.") => Some(3),
            "libnvrtc.so" => Some(4),
            _ => None,
        }
    };
    names
        .iter()
        .filter_map(|n| Some((rank(n)?, n)))
        .filter(|(_, n)| dir.join(n).is_file())
        .min_by(|a, b| a.0.cmp(&b.0).then_with(|| natural_cmp(b.1, a.1)))
        .map(|(_, n)| absolute(&dir.join(n)))
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Expands `*` wildcards (each matching within one path component). Results
/// are sorted highest version first (`cuda-13.0` before `cuda-12.4`). A
/// pattern without `*` is returned as is when it exists.
fn expand(pattern: &Path) -> Vec<PathBuf> {
    let mut current = vec![PathBuf::new()];
    for comp in pattern.components() {
        let part = comp.as_os_str().to_string_lossy();
        let mut next = Vec::new();
        for base in &current {
            if !part.contains('*') {
                next.push(base.join(comp.as_os_str()));
                continue;
            }
            let Ok(entries) = std::fs::read_dir(if base.as_os_str().is_empty() {
                Path::new(".")
            } else {
                base
            }) else {
                continue;
            };
            let mut names: Vec<String> = entries
                .filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter(|n| wildcard_match(&part, n))
                .collect();
            names.sort_by(|a, b| natural_cmp(b, a));
            next.extend(names.into_iter().map(|n| base.join(n)));
        }
        current = next;
    }
    current.retain(|p| p.exists());
    current
}

/// `pattern` may hold `*` (any run of characters, none starting with `.`
/// when the pattern itself does not).
fn wildcard_match(pattern: &str, name: &str) -> bool {
    if name.starts_with('.') && !pattern.starts_with('.') {
        return false;
    }
    let parts: Vec<&str> = pattern.split('*').collect();
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if parts.len() == 1 {
        return pattern == name;
    }
    if !name.starts_with(first) || name.len() < first.len() + last.len() || !name.ends_with(last) {
        return false;
    }
    let mut rest = &name[first.len()..name.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(i) => rest = &rest[i + mid.len()..],
            None => return false,
        }
    }
    true
}

/// Compares strings with runs of digits compared as numbers
/// (`python3.12` > `python3.9`).
fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    fn chunks(s: &str) -> Vec<(bool, &str)> {
        let mut out = Vec::new();
        let mut start = 0;
        let bytes = s.as_bytes();
        for i in 1..=bytes.len() {
            if i == bytes.len() || bytes[i].is_ascii_digit() != bytes[start].is_ascii_digit() {
                out.push((bytes[start].is_ascii_digit(), &s[start..i]));
                start = i;
            }
        }
        out
    }
    let (ca, cb) = (chunks(a), chunks(b));
    for (x, y) in ca.iter().zip(cb.iter()) {
        let ord = match (x, y) {
            ((true, x), (true, y)) => {
                let (x, y) = (x.trim_start_matches('0'), y.trim_start_matches('0'));
                x.len().cmp(&y.len()).then_with(|| x.cmp(y))
            }
            ((_, x), (_, y)) => x.cmp(y),
        };
        if ord.is_ne() {
            return ord;
        }
    }
    ca.len().cmp(&cb.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_and_natural_order() {
        assert!(wildcard_match("cuda-*", "cuda-12.4"));
        assert!(wildcard_match("python3*", "python3.11"));
        assert!(!wildcard_match("python3*", "python2.7"));
        assert!(wildcard_match("*", "cu13"));
        assert!(!wildcard_match("*", ".hidden"));
        assert!(wildcard_match("a*b*c", "axxbyyc"));
        assert!(!wildcard_match("a*b*c", "axxc"));
        assert!(natural_cmp("cuda-13.0", "cuda-12.4").is_gt());
        assert!(natural_cmp("python3.12", "python3.9").is_gt());
        assert!(natural_cmp("libnvrtc.so.13.0.88", "libnvrtc.so.13").is_gt());
    }

    #[test]
    fn find_in_dir_prefers_13_then_12_then_unversioned() {
        let dir = std::env::temp_dir().join(format!("gpujit-nvrtc-find-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let touch = |n: &str| std::fs::write(dir.join(n), b"").unwrap();
        assert_eq!(find_in_dir(&dir), None);
        touch("libnvrtc.alt.so.13");
        touch("libnvrtc-builtins.so.13.0");
        assert_eq!(find_in_dir(&dir), None);
        touch("libnvrtc.so");
        assert_eq!(find_in_dir(&dir), Some(dir.join("libnvrtc.so")));
        touch("libnvrtc.so.12.4.99");
        assert_eq!(find_in_dir(&dir), Some(dir.join("libnvrtc.so.12.4.99")));
        touch("libnvrtc.so.13.0.88");
        assert_eq!(find_in_dir(&dir), Some(dir.join("libnvrtc.so.13.0.88")));
        touch("libnvrtc.so.13");
        assert_eq!(find_in_dir(&dir), Some(dir.join("libnvrtc.so.13")));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn missing_library_is_an_error_listing_searched_paths() {
        // Only exercised through the pure search helpers: the environment of
        // the test process is shared, so it is not modified here.
        let nowhere = Path::new("/nonexistent/gpujit-test");
        assert_eq!(find_in_dir(nowhere), None);
        assert!(expand(&nowhere.join("*/lib")).is_empty());
        let e = Error::NvrtcUnavailable {
            reason: "x".into(),
            searched: vec![nowhere.into()],
        };
        assert!(e.to_string().contains("/nonexistent/gpujit-test"), "{e}");
    }

    // The tests that need NVRTC itself are in `tests/runtime/nvrtc_smoke.rs`, where a
    // missing NVRTC shows as ignored.
}
