// Host entry points of the self-test kernels in public CUDA idioms (kernels_idioms.cu and kernels_forms.cu: correct
// ones, kernels_idioms_bugs.cu: the same idioms with the bug check mode must still find).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

// kernels_idioms.cu
cudaError_t run_ternary_warp_sum(const float* in, float* out, int n);
cudaError_t run_reference_sort(const float* in, float* out);                    // 64 floats, sorted ascending
cudaError_t run_volatile_warp_reduce(const float* in, float* out, int blocks);  // 64 threads per block
cudaError_t run_volatile_flags(int* out);
cudaError_t run_cg_block_sum(const float* in, float* out, int n, int block);
cudaError_t run_cg_tile_votes(int* out);                                // 64 threads, 6 ints each
cudaError_t run_float4_shared(const float* in, float* out, int which);  // 128 floats; which: 0 cast, 1 local, 2 macro
cudaError_t run_undefined_shuffle(float* out);                          // 32 floats
cudaError_t run_struct_and_atomics(const float* in, int n, float* best, int* best_index, int* histogram);
// Atomics on __shared__ scalars of a typedef, struct or vector type and atomicExch() into never-written words; out
// holds 68 floats (kernels_idioms.cu).
cudaError_t run_scalar_atomics(const float* in, float* out);
// A float max and a double sum by atomicCAS loops on __shared__ words; out: 2 floats.
cudaError_t run_cas_loops(const float* in, float* out, int threads, bool zero_synced);
cudaError_t run_occupancy_sized(const float* in, float* out, int n, int* grid, int* block);
// Static shared memory of the kernels behind these names (cudaFuncGetAttributes), for the occupancy tests.
cudaError_t attributes_of(int which, cudaFuncAttributes* attr);
cudaError_t blocks_per_sm(int which, int block, std::size_t dynamic_bytes, int* blocks);
// A kernel with 8 KiB of static shared memory whose attributes only the attribute tests set.
cudaError_t probe_attribute(cudaFuncAttribute attr, int value);
cudaError_t probe_blocks(int block, std::size_t dynamic_bytes, int* blocks);
cudaError_t probe_attributes(cudaFuncAttributes* attr);

// kernels_forms.cu
cudaError_t run_conditional_references(float* g, float* out);     // 32 floats each
cudaError_t run_pointer_rows(const float* in, float* out);        // 32 floats each
cudaError_t run_row_references(float* out, int shift);            // 32 floats; shift 1: a row past the tile
cudaError_t run_managed_variables(float* host_copy, int* count);  // 32 floats
cudaError_t run_print_through_macros();                           // prints "log 0.75 7" and "show 1.25"
// 128 floats in and out, 32 points of two floats; bug 0: correct, 1: past the end, 2: race, 3: p->x past the end
cudaError_t run_pointer_forms(const float* in, const void* points, float* out, int bug);
// out[t] = 2 in[4 (t + 1) % 64] + in[4 t + 1] for 16 threads (bug: kernels_forms.cu).
cudaError_t run_multiplied_and_stepped_derefs(const float* in, float* out, int bug);
cudaError_t run_sentinels_through_references(int* out);  // 32 ints
// x: 128 floats, n: 32 ints, total: 1 double, out: 32 floats
cudaError_t run_library_forms(const float* x, const int* n, double* total, float* out);
cudaError_t run_shared_kernel_names(const float* in, float* out, int* ints);  // 32 each
cudaError_t run_active_masks(unsigned* out, int* sums);                       // 72 each
// 64 ints each but count (1 int, zeroed by the caller)
cudaError_t run_coalesced_groups(const int* in, int* slots, int* count, int* ranks, int* sums);
// counters: 2 ints (zeroed by the caller); slots and masks: 32 each
cudaError_t run_aggregated_branches(int* counters, int* slots, unsigned* masks);

// kernels_idioms_bugs.cu
cudaError_t run_volatile_without_syncwarp(const float* in, float* out);
cudaError_t run_syncwarp_between_updates(const float* in, float* out);
cudaError_t run_partial_tile_sync(float* out);
cudaError_t run_tile_race(float* out);
cudaError_t run_warp_chain(float* out, bool linked);
cudaError_t run_reference_race(float* out);
cudaError_t run_float4_then_unwritten(const float* in, float* out);
cudaError_t run_ternary_race(float* out);
cudaError_t run_template_helpers(float* out, int racy);                                         // 64 floats
cudaError_t run_index_forms(const int* in, const int* col, const float* x, float* out, int n);  // 32 each
// A shared histogram of in[0..31] (values 0..7) with atomicAdd, copied to out[0..7]. form 0: correct; 1: no
// __syncthreads() after zeroing the bins; 2: an atomic one past the last bin; 3: a plain read racing with the atomics;
// 4: a global atomic one past the end of out; 5: a shared total zeroed and added to with no __syncthreads().
cudaError_t run_shared_histogram(const int* in, unsigned* out, int form);
cudaError_t run_device_pointer_helpers(const float* in, float* out, bool host_out);  // 32 each
cudaError_t run_row_forms(float* out);                                               // 32 floats
cudaError_t run_callable_forms(float* data, float* out);                             // 32 floats each
cudaError_t run_byte_arrays(const int* in, int* out, int racy);                      // 64 ints each
