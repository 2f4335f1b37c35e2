//! Compiles the face models' C++ glue (`src/faces/dlib.cpp`) against the system's dlib when its
//! headers and libraries are installed (Debian: `apt-get install libdlib-dev libopenblas-dev`), and
//! sets `cfg(kino_dlib)`. Without them the crate still builds: `FaceAnalyzer::load` then says
//! what to install. `KINO_DLIB=0` builds without dlib even where it is installed; after installing
//! dlib into a build made without it, set `KINO_DLIB_PROBE=1` (any new value) to probe again.

use std::path::{Path, PathBuf};

const INCLUDE_DIRS: &[&str] = &["/usr/include", "/usr/local/include"];
const LIB_DIRS: &[&str] =
    &["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib"];

fn find(dirs: &[&str], file: &str) -> Option<PathBuf> {
    dirs.iter().map(Path::new).find(|d| d.join(file).exists()).map(Path::to_path_buf)
}

fn main() {
    println!("cargo:rerun-if-changed=src/faces/dlib.cpp");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=KINO_DLIB");
    println!("cargo:rustc-check-cfg=cfg(kino_dlib)");
    // Only paths that exist are watched: cargo reruns a build script on every build while one of
    // its watched paths is missing, and this one then recompiles the C++ glue and every crate
    // above it. Installing dlib after a build without it therefore needs a re-probe: change
    // KINO_DLIB_PROBE (any value) or `cargo clean -p kino-models`.
    println!("cargo:rerun-if-env-changed=KINO_DLIB_PROBE");
    for dir in INCLUDE_DIRS {
        let header = Path::new(dir).join("dlib/dnn.h");
        if header.exists() {
            println!("cargo:rerun-if-changed={}", header.display());
        }
    }
    if std::env::var("KINO_DLIB").is_ok_and(|v| v == "0") {
        return;
    }
    let include = find(INCLUDE_DIRS, "dlib/dnn.h");
    let libs: Vec<Option<PathBuf>> =
        ["libdlib.so", "libblas.so", "liblapack.so"].iter().map(|l| find(LIB_DIRS, l)).collect();
    let (Some(include), [Some(dlib), Some(blas), Some(lapack)]) = (include, libs.as_slice()) else {
        println!(
            "cargo:warning=kino-models: dlib not found (need dlib/dnn.h, libdlib.so, libblas.so, liblapack.so); \
             face models disabled. Debian: apt-get install libdlib-dev libopenblas-dev"
        );
        return;
    };
    // dlib's templates are slow without optimisation, so the glue is optimised in every profile.
    cc::Build::new()
        .cpp(true)
        .std("c++14")
        .opt_level(2)
        .flag("-w")
        .include(include)
        .file("src/faces/dlib.cpp")
        .compile("kino_dlib");
    for dir in [dlib, blas, lapack] {
        println!("cargo:rustc-link-search=native={}", dir.display());
    }
    println!("cargo:rustc-link-lib=dylib=dlib");
    println!("cargo:rustc-link-lib=dylib=blas");
    println!("cargo:rustc-link-lib=dylib=lapack");
    println!("cargo:rustc-cfg=kino_dlib");
}
