use super::*;
use kino_store::private::posix_locks_held;

#[test]
fn a_served_directory_never_holds_the_services_files() {
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("kino-data");
    std::fs::create_dir_all(data.join("indexes")).unwrap();
    let db = root.path().join("db").join("kino.sqlite3");
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    std::fs::write(&db, b"").unwrap();
    let private = [data.clone(), db.clone()];
    let check = |dir: &Path| check_served_dir("--bucket-root", dir, &data, &private);
    // the default, a directory beside the data, one not made yet
    for ok in
        [data.join("bucket"), data.join("bucket/renders"), root.path().join("media-out"), root.path().join("new/x")]
    {
        assert_eq!(check(&ok), Ok(()), "{}", ok.display());
    }
    let refused = [
        (data.clone(), "is the data directory"),
        (data.join("."), "is the data directory"),
        (data.join("indexes/.."), "is the data directory"),
        (root.path().to_path_buf(), "contains the data directory"),
        (data.join("indexes"), "lies inside the data directory"),
        (data.join("not-yet"), "lies inside the data directory"),
        (db.parent().unwrap().to_path_buf(), "contains the service's file"),
    ];
    for (dir, rule) in refused {
        let e = check(&dir).unwrap_err();
        assert!(e.starts_with("--bucket-root ") && e.contains(rule), "{}: {e}", dir.display());
    }
    #[cfg(unix)]
    {
        let link = root.path().join("link");
        std::os::unix::fs::symlink(&data, &link).unwrap();
        assert!(check(&link).unwrap_err().contains("is the data directory"), "a link does not hide it");
    }
}

#[test]
fn serving_without_the_media_roots_protection_needs_the_flag() {
    assert_eq!(check_media_root_protection(true, false), Ok(()));
    assert_eq!(check_media_root_protection(false, true), Ok(()));
    let e = check_media_root_protection(false, false).unwrap_err();
    assert!(e.contains("only on Linux") && e.contains("--allow-unprotected-media-root"), "{e}");
    assert_eq!(MEDIA_ROOT_PROTECTED, cfg!(target_os = "linux"));
}

/// A `file_uri` naming one of the service's files, by its name or by a hard link, is refused
/// without releasing the POSIX locks this process holds on it (SQLite's locking rests on
/// them; see `restrict`).
#[cfg(target_os = "linux")]
#[test]
fn refusing_a_private_file_keeps_this_process_s_locks_on_it() {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("media");
    std::fs::create_dir_all(&root).unwrap();
    let inside = root.join("kino.sqlite3-shm");
    let outside = dir.path().join("kino.sqlite3");
    std::fs::write(&inside, [0u8; 256]).unwrap();
    std::fs::write(&outside, [0u8; 256]).unwrap();
    std::fs::hard_link(&outside, root.join("film.mp4")).unwrap();
    let lock = |path: &Path| {
        let file = std::fs::OpenOptions::new().read(true).write(true).open(path).unwrap();
        // SAFETY: plain data, zeroed then filled; a valid descriptor for the call.
        let mut region: libc::flock = unsafe { std::mem::zeroed() };
        region.l_type = libc::F_RDLCK as libc::c_short;
        region.l_whence = libc::SEEK_SET as libc::c_short;
        region.l_start = 128;
        region.l_len = 1;
        assert_eq!(unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETLK, &region) }, 0);
        file
    };
    let held = [lock(&inside), lock(&outside)];
    let private = vec![inside.clone(), outside.clone()];
    let media = MediaRoot { root: &root, private: &private };
    for uri in ["kino.sqlite3-shm", "film.mp4"] {
        assert!(matches!(media.resolve(uri), LocalMedia::Unusable { .. }), "{uri}");
    }
    for path in [&inside, &outside] {
        let ino = std::fs::metadata(path).unwrap().ino();
        assert_eq!(posix_locks_held(ino), 1, "{}: the lock is still held", path.display());
    }
    drop(held);
}

#[test]
fn symbolic_links_and_private_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("media");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::write(root.join("film.mp4"), b"x").unwrap();
    std::fs::write(dir.path().join("secret.key"), b"k").unwrap();
    std::fs::write(root.join("token.key"), b"k").unwrap();
    let private = vec![root.join("token.key")];
    let media = MediaRoot { root: &root, private: &private };
    assert!(matches!(media.resolve("film.mp4"), LocalMedia::File(_)));
    assert!(matches!(media.resolve("file://film.mp4"), LocalMedia::File(_)));
    assert!(matches!(media.resolve("s3://bucket/film.mp4"), LocalMedia::NotLocal));
    assert!(matches!(media.resolve(""), LocalMedia::NotLocal));
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(dir.path().join("secret.key"), root.join("link.mp4")).unwrap();
        std::os::unix::fs::symlink(dir.path(), root.join("sub/up")).unwrap();
    }
    for uri in ["link.mp4", "sub/up/secret.key", "../secret.key", "token.key", "sub", "missing.mp4"] {
        assert!(matches!(media.resolve(uri), LocalMedia::Unusable { .. }), "{uri}");
    }
    let absolute = dir.path().join("secret.key");
    assert!(matches!(media.resolve(absolute.to_str().unwrap()), LocalMedia::Unusable { .. }));
}

/// Both ways of opening (openat2, and the component walk of kernels without it) refuse the
/// same paths and open the same files.
#[cfg(unix)]
#[test]
fn the_fallback_walk_agrees_with_openat2() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("media");
    std::fs::create_dir_all(root.join("a/b")).unwrap();
    std::fs::write(root.join("a/b/film.mp4"), b"inside").unwrap();
    std::fs::write(dir.path().join("outside.mp4"), b"outside").unwrap();
    std::os::unix::fs::symlink(dir.path().join("outside.mp4"), root.join("a/out.mp4")).unwrap();
    std::os::unix::fs::symlink("b/film.mp4", root.join("a/in.mp4")).unwrap();
    std::os::unix::fs::symlink("b", root.join("a/c")).unwrap();
    let walk = |rel: &str| {
        let parts: Vec<&std::ffi::OsStr> = Path::new(rel).iter().collect();
        open_each_component(std::fs::File::open(&root).unwrap(), &parts).map(|_| ())
    };
    for (rel, opens) in
        [("a/b/film.mp4", true), ("a/out.mp4", false), ("a/in.mp4", false), ("a/c/film.mp4", false), ("a/x.mp4", false)]
    {
        let private: Vec<PathBuf> = Vec::new();
        let media = MediaRoot { root: &root, private: &private };
        assert_eq!(walk(rel).is_ok(), opens, "walk {rel}");
        assert_eq!(matches!(media.resolve(rel), LocalMedia::File(_)), opens, "resolve {rel}");
    }
    let absolute = root.join("a/b/film.mp4");
    let private: Vec<PathBuf> = Vec::new();
    let media = MediaRoot { root: &root, private: &private };
    let LocalMedia::File(file) = media.resolve(absolute.to_str().unwrap()) else { panic!("absolute under the root") };
    assert_eq!(file.read_to_string().unwrap(), "inside");
    assert_eq!(std::fs::read(file.tool_path()).unwrap(), b"inside", "a subprocess opens the same file");
    assert!(matches!(media.resolve("a/missing.mp4"), LocalMedia::Unusable { missing: true, .. }));
    assert!(matches!(media.resolve("a/out.mp4"), LocalMedia::Unusable { missing: false, .. }));
}

/// The attack of the hardening review: a directory of the path swapped for a symbolic link
/// to a directory outside the media root (`renameat2(RENAME_EXCHANGE)` in a loop) while the
/// service opens and reads the file, as ffmpeg would, through [`MediaFile::tool_path`].
/// Every open either fails or reads the file inside; none reads the one outside.
#[cfg(target_os = "linux")]
#[test]
fn a_directory_swapped_for_a_link_during_the_open_reaches_nothing_outside() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("media");
    std::fs::create_dir_all(root.join("dir")).unwrap();
    std::fs::write(root.join("dir/film.mp4"), b"inside").unwrap();
    std::fs::create_dir_all(dir.path().join("outside")).unwrap();
    std::fs::write(dir.path().join("outside/film.mp4"), b"OUTSIDE").unwrap();
    std::os::unix::fs::symlink(dir.path().join("outside"), root.join("swap")).unwrap();
    let c = |p: PathBuf| std::ffi::CString::new(p.to_str().unwrap()).unwrap();
    let (a, b) = (c(root.join("dir")), c(root.join("swap")));
    let stop = AtomicBool::new(false);
    let (mut opened, mut refused, mut swaps) = (0u32, 0u32, 0u32);
    std::thread::scope(|scope| {
        let swapper = scope.spawn(|| {
            let mut n = 0u32;
            // Bounded in count as well as by the reader finishing.
            while !stop.load(Ordering::Relaxed) && n < 5_000_000 {
                // SAFETY: two valid NUL-terminated paths in this test's directory.
                let r = unsafe {
                    libc::renameat2(libc::AT_FDCWD, a.as_ptr(), libc::AT_FDCWD, b.as_ptr(), libc::RENAME_EXCHANGE)
                };
                assert_eq!(r, 0, "renameat2: {}", io::Error::last_os_error());
                n += 1;
            }
            n
        });
        let private: Vec<PathBuf> = Vec::new();
        let media = MediaRoot { root: &root, private: &private };
        for _ in 0..3000 {
            match media.resolve("dir/film.mp4") {
                LocalMedia::File(file) => {
                    opened += 1;
                    assert_eq!(file.read_to_string().unwrap(), "inside");
                    assert_eq!(std::fs::read(file.tool_path()).unwrap(), b"inside");
                }
                LocalMedia::Unusable { .. } => refused += 1,
                LocalMedia::NotLocal => unreachable!(),
            }
        }
        stop.store(true, Ordering::Relaxed);
        swaps = swapper.join().unwrap();
    });
    eprintln!("{opened} opened (all inside), {refused} refused, {swaps} swaps");
    assert_eq!(opened + refused, 3000);
    assert!(swaps > 0);
}
