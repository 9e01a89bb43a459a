// time_runs and time_bracketed on the CPU backend's runtime (events there read the host clock): the order and the
// number of runs, and the statistics, not the speed.
#include "course/timing.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

TEST(Timing, RunsWarmupPlusTimedRunsAndReportsTheirMedian) {
  int calls = 0, before = 0;
  course::TimingOptions options;
  options.warmup = 2;
  options.runs = 5;
  options.before_each = [&] { ++before; };
  const course::Timing t = course::time_runs([&] { ++calls; }, options);
  EXPECT_EQ(calls, 7);
  EXPECT_EQ(before, 7);
  ASSERT_EQ(t.samples_ms.size(), 5u);
  EXPECT_LE(t.min_ms, t.median_ms);
  EXPECT_LE(t.median_ms, t.max_ms);
}

TEST(Timing, RejectsNoRuns) {
  course::TimingOptions options;
  options.runs = 0;
  EXPECT_THROW(course::time_runs([] {}, options), std::invalid_argument);
}

TEST(Timing, BaselinesBracketTheLabInMirrorOrder) {
  std::string order;
  course::TimingOptions options;
  options.warmup = 0;
  options.runs = 1;
  const course::Bracketed b =
      course::time_bracketed([&] { order += "L"; }, {[&] { order += "c"; }, [&] { order += "g"; }}, options);
  EXPECT_EQ(order, "cgLgc");  // copy, global, lab, global, copy: drift affects every ratio's both sides
  ASSERT_EQ(b.baselines.size(), 2u);
  EXPECT_DOUBLE_EQ(b.baselines[0].ms(), 0.5 * (b.baselines[0].before.median_ms + b.baselines[0].after.median_ms));
}

}  // namespace
