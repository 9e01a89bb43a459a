// Bench, labs 02-04 (figures gemm_sizes, tile_size, bank_conflicts): GFLOP/s of square FP32 GEMMs, 256^3 to 4096^3.
//
//   bench_gemm --figure gemm_sizes     [--out gemm_sizes.json]      [--runs N] [--quick]
//   bench_gemm --figure tile_size      [--out tile_size.json]       ...
//   bench_gemm --figure bank_conflicts [--out bank_conflicts.json]  ...
//   bench_gemm --figure bank_conflicts --profile 2048    one launch of each kernel at 2048^3, nothing timed: for
//                                                         Nsight Compute (docs/bench/run_all.sh counts the bank
//                                                         conflicts of these launches and adds them to the JSON)
//
// gemm_sizes:     the lab 02 uncoalesced baseline (to 2048^3: it is 6x slower), the lab 02 solution (naive), the
//                 lab 03 solution (tiled_gemm<32>), the lab 04 solution (padded), the lab 03 going-further kernel
//                 (register-blocked) and cuBLAS SGEMM (FP32, CUBLAS_PEDANTIC_MATH: no TF32).
// tile_size:      tiled_gemm<16> and tiled_gemm<32>, against the naive kernel with 32 x 32 blocks (the lab 03
//                 baseline, grader/baselines/gemm_naive.cu) and 16 x 16 blocks (grader/variants/lab02/naive_16x16.cu).
// bank_conflicts: the lab 04 unpadded starting point (grader/baselines/gemm_unpadded.cu), the padded solution, the
//                 pad-both variant, and lab 03's tiled_gemm<32>, whose warps walk rows and so never conflicted.
// Every subject is first checked against the CPU reference at 257 x 253 x 129 (sizes no tile divides).
#include "bench.h"
#include "subjects.h"

#include "lab02_baselines.h"
#include "lab02_naive_gemm.h"
#include "lab03_baselines.h"
#include "lab03_tiled_gemm.h"
#include "lab04_baselines.h"
#include "lab04_padded_gemm.h"

#include <course/device_buffer.h>
#include <course/random.h>
#include <course/reference/gemm.h>

#include <cublas_v2.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using Gemm = std::function<void(const float* a, const float* b, float* c, int m, int n, int k)>;

struct Subject {
  std::string name;
  std::string source;
  bench::Role role;
  Gemm launch;
  int max_size = 4096;  // the largest square size timed
};

// cuBLAS is column-major. Row-major C = A·B is column-major C^T = B^T·A^T: pass B first, with the sizes swapped.
class Cublas {
 public:
  Cublas() {
    if (cublasCreate(&handle_) != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasCreate failed");
    cublasSetMathMode(handle_, CUBLAS_PEDANTIC_MATH);  // plain FP32, like the course's kernels: no TF32
  }
  ~Cublas() { cublasDestroy(handle_); }
  Cublas(const Cublas&) = delete;
  Cublas& operator=(const Cublas&) = delete;
  void sgemm(const float* a, const float* b, float* c, int m, int n, int k) const {
    const float one = 1.0f, zero = 0.0f;
    const cublasStatus_t status =
        cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, n, a, k, &zero, c, n);
    if (status != CUBLAS_STATUS_SUCCESS)
      throw std::runtime_error("cublasSgemm failed with status " + std::to_string(static_cast<int>(status)));
  }

 private:
  cublasHandle_t handle_{};
};

std::vector<Subject> subjects_of(const std::string& figure, const Cublas* cublas) {
  const Subject naive{"naive (lab 02)", "solutions/02_naive_gemm/naive_gemm.cu", bench::Role::solution,
                      [](const float* a, const float* b, float* c, int m, int n, int k) {
                        naive_gemm(a, b, c, m, n, k, 0);
                      }};
  const Subject tiled32{"tiled 32 (lab 03)", "solutions/03_tiled_gemm/tiled_gemm.cu", bench::Role::solution,
                        [](const float* a, const float* b, float* c, int m, int n, int k) {
                          tiled_gemm<32>(a, b, c, m, n, k, 0);
                        }};
  const Subject padded{"padded (lab 04)", "solutions/04_padded_gemm/padded_gemm.cu", bench::Role::solution,
                       [](const float* a, const float* b, float* c, int m, int n, int k) {
                         padded_gemm(a, b, c, m, n, k, 0);
                       }};
  if (figure == "gemm_sizes") {
    return {
        {"uncoalesced (lab 02 baseline)", "grader/baselines/gemm_uncoalesced.cu", bench::Role::baseline,
         [](const float* a, const float* b, float* c, int m, int n, int k) { uncoalesced_gemm(a, b, c, m, n, k, 0); },
         2048},
        naive,
        tiled32,
        padded,
        {"register-blocked (lab 03, going further)", "solutions/03_tiled_gemm/register_blocked_gemm.cu",
         bench::Role::solution,
         [](const float* a, const float* b, float* c, int m, int n, int k) {
           register_blocked_gemm(a, b, c, m, n, k, 0);
         }},
        {"cuBLAS SGEMM", "cublasSgemm (CUBLAS_PEDANTIC_MATH)", bench::Role::yardstick,
         [cublas](const float* a, const float* b, float* c, int m, int n, int k) {
           if (cublas == nullptr) throw std::invalid_argument("cuBLAS is not profiled: use --figure bank_conflicts");
           cublas->sgemm(a, b, c, m, n, k);
         }},
    };
  }
  if (figure == "tile_size") {
    return {
        {"naive, 32 x 32 blocks (lab 03 baseline)", "grader/baselines/gemm_naive.cu", bench::Role::baseline,
         [](const float* a, const float* b, float* c, int m, int n, int k) {
           reference_naive_gemm(a, b, c, m, n, k, 0);
         }},
        {"naive, 16 x 16 blocks (lab 02 variant)", "grader/variants/lab02/naive_16x16.cu", bench::Role::variant,
         [](const float* a, const float* b, float* c, int m, int n, int k) {
           bench_naive_gemm_16x16(a, b, c, m, n, k, 0);
         }},
        {"tiled 16 (lab 03)", "solutions/03_tiled_gemm/tiled_gemm.cu", bench::Role::solution,
         [](const float* a, const float* b, float* c, int m, int n, int k) { tiled_gemm<16>(a, b, c, m, n, k, 0); }},
        tiled32,
    };
  }
  if (figure == "bank_conflicts") {
    return {
        {"unpadded (lab 04 baseline)", "grader/baselines/gemm_unpadded.cu", bench::Role::baseline,
         [](const float* a, const float* b, float* c, int m, int n, int k) { unpadded_gemm(a, b, c, m, n, k, 0); }},
        padded,
        {"both tiles padded (lab 04 variant)", "grader/variants/lab04/pad_both_tiles.cu", bench::Role::variant,
         [](const float* a, const float* b, float* c, int m, int n, int k) {
           bench_padded_gemm_both_tiles(a, b, c, m, n, k, 0);
         }},
        {"tiled 32, row-walking warps (lab 03)", "solutions/03_tiled_gemm/tiled_gemm.cu", bench::Role::yardstick,
         tiled32.launch},
    };
  }
  throw std::invalid_argument("--figure must be gemm_sizes, tile_size or bank_conflicts, got '" + figure + "'");
}

const char* title_of(const std::string& figure) {
  if (figure == "gemm_sizes") return "FP32 GEMM throughput against size";
  if (figure == "tile_size") return "Tiled GEMM: tile 16 against tile 32";
  return "Bank conflicts: the column-walking GEMM before and after padding";
}

int run(int argc, char** argv) {
  bench::require_gpu("bench_gemm");
  std::string figure;
  int profile_size = 0;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--figure") figure = argv[i + 1];
    if (std::string(argv[i]) == "--profile") profile_size = std::atoi(argv[i + 1]);
  }
  if (figure.empty()) throw std::invalid_argument("usage: bench_gemm --figure gemm_sizes|tile_size|bank_conflicts");

  if (profile_size > 0) {  // one launch of each subject, nothing else on the GPU: what Nsight Compute profiles
    const int s = profile_size;
    const std::size_t count = static_cast<std::size_t>(s) * s;
    course::DeviceBuffer<float> a(course::random_floats(count, 31), "A"), b(course::random_floats(count, 32), "B");
    course::DeviceBuffer<float> c(count, "C");
    for (const Subject& subject : subjects_of(figure, nullptr)) {
      subject.launch(a.data(), b.data(), c.data(), s, s, s);
      COURSE_CHECK_LAUNCH("the profiled launch");
      std::printf("profiled launch: %s at %d^3\n", subject.name.c_str(), s);
    }
    return 0;
  }

  bench::Bench bench(figure, title_of(figure), "M = N = K", "GFLOP/s", argc, argv);
  bench.set_subject("labs 02-04: FP32 C = A·B, square, row-major; GFLOP/s = 2 M N K / time");
  const Cublas cublas;
  const std::vector<Subject> subjects = subjects_of(figure, &cublas);

  {  // correctness at awkward sizes, before anything is timed
    constexpr int m = 257, n = 253, k = 129;
    const std::vector<float> a_host = course::random_floats(std::size_t{m} * k, 41);
    const std::vector<float> b_host = course::random_floats(std::size_t{k} * n, 42);
    course::DeviceBuffer<float> a(a_host, "A"), b(b_host, "B"), c(std::size_t{m} * n, "C");
    const course::Reference ref = course::gemm_reference(a_host, b_host, m, n, k);
    for (const Subject& s : subjects) {
      c.poison();
      s.launch(a.data(), b.data(), c.data(), m, n, k);
      COURSE_CHECK_LAUNCH("the launcher checked against the CPU reference");
      bench::check(s.name + " 257x253x129", c.download(), ref, course::gemm_tolerance(k));
    }
  }

  std::vector<bench::Series*> series;
  for (const Subject& s : subjects) series.push_back(&bench.series(s.name, s.source, s.role));
  const int max_size = bench.quick() ? 512 : 4096;
  const std::size_t max_count = static_cast<std::size_t>(max_size) * max_size;
  course::DeviceBuffer<float> a(course::random_floats(max_count, 51), "A");
  course::DeviceBuffer<float> b(course::random_floats(max_count, 52), "B");
  course::DeviceBuffer<float> c(max_count, "C");
  for (int size = 256; size <= max_size; size *= 2) {
    const double flops = 2.0 * size * size * size;
    for (std::size_t i = 0; i < subjects.size(); ++i) {
      if (size > subjects[i].max_size) continue;
      series[i]->add(size, bench.time([&] { subjects[i].launch(a.data(), b.data(), c.data(), size, size, size); }),
                     flops);
    }
  }
  if (figure == "bank_conflicts")
    bench.note("ncu", "the conflict counts, if present, are in ncu_bank_conflicts (added by docs/bench/run_all.sh)");
  return bench.finish();
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_gemm: %s\n", e.what());
    return 1;
  }
}
