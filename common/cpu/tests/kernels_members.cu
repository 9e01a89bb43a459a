// Check-mode self-test kernels: members of struct and vector elements in shared memory stored, read and updated one at
// a time, and whole elements read through pointers to non-const, in the forms public kernels use.
#include "kernels.h"

namespace {
struct KeyIndex {
  float key;
  int index;
};
struct Particle {
  float3 pos;
  float w;
};
struct Padded {  // 4 bytes of padding after v
  float v;
  double d;
};
}  // namespace

// mode 0: no barrier between each thread's stores and its neighbour's reads, so each form races; 1: correct; 2: a
// member no thread stored to is read; 3: structs with padding stored member by member, then copied whole (padding
// that no thread wrote is copied, as on a GPU: nothing to report).
__global__ void memberForms(float* out, int mode) {
  __shared__ KeyIndex kv[32];
  __shared__ Particle parts[32];
  __shared__ __align__(16) float flat[2 * 32];
  __shared__ Padded padded[32];
  const int t = threadIdx.x, n = (t + 1) % 32;
  if (mode == 3) {
    padded[t].v = static_cast<float>(t);
    padded[t].d = 2.0 * t;
    __syncthreads();
    const Padded p = padded[n];  // @member-padded-copy
    out[t] = p.v + static_cast<float>(p.d);
    return;
  }
  kv[t].key = static_cast<float>(t);  // @member-store
  if (mode != 2) kv[t].index = 2 * t;
  parts[t].pos.y = static_cast<float>(t);                        // @member-nested-store
  parts[t].w = 0.5f;                                             // pos.x and pos.z: never stored to
  reinterpret_cast<float2*>(flat)[t].y = static_cast<float>(t);  // @member-cast-store
  flat[2 * t] = 0.0f;
  if (mode != 0) __syncthreads();
  float sum = kv[n].key;                   // @member-read
  sum += static_cast<float>(kv[n].index);  // @member-never-stored
  const Particle p = parts[n];             // @member-whole-read
  sum += p.pos.y * p.w;
  sum += reinterpret_cast<float2*>(flat)[n].y;  // @member-cast-read
  Particle* q = parts + n;
  sum += t < 64 ? q->w : 0;  // @member-arrow-read
  if (mode != 0) __syncthreads();
  kv[t].key += 1.0f;
  out[t] = sum + kv[t].key;
}

cudaError_t run_member_forms(int mode, float* out) {
  memberForms<<<1, 32>>>(out, mode);
  return cudaDeviceSynchronize();
}
