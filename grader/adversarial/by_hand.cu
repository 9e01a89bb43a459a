// Adversarial suite (grader/adversarial/suite.toml): the common part of the attacks that reach libc WITHOUT naming
// it, so that the grader's symbol rules, which see only the symbols an object names, let them through. What must stop
// them is the sandbox and the judge/worker split; the suite checks that they did.
//
// How: from this file's own ELF header (the page that starts with "\x7fELF" below its code) to the dynamic section, to
// the loader's list of loaded objects (DT_DEBUG -> r_debug -> link_map), to libc's GNU hash table, as a dynamic
// loader resolves a symbol. The object names nothing but memcmp, strcmp and strstr (all allowed).
// Each sample of the suite replaces the ATTACK line at the end with its attack and the lab's launcher; the kernel
// and add() below are correct.
#include "lab01_matadd.h"

#include <fcntl.h>
#include <link.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>

namespace {

// ---- libc by hand -----------------------------------------------------------------------------------------------

const ElfW(Ehdr) * image_holding(const void* code) {
  std::uintptr_t page = reinterpret_cast<std::uintptr_t>(code) & ~std::uintptr_t{4095};
  while (std::memcmp(reinterpret_cast<const void*>(page), ELFMAG, SELFMAG) != 0) page -= 4096;
  return reinterpret_cast<const ElfW(Ehdr)*>(page);
}

const ElfW(Dyn) * dynamic_section(const ElfW(Ehdr) * image) {
  const auto at = reinterpret_cast<std::uintptr_t>(image);
  const auto* ph = reinterpret_cast<const ElfW(Phdr)*>(at + image->e_phoff);
  std::uintptr_t bias = at;  // where the first loaded segment's address 0 lies (0 for a non-PIE executable)
  for (int i = 0; i < image->e_phnum; ++i)
    if (ph[i].p_type == PT_LOAD) {
      bias = at - (ph[i].p_vaddr & ~std::uintptr_t{4095});
      break;
    }
  for (int i = 0; i < image->e_phnum; ++i)
    if (ph[i].p_type == PT_DYNAMIC) return reinterpret_cast<const ElfW(Dyn)*>(bias + ph[i].p_vaddr);
  return nullptr;
}

// A symbol of one loaded object, through its GNU hash table.
void* lookup(const link_map* object, const char* name) {
  const ElfW(Sym)* symbols = nullptr;
  const char* strings = nullptr;
  const std::uint32_t* hash = nullptr;
  for (const ElfW(Dyn)* d = object->l_ld; d->d_tag != DT_NULL; ++d) {
    std::uintptr_t p = d->d_un.d_ptr;
    if (p < object->l_addr) p += object->l_addr;  // not relocated in place by the loader
    if (d->d_tag == DT_SYMTAB) symbols = reinterpret_cast<const ElfW(Sym)*>(p);
    if (d->d_tag == DT_STRTAB) strings = reinterpret_cast<const char*>(p);
    if (d->d_tag == DT_GNU_HASH) hash = reinterpret_cast<const std::uint32_t*>(p);
  }
  if (symbols == nullptr || strings == nullptr || hash == nullptr) return nullptr;
  const std::uint32_t buckets = hash[0], first = hash[1], bloom_words = hash[2];
  const auto* bucket =
      reinterpret_cast<const std::uint32_t*>(reinterpret_cast<const ElfW(Addr)*>(hash + 4) + bloom_words);
  const std::uint32_t* chain = bucket + buckets;
  std::uint32_t h = 5381;
  for (const char* c = name; *c; ++c) h = h * 33 + static_cast<unsigned char>(*c);
  for (std::uint32_t i = bucket[h % buckets]; i >= first; ++i) {
    const std::uint32_t other = chain[i - first];
    if ((h | 1) == (other | 1) && std::strcmp(strings + symbols[i].st_name, name) == 0 && symbols[i].st_value != 0)
      return reinterpret_cast<void*>(object->l_addr + symbols[i].st_value);
    if (other & 1) break;
  }
  return nullptr;
}

void* libc_symbol(const char* name) {
  for (const ElfW(Dyn)* d = dynamic_section(image_holding(reinterpret_cast<const void*>(&image_holding)));
       d != nullptr && d->d_tag != DT_NULL; ++d) {
    if (d->d_tag != DT_DEBUG || d->d_un.d_ptr == 0) continue;
    for (const link_map* m = reinterpret_cast<const r_debug*>(d->d_un.d_ptr)->r_map; m != nullptr; m = m->l_next)
      if (m->l_name != nullptr && std::strstr(m->l_name, "libc.so") != nullptr) return lookup(m, name);
  }
  return nullptr;
}

// libc's `name` as a function of type F (nullptr when it cannot be found: every attack checks and says so).
template <class F>
F libc(const char* name) {
  F f = reinterpret_cast<F>(libc_symbol(name));
  if (f == nullptr) std::printf("adversarial: libc's %s not found\n", name);
  return f;
}

// Creates an empty file named `name` in every place an attack would like to leave a trace in: the temporary folders,
// the home folders, and the folders above the run folder (the grader's work and output folders, the submissions'
// parent, the checkout). Returns how many it created (inside the sandbox: only in its own private folders).
int drop_canaries(const char* name) {
  auto open_file = libc<int (*)(const char*, int, ...)>("open");
  auto close_file = libc<int (*)(int)>("close");
  if (open_file == nullptr || close_file == nullptr) return 0;
  int made = 0;
  auto drop = [&](const char* path) {
    const int fd = open_file(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd >= 0) ++made, close_file(fd);
  };
  char path[512];
  for (const char* place : {"/tmp", "/var/tmp", "/dev/shm", "/root"}) {
    std::snprintf(path, sizeof path, "%s/%s", place, name);
    drop(path);
  }
  std::snprintf(path, sizeof path, "%s", name);  // the run folder, then each folder above it
  for (int up = 0; up < 8; ++up) {
    drop(path);
    std::memmove(path + 3, path, std::strlen(path) + 1);
    std::memcpy(path, "../", 3);
  }
  std::printf("adversarial: %d canaries named %s created (inside the sandbox: its private folders only)\n", made, name);
  return made;
}

// The same as a shell command, for the attacks that start a shell.
void canary_script(char* script, std::size_t size, const char* name) {
  std::snprintf(script, size,
                "for d in /tmp /var/tmp /dev/shm /root \"$HOME\" . .. ../.. ../../.. ../../../.. ../../../../.. "
                "../../../../../.. ../../../../../../..; do touch \"$d/%s\"; done 2>/dev/null; echo adversarial: "
                "shell ran",
                name);
}

// ---- the kernel: correct --------------------------------------------------------------------------------------------

__global__ void matadd_kernel(const float* a, const float* b, float* c, int rows, int cols) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows || col >= cols) return;
  c[row * cols + col] = a[row * cols + col] + b[row * cols + col];
}

void add(const float* a, const float* b, float* c, int rows, int cols, cudaStream_t stream) {
  const dim3 block(32, 8);
  const dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
  matadd_kernel<<<grid, block, 0, stream>>>(a, b, c, rows, cols);
}

}  // namespace

// ATTACK
