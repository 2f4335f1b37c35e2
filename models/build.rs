//! Compiles the face models' C++ glue (`src/faces/dlib.cpp`) against the system's dlib when its
//! headers and libraries are installed (Debian: `apt-get install libdlib-dev libopenblas-dev`), and
//! sets `cfg(kino_dlib)`. Without them the crate still builds: `FaceAnalyzer::load` then says
//! what to install. `KINO_DLIB=0` builds without dlib even where it is installed.

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
    // Installing dlib later must rebuild: a watched path that does not exist reruns this script
    // on every build (a few file probes), one that exists only when it changes.
    for dir in INCLUDE_DIRS {
        println!("cargo:rerun-if-changed={dir}/dlib/dnn.h");
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
