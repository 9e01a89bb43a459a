// Self-test kernels of the CPU backend: asynchronous copies into shared memory (<cuda_pipeline.h>,
// cooperative_groups::memcpy_async, cuda::pipeline, cuda::barrier), correct and wrong. Markers (@...) name the lines
// the tests expect in diagnostics.
#include "kernels_async.h"

#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda/std/chrono>
#include <cuda_pipeline.h>

#include <cstdint>
#include <new>
#include <utility>

namespace {

namespace cg = cooperative_groups;

constexpr int kThreads = 64;

// Sums `tiles` tiles of 64 floats with two buffers: while the block adds up tile t, the copies of tile t + 1 are in
// flight. Thread i adds element (i + 1) % 64 of each tile (another thread's copy), so every read needs the wait and
// the barrier. `bug` 0: correct; 1: no wait (reads data whose copy may still be in flight); 2: the next tile's copy
// starts before the barrier (overwrites the buffer other threads still read); 3: reads the buffer being filled.
__global__ void pipelined_sum(const float* in, float* out, int tiles, int bug) {
  __shared__ float buf[2][kThreads];
  const int i = threadIdx.x;
  float sum = 0.0f;
  __pipeline_memcpy_async(&buf[0][i], &in[i], sizeof(float));  // @async-first
  __pipeline_commit();
  for (int t = 0; t < tiles; ++t) {
    if (bug == 2 && t + 1 < tiles) {
      __pipeline_memcpy_async(&buf[(t + 1) % 2][i], &in[(t + 1) * kThreads + i], sizeof(float));  // @async-early
    }
    if (bug != 1) __pipeline_wait_prior(0);
    __syncthreads();
    if (bug != 2 && t + 1 < tiles) {
      __pipeline_memcpy_async(&buf[(t + 1) % 2][i], &in[(t + 1) * kThreads + i], sizeof(float));  // @async-next
    }
    __pipeline_commit();
    const int stage = bug == 3 ? (t + 1) % 2 : t % 2;
    sum += buf[stage][(i + 1) % kThreads];  // @async-read
  }
  out[blockIdx.x * kThreads + i] = sum;
}

// One 16-byte copy per thread from in + offset floats into the extern __shared__ memory, then each thread stores
// what it copied: a misaligned source (offset not a multiple of 4) fails on a GPU.
__global__ void wide_copy(const float* in, float* out, int offset, int size, int zfill) {
  extern __shared__ float tile[];
  const int i = threadIdx.x;
  __pipeline_memcpy_async(&tile[4 * i], &in[offset + 4 * i], size, zfill);  // @async-wide
  __pipeline_commit();
  __pipeline_wait_prior(0);
  for (int j = 0; j < 4; ++j) out[4 * i + j] = tile[4 * i + j];
}

// Each of 16 threads copies 4 floats (16 bytes) into the tile, then reads its neighbour's 4 through a pointer to
// const float4, the way register-blocked GEMMs read their tiles. `bug` 0: correct; 1: no wait (the read meets a
// copy still pending); 2: odd threads copy nothing (the read meets a word nobody wrote).
__global__ void vector_read(const float* in, float* out, int bug) {
  __shared__ __align__(16) float tile[64];
  const int i = threadIdx.x;
  if (bug != 2 || i % 2 == 0) __pipeline_memcpy_async(&tile[4 * i], &in[4 * i], 16);
  __pipeline_commit();
  if (bug != 1) __pipeline_wait_prior(0);
  __syncthreads();
  const float4* v = reinterpret_cast<const float4*>(tile);
  const float4 x = v[(i + 1) % 16];  // @async-vec
  out[4 * i] = x.x;
  out[4 * i + 1] = x.y;
  out[4 * i + 2] = x.z;
  out[4 * i + 3] = x.w;
  __pipeline_wait_prior(0);
}

// pipelined_sum's sums with cooperative_groups::memcpy_async: the block copies each whole tile (the first by bytes
// from a row view, the others by element counts) and waits with cg::wait_prior<1>, the last with cg::wait. bug 0:
// correct; 1: cta.sync() in place of the waits (the reads come before the copies they need).
__global__ void group_pipelined_sum(const float* __restrict__ in, float* out, int tiles, int bug) {
  __shared__ __align__(16) float buf[2][kThreads];
  cg::thread_block cta = cg::this_thread_block();
  const int i = threadIdx.x;
  float sum = 0.0f;
  cg::memcpy_async(cta, buf[0], in, sizeof(float) * kThreads);
  for (int t = 0; t < tiles; ++t) {
    const size_t count = kThreads;  // (passed by reference: a copy, not the namespace's constant)
    if (t + 1 < tiles) cg::memcpy_async(cta, &buf[(t + 1) % 2][0], count, in + (t + 1) * kThreads, count);
    if (bug == 1)
      cta.sync();
    else if (t + 1 < tiles)
      cg::wait_prior<1>(cta);
    else
      cg::wait(cta);
    sum += buf[t % 2][(i + 1) % kThreads];  // @group-read
    cta.sync();
  }
  out[i] = sum;
}

// A warp (a tile of 32) copies `bytes` bytes from in + `offset` into shared memory at `at`, waits, and stores the tile
// back: every relative alignment (16-, 8- and 4-byte chunks with their ends copied at once, or all of it at once).
__global__ void group_copy_bytes(const unsigned char* in, unsigned char* out, int offset, int at, int bytes) {
  __shared__ __align__(16) unsigned char tile[320];
  const auto warp = cg::tiled_partition<32>(cg::this_thread_block());
  for (int j = threadIdx.x; j < 320; j += 32) tile[j] = 0;
  warp.sync();
  cg::memcpy_async(warp, tile + at, in + offset, bytes);
  cg::wait(warp);
  for (int j = threadIdx.x; j < 320; j += 32) out[j] = tile[j];
}

// pipelined_sum with each thread's own cuda::pipeline: a thread copies its element of the next tile
// (cuda::memcpy_async between producer_acquire and producer_commit) and waits for the current tile. bug 0:
// pipe.consumer_wait(); 1: no wait (the reads come before the copies they need); 2:
// cuda::pipeline_consumer_wait_prior<1> (<0> for the last tile).
__global__ void thread_pipeline_sum(const float* in, float* out, int tiles, int bug) {
  __shared__ float buf[2][kThreads];
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  const int i = threadIdx.x;
  float sum = 0.0f;
  pipe.producer_acquire();
  cuda::memcpy_async(&buf[0][i], &in[i], sizeof(float), pipe);
  pipe.producer_commit();
  for (int t = 0; t < tiles; ++t) {
    if (t + 1 < tiles) {
      pipe.producer_acquire();
      cuda::memcpy_async(&buf[(t + 1) % 2][i], &in[(t + 1) * kThreads + i], sizeof(float), pipe);
      pipe.producer_commit();
    }
    if (bug == 0) {
      pipe.consumer_wait();
    } else if (bug == 2) {
      if (t + 1 < tiles)
        cuda::pipeline_consumer_wait_prior<1>(pipe);
      else
        cuda::pipeline_consumer_wait_prior<0>(pipe);
    }
    __syncthreads();
    sum += buf[t % 2][(i + 1) % kThreads];  // @pipe-read
    __syncthreads();
    pipe.consumer_release();
  }
  out[i] = sum;
}

// The sum of the tiles with a cuda::barrier of the block: each tile is copied with cuda::memcpy_async(..., bar) and
// complete once every thread has arrived and waited. form 0: a thread copies its element, bar.arrive_and_wait();
// 1: the block copies the tile together (the group form), then bar.arrive() ... bar.wait(token); 2 (bug): a
// __syncthreads() in place of the arrival; 3 (bug): a barrier set up for half the block, whose phase completes once
// the first half has arrived, before the second half's copies have started; 4 (bug): a barrier that init() never
// set up; 5 (bug): a thread reads its own copy between arrive() and wait(); 6 (bug): no __syncthreads() between
// init() and the first arrival.
__global__ void barrier_sum(const float* in, float* out, int tiles, int form) {
  __shared__ float buf[kThreads];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto cta = cg::this_thread_block();
  if (threadIdx.x == 0 && form != 4) init(&bar, form == 3 ? kThreads / 2 : kThreads);  // @barrier-init
  if (form != 6) __syncthreads();
  const int i = threadIdx.x;
  float sum = 0.0f;
  for (int t = 0; t < tiles; ++t) {
    if (form == 1) {
      cuda::memcpy_async(cta, buf, in + t * kThreads, sizeof(float) * kThreads, bar);
      cuda::barrier<cuda::thread_scope_block>::arrival_token token = bar.arrive();
      bar.wait(std::move(token));
    } else {
      // the void* form:
      cuda::memcpy_async(static_cast<void*>(&buf[i]), &in[t * kThreads + i], sizeof(float), bar);  // @barrier-copy
      if (form == 2) {
        __syncthreads();
      } else if (form == 5) {
        cuda::barrier<cuda::thread_scope_block>::arrival_token token = bar.arrive();
        sum += 0.0f * buf[i];  // @barrier-own
        bar.wait(std::move(token));
      } else {
        bar.arrive_and_wait();  // @barrier-wait
      }
    }
    sum += buf[(i + 1) % kThreads];  // @barrier-read
    __syncthreads();
  }
  out[i] = sum;
}

// The sum by producers and consumers with cuda::barrier, in the CUDA Programming Guide's pattern: the block's first
// 64 threads put tile t into buffer t % 2, the other 64 add it up. Every thread arrives at both barriers of a buffer
// once per use: filled[b] (the producers arrive once the tile is in, the consumers arrive and wait for it) and
// ready[b] (the consumers arrive once they are done with the buffer, the producers arrive and wait before refilling
// it; the consumers' first arrivals say that both buffers are free). form 0: stores; 1: cuda::memcpy_async(...,
// filled[b]), and one lane per consumer warp makes its warp's first arrivals with arrive(32); 2 (bug): the consumers
// arrive at filled[b] without waiting; 3 (bug): the consumers never say that the buffers are free (a GPU hangs).
__global__ void producer_consumer_sum(const float* in, float* out, int tiles, int form) {
  __shared__ float buf[2][kThreads];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> ready[2], filled[2];
  if (threadIdx.x < 2) {
    init(&ready[threadIdx.x], blockDim.x);
    init(&filled[threadIdx.x], blockDim.x);
  }
  __syncthreads();
  if (threadIdx.x < kThreads) {  // a producer
    const int i = threadIdx.x;
    for (int t = 0; t < tiles; ++t) {
      const int b = t % 2;
      ready[b].arrive_and_wait();  // @pc-refill
      if (form == 1)
        cuda::memcpy_async(&buf[b][i], &in[t * kThreads + i], sizeof(float), filled[b]);
      else
        buf[b][i] = in[t * kThreads + i];
      (void)filled[b].arrive();
    }
    return;
  }
  const int i = threadIdx.x - kThreads;  // a consumer
  if (form == 1 && i % 32 == 0) {
    (void)ready[0].arrive(32);
    (void)ready[1].arrive(32);
  } else if (form != 1 && form != 3) {
    (void)ready[0].arrive();
    (void)ready[1].arrive();
  }
  float sum = 0.0f;
  for (int t = 0; t < tiles; ++t) {
    const int b = t % 2;
    if (form == 2)
      (void)filled[b].arrive();
    else
      filled[b].arrive_and_wait();      // @pc-filled
    sum += buf[b][(i + 1) % kThreads];  // @pc-read
    (void)ready[b].arrive();
  }
  out[i] = sum;
}

// The sum with a cuda::barrier per warp, whose copies join the phase current when they start, as in libcu++ (the
// threads that start them need not arrive): form 0: each warp copies its half of the tile together (the group form of
// cuda::memcpy_async with a tiled_partition<32>), and its lane 0 makes the warp's 32 arrivals with arrive(32) and
// waits; 1: lane 0 copies the warp's half alone, and the barrier counts lanes 1..31, which arrive and wait; 2 (bug):
// as 0, with lane 0 reading its own copy between arrive(32) and wait(), though its arrival does not complete the copy;
// 3 (bug): init(&bar, 33), so lane 0's wait never returns (a GPU hangs) with the copies still pending; 4 (bug):
// arrive(0); 5: as 0, waiting with wait_parity(t & 1) (phase t's parity); 6: as 5, polling try_wait_parity_for();
// 7 (bug): lane 0 arrives and no thread waits, so nothing says the copies have landed before the __syncthreads();
// 8 (bug): each lane copies its own element and lane 31 makes the warp's arrivals with no warp.sync() after the
// copies, so on a GPU its arrival may complete the phase before another lane's copy starts (that copy then joins the
// next phase); 9: as 8 with the warp.sync(); 10 (bug): lane 0 arrives twice and waits for the older token last, two
// phases old, which a GPU reads as the current phase (it waits for ever); 11: three arrivals, the oldest token last:
// its parity is not the current phase's, so the wait returns at once; 12: as 9, with each half-warp's tile of 16 lanes
// synchronized and its last lane arriving for it (arrive(16)); 13: a barrier per tile of 16 lanes, constructed in
// place by its rank 0 each round and ordered by the tile's sync alone.
__global__ void warp_barrier_sum(const float* in, float* out, int tiles, int form) {
  __shared__ float buf[kThreads];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar[kThreads / 32];
  auto warp = cg::tiled_partition<32>(cg::this_thread_block());
  const int i = threadIdx.x, w = i / 32, lane = static_cast<int>(warp.thread_rank());
  if (lane == 0) init(&bar[w], form == 1 ? 31 : form == 3 ? 33 : 32);
  __syncthreads();
  float sum = 0.0f;
  for (int t = 0; t < tiles; ++t) {
    float* half = &buf[w * 32];
    const float* from = in + t * kThreads + w * 32;
    if (form == 1) {
      if (lane == 0) cuda::memcpy_async(half, from, sizeof(float) * 32, bar[w]);
      warp.sync();
      if (lane != 0) bar[w].arrive_and_wait();
    } else if (form == 8 || form == 9) {
      cuda::memcpy_async(&half[lane], &from[lane], sizeof(float), bar[w]);  // @warp-bar-lane-copy
      if (form == 9) warp.sync();
      if (lane == 31) bar[w].wait(bar[w].arrive(32));
    } else if (form == 12) {
      auto sixteen = cg::tiled_partition<16>(warp);
      cuda::memcpy_async(&half[lane], &from[lane], sizeof(float), bar[w]);
      sixteen.sync();
      if (sixteen.thread_rank() == 15) bar[w].wait(bar[w].arrive(16));
    } else if (form == 13) {
      // A barrier per tile of 16 lanes, set up by its rank 0 and ordered by the tile's sync alone; every lane copies
      // and arrives. (Declared in place, as libcu++ allows; the token is a std::uint64_t, as libcu++'s.)
      __shared__ cuda::barrier<cuda::std::thread_scope_block> tile_bar[kThreads / 16];
      auto sixteen = cg::tiled_partition<16>(warp);
      cuda::barrier<cuda::std::thread_scope_block>& mine = tile_bar[i / 16];
      if (sixteen.thread_rank() == 0) new (&mine) cuda::barrier<cuda::std::thread_scope_block>(16);
      sixteen.sync();
      cuda::memcpy_async(&buf[i], &in[t * kThreads + i], sizeof(float), mine);
      std::uint64_t token = mine.arrive();
      mine.wait(std::move(token));
      mine.~barrier();
    } else if (form == 10 || form == 11) {
      cuda::memcpy_async(warp, half, from, sizeof(float) * 32, bar[w]);
      warp.sync();
      if (lane == 0) {
        cuda::barrier<cuda::thread_scope_block>::arrival_token oldest = bar[w].arrive(32);
        cuda::barrier<cuda::thread_scope_block>::arrival_token newer = bar[w].arrive(32);
        if (form == 11) newer = bar[w].arrive(32);
        bar[w].wait(std::move(newer));
        bar[w].wait(std::move(oldest));  // @warp-bar-stale
      }
    } else {
      cuda::memcpy_async(warp, half, from, sizeof(float) * 32, bar[w]);
      warp.sync();
      if (lane == 0 && form >= 5) {
        (void)bar[w].arrive(32);
        if (form == 5)
          bar[w].wait_parity(t & 1);
        else if (form == 6)
          while (!bar[w].try_wait_parity_for(t & 1, cuda::std::chrono::nanoseconds(100))) {
          }
      } else if (lane == 0) {
        cuda::barrier<cuda::thread_scope_block>::arrival_token token =
            bar[w].arrive(form == 4 ? 0 : 32);  // @warp-bar-arrive
        if (form == 2) sum += 0.0f * half[0];   // @warp-bar-own
        bar[w].wait(std::move(token));          // @warp-bar-wait
      }
    }
    __syncthreads();
    sum += buf[(i + 1) % kThreads];  // @warp-bar-read
    __syncthreads();
  }
  out[i] = sum;
}

// The sum with a pipeline of the whole block (cuda::pipeline_shared_state, two stages): the next tile is copied
// between producer_acquire and producer_commit while the block adds up the current one. form 0: each thread copies
// its element; 1: the block copies the tile together (the group form); 2 (bug): no consumer_wait() (a
// __syncthreads() in its place); 3: a pipeline of one warp's group (the backend does not support it); 4 (bug): no
// consumer_release(), so the third producer_acquire() finds both stages unreleased (on a GPU it waits for ever).
__global__ void block_pipeline_sum(const float* in, float* out, int tiles, int form) {
  __shared__ float buf[2][kThreads];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
  auto cta = cg::this_thread_block();
  const int i = threadIdx.x;
  auto copy = [&](cuda::pipeline<cuda::thread_scope_block>& pipe, int t) {
    pipe.producer_acquire();  // @block-pipe-acquire
    if (form == 1)
      cuda::memcpy_async(cta, buf[t % 2], in + t * kThreads, sizeof(float) * kThreads, pipe);
    else
      cuda::memcpy_async(&buf[t % 2][i], &in[t * kThreads + i], sizeof(float), pipe);
    pipe.producer_commit();
  };
  auto body = [&](cuda::pipeline<cuda::thread_scope_block>& pipe) {
    float sum = 0.0f;
    copy(pipe, 0);
    for (int t = 0; t < tiles; ++t) {
      if (t + 1 < tiles) copy(pipe, t + 1);
      if (form == 2)
        __syncthreads();
      else
        pipe.consumer_wait();                 // @block-pipe-wait
      sum += buf[t % 2][(i + 1) % kThreads];  // @block-pipe-read
      if (form != 4) pipe.consumer_release();
    }
    out[i] = sum;
  };
  if (form == 3) {
    auto warp = cg::tiled_partition<32>(cta);
    cuda::pipeline<cuda::thread_scope_block> pipe = cuda::make_pipeline(warp, &state);
    body(pipe);
  } else {
    cuda::pipeline<cuda::thread_scope_block> pipe = cuda::make_pipeline(cta, &state);
    body(pipe);
  }
}

}  // namespace

cudaError_t run_block_pipeline_sum(const float* in, float* out, int tiles, int form) {
  block_pipeline_sum<<<2, kThreads>>>(in, out, tiles, form);
  return cudaDeviceSynchronize();
}

cudaError_t run_barrier_sum(const float* in, float* out, int tiles, int form) {
  barrier_sum<<<2, kThreads>>>(in, out, tiles, form);
  return cudaDeviceSynchronize();
}

cudaError_t run_warp_barrier_sum(const float* in, float* out, int tiles, int form) {
  warp_barrier_sum<<<2, kThreads>>>(in, out, tiles, form);
  return cudaDeviceSynchronize();
}

cudaError_t run_producer_consumer_sum(const float* in, float* out, int tiles, int form) {
  producer_consumer_sum<<<2, 2 * kThreads>>>(in, out, tiles, form);
  return cudaDeviceSynchronize();
}

cudaError_t run_thread_pipeline_sum(const float* in, float* out, int tiles, int bug) {
  thread_pipeline_sum<<<1, kThreads>>>(in, out, tiles, bug);
  return cudaDeviceSynchronize();
}

cudaError_t run_group_pipelined_sum(const float* in, float* out, int tiles, int bug) {
  group_pipelined_sum<<<1, kThreads>>>(in, out, tiles, bug);
  return cudaDeviceSynchronize();
}

cudaError_t run_group_copy_bytes(const unsigned char* in, unsigned char* out, int offset, int at, int bytes) {
  group_copy_bytes<<<1, 32>>>(in, out, offset, at, bytes);
  return cudaDeviceSynchronize();
}

cudaError_t run_vector_read(const float* in, float* out, int bug) {
  vector_read<<<1, 16>>>(in, out, bug);
  return cudaDeviceSynchronize();
}

cudaError_t run_pipelined_sum(const float* in, float* out, int tiles, int bug) {
  pipelined_sum<<<1, kThreads>>>(in, out, tiles, bug);
  return cudaDeviceSynchronize();
}

cudaError_t run_wide_copy(const float* in, float* out, int offset, int size, int zfill) {
  wide_copy<<<1, 8, 8 * 4 * sizeof(float)>>>(in, out, offset, size, zfill);
  return cudaDeviceSynchronize();
}
