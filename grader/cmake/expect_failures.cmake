# Runs a lab test program that must FAIL, and checks that it fails the expected way. Used for the skeletons and for
# the catalogue of known-wrong kernels.
#
#   cmake -DEXE=<judge program> -DWORKER=<worker program> -DEXPECT=<expectation> -DFILTER=<gtest filter> -DWORKDIR=<scratch dir>
#         -P expect_failures.cmake
#
# EXPECT is "wrong" (some test fails cleanly), "<category> at line <N>" (a failure message carries the CPU backend's
# diagnosis "[<category>] <file>:<N>: ..."), or "correct" (every test passes: a kernel that is only slow). A crash
# never counts as the expected outcome.
foreach(var EXE WORKER EXPECT FILTER WORKDIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "expect_failures.cmake needs -D${var}=...")
  endif()
endforeach()

file(MAKE_DIRECTORY "${WORKDIR}")
set(json "${WORKDIR}/result.json")
file(REMOVE "${json}")
execute_process(COMMAND "${EXE}" "--course-worker=${WORKER}" "--gtest_filter=${FILTER}" "--gtest_output=json:${json}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT EXISTS "${json}")
  message(FATAL_ERROR "${EXE} ended abnormally (${rc}) instead of failing its tests cleanly:\n${out}\n${err}")
endif()
file(READ "${json}" report)
string(JSON failures GET "${report}" failures)
string(JSON tests GET "${report}" tests)
if(EXPECT STREQUAL "correct")
  if(NOT failures EQUAL 0 OR tests EQUAL 0)
    message(FATAL_ERROR "expected all ${tests} tests of ${EXE} to pass; ${failures} failed:\n${out}")
  endif()
  message(STATUS "correct, as expected (${tests} tests passed)")
  return()
endif()
if(failures EQUAL 0)
  message(FATAL_ERROR "expected ${EXE} to fail (${EXPECT}), but its ${tests} tests (${FILTER}) passed or skipped")
endif()

# Gather every failure message.
set(messages "")
string(JSON suites LENGTH "${report}" testsuites)
math(EXPR last_suite "${suites} - 1")
foreach(i RANGE ${last_suite})
  string(JSON cases LENGTH "${report}" testsuites ${i} testsuite)
  if(cases EQUAL 0)
    continue()
  endif()
  math(EXPR last_case "${cases} - 1")
  foreach(j RANGE ${last_case})
    string(JSON nfail ERROR_VARIABLE no_failures LENGTH "${report}" testsuites ${i} testsuite ${j} failures)
    if(no_failures OR nfail EQUAL 0)
      continue()
    endif()
    math(EXPR last_fail "${nfail} - 1")
    foreach(k RANGE ${last_fail})
      string(JSON text GET "${report}" testsuites ${i} testsuite ${j} failures ${k} failure)
      string(APPEND messages "${text}\n")
    endforeach()
  endforeach()
endforeach()

if(EXPECT STREQUAL "wrong")
  message(STATUS "failed as expected (${failures} failing tests). First message:\n${messages}")
  return()
endif()
if(NOT EXPECT MATCHES "^([a-z-]+) at line ([0-9]+)$")
  message(FATAL_ERROR "bad expectation '${EXPECT}': use 'wrong' or '<category> at line <N>'")
endif()
set(category "${CMAKE_MATCH_1}")
set(line "${CMAKE_MATCH_2}")
string(REGEX MATCH "\\[${category}\\] [^\n]*:${line}: [^\n]*" found "${messages}")
if(NOT found)
  message(FATAL_ERROR "expected a '${category}' diagnosis at line ${line}; the failures said:\n${messages}")
endif()
message(STATUS "diagnosed as expected: ${found}")
