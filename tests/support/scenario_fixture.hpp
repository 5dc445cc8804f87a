// Test support: a GoogleTest fixture with a private temporary folder for data files, and
// scenario parsing relative to it.
#pragma once
#include <atomic>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <unistd.h>
#include <vector>

#include "gpucap/scenario_loader.hpp"

namespace gpucap::testing_support {

class ScenarioFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("gpucap_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  /// Writes `text` to `name` inside the fixture's folder.
  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }
  std::string dir() const { return dir_.string(); }

  /// Parses YAML text as "test.yaml", with data files resolved in the fixture's folder.
  Scenario parse(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
    return parse_scenario(yaml, "test.yaml", dir(), overrides);
  }

  /// The message of the ScenarioError that parsing `yaml` raises, or "no error".
  std::string error_of(const std::string& yaml) {
    try {
      parse(yaml);
    } catch (const ScenarioError& e) {
      return e.what();
    }
    return "no error";
  }

  std::filesystem::path dir_;
};

}  // namespace gpucap::testing_support
