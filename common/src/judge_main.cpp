// main() of every judge program (course/remote.h): the worker's options out of argv, then GoogleTest.
#include "course/remote.h"

#include <gtest/gtest.h>

int main(int argc, char** argv) {
  course::remote::configure_from_args(&argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
