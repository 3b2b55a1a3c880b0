//! The words a generated name may not be (see `names`), in one file so that
//! `tests/toolchain/reserved_names.rs` can check them against what NVRTC declares.

/// Words a user name may spell but the emitted code cannot declare: C++
/// keywords, what NVRTC's built-in headers (and the host shim's C library)
/// declare at global scope, Rust keywords, and the generated module's own
/// items. Names starting with `cuda`/`CUDA` (the runtime API) are reserved by
/// prefix in `names::is_free`.
#[rustfmt::skip]
pub const RESERVED: &[&str] = &[
    // C++ keywords and alternative tokens.
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch", "char",
    "char16_t", "char32_t", "char8_t", "class", "co_await", "co_return", "co_yield", "compl", "concept", "const",
    "const_cast", "consteval", "constexpr", "constinit", "continue", "decltype", "default", "delete", "do", "double",
    "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "final", "float", "for", "friend",
    "goto", "if", "import", "inline", "int", "long", "module", "mutable", "namespace", "new", "noexcept", "not",
    "not_eq", "nullptr", "operator", "or", "or_eq", "override", "private", "protected", "public", "register",
    "reinterpret_cast", "requires", "restrict", "return", "short", "signed", "sizeof", "static", "static_assert",
    "static_cast", "struct", "switch", "template", "this", "thread_local", "throw", "true", "try", "typedef",
    "typeid", "typename", "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while", "xor",
    "xor_eq",
    // C, C++ and CUDA types, vector types, variables, macros and C library
    // functions (`dim3` and `uint3` are types the emitted code uses).
    "abort", "activemask", "all", "any", "assert", "atof", "atoi", "ballot", "blockDim", "blockIdx", "calloc",
    "char1", "char2", "char3", "char4", "clock", "clock64", "clock_t", "cudaError_t", "dim3", "double1", "double2",
    "double3", "double4", "errno", "exit", "float1", "float2", "float3", "float4", "fprintf", "free", "globaltimer",
    "gridDim", "half", "HUGE_VAL", "HUGE_VALF", "INFINITY", "int1", "int16_t", "int2", "int3", "int32_t", "int4",
    "int64_t", "int8_t", "intmax_t", "intptr_t", "long1", "long2", "long3", "long4", "longlong", "longlong1",
    "longlong2", "longlong3", "longlong4", "main", "malloc", "max_align_t", "memcmp", "memcpy", "memmove", "memset",
    "NAN", "nanosleep", "NULL", "nullptr_t", "nv_bfloat16", "printf", "ptrdiff_t", "puts", "rand", "realloc", "schar",
    "shfl", "short1", "short2", "short3", "short4", "size_t", "snprintf", "sprintf", "srand", "ssize_t", "std",
    "strcmp", "strcpy", "strlen", "syncthreads", "syncwarp", "threadIdx", "time", "uchar", "uchar1", "uchar2",
    "uchar3", "uchar4", "uint", "uint1", "uint16_t", "uint2", "uint3", "uint32_t", "uint4", "uint64_t", "uint8_t",
    "uintmax_t", "uintptr_t", "ulong", "ulong1", "ulong2", "ulong3", "ulong4", "ulonglong", "ulonglong1",
    "ulonglong2", "ulonglong3", "ulonglong4", "ushort", "ushort1", "ushort2", "ushort3", "ushort4", "va_list",
    "vprintf", "warpSize",
    // The CUDA Math API (single and double precision, integer and half
    // functions) and C's <math.h>: NVRTC declares most of them at global scope
    // and the emitted code calls some unqualified.
    "abs", "acos", "acosf", "acosh", "acoshf", "asin", "asinf", "asinh", "asinhf", "atan", "atan2", "atan2f", "atanf",
    "atanh", "atanhf", "bfloat16", "brev", "byte_perm", "cbrt", "cbrtf", "ceil", "ceilf", "clz", "copysign",
    "copysignf", "cos", "cosf", "cosh", "coshf", "cospi", "cospif", "cyl_bessel_i0", "cyl_bessel_i0f",
    "cyl_bessel_i1", "cyl_bessel_i1f", "div", "erf", "erfc", "erfcf", "erfcinv", "erfcinvf", "erfcx", "erfcxf",
    "erff", "erfinv", "erfinvf", "exp", "exp10", "exp10f", "exp2", "exp2f", "expf", "expm1", "expm1f", "fabs",
    "fabsf", "fdim", "fdimf", "fdivide", "fdividef", "ffs", "floor", "floorf", "fma", "fmaf", "fmax", "fmaxf", "fmin",
    "fminf", "fmod", "fmodf", "fpclassify", "frexp", "frexpf", "h2ceil", "h2cos", "h2exp", "h2exp10", "h2exp2",
    "h2floor", "h2log", "h2log10", "h2log2", "h2rcp", "h2rint", "h2rsqrt", "h2sin", "h2sqrt", "h2tanh", "h2trunc",
    "hadd", "half2", "hceil", "hcos", "hexp", "hexp10", "hexp2", "hfloor", "hlog", "hlog10", "hlog2", "hrcp", "hrint",
    "hrsqrt", "hsin", "hsqrt", "htanh", "htrunc", "hypot", "hypotf", "ilogb", "ilogbf", "isfinite", "isgreater",
    "isgreaterequal", "isinf", "isless", "islessequal", "islessgreater", "isnan", "isnormal", "isunordered", "j0",
    "j0f", "j1", "j1f", "jn", "jnf", "labs", "ldexp", "ldexpf", "ldiv", "lgamma", "lgammaf", "llabs", "lldiv",
    "llmax", "llmin", "llrint", "llrintf", "llround", "llroundf", "log", "log10", "log10f", "log1p", "log1pf", "log2",
    "log2f", "logb", "logbf", "logf", "lrint", "lrintf", "lround", "lroundf", "max", "min", "modf", "modff", "mul24",
    "mulhi", "nan", "nanf", "nearbyint", "nearbyintf", "nextafter", "nextafterf", "norm", "norm3d", "norm3df",
    "norm4d", "norm4df", "normcdf", "normcdff", "normcdfinv", "normcdfinvf", "normf", "nv_bfloat162", "popc", "pow",
    "powf", "powi", "powif", "rcbrt", "rcbrtf", "remainder", "remainderf", "remquo", "remquof", "rhadd", "rhypot",
    "rhypotf", "rint", "rintf", "rnorm", "rnorm3d", "rnorm3df", "rnorm4d", "rnorm4df", "rnormf", "round", "roundf",
    "rsqrt", "rsqrtf", "sad", "saturate", "scalbln", "scalblnf", "scalbn", "scalbnf", "signbit", "sin", "sincos",
    "sincosf", "sincospi", "sincospif", "sinf", "sinh", "sinhf", "sinpi", "sinpif", "sqrt", "sqrtf", "tan", "tanf",
    "tanh", "tanhf", "tgamma", "tgammaf", "trunc", "truncf", "uhadd", "ullmax", "ullmin", "umax", "umin", "umul24",
    "umulhi", "urhadd", "usad", "y0", "y0f", "y1", "y1f", "yn", "ynf",
    // Everything else NVRTC 13 declares at global scope (found by
    // `tests/toolchain/reserved_names.rs`): atomics, vote functions, texture and surface
    // functions, `make_<vector>` constructors, rounding-mode helpers.
    "atomicAdd", "atomicAdd_block", "atomicAdd_system", "atomicAnd", "atomicAnd_block", "atomicAnd_system",
    "atomicCAS", "atomicCAS_block", "atomicCAS_system", "atomicDec", "atomicDec_block", "atomicDec_system",
    "atomicExch", "atomicExch_block", "atomicExch_system", "atomicInc", "atomicInc_block", "atomicInc_system",
    "atomicMax", "atomicMax_block", "atomicMax_system", "atomicMin", "atomicMin_block", "atomicMin_system",
    "atomicOr", "atomicOr_block", "atomicOr_system", "atomicSub", "atomicSub_block", "atomicSub_system", "atomicXor",
    "atomicXor_block", "atomicXor_system", "CU_UUID_HAS_BEEN_DEFINED", "CUuuid", "CUuuid_st", "dadd", "decltypeH",
    "dmul", "double2int", "double2ll", "double2uint", "double2ull", "double4_16a", "double4_32a", "dsub",
    "float2double", "int2double", "libraryPropertyType", "libraryPropertyType_t", "ll2double", "long4_16a",
    "long4_32a", "longlong4_16a", "longlong4_32a", "MAJOR_VERSION", "make_char1", "make_char2", "make_char3",
    "make_char4", "make_double1", "make_double2", "make_double3", "make_double4", "make_double4_16a",
    "make_double4_32a", "make_float1", "make_float2", "make_float3", "make_float4", "make_int1", "make_int2",
    "make_int3", "make_int4", "make_long1", "make_long2", "make_long3", "make_long4", "make_longlong1",
    "make_longlong2", "make_longlong3", "make_longlong4", "make_longlong4_16a", "make_longlong4_32a", "make_short1",
    "make_short2", "make_short3", "make_short4", "make_uchar1", "make_uchar2", "make_uchar3", "make_uchar4",
    "make_uint1", "make_uint2", "make_uint3", "make_uint4", "make_ulong1", "make_ulong2", "make_ulong3",
    "make_ulong4", "make_ulonglong1", "make_ulonglong2", "make_ulonglong3", "make_ulonglong4", "make_ulonglong4_16a",
    "make_ulonglong4_32a", "make_ushort1", "make_ushort2", "make_ushort3", "make_ushort4", "MINOR_VERSION",
    "NV_TARGET_MINIMUM_SM_INTEGER", "NV_TARGET_MINIMUM_SM_SELECTOR", "PATCH_LEVEL", "surf1DLayeredread",
    "surf1DLayeredwrite", "surf1Dread", "surf1Dwrite", "surf2DLayeredread", "surf2DLayeredwrite", "surf2Dread",
    "surf2Dwrite", "surf3Dread", "surf3Dwrite", "surfCubemapLayeredread", "surfCubemapLayeredwrite",
    "surfCubemapread", "surfCubemapwrite", "tex1D", "tex1Dfetch", "tex1DGrad", "tex1DLayered", "tex1DLayeredGrad",
    "tex1DLayeredLod", "tex1DLod", "tex2D", "tex2Dgather", "tex2DGrad", "tex2DLayered", "tex2DLayeredGrad",
    "tex2DLayeredLod", "tex2DLod", "tex3D", "tex3DGrad", "tex3DLod", "texCubemap", "texCubemapGrad",
    "texCubemapLayered", "texCubemapLayeredGrad", "texCubemapLayeredLod", "texCubemapLod", "uint2double",
    "ull2double", "ulong4_16a", "ulong4_32a", "ulonglong4_16a", "ulonglong4_32a",
    "syncthreads_and", "syncthreads_count", "syncthreads_or",
    // Rust keywords (strict, reserved and edition-dependent).
    "abstract", "as", "async", "await", "become", "box", "crate", "dyn", "fn", "gen", "impl", "in", "let", "loop",
    "macro", "match", "mod", "move", "mut", "priv", "pub", "ref", "Self", "self", "super", "trait", "type", "typeof",
    "unsafe", "unsized", "use", "where", "yield",
    // The generated module's items and `launch`'s own parameters.
    "block", "cuda_source", "grid", "KERNEL", "launch",
];
