// Host entry points of the self-test kernels (kernels_basic.cu, kernels_bugs.cu, kernels_members.cu).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

cudaError_t run_mat_add(const float* a, const float* b, float* c, int rows, int cols);
cudaError_t run_gemm(int tile, const float* A, const float* B, float* C, int M, int N, int K);
cudaError_t run_reduce(const float* in, float* out, int n, int block);
cudaError_t run_atomics(int* counter, unsigned long long* big, float* f, int blocks, int threads);
cudaError_t launch_with(dim3 grid, dim3 block, std::size_t shmem);
cudaError_t allow_dynamic_shared(int bytes);
cudaError_t run_bank_probe(int which, float* out);
cudaError_t run_warp_ops(int* out);
cudaError_t run_auto_copies(float* out);
cudaError_t run_deduced(float alpha, const float* x, float* y, int n, const int* in, double* out, int m);

cudaError_t run_gemm_missing_sync(int which, const float* A, const float* B, float* C, int n);
cudaError_t run_sync_in_if(const float* in, float* out, int blocks);
cudaError_t run_early_return(const float* in, float* out, int n);
cudaError_t run_oob_global(const float* a, const float* b, float* c, int n);
cudaError_t run_oob_shared(float* out);
cudaError_t run_uninitialized(float* out);
cudaError_t run_host_pointer(float* host);
cudaError_t run_shuffle_after_return(float* out, int n, unsigned mask = 0xffffffffu);
cudaError_t run_warp_tail(const float* in, float* out);
cudaError_t run_racy_deduced(int* out);
cudaError_t run_half_warp_sync(float* out);
cudaError_t run_wording(int which, const float* a, float* out);
// which 0: a float4 load from in + offset; 1: a float2 store to the shared memory at float index offset.
cudaError_t run_misaligned(int which, int offset, const float* in, float* out);
// out[offset + i] = in[offset + i] for i < 16, copied as float4.
cudaError_t run_vector_copy(int offset, const float* in, float* out);
// Two tiles of 32 floats through local pointers into the extern __shared__ memory, with or without the barrier.
cudaError_t run_carved_tiles(int sync, const float* in, float* out);
// sharedScalars: mode 0 misses the barrier after thread 0 sets `total` (a race at @scalar-read), mode 1 is correct
// (out[i] = 2 in[0] + 3), mode 2 reads `flag` before any thread wrote it.
cudaError_t run_shared_scalars(int mode, const float* in, float* out);
// declaratorForms: mode 0 races through a later declarator, an auto pointer and a cast in place; mode 1 is correct;
// mode 2 reads never-written floats through a cast to const float2*.
cudaError_t run_declarator_forms(int mode, const float* in, float* out);
// A 4 x 5 tile through a pointer to rows, every thread reading column `column` of its row.
cudaError_t run_row_pointer(int column, float* out);
// Rows of 2D shared arrays cast to float4* and float2*; in: 256 floats, out: 64 floats.
// __constant__ weights and a __device__ table (kernels_bugs.cu): mode 1 reads past the weights, 2 writes past a row.
cudaError_t run_device_arrays(int mode, float* out);
cudaError_t run_row_casts(int padded, const float* in, float* out);
// FETCH_FLOAT4 and __ldg; in: 64 floats, out: 16 floats.
cudaError_t run_access_macros(int mode, const float* in, float* out);
cudaError_t run_dereference_forms(int mode, const float* in, float* out);
cudaError_t run_whole_stores(int mode, float* out);
cudaError_t run_member_forms(int mode, float* out);
cudaError_t run_member_forms_valid(int bug, float* out);
// A __shared__ struct and union used as scalars, their members and member arrays; in: 32 floats, out: 33.
cudaError_t run_shared_objects(int mode, const float* in, float* out);
// Bit-field members of shared structs stored, updated and read; out: 32 floats.
cudaError_t run_bit_field_members(float* out);
// Member arrays of the elements of a __shared__ array of structs; out: 32 floats.
cudaError_t run_element_member_arrays(int mode, float* out);
// Struct elements sorted and read through helpers' reference parameters; keys: 64 distinct ints, out: 64 floats.
cudaError_t run_struct_reference_helpers(const int* keys, float* out, int bug);
// A shared struct scalar stored whole, read by members; in: 1 float, out: 32 floats.
cudaError_t run_whole_shared_object(const float* in, float* out, int bug);
// 128 one-byte flags stored and read by neighbours (kernels_bytes.cu); out: 128 ints.
cudaError_t run_byte_flags(int mode, int* out);
// Elements as operands of a user type's operators and arguments of its functions, converted by its constructor.
cudaError_t run_converting_operands(float* out);
// Shared elements handed to helpers taking float& (kernels_helpers.cu): bug 1 races in the accumulating helper, bug 2
// reads never-written elements through a volatile float&.
cudaError_t run_reference_helpers(const float* in, float* out, int bug);
// A tree over a shared array of {sum, count} combined through a by-value helper and an operator; bug 1 drops the first
// barrier (a race at the combining line).
cudaError_t run_struct_arguments(const float* in, float* out, int bug);
// Helpers qualified through macros (__device__ __forceinline__, __host__ __device__); bug 1 drops the barrier between
// one helper's stores and the other's reads.
cudaError_t run_macro_helpers(float* out, int bug);
// Elements given to functions and operators in the red-team's forms (kernels_calls.cu), 32 threads.
cudaError_t run_call_forms(float* out);
