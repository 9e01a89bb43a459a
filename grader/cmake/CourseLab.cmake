# course_add_lab(): the one function that adds a lab. For lab NN it builds and registers
#
#   student  (COURSE_STUDENT_DIR/NN_name, default labs/):  tests named  labNN.<Suite>.<Case>         GPU
#                                                                      labNN.cpu.<Suite>.<Case>     CPU backend, fast
#                                                                      labNN.check.<Suite>.<Case>   CPU backend, check
#   solution (solutions/NN_name):                          the same, named solutionNN.…  (not matched by -R labNN)
#   self-test:  course.NN_name.skeleton_matches_solution, course.NN_name.skeleton_fails, course.NN_name.catalogue.<entry>
#               (named by the lab's folder, so that `ctest -R labNN` matches only the student's own tests)
#
# Test suites whose name ends in "Perf" are perf tests (label perf, run serially, GPU only); the others are
# correctness tests (label correctness). GPU correctness tests are registered when a GPU is present
# (COURSE_HAVE_GPU); without one the CPU backend runs them and the perf tests skip with the reason.
#
#   course_add_lab(01 01_matadd
#     SOURCES   matadd.cu                       lab file(s), same names in labs/ and solutions/
#     TESTS     tests/lab01_matadd_test.cpp     GoogleTest sources (no main)
#     BASELINES baselines/copy.cu               .cu files the tests time the lab against (all backends)
#     CATALOGUE catalogue/lab01/*.cu            known-wrong lab files the CPU backend must reject
#     VARIANTS  variants/lab01/*.cu)            other correct lab files (e.g. a plain scalar kernel) that must
#                                               pass every test: with a GPU they show the threshold's margin
#
# A catalogue entry is a complete lab file (it replaces the lab's first source file), wrong in one known way. Its
# header says what must happen:
#   // expect: <category> at line <N>     the CPU backend's check mode reports <category> at line N (e.g. race)
#   // expect: wrong                      some correctness test fails cleanly on the CPU backend
#   // expect: correct                    correct on the CPU backend (an entry that is only slow)
#   // expect-gpu: perf-fail              (optional, with a GPU) correct but slow: the perf test fails

set(COURSE_EXPECT_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/expect_failures.cmake")

# Test objects for one backend, compiled once and linked into every executable of that backend.
function(_course_test_objects lab backend)
  set(target ${lab}_tests_${backend})
  add_library(${target} OBJECT ${ARGN})
  if(backend STREQUAL "gpu")
    target_link_libraries(${target} PUBLIC course_harness_gpu)
  else()
    target_link_libraries(${target} PUBLIC course_harness_cpu)
  endif()
  if(backend STREQUAL "check")
    target_compile_definitions(${target} PUBLIC COURSE_CHECK_MODE=1)
  endif()
  target_link_libraries(${target} PUBLIC course_interfaces GTest::gtest)
endfunction()

# The CPU backend compiles a lab file after course-rewrite has turned its CUDA-only syntax into C++ (keeping the
# student's file and line numbers). Output: <build>/rewritten/<target>/<name>.cpp.
function(_course_rewrite out_var source backend target)
  get_filename_component(name "${source}" NAME_WE)
  set(output "${CMAKE_CURRENT_BINARY_DIR}/rewritten/${target}/${name}.cpp")
  set(mode fast)
  if(backend STREQUAL "check")
    set(mode check)
  endif()
  add_custom_command(OUTPUT "${output}"
    COMMAND course-rewrite --mode ${mode} "${source}" "${output}"
    DEPENDS course-rewrite "${source}"
    COMMENT "course-rewrite (${mode}) ${source}"
    VERBATIM)
  set(${out_var} "${output}" PARENT_SCOPE)
endfunction()

# The lab's baselines for one backend, compiled once and linked into every executable of that backend.
function(_course_baseline_objects lab backend)
  set(sources "")
  foreach(src IN LISTS ${lab}_BASELINES)
    if(backend STREQUAL "gpu")
      list(APPEND sources "${src}")
    else()
      _course_rewrite(rewritten "${src}" ${backend} ${lab}_baselines_${backend})
      list(APPEND sources "${rewritten}")
    endif()
  endforeach()
  if(sources)
    add_library(${lab}_baselines_${backend} OBJECT ${sources})
    target_link_libraries(${lab}_baselines_${backend} PRIVATE ${lab}_tests_${backend})  # include paths
  endif()
endfunction()

# One test executable: the given lab files (full paths) on `backend`, linked with the lab's test and baseline
# objects (object files reach only the targets that link them directly).
function(_course_lab_executable target lab backend)
  set(sources "")
  foreach(src IN LISTS ARGN)
    if(backend STREQUAL "gpu")
      list(APPEND sources "${src}")
    else()
      _course_rewrite(rewritten "${src}" ${backend} ${target})
      list(APPEND sources "${rewritten}")
    endif()
  endforeach()
  list(GET ARGN 0 first)
  get_filename_component(src_dir "${first}" DIRECTORY)
  add_executable(${target} ${sources})
  target_include_directories(${target} PRIVATE "${src_dir}")
  target_link_libraries(${target} PRIVATE ${lab}_tests_${backend} GTest::gtest_main)
  if(TARGET ${lab}_baselines_${backend})
    target_link_libraries(${target} PRIVATE ${lab}_baselines_${backend})
  endif()
  if(backend STREQUAL "gpu")
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>)
  endif()
endfunction()

# gtest_discover_tests with list-valued LABELS. Its PROPERTIES are flattened (LABELS a;b becomes LABELS=a plus a
# property named b), so the labels are set by a small script that CTest runs right after the discovery script.
function(_course_discover target kind prefix filter labels)
  set(list_var ${target}_${kind}_tests)
  gtest_discover_tests(${target} TEST_PREFIX "${prefix}." TEST_FILTER "${filter}" DISCOVERY_MODE PRE_TEST
                       NO_PRETTY_VALUES TEST_LIST ${list_var} PROPERTIES ${ARGN})
  set(script "${CMAKE_CURRENT_BINARY_DIR}/${target}_${kind}_labels.cmake")
  file(WRITE "${script}" "if(${list_var})\n  set_tests_properties(\${${list_var}} PROPERTIES LABELS \"${labels}\")\nendif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${script}")
endfunction()

# Registers the tests of `target` under `prefix` with the labels of `lab`, `role` (student / solution), `backend`
# and kind (correctness / perf).
function(_course_register target prefix lab backend role)
  set(labels "${lab};${role};${backend}")
  if(role STREQUAL "solution")
    list(APPEND labels selftest)
  endif()
  if(NOT backend STREQUAL "gpu" OR COURSE_HAVE_GPU)
    _course_discover(${target} correctness "${prefix}" "-*Perf.*" "${labels};correctness" TIMEOUT 300)
  endif()
  if(backend STREQUAL "gpu")
    _course_discover(${target} perf "${prefix}" "*Perf.*" "${labels};perf" RUN_SERIAL TRUE TIMEOUT 300)
  endif()
endfunction()

function(course_add_lab number dir)
  cmake_parse_arguments(PARSE_ARGV 2 ARG "" "" "SOURCES;TESTS;BASELINES;CATALOGUE;VARIANTS")
  set(lab "lab${number}")
  list(TRANSFORM ARG_BASELINES PREPEND "${CMAKE_CURRENT_SOURCE_DIR}/" OUTPUT_VARIABLE ${lab}_BASELINES)
  set(backends "")
  if(COURSE_HAVE_CUDA)
    list(APPEND backends gpu)
  endif()
  if(COURSE_HAVE_CPU_BACKEND)
    list(APPEND backends cpu check)
  endif()
  foreach(backend IN LISTS backends)
    _course_test_objects(${lab} ${backend} ${ARG_TESTS})
    _course_baseline_objects(${lab} ${backend})
  endforeach()

  set(roles student)
  if(COURSE_BUILD_SOLUTIONS)
    list(APPEND roles solution)
  endif()
  foreach(role IN LISTS roles)
    if(role STREQUAL "student")
      set(src_dir "${COURSE_STUDENT_DIR}/${dir}")
      set(prefix "${lab}")
    else()
      set(src_dir "${PROJECT_SOURCE_DIR}/solutions/${dir}")
      set(prefix "solution${number}")
    endif()
    foreach(backend IN LISTS backends)
      set(test_prefix "${prefix}")
      if(NOT backend STREQUAL "gpu")
        set(test_prefix "${prefix}.${backend}")
      endif()
      list(TRANSFORM ARG_SOURCES PREPEND "${src_dir}/" OUTPUT_VARIABLE files)
      _course_lab_executable(${prefix}_${backend} ${lab} ${backend} ${files})
      _course_register(${prefix}_${backend} "${test_prefix}" ${lab} ${backend} ${role})
    endforeach()
  endforeach()

  # ---- self-test: about the course's own files, so only when the student folder is the course's ----
  if(NOT COURSE_BUILD_SOLUTIONS OR NOT COURSE_STUDENT_DIR STREQUAL "${PROJECT_SOURCE_DIR}/labs")
    return()
  endif()
  foreach(src IN LISTS ARG_SOURCES)
    add_test(NAME course.${dir}.skeleton_matches_solution.${src}
             COMMAND course-skeleton-diff "${PROJECT_SOURCE_DIR}/labs/${dir}/${src}"
                                          "${PROJECT_SOURCE_DIR}/solutions/${dir}/${src}")
    set_tests_properties(course.${dir}.skeleton_matches_solution.${src} PROPERTIES LABELS "selftest;${lab}")
  endforeach()
  if(COURSE_HAVE_CPU_BACKEND)
    add_test(NAME course.${dir}.skeleton_fails
             COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:${lab}_check> -DEXPECT=wrong "-DFILTER=-*Perf.*"
                     -DWORKDIR=${CMAKE_CURRENT_BINARY_DIR}/expect/${lab}_skeleton -P "${COURSE_EXPECT_SCRIPT}")
    set_tests_properties(course.${dir}.skeleton_fails PROPERTIES LABELS "selftest;${lab}")
  endif()

  # Known-wrong kernels (see the header of this file for the expectations).
  foreach(entry IN LISTS ARG_CATALOGUE)
    get_filename_component(entry "${entry}" ABSOLUTE)
    get_filename_component(name "${entry}" NAME_WE)
    file(STRINGS "${entry}" expect_cpu REGEX "^// expect: " LIMIT_COUNT 1)
    file(STRINGS "${entry}" expect_gpu REGEX "^// expect-gpu: " LIMIT_COUNT 1)
    if(NOT expect_cpu)
      message(FATAL_ERROR "${entry}: a catalogue entry needs a '// expect: ...' line")
    endif()
    string(REGEX REPLACE "^// expect: " "" expect_cpu "${expect_cpu}")
    set(exe ${lab}_catalogue_${name})
    if(COURSE_HAVE_CPU_BACKEND)
      _course_lab_executable(${exe} ${lab} check "${entry}")
      add_test(NAME course.${dir}.catalogue.${name}
               COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:${exe}> "-DEXPECT=${expect_cpu}" "-DFILTER=-*Perf.*"
                       -DWORKDIR=${CMAKE_CURRENT_BINARY_DIR}/expect/${exe} -P "${COURSE_EXPECT_SCRIPT}")
      set_tests_properties(course.${dir}.catalogue.${name} PROPERTIES LABELS "selftest;${lab};catalogue")
    endif()
    if(expect_gpu AND COURSE_HAVE_GPU)
      string(REGEX REPLACE "^// expect-gpu: " "" expect_gpu "${expect_gpu}")
      if(NOT expect_gpu STREQUAL "perf-fail")
        message(FATAL_ERROR "${entry}: the only GPU expectation is '// expect-gpu: perf-fail'")
      endif()
      _course_lab_executable(${exe}_gpu ${lab} gpu "${entry}")
      add_test(NAME course.${dir}.catalogue_gpu.${name}
               COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:${exe}_gpu> -DEXPECT=wrong "-DFILTER=*Perf.*"
                       -DWORKDIR=${CMAKE_CURRENT_BINARY_DIR}/expect/${exe}_gpu -P "${COURSE_EXPECT_SCRIPT}")
      set_tests_properties(course.${dir}.catalogue_gpu.${name} PROPERTIES
                           LABELS "selftest;${lab};catalogue;perf" RUN_SERIAL TRUE)
    endif()
  endforeach()

  # Correct variants: pass on the CPU backend (check mode) and, with a GPU, pass the perf test too.
  foreach(variant IN LISTS ARG_VARIANTS)
    get_filename_component(variant "${variant}" ABSOLUTE)
    get_filename_component(name "${variant}" NAME_WE)
    set(exe ${lab}_variant_${name})
    if(COURSE_HAVE_CPU_BACKEND)
      _course_lab_executable(${exe} ${lab} check "${variant}")
      add_test(NAME course.${dir}.variant.${name} COMMAND ${exe} "--gtest_filter=-*Perf.*")
      set_tests_properties(course.${dir}.variant.${name} PROPERTIES LABELS "selftest;${lab};variant")
    endif()
    if(COURSE_HAVE_GPU)  # the GPU build is only worth its compile time where a GPU runs it
      _course_lab_executable(${exe}_gpu ${lab} gpu "${variant}")
      add_test(NAME course.${dir}.variant_gpu.${name} COMMAND ${exe}_gpu)
      set_tests_properties(course.${dir}.variant_gpu.${name} PROPERTIES
                           LABELS "selftest;${lab};variant;perf" RUN_SERIAL TRUE)
    endif()
  endforeach()
endfunction()
