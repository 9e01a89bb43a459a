// Adversarial suite (grader/adversarial/honest.toml): honest_libc_names. Correct code whose names are libc's: a
// launch plan with member functions open(), read(), write(), close() and system(), a helper named fork() that splits
// the rows, a namespace io with read(), locals named signal and exit. None of them calls libc: graded like any
// correct kernel.
#include "lab01_matadd.h"

namespace io {
// How many rows each of `parts` launches takes: the rows split as evenly as possible.
int read(int rows, int parts) { return (rows + parts - 1) / parts; }
}  // namespace io

// Splits `rows` into the number of launches the plan makes (one per 32768 rows, at least one).
int fork(int rows) { return rows / 32768 + 1; }

namespace {

struct LaunchPlan {
  dim3 block;
  int launches = 0, rows_per_launch = 0;
  bool opened = false;
  void open(int rows) {
    block = dim3(32, 8);
    launches = fork(rows);
    rows_per_launch = io::read(rows, launches);
    opened = true;
  }
  int read() const { return rows_per_launch; }
  dim3 write(int cols, int rows) const { return dim3((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y); }
  const char* system() const { return "CUDA"; }
  void close() { opened = false; }
};

__global__ void matadd_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int rows,
                              int cols) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows || col >= cols) return;
  const long long i = static_cast<long long>(row) * cols + col;
  c[i] = a[i] + b[i];
}

}  // namespace

void matadd(const float* a, const float* b, float* c, int rows, int cols, cudaStream_t stream) {
  LaunchPlan plan;
  plan.open(rows);
  const int signal = plan.read(), exit = plan.launches;
  for (int part = 0; part < exit; ++part) {
    const int first = part * signal;
    const int count = rows - first < signal ? rows - first : signal;
    if (count <= 0) break;
    const long long offset = static_cast<long long>(first) * cols;
    matadd_kernel<<<plan.write(cols, count), plan.block, 0, stream>>>(a + offset, b + offset, c + offset, count, cols);
  }
  plan.close();
}
