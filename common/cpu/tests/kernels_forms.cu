// Self-test kernels of the CPU backend: valid CUDA forms that red-teams of the rewriter found mishandled in check
// mode (issue 12): they did not compile, computed something else, or printed garbage. Compiled through
// course-rewrite in fast and in check mode; each must give the GPU's result with no diagnostic in both.
#include "kernels_idioms.h"

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>

#include <cstdio>

// A conditional whose operands are elements is an lvalue: a reference binds to the chosen element (two shared
// elements, a shared and a global one, a local and a shared one), and an assignment or ++ changes it.
__global__ void conditionalReferences(float* g, float* out) {
  __shared__ float s[64];
  const int t = threadIdx.x;  // 32 threads
  float local = -1.0f;
  s[t] = static_cast<float>(t);
  s[t + 32] = static_cast<float>(100 + t);
  __syncthreads();
  float& pick = (t & 1) ? s[t] : s[t + 32];
  pick += 1000.0f;
  float& either_memory = t % 3 == 0 ? s[t] : g[t];
  either_memory *= 2.0f;
  float& maybe_local = t > 100 ? local : s[t + 32];
  maybe_local -= 1.0f;
  ((t & 2) ? s[t] : s[t + 32]) += 10000.0f;  // assigned to, not bound to a reference
  (t % 5 == 0 ? g[t] : s[t]) = 0.5f;
  ++((t & 4) ? s[t + 32] : s[t]);
  __syncthreads();
  out[t] = s[t] + s[t + 32] + local;
}
cudaError_t run_conditional_references(float* g, float* out) {
  conditionalReferences<<<1, 32>>>(g, out);
  return cudaDeviceSynchronize();
}

// A __shared__ array of pointers assigned arrays (they decay to their first element's address), and rows read
// through it.
__global__ void pointerRows(const float* in, float* out) {
  __shared__ float even[32], odd[32];
  __shared__ float* rows[2];
  const int t = threadIdx.x;  // 32 threads
  if (t == 0) {
    rows[0] = even;
    rows[1] = odd;
  }
  even[t] = in[t];
  odd[t] = 10.0f * in[t];
  __syncthreads();
  out[t] = rows[t & 1][t];
}
cudaError_t run_pointer_rows(const float* in, float* out) {
  pointerRows<<<1, 32>>>(in, out);
  return cudaDeviceSynchronize();
}

// Array references to rows of a shared tile: written through one, read back through the tile and through a reference
// to const. shift 1 binds thread 31's reference one row past the tile.
__global__ void rowReferences(float* out, int shift) {
  __shared__ float tile[32][33];
  const int t = threadIdx.x;          // 32 threads
  float(&row)[33] = tile[t + shift];  // @row-reference
  for (int j = 0; j < 33; ++j) row[j] = static_cast<float>(t) + 0.5f * static_cast<float>(j);
  __syncthreads();
  const float(&mine)[33] = tile[t];
  out[t] = tile[(t + 1) % 32][4] + mine[32];
}
cudaError_t run_row_references(float* out, int shift) {
  rowReferences<<<1, 32>>>(out, shift);
  return cudaDeviceSynchronize();
}

// __managed__ variables passed to a kernel by address: device-accessible memory, as on a GPU.
__managed__ float managed_out[32];
__managed__ int managed_count;
__global__ void countInto(float* out, int* count) {
  out[threadIdx.x] = 0.5f * static_cast<float>(threadIdx.x);
  atomicAdd(count, 1);
}
cudaError_t run_managed_variables(float* host_copy, int* count) {
  managed_count = 0;
  countInto<<<1, 32>>>(managed_out, &managed_count);
  cudaError_t e = cudaDeviceSynchronize();
  if (e == cudaSuccess) e = cudaMemcpy(host_copy, managed_out, sizeof(managed_out), cudaMemcpyDeviceToHost);
  *count = managed_count;
  return e;
}

// printf reached through macros, with shared elements among the arguments.
#define LOG(fmt, ...) printf(fmt, __VA_ARGS__)
#define SHOW(x) std::printf("show %.2f\n", x)
__global__ void printThroughMacros() {
  __shared__ float s[32];
  s[threadIdx.x] = 0.25f * static_cast<float>(threadIdx.x);
  __syncthreads();
  if (threadIdx.x == 3) {
    LOG("log %.2f %d\n", s[3], 7);
    SHOW(s[5]);
  }
}
cudaError_t run_print_through_macros() {
  printThroughMacros<<<1, 32>>>();
  return cudaDeviceSynchronize();
}

// Pointer forms that are checked like subscripts: *p++ and *++p (a walking pointer), *(i + p) (the offset first)
// and p->x (a struct element, bounds-checked). `bug` 1: the walk goes one element past the end of `out`; 2: one
// thread reads a neighbour's shared word with no barrier in between; 3: p->x one struct past the end of `pts`.
struct Point {
  float x, y;
};
__global__ void pointerForms(const float* in, const Point* pts, float* out, int n, int bug) {
  __shared__ float s[32];
  const int t = threadIdx.x;  // 32 threads, n == 4 floats each
  const float* src = in + t * n;
  float* dst = out + t * n;
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) sum += *src++;
  *(t + s) = sum;
  if (bug == 2 && t == 1) sum += *(1 + s - 1);  // @offset-race: s[0], thread 0 wrote it, no barrier
  __syncthreads();
  const Point* p = pts + t + (bug == 3 && t == 31 ? 1 : 0);
  const float across = *((t + 1) % 32 + s);
  *dst = across + p->x * p->y;                                                                       // @arrow
  for (int i = 1; i < n + (bug == 1 && t == 31 ? 1 : 0); ++i) *++dst = static_cast<float>(i) + sum;  // @walk
}
cudaError_t run_pointer_forms(const float* in, const void* points, float* out, int bug) {
  pointerForms<<<1, 32>>>(in, static_cast<const Point*>(points), out, 4, bug);
  return cudaDeviceSynchronize();
}

// A dereference multiplied by a name (`n * *mine`) and a cast of a walking pointer dereferenced (`*(const float4*)src++`):
// both checked like subscripts, and src steps once. `bug` 1: no barrier between the tile's stores and the neighbours'
// reads; 2: the last thread's float4 starts at in[64], past the end of `in`.
__global__ void multipliedAndSteppedDerefs(const float* in, float* out, int bug) {
  __shared__ __align__(16) float tile[64];
  const int t = threadIdx.x;  // 16 threads
  const float* src = in + 4 * t + (bug == 2 && t == 15 ? 4 : 0);
  *(float4*)(tile + 4 * t) = *(const float4*)src++;  // @stepped-cast-read
  if (bug != 1) __syncthreads();
  const float* mine = tile + 4 * ((t + 1) % 16);
  const int n = 2;
  const float v = n * *mine;  // @multiplied-read
  out[t] = v + *src;
}
cudaError_t run_multiplied_and_stepped_derefs(const float* in, float* out, int bug) {
  multipliedAndSteppedDerefs<<<1, 16>>>(in, out, bug);
  return cudaDeviceSynchronize();
}

// -1 (all one bits, like the checks' fill of shared memory) stored where the checks cannot follow the write: through
// a reference parameter and as an int4 element through a pointer to non-const. The reads after the barrier are no
// uninitialized reads.
__device__ void mark_unused(int& slot) { slot = -1; }
__global__ void sentinelsThroughReferences(int* out) {
  __shared__ int owner[32];
  __shared__ int4 quads[8];
  const int t = threadIdx.x;  // 32 threads
  if (t % 2 == 0) {
    mark_unused(owner[t]);
  } else {
    owner[t] = t;
  }
  if (t < 8) quads[t] = make_int4(-1, -1, t, -1);
  __syncthreads();
  const int* flat = reinterpret_cast<const int*>(quads);
  out[t] = owner[t] + 1000 * flat[t];
}
cudaError_t run_sentinels_through_references(int* out) {
  sentinelsThroughReferences<<<1, 32>>>(out);
  return cudaDeviceSynchronize();
}

// The CUDA Programming Guide's atomicAdd for double on GPUs before sm_60, under the guard nvcc 13 accepts: at file scope
// __CUDA_ARCH__ is undefined in nvcc's host pass and here, 900 in its device pass; neither takes the definition.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 600
#else
__device__ double atomicAdd(double* address, double val) {
  auto* word = reinterpret_cast<unsigned long long*>(address);
  unsigned long long old = *word, assumed;
  do {
    assumed = old;
    old = atomicCAS(word, assumed, __double_as_longlong(val + __longlong_as_double(assumed)));
  } while (assumed != old);
  return __longlong_as_double(old);
}
#endif

// __CUDA_ARCH__ inside a device function takes the device pass's branch.
__host__ __device__ int compiled_for_device() {
#ifdef __CUDA_ARCH__
  return __CUDA_ARCH__ >= 700 ? 2 : 1;
#else
  return 0;
#endif
}

// Math functions of elements, of mixed argument types where nvcc 13 accepts them (pow(float, double) and pow(float,
// int); it rejects sqrt(int) and fmax(float, double) without --expt-relaxed-constexpr, as host-only constexpr
// templates), casts of elements to references, and a flag many threads set to the same value (no race: the value is
// the same whichever store lands last).
__global__ void libraryForms(const float* x, const int* n, double* total, float* out) {
  __shared__ __align__(16) float s[128];
  __shared__ int found;
  const int t = threadIdx.x;  // 32 threads
  if (t == 0) found = 0;
  reinterpret_cast<float4&>(s[4 * t]) = reinterpret_cast<const float4&>(x[4 * t]);
  __syncthreads();
  if (n[t] == 3) found = 1;
  const float2 pair = (float2&)s[2 * t];
  const double v = pow(x[t], 2.0) + pow(s[t], 3) + sqrt(s[t]) + fmax(s[t], 0.5f) + pair.x + pair.y;
  atomicAdd(total, v);
  __syncthreads();
  out[t] = static_cast<float>(v) + static_cast<float>(found * 100 + compiled_for_device() * 1000);
}
cudaError_t run_library_forms(const float* x, const int* n, double* total, float* out) {
  libraryForms<<<1, 32>>>(x, n, total, out);
  return cudaDeviceSynchronize();
}

// Launches that name a kernel of this file shared with other functions: overloads of one kernel name, a default
// argument, and a kernel named like a standard algorithm where `using namespace std;` makes std::copy visible too.
__global__ void scaleBy(float* p, float f) { p[threadIdx.x] *= f; }
__global__ void scaleBy(int* p, int f) { p[threadIdx.x] *= f; }
__global__ void addTo(float* p, float v = 0.5f);
__global__ void addTo(float* p, float v) { p[threadIdx.x] += v; }
namespace forms_std {
using namespace std;
__global__ void copy(const float* a, float* b) { b[threadIdx.x] = a[threadIdx.x]; }
cudaError_t run(const float* a, float* b) {
  copy<<<1, 32>>>(a, b);
  return cudaDeviceSynchronize();
}
}  // namespace forms_std
// Launches inside a macro (the kernel named by the macro's argument) and of a parenthesized kernel name.
#define LAUNCH_ON_A_WARP(kernel, ...) kernel<<<1, 32>>>(__VA_ARGS__)
cudaError_t run_shared_kernel_names(const float* in, float* out, int* ints) {
  cudaError_t e = forms_std::run(in, out);
  LAUNCH_ON_A_WARP(scaleBy, out, 3.0f);
  (scaleBy)<<<1, 32>>>(ints, 5);
  addTo<<<1, 32>>>(out);
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  return e;
}

// __activemask() on both sides of a branch, in a partial last warp, before a shuffle of the whole warp, and in
// converged code feeding a shuffle of its mask: out[t] gets the mask thread t saw, sums[t] the shuffled values.
__global__ void activeMasks(unsigned* out, int* sums) {
  const int t = threadIdx.x;  // 72 threads: warps 0 and 1 whole, warp 2 of 8 lanes
  const int lane = t % 32;
  unsigned mask;
  if (lane < 16)
    mask = __activemask();
  else
    mask = __activemask() | 0x10000000u * 0;  // the other side of the branch: another line
  int v = t;
  if (t < 32 && lane < 16) v += __shfl_xor_sync(__activemask(), v, 8);  // within the half that takes the branch
  v = __shfl_sync(0xffffffffu & __activemask(), v, 0);                  // the whole (existing) warp again
  out[t] = mask;
  sums[t] = v;
}
cudaError_t run_active_masks(unsigned* out, int* sums) {
  activeMasks<<<1, 72>>>(out, sums);
  return cudaDeviceSynchronize();
}

// Coalesced groups: warp-aggregated atomics (one atomicAdd per group of the lanes with a positive input, by its rank
// 0, the base shuffled to the others), and cg::reduce over the group of the odd lanes. ranks[t] is
// 100 * size + rank in the first group (-1 outside it).
__global__ void coalescedGroups(const int* in, int* slots, int* count, int* ranks, int* sums) {
  namespace cg = cooperative_groups;
  const int t = threadIdx.x;  // 64 threads
  ranks[t] = -1;
  if (in[t] > 0) {
    const cg::coalesced_group g = cg::coalesced_threads();
    int base = 0;
    if (g.thread_rank() == 0) base = atomicAdd(count, static_cast<int>(g.size()));
    base = g.shfl(base, 0);
    slots[base + g.thread_rank()] = t;
    ranks[t] = static_cast<int>(100 * g.size() + g.thread_rank());
  }
  if (t % 2 == 1) {
    const cg::coalesced_group odd = cg::coalesced_threads();
    sums[t] = cg::reduce(odd, in[t], cg::plus<int>()) + 1000 * odd.ballot(in[t] > 0);
  }
}
cudaError_t run_coalesced_groups(const int* in, int* slots, int* count, int* ranks, int* sums) {
  coalescedGroups<<<1, 64>>>(in, slots, count, ranks, sums);
  return cudaDeviceSynchronize();
}

// One helper that aggregates an increment over its coalesced group, called on both sides of a branch with different
// counters: each side is its own group (the same line, reached by different calls). Then two __activemask() calls
// on one line, on the two sides of a conditional.
__device__ int aggregatedIncrement(int* counter) {
  namespace cg = cooperative_groups;
  const cg::coalesced_group g = cg::coalesced_threads();
  int base = 0;
  if (g.thread_rank() == 0) base = atomicAdd(counter, static_cast<int>(g.size()));
  return g.shfl(base, 0) + static_cast<int>(g.thread_rank());
}
__global__ void aggregatedBranches(int* counters, int* slots, unsigned* masks) {
  const int t = threadIdx.x;  // 32 threads
  if (t % 2 == 0)
    slots[t] = aggregatedIncrement(&counters[0]);
  else
    slots[t] = aggregatedIncrement(&counters[1]);
  masks[t] = t % 4 == 0 ? __activemask() : __activemask();
}
cudaError_t run_aggregated_branches(int* counters, int* slots, unsigned* masks) {
  aggregatedBranches<<<1, 32>>>(counters, slots, masks);
  return cudaDeviceSynchronize();
}
