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

// Valid forms around members and whole elements, each once refused, misread or mischecked by check mode (a red-team of
// 2026-11-29): a structured binding, a member array that decays, decltype(auto) of a member (a copy), a static member
// and an enumerator through an element, a qualified member, a braced member store, a member returned by reference,
// a struct whose operator= takes a non-const reference, a pointer element's arrow, a member of a conditional of elements assigned to. `bug` 1: no barrier before the
// reads `w * buf[n]` and `kv2[n].key < w` (an operand after a name; a member before `<`), which must still be checked.
namespace {
struct Cell {
  static constexpr int kSides = 4;
  enum Kind { wall = 7, open = 9 };
  float v;
  int kind;
};
struct Base {
  float x;
};
struct Derived : Base {
  float y;
};
struct Bucket {
  float vals[4];
  int n;
};
struct Mutable {
  float v;
  __device__ Mutable& operator=(Mutable& other) {  // a non-const copy assignment
    v = other.v;
    return *this;
  }
};
__device__ auto& key_of(KeyIndex* s, int i) { return s[i].key; }
}  // namespace

__global__ void memberFormsValid(float* out, int bug) {
  __shared__ Cell cells[32];
  __shared__ Derived ds[32];
  __shared__ Bucket buckets[32];
  __shared__ Mutable ms[32];
  __shared__ KeyIndex kv2[32];
  __shared__ float buf[32];
  __shared__ Cell* ptrs[32];
  __shared__ Base halves[64];
  const int t = threadIdx.x, n = (t + 1) % 32;
  halves[t].x = 0.0f;
  halves[t + 32].x = 0.0f;
  (t & 1 ? halves[t] : halves[t + 32]).x = 5.0f;  // a conditional of elements is an lvalue, its member too
  auto& [v, kind] = cells[t];
  v = static_cast<float>(t);
  kind = Cell::open;
  ds[t].Base::x = 1.0f;
  ds[t].y = {};
  float* row = buckets[t].vals;
  row[0] = 2.0f;
  buckets[t].n = {1};
  Mutable local{3.0f};
  ms[t] = local;
  key_of(kv2, t) = static_cast<float>(t);
  buf[t] = 0.5f;
  ptrs[t] = &cells[t];
  if (bug == 0) __syncthreads();
  const float w = 2.0f;
  decltype(auto) copy = cells[n].v;  // a float, not the element
  copy += 100.0f;
  float sum = copy + static_cast<float>(cells[n].kSides) + static_cast<float>(cells[n].wall);  // 100 + n + 4 + 7
  sum += w * buf[n];                                                                           // @valid-times-read
  if (kv2[n].key < w) sum += 1000.0f;                                                          // @valid-less-read
  sum += ds[n].Base::x + ds[n].y + buckets[n].vals[0] + static_cast<float>(buckets[n].n);      // + 1 + 0 + 2 + 1
  sum += ms[n].v + ptrs[n]->v + halves[n].x + halves[n + 32].x;                                // + 3 + n + 5
  out[t] = sum + static_cast<float>(cells[n].kind == Cell::open);                              // + 1
}

cudaError_t run_member_forms_valid(int bug, float* out) {
  memberFormsValid<<<1, 32>>>(out, bug);
  return cudaDeviceSynchronize();
}

// Elements as operands and arguments that convert through a user type's constructor: CUDA converts the element's
// value once (float -> V3); check mode's proxy would need two user conversions, and these did not compile.
struct V3 {
  float x, y, z;
  __device__ V3(float v) : x(v), y(v), z(v) {}
  __device__ V3(float a, float b, float c) : x(a), y(b), z(c) {}
  __device__ V3& operator+=(V3 o) {
    x += o.x;
    y += o.y;
    z += o.z;
    return *this;
  }
};
__device__ V3 operator+(V3 a, V3 b) { return V3(a.x + b.x, a.y + b.y, a.z + b.z); }
__device__ bool operator<(V3 a, V3 b) { return a.x + a.y + a.z < b.x + b.y + b.z; }
__device__ float spread(V3 v) { return v.x + 2.0f * v.y + 4.0f * v.z; }
struct Weighted {
  float w;
  int k;
};
__global__ void convertingOperands(float* out) {
  __shared__ Weighted s[32];
  __shared__ float f[32];
  const int n = threadIdx.x;
  s[n].w = static_cast<float>(n);
  s[n].k = 2 * n;
  f[n] = 0.5f * static_cast<float>(n);
  __syncthreads();
  V3 acc(1.0f);
  acc = acc + s[n].w;                                        // 1 + n
  acc = f[(n + 1) % 32] + acc;                               // + (n + 1) % 32 / 2
  acc += f[n];                                               // + n / 2
  const float l = spread(s[n].w) + spread(f[(n + 1) % 32]);  // 7 n + 7 ((n + 1) % 32) / 2
  out[n] = acc.x + l + (acc < f[n] ? 1000.0f : 0.0f);
}
cudaError_t run_converting_operands(float* out) {
  convertingOperands<<<1, 32>>>(out);
  return cudaDeviceSynchronize();
}

// A __shared__ struct and union used as scalars (`__shared__ Totals acc;`, the TempStorage idiom): their members and
// member arrays are checked like elements (their accesses were once not checked at all). 32 threads. mode 0: correct;
// 1: no __syncthreads() between the stores and the other threads' reads and atomics (races); 2: acc.partial[32], one
// past the member array; 3: acc.range.y read though no thread stored it.
namespace {
struct Totals {
  float partial[32];
  int count;
  float2 range;
};
union Scratch {
  float f[64];
  int bits[64];
};
}  // namespace
__global__ void sharedObjects(const float* in, float* out, int mode) {
  __shared__ Totals acc;
  __shared__ Scratch tmp;
  const int t = threadIdx.x;
  if (t == 0) {
    acc.count = 0;  // @object-count
    acc.range.x = 0.0f;
    if (mode != 3) acc.range.y = 1.0f;
  }
  acc.partial[t] = in[t];  // @object-partial
  tmp.f[t] = 2.0f * in[t];
  tmp.bits[t + 32] = 0;
  if (mode != 1) __syncthreads();
  atomicAdd(&acc.count, 1);
  const float next = acc.partial[mode == 2 ? t + 1 : (t + 1) % 32];  // @object-next
  const float y = acc.range.y;                                       // @object-range
  __syncthreads();
  out[t] = next + tmp.f[(t + 1) % 32] + y + static_cast<float>(tmp.bits[t + 32]);
  if (t == 0) out[32] = static_cast<float>(acc.count);
}
cudaError_t run_shared_objects(int mode, const float* in, float* out) {
  sharedObjects<<<1, 32>>>(in, out, mode);
  return cudaDeviceSynchronize();
}

// Bit-field members of a __shared__ array of structs and of a __shared__ struct scalar, stored, updated and read
// (check mode once refused them: a bit-field has no address to check). 32 threads.
namespace {
struct LifeCell {
  unsigned alive : 1;
  unsigned age : 7;
  unsigned id : 24;
};
}  // namespace
__global__ void bitFieldMembers(float* out) {
  __shared__ LifeCell cells[32];
  __shared__ LifeCell head;
  const int t = threadIdx.x;
  cells[t].alive = t % 2;
  cells[t].age = t;
  cells[t].id = 1000 + t;
  cells[t].age += 3;
  if (t == 0) {
    head.alive = 1;
    head.age = 5;
    head.id = 7;
  }
  __syncthreads();
  const int n = (t + 1) % 32;
  const LifeCell* view = cells;  // a bit-field of a const element
  out[t] = static_cast<float>(cells[n].alive + cells[n].age + view[n].id + head.age);
}
cudaError_t run_bit_field_members(float* out) {
  bitFieldMembers<<<1, 32>>>(out);
  return cudaDeviceSynchronize();
}

// Member arrays of the elements of a __shared__ array of structs (`bk[b].keys[j]`), checked as arrays of their own.
// 32 threads, 4 buckets of 8 keys. mode 0: correct; 1: no __syncthreads() between the key stores and the other
// threads' reads (a race); 2: keys[8], one past the member array (on a GPU: the bucket's count).
namespace {
struct KeyBucket {
  int keys[8];
  int count;
};
}  // namespace
__global__ void elementMemberArrays(float* out, int mode) {
  __shared__ KeyBucket bk[4];
  const int t = threadIdx.x, b = t / 8, s = t % 8;
  bk[b].keys[s] = 10 * t;  // @bucket-store
  if (s == 0) bk[b].count = 8;
  if (mode != 1) __syncthreads();
  const int other = (b + 1) % 4;
  out[t] = static_cast<float>(bk[other].keys[mode == 2 ? s + 1 : 7 - s] + bk[other].count);  // @bucket-read
}
cudaError_t run_element_member_arrays(int mode, float* out) {
  elementMemberArrays<<<1, 32>>>(out, mode);
  return cudaDeviceSynchronize();
}

// Struct elements handed to __device__ helpers by reference (`KV& a`), checked through the reference like `*p` with
// p = &a: an odd-even transposition sort that swaps whole structs, a read through `const KeyTag&`, and a float4
// accumulator that is the thread's own local variable (unchecked, as a GPU's local memory). 32 threads, 64
// elements. bug 1: no barrier between the sort's phases; 2: one element's tag never stored.
namespace {
struct KeyTag {
  int key;
  int tag;
};
}  // namespace
__device__ void orderPair(KeyTag& a, KeyTag& b) {
  if (b.key < a.key) {  // @pair-compare
    const KeyTag t = a;
    a = b;
    b = t;
  }
}
__device__ int tagOf(const KeyTag& e) { return e.tag; }  // @tag-read
__device__ void addInto(float4& acc, float4 v) {
  acc.x += v.x;
  acc.y += v.y;
  acc.z += v.z;
}
__global__ void structReferenceHelpers(const int* keys, float* out, int bug) {
  __shared__ KeyTag s[64];
  const int t = threadIdx.x;
  for (int i = t; i < 64; i += 32) {
    s[i].key = keys[i];
    if (bug != 2 || i != 5) s[i].tag = i;
  }
  __syncthreads();
  out[32 + t] = static_cast<float>(tagOf(s[t]));
  for (int phase = 0; phase < 64; ++phase) {
    if (bug != 1) __syncthreads();
    const int i = 2 * t + phase % 2;
    if (i + 1 < 64) orderPair(s[i], s[i + 1]);
  }
  __syncthreads();
  float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  for (int i = 2 * t; i < 2 * t + 2; ++i)
    addInto(acc, make_float4(static_cast<float>(s[i].key), static_cast<float>(tagOf(s[i])), 1.0f, 0.0f));
  out[t] = acc.x + 1000.0f * acc.y + 100000.0f * acc.z;
}
cudaError_t run_struct_reference_helpers(const int* keys, float* out, int bug) {
  structReferenceHelpers<<<1, 32>>>(keys, out, bug);
  return cudaDeviceSynchronize();
}

// A __shared__ struct scalar stored whole by one thread and read member by member by all after the barrier (an
// argmax's best pair). 32 threads. bug 1: no barrier (the reads race with the whole store).
namespace {
struct BestPair {
  float value;
  int index;
};
}  // namespace
__global__ void wholeSharedObject(const float* in, float* out, int bug) {
  __shared__ BestPair best;
  const int t = threadIdx.x;
  if (t == 0) best = BestPair{in[0], 7};  // @whole-object-store
  if (bug != 1) __syncthreads();
  out[t] = best.value + static_cast<float>(best.index + t);
}
cudaError_t run_whole_shared_object(const float* in, float* out, int bug) {
  wholeSharedObject<<<1, 32>>>(in, out, bug);
  return cudaDeviceSynchronize();
}
