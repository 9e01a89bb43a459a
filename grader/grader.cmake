# The instructor grader's own tests (grader/grade.py, grader/course_grader). Included from grader/CMakeLists.txt.
#   course.grader.unit     the pure parts, stdlib unittest, no build (a few seconds)
#   course.grader.samples  end to end: generates the samples of grader/samples/samples.toml into
#                          <build>/grades/.samples, grades them on the CPU backend and checks the verdicts the spec
#                          expects (configures and builds its own grading tree under <build>/grades/.work, shared with
#                          ./setup.sh's main job and reused by later runs: minutes the first time on 2 cores)

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
