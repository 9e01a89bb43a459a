// course::PerfState and the perf-case registry on the CPU backend's runtime (events there read the host clock): what
// is timed in which order, the ratio's formula, the checks after the timed runs, sizes, and a whole graded case
// against a manifest written to a temporary file. Not the speed.
#include "course/measure.h"

#include "course/device.h"
#include "course/testing.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <variant>
#include <vector>

namespace {

course::TimingOptions one_run() {
  course::TimingOptions options;
  options.warmup = 0;
  options.runs = 1;
  options.flush_l2 = false;
  return options;
}

course::CompareResult passed() { return {}; }

course::CompareResult failed(const std::string& why) {
  course::CompareResult r;
  r.ok = false;
  r.message = why;
  return r;
}

void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

TEST(PerfState, TimesBaselinesAroundTheLabThenTheOthersThenChecks) {
  std::string order;
  course::PerfState state({}, one_run());
  state.baseline("copy", course::Work::bytes(2), [&] { order += "c"; });
  state.baseline("global", course::Work::bytes(2), [&] { order += "g"; });
  state.lab("stencil", course::Work::bytes(2), [&] { order += "L"; });
  state.also_time("other", course::Work::bytes(2), [&] { order += "o"; });
  state.check("out", [&] {
    order += "!";
    return passed();
  });
  EXPECT_FALSE(state.measured());
  state.measure();
  EXPECT_EQ(order, "cgLgco!");  // copy, global, lab, global, copy: drift moves both sides of every ratio
  const course::PerfResults& r = state.results();
  ASSERT_EQ(r.baselines.size(), 2u);
  EXPECT_EQ(r.baselines[1].name, "global");
  EXPECT_TRUE(r.baselines[0].after.has_value());
  EXPECT_FALSE(r.lab.after.has_value());
  ASSERT_EQ(r.also.size(), 1u);
  EXPECT_TRUE(r.checks_passed());
  EXPECT_NE(state.summary().find("result check 'out' after the timed runs: pass"), std::string::npos)
      << state.summary();
}

TEST(PerfState, UsesTheTimingOptions) {
  int calls = 0;
  course::TimingOptions options = one_run();
  options.warmup = 2;
  options.runs = 4;
  course::PerfState state({}, options);
  state.lab("lab", course::Work::flops(1), [&] { ++calls; });
  state.measure();
  EXPECT_EQ(calls, 6);
  EXPECT_EQ(state.results().lab.timing.samples_ms.size(), 4u);
}

TEST(PerfState, BaselineTimeIsTheMeanOfItsMediansAndRatesDivideWorkByTime) {
  course::Measured m{"copy", course::Work::bytes(4.0e9), {}, course::Timing{}};
  m.timing.median_ms = 1.0;
  m.after->median_ms = 3.0;
  EXPECT_DOUBLE_EQ(m.ms(), 2.0);
  EXPECT_DOUBLE_EQ(m.rate(), 2000.0);  // 4e9 bytes in 2 ms: 2000 GB/s
  course::Measured lab{"lab", course::Work::flops(1.0e9), {}, std::nullopt};
  lab.timing.median_ms = 0.5;
  EXPECT_DOUBLE_EQ(lab.ms(), 0.5);
  EXPECT_STREQ(lab.work.rate_unit(), "GFLOP/s");
}

TEST(PerfState, RatioIsTheLabRateOverTheBaselineRate) {
  course::PerfState state({}, one_run());
  state.baseline("slow", course::Work::bytes(1.0e6), [] { sleep_ms(40); });
  state.lab("fast", course::Work::bytes(1.0e6), [] { sleep_ms(2); });
  state.measure();
  const course::PerfResults& r = state.results();
  EXPECT_DOUBLE_EQ(state.ratio_vs("slow"), r.lab.rate() / r.baselines[0].rate());
  EXPECT_DOUBLE_EQ(state.ratio_vs("slow"), r.baselines[0].ms() / r.lab.ms());  // equal work: the time ratio
  EXPECT_GT(state.ratio_vs("slow"), 3.0);
  try {
    state.ratio_vs("copy");
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("no baseline 'copy' was declared (declared: 'slow')"), std::string::npos)
        << e.what();
  }
}

TEST(PerfState, RatesInDifferentUnitsDoNotDivide) {
  course::PerfState state({}, one_run());
  state.baseline("copy", course::Work::bytes(1), [] {});
  state.lab("gemm", course::Work::flops(1), [] {});
  state.measure();
  EXPECT_THROW(state.ratio_vs("copy"), std::invalid_argument);
}

TEST(PerfState, ChecksRecordFailuresAndWhatTheyThrew) {
  course::PerfState state({}, one_run());
  state.lab("lab", course::Work::bytes(1), [] {});
  state.check("C", [] { return failed("C[0][1] is 3, expected 2"); });
  state.check("D", []() -> course::CompareResult { throw std::runtime_error("the kernel faulted"); });
  state.check("E", [] { return passed(); });
  state.measure();
  const course::PerfResults& r = state.results();
  ASSERT_EQ(r.checks.size(), 3u);
  EXPECT_FALSE(r.checks_passed());
  EXPECT_EQ(r.checks[0].message, "C[0][1] is 3, expected 2");
  EXPECT_EQ(r.checks[1].message, "the kernel faulted");
  EXPECT_TRUE(r.checks[2].ok);
}

TEST(PerfState, SizesAreReadWithTheirTypeAndNamed) {
  const course::PerfState state({{"n", 1LL << 40}, {"radius", 3}}, one_run(), "lab.toml: [[perf]] X");
  EXPECT_EQ(state.size<int>("radius"), 3);
  EXPECT_EQ(state.size("n"), 1LL << 40);
  EXPECT_EQ(state.sizes_text(), "n = 1099511627776, radius = 3");
  try {
    state.size<int>("n");
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("lab.toml: [[perf]] X: size 'n' = 1099511627776 does not fit"),
              std::string::npos)
        << e.what();
  }
  try {
    state.size<int>("block_size");
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "lab.toml: [[perf]] X: no size 'block_size' (sizes: n = 1099511627776, radius = 3)");
  }
}

TEST(PerfState, MisuseIsALogicError) {
  course::PerfState state({}, one_run());
  EXPECT_THROW(state.measure(), std::logic_error);  // no lab
  EXPECT_THROW(state.results(), std::logic_error);  // not measured
  state.lab("lab", course::Work::bytes(1), [] {});
  EXPECT_THROW(state.lab("again", course::Work::bytes(1), [] {}), std::logic_error);
  EXPECT_THROW(state.baseline("lab", course::Work::bytes(1), [] {}), std::logic_error);  // name taken
  state.measure();
  EXPECT_THROW(state.measure(), std::logic_error);
  EXPECT_THROW(state.baseline("late", course::Work::bytes(1), [] {}), std::logic_error);
}

TEST(PerfState, NotesKeepFactsOfTheLaunchersAndThePoint) {
  course::PerfState state({}, one_run());
  state.lab("lab", course::Work::bytes(1), [] {});
  state.note("registers", 128, "lab");
  state.note("error", std::string("cudaErrorInvalidValue"));
  EXPECT_THROW(state.note("registers", 64, "lab"), std::logic_error);      // noted twice
  EXPECT_THROW(state.note("registers", 64, "unknown"), std::logic_error);  // no such launcher
  EXPECT_THROW(state.note("", 1), std::logic_error);
  state.measure();
  state.note("blocks_per_sm", 2, "lab");  // after measure() too
  const std::vector<course::Note>& notes = state.results().notes;
  ASSERT_EQ(notes.size(), 3u);
  EXPECT_EQ(notes[0].launcher, "lab");
  EXPECT_EQ(std::get<double>(notes[0].value), 128.0);
  EXPECT_EQ(notes[1].launcher, "");
  EXPECT_EQ(std::get<std::string>(notes[1].value), "cudaErrorInvalidValue");
  EXPECT_EQ(notes[2].key, "blocks_per_sm");
  EXPECT_NE(state.summary().find("note lab: registers = 128"), std::string::npos) << state.summary();
}

// ---- the registry and a graded case --------------------------------------------------------------------------------

std::string write_manifest(const std::string& name, const std::string& threshold, const std::string& ceiling = "fast") {
  const auto dir = std::filesystem::temp_directory_path() / "course_measure_test";
  std::filesystem::create_directories(dir);
  const auto path = dir / (name + ".toml");
  std::ofstream(path) << "[[perf]]\ntest = \"" << name << "\"\nkey = \"min_speedup\"\n"
                      << "metric = \"time of slow / time of fast\"\nceiling = \"" << ceiling
                      << "\"\nreview_above = 1.25\n"
                      << "size = { n = 3 }\n\n"
                      << "[thresholds.default]\nmin_speedup = " << threshold << "\n";
  return path.string();
}

// A body like a lab's: reads its size, declares, measures.
void sleepy_body(course::PerfState& state) {
  const int n = state.size<int>("n");
  state.baseline("slow", course::Work::flops(n), [] { sleep_ms(30); });
  state.lab("fast", course::Work::flops(n), [] { sleep_ms(1); });
  state.check("result", [n] { return n == 3 ? passed() : failed("n is not 3"); });
  state.measure();
}

TEST(PerfCases, RegisteredCasesAreFoundByTestName) {
  EXPECT_TRUE(course::register_perf_case({"RegistryPerf.Found", "slow", sleepy_body, "x.toml"}));
  EXPECT_EQ(course::perf_case("RegistryPerf.Found").graded_baseline, "slow");
  EXPECT_THROW(course::register_perf_case({"RegistryPerf.Found", "slow", sleepy_body, "x.toml"}), std::logic_error);
  EXPECT_THROW(course::perf_case("RegistryPerf.Missing"), std::invalid_argument);
}

TEST(PerfCases, ALabFasterThanItsCeilingIsHeldForReview) {
  // The ceiling is the library a user would call instead; a lab 30 times faster than it cannot be real.
  const course::PerfCase held{"GradePerf.Review", "slow", sleepy_body,
                              write_manifest("GradePerf.Review", "2.0", "slow")};
  const course::PerfGrade g = course::grade_perf_case(held, one_run());
  EXPECT_EQ(g.ceiling, "slow");
  EXPECT_GT(g.ceiling_fraction, 5.0);
  EXPECT_TRUE(g.review);
  // A ceiling the body did not time (cuBLAS on the CPU backend): no fraction, nothing held.
  const course::PerfCase plain{"GradePerf.NoReview", "slow", sleepy_body,
                               write_manifest("GradePerf.NoReview", "2.0", "cuBLAS SGEMM")};
  const course::PerfGrade h = course::grade_perf_case(plain, one_run());
  EXPECT_EQ(h.ceiling_fraction, 0.0);
  EXPECT_FALSE(h.review);
}

TEST(PerfCases, AGradedCaseUsesTheManifestSizeAndThreshold) {
  const course::PerfCase passing{"GradePerf.Passes", "slow", sleepy_body, write_manifest("GradePerf.Passes", "2.0")};
  const course::PerfGrade g = course::grade_perf_case(passing, one_run());
  EXPECT_EQ(g.metric, "time of slow / time of fast");
  EXPECT_EQ(g.key, "min_speedup");
  EXPECT_EQ(g.sizes, "n = 3");
  EXPECT_EQ(g.device, course::device_info().name);
  EXPECT_DOUBLE_EQ(g.threshold.value, 2.0);
  EXPECT_EQ(g.threshold.section, "default");
  EXPECT_FALSE(g.threshold.notice.empty());  // the CPU backend is no calibrated GPU
  EXPECT_GT(g.ratio, 3.0);
  EXPECT_TRUE(g.ratio_passed);
  EXPECT_TRUE(g.checks_passed);
  EXPECT_TRUE(g.check_failures.empty());

  const course::PerfCase failing{"GradePerf.Fails", "slow", sleepy_body, write_manifest("GradePerf.Fails", "1000")};
  const course::PerfGrade f = course::grade_perf_case(failing, one_run());
  EXPECT_FALSE(f.ratio_passed);
}

TEST(PerfCases, AGradedCaseMustCheckMeasureAndNameADeclaredBaseline) {
  const std::string manifest = write_manifest("GradePerf.Misuse", "1");
  const auto no_check = [](course::PerfState& s) {
    s.lab("fast", course::Work::flops(1), [] {});
    s.measure();
  };
  EXPECT_THROW(course::grade_perf_case({"GradePerf.Misuse", "slow", no_check, manifest}, one_run()), std::logic_error);
  const auto no_measure = [](course::PerfState& s) { s.lab("fast", course::Work::flops(1), [] {}); };
  EXPECT_THROW(course::grade_perf_case({"GradePerf.Misuse", "slow", no_measure, manifest}, one_run()),
               std::logic_error);
  EXPECT_THROW(course::grade_perf_case({"GradePerf.Misuse", "copy", sleepy_body, manifest}, one_run()),
               std::invalid_argument);
  EXPECT_THROW(course::grade_perf_case({"GradePerf.Other", "slow", sleepy_body, manifest}, one_run()),
               course::ManifestError);  // no [[perf]] entry for this test
}

// ---- the GoogleTest side: what a COURSE_PERF_TEST records and when it fails ------------------------------------

std::string property(const std::string& key) {
  const ::testing::TestResult* r = ::testing::UnitTest::GetInstance()->current_test_info()->result();
  for (int i = 0; i < r->test_property_count(); ++i)
    if (r->GetTestProperty(i).key() == key) return r->GetTestProperty(i).value();
  return "(not recorded)";
}

void empty_body(course::PerfState& state) {
  state.baseline("copy", course::Work::bytes(1), [] {});
  state.lab("lab", course::Work::bytes(1), [] {});
  state.check("out", [] { return passed(); });
  state.measure();
}

void wrong_result_body(course::PerfState& state) {
  state.baseline("copy", course::Work::bytes(1), [] {});
  state.lab("lab", course::Work::bytes(1), [] {});
  state.check("out", [] { return failed("out[7] is 0, expected 1"); });
  state.measure();
}

TEST(PerfTest, BelowTheThresholdRecordsVerdictFailAndFails) {
  course::register_perf_case({"PropsPerf.Slow", "copy", empty_body, write_manifest("PropsPerf.Slow", "1e9")});
  EXPECT_NONFATAL_FAILURE(course::expect_perf_passes("PropsPerf.Slow", "test.cpp", 12), "below the pass mark");
  EXPECT_EQ(property("metric"), "time of slow / time of fast");
  EXPECT_EQ(property("threshold"), "1000000000.000000");
  EXPECT_EQ(property("threshold_section"), "default");
  EXPECT_EQ(property("device"), course::device_info().name);
  EXPECT_EQ(property("result_check"), "pass");
  EXPECT_EQ(property("verdict"), "fail");
  EXPECT_NE(property("ratio"), "(not recorded)");
}

TEST(PerfTest, AWrongResultRecordsResultCheckFailAndFails) {
  course::register_perf_case({"PropsPerf.Wrong", "copy", wrong_result_body, write_manifest("PropsPerf.Wrong", "0")});
  EXPECT_NONFATAL_FAILURE(course::expect_perf_passes("PropsPerf.Wrong", "test.cpp", 12), "the result of out is wrong");
  EXPECT_EQ(property("result_check"), "fail");
  EXPECT_EQ(property("verdict"), "pass");
}

TEST(PerfTest, PassingRecordsBothPasses) {
  course::register_perf_case({"PropsPerf.Fine", "copy", empty_body, write_manifest("PropsPerf.Fine", "0")});
  course::expect_perf_passes("PropsPerf.Fine", "test.cpp", 12);
  EXPECT_EQ(property("result_check"), "pass");
  EXPECT_EQ(property("verdict"), "pass");
}

}  // namespace
