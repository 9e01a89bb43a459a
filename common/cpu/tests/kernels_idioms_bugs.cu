// Self-test kernels of the CPU backend: the idioms of kernels_idioms.cu with the bug check mode must still find
// (the lines marked @name are the ones the diagnoses must name).
#include "kernels_idioms.h"

#include <cooperative_groups.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

// The classic pre-Volta warp-synchronous tail: no __syncwarp(), so lane t reads sdata[t + 16] while lane t + 16
// writes it in the same step. A race since Volta (independent thread scheduling).
__device__ void warpReduceUnsafe(volatile float* sdata, unsigned tid) {
  sdata[tid] += sdata[tid + 32];
  sdata[tid] += sdata[tid + 16];  // @volatile-race
  sdata[tid] += sdata[tid + 8];
  sdata[tid] += sdata[tid + 4];
  sdata[tid] += sdata[tid + 2];
  sdata[tid] += sdata[tid + 1];
}
__global__ void volatileWithoutSyncwarp(const float* in, float* out) {
  __shared__ float sdata[64];
  const unsigned tid = threadIdx.x;
  sdata[tid] = in[tid];
  __syncthreads();
  if (tid < 32) warpReduceUnsafe(sdata, tid);
  if (tid == 0) out[0] = sdata[0];
}
cudaError_t run_volatile_without_syncwarp(const float* in, float* out) {
  volatileWithoutSyncwarp<<<1, 64>>>(in, out);
  return cudaDeviceSynchronize();
}

// __syncwarp() between the steps is not enough when a step both reads and writes: lane t reads sdata[t + 16] in the
// same statement in which lane t + 16 writes it.
__device__ void warpReduceSyncwarpBetween(volatile float* sdata, unsigned tid) {
  sdata[tid] += sdata[tid + 32];
  __syncwarp();
  sdata[tid] += sdata[tid + 16];  // @syncwarp-between-race
  __syncwarp();
  sdata[tid] += sdata[tid + 8];
  __syncwarp();
}
__global__ void syncwarpBetweenUpdates(const float* in, float* out) {
  __shared__ float sdata[64];
  const unsigned tid = threadIdx.x;
  sdata[tid] = in[tid];
  __syncthreads();
  if (tid < 32) warpReduceSyncwarpBetween(sdata, tid);
  if (tid == 0) out[0] = sdata[0];
}
cudaError_t run_syncwarp_between_updates(const float* in, float* out) {
  syncwarpBetweenUpdates<<<1, 64>>>(in, out);
  return cudaDeviceSynchronize();
}

// tile.sync() reached by only some lanes of the tile.
__global__ void partialTileSync(float* out) {
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
  if (tile.thread_rank() < 8) tile.sync();  // @partial-tile-sync
  out[threadIdx.x] = 1.0f;
}
cudaError_t run_partial_tile_sync(float* out) {
  partialTileSync<<<1, 32>>>(out);
  return cudaDeviceSynchronize();
}

// A 16-thread tile's sync() orders only its own lanes: reading the other half's element is a race.
__global__ void tileRace(float* out) {
  __shared__ float s[32];
  auto tile = cg::tiled_partition<16>(cg::this_thread_block());
  s[threadIdx.x] = static_cast<float>(threadIdx.x);
  tile.sync();
  const float same = s[threadIdx.x ^ 1];    // the same tile: ordered by its sync()
  const float other = s[threadIdx.x ^ 16];  // @tile-race
  out[threadIdx.x] = same + other;
}
cudaError_t run_tile_race(float* out) {
  tileRace<<<1, 32>>>(out);
  return cudaDeviceSynchronize();
}

// Warp rendezvous order transitively: lane 3's write reaches lane 31 through lane 15, which syncs first with lanes
// 0..15 and then with lane 31 (`linked`); without the second __syncwarp lane 31's read is a race.
__global__ void warpChain(float* out, bool linked) {
  __shared__ float s[32];
  const unsigned lane = threadIdx.x;
  if (lane == 3) s[3] = 3.0f;
  if (lane < 16) __syncwarp(0x0000ffffu);
  if (linked && (lane == 15 || lane == 31)) __syncwarp(0x80008000u);
  if (lane == 31) out[0] = s[3];  // @warp-chain
}
cudaError_t run_warp_chain(float* out, bool linked) {
  warpChain<<<1, 32>>>(out, linked);
  return cudaDeviceSynchronize();
}

// A reference to a shared element is checked like the element: a write through it races with a neighbour's read.
__global__ void referenceRace(float* out) {
  __shared__ float s[64];
  float& mine = s[threadIdx.x];
  mine = 1.0f;
  out[threadIdx.x] = s[(threadIdx.x + 1) % 64];  // @reference-race
}
cudaError_t run_reference_race(float* out) {
  referenceRace<<<1, 64>>>(out);
  return cudaDeviceSynchronize();
}

// float4 stores fill tile[0..127]; tile[130] is read but no one wrote it.
__global__ void float4ThenUnwritten(const float* in, float* out) {
  __shared__ __align__(16) float tile[132];
  reinterpret_cast<float4*>(tile)[threadIdx.x] = reinterpret_cast<const float4*>(in)[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x] + tile[130];  // @float4-unwritten
}
cudaError_t run_float4_then_unwritten(const float* in, float* out) {
  float4ThenUnwritten<<<1, 32>>>(in, out);
  return cudaDeviceSynchronize();
}

// A shared element read in a conditional is still checked: no barrier between the write and the read.
__global__ void ternaryRace(float* out) {
  __shared__ float s[32];
  s[threadIdx.x] = 2.0f;
  out[threadIdx.x] = threadIdx.x < 16 ? s[threadIdx.x + 16] : 0;  // @ternary-race
}
cudaError_t run_ternary_race(float* out) {
  ternaryRace<<<1, 32>>>(out);
  return cudaDeviceSynchronize();
}

// Function templates of this file called with shared elements: their parameters are deduced as the element's type,
// as nvcc deduces them (swap's T&, a helper's T by value); the by-value read is still checked (racy: no barrier after
// the stores, so the read of a neighbour's element races).
template <typename T>
__device__ void swapValues(T& a, T& b) {
  const T t = a;
  a = b;
  b = t;
}
template <typename T>
__device__ T doubled(T v) {
  return v + v;
}
// The same deduction where the qualifiers are a macro, the template is a member, or some arguments are explicit: each
// helper changes its by-value copy, which once wrote the shared element (the rewriter saw only `__device__` templates
// called by their plain name).
#define IDIOM_DEVICE __device__ __forceinline__
template <typename T>
IDIOM_DEVICE T tripled(T v) {
  v *= 3;
  return v;
}
template <int K, typename T>
IDIOM_DEVICE T scaledBy(T v) {
  v *= static_cast<T>(K);
  return v;
}
template <typename T>
IDIOM_DEVICE void swapByMacro(T& a, T& b) {
  const T t = a;
  a = b;
  b = t;
}
struct IdiomStep {
  template <typename T>
  __device__ T next(T v) const {
    v += 1;
    return v;
  }
};
__global__ void templateHelpers(float* out, int racy) {
  __shared__ float s[64];
  s[threadIdx.x] = static_cast<float>(threadIdx.x);
  if (!racy) __syncthreads();
  if (threadIdx.x == 0 && !racy) swapValues(s[0], s[1]);
  if (threadIdx.x == 2 && !racy) swapByMacro(s[2], s[3]);
  if (!racy) __syncthreads();
  const IdiomStep step;
  const IdiomStep* stepper = &step;
  const float copies =
      tripled(s[threadIdx.x]) + scaledBy<4>(s[threadIdx.x]) + step.next(s[threadIdx.x]) + stepper->next(s[threadIdx.x]);
  if (!racy) __syncthreads();
  out[threadIdx.x] = doubled(s[threadIdx.x ^ 1]) + copies;  // @template-argument-read
}
cudaError_t run_template_helpers(float* out, int racy) {
  templateHelpers<<<1, 64>>>(out, racy);
  return cudaDeviceSynchronize();
}

// Forms that once did not compile or computed differently in check mode: an element as the index of another
// (a histogram's bins[in[i]], a gather x[col[j]], a __shared__ count as an index), a lambda and a generic lambda
// given or returning elements, `auto v{s[i]}`, a row of a 2D tile kept in `auto` and walked with *row++, and *(p).
#define IDIOM_MAX(a, b) ((a) > (b) ? (a) : (b))
__global__ void indexForms(const int* in, const int* col, const float* x, float* out, int n) {
  __shared__ unsigned bins[8];
  __shared__ int count;
  __shared__ float tile[4][8];
  if (threadIdx.x < 8) bins[threadIdx.x] = 0;
  if (threadIdx.x == 0) count = 3;
  tile[threadIdx.x / 8][threadIdx.x % 8] = static_cast<float>(threadIdx.x);
  __syncthreads();
  if (threadIdx.x < n) atomicAdd(&bins[in[threadIdx.x]], 1u);
  __syncthreads();
  auto at = [&](int i) { return x[col[i]]; };
  auto twice = [](auto v) { return v + v; };
  auto first{tile[0][count]};
  auto row = tile[threadIdx.x % 4];
  float walk = 0.0f;
  for (int k = 0; k < 8; ++k) walk += *row++;
  const float gathered = at(threadIdx.x) + twice(x[col[threadIdx.x]]) + IDIOM_MAX(x[col[threadIdx.x]], 0);
  *(out + threadIdx.x) = gathered + walk + first + static_cast<float>(bins[threadIdx.x % 8]);
  if (threadIdx.x == 0) *(out) += 0.0f;
}
cudaError_t run_index_forms(const int* in, const int* col, const float* x, float* out, int n) {
  indexForms<<<1, 32>>>(in, col, x, out, n);
  return cudaDeviceSynchronize();
}

// A histogram in shared memory made with atomics, which check mode checks as read-modify-writes: form 0 (correct):
// zero the bins, __syncthreads(), atomicAdd, __syncthreads(), copy out; 1 (bug): no __syncthreads() after the zeroing;
// 2 (bug): bins[v + 1], one past the last bin for v == 7; 3 (bug): a plain read of a bin while other threads still
// add to it; 4 (bug): a global atomicAdd one past the end of `out` (8 elements); 5 (bug): thread 0 zeroes a shared
// total and adds to it with no __syncthreads() before the others add (its zero may come last on a GPU). The bins are
// the dynamic shared
// memory, which nothing follows: one past a static array is the next array's memory, where an atomic is checked as
// that array's (see docs/cpu-backend.md).
__global__ void sharedHistogram(const int* in, unsigned* out, int form) {
  extern __shared__ unsigned bins[];
  __shared__ unsigned seen[32];
  __shared__ unsigned total;
  if (form == 5) {
    if (threadIdx.x == 0) total = 0;
    atomicAdd(&total, 1u);  // @hist-total
  }
  if (threadIdx.x < 8) bins[threadIdx.x] = 0;
  if (form != 1) __syncthreads();
  const int v = in[threadIdx.x];
  atomicAdd(&bins[form == 2 ? v + 1 : v], 1u);  // @hist-add
  if (form == 3) seen[threadIdx.x] = bins[v];   // @hist-peek
  __syncthreads();
  if (threadIdx.x < 8) out[threadIdx.x] = bins[threadIdx.x];
  if (form == 4 && threadIdx.x == 0) atomicAdd(&out[8], 1u);  // @hist-global
}
cudaError_t run_shared_histogram(const int* in, unsigned* out, int form) {
  sharedHistogram<<<1, 32, 8 * sizeof(unsigned)>>>(in, out, form);
  return cudaDeviceSynchronize();
}

// Pointer parameters of __device__ helpers pointing into the thread's local array, its local variables, a __constant__
// table and a __device__ array: valid CUDA, performed unchecked in check mode (these once were reported as "not a
// device pointer" and not performed). A host pointer handed to a helper is reported: on a GPU it is an illegal address.
__constant__ float idiomWeights[4] = {1.0f, 2.0f, 3.0f, 4.0f};
__device__ float idiomScratch[64];
__device__ void fillFour(float* v, float x) {
  for (int i = 0; i < 4; ++i) v[i] = x + static_cast<float>(i);
}
__device__ float dotFour(const float* a, const float* b) {
  float sum = 0.0f;
  for (int i = 0; i < 4; ++i) sum += a[i] * b[i];
  return sum;
}
__device__ void minMaxFour(const float* v, float* lo, float* hi) {
  *lo = v[0];
  *hi = v[0];
  for (int i = 1; i < 4; ++i) {
    *lo = fminf(*lo, v[i]);
    *hi = fmaxf(*hi, v[i]);
  }
}
__device__ void stash(float* dst, int i, float v) { dst[i] = v; }  // @stash
__global__ void devicePointerHelpers(const float* in, float* out) {
  float regs[4];
  fillFour(regs, in[threadIdx.x]);
  float lo, hi;
  minMaxFour(regs, &lo, &hi);
  stash(idiomScratch, threadIdx.x, dotFour(regs, idiomWeights));
  out[threadIdx.x] = idiomScratch[threadIdx.x] + lo + hi;
}
__global__ void hostPointerToHelper(const float* in, float* out) { stash(out, threadIdx.x, in[threadIdx.x]); }
cudaError_t run_device_pointer_helpers(const float* in, float* out, bool host_out) {
  if (host_out)
    hostPointerToHelper<<<1, 32>>>(in, out);
  else
    devicePointerHelpers<<<1, 32>>>(in, out);
  return cudaDeviceSynchronize();
}

// Rows of a 2D tile used as arrays (`auto* row = tile[i]`, `for (float x : tile[i])`, `&tile[i]`) and a ?: macro
// in constant expressions (a shared array's size, a constexpr): these once failed to compile in check mode.
#define ROW_MAX(a, b) ((a) > (b) ? (a) : (b))
constexpr int kRowPad = ROW_MAX(32 / 16, 1);
__global__ void rowForms(float* out) {
  __shared__ float tile[4][8];
  __shared__ float spare[ROW_MAX(32, 16) + kRowPad];
  const int t = threadIdx.x;
  tile[t / 8][t % 8] = static_cast<float>(t);
  spare[t] = 1.0f;
  __syncthreads();
  auto* row = tile[t / 8];
  float sum = 0.0f;
  for (float x : tile[t / 8]) sum += x;
  float(*whole)[8] = &tile[t / 8];
  out[t] = row[t % 8] + sum + (*whole)[7 - t % 8] + spare[31 - t];
}
cudaError_t run_row_forms(float* out) {
  rowForms<<<1, 32>>>(out);
  return cudaDeviceSynchronize();
}

// Elements handed to callables whose operator() the rewriter cannot see: a functor with a member template deducing
// T by value, and a generic lambda passed to a function template (by value, by auto&, through a const pointer). In
// CUDA a by-value T copies the element; these once copied the proxy, so `r = b` or `v *= v` wrote the element.
struct IdiomMaxOp {
  template <typename T>
  __device__ T operator()(T a, T b) const {
    T r = a;
    if (b > r) r = b;
    return r;
  }
};
template <class F>
__device__ float mapAt(float* p, int i, F f) {
  return f(p[i]);
}
template <class F>
__device__ float mapConst(const float* p, int i, F f) {
  return f(p[i]);
}
template <class F>
__device__ void forOwn(float* p, F f) {
  f(p[threadIdx.x]);
}
__global__ void callableForms(float* data, float* out) {
  __shared__ float s[32];
  const int t = threadIdx.x;
  s[t] = static_cast<float>(t);
  __syncthreads();
  IdiomMaxOp op;
  const float m = op(s[t], s[(t + 1) % 32]);
  __syncthreads();
  const float sq = mapAt(data, t, [](auto v) {
    v *= v;
    return v;
  });
  const float cq = mapConst(data, t, [](auto v) {
    v *= v;
    return v;
  });
  forOwn(data, [](auto& x) { x *= 2.0f; });
  out[t] = m + s[t] + sq + cq;
}
cudaError_t run_callable_forms(float* data, float* out) {
  callableForms<<<1, 32>>>(data, out);
  return cudaDeviceSynchronize();
}

// bool, char and short arrays, each thread writing its own element: neighbours share a 4-byte word but are different
// bytes, so no race (these once were reported as races). Two threads writing the same char still race. (A word keeps
// the last writer's bytes only: had thread 1 written code[1] first, its write of code[0] would go unseen.)
__global__ void byteArrays(const int* in, int* out, int racy) {
  __shared__ bool flag[64];
  __shared__ unsigned char code[64];
  __shared__ short half[64];
  const int t = threadIdx.x;
  flag[t] = in[t] % 3 == 0;
  if (racy && t == 1) code[0] = 7;  // @byte-race
  code[t] = static_cast<unsigned char>(in[t] & 0xff);
  half[t] = static_cast<short>(in[t] - 100);
  __syncthreads();
  out[t] = (flag[63 - t] ? 1 : 0) + code[63 - t] + half[(t + 1) % 64];
}
cudaError_t run_byte_arrays(const int* in, int* out, int racy) {
  byteArrays<<<1, 64>>>(in, out, racy);
  return cudaDeviceSynchronize();
}
