# course_add_lab(): the one function that adds a lab, called for each grader/labs/NN_name/lab.toml by the file that
# grader/cmake/configure_labs.py generates (the manifest is the only place that states a lab's files). For lab NN it
# builds and registers
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
#   course_add_lab(03 03_tiled_gemm DIR <grader/labs/03_tiled_gemm>
#     SOURCES   tiled_gemm.cu      lab file(s), same names in labs/ and solutions/
#     TESTS     test.cpp           GoogleTest sources in DIR (no main)
#     BASELINES gemm_naive.cu      .cu files in DIR that the tests time the lab against (all backends)
#     VARIANTS  <full paths>)      other correct lab files that must pass every test (with a GPU, the perf tests too)
#   course_add_mutant(03 03_tiled_gemm missing_first_sync <mutant file> "race at line 40" "perf-fail" | "")
#
# A mutant (catalogue.toml) replaces the lab's first source file. Its expectation: "<category> at line <N>" (check
# mode reports it there), "wrong" (some correctness test fails cleanly) or "correct" (only slow); "perf-fail": with a
# GPU its perf test must fail. The tests' objects see DIR on their include path (the interface header, the baselines'
# header, the CPU reference) and COURSE_LAB_MANIFEST, the path of lab.toml.

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
  target_include_directories(${target} PUBLIC "${${lab}_DIR}")
  target_compile_definitions(${target} PUBLIC COURSE_LAB_MANIFEST="${${lab}_DIR}/lab.toml")
  target_link_libraries(${target} PUBLIC GTest::gtest)
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

# The split (common/include/course/remote.h): one judge program per lab and backend (the tests, the harness, the
# baselines and the generated launcher stubs: no student code) and one worker program per set of lab files (those
# files, the generated launcher table and the worker loop: no tests). The judge starts the worker named by
# --course-worker=PATH and sends it every launcher call.
function(_course_split_parts lab backend stubs table)
  set(side cpu)
  if(backend STREQUAL "gpu")
    set(side gpu)
  endif()
  add_executable(${lab}_judge_${backend} "${stubs}")
  target_link_libraries(${lab}_judge_${backend} PRIVATE ${lab}_tests_${backend} course_judge_${side})
  if(TARGET ${lab}_baselines_${backend})
    target_link_libraries(${lab}_judge_${backend} PRIVATE ${lab}_baselines_${backend})
  endif()
  add_library(${lab}_worker_table_${backend} OBJECT "${table}")
  target_include_directories(${lab}_worker_table_${backend} PRIVATE "${${lab}_DIR}")
  target_link_libraries(${lab}_worker_table_${backend} PUBLIC course_worker_${side})
endfunction()

# One worker program: the given lab files (full paths) on `backend`, its launcher table and the worker loop.
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
  target_include_directories(${target} PRIVATE "${src_dir}" "${${lab}_DIR}")
  target_link_libraries(${target} PRIVATE ${lab}_worker_table_${backend})
  if(backend STREQUAL "gpu")
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>)
  elseif(backend STREQUAL "check")
    target_link_libraries(${target} PRIVATE course_cpu_check_instrumentation)
  endif()
  # For the grader's symbol rules (grader/course_grader/symbols.py): the objects compiled from the lab file(s) and
  # the lab's baseline objects, <build>/grader/targets/programs/<target>.json (every lab program, self-test included).
  _course_json_objects(objects ${target})
  _course_json_objects(baselines ${lab}_baselines_${backend})
  string(REPLACE "lab" "" number "${lab}")
  set(json "{\"target\": \"${target}\", \"lab\": \"${number}\", \"mode\": \"${backend}\", ")
  string(APPEND json "\"executable\": \"$<TARGET_FILE:${lab}_judge_${backend}>\", ")
  string(APPEND json "\"worker\": \"$<TARGET_FILE:${target}>\", \"objects\": ${objects}, ")
  string(APPEND json "\"baselines\": ${baselines}}\n")
  file(GENERATE OUTPUT "${CMAKE_BINARY_DIR}/grader/targets/programs/${target}.json" CONTENT "${json}")
endfunction()

# The command that runs worker program `target` of `lab` on `backend`: its judge, told where the worker is.
function(_course_judge_command out_var target lab backend)
  set(${out_var} "$<TARGET_FILE:${lab}_judge_${backend}>" "--course-worker=$<TARGET_FILE:${target}>" PARENT_SCOPE)
endfunction()

# A JSON array (generator expression) of the object files of `target`; [] when there is no such target.
function(_course_json_objects out_var target)
  if(TARGET ${target})
    set(${out_var} "[\"$<JOIN:$<TARGET_OBJECTS:${target}>,\", \">\"]" PARENT_SCOPE)
  else()
    set(${out_var} "[]" PARENT_SCOPE)
  endif()
endfunction()

# gtest_discover_tests with list-valued LABELS. Its PROPERTIES are flattened (LABELS a;b becomes LABELS=a plus a
# property named b), so the labels are set by a small script that CTest runs right after the discovery script.
# The tests are the judge's (`judge`), run with the worker program `target`.
function(_course_discover target judge kind prefix filter labels)
  set(list_var ${target}_${kind}_tests)
  gtest_discover_tests(${judge} TEST_PREFIX "${prefix}." TEST_FILTER "${filter}" DISCOVERY_MODE PRE_TEST
                       NO_PRETTY_VALUES TEST_LIST ${list_var} EXTRA_ARGS "--course-worker=$<TARGET_FILE:${target}>"
                       PROPERTIES ${ARGN})
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
    _course_discover(${target} ${lab}_judge_${backend} correctness "${prefix}" "-*Perf.*" "${labels};correctness"
                     TIMEOUT 300)
  endif()
  if(backend STREQUAL "gpu")
    _course_discover(${target} ${lab}_judge_${backend} perf "${prefix}" "*Perf.*" "${labels};perf" RUN_SERIAL TRUE
                     TIMEOUT 300)
  endif()
endfunction()

function(course_add_lab number dir)
  cmake_parse_arguments(PARSE_ARGV 2 ARG "" "DIR" "SOURCES;TESTS;BASELINES;VARIANTS;REMOTE")
  list(GET ARG_REMOTE 0 stubs)
  list(GET ARG_REMOTE 1 table)
  set(lab "lab${number}")
  set(${lab}_DIR "${ARG_DIR}")
  set(${lab}_DIR "${ARG_DIR}" PARENT_SCOPE)
  set(${lab}_SOURCES "${ARG_SOURCES}" PARENT_SCOPE)
  list(TRANSFORM ARG_BASELINES PREPEND "${ARG_DIR}/" OUTPUT_VARIABLE ${lab}_BASELINES)
  list(TRANSFORM ARG_TESTS PREPEND "${ARG_DIR}/")
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
    _course_split_parts(${lab} ${backend} "${stubs}" "${table}")
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

  # `cmake --build build --target labNN`: every program `ctest -R labNN` runs (the student's lab file and the judge that
  # tests it, on each backend of this tree), so that on a small machine a student builds one lab and nothing stale.
  set(student_programs "")
  foreach(backend IN LISTS backends)
    list(APPEND student_programs ${lab}_${backend} ${lab}_judge_${backend})
  endforeach()
  add_custom_target(${lab} DEPENDS ${student_programs})

  # For the instructor grader: the student test programs of this lab, per backend, so that no Python rebuilds a
  # target name. <build>/grader/targets/labNN.json = {"lab": "NN", "folder": ..., "executables": {backend: path}}.
  # "objects" and "baselines": {backend: [object files]}, those compiled from the student's lab file(s) and the
  # lab's baselines, for the symbol rules (grader/course_grader/symbols.py).
  set(entries "")
  set(workers "")
  set(objects "")
  set(baselines "")
  foreach(backend IN LISTS backends)
    list(APPEND entries "\"${backend}\": \"$<TARGET_FILE:${lab}_judge_${backend}>\"")
    list(APPEND workers "\"${backend}\": \"$<TARGET_FILE:${lab}_${backend}>\"")
    _course_json_objects(json ${lab}_${backend})
    list(APPEND objects "\"${backend}\": ${json}")
    _course_json_objects(json ${lab}_baselines_${backend})
    list(APPEND baselines "\"${backend}\": ${json}")
  endforeach()
  list(JOIN entries ", " entries)
  list(JOIN workers ", " workers)
  list(JOIN objects ", " objects)
  list(JOIN baselines ", " baselines)
  set(json "{\"lab\": \"${number}\", \"folder\": \"${dir}\", \"executables\": {${entries}}, ")
  string(APPEND json "\"workers\": {${workers}}, ")
  string(APPEND json "\"objects\": {${objects}}, \"baselines\": {${baselines}}}\n")
  file(GENERATE OUTPUT "${CMAKE_BINARY_DIR}/grader/targets/${lab}.json" CONTENT "${json}")

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
             COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:${lab}_judge_check>
                     -DWORKER=$<TARGET_FILE:${lab}_check> -DEXPECT=wrong "-DFILTER=*" -DPERF_AFTER_FAILURE=ON
                     -DWORKDIR=${CMAKE_CURRENT_BINARY_DIR}/expect/${lab}_skeleton -P "${COURSE_EXPECT_SCRIPT}")
    set_tests_properties(course.${dir}.skeleton_fails PROPERTIES LABELS "selftest;${lab}")
  endif()

  # Correct variants: pass on the CPU backend (check mode) and, with a GPU, pass the perf test too.
  foreach(variant IN LISTS ARG_VARIANTS)
    get_filename_component(name "${variant}" NAME_WE)
    set(exe ${lab}_variant_${name})
    if(COURSE_HAVE_CPU_BACKEND)
      _course_lab_executable(${exe} ${lab} check "${variant}")
      _course_judge_command(cmd ${exe} ${lab} check)
      add_test(NAME course.${dir}.variant.${name} COMMAND ${cmd} "--gtest_filter=-*Perf.*")
      set_tests_properties(course.${dir}.variant.${name} PROPERTIES LABELS "selftest;${lab};variant")
    endif()
    if(COURSE_HAVE_GPU)  # the GPU build is only worth its compile time where a GPU runs it
      _course_lab_executable(${exe}_gpu ${lab} gpu "${variant}")
      _course_judge_command(cmd ${exe}_gpu ${lab} gpu)
      add_test(NAME course.${dir}.variant_gpu.${name} COMMAND ${cmd})
      set_tests_properties(course.${dir}.variant_gpu.${name} PROPERTIES
                           LABELS "selftest;${lab};variant;perf" RUN_SERIAL TRUE)
    endif()
  endforeach()
endfunction()

# One known-wrong kernel from a lab's catalogue.toml (see the header of this file); self-test only.
function(course_add_mutant number dir name file expect gpu)
  set(lab "lab${number}")
  if(NOT COURSE_BUILD_SOLUTIONS OR NOT COURSE_STUDENT_DIR STREQUAL "${PROJECT_SOURCE_DIR}/labs")
    return()
  endif()
  set(exe ${lab}_catalogue_${name})
  if(COURSE_HAVE_CPU_BACKEND)
    _course_lab_executable(${exe} ${lab} check "${file}")
    add_test(NAME course.${dir}.catalogue.${name}
             COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:${lab}_judge_check> -DWORKER=$<TARGET_FILE:${exe}>
                     "-DEXPECT=${expect}" "-DFILTER=-*Perf.*"
                     -DWORKDIR=${CMAKE_CURRENT_BINARY_DIR}/expect/${exe} -P "${COURSE_EXPECT_SCRIPT}")
    set_tests_properties(course.${dir}.catalogue.${name} PROPERTIES LABELS "selftest;${lab};catalogue")
  endif()
  if(gpu STREQUAL "perf-fail" AND COURSE_HAVE_GPU)
    _course_lab_executable(${exe}_gpu ${lab} gpu "${file}")
    add_test(NAME course.${dir}.catalogue_gpu.${name}
             COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:${lab}_judge_gpu> -DWORKER=$<TARGET_FILE:${exe}_gpu>
                     -DEXPECT=wrong "-DFILTER=*Perf.*"
                     -DWORKDIR=${CMAKE_CURRENT_BINARY_DIR}/expect/${exe}_gpu -P "${COURSE_EXPECT_SCRIPT}")
    set_tests_properties(course.${dir}.catalogue_gpu.${name} PROPERTIES
                         LABELS "selftest;${lab};catalogue;perf" RUN_SERIAL TRUE)
  endif()
endfunction()
