// The backend table (gpucap/backend.hpp): its rows and order, the names --backend accepts, how
// `auto` and each choice resolve, and the cpu as an ordinary row that runs a task.
#include "gpucap/backend.hpp"

#include <cstring>
#include <gtest/gtest.h>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpucap/compile.hpp"
#include "gpucap/metrics.hpp"
#include "gpucap/scenario_loader.hpp"

namespace {

TEST(BackendTable, ListsCpuCudaAndThrustOmpInOrder) {
  const auto& table = gpucap::backends();
  ASSERT_EQ(table.size(), 3u);
  EXPECT_STREQ(table[0].name, "cpu");
  EXPECT_STREQ(table[1].name, "cuda");
  EXPECT_STREQ(table[2].name, "thrust-omp");
  EXPECT_EQ(table[0].kind, gpucap::BackendKind::cpu);
  EXPECT_EQ(table[1].kind, gpucap::BackendKind::device);
  EXPECT_EQ(table[2].kind, gpucap::BackendKind::device);
  // Only CUDA is something `auto` prefers to the cpu; thrust-omp is for testing.
  EXPECT_FALSE(table[0].automatic);
  EXPECT_TRUE(table[1].automatic);
  EXPECT_FALSE(table[2].automatic);
  for (const gpucap::Backend& b : table) {
    SCOPED_TRACE(b.name);
    EXPECT_GT(std::strlen(b.description), 10u);
    if (b.built()) {
      EXPECT_STREQ(b.not_built, "");
      EXPECT_NE(b.probe, nullptr);
      EXPECT_GT(std::strlen(b.targets), 0u);
      // Results record a device backend by its name, the cpu by its build's label.
      if (b.kind == gpucap::BackendKind::device) {
        EXPECT_STREQ(b.label, b.name);
      }
    } else {
      EXPECT_GT(std::strlen(b.not_built), 10u);
      EXPECT_EQ(b.probe, nullptr);
    }
  }
  // The cpu is always built, and its label is the one results record.
  EXPECT_TRUE(table[0].built());
  EXPECT_EQ(table[0].label, gpucap::cpu_backend_name());
}

TEST(BackendTable, ChoicesAreTheRowsThenAuto) {
  EXPECT_EQ(gpucap::backend_choice_names(),
            (std::vector<std::string>{"auto", "cpu", "cuda", "thrust-omp"}));
  EXPECT_EQ(gpucap::parse_backend("auto"), gpucap::BackendChoice::automatic);
  EXPECT_EQ(gpucap::parse_backend("cpu"), gpucap::BackendChoice::cpu);
  EXPECT_EQ(gpucap::parse_backend("cuda"), gpucap::BackendChoice::cuda);
  EXPECT_EQ(gpucap::parse_backend("thrust-omp"), gpucap::BackendChoice::thrust_omp);
  // Each row's choice is its index in the table.
  for (const gpucap::Backend& b : gpucap::backends())
    EXPECT_EQ(&gpucap::backends()[static_cast<std::size_t>(gpucap::parse_backend(b.name))], &b);
  EXPECT_EQ(gpucap::find_backend("auto"), nullptr);
  EXPECT_EQ(gpucap::find_backend("gpu"), nullptr);
  EXPECT_EQ(gpucap::find_backend("thrust-omp"), &gpucap::backends()[2]);
}

TEST(BackendTable, AnUnknownNameListsTheValidOnes) {
  try {
    gpucap::parse_backend("tpu");
    FAIL() << "tpu was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "unknown backend 'tpu'; valid: auto, cpu, cuda, thrust-omp");
  }
  EXPECT_THROW(gpucap::parse_backend("CPU"), std::invalid_argument);
  EXPECT_THROW(gpucap::parse_backend(""), std::invalid_argument);
}

TEST(BackendTable, AutoPicksAUsableCudaElseTheCpu) {
  const gpucap::Backend& cuda = *gpucap::find_backend("cuda");
  const bool gpu = cuda.built() && cuda.probe().usable();
  const gpucap::Backend& chosen = gpucap::resolve_backend(gpucap::BackendChoice::automatic);
  EXPECT_STREQ(chosen.name, gpu ? "cuda" : "cpu");
  EXPECT_EQ(&gpucap::resolve_backend(gpucap::BackendChoice::cpu), &gpucap::backends()[0]);
}

TEST(BackendTable, AnUnbuiltOrUnusableRowIsAOneLineError) {
  for (const gpucap::BackendChoice choice :
       {gpucap::BackendChoice::cuda, gpucap::BackendChoice::thrust_omp}) {
    const gpucap::Backend& b = gpucap::backends()[static_cast<std::size_t>(choice)];
    SCOPED_TRACE(b.name);
    if (b.built() && b.probe().usable()) {
      EXPECT_EQ(&gpucap::resolve_backend(choice), &b);
      continue;
    }
    try {
      gpucap::resolve_backend(choice);
      FAIL() << "resolved without a usable device";
    } catch (const gpucap::BackendUnavailable& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.rfind(std::string("backend ") + b.name + ": ", 0), 0u) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
      if (!b.built()) {
        EXPECT_NE(message.find(std::string("this build of gpucap has no ") + b.name + " backend (" +
                               b.not_built + ")"),
                  std::string::npos)
            << message;
      }
    }
  }
}

TEST(BackendTable, TheCpuRowSeesTheHostAndRunsATask) {
  const gpucap::Backend& cpu = gpucap::backends()[0];
  const gpucap::DeviceProbe probe = cpu.probe();
  ASSERT_TRUE(probe.usable()) << probe.why_none;
  ASSERT_EQ(probe.devices.size(), 1u);
  EXPECT_EQ(probe.devices[0].name, "host");
  EXPECT_EQ(probe.devices[0].multiprocessors, gpucap::resolve_thread_count(0));
  EXPECT_GT(probe.devices[0].total_memory_bytes, 0u);
  EXPECT_LE(probe.devices[0].free_memory_bytes, probe.devices[0].total_memory_bytes);

  const gpucap::Scenario scenario = gpucap::load_scenario(
      std::string(GPUCAP_SOURCE_DIR) + "/scenarios/mmc_validation.yaml", {"horizon=200h"});
  const gpucap::ModelStorage model = gpucap::compile(scenario);
  const auto run = [&](bool through_table, std::vector<double>& scalars) {
    const std::size_t count = 20;
    scalars.assign(count * gpucap::kScalarMetricCount, -1.0);
    std::vector<double> pools(count * model.model().pool_count * gpucap::kPoolMetricCount);
    gpucap::ReplicationTask task;
    task.models = &model;
    task.seed = 7;
    task.count = count;
    task.scalars = scalars.data();
    task.pool_values = pools.data();
    if (!through_table) {
      gpucap::run_replications_cpu(task, 1);
      return gpucap::DeviceRunStats{};
    }
    gpucap::DeviceLimits limits;
    limits.workers = 2;
    return cpu.run(task, limits);
  };
  std::vector<double> direct, table;
  run(false, direct);
  const gpucap::DeviceRunStats stats = run(true, table);
  EXPECT_EQ(stats.workers, 2u);
  EXPECT_EQ(stats.device, "host, 2 threads");
  ASSERT_EQ(direct.size(), table.size());
  EXPECT_EQ(std::memcmp(direct.data(), table.data(), direct.size() * sizeof(double)), 0);
  EXPECT_GT(table[gpucap::kJobsArrived], 0.0);
}

}  // namespace
