#!/usr/bin/env bash
# Gradescope autograder setup: runs once while Gradescope builds the autograder image (as root, with the bundle
# unpacked in ROOT/source). Brings the image to what the course needs, then prebuilds the grading tree with the
# skeletons, so that grading an upload recompiles only the student's file.
#
#   setup.sh [--plan | --no-install] [ROOT]    ROOT: the argument, else $AUTOGRADER_ROOT, else /autograder
#     --plan        print what would be installed; install nothing, build nothing
#     --no-install  stop (exit 1) if anything is missing instead of installing it (the CI test,
#                   test_gradescope.FromAnEmptyFolder, runs it so: it never changes the machine)
#
# The course needs CMake >= 3.25, Python >= 3.11, Ninja, g++ >= 12 (C++20), GoogleTest, Boost.Context (the CPU
# backend), toml++ 3 headers, bubblewrap (the sandbox), binutils and util-linux (readelf, objdump, prlimit).
#   Debian 12, Ubuntu 24.04 and later: everything from apt.
#   Ubuntu 22.04 (Gradescope's default base image: CMake 3.22, Python 3.10, g++ 11, no toml++ package): apt for the
#     rest, and CMake from PyPI (the system Python's pip installs the 'cmake' wheel into /usr/local/bin),
#     python3.11 and g++-12 from Ubuntu's universe, toml++ from the bundle's copy (third_party/, copied by
#     make_bundle.py from the instructor's machine) into /usr/local/include.
# What is already there is kept. When nothing is missing nothing is installed, and root is not needed.
set -euo pipefail

plan=0
install=1
while [[ ${1:-} == --* ]]; do
  case $1 in
    --plan) plan=1 ;;
    --no-install) install=0 ;;
    *) echo "setup.sh: unknown option $1 (known: --plan, --no-install)" >&2; exit 2 ;;
  esac
  shift
done
root="${1:-${AUTOGRADER_ROOT:-/autograder}}"
source_dir="$root/source"
if [[ ! -f $source_dir/grader/course_grader/gradescope.py ]]; then
  echo "setup.sh: $source_dir does not hold the autograder bundle (no grader/course_grader/gradescope.py)" >&2
  exit 2
fi

os_id=unknown
os_version=""
if [[ -r /etc/os-release ]]; then
  # shellcheck disable=SC1091  # (the system's file, read in a subshell)
  os_id="$(. /etc/os-release && echo "${ID:-unknown}")"
  # shellcheck disable=SC1091
  os_version="$(. /etc/os-release && echo "${VERSION_ID:-}")"
fi
jammy=0
[[ $os_id == ubuntu && $os_version == 22.04 ]] && jammy=1

# version_at_least A B: A >= B, both dotted.
version_at_least() {
  [[ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" == "$2" ]]
}

cmake_ok() {
  local v
  v="$(cmake --version 2>/dev/null | sed -n 's/^cmake version \([0-9.]*\).*/\1/p')"
  [[ -n $v ]] && version_at_least "$v" 3.25
}

# The first interpreter >= 3.11, as a full path (the grader needs tomllib).
find_python() {
  local p
  for p in python3 python3.13 python3.12 python3.11; do
    if command -v "$p" >/dev/null && "$p" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
      command -v "$p"
      return 0
    fi
  done
  return 1
}

# The first g++ >= 12, as a full path.
find_cxx() {
  local c v
  for c in g++ g++-14 g++-13 g++-12; do
    v="$("$c" -dumpversion 2>/dev/null || true)"
    if [[ -n $v ]] && version_at_least "$v" 12; then
      command -v "$c"
      return 0
    fi
  done
  return 1
}

have_tomlpp() {
  local d
  for d in /usr/include /usr/local/include; do
    [[ -f $d/toml++/toml.hpp || -f $d/toml++/toml.h ]] && return 0
  done
  return 1
}

installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

# ---- what is missing ---------------------------------------------------------------------------------------------
apt_missing=()
pip_cmake=0
copy_tomlpp=0
for package in ninja-build libgtest-dev googletest libboost-context-dev bubblewrap binutils util-linux; do
  installed "$package" || apt_missing+=("$package")
done
if ! cmake_ok; then
  if ((jammy)); then
    pip_cmake=1
    python3 -m pip --version >/dev/null 2>&1 || apt_missing+=(python3-pip)
  else
    apt_missing+=(cmake)
  fi
fi
if ! find_python >/dev/null; then
  if ((jammy)); then apt_missing+=(python3.11); else apt_missing+=(python3); fi
fi
if ! find_cxx >/dev/null; then
  if ((jammy)); then apt_missing+=(g++-12); else apt_missing+=(g++); fi
fi
if ! have_tomlpp; then
  if ((jammy)); then copy_tomlpp=1; else apt_missing+=(libtomlplusplus-dev); fi
fi

todo=()
((${#apt_missing[@]})) && todo+=("apt-get install ${apt_missing[*]}")
((pip_cmake)) && todo+=("python3 -m pip install 'cmake>=3.25,<4' (into /usr/local/bin)")
((copy_tomlpp)) && todo+=("copy third_party/tomlplusplus/include/toml++ to /usr/local/include")
echo "== setup.sh: $os_id $os_version, root $root"
if ((${#todo[@]} == 0)); then
  echo "== everything the course needs is installed: nothing to install"
else
  printf '== to install: %s\n' "${todo[@]}"
fi
if ((plan)); then
  exit 0
fi

# ---- install -----------------------------------------------------------------------------------------------------
if ((${#todo[@]})) && ((!install)); then
  echo "setup.sh: --no-install, and the above is missing: install it (./setup.sh of the course does), or run as root" >&2
  exit 1
fi
if ((${#todo[@]})); then
  if [[ $os_id != debian && $os_id != ubuntu ]] || ! command -v apt-get >/dev/null; then
    echo "setup.sh: $os_id $os_version is not Debian or Ubuntu; install the above by hand, then run setup.sh again" >&2
    exit 1
  fi
  if [[ $(id -u) -ne 0 ]]; then
    echo "setup.sh: installing needs root (Gradescope runs setup.sh as root); or install the above by hand" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  if ((${#apt_missing[@]})); then
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${apt_missing[@]}"
  fi
  if ((pip_cmake)); then
    # CMake 4 dropped compatibility with projects older than 3.5 (Ubuntu 22.04's GoogleTest sources are fine, but
    # other distribution files may not be): the 3.x line is what the course is tested with.
    python3 -m pip install --quiet --no-cache-dir 'cmake>=3.25,<4' || {
      echo "setup.sh: pip could not install CMake >= 3.25 from PyPI (no route to pypi.org?). Install CMake >= 3.25" \
        "another way (Kitware's APT repository, apt.kitware.com, or a release from cmake.org into /usr/local)," \
        "then run setup.sh again" >&2
      exit 1
    }
    hash -r
  fi
  if ((copy_tomlpp)); then
    if [[ ! -d $source_dir/third_party/tomlplusplus/include/toml++ ]]; then
      echo "setup.sh: the bundle has no third_party/tomlplusplus (made with an old make_bundle.py?)" >&2
      exit 1
    fi
    mkdir -p /usr/local/include
    cp -r "$source_dir/third_party/tomlplusplus/include/toml++" /usr/local/include/
  fi
fi

# ---- check -------------------------------------------------------------------------------------------------------
cmake_ok || { echo "setup.sh: CMake >= 3.25 not found on PATH ($(command -v cmake || echo none))" >&2; exit 1; }
python="$(find_python)" || { echo "setup.sh: no Python >= 3.11 found (python3, python3.11, ...)" >&2; exit 1; }
cxx="$(find_cxx)" || { echo "setup.sh: no g++ >= 12 found (g++, g++-12, ...)" >&2; exit 1; }
have_tomlpp || { echo "setup.sh: no toml++ headers in /usr/include or /usr/local/include" >&2; exit 1; }
echo "== $(cmake --version | head -n1), $("$python" --version) ($python), $("$cxx" --version | head -n1)"

# ---- prebuild ----------------------------------------------------------------------------------------------------
# run_autograder uses the same interpreter (ROOT/grader-work: the grading tree's folder); the tree keeps the compiler
# that CMake found with CXX set.
cd "$source_dir"
mkdir -p "$root/grader-work"
echo "$python" >"$root/grader-work/python.txt"
labs="$(cat grader/gradescope/labs.txt 2>/dev/null || true)"
echo "== prebuilding the grading tree (labs: ${labs:-all})"
CXX="$cxx" PYTHONPATH="$source_dir/grader" "$python" -m course_grader.gradescope --root "$root" --labs "$labs" \
  --prebuild
echo "== setup.sh: done"
