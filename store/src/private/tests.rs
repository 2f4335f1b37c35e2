use super::*;

/// A device node (where this user may make one), a FIFO and a symbolic link, each given where
/// the service expects its database, data directory or a key: refused with an error naming
/// what it is, and no mode changed, neither theirs nor their targets'.
#[cfg(unix)]
#[test]
fn special_files_are_refused_and_keep_their_modes() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let mode = |p: &Path| p.symlink_metadata().unwrap().permissions().mode() & 0o7777;
    let fifo = dir.path().join("fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let target = dir.path().join("target");
    std::fs::write(&target, b"x").unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o644)).unwrap();
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let dir_link = dir.path().join("dir-link");
    std::os::unix::fs::symlink(dir.path(), &dir_link).unwrap();
    let mut cases = vec![(fifo.clone(), "a FIFO"), (link.clone(), "a symbolic link")];
    let device = dir.path().join("null");
    let d = std::ffi::CString::new(device.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path; makes a node like /dev/null (1, 3) in the temporary
    // directory, which needs CAP_MKNOD (root): without it that case is left out.
    if unsafe { libc::mknod(d.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3)) } == 0 {
        cases.push((device.clone(), "a character device"));
    } else {
        eprintln!("mknod not permitted here: the device case is left out");
    }
    for (path, what) in &cases {
        let before = mode(path);
        let target_before = mode(&target);
        for result in [private_file(path), check_regular_file(path), private_dir(path)] {
            let e = result.expect_err("refused");
            assert!(e.to_string().contains(what), "{e}");
            assert!(e.to_string().contains(&path.display().to_string()), "{e}");
        }
        assert_eq!(mode(path), before, "{what}: its mode is unchanged");
        assert_eq!(mode(&target), target_before, "{what}: the link's target is unchanged");
    }
    let e = private_dir(&dir_link).unwrap_err();
    assert!(e.to_string().contains("symbolic link"), "{e}");
    // Regular files and directories are tightened as before.
    private_file(&target).unwrap();
    assert_eq!(mode(&target), 0o600);
    let data = dir.path().join("data");
    private_dir(&data).unwrap();
    assert_eq!(mode(&data), 0o700);
    assert!(private_file(&dir.path().join("absent")).is_ok(), "an absent file is left absent");
    assert!(check_regular_file(&target).is_ok());
    // A whole store refuses a FIFO given as its database, with the path in the error.
    let err = crate::Store::open(&fifo).unwrap_err().to_string();
    assert!(err.contains("FIFO"), "{err}");
}
