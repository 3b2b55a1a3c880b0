//! The names a kernel can use in the emitted CUDA C: every identifier that
//! NVRTC already declares at global scope must be in gpujit's reserved list
//! (`gpujit-macros/src/reserved.rs`), so that a kernel, outside constant,
//! parameter, local or shared array of that name is renamed in C (`erfc` ->
//! `erfc_kernel`, `uint3` -> `uint3_`) instead of being rejected by NVRTC.
//!
//! Rather than trust a list, NVRTC is asked: each candidate is declared once
//! as `int NAME = 0;` and once as `struct NAME {};` at global scope, which
//! NVRTC rejects exactly when NAME is already a function, variable, type or
//! macro there. Candidates: the CUDA Math API and C names below, the reserved
//! list itself, and every identifier in NVRTC's built-in headers (the text
//! and mangled names in `libnvrtc-builtins`, next to the loaded NVRTC).

use std::collections::BTreeSet;

use gpujit::nvrtc::{self, TARGET_ARCH};

use crate::common;
use common::Tool;

#[path = "../../gpujit-macros/src/reserved.rs"]
mod reserved;

/// The tests of this file, for the crate's harness.
pub fn cases() -> Vec<common::Case> {
    let nvrtc = Some(Tool::Nvrtc);
    cases![
        nvrtc => every_name_nvrtc_declares_is_reserved,
    ]
}

/// Names from the CUDA Math API, C and CUDA that NVRTC may declare (its own
/// headers are read too; these are the ones a reader would expect).
const CANDIDATES: &str = "
    // CUDA Math API, single precision.
    acosf acoshf asinf asinhf atan2f atanf atanhf cbrtf ceilf copysignf cosf coshf cospif
    cyl_bessel_i0f cyl_bessel_i1f erfcf erfcinvf erfcxf erff erfinvf exp10f exp2f expf expm1f
    fabsf fdimf fdividef floorf fmaf fmaxf fminf fmodf frexpf hypotf ilogbf j0f j1f jnf ldexpf
    lgammaf llrintf llroundf log10f log1pf log2f logbf logf lrintf lroundf modff nanf nearbyintf
    nextafterf norm3df norm4df normcdff normcdfinvf normf powf rcbrtf remainderf remquof rhypotf
    rintf rnorm3df rnorm4df rnormf roundf rsqrtf scalblnf scalbnf sincosf sincospif sinf sinhf
    sinpif sqrtf tanf tanhf tgammaf truncf y0f y1f ynf
    // CUDA Math API, double precision (and gpujit's `powi`).
    acos acosh asin asinh atan atan2 atanh cbrt ceil copysign cos cosh cospi cyl_bessel_i0
    cyl_bessel_i1 erf erfc erfcinv erfcx erfinv exp exp10 exp2 expm1 fabs fdim fdivide floor fma
    fmax fmin fmod frexp hypot ilogb j0 j1 jn ldexp lgamma llrint llround log log10 log1p log2
    logb lrint lround modf nan nearbyint nextafter norm norm3d norm4d normcdf normcdfinv pow
    powi powif rcbrt remainder remquo rhypot rint rnorm rnorm3d rnorm4d round rsqrt scalbln
    scalbn sin sincos sincospi sinh sinpi sqrt tan tanh tgamma trunc y0 y1 yn
    // Classification.
    signbit isfinite isinf isnan fpclassify isnormal isgreater isless islessgreater isunordered
    isgreaterequal islessequal
    // Integer functions (also their `__` intrinsic spellings' plain names).
    abs labs llabs div ldiv lldiv min max umin umax llmin llmax ullmin ullmax mul24 umul24 mulhi
    umulhi brev clz ffs popc byte_perm sad usad rhadd hadd urhadd uhadd saturate
    // Half and bfloat16 functions and types (`cuda_fp16.h`, `cuda_bf16.h`).
    hsin hcos hexp hexp2 hexp10 hlog hlog2 hlog10 hrcp hrsqrt hsqrt hceil hfloor hrint htrunc
    h2sin h2cos h2exp h2log h2sqrt h2rcp h2rsqrt h2ceil h2floor h2rint h2trunc h2exp2 h2exp10
    h2log2 h2log10 htanh h2tanh half half2 nv_bfloat16 nv_bfloat162 bfloat16
    // Vector types and CUDA's short type names.
    char1 char2 char3 char4 uchar1 uchar2 uchar3 uchar4 short1 short2 short3 short4 ushort1
    ushort2 ushort3 ushort4 int1 int2 int3 int4 uint1 uint2 uint3 uint4 long1 long2 long3 long4
    ulong1 ulong2 ulong3 ulong4 longlong1 longlong2 longlong3 longlong4 ulonglong1 ulonglong2
    ulonglong3 ulonglong4 float1 float2 float3 float4 double1 double2 double3 double4 dim3 uint
    ushort ulong uchar schar ulonglong longlong
    // C and C++ standard types and macros.
    size_t ssize_t ptrdiff_t nullptr_t max_align_t int8_t int16_t int32_t int64_t uint8_t
    uint16_t uint32_t uint64_t intptr_t uintptr_t intmax_t uintmax_t va_list wchar_t NULL std
    // C library functions, `assert`, clocks.
    printf vprintf sprintf snprintf fprintf puts malloc free calloc realloc memcpy memset memcmp
    memmove strlen strcpy strcmp assert exit abort atoi atof rand srand clock clock64 clock_t
    time errno INFINITY NAN HUGE_VAL HUGE_VALF
    // CUDA built-in variables and warp functions.
    threadIdx blockIdx blockDim gridDim warpSize syncthreads syncwarp ballot all any activemask
    shfl nanosleep globaltimer
";

/// Whether the macro may use `name` as written: `names::is_free` without the
/// list (which is what is tested). Names it renames anyway (`__x`, `_X`,
/// `gj_`, `cuda`/`CUDA` prefixes) need no entry.
fn needs_entry(name: &str) -> bool {
    let start = name.strip_prefix('_').unwrap_or(name);
    let lower = name.to_ascii_lowercase();
    start.starts_with(|c: char| c.is_ascii_alphabetic() && (start.len() == name.len() || c.is_ascii_lowercase()))
        && !name.contains("__")
        && !lower.starts_with("gj")
        && !lower.starts_with("cuda")
}

/// ASCII identifiers in `bytes`, and the names in every Itanium-mangled
/// `_Z<len><name>` (`_Z4erfcd` holds `erfc`).
fn identifiers(bytes: &[u8], out: &mut BTreeSet<String>) {
    let is_start = |b: u8| b.is_ascii_alphabetic() || b == b'_';
    let is_part = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = 0;
    while i < bytes.len() {
        if is_start(bytes[i]) {
            let end = (i..bytes.len()).find(|&j| !is_part(bytes[j])).unwrap_or(bytes.len());
            let word = &bytes[i..end];
            out.insert(String::from_utf8_lossy(word).into_owned());
            let mut k = 0;
            while let Some(z) = word[k..].windows(2).position(|w| w == b"_Z").map(|p| p + k) {
                let digits = word[z + 2..].iter().take_while(|b| b.is_ascii_digit()).count();
                let len: usize = std::str::from_utf8(&word[z + 2..z + 2 + digits])
                    .ok()
                    .and_then(|d| d.parse().ok())
                    .unwrap_or(0);
                let name = z + 2 + digits;
                if len > 0 && name + len <= word.len() {
                    out.insert(String::from_utf8_lossy(&word[name..name + len]).into_owned());
                }
                k = z + 2;
            }
            i = end;
        } else {
            i += 1;
        }
    }
}

/// The candidates that NVRTC rejects when each is declared with `form` (one
/// line each). NVRTC stops after 100 errors, so it is asked again from the
/// line after the last error until it gets through.
fn declared(candidates: &[String], form: impl Fn(&str) -> String) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut rest = candidates;
    while !rest.is_empty() {
        let src: String = rest.iter().map(|n| form(n) + "\n").collect();
        let log = match nvrtc::compile_ptx(&src, "probe", TARGET_ARCH) {
            Ok(_) => break,
            Err(gpujit::Error::NvrtcCompile { log, .. }) => log,
            Err(e) => panic!("NVRTC failed: {e}"),
        };
        let lines: Vec<usize> = log
            .lines()
            .filter_map(|l| l.strip_prefix("probe.cu(")?.split_once("): error")?.0.parse().ok())
            .collect();
        assert!(!lines.is_empty(), "NVRTC failed without a line:\n{log}");
        for &l in &lines {
            found.insert(rest[l - 1].clone());
        }
        if !log.contains("Error limit reached") {
            break;
        }
        rest = &rest[*lines.iter().max().unwrap()..];
    }
    found
}

fn every_name_nvrtc_declares_is_reserved() {
    let mut names = BTreeSet::new();
    identifiers(CANDIDATES.as_bytes(), &mut names);
    names.extend(reserved::RESERVED.iter().map(|s| s.to_string()));
    let lib = nvrtc::library_path().expect("NVRTC loads");
    let mut builtins = 0;
    for entry in std::fs::read_dir(lib.parent().expect("a folder"))
        .expect("NVRTC's folder")
        .flatten()
    {
        let file = entry.file_name().to_string_lossy().into_owned();
        if file.contains("nvrtc-builtins") {
            identifiers(&std::fs::read(entry.path()).expect("readable"), &mut names);
            builtins += 1;
        }
    }
    let candidates: Vec<String> = names.into_iter().filter(|n| needs_entry(n)).collect();
    let mut found = declared(&candidates, |n| format!("int {n} = 0;"));
    found.extend(declared(&candidates, |n| format!("struct {n} {{}};")));
    // The probe must see what the attack found, or it is probing nothing.
    for n in ["erfc", "j0", "y1", "uint3", "dim3", "erfcinv", "make_int2", "atomicAdd"] {
        assert!(found.contains(n), "the probe did not see `{n}`; found {found:?}");
    }
    let missing: Vec<&String> = found
        .iter()
        .filter(|n| !reserved::RESERVED.contains(&n.as_str()))
        .collect();
    eprintln!(
        "{} candidates ({} builtins libraries), {} declared by NVRTC {:?}, {} not reserved",
        candidates.len(),
        builtins,
        found.len(),
        nvrtc::version().ok(),
        missing.len()
    );
    assert!(
        missing.is_empty(),
        "NVRTC declares these at global scope, but gpujit-macros/src/reserved.rs lacks them: {missing:?}"
    );
}
