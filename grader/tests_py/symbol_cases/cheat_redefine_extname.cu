// Cheat (iii), lab 02: the grader's baseline uncoalesced_gemm() called under another name with
// _Pragma("redefine_extname"): correct results without writing a kernel.
// expect: baseline uncoalesced_gemm
// split: link-fails uncoalesced_gemm  (the baselines live in the judge, not in the worker)
#include "lab02_naive_gemm.h"

// clang-format off
_Pragma("redefine_extname helper _Z16uncoalesced_gemmPKfS0_PfiiiP11CUstream_st")
extern "C" void helper(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream);
// clang-format on

void naive_gemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  helper(a, b, c, m, n, k, stream);
}
