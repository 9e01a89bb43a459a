# What leaves this repository, each built from the checkout and tried from an empty folder (self-test, label
# selftest; included from grader/CMakeLists.txt). Both configure and build a tree of their own on the CPU backend.
#   course.grader.gradescope  the Gradescope bundle (grader/gradescope/make_bundle.py --labs 01) unzipped into an
#                             empty folder laid out like /autograder: setup.sh --no-install (it fails where this
#                             machine lacks a package), then run_autograder on the samples "correct" and "wrong"; checks
#                             results.json (test_gradescope.FromAnEmptyFolder; 83 s on 2 cores without ccache: the
#                             prebuild compiles the harness and the CPU backend in the bundle's own tree)
#   course.edition.student    the student edition of every lab (grader/edition/student_edition.py): no solution code
#                             in any file; there every skeleton compiles and `ctest -R labNN` fails, and passes with
#                             the reference solution in its place (test_edition.Built; 233 s on 2 cores without
#                             ccache, 161 s of it the build; less once ccache has the harness: its folder is the same
#                             every run). Neither tree builds the course's own tests (common/, common/cpu/tests): a
#                             tree without solutions/ has no self-test
if(NOT COURSE_HAVE_CPU_BACKEND)
  return()  # both grade or test on the CPU backend
endif()

add_test(NAME course.grader.gradescope
         COMMAND Python3::Interpreter -m unittest -v test_gradescope.FromAnEmptyFolder
         WORKING_DIRECTORY "${CMAKE_CURRENT_LIST_DIR}/../tests_py")
set_tests_properties(course.grader.gradescope PROPERTIES
                     ENVIRONMENT "COURSE_GRADESCOPE_SELFTEST=${CMAKE_BINARY_DIR}/gradescope-selftest"
                     LABELS "selftest;grader" TIMEOUT 3600 RUN_SERIAL TRUE)

add_test(NAME course.edition.student
         COMMAND Python3::Interpreter -m unittest -v test_edition.Built
         WORKING_DIRECTORY "${CMAKE_CURRENT_LIST_DIR}/../tests_py")
set_tests_properties(course.edition.student PROPERTIES
                     ENVIRONMENT "COURSE_EDITION_SELFTEST=${CMAKE_BINARY_DIR}/edition-selftest"
                     LABELS "selftest;edition" TIMEOUT 3600 RUN_SERIAL TRUE)
