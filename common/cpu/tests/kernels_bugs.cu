// Self-test kernels of the CPU backend: programs with the shared-memory bugs
// check mode must find. The @markers let the tests look up line numbers.
#include "kernels.h"

#include <cuda_runtime.h>

constexpr int T = 16;

// GEMM without the __syncthreads() between loading the tiles and using them.
__global__ void gemmNoFirstSync(const float* A, const float* B, float* C, int n) {
  __shared__ float As[T][T];
  __shared__ float Bs[T][T];
  const int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < n / T; ++t) {
    As[threadIdx.y][threadIdx.x] = A[row * n + t * T + threadIdx.x];  // @nofirst-load
    Bs[threadIdx.y][threadIdx.x] = B[(t * T + threadIdx.y) * n + col];
    for (int k = 0; k < T; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];  // @nofirst-use
    __syncthreads();
  }
  C[row * n + col] = acc;
}

// GEMM without the __syncthreads() after using the tiles.
__global__ void gemmNoSecondSync(const float* A, const float* B, float* C, int n) {
  __shared__ float As[T][T];
  __shared__ float Bs[T][T];
  const int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < n / T; ++t) {
    As[threadIdx.y][threadIdx.x] = A[row * n + t * T + threadIdx.x];  // @nosecond-load
    Bs[threadIdx.y][threadIdx.x] = B[(t * T + threadIdx.y) * n + col];
    __syncthreads();
    for (int k = 0; k < T; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];  // @nosecond-use
  }
  C[row * n + col] = acc;
}

cudaError_t run_gemm_missing_sync(int which, const float* A, const float* B, float* C, int n) {
  dim3 block(T, T), grid(n / T, n / T);
  if (which == 1)
    gemmNoFirstSync<<<grid, block>>>(A, B, C, n);
  else
    gemmNoSecondSync<<<grid, block>>>(A, B, C, n);
  return cudaDeviceSynchronize();
}

// __syncthreads() inside a branch that depends on the thread index.
__global__ void reduceSyncInIf(const float* in, float* out) {
  __shared__ float s[256];
  const unsigned tid = threadIdx.x;
  s[tid] = in[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) {
      s[tid] += s[tid + stride];
      __syncthreads();  // @sync-in-if
    }
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

cudaError_t run_sync_in_if(const float* in, float* out, int blocks) {
  reduceSyncInIf<<<blocks, 256>>>(in, out);
  return cudaDeviceSynchronize();
}

// Early return before a barrier: the last block has threads past n.
__global__ void stencilEarlyReturn(const float* in, float* out, int n) {
  __shared__ float tile[128];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  tile[threadIdx.x] = in[i];
  __syncthreads();  // @early-return
  out[i] = tile[threadIdx.x] + (threadIdx.x > 0 ? tile[threadIdx.x - 1] : 0.0f);
}

cudaError_t run_early_return(const float* in, float* out, int n) {
  stencilEarlyReturn<<<(n + 127) / 128, 128>>>(in, out, n);
  return cudaDeviceSynchronize();
}

// Missing bounds guard: the grid has more threads than elements.
__global__ void addNoGuard(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  c[i] = a[i] + b[i];  // @oob-global
}

cudaError_t run_oob_global(const float* a, const float* b, float* c, int n) {
  addNoGuard<<<(n + 255) / 256, 256>>>(a, b, c, n);
  return cudaDeviceSynchronize();
}

// Shared index one past the end of the array.
__global__ void shiftShared(float* out) {
  __shared__ float s[64];
  s[threadIdx.x + 1] = threadIdx.x;  // @oob-shared
  __syncthreads();
  out[threadIdx.x] = threadIdx.x;
}

cudaError_t run_oob_shared(float* out) {
  shiftShared<<<1, 64>>>(out);
  return cudaDeviceSynchronize();
}

// Only half of the shared array is written before everybody reads it.
__global__ void halfInitialized(float* out) {
  __shared__ float s[64];
  if (threadIdx.x < 32) s[threadIdx.x] = 1.0f;
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];  // @uninit
}

cudaError_t run_uninitialized(float* out) {
  halfInitialized<<<1, 64>>>(out);
  return cudaDeviceSynchronize();
}

// A host pointer passed as a kernel argument.
__global__ void scale(float* data, float f) { data[threadIdx.x] *= f; }  // @host-pointer

cudaError_t run_host_pointer(float* host) {
  scale<<<1, 32>>>(host, 2.0f);
  return cudaDeviceSynchronize();
}

// A full-mask shuffle after some lanes returned; or (n = 32) a mask that leaves out calling lanes.
__global__ void shuffleAfterReturn(float* out, int n, unsigned mask) {
  const int i = threadIdx.x;
  if (i >= n) return;
  float v = i;
  v += __shfl_down_sync(mask, v, 1);  // @shfl-exited
  out[i] = v;
}

cudaError_t run_shuffle_after_return(float* out, int n, unsigned mask) {
  shuffleAfterReturn<<<1, 32>>>(out, n, mask);
  return cudaDeviceSynchronize();
}

// Warp-synchronous reduction tail written correctly with __syncwarp().
__global__ void warpTail(const float* in, float* out) {
  __shared__ float s[64];
  const unsigned tid = threadIdx.x;
  s[tid] = in[tid];
  __syncthreads();
  if (tid < 32) {
    float v = s[tid] + s[tid + 32];
    __syncwarp();
    s[tid] = v;
    __syncwarp();
    for (int off = 16; off > 0; off /= 2) {
      if (tid < off) v += s[tid + off];
      __syncwarp();
      if (tid < off) s[tid] = v;
      __syncwarp();
    }
    if (tid == 0) out[0] = v;
  }
}

cudaError_t run_warp_tail(const float* in, float* out) {
  warpTail<<<1, 64>>>(in, out);
  return cudaDeviceSynchronize();
}

// A kernel template launched with deduced template arguments, with a race.
template <typename V>
__global__ void racyDeduced(V* out) {
  __shared__ V s[32];
  s[threadIdx.x] = static_cast<V>(threadIdx.x);
  out[threadIdx.x] = s[(threadIdx.x + 1) % 32];  // @deduced-race
}

cudaError_t run_racy_deduced(int* out) {
  racyDeduced<<<1, 32>>>(out);
  return cudaDeviceSynchronize();
}

// Message wording: reading a[1] of a 1-element buffer, a column past the end
// of a 2-D shared array (and of the last dimension of a 5-D one), a null pointer, an index below 0.
__global__ void readPastOne(const float* a, float* out) {
  out[0] = a[1];  // @oob-one
}
__global__ void columnPastEnd(float* out) {
  __shared__ float As[4][5];
  As[0][threadIdx.x] = 1.0f;  // @oob-2d
  out[threadIdx.x] = 0.0f;
}
__global__ void lastDimensionPastEnd(float* out) {
  __shared__ float s5[2][2][2][2][3];  // more dimensions than kernels usually take
  s5[1][0][1][0][threadIdx.x] = 1.0f;  // @oob-5d
  out[threadIdx.x] = 0.0f;
}
__global__ void writeNull(float* out) {
  out[threadIdx.x] = 1.0f;  // @null-pointer
}
__global__ void indexBelowZero(const float* a, float* out) {
  out[threadIdx.x] = a[static_cast<int>(threadIdx.x) - 1];  // @oob-negative
}

cudaError_t run_wording(int which, const float* a, float* out) {
  switch (which) {
    case 0:
      readPastOne<<<1, 1>>>(a, out);
      break;
    case 1:
      columnPastEnd<<<1, 6>>>(out);
      break;
    case 2:
      writeNull<<<1, 1>>>(nullptr);
      break;
    case 4:
      lastDimensionPastEnd<<<1, 4>>>(out);
      break;
    default:
      indexBelowZero<<<1, 2>>>(a, out);
      break;
  }
  return cudaDeviceSynchronize();
}

// Each half-warp synchronizes only itself: neighbours in the same half are
// ordered, the other half is not (a race on s[31 - t]).
__global__ void halfWarpSync(float* out) {
  __shared__ float s[32];
  s[threadIdx.x] = static_cast<float>(threadIdx.x);
  __syncwarp(threadIdx.x < 16 ? 0x0000ffffu : 0xffff0000u);
  float v = s[threadIdx.x ^ 1];
  v += s[31 - threadIdx.x];  // @half-warp-race
  out[threadIdx.x] = v;
}

cudaError_t run_half_warp_sync(float* out) {
  halfWarpSync<<<1, 32>>>(out);
  return cudaDeviceSynchronize();
}

// Vector accesses at addresses that are not a multiple of their size: a float4 load from in + offset (misaligned
// unless offset % 4 == 0), a float2 store into the extern __shared__ memory at an odd float index. With offset 0
// and an even index both are aligned and run.
__global__ void vectorLoad(const float* in, float* out, int offset) {
  const float4 v = reinterpret_cast<const float4*>(in + offset)[threadIdx.x];  // @misaligned-load
  out[threadIdx.x] = v.x + v.y + v.z + v.w;
}
__global__ void vectorSharedStore(float* out, int first) {
  extern __shared__ float s[];
  float2* p = reinterpret_cast<float2*>(s + first);
  p[threadIdx.x] = make_float2(1.0f, 2.0f);  // @misaligned-store
  __syncthreads();
  out[threadIdx.x] = s[first + 2 * threadIdx.x] + s[first + 2 * threadIdx.x + 1];
}

cudaError_t run_misaligned(int which, int offset, const float* in, float* out) {
  if (which == 0)
    vectorLoad<<<2, 8>>>(in, out, offset);
  else
    vectorSharedStore<<<1, 8, 64 * sizeof(float)>>>(out, offset);
  return cudaDeviceSynchronize();
}

// A float4 copy at a float offset: in fast mode, a misaligned offset makes the host compiler's aligned 16-byte
// vector instructions fault.
__global__ void vectorCopy(const float* in, float* out, int offset) {
  reinterpret_cast<float4*>(out + offset)[threadIdx.x] = reinterpret_cast<const float4*>(in + offset)[threadIdx.x];
}

cudaError_t run_vector_copy(int offset, const float* in, float* out) {
  vectorCopy<<<1, 4>>>(in, out, offset);
  return cudaDeviceSynchronize();
}

// Tiles reached through local pointers into the extern __shared__ memory: the reads of the second tile race with
// the writes when the barrier is missing (checked like a pointer parameter). A local pointer to a local array is
// not shared or global memory and is not reported.
__global__ void carvedTiles(const float* in, float* out, int sync) {
  extern __shared__ float smem[];
  float* As = smem;
  float* Bs = smem + blockDim.x;
  As[threadIdx.x] = in[threadIdx.x];
  Bs[threadIdx.x] = 2.0f * in[threadIdx.x];  // @carved-write
  if (sync) __syncthreads();
  float local[2] = {1.0f, 2.0f};
  float* l = local;
  out[threadIdx.x] = As[(threadIdx.x + 1) % blockDim.x] + Bs[(threadIdx.x + 1) % blockDim.x] + l[1];  // @carved-read
}

cudaError_t run_carved_tiles(int sync, const float* in, float* out) {
  carvedTiles<<<1, 32, 64 * sizeof(float)>>>(in, out, sync);
  return cudaDeviceSynchronize();
}

// A 4 x 5 tile through a pointer to rows of 5 floats, carved from the extern __shared__ memory: As[r][5] is past
// the row but inside the memory (element 5 r + 5 of As), As[3][c] for the last row's column 5 is past the memory.
__global__ void rowPointer(float* out, int column) {
  extern __shared__ float smem[];
  float(*As)[5] = reinterpret_cast<float(*)[5]>(smem);
  As[threadIdx.x / 5][threadIdx.x % 5] = 1.0f;
  __syncthreads();
  out[threadIdx.x] = As[threadIdx.x / 5][column];  // @row-pointer-read
}

cudaError_t run_row_pointer(int column, float* out) {
  rowPointer<<<1, 20, 20 * sizeof(float)>>>(out, column);
  return cudaDeviceSynchronize();
}

// Rows of 2D __shared__ arrays cast to vector pointers, as public SGEMM code reads its tiles
// (`reinterpret_cast<const float4*>(As[r])[j]`, `((float2*)As[r])[j]`; check mode once failed to compile them, a row
// being a view there). With rows of 33 floats (`padded`), odd rows start 4 bytes past a 16-byte boundary: the float4
// load is misaligned (padded 1); so is `*(float4*)` of an odd padded row (padded 2). A row cast to a pointer to rows
// of 4 floats is read as the GPU reads it. 64 threads.
__global__ void rowCasts(const float* in, float* out, int padded) {
  __shared__ __align__(16) float As[8][32];
  __shared__ __align__(16) float Ps[8][33];
  const int t = threadIdx.x;
  for (int i = t; i < 256; i += 64) {
    As[i / 32][i % 32] = in[i];
    Ps[i / 32][i % 32] = in[i];
  }
  __syncthreads();
  const int r = t / 8, j = t % 8;
  const float4 v =
      padded == 1 ? reinterpret_cast<const float4*>(Ps[r])[j] : reinterpret_cast<const float4*>(As[r])[j];  // @row-cast
  const float2 w = ((float2*)As[(r + 1) % 8])[j];
  const float4 u = padded == 2 ? *(float4*)Ps[r | 1] : *(float4*)As[r];  // @row-deref
  const float z = ((const float(*)[4])As[r])[j][1];
  out[t] = v.x + v.y + v.z + v.w + w.y + u.x + z;
}

cudaError_t run_row_casts(int padded, const float* in, float* out) {
  rowCasts<<<1, 64>>>(in, out, padded);
  return cudaDeviceSynchronize();
}

// Public SGEMM's access macro and a cache-hinted load, checked like the accesses they stand for (check mode once saw
// neither: a macro's body is not in the file's tokens, __ldg took a pointer). 16 threads, 64 floats. mode 0: correct;
// 1: the float4 read before the barrier (a race); 2: thread 15's float4 one past the tile (s[64..67]); 3: __ldg of
// in[-1].
#define FETCH_FLOAT4(p) (reinterpret_cast<float4*>(&(p))[0])
__global__ void accessMacros(const float* in, float* out, int mode) {
  __shared__ __align__(16) float s[64];
  const int t = threadIdx.x;
  FETCH_FLOAT4(s[4 * t]) = __ldg(reinterpret_cast<const float4*>(in) + t);  // @macro-store
  if (mode != 1) __syncthreads();
  const float4 v = FETCH_FLOAT4(s[mode == 2 ? 4 * t + 4 : 4 * ((t + 1) % 16)]);  // @macro-read
  out[t] = v.x + v.y + v.z + v.w + __ldg(&in[mode == 3 ? t - 1 : t]);            // @ldg-read
}

cudaError_t run_access_macros(int mode, const float* in, float* out) {
  accessMacros<<<1, 16>>>(in, out, mode);
  return cudaDeviceSynchronize();
}

// Shared scalars of arithmetic types, in the forms kernels use them: thread 0 sets a block-wide value, the others read
// it (a race without the barrier), a flag read before anyone set it (uninitialized), a counter bumped with an atomic
// through its address, a compound assignment, a ternary and a volatile flag. `shadow` is declared again inside a
// lambda, so that name is left alone.
__global__ void sharedScalars(const float* in, float* out, int mode) {
  __shared__ float total;
  __shared__ unsigned int count;
  __shared__ volatile int flag;
  __shared__ int shadow;
  if (mode == 2) {
    out[threadIdx.x] = flag ? 1.0f : 0.0f;  // @scalar-uninitialized
    return;
  }
  if (threadIdx.x == 0) {
    total = in[0];  // @scalar-write
    count = 0;
    flag = 1;
    shadow = 0;
  }
  if (mode == 1) __syncthreads();
  const float t = total;  // @scalar-read
  atomicAdd(&count, 1u);
  __syncthreads();
  if (threadIdx.x == 0) total += 1.0f;
  __syncthreads();
  auto twice = [](int shadow) { return 2 * shadow; };
  out[threadIdx.x] = t + (count > 0 ? total : 0.0f) + static_cast<float>(twice(flag));
}

cudaError_t run_shared_scalars(int mode, const float* in, float* out) {
  sharedScalars<<<1, 64>>>(in, out, mode);
  return cudaDeviceSynchronize();
}

// Access forms that are neither a shared array's nor a pointer parameter's subscript: a later declarator of a
// declaration (`b`), an `auto` pointer (`row`) and a cast subscripted in place. Mode 0 reads what the neighbour wrote
// without a barrier (races at each form's read), mode 1 is correct (out[i] = 4 in[(i + 1) % 64]), mode 2 reads float2
// pairs of which the second half was never written (uninitialized, at the cast's line).
__global__ void declaratorForms(const float* in, float* out, int mode) {
  extern __shared__ float smem[];
  float *a = smem, *b = smem + 64;
  a[threadIdx.x] = in[threadIdx.x];
  b[threadIdx.x] = in[threadIdx.x];  // @forms-write
  if (mode == 2) {
    __syncthreads();
    out[threadIdx.x] = reinterpret_cast<const float2*>(smem)[64 + threadIdx.x].y;  // @forms-cast-uninitialized
    return;
  }
  if (mode == 1) __syncthreads();
  auto row = smem + 64;
  const unsigned next = (threadIdx.x + 1) % 64;
  const float from_b = b[next];                                             // @forms-declarator-read
  const float from_row = row[next];                                         // @forms-auto-read
  const float from_cast = reinterpret_cast<const float*>(smem + 64)[next];  // @forms-cast-read
  out[threadIdx.x] = from_b + from_row + from_cast + a[next];
}

cudaError_t run_declarator_forms(int mode, const float* in, float* out) {
  declaratorForms<<<1, 64, (mode == 2 ? 256 : 128) * sizeof(float)>>>(in, out, mode);
  return cudaDeviceSynchronize();
}

// Dereferences, of C-style casts too, and a C-style cast subscripted in place are checked like subscripts (mode 0: no barrier, so each read
// races; 1: correct; 2: a write one past the end of `out` through *(out + i)).
__global__ void dereferenceForms(const float* in, float* out, int mode) {
  __shared__ __align__(16) float tile[64];
  float* t = tile;
  *(t + threadIdx.x) = *(in + threadIdx.x);
  if (mode == 1) __syncthreads();
  const unsigned next = (threadIdx.x + 1) % 64;
  float sum = *(tile + next);                                                             // @deref-sum-read
  const float4 v = *reinterpret_cast<const float4*>(t + (threadIdx.x / 4 + 1) % 16 * 4);  // @deref-cast-read
  sum += v.x + ((const float2*)tile)[next / 2].y;                                         // @deref-c-cast-read
  const float4 u = *(const float4*)&tile[(threadIdx.x / 4 + 2) % 16 * 4];                 // @deref-c-cast-vector
  sum += u.y + *(const float*)&tile[(threadIdx.x + 2) % 64];                              // @deref-c-cast-scalar
  if (mode == 2 && threadIdx.x == 0) *(out + 64) = sum;                                   // @deref-past-the-end
  auto mine = out + threadIdx.x;
  *mine = sum;
}

cudaError_t run_dereference_forms(int mode, const float* in, float* out) {
  dereferenceForms<<<1, 64>>>(in, out, mode);
  return cudaDeviceSynchronize();
}

// Whole struct and vector elements stored with `=`, in the forms public kernels use, each checked as a write (mode 0:
// no barrier between the stores and the reads of a neighbour's element, so each store races; 1: correct; 2: every
// thread stores the same value into one element, which races with nothing).
struct Pair {
  float a, b;
};
struct Counter {  // assigned from an int through its own operator=
  float v;
  __device__ Counter& operator=(int x) {
    v = static_cast<float>(x);
    return *this;
  }
};
__global__ void wholeStores(float* out, int mode) {
  __shared__ __align__(16) float flat[4 * 32];
  __shared__ float4 quads[32];
  __shared__ Pair pairs[32];
  __shared__ Counter counters[32];
  const int t = threadIdx.x;
  if (mode == 2) {
    pairs[0] = Pair{1.0f, 2.0f};  // @whole-same-value
    __syncthreads();
    out[t] = pairs[0].a + pairs[0].b;
    return;
  }
  float4* mine = reinterpret_cast<float4*>(flat);
  *(float4*)&flat[4 * t] = make_float4(t, t, t, t);  // @whole-c-cast
  quads[t] = make_float4(t, 0, 0, 0);                // @whole-array
  pairs[t] = Pair{static_cast<float>(t), 1.0f};      // @whole-struct
  counters[t] = t;                                   // @whole-operator
  if (mode == 1) __syncthreads();
  const int n = (t + 1) % 32;
  const float4 f = reinterpret_cast<const float4*>(flat)[n];
  const float4 q = static_cast<const float4*>(quads)[n];
  const Pair p = static_cast<const Pair*>(pairs)[n];
  const Counter c = static_cast<const Counter*>(counters)[n];
  if (mode == 1) __syncthreads();
  mine[t] = make_float4(0, 0, 0, 0);  // @whole-local-pointer
  out[t] = f.y + q.x + p.a + c.v;
}

cudaError_t run_whole_stores(int mode, float* out) {
  wholeStores<<<1, 32>>>(out, mode);
  return cudaDeviceSynchronize();
}

// The file's own __constant__ and __device__ arrays, bounds-checked in check mode (red-team round 27: a read one past
// constant weights and a write past a __device__ table went unreported). 32 threads; mode 0: correct; 1: the weights'
// loop runs one too far; 2: thread 31 writes past a row of the table.
__constant__ float cWeights[5];
__device__ int gTable[4][8];
__global__ void deviceArrays(float* out, int mode) {
  const int t = threadIdx.x;
  float s = 0.0f;
  for (int j = 0; j < (mode == 1 ? 6 : 5); ++j) s += cWeights[j];  // @constant-past
  gTable[t / 8][mode == 2 && t == 31 ? 8 : t % 8] = t;             // @device-past
  __syncthreads();
  out[t] = s + static_cast<float>(gTable[(t + 1) % 32 / 8][(t + 1) % 8]);
}

cudaError_t run_device_arrays(int mode, float* out) {
  const float w[5] = {1.0f, 2.0f, 3.0f, 4.0f, 5.0f};
  if (const cudaError_t e = cudaMemcpyToSymbol(cWeights, w, sizeof w); e != cudaSuccess) return e;
  deviceArrays<<<1, 32>>>(out, mode);
  return cudaDeviceSynchronize();
}
