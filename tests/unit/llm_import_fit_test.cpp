// gpucap import --format llm and gpucap fit --kind llm on the command line (issue 43): an LLM
// request log (Azure's columns, or any CSV with --map) becomes submit_s,context_tokens,
// output_tokens in submit order, requests without tokens dropped by reason; the fit writes an
// LLM service whose arrivals are the log's rate and whose tokens are the log's own pairs, and
// which runs; usage errors exit 2 with what is valid.
#include "support/cli.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;
using gpucap::testing_support::gpucap_cli;

fs::path dir() {
  const fs::path d = fs::path(testing::TempDir()) / ("gpucap_llm_import_" + std::to_string(getpid()));
  fs::create_directories(d);
  return d;
}

std::string write(const std::string& name, const std::string& text) {
  std::ofstream(dir() / name, std::ios::binary) << text;
  return (dir() / name).string();
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Azure's layout: local times with 7 decimals; one row out of order, one without an output
// token, one with a malformed count.
const char* kAzure =
    "TIMESTAMP,ContextTokens,GeneratedTokens\n"
    "2023-11-16 18:17:03.9799600,4808,10\n"
    "2023-11-16 18:17:04.0319600,3180,8\n"
    "2023-11-16 18:17:03.9999600,110,27\n"
    "2023-11-16 18:17:04.5191470,374,0\n"
    "2023-11-16 18:17:05.0000000,12x,3\n"
    "2023-11-16 18:17:13.9799600,34,1\n";

TEST(LlmImport, AzuresLogBecomesRequestsInSubmitOrder) {
  const std::string log = write("azure.csv", kAzure);
  const fs::path out = dir() / "requests.csv";
  const auto o = gpucap_cli("import --format llm " + log + " -o " + out.string());
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_EQ(read(out),
            "submit_s,context_tokens,output_tokens\n0,4808,10\n0.02,110,27\n0.052,3180,8\n"
            "10,34,1\n");
  EXPECT_TRUE(has(o.output, "kept 4 requests, dropped 2 requests")) << o.output;
  EXPECT_TRUE(has(o.output, "dropped 1 requests: no output token (nothing to generate) (first at "
                            "line 5)"))
      << o.output;
  EXPECT_TRUE(has(o.output, "malformed token count")) << o.output;
  EXPECT_TRUE(has(o.output, "(4 requests)")) << o.output;
}

TEST(LlmImport, AnyCsvWithMappedColumnsAndAClass) {
  const std::string log = write("generic.csv",
                                "t,prompt,completion,tenant\n5,100,20,a\n3.5,7,1,b\n4,0,9,a\n");
  const fs::path out = dir() / "generic_requests.csv";
  const auto o = gpucap_cli("import --format llm " + log + " -o " + out.string() +
                            " --time-format seconds --map submit=t,context=prompt,output=completion,"
                            "class=tenant");
  ASSERT_EQ(o.exit_code, 0) << o.output;
  // Times since the log's start: its 0 is submit_s = 0.
  EXPECT_EQ(read(out), "submit_s,context_tokens,output_tokens,class\n3.5,7,1,b\n5,100,20,a\n");
  EXPECT_TRUE(has(o.output, "no prompt token")) << o.output;
}

TEST(LlmImport, UsageErrorsSayWhatIsValid) {
  const std::string log = write("azure_usage.csv", kAzure);
  const std::string out = (dir() / "x.csv").string();
  const auto job_field = gpucap_cli("import --format llm " + log + " -o " + out + " --map gpus=n");
  EXPECT_EQ(job_field.exit_code, 2);
  EXPECT_TRUE(has(job_field.output, "submit, context, output and class")) << job_field.output;
  const auto request_field =
      gpucap_cli("import --format csv " + log + " -o " + out + " --map submit=a,context=b");
  EXPECT_EQ(request_field.exit_code, 2);
  EXPECT_TRUE(has(request_field.output, "--format llm")) << request_field.output;
  for (const char* option : {"--instances", "--log-end 2023-11-17T00:00:00", "--running drop"}) {
    const auto o = gpucap_cli("import --format llm " + log + " -o " + out + " " + option);
    EXPECT_EQ(o.exit_code, 2) << option << "\n" << o.output;
  }
  const auto missing = gpucap_cli("import --format llm " + write("no_tokens.csv", "TIMESTAMP,a\n1,2\n") +
                                  " -o " + out);
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_TRUE(has(missing.output, "ContextTokens")) << missing.output;
  EXPECT_FALSE(fs::exists(out)) << "nothing is written for an unusable log";
}

TEST(LlmFit, TheFittedServiceHasTheLogsRateAndTokensAndRuns) {
  // 6 requests over 50 s (the one without a prompt token left out): 6 / 50 s = 432 an hour; the tokens are the log's pairs in submit order.
  const std::string log = write("fit_requests.csv",
                                "submit_s,context_tokens,output_tokens\n0,100,5\n10,200,6\n"
                                "20,300,7\n5,50,2\n30,400,8\n50,500,9\n40,0,1\n");
  const fs::path yaml = dir() / "llm.yaml";
  const auto o = gpucap_cli("fit " + log + " --kind llm --model llama-2-7b --placement h100 -o " +
                            yaml.string());
  ASSERT_EQ(o.exit_code, 0) << o.output;
  const std::string text = read(yaml);
  EXPECT_TRUE(has(text, "arrivals: {process: poisson, rate_per_hour: 432}")) << text;
  EXPECT_TRUE(has(text, "model: \"llama-2-7b\"")) << text;
  EXPECT_TRUE(has(text, "tokens: {sample: \"llm.llm.tokens.csv\"}")) << text;
  // The rate's doubt, drawn (1/√6 for 6 arrivals), and no scale: the tokens are the log's.
  EXPECT_TRUE(has(text, "    uncertainty: {rate_sd_log: 0.4082}")) << text;
  EXPECT_TRUE(has(o.output, "1 request(s) without a prompt or an output token")) << o.output;
  EXPECT_EQ(read(dir() / "llm.llm.tokens.csv"),
            "context_tokens,output_tokens\n100,5\n50,2\n200,6\n300,7\n400,8\n500,9\n");
  // Appended to a scenario with the pool, it runs.
  const std::string scenario =
      write("fitted_run.yaml",
            "name: fitted\nhorizon: 1h\nreplications: 2\npools:\n  h100: {gpu: H100, purchase: "
            "on_demand, quota: 1, price_usd_per_gpu_hour: 4}\n" + text);
  const auto run = gpucap_cli("run " + scenario + " --quiet -o " + (dir() / "fitted.h5").string());
  EXPECT_EQ(run.exit_code, 0) << run.output;
}

TEST(LlmFit, UsageErrorsSayWhatIsValid) {
  const std::string log =
      write("fit_usage.csv", "submit_s,context_tokens,output_tokens\n0,100,5\n10,200,6\n");
  const std::string out = (dir() / "u.yaml").string();
  const std::string base = "fit " + log + " --kind llm --placement h100 -o " + out;
  const auto no_model = gpucap_cli(base);
  EXPECT_EQ(no_model.exit_code, 2);
  EXPECT_TRUE(has(no_model.output, "llama-2-7b")) << no_model.output;
  const auto unknown = gpucap_cli(base + " --model gpt-9");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_TRUE(has(unknown.output, "models_file")) << unknown.output;
  const auto family = gpucap_cli(base + " --model llama-2-7b --family lognormal");
  EXPECT_EQ(family.exit_code, 2);
  const auto tp = gpucap_cli(base + " --model llama-2-7b --tensor-parallel 0");
  EXPECT_EQ(tp.exit_code, 2);
  const auto not_llm = gpucap_cli("fit " + log + " --model llama-2-7b -o " + out);
  EXPECT_EQ(not_llm.exit_code, 2);
  EXPECT_TRUE(has(not_llm.output, "--kind llm only")) << not_llm.output;
  const auto calendar = gpucap_cli("fit " + write("fit_raw.csv", kAzure) +
                                   " --kind llm --model llama-2-7b --placement h100 -o " + out);
  EXPECT_EQ(calendar.exit_code, 2);
  EXPECT_TRUE(has(calendar.output, "gpucap import --format llm")) << calendar.output;
  const auto bad = gpucap_cli("fit " +
                              write("fit_bad.csv", "submit_s,context_tokens,output_tokens\n0,1.5,5\n") +
                              " --kind llm --model llama-2-7b --placement h100 -o " + out);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(has(bad.output, ":2: column \"context_tokens\"")) << bad.output;
  EXPECT_FALSE(fs::exists(out));
}

TEST(LlmImportAndFit, TheSharedAzureTrace) {
  const fs::path azure = fs::path(GPUCAP_SOURCE_DIR) /
                         "../shared/data/llm/azure_llm_inference_2023_code.csv";
  if (!fs::exists(azure)) GTEST_SKIP() << "../shared/data/llm is not here";
  const fs::path requests = dir() / "azure_requests.csv";
  const auto o = gpucap_cli("import --format llm " + azure.string() + " -o " + requests.string());
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_TRUE(has(o.output, "kept 8819 requests, dropped 0 requests")) << o.output;
  const fs::path yaml = dir() / "azure.yaml";
  const auto f = gpucap_cli("fit " + requests.string() +
                            " --kind llm --model llama-2-7b --placement h100 -o " + yaml.string());
  ASSERT_EQ(f.exit_code, 0) << f.output;
  // 8819 requests over the 3435.948 s from the first to the last.
  EXPECT_TRUE(has(read(yaml), "rate_per_s: 2.566686")) << read(yaml);
  EXPECT_TRUE(has(read(yaml), "burst: {interval: 60s")) << "the trace is burstier than Poisson";
}

}  // namespace
