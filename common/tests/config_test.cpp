#include "course/config.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace {

const char* kText = R"(# thresholds
[meta]
calibrated_on = "NVIDIA H200, 2026-11-22"   # a comment after a value

[default]
min_ratio = 1.25
[sm_90]
min_ratio = 1.4
enabled = true
)";

TEST(Config, ParsesSectionsNumbersStringsAndComments) {
  const auto c = course::Config::parse(kText, "t.toml");
  EXPECT_EQ(c.string("meta", "calibrated_on"), "NVIDIA H200, 2026-11-22");
  EXPECT_DOUBLE_EQ(c.number("default", "min_ratio"), 1.25);
  EXPECT_DOUBLE_EQ(c.number("sm_90", "min_ratio"), 1.4);
  EXPECT_TRUE(c.has("sm_90", "enabled"));
  EXPECT_FALSE(c.has("sm_80", "min_ratio"));
}

TEST(Config, ErrorsNameFileAndLine) {
  auto error_of = [](const std::string& text) {
    try {
      course::Config::parse(text, "lab.toml");
    } catch (const course::ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("[a]\nx = 1\nx = 2\n"), "lab.toml:3: key 'x' appears twice in [a]");
  EXPECT_EQ(error_of("x = 1\n"), "lab.toml:1: 'x = 1' comes before any [section]");
  EXPECT_EQ(error_of("[a]\nx = 1.2.3\n"), "lab.toml:2: value of 'x' is not a number: '1.2.3'");
  EXPECT_EQ(error_of("[a\n"), "lab.toml:1: a section header must end with ']'");
  EXPECT_EQ(error_of("[a]\njust words\n"), "lab.toml:2: expected 'key = value' or '[section]', got 'just words'");
  EXPECT_EQ(error_of("[a]\ns = \"open\n"), "lab.toml:2: unterminated string for key 's'");
  EXPECT_EQ(error_of("[a]\nx =\n"), "lab.toml:2: key 'x' has no value");
}

TEST(Config, TypeAndMissingKeyErrors) {
  const auto c = course::Config::parse(kText, "t.toml");
  EXPECT_THROW(c.number("meta", "calibrated_on"), course::ConfigError);
  EXPECT_THROW(c.string("default", "min_ratio"), course::ConfigError);
  EXPECT_THROW(c.number("default", "missing"), course::ConfigError);
  EXPECT_THROW(c.number("nosuchsection", "min_ratio"), course::ConfigError);
}

TEST(Config, ThresholdPrefersTheArchitectureSection) {
  const auto c = course::Config::parse(kText, "t.toml");
  const auto t = course::lookup_threshold(c, "min_ratio", "sm_90");
  EXPECT_DOUBLE_EQ(t.value, 1.4);
  EXPECT_EQ(t.section, "sm_90");
  EXPECT_TRUE(t.notice.empty());
}

TEST(Config, GpuModelSectionComesFirstThenArchitecture) {
  const auto c = course::Config::parse(std::string(kText) + "[gpu.nvidia_h100_80gb_hbm3]\nmin_ratio = 1.3\n", "t.toml");
  const auto h100 = course::lookup_threshold(c, "min_ratio", "sm_90", "NVIDIA H100 80GB HBM3");
  EXPECT_DOUBLE_EQ(h100.value, 1.3);
  EXPECT_EQ(h100.section, "gpu.nvidia_h100_80gb_hbm3");
  EXPECT_TRUE(h100.notice.empty());
  const auto other = course::lookup_threshold(c, "min_ratio", "sm_90", "NVIDIA GH200 480GB");
  EXPECT_DOUBLE_EQ(other.value, 1.4);  // the architecture's mark, with a notice naming the model
  EXPECT_NE(other.notice.find("NVIDIA GH200 480GB"), std::string::npos) << other.notice;
}

TEST(Config, GpuSectionNames) {
  EXPECT_EQ(course::gpu_section_name("NVIDIA H200"), "gpu.nvidia_h200");
  EXPECT_EQ(course::gpu_section_name("NVIDIA H100 80GB HBM3"), "gpu.nvidia_h100_80gb_hbm3");
  EXPECT_EQ(course::gpu_section_name("  NVIDIA  A100-SXM4-40GB "), "gpu.nvidia_a100_sxm4_40gb");
}

TEST(Config, UnknownGpuFallsBackToDefaultWithANotice) {
  const auto c = course::Config::parse(kText, "t.toml");
  const auto t = course::lookup_threshold(c, "min_ratio", "sm_86");
  EXPECT_DOUBLE_EQ(t.value, 1.25);
  EXPECT_EQ(t.section, "default");
  EXPECT_NE(t.notice.find("sm_86"), std::string::npos);
}

TEST(Config, LoadReportsAMissingFile) {
  EXPECT_THROW(course::Config::load("/nonexistent/lab99.toml"), course::ConfigError);
}

TEST(Config, EveryCommittedThresholdFileParsesAndSaysWhatItMeasures) {
  // A typo in these files would otherwise only show on the grading GPU.
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(course::thresholds_dir())) {
    if (entry.path().extension() != ".toml") continue;
    ++files;
    const auto c = course::Config::load(entry.path().string());
    EXPECT_TRUE(c.has("meta", "calibrated_on")) << entry.path();
    EXPECT_TRUE(c.has("meta", "metric")) << entry.path();
  }
  EXPECT_GE(files, 1) << "no threshold files in " << course::thresholds_dir();
}

}  // namespace
