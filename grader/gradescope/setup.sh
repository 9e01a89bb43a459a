#!/usr/bin/env bash
# Gradescope autograder setup (runs once when the image is built). The bundle is unpacked in /autograder/source.
# Installs the CPU backend's needs and prebuilds the grading tree, so each upload recompiles only the student's file.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends cmake ninja-build g++ libgtest-dev googletest libboost-context-dev \
  python3 binutils util-linux libtomlplusplus-dev bubblewrap  # bubblewrap: the grader sandboxes student code
cd /autograder/source
labs="$(cat grader/gradescope/labs.txt 2>/dev/null || true)"
PYTHONPATH=/autograder/source/grader python3 -m course_grader.gradescope --root /autograder --labs "$labs" --prebuild
