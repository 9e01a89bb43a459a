# Formatting checks of the course's own sources (self-test, label "format"): C++/CUDA against .clang-format, Python
# against pyproject.toml (black) and .flake8. Registered only where the tools are installed (./setup.sh installs them);
# to fix what they report: clang-format -i FILE; black grader docs.
find_program(COURSE_CLANG_FORMAT NAMES clang-format clang-format-14)
find_program(COURSE_BLACK black)
find_program(COURSE_FLAKE8 flake8)

set(_roots common grader labs solutions)
set(course_cpp_sources "")
foreach(root IN LISTS _roots)
  file(GLOB_RECURSE found CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/${root}/*.cu" "${PROJECT_SOURCE_DIR}/${root}/*.cpp"
       "${PROJECT_SOURCE_DIR}/${root}/*.h")
  list(APPEND course_cpp_sources ${found})
endforeach()

if(COURSE_CLANG_FORMAT)
  add_test(NAME course.format.cpp
           COMMAND "${COURSE_CLANG_FORMAT}" --dry-run -Werror --style=file ${course_cpp_sources}
           WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}")
  set_tests_properties(course.format.cpp PROPERTIES LABELS "selftest;format")
else()
  message(STATUS "course: clang-format not found; the C++ format check is not registered (sudo apt-get install "
                 "clang-format)")
endif()
if(COURSE_BLACK AND COURSE_FLAKE8)
  add_test(NAME course.format.python.black COMMAND "${COURSE_BLACK}" --check --quiet grader docs
           WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}")
  add_test(NAME course.format.python.flake8 COMMAND "${COURSE_FLAKE8}" grader docs
           WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}")
  set_tests_properties(course.format.python.black course.format.python.flake8 PROPERTIES LABELS "selftest;format")
else()
  message(STATUS "course: black or flake8 not found; the Python format checks are not registered (sudo apt-get "
                 "install black flake8)")
endif()
