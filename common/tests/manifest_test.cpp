// The lab manifest reader (course::Manifest): good and bad manifests written to temporary files, the threshold
// fallback order and its notices, and every committed grader/labs/*/lab.toml.
#include "course/manifest.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace {

namespace fs = std::filesystem;

const char* kManifest = R"(# a lab
[lab]
title = "1D stencil"

[[perf]]
test = "StencilPerf.SpeedupVsGlobal"
key = "min_speedup_vs_global"
metric = "stencil() bandwidth / bandwidth of the global-memory stencil"
ceiling = "device-to-device copy"
review_above = 1.25
size = { n = 67108864, radius = 1 }

[[perf]]
test = "StencilPerf.BandwidthVsCopy"
key = "min_fraction_of_copy"
metric = "stencil() bandwidth / copy bandwidth"
ceiling = "device-to-device copy"
review_above = 1.25
size = { n = 1024, radius = 3 }

[thresholds.default]
min_speedup_vs_global = 1   # an integer is a number too
min_fraction_of_copy = 0.50

[thresholds.sm_90]
min_speedup_vs_global = 1.05
min_fraction_of_copy = 0.55

[thresholds.gpu.nvidia_h200]
min_speedup_vs_global = 1.10
min_fraction_of_copy = 0.60
)";

// Writes `text` to a fresh file in the test's temporary folder and returns its path.
std::string write_manifest(const std::string& text) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const fs::path dir = fs::temp_directory_path() / "course_manifest_test";
  fs::create_directories(dir);
  const fs::path path = dir / (std::string(info->name()) + ".toml");
  std::ofstream(path) << text;
  return path.string();
}

// The message of the ManifestError that loading `text` from a file throws, with the file's path written as
// "lab.toml" ("no error" when it loads).
std::string load_error(const std::string& text) {
  const std::string file = write_manifest(text);
  try {
    course::Manifest::load(file);
  } catch (const course::ManifestError& e) {
    std::string message = e.what();
    for (auto at = message.find(file); at != std::string::npos; at = message.find(file))
      message.replace(at, file.size(), "lab.toml");
    return message;
  }
  return "no error";
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

TEST(Manifest, ReadsPerfEntriesAndThresholds) {
  const std::string path = write_manifest(kManifest);
  const course::Manifest m = course::Manifest::load(path);
  EXPECT_EQ(m.path(), path);
  ASSERT_EQ(m.perf().size(), 2u);
  const course::PerfEntry& e = m.perf_entry("StencilPerf.BandwidthVsCopy");
  EXPECT_EQ(e.key, "min_fraction_of_copy");
  EXPECT_EQ(e.metric, "stencil() bandwidth / copy bandwidth");
  EXPECT_EQ(e.size, (course::Sizes{{"n", 1024}, {"radius", 3}}));
  EXPECT_EQ(m.perf()[0].size.at("n"), 67108864);
  EXPECT_DOUBLE_EQ(m.thresholds().at("default").at("min_speedup_vs_global"), 1.0);
  EXPECT_DOUBLE_EQ(m.thresholds().at("gpu.nvidia_h200").at("min_fraction_of_copy"), 0.60);
}

TEST(Manifest, CachedLoadsOncePerPath) {
  const std::string path = write_manifest(kManifest);
  EXPECT_EQ(&course::Manifest::cached(path), &course::Manifest::cached(path));
}

TEST(Manifest, ThresholdPrefersTheGpuModelThenTheArchitectureThenTheDefault) {
  const course::Manifest m = course::Manifest::parse(kManifest, "lab.toml");
  const course::Threshold h200 = m.threshold("min_fraction_of_copy", "sm_90", "NVIDIA H200");
  EXPECT_DOUBLE_EQ(h200.value, 0.60);
  EXPECT_EQ(h200.section, "gpu.nvidia_h200");
  EXPECT_TRUE(h200.notice.empty()) << h200.notice;

  const course::Threshold h100 = m.threshold("min_fraction_of_copy", "sm_90", "NVIDIA H100 80GB HBM3");
  EXPECT_DOUBLE_EQ(h100.value, 0.55);  // no section of its own: the architecture's mark, with a notice naming it
  EXPECT_EQ(h100.section, "sm_90");
  EXPECT_NE(h100.notice.find("NVIDIA H100 80GB HBM3"), std::string::npos) << h100.notice;
  EXPECT_NE(h100.notice.find("[thresholds.sm_90]"), std::string::npos) << h100.notice;

  const course::Threshold a100 = m.threshold("min_fraction_of_copy", "sm_80", "NVIDIA A100-SXM4-40GB");
  EXPECT_DOUBLE_EQ(a100.value, 0.50);
  EXPECT_EQ(a100.section, "default");
  EXPECT_NE(a100.notice.find("NVIDIA A100-SXM4-40GB (sm_80)"), std::string::npos) << a100.notice;
  EXPECT_NE(a100.notice.find("lab.toml"), std::string::npos) << a100.notice;
}

TEST(Manifest, ThresholdWithoutADeviceNameUsesTheArchitectureSilently) {
  const course::Manifest m = course::Manifest::parse(kManifest, "lab.toml");
  const course::Threshold t = m.threshold("min_speedup_vs_global", "sm_90");
  EXPECT_DOUBLE_EQ(t.value, 1.05);
  EXPECT_EQ(t.section, "sm_90");
  EXPECT_TRUE(t.notice.empty());
  const course::Threshold other = m.threshold("min_speedup_vs_global", "sm_86");
  EXPECT_EQ(other.section, "default");
  EXPECT_NE(other.notice.find("sm_86"), std::string::npos) << other.notice;
}

TEST(Manifest, AModelSectionWithoutTheKeyFallsBack) {
  const course::Manifest m =
      course::Manifest::parse(replaced(kManifest, "min_speedup_vs_global = 1.10\n", ""), "lab.toml");
  const course::Threshold t = m.threshold("min_speedup_vs_global", "sm_90", "NVIDIA H200");
  EXPECT_EQ(t.section, "sm_90");
  EXPECT_FALSE(t.notice.empty());
}

TEST(Manifest, GpuModelKeys) {
  EXPECT_EQ(course::gpu_model_key("NVIDIA H200"), "nvidia_h200");
  EXPECT_EQ(course::gpu_model_key("NVIDIA H100 80GB HBM3"), "nvidia_h100_80gb_hbm3");
  // Every character outside [a-z0-9] becomes one underscore, as in grader/course_grader/manifest.py's gpu_key().
  EXPECT_EQ(course::gpu_model_key(" NVIDIA  A100-SXM4-40GB"), "_nvidia__a100_sxm4_40gb");
}

TEST(Manifest, ErrorsNameTheFileAndTheKey) {
  EXPECT_EQ(load_error(replaced(kManifest, "metric = \"stencil() bandwidth / copy bandwidth\"\n", "")),
            "lab.toml: missing key 'perf[1].metric' (one sentence: what the ratio divides)");
  EXPECT_EQ(load_error(replaced(kManifest, "size = { n = 1024, radius = 3 }", "size = { n = 1024, radius = 1.5 }")),
            "lab.toml:19: 'perf[1].size.radius' must be an integer, not 1.5");
  EXPECT_EQ(load_error(replaced(kManifest, "key = \"min_fraction_of_copy\"", "key = 7")),
            "lab.toml:15: 'perf[1].key' must be a string, not 7");
  EXPECT_EQ(load_error(replaced(kManifest, "min_fraction_of_copy = 0.55", "min_fraction_of_copy = \"0.55\"")),
            "lab.toml:27: 'thresholds.sm_90.min_fraction_of_copy' must be a number, not '0.55'");
  EXPECT_EQ(load_error(replaced(kManifest, "[thresholds.sm_90]", "[thresholds.hopper]")),
            "lab.toml:25: [thresholds.hopper]: expected 'default', 'sm_XY' or 'gpu.<model>'");
  EXPECT_EQ(load_error(replaced(kManifest, "size = { n = 1024, radius = 3 }", "size = 3")),
            "lab.toml:19: 'perf[1].size' must be a table, not 3");
  EXPECT_EQ(load_error(replaced(kManifest, "size = { n = 1024, radius = 3 }", "size = [1024, 3]")),
            "lab.toml:19: 'perf[1].size' must be a table, not a list");
  EXPECT_EQ(load_error(replaced(kManifest, "[thresholds.default]", "[thresholds.default.nested]")),
            "lab.toml:21: 'thresholds.default.nested' must be a number, not a table");
  EXPECT_EQ(
      load_error(replaced(kManifest, "review_above = 1.25\nsize = { n = 1024, radius = 3 }",
                          "size = { n = 1024, radius = 3 }")),
      "lab.toml: missing key 'perf[1].review_above' (the fraction of the ceiling above which a result is reviewed)");
}

TEST(Manifest, InvalidTomlNamesTheLineAndColumn) {
  const std::string error = load_error("[lab]\ntitle = \"open\n");
  EXPECT_EQ(error.rfind("lab.toml:2:", 0), 0u) << error;
  EXPECT_NE(error.find("not valid TOML"), std::string::npos) << error;
}

TEST(Manifest, PerfWithoutThresholdsIsAnError) {
  const std::string text = std::string(kManifest).substr(0, std::string(kManifest).find("[thresholds.default]"));
  EXPECT_EQ(load_error(text), "lab.toml: missing table [thresholds.default] (the pass marks of the [[perf]] keys)");
  EXPECT_EQ(load_error("[lab]\ntitle = \"no perf tests\"\n"), "no error");
}

TEST(Manifest, MissingEntryAndMissingThresholdAreErrors) {
  const course::Manifest m = course::Manifest::parse(kManifest, "lab.toml");
  try {
    m.perf_entry("StencilPerf.Typo");
    ADD_FAILURE() << "no error";
  } catch (const course::ManifestError& e) {
    EXPECT_EQ(std::string(e.what()),
              "lab.toml: no [[perf]] entry with test = \"StencilPerf.Typo\" (entries: "
              "StencilPerf.SpeedupVsGlobal, StencilPerf.BandwidthVsCopy); add one, or rename "
              "the test to match");
  }
  try {
    m.threshold("min_typo", "sm_90", "NVIDIA H200");
    ADD_FAILURE() << "no error";
  } catch (const course::ManifestError& e) {
    EXPECT_EQ(std::string(e.what()),
              "lab.toml: no value for 'min_typo' in [thresholds.default] (used for any GPU "
              "without a section of its own); add min_typo = <pass mark> there");
  }
}

TEST(Manifest, LoadReportsAMissingFile) {
  try {
    course::Manifest::load("/nonexistent/lab.toml");
    ADD_FAILURE() << "no error";
  } catch (const course::ManifestError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open the lab manifest /nonexistent/lab.toml"), std::string::npos);
  }
}

TEST(Manifest, EveryCommittedLabManifestResolvesItsThresholds) {
  // A typo in a manifest would otherwise only show on the grading GPU.
  int labs = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(COURSE_SOURCE_DIR) / "grader" / "labs")) {
    const fs::path file = entry.path() / "lab.toml";
    if (!fs::is_regular_file(file)) continue;
    ++labs;
    const course::Manifest m = course::Manifest::load(file.string());
    EXPECT_FALSE(m.perf().empty()) << file;
    for (const course::PerfEntry& e : m.perf()) {
      EXPECT_FALSE(e.size.empty()) << file << " " << e.test;
      for (const char* device : {"NVIDIA H200", "NVIDIA H100 80GB HBM3", "NVIDIA GH200 480GB"})
        EXPECT_NO_THROW(m.threshold(e.key, "sm_90", device)) << file << " " << e.test << " on " << device;
      EXPECT_EQ(m.threshold(e.key, "sm_90", "NVIDIA H200").section, "gpu.nvidia_h200") << file << " " << e.test;
      EXPECT_NO_THROW(m.threshold(e.key, "sm_80", "NVIDIA A100")) << file << " " << e.test;
    }
  }
  EXPECT_GE(labs, 6) << "lab manifests in " << COURSE_SOURCE_DIR << "/grader/labs";
}

}  // namespace
