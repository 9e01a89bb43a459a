# The instructor grader's own tests (grader/grade.py, grader/course_grader). Included from grader/CMakeLists.txt.
#   course.grader.unit     the pure parts, stdlib unittest, no build (a few seconds)
#   course.grader.samples  end to end: generates the samples of grader/samples/samples.toml into
#                          <build>/grades/.samples, grades them on the CPU backend and checks the verdicts the spec
#                          expects (configures and builds its own grading tree under <build>/grades/.work, shared with
#                          ./setup.sh's main job and reused by later runs: minutes the first time on 2 cores)
#   course.grader.idioms   the same for the kernels in public CUDA idioms of grader/idioms/idioms.toml (labs 01, 03,
#                          04, 05, 06 and 07), in the grading tree of course.grader.samples (--work), outputs in <build>/grades-idioms
#   course.grader.adversarial  the public adversarial suite (grader/adversarial/suite.toml and hangs.toml: escapes,
#                          forged verdicts, the seed, perf cheats, resource abuse, honest unusual code) graded on the
#                          CPU backend by grader/adversarial/run.py, which checks every verdict and that no attack left a
#                          trace; it shares course.grader.samples' grading tree. Skipped (exit 77) without a sandbox.
#   course.grader.slurm    a small class graded through a one-node Slurm cluster equals a one-machine run (below)

add_test(NAME course.grader.unit
         COMMAND Python3::Interpreter -m unittest discover -s tests_py -t tests_py
         WORKING_DIRECTORY "${CMAKE_CURRENT_LIST_DIR}")
set_tests_properties(course.grader.unit PROPERTIES LABELS "selftest;grader" TIMEOUT 300)

if(NOT COURSE_HAVE_CPU_BACKEND)
  return()  # the end-to-end test grades on the CPU backend
endif()
add_test(NAME course.grader.samples
         COMMAND Python3::Interpreter "${CMAKE_CURRENT_LIST_DIR}/grade.py"
                 "${CMAKE_CURRENT_LIST_DIR}/samples/samples.toml" --out "${CMAKE_BINARY_DIR}/grades"
                 --backend cpu --labs 01,03 --test-timeout 45 --no-plots
         WORKING_DIRECTORY "${CMAKE_CURRENT_LIST_DIR}")
set_tests_properties(course.grader.samples PROPERTIES LABELS "selftest;grader" TIMEOUT 3600 RUN_SERIAL TRUE)
add_test(NAME course.grader.idioms
         COMMAND Python3::Interpreter "${CMAKE_CURRENT_LIST_DIR}/grade.py"
                 "${CMAKE_CURRENT_LIST_DIR}/idioms/idioms.toml" --out "${CMAKE_BINARY_DIR}/grades-idioms"
                 --work "${CMAKE_BINARY_DIR}/grades/.work" --backend cpu --labs 01,03,04,05,06,07 --test-timeout 45
                 --no-plots
         WORKING_DIRECTORY "${CMAKE_CURRENT_LIST_DIR}")
set_tests_properties(course.grader.idioms PROPERTIES LABELS "selftest;grader" TIMEOUT 3600 RUN_SERIAL TRUE)
add_test(NAME course.grader.adversarial
         COMMAND Python3::Interpreter "${CMAKE_CURRENT_LIST_DIR}/adversarial/run.py" --backend cpu
                 --out "${CMAKE_BINARY_DIR}/adversarial" --work "${CMAKE_BINARY_DIR}/grades/.work"
         WORKING_DIRECTORY "${CMAKE_CURRENT_LIST_DIR}")
set_tests_properties(course.grader.adversarial PROPERTIES LABELS "selftest;grader" TIMEOUT 3600 RUN_SERIAL TRUE
                                                          SKIP_RETURN_CODE 77)

# course.grader.slurm: grades a small class through a one-node Slurm cluster started on this machine
# (grader/slurm/start_cluster.sh, its own run folder and ports) and checks that the merged outputs equal a one-machine
# run's (grader/slurm/check_cluster.py; about 1 minute, 3 the first time). Only where it can run: as root (slurmd
# starts jobs as their users), with Slurm and MUNGE installed or apt-get to install them. The test installs Debian's
# slurm-wlm and munge itself where they are missing, so that ./setup.sh puts no cluster daemon on a student's machine.
execute_process(COMMAND id -u OUTPUT_VARIABLE course_uid OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
find_program(COURSE_SLURMCTLD slurmctld PATHS /usr/sbin /usr/local/sbin)
find_program(COURSE_APT_GET apt-get)
if(course_uid STREQUAL "0" AND (COURSE_SLURMCTLD OR COURSE_APT_GET))
  add_test(NAME course.grader.slurm
           COMMAND Python3::Interpreter "${CMAKE_CURRENT_LIST_DIR}/slurm/check_cluster.py" --install
                   --work "${CMAKE_BINARY_DIR}/slurm-test"
           WORKING_DIRECTORY "${CMAKE_CURRENT_LIST_DIR}")
  set_tests_properties(course.grader.slurm PROPERTIES LABELS "selftest;grader" TIMEOUT 900 RUN_SERIAL TRUE)
else()
  message(STATUS "course: the Slurm test (course.grader.slurm) needs root and Slurm or apt-get: not registered")
endif()
