// The C ABI kino-models calls for face detection, landmarks and descriptors, over the system's
// dlib (Debian: libdlib-dev). No C++ exception crosses it: every entry point catches and reports
// through `error` (a NUL-terminated message of at most `error_len` bytes).
//
// The network is dlib's dnn_face_recognition_ex.cpp definition, which the pinned
// dlib_face_recognition_resnet_model_v1.dat was trained with.
#include <dlib/dnn.h>
#include <dlib/image_processing.h>
#include <dlib/image_processing/frontal_face_detector.h>
#include <dlib/image_transforms.h>

#include <dlfcn.h>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {
using namespace dlib;

template <template <int, template <typename> class, int, typename> class block, int N,
          template <typename> class BN, typename SUBNET>
using residual = add_prev1<block<N, BN, 1, tag1<SUBNET>>>;
template <template <int, template <typename> class, int, typename> class block, int N,
          template <typename> class BN, typename SUBNET>
using residual_down = add_prev2<avg_pool<2, 2, 2, 2, skip1<tag2<block<N, BN, 2, tag1<SUBNET>>>>>>;
template <int N, template <typename> class BN, int stride, typename SUBNET>
using block = BN<con<N, 3, 3, 1, 1, relu<BN<con<N, 3, 3, stride, stride, SUBNET>>>>>;
template <int N, typename SUBNET> using ares = relu<residual<block, N, affine, SUBNET>>;
template <int N, typename SUBNET> using ares_down = relu<residual_down<block, N, affine, SUBNET>>;
template <typename SUBNET> using alevel0 = ares_down<256, SUBNET>;
template <typename SUBNET> using alevel1 = ares<256, ares<256, ares_down<256, SUBNET>>>;
template <typename SUBNET> using alevel2 = ares<128, ares<128, ares_down<128, SUBNET>>>;
template <typename SUBNET> using alevel3 = ares<64, ares<64, ares<64, ares_down<64, SUBNET>>>>;
template <typename SUBNET> using alevel4 = ares<32, ares<32, ares<32, SUBNET>>>;
using anet_type = loss_metric<fc_no_bias<128, avg_pool_everything<alevel0<alevel1<alevel2<alevel3<alevel4<
    max_pool<3, 3, 2, 2, relu<affine<con<32, 7, 7, 2, 2, input_rgb_image_sized<150>>>>>>>>>>>>>;

void report(char* error, size_t error_len, const char* what) {
    if (error && error_len > 0) {
        std::strncpy(error, what, error_len - 1);
        error[error_len - 1] = '\0';
    }
}
}  // namespace

struct KinoFaces {
    dlib::frontal_face_detector detector = dlib::get_frontal_face_detector();
    bool has_landmarks = false;
    dlib::shape_predictor landmarks;
    anet_type net;
};

namespace {
// Where the aligned chip lies relative to a HOG detector box, without landmarks: the mean over 92
// faces (the astronaut and LFW faces) of what get_face_chip_details gives from 68 landmarks:
// centre shifted by (0.022, 0.020) box sizes, side 1.156 box widths, angle 0 (measured -0.04).
dlib::chip_details chip_from_box(const dlib::rectangle& r) {
    const double w = r.width(), h = r.height();
    const double cx = (r.left() + r.right() + 1) / 2.0 + 0.022 * w;
    const double cy = (r.top() + r.bottom() + 1) / 2.0 + 0.020 * h;
    const double side = 1.156 * w;
    return dlib::chip_details(dlib::centered_drect(dlib::dpoint(cx, cy), side, side), dlib::chip_dims(150, 150));
}
}  // namespace

extern "C" {

// Loads the descriptor network and, when `landmarks` is not null, the landmark predictor that
// aligns each face (else the chip is placed from the detector's box); limits OpenBLAS (when it is
// the BLAS) to `threads` threads. Null on failure.
KinoFaces* kino_faces_load(const char* landmarks, const char* network, int threads, char* error,
                           size_t error_len) {
    try {
        if (threads > 0) {
            using set_threads = void (*)(int);
            if (auto f = reinterpret_cast<set_threads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) f(threads);
        }
        auto* faces = new KinoFaces();
        try {
            if (landmarks) {
                dlib::deserialize(landmarks) >> faces->landmarks;
                faces->has_landmarks = true;
            }
            dlib::deserialize(network) >> faces->net;
        } catch (...) {
            delete faces;
            throw;
        }
        return faces;
    } catch (const std::exception& e) {
        report(error, error_len, e.what());
    } catch (...) {
        report(error, error_len, "unknown C++ exception");
    }
    return nullptr;
}

void kino_faces_free(KinoFaces* faces) { delete faces; }

// Detects faces on a packed RGB24 image and describes each: boxes as left, top, right, bottom in source pixels (4 floats per face), the detector's
// score, and 128 floats of descriptor per face. Writes at most `max_faces` (the best scoring);
// returns how many it wrote, or -1 with `error` set.
int kino_faces_analyze(KinoFaces* faces, const uint8_t* rgb, long width, long height, int max_faces,
                       float* boxes, float* scores, float* descriptors, char* error,
                       size_t error_len) {
    try {
        dlib::matrix<dlib::rgb_pixel> image(height, width);
        for (long y = 0; y < height; ++y)
            for (long x = 0; x < width; ++x) {
                const uint8_t* p = rgb + 3 * (y * width + x);
                image(y, x) = dlib::rgb_pixel(p[0], p[1], p[2]);
            }
        std::vector<dlib::rect_detection> found;
        faces->detector(image, found, 0.0);
        std::sort(found.begin(), found.end(),
                  [](const dlib::rect_detection& a, const dlib::rect_detection& b) {
                      return a.detection_confidence > b.detection_confidence;
                  });
        if (found.size() > static_cast<size_t>(max_faces)) found.resize(max_faces);

        std::vector<dlib::chip_details> placed;
        for (size_t i = 0; i < found.size(); ++i) {
            const dlib::rectangle& r = found[i].rect;
            boxes[4 * i] = r.left();
            boxes[4 * i + 1] = r.top();
            boxes[4 * i + 2] = r.right() + 1;
            boxes[4 * i + 3] = r.bottom() + 1;
            scores[i] = static_cast<float>(found[i].detection_confidence);
            placed.push_back(faces->has_landmarks
                                 ? dlib::get_face_chip_details(faces->landmarks(image, r), 150, 0.25)
                                 : chip_from_box(r));
        }
        if (placed.empty()) return 0;
        std::vector<dlib::matrix<dlib::rgb_pixel>> chips(placed.size());
        for (size_t i = 0; i < placed.size(); ++i) dlib::extract_image_chip(image, placed[i], chips[i]);
        std::vector<dlib::matrix<float, 0, 1>> described = faces->net(chips, 16);
        for (size_t i = 0; i < described.size(); ++i)
            for (long k = 0; k < 128; ++k) descriptors[128 * i + k] = described[i](k);
        return static_cast<int>(described.size());
    } catch (const std::exception& e) {
        report(error, error_len, e.what());
    } catch (...) {
        report(error, error_len, "unknown C++ exception");
    }
    return -1;
}
}
