// Sample submission (grader/samples): calls cuBLAS instead of writing a kernel (C = 1*A + 1*B with cublasSgeam).
// Expected verdict: forbidden, found in the source before anything is built.
#include <cublas_v2.h>

#include "lab01_matadd.h"

void matadd(const float* a, const float* b, float* c, int rows, int cols, cudaStream_t stream) {
  static cublasHandle_t handle = nullptr;
  if (handle == nullptr) cublasCreate(&handle);
  cublasSetStream(handle, stream);
  const float one = 1.0f;
  // Row-major rows x cols is column-major cols x rows.
  cublasSgeam(handle, CUBLAS_OP_N, CUBLAS_OP_N, cols, rows, &one, a, cols, &one, b, cols, c, cols);
}
