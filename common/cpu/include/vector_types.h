// CPU backend of the course: CUDA vector types (float2, int4, dim3, ...) for
// host C++ compilers. Layout and alignment follow CUDA's vector_types.h.
#pragma once

#include <cstddef>

#define COURSE_CPU_VEC2(T, N, A) \
  struct alignas(A) N##2 {       \
    T x, y;                      \
  };                             \
  inline N##2 make_##N##2(T x, T y) { return N##2 {x, y}; }
#define COURSE_CPU_VEC3(T, N) \
  struct N##3 {               \
    T x, y, z;                \
  };                          \
  inline N##3 make_##N##3(T x, T y, T z) { return N##3 {x, y, z}; }
#define COURSE_CPU_VEC4(T, N, A) \
  struct alignas(A) N##4 {       \
    T x, y, z, w;                \
  };                             \
  inline N##4 make_##N##4(T x, T y, T z, T w) { return N##4 {x, y, z, w}; }
#define COURSE_CPU_VEC1(T, N, A) \
  struct alignas(A) N##1 {       \
    T x;                         \
  };                             \
  inline N##1 make_##N##1(T x) { return N##1 {x}; }

COURSE_CPU_VEC1(char, char, 1)
COURSE_CPU_VEC2(char, char, 2)
COURSE_CPU_VEC3(char, char)
COURSE_CPU_VEC4(char, char, 4)
COURSE_CPU_VEC1(unsigned char, uchar, 1)
COURSE_CPU_VEC2(unsigned char, uchar, 2)
COURSE_CPU_VEC3(unsigned char, uchar)
COURSE_CPU_VEC4(unsigned char, uchar, 4)
COURSE_CPU_VEC1(short, short, 2)
COURSE_CPU_VEC2(short, short, 4)
COURSE_CPU_VEC3(short, short)
COURSE_CPU_VEC4(short, short, 8)
COURSE_CPU_VEC1(unsigned short, ushort, 2)
COURSE_CPU_VEC2(unsigned short, ushort, 4)
COURSE_CPU_VEC3(unsigned short, ushort)
COURSE_CPU_VEC4(unsigned short, ushort, 8)
COURSE_CPU_VEC1(int, int, 4)
COURSE_CPU_VEC2(int, int, 8)
COURSE_CPU_VEC3(int, int)
COURSE_CPU_VEC4(int, int, 16)
COURSE_CPU_VEC1(unsigned int, uint, 4)
COURSE_CPU_VEC2(unsigned int, uint, 8)
COURSE_CPU_VEC4(unsigned int, uint, 16)
COURSE_CPU_VEC1(long, long, 8)
COURSE_CPU_VEC2(long, long, 16)
COURSE_CPU_VEC3(long, long)
COURSE_CPU_VEC4(long, long, 16)
COURSE_CPU_VEC1(unsigned long, ulong, 8)
COURSE_CPU_VEC2(unsigned long, ulong, 16)
COURSE_CPU_VEC3(unsigned long, ulong)
COURSE_CPU_VEC4(unsigned long, ulong, 16)
COURSE_CPU_VEC1(long long, longlong, 8)
COURSE_CPU_VEC2(long long, longlong, 16)
COURSE_CPU_VEC3(long long, longlong)
COURSE_CPU_VEC4(long long, longlong, 16)
COURSE_CPU_VEC1(unsigned long long, ulonglong, 8)
COURSE_CPU_VEC2(unsigned long long, ulonglong, 16)
COURSE_CPU_VEC3(unsigned long long, ulonglong)
COURSE_CPU_VEC4(unsigned long long, ulonglong, 16)
COURSE_CPU_VEC1(float, float, 4)
COURSE_CPU_VEC2(float, float, 8)
COURSE_CPU_VEC3(float, float)
COURSE_CPU_VEC4(float, float, 16)
COURSE_CPU_VEC1(double, double, 8)
COURSE_CPU_VEC2(double, double, 16)
COURSE_CPU_VEC3(double, double)
COURSE_CPU_VEC4(double, double, 16)

#undef COURSE_CPU_VEC1
#undef COURSE_CPU_VEC2
#undef COURSE_CPU_VEC3
#undef COURSE_CPU_VEC4

// uint3 is the type of threadIdx/blockIdx; dim3 converts to and from it.
struct uint3 {
  unsigned int x, y, z;
};
inline uint3 make_uint3(unsigned int x, unsigned int y, unsigned int z) { return uint3{x, y, z}; }

struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};
